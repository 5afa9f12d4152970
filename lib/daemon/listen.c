/* listen.c - the TCP and Unix listening sockets */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include "daemon_int.h"

int listen_tcp(struct daemon *d, const char *addr)
{
	struct addrinfo hints = {0}, *res, *ai;
	char host[256], port[32], shown[300];
	const char *colon = strrchr(addr, ':');
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	int fd = -1, rc, one = 1;

	if (!colon || (size_t)(colon - addr) >= sizeof(host) ||
	    strlen(colon + 1) >= sizeof(port) || !colon[1]) {
		dlog("bad listen address %s: want HOST:PORT", addr);
		return -1;
	}
	snprintf(host, sizeof(host), "%.*s", (int)(colon - addr), addr);
	snprintf(port, sizeof(port), "%s", colon + 1);
	if (host[0] == '[' && host[strlen(host) - 1] == ']') {
		memmove(host, host + 1, strlen(host));
		host[strlen(host) - 1] = 0;
	}
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE;
	rc = getaddrinfo(host[0] ? host : NULL, port, &hints, &res);
	if (rc) {
		dlog("listen %s: %s", addr, gai_strerror(rc));
		return -1;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0)
			continue;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (!bind(fd, ai->ai_addr, ai->ai_addrlen) && !listen(fd, 4096))
			break;
		rc = errno;
		close(fd);
		fd = -1;
		errno = rc;
	}
	freeaddrinfo(res);
	if (fd < 0) {
		dlog("listen tcp %s: %s", addr, strerror(errno));
		return -1;
	}
	snprintf(shown, sizeof(shown), "%s", addr);
	if (!getsockname(fd, (struct sockaddr *)&ss, &sl)) {
		char h[128], p[16];
		if (!getnameinfo((struct sockaddr *)&ss, sl, h, sizeof(h), p, sizeof(p),
				 NI_NUMERICHOST | NI_NUMERICSERV))
			snprintf(shown, sizeof(shown), "%s:%s", h, p);
	}
	d->lis[d->nlis].fd = fd;
	d->lis[d->nlis].is_unix = 0;
	d->nlis++;
	dlog("listening on tcp %s", shown);
	return 0;
}

int listen_unix(struct daemon *d, const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct stat st;
	mode_t old;
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		dlog("socket path too long: %s", path);
		return -1;
	}
	strcpy(sa.sun_path, path);
	if (!lstat(path, &st)) {
		if (!S_ISSOCK(st.st_mode)) {
			dlog("%s exists and is not a socket: not removing it", path);
			return -1;
		}
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd >= 0 && !connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
			close(fd);
			dlog("another daemon is listening on %s", path);
			return -1;
		}
		if (fd >= 0)
			close(fd);
		unlink(path); /* stale socket of a daemon that is gone */
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		dlog("socket: %s", strerror(errno));
		return -1;
	}
	old = umask(0177); /* created 0600: commands for our user only */
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		umask(old);
		dlog("bind %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	umask(old);
	if (listen(fd, 4096) || lstat(path, &st)) {
		dlog("listen %s: %s", path, strerror(errno));
		close(fd);
		unlink(path);
		return -1;
	}
	d->sock_path = strdup(path);
	d->sock_ino = st.st_ino;
	d->lis[d->nlis].fd = fd;
	d->lis[d->nlis].is_unix = 1;
	d->nlis++;
	dlog("listening on unix %s", path);
	return 0;
}

void listen_remove_socket(struct daemon *d)
{
	struct stat st;

	if (d->sock_path && !lstat(d->sock_path, &st) && st.st_ino == d->sock_ino &&
	    S_ISSOCK(st.st_mode))
		unlink(d->sock_path);
	free(d->sock_path);
	d->sock_path = NULL;
}
