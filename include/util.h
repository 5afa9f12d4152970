/* util.h - small shared helpers: UTF-8, base64, paths */
#ifndef WFS_UTIL_H
#define WFS_UTIL_H

#include <stddef.h>
#include "arena.h"
#include "buf.h"

/* UTF-8 as Go defines it: no surrogates, no overlongs, max U+10FFFF. */
int utf8_valid(const char *s, size_t n);
/* Decode one code point at s (n > 0). Returns its length (1..4) and stores
 * the code point; an invalid sequence gives length 1 and -1. */
int utf8_decode(const char *s, size_t n, int *cp);
/* Encode code point cp (at most U+10FFFF) at o: 1 to 4 bytes, the count
 * returned. */
size_t utf8_encode(char *o, unsigned cp);

/* memchr, and a count of c in p[0..n): fast on the search's hot path. */
const char *bytes_find(const char *p, size_t n, char c);
size_t bytes_count(const char *p, size_t n, char c);

/* Write all n bytes, again after EINTR and short writes: 0, or -1 with
 * errno (EIO when the descriptor takes nothing). */
int write_all(int fd, const void *p, size_t n);

/* Standard base64 with padding. */
void base64_encode(struct buf *b, const unsigned char *p, size_t n);
/* Returns the decoded length, or -1 on bad input. out holds n*3/4 bytes. */
long base64_decode(const char *s, size_t n, unsigned char *out);

/* Go's filepath.Clean: lexical, "" -> ".". */
char *path_clean(struct arena *a, const char *p);
/* Base name without trailing slashes ("" for "/"). Points into p. */
const char *path_base(const char *p);

#endif
