/* netaddr.c - HOST:PORT parsing: inet_pton, /etc/hosts, then DNS */
#include <arpa/inet.h>
#include <ctype.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "wfs_features.h"
#include "linefile.h"
#include "dns.h"
#include "netaddr.h"

static int set_ip(const char *host, int port, struct sockaddr_storage *ss,
		  socklen_t *len)
{
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, host, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons((unsigned short)port);
		*len = sizeof(*a4);
		return 0;
	}
	if (inet_pton(AF_INET6, host, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((unsigned short)port);
		*len = sizeof(*a6);
		return 0;
	}
	return -1;
}

/* The first address /etc/hosts gives name, into ip. */
static int hosts_lookup(const char *name, char *ip, size_t iplen)
{
	struct linefile f;
	char *line;
	int found = 0;

	if (linefile_open(&f, "/etc/hosts"))
		return -1;
	while (!found && (line = linefile_next(&f))) {
		char *save, *tok, *addr;

		line[strcspn(line, "#\n")] = 0;
		addr = strtok_r(line, " \t", &save);
		while (addr && (tok = strtok_r(NULL, " \t", &save))) {
			if (!strcasecmp(tok, name)) {
				snprintf(ip, iplen, "%s", addr);
				found = 1;
				break;
			}
		}
	}
	if (f.fd >= 0)
		close(f.fd);
	return found ? 0 : -1;
}

int netaddr_parse(const char *hostport, int passive,
		  struct sockaddr_storage *ss, socklen_t *len, char *err,
		  size_t errlen)
{
	const char *colon = strrchr(hostport, ':');
	char host[256], ip[64];
	char *end;
	long port;
	size_t hl;

	if (!colon || !colon[1]) {
		snprintf(err, errlen, "bad address \"%s\": want HOST:PORT", hostport);
		return -1;
	}
	port = strtol(colon + 1, &end, 10);
	if (*end || port < 0 || port > 65535) {
		snprintf(err, errlen, "bad port in \"%s\": want 0-65535", hostport);
		return -1;
	}
	hl = (size_t)(colon - hostport);
	if (hl >= sizeof(host)) {
		snprintf(err, errlen, "host name too long in \"%s\"", hostport);
		return -1;
	}
	memcpy(host, hostport, hl);
	host[hl] = 0;
	if (hl >= 2 && host[0] == '[' && host[hl - 1] == ']') {
		memmove(host, host + 1, hl - 2);
		host[hl - 2] = 0;
	}
	if (!host[0] || !strcmp(host, "*"))
		snprintf(host, sizeof(host), "%s", passive ? "0.0.0.0" : "127.0.0.1");
	if (!set_ip(host, (int)port, ss, len))
		return 0;
	if (!hosts_lookup(host, ip, sizeof(ip)) && !set_ip(ip, (int)port, ss, len))
		return 0;
	if (!strcasecmp(host, "localhost") && !set_ip("127.0.0.1", (int)port, ss, len))
		return 0;
#ifdef CONFIG_FEATURE_DNS
	if (dns_lookup(host, ip, sizeof(ip), err, errlen))
		return -1;
	if (!set_ip(ip, (int)port, ss, len))
		return 0;
#endif
	snprintf(err, errlen,
		 "cannot resolve \"%s\": give a numeric address or a name from /etc/hosts (built without CONFIG_FEATURE_DNS)",
		 host);
	return -1;
}

void netaddr_format(const struct sockaddr *sa, char *out, size_t outlen)
{
	char ip[INET6_ADDRSTRLEN] = "?";

	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *)sa;
		inet_ntop(AF_INET6, &a6->sin6_addr, ip, sizeof(ip));
		snprintf(out, outlen, "[%s]:%u", ip, ntohs(a6->sin6_port));
	} else {
		const struct sockaddr_in *a4 = (const struct sockaddr_in *)sa;
		inet_ntop(AF_INET, &a4->sin_addr, ip, sizeof(ip));
		snprintf(out, outlen, "%s:%u", ip, ntohs(a4->sin_port));
	}
}

static void addr16(const struct sockaddr *sa, unsigned char a[16])
{
	memset(a, 0, 16);
	if (sa->sa_family == AF_INET6) {
		memcpy(a, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
	} else if (sa->sa_family == AF_INET) {
		a[10] = a[11] = 0xff;
		memcpy(a + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
	}
}

int netaddr_cidr_parse(const char *list, struct netaddr_cidr *out, int max,
		       char *err, size_t errlen)
{
	const char *p = list;
	int n = 0;

	for (;;) {
		size_t len = strcspn(p, ",");
		char e[64], *slash, *end, *ip;
		struct sockaddr_storage ss;
		socklen_t sl;
		long bits = -1;
		int v4;

		while (len && isspace((unsigned char)*p))
			p++, len--;
		while (len && isspace((unsigned char)p[len - 1]))
			len--;
		if (!len || len >= sizeof(e) || n == max)
			goto bad;
		memcpy(e, p, len);
		e[len] = 0;
		ip = e;
		if ((slash = strchr(e, '/'))) {
			*slash = 0;
			bits = strtol(slash + 1, &end, 10);
			if (!slash[1] || *end || bits < 0)
				goto bad;
		}
		if (*ip == '[') {
			size_t l = strlen(ip);
			if (l < 3 || ip[l - 1] != ']')
				goto bad;
			ip[l - 1] = 0;
			ip++;
		}
		if (!*ip || set_ip(ip, 0, &ss, &sl))
			goto bad;
		v4 = ss.ss_family == AF_INET;
		if (bits > (v4 ? 32 : 128))
			goto bad;
		addr16((struct sockaddr *)&ss, out[n].a);
		out[n].bits = bits < 0 ? 128 : (int)bits + (v4 ? 96 : 0);
		n++;
		p += strcspn(p, ",");
		if (!*p)
			return n;
		p++;
		continue;
bad:
		snprintf(err, errlen, "bad entry \"%.*s\" in the allow-list: want "
				      "ADDR or ADDR/BITS, IPv4 or IPv6, separated by commas",
			 (int)(len > 60 ? 60 : len), p);
		return -1;
	}
}

int netaddr_cidr_match(const struct netaddr_cidr *c, int n, const struct sockaddr *sa)
{
	unsigned char a[16];
	int i;

	addr16(sa, a);
	for (i = 0; i < n; i++) {
		int full = c[i].bits / 8, rest = c[i].bits % 8;
		if (!memcmp(a, c[i].a, (size_t)full) &&
		    (!rest || !((a[full] ^ c[i].a[full]) & (0xff << (8 - rest)))))
			return 1;
	}
	return 0;
}
