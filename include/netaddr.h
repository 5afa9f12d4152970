/* netaddr.h - TCP addresses without the libc resolver */
#ifndef WFS_NETADDR_H
#define WFS_NETADDR_H

#include <stddef.h>
#include <sys/socket.h>

/* Parse "HOST:PORT". HOST is an IPv4 address, an IPv6 one in brackets,
 * a name from /etc/hosts ("localhost" always works), a DNS name (with
 * CONFIG_FEATURE_DNS: lib/dns.c, not getaddrinfo, which would pull the
 * whole libc resolver into the static binary), or empty / "*" for every
 * address (with passive). Returns 0, or -1 with a message in err. */
int netaddr_parse(const char *hostport, int passive,
		  struct sockaddr_storage *ss, socklen_t *len, char *err,
		  size_t errlen);

/* "1.2.3.4:80" or "[::1]:80". */
void netaddr_format(const struct sockaddr *sa, char *out, size_t outlen);

/* An address range: IPv4 ones held as IPv4-mapped IPv6 (::ffff:a.b.c.d),
 * so one comparison serves both families. */
struct netaddr_cidr {
	unsigned char a[16];
	int bits;
};
/* "ADDR[/BITS],..." (IPv4, or IPv6 with or without brackets; spaces
 * around entries allowed) into out[max]. The count (at least 1), or -1
 * with err naming the entry. */
int netaddr_cidr_parse(const char *list, struct netaddr_cidr *out, int max,
		       char *err, size_t errlen);
/* 1 when sa (AF_INET or AF_INET6) is within one of the n ranges. */
int netaddr_cidr_match(const struct netaddr_cidr *c, int n, const struct sockaddr *sa);

#endif
