/* linefile.h - the lines of a small system file (/etc/hosts,
 * /etc/resolv.conf, /proc/self/cgroup) through a buffer, without stdio
 * (lib/linefile.c) */
#ifndef WFS_LINEFILE_H
#define WFS_LINEFILE_H

#include <stddef.h>

struct linefile {
	int fd;
	size_t len, off;
	char b[4096];
};
/* Open path: 0, or -1 with errno. */
int linefile_open(struct linefile *l, const char *path);
/* The next line without its newline, NUL-terminated in the buffer (a
 * line longer than the buffer comes in pieces, as fgets gives it); NULL
 * at the end, the file then closed. */
char *linefile_next(struct linefile *l);
/* The first line of path (at most n - 1 bytes) into b: 0, or -1. */
int linefile_first(const char *path, char *b, size_t n);

#endif
