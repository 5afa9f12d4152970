/* dns.h - a small DNS stub resolver (lib/dns.c) */
#ifndef WFS_DNS_H
#define WFS_DNS_H

#include <stddef.h>

/* The first address (A, else AAAA) DNS gives name, as text, by the
 * nameservers, search list and options of /etc/resolv.conf (dns.c).
 * Returns 0, or -1 with a message in err. */
int dns_lookup(const char *name, char *ip, size_t iplen, char *err,
	       size_t errlen);

#endif
