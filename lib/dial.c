/* dial.c - a client's side of a daemon connection
 *
 * The client applet sends a request and reads its answer line by line;
 * a line is read with MSG_PEEK up to its '\n' so that a streamed answer's
 * next lines stay in the socket for the next call.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>
#include "dial.h"
#include "netaddr.h"

int dial_connect(const char *addr, int timeout_s, char *err, size_t errlen)
{
	struct timeval tv = {timeout_s, 0};
	int fd = -1;

	if (!strncmp(addr, "unix:", 5) || (strchr(addr, '/') && strncmp(addr, "tcp:", 4))) {
		struct sockaddr_un sa = {.sun_family = AF_UNIX};
		const char *path = strncmp(addr, "unix:", 5) ? addr : addr + 5;

		if (strlen(path) >= sizeof(sa.sun_path)) {
			snprintf(err, errlen, "socket path too long: %s", path);
			return -1;
		}
		strcpy(sa.sun_path, path);
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
			snprintf(err, errlen, "connect unix:%s: %s", path, strerror(errno));
			close(fd);
			return -1;
		}
	} else {
		const char *hp = strncmp(addr, "tcp:", 4) ? addr : addr + 4;
		struct sockaddr_storage ss;
		socklen_t sl;
		char why[256];

		if (netaddr_parse(hp, 0, &ss, &sl, why, sizeof(why))) {
			snprintf(err, errlen, "connect %s: %s", addr, why);
			return -1;
		}
		fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd >= 0 && connect(fd, (struct sockaddr *)&ss, sl)) {
			int e = errno;

			close(fd);
			snprintf(err, errlen, "connect %s: %s", addr, strerror(e));
			return -1;
		}
	}
	if (fd < 0) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	return fd;
}

int dial_send_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int dial_recv_line(int fd, struct buf *b)
{
	char c[4096];

	buf_reset(b);
	for (;;) {
		char *nl;
		ssize_t n = recv(fd, c, sizeof(c), MSG_PEEK);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		nl = memchr(c, '\n', (size_t)n);
		n = recv(fd, c, nl ? (size_t)(nl - c) + 1 : (size_t)n, 0);
		if (n <= 0)
			return -1;
		buf_add(b, c, (size_t)(nl ? n - 1 : n));
		if (nl)
			return b->oom ? -1 : 0;
	}
}
