/* bytes.h - byte scans and whole writes (lib/bytes.c) */
#ifndef WFS_BYTES_H
#define WFS_BYTES_H

#include <stddef.h>

/* memchr, and a count of c in p[0..n): fast on the search's hot path. */
const char *bytes_find(const char *p, size_t n, char c);
size_t bytes_count(const char *p, size_t n, char c);

/* Write all n bytes, again after EINTR and short writes: 0, or -1 with
 * errno (EIO when the descriptor takes nothing). */
int bytes_write_all(int fd, const void *p, size_t n);

#endif
