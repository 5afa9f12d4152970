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

/* The lines of a small system file (/etc/hosts, /proc/self/cgroup),
 * through a buffer, without stdio (lib/linefile.c). */
struct bytes_lines {
	int fd;
	size_t len, off;
	char b[4096];
};
/* Open path: 0, or -1 with errno. */
int bytes_lines_open(struct bytes_lines *l, const char *path);
/* The next line without its newline, NUL-terminated in the buffer (a
 * line longer than the buffer comes in pieces, as fgets gives it); NULL
 * at the end, the file then closed. */
char *bytes_line(struct bytes_lines *l);
/* The first line of path (at most n - 1 bytes) into b: 0, or -1. */
int bytes_first_line(const char *path, char *b, size_t n);

#endif
