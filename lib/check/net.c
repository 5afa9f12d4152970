/* net.c - TCP connects and plain HTTP requests for addr and http checks
 *
 * Addresses go through lib/netaddr.c (no libc resolver in a static
 * binary). HTTP is HTTP/1.0 with Connection: close, so the answer ends at
 * EOF and never comes chunked; TLS is out of scope and said so.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "base64.h"
#include "check_int.h"
#include "netaddr.h"
#include "wfs_features.h"

#ifdef CONFIG_FEATURE_CHECK_NET

#define HTTP_MAX (16u << 20)

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait for fd to be ready for events until deadline: 1, 0 on timeout. */
static int wait_fd(int fd, short events, long long deadline)
{
	struct pollfd p = {fd, events, 0};
	long long left;
	int rc;

	do {
		left = deadline - now_ms();
		if (left <= 0)
			return 0;
		rc = poll(&p, 1, (int)(left > 60000 ? 60000 : left));
	} while (rc < 0 && errno == EINTR);
	return rc > 0;
}

int check_connect(const char *hostport, const char *local, long long timeout_ms, char *err,
		  size_t errlen)
{
	struct sockaddr_storage ss, ls;
	socklen_t len, llen;
	long long deadline = now_ms() + (timeout_ms > 0 ? timeout_ms : 500);
	int fd, e = 0;
	socklen_t el = sizeof(e);

	if (netaddr_parse(hostport, 0, &ss, &len, err, errlen))
		return -1;
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return -1;
	}
	if (local && *local) {
		const char *hp = strchr(local, ':') && local[0] != '[' ? local : NULL;
		char lp[300];
		snprintf(lp, sizeof(lp), hp ? "[%s]:0" : "%s:0", local);
		if (netaddr_parse(lp, 0, &ls, &llen, err, errlen) ||
		    bind(fd, (struct sockaddr *)&ls, llen)) {
			if (!*err)
				snprintf(err, errlen, "bind %s: %s", local, strerror(errno));
			close(fd);
			return -1;
		}
	}
	if (connect(fd, (struct sockaddr *)&ss, len) && errno != EINPROGRESS) {
		snprintf(err, errlen, "dial tcp %s: %s", hostport, strerror(errno));
		close(fd);
		return -1;
	}
	if (!wait_fd(fd, POLLOUT, deadline)) {
		snprintf(err, errlen, "dial tcp %s: i/o timeout", hostport);
		close(fd);
		return -1;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) || e) {
		snprintf(err, errlen, "dial tcp %s: %s", hostport, strerror(e ? e : errno));
		close(fd);
		return -1;
	}
	return fd;
}

static int send_all(int fd, const char *p, size_t n, long long deadline)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
			if (!wait_fd(fd, POLLOUT, deadline))
				return -1;
			continue;
		}
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* One request; the whole answer into *resp. */
static int request(struct arena *a, const struct check_http *h, const char *url,
		   long long deadline, struct buf *resp, char *err, size_t errlen)
{
	const char *rest = url + 7, *slash = strchr(rest, '/');
	char *host = arena_strndup(a, rest, slash ? (size_t)(slash - rest) : strlen(rest));
	const char *hostport = strchr(host, ':') && host[0] != '[' ? host : arena_printf(a, "%s:80", host);
	struct buf q;
	char chunk[16384];
	ssize_t n;
	size_t i;
	int fd;

	if (host[0] == '[' && !strstr(host, "]:"))
		hostport = arena_printf(a, "%s:80", host);
	fd = check_connect(hostport, NULL, deadline - now_ms(), err, errlen);
	if (fd < 0)
		return -1;
	buf_init(&q);
	buf_printf(&q, "%s %s HTTP/1.0\r\nHost: %s\r\nUser-Agent: wickfs-check\r\nConnection: close\r\n",
		   h->method ? h->method : "GET", slash ? slash : "/", host);
	for (i = 0; h->headers && i < h->headers->len; i++)
		if (h->headers->items[i].type == JSON_STR)
			buf_printf(&q, "%s\r\n", h->headers->items[i].str);
	if (h->username) {
		const char *up = arena_printf(a, "%s:%s", h->username, h->password ? h->password : "");
		buf_puts(&q, "Authorization: Basic ");
		base64_encode(&q, (const unsigned char *)up, strlen(up));
		buf_puts(&q, "\r\n");
	}
	if (h->body)
		buf_printf(&q, "Content-Length: %zu\r\n", strlen(h->body));
	buf_puts(&q, "\r\n");
	if (h->body)
		buf_puts(&q, h->body);
	if (q.oom || send_all(fd, q.p, q.len, deadline)) {
		snprintf(err, errlen, "%s: write failed", url);
		buf_free(&q);
		close(fd);
		return -1;
	}
	buf_free(&q);
	for (;;) {
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			if (!wait_fd(fd, POLLIN, deadline)) {
				snprintf(err, errlen, "%s: timeout awaiting response", url);
				close(fd);
				return -1;
			}
			continue;
		}
		if (n <= 0 || resp->len > HTTP_MAX)
			break;
		buf_add(resp, chunk, (size_t)n);
	}
	close(fd);
	return 0;
}

/* Headers as "Name: value" lines for patterns, names as Go writes them
 * (Content-Type, whatever the server sent). */
static void canonical(char *s)
{
	char *w = s;
	int name = 1, up = 1;

	for (; *s; s++) {
		char c = *s;
		if (c == '\r')
			continue;
		if (c == '\n')
			name = up = 1;
		else if (name && c == ':')
			name = 0;
		else if (name && c >= 'a' && c <= 'z' && up)
			c = (char)(c - 32);
		else if (name && c >= 'A' && c <= 'Z' && !up)
			c = (char)(c + 32);
		if (name && c != '\n')
			up = c == '-';
		*w++ = c;
	}
	*w = 0;
}

int check_http_get(struct arena *a, const struct check_http *h, struct check_http_answer *ans,
		   char *err, size_t errlen)
{
	long long deadline = now_ms() + (h->timeout_ms > 0 ? h->timeout_ms : 5000);
	const char *url = h->url;
	int hops;

	for (hops = 0; hops < 10; hops++) {
		struct buf r;
		const char *end, *loc;
		int rc;

		if (strncmp(url, "http://", 7)) {
			snprintf(err, errlen, "%s: only plain http:// URLs are supported (no TLS)", url);
			return -1;
		}
		buf_init(&r);
		rc = request(a, h, url, deadline, &r, err, errlen);
		buf_putc(&r, 0);
		if (rc || r.oom || !(end = strstr(r.p, "\r\n\r\n")) || strncmp(r.p, "HTTP/", 5) ||
		    !strchr(r.p, ' ')) {
			if (!rc)
				snprintf(err, errlen, "%s: malformed HTTP response", url);
			buf_free(&r);
			return -1;
		}
		ans->status = atoi(strchr(r.p, ' ') + 1);
		ans->headers = arena_strndup(a, strstr(r.p, "\r\n") + 2, (size_t)(end - strstr(r.p, "\r\n") - 2));
		ans->body = arena_strndup(a, end + 4, r.len - 1 - (size_t)(end + 4 - r.p));
		ans->body_len = r.len - 1 - (size_t)(end + 4 - r.p);
		buf_free(&r);
		if (!ans->headers || !ans->body)
			return -1;
		canonical((char *)ans->headers);
		if (h->no_follow || ans->status < 300 || ans->status > 399)
			return 0;
		loc = strcasestr(ans->headers, "\nLocation:");
		if (!loc && !strncasecmp(ans->headers, "Location:", 9))
			loc = ans->headers - 1;
		if (!loc)
			return 0;
		loc += 10;
		while (*loc == ' ')
			loc++;
		{
			size_t n = strcspn(loc, "\n");
			char *l = arena_strndup(a, loc, n);
			if (l[0] == '/') {
				const char *host_end = strchr(url + 7, '/');
				l = arena_printf(a, "%.*s%s",
						 (int)(host_end ? (size_t)(host_end - url) : strlen(url)), url, l);
			}
			url = l;
		}
	}
	snprintf(err, errlen, "%s: stopped after 10 redirects", h->url);
	return -1;
}
#endif
