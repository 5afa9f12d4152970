/* utf8.h - UTF-8 as Go defines it (lib/utf8.c) */
#ifndef WFS_UTF8_H
#define WFS_UTF8_H

#include <stddef.h>

/* UTF-8 as Go defines it: no surrogates, no overlongs, max U+10FFFF. */
int utf8_valid(const char *s, size_t n);
/* Decode one code point at s (n > 0). Returns its length (1..4) and stores
 * the code point; an invalid sequence gives length 1 and -1. */
int utf8_decode(const char *s, size_t n, int *cp);
/* Encode code point cp (at most U+10FFFF) at o: 1 to 4 bytes, the count
 * returned. */
size_t utf8_encode(char *o, unsigned cp);

#endif
