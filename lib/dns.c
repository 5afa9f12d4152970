/* dns.c - a small stub resolver: one name to one address over UDP
 *
 * The libc resolver (getaddrinfo) would add tens of KB to the static
 * binary, yet a CI job or an agent host may well name its daemon by a
 * DNS name (a container network's service name, say). This asks the
 * nameservers of /etc/resolv.conf for A, then AAAA records, honouring its
 * search list, ndots, timeout and attempts options as the C library
 * does, and returns the first address. Replies must come from the server
 * asked (a connected socket) and carry our random query id.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include "wickfs.h"
#include <unistd.h>
#include "linefile.h"
#include "dns.h"
#include "netaddr.h"

#define MAXNS 3
#define MAXSEARCH 6

struct resolv {
	struct sockaddr_storage ns[MAXNS];
	socklen_t nslen[MAXNS];
	int nns;
	char search[MAXSEARCH][128];
	int nsearch;
	int ndots, timeout_s, attempts;
};

static void add_ns(struct resolv *r, const char *s)
{
	struct sockaddr_in *a4 = (struct sockaddr_in *)&r->ns[r->nns];
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&r->ns[r->nns];
	char ip[64];

	if (r->nns == MAXNS)
		return;
	snprintf(ip, sizeof(ip), "%s", s);
	ip[strcspn(ip, "%")] = 0; /* a scope id: not kept */
	memset(&r->ns[r->nns], 0, sizeof(r->ns[0]));
	if (inet_pton(AF_INET, ip, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons(53);
		r->nslen[r->nns++] = sizeof(*a4);
	} else if (inet_pton(AF_INET6, ip, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons(53);
		r->nslen[r->nns++] = sizeof(*a6);
	}
}

static void read_resolv_conf(struct resolv *r)
{
	struct linefile f;
	char *line;
	int have = !linefile_open(&f, "/etc/resolv.conf");

	memset(r, 0, sizeof(*r));
	r->ndots = 1;
	r->timeout_s = 5;
	r->attempts = 2;
	while (have && (line = linefile_next(&f))) {
		char *save, *key, *v;

		line[strcspn(line, "#;\n")] = 0;
		key = strtok_r(line, " \t", &save);
		if (!key)
			continue;
		if (!strcmp(key, "nameserver")) {
			if ((v = strtok_r(NULL, " \t", &save)))
				add_ns(r, v);
		} else if (!strcmp(key, "search") || !strcmp(key, "domain")) {
			r->nsearch = 0;
			while ((v = strtok_r(NULL, " \t", &save)) && r->nsearch < MAXSEARCH)
				snprintf(r->search[r->nsearch++], sizeof(r->search[0]), "%s", v);
		} else if (!strcmp(key, "options")) {
			while ((v = strtok_r(NULL, " \t", &save))) {
				if (!strncmp(v, "ndots:", 6))
					r->ndots = atoi(v + 6);
				else if (!strncmp(v, "timeout:", 8))
					r->timeout_s = atoi(v + 8);
				else if (!strncmp(v, "attempts:", 9))
					r->attempts = atoi(v + 9);
			}
		}
	}
	if (!r->nns)
		add_ns(r, "127.0.0.1"); /* what the C library assumes */
	if (r->timeout_s < 1)
		r->timeout_s = 1;
	if (r->timeout_s > 30)
		r->timeout_s = 30;
	if (r->attempts < 1)
		r->attempts = 1;
	if (r->attempts > 5)
		r->attempts = 5;
}

/* The query for name and type into q; its length, or 0 if name is bad. */
static size_t build_query(unsigned char *q, size_t cap, unsigned id,
			  const char *name, int type)
{
	size_t n = 12;
	const char *p = name;

	memset(q, 0, 12);
	q[0] = (unsigned char)(id >> 8);
	q[1] = (unsigned char)id;
	q[2] = 0x01; /* recursion desired */
	q[5] = 1;    /* one question */
	while (*p) {
		const char *dot = strchr(p, '.');
		size_t l = dot ? (size_t)(dot - p) : strlen(p);

		if (!l || l > 63 || n + l + 6 > cap)
			return 0;
		q[n++] = (unsigned char)l;
		memcpy(q + n, p, l);
		n += l;
		p += l;
		if (*p)
			p++;
	}
	if (n > 12 + 254)
		return 0;
	q[n++] = 0;
	q[n++] = 0;
	q[n++] = (unsigned char)type;
	q[n++] = 0;
	q[n++] = 1; /* class IN */
	return n;
}

/* Past the (possibly compressed) name at m[p]; 0 when malformed. */
static size_t skip_name(const unsigned char *m, size_t len, size_t p)
{
	while (p < len) {
		unsigned b = m[p];
		if (!b)
			return p + 1;
		if ((b & 0xc0) == 0xc0)
			return p + 2 <= len ? p + 2 : 0;
		if (b & 0xc0)
			return 0;
		p += 1 + b;
	}
	return 0;
}

enum {
	ANS_FOUND,
	ANS_NONE,
	ANS_RETRY,
	ANS_BAD
};

/* An address of the asked type from reply m, into ip. */
static int parse_reply(const unsigned char *m, size_t len, unsigned id,
		       int type, char *ip, size_t iplen)
{
	unsigned an, i;
	size_t p;

	if (len < 12 || (((unsigned)m[0] << 8) | m[1]) != id || !(m[2] & 0x80))
		return ANS_BAD;
	if (m[2] & 0x02)
		return ANS_RETRY; /* truncated: another server may do better */
	switch (m[3] & 0x0f) {
	case 0:
		break;
	case 3:
		return ANS_NONE; /* no such name */
	default:
		return ANS_RETRY; /* server failure, refused, ... */
	}
	an = ((unsigned)m[6] << 8) | m[7];
	p = 12;
	for (i = ((unsigned)m[4] << 8) | m[5]; i; i--) {
		if (!(p = skip_name(m, len, p)) || p + 4 > len)
			return ANS_BAD;
		p += 4;
	}
	for (i = 0; i < an; i++) {
		unsigned t, rdlen;

		if (!(p = skip_name(m, len, p)) || p + 10 > len)
			return ANS_BAD;
		t = ((unsigned)m[p] << 8) | m[p + 1];
		rdlen = ((unsigned)m[p + 8] << 8) | m[p + 9];
		p += 10;
		if (p + rdlen > len)
			return ANS_BAD;
		if ((int)t == type && type == 1 && rdlen == 4)
			return inet_ntop(AF_INET, m + p, ip, (socklen_t)iplen) ? ANS_FOUND : ANS_BAD;
		if ((int)t == type && type == 28 && rdlen == 16)
			return inet_ntop(AF_INET6, m + p, ip, (socklen_t)iplen) ? ANS_FOUND : ANS_BAD;
		p += rdlen;
	}
	return ANS_NONE; /* the name exists, without such a record */
}

/* Ask server k once; ANS_* (ANS_RETRY on timeout or socket errors). */
static int ask(const struct resolv *r, int k, const unsigned char *q,
	       size_t qlen, unsigned id, int type, char *ip, size_t iplen)
{
	unsigned char m[1500];
	int fd = socket(r->ns[k].ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	long long deadline = wfs_now_ms() + r->timeout_s * 1000LL;
	int rc = ANS_RETRY;

	if (fd < 0)
		return ANS_RETRY;
	if (connect(fd, (const struct sockaddr *)&r->ns[k], r->nslen[k]) ||
	    send(fd, q, qlen, 0) != (ssize_t)qlen) {
		close(fd);
		return ANS_RETRY;
	}
	for (;;) {
		struct pollfd pf = {fd, POLLIN, 0};
		long long left = deadline - wfs_now_ms();
		ssize_t n;

		if (left <= 0 || poll(&pf, 1, (int)left) <= 0)
			break;
		n = recv(fd, m, sizeof(m), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break; /* e.g. connection refused: nobody on port 53 */
		rc = parse_reply(m, (size_t)n, id, type, ip, iplen);
		if (rc != ANS_BAD)
			break;
		rc = ANS_RETRY; /* not our answer: keep waiting */
	}
	close(fd);
	return rc;
}

/* One name, one type: ANS_FOUND, ANS_NONE, or ANS_RETRY (no server
 * answered). */
static int query(const struct resolv *r, const char *name, int type,
		 char *ip, size_t iplen)
{
	unsigned char q[300];
	unsigned short id;
	size_t qlen;
	int a, k;

	if (getrandom(&id, sizeof(id), 0) != (ssize_t)sizeof(id))
		id = (unsigned short)(wfs_now_ms() * 2654435761u);
	qlen = build_query(q, sizeof(q), id, name, type);
	if (!qlen)
		return ANS_NONE;
	for (a = 0; a < r->attempts; a++)
		for (k = 0; k < r->nns; k++) {
			int rc = ask(r, k, q, qlen, id, type, ip, iplen);
			if (rc != ANS_RETRY)
				return rc;
		}
	return ANS_RETRY;
}

int dns_lookup(const char *name, char *ip, size_t iplen, char *err,
	       size_t errlen)
{
	struct resolv r;
	char cand[MAXSEARCH + 1][256];
	int nc = 0, i, dots = 0, unanswered = 0;
	size_t nl = strlen(name);
	const char *p;

	if (!nl || nl > 253) {
		snprintf(err, errlen, "cannot resolve \"%s\": not a host name", name);
		return -1;
	}
	read_resolv_conf(&r);
	for (p = name; *p; p++)
		dots += *p == '.';
	if (name[nl - 1] == '.') {
		snprintf(cand[nc++], sizeof(cand[0]), "%.*s", (int)nl - 1, name);
	} else {
		if (dots >= r.ndots)
			snprintf(cand[nc++], sizeof(cand[0]), "%s", name);
		for (i = 0; i < r.nsearch; i++)
			if (strlen(name) + strlen(r.search[i]) + 1 < sizeof(cand[0]))
				snprintf(cand[nc++], sizeof(cand[0]), "%s.%s", name, r.search[i]);
		if (dots < r.ndots)
			snprintf(cand[nc++], sizeof(cand[0]), "%s", name);
	}
	for (i = 0; i < nc; i++) {
		int rc = query(&r, cand[i], 1, ip, iplen);
		if (rc == ANS_NONE)
			rc = query(&r, cand[i], 28, ip, iplen);
		if (rc == ANS_FOUND)
			return 0;
		if (rc == ANS_RETRY) {
			unanswered = 1; /* nobody answers: asking more only waits */
			break;
		}
	}
	if (unanswered)
		snprintf(err, errlen, "cannot resolve \"%s\": no answer from the nameservers of /etc/resolv.conf",
			 name);
	else
		snprintf(err, errlen, "cannot resolve \"%s\": no such host", name);
	return -1;
}
