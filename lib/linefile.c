/* linefile.c - the lines of small system files without stdio: what
 * fopen and fgets did for /etc/hosts, /etc/resolv.conf and the cgroup
 * files, in a fixed buffer (musl's stdio was 5 KB for these alone). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include "linefile.h"

int linefile_open(struct linefile *l, const char *path)
{
	l->len = l->off = 0;
	l->fd = open(path, O_RDONLY | O_CLOEXEC);
	return l->fd < 0 ? -1 : 0;
}

char *linefile_next(struct linefile *l)
{
	size_t room = sizeof(l->b) - 1;
	char *s, *nl;
	ssize_t n;

	for (;;) {
		s = l->b + l->off;
		nl = memchr(s, '\n', l->len - l->off);
		/* a whole line; or, the file ended or the buffer is full, what is left */
		if (nl || (l->off < l->len && (l->fd < 0 || (!l->off && l->len == room)))) {
			if (!nl)
				nl = l->b + l->len;
			*nl = 0;
			l->off = (size_t)(nl - l->b) + (nl < l->b + l->len);
			return s;
		}
		if (l->fd < 0)
			return NULL;
		memmove(l->b, s, l->len - l->off);
		l->len -= l->off;
		l->off = 0;
		n = read(l->fd, l->b + l->len, room - l->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			close(l->fd);
			l->fd = -1;
		} else
			l->len += (size_t)n;
	}
}

int linefile_first(const char *path, char *b, size_t n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t k = fd < 0 ? -1 : read(fd, b, n - 1);

	if (fd >= 0)
		close(fd);
	if (k < 0)
		return -1;
	b[k] = 0;
	b[strcspn(b, "\n")] = 0;
	return 0;
}
