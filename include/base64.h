/* base64.h - standard base64 with padding (lib/base64.c) */
#ifndef WFS_BASE64_H
#define WFS_BASE64_H

#include <stddef.h>
#include "buf.h"

/* Standard base64 with padding. */
void base64_encode(struct buf *b, const unsigned char *p, size_t n);
/* Returns the decoded length, or -1 on bad input. out holds n*3/4 bytes. */
long base64_decode(const char *s, size_t n, unsigned char *out);

#endif
