/* listen.c - the TCP and Unix listening sockets */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include "daemon_int.h"
#include "netaddr.h"

int listen_tcp(struct daemon *d, const char *addr)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	char err[256], shown[80];
	int fd, e, one = 1;

	if (netaddr_parse(addr, 1, &ss, &sl, err, sizeof(err))) {
		daemon_log("listen tcp %s: %s", addr, err);
		return -1;
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		daemon_log("listen tcp %s: %s", addr, strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, sl) || listen(fd, 4096)) {
		e = errno;
		close(fd);
		daemon_log("listen tcp %s: %s", addr, strerror(e));
		return -1;
	}
	sl = sizeof(ss);
	if (getsockname(fd, (struct sockaddr *)&ss, &sl))
		snprintf(shown, sizeof(shown), "%s", addr);
	else
		netaddr_format((struct sockaddr *)&ss, shown, sizeof(shown));
	d->lis[d->nlis].fd = fd;
	d->lis[d->nlis].is_unix = 0;
	d->nlis++;
	daemon_log("listening on tcp %s", shown);
	return 0;
}

int listen_unix(struct daemon *d, const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct stat st;
	mode_t old;
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		daemon_log("socket path too long: %s", path);
		return -1;
	}
	strcpy(sa.sun_path, path);
	if (!lstat(path, &st)) {
		if (!S_ISSOCK(st.st_mode)) {
			daemon_log("%s exists and is not a socket: not removing it", path);
			return -1;
		}
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd >= 0 && !connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
			close(fd);
			daemon_log("another daemon is listening on %s", path);
			return -1;
		}
		if (fd >= 0)
			close(fd);
		unlink(path); /* stale socket of a daemon that is gone */
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		daemon_log("socket: %s", strerror(errno));
		return -1;
	}
	old = umask(0177); /* created 0600: commands for our user only */
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int e = errno;
		umask(old);
		close(fd);
		/* A read-only root or a /tmp we may not write: the default
		 * path cannot work there, so say what to pass instead. */
		if (e == EROFS || e == EACCES || e == EPERM || e == ENOENT ||
		    e == ENOTDIR)
			daemon_log("bind %s: %s: pass --socket PATH (or DAEMON_SOCKET) "
				   "in a writable directory, or --socket off to serve "
				   "TCP only",
				   path, strerror(e));
		else
			daemon_log("bind %s: %s", path, strerror(e));
		return -1;
	}
	umask(old);
	if (listen(fd, 4096) || lstat(path, &st)) {
		daemon_log("listen %s: %s", path, strerror(errno));
		close(fd);
		unlink(path);
		return -1;
	}
	/* Absolute, so it is still ours to remove after a chdir (--root). */
	if (path[0] != '/') {
		char cwd[4096];
		size_t n;
		if (getcwd(cwd, sizeof(cwd)) && (d->sock_path = malloc(n = strlen(cwd) + strlen(path) + 2)))
			snprintf(d->sock_path, n, "%s/%s", cwd, path);
	} else {
		d->sock_path = strdup(path);
	}
	d->sock_ino = st.st_ino;
	d->lis[d->nlis].fd = fd;
	d->lis[d->nlis].is_unix = 1;
	d->nlis++;
	daemon_log("listening on unix %s", path);
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
