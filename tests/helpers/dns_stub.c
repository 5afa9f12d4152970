/* dns_stub.c - a tiny authoritative DNS server for the resolver tests
 *
 * usage: dns_stub ADDR NAME=IP...
 * Brings the loopback interface up (the tests run it in a fresh network
 * namespace), listens on ADDR port 53 (UDP), prints "ready" and answers:
 * A or AAAA records for the names given, "no records" for a known name
 * asked for the other type, NXDOMAIN for any other name. A name whose IP
 * is "servfail" gets SERVFAIL. It exits by itself after 60 seconds.
 */
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

static void loopback_up(void)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	if (fd >= 0 && !ioctl(fd, SIOCGIFFLAGS, &ifr)) {
		ifr.ifr_flags |= IFF_UP;
		ioctl(fd, SIOCSIFFLAGS, &ifr);
	}
	if (fd >= 0)
		close(fd);
}

int main(int argc, char **argv)
{
	struct sockaddr_in6 a6;
	struct sockaddr_in a4;
	unsigned char m[512];
	int fd;

	if (argc < 2) {
		fprintf(stderr, "usage: dns_stub ADDR NAME=IP...\n");
		return 2;
	}
	alarm(60);
	loopback_up();
	memset(&a4, 0, sizeof(a4));
	memset(&a6, 0, sizeof(a6));
	if (inet_pton(AF_INET, argv[1], &a4.sin_addr) == 1) {
		a4.sin_family = AF_INET;
		a4.sin_port = htons(53);
		fd = socket(AF_INET, SOCK_DGRAM, 0);
		if (fd < 0 || bind(fd, (struct sockaddr *)&a4, sizeof(a4))) {
			perror("dns_stub: bind");
			return 1;
		}
	} else if (inet_pton(AF_INET6, argv[1], &a6.sin6_addr) == 1) {
		a6.sin6_family = AF_INET6;
		a6.sin6_port = htons(53);
		fd = socket(AF_INET6, SOCK_DGRAM, 0);
		if (fd < 0 || bind(fd, (struct sockaddr *)&a6, sizeof(a6))) {
			perror("dns_stub: bind");
			return 1;
		}
	} else {
		fprintf(stderr, "dns_stub: bad address %s\n", argv[1]);
		return 2;
	}
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		struct sockaddr_storage from;
		socklen_t fl = sizeof(from);
		ssize_t n = recvfrom(fd, m, sizeof(m), 0, (struct sockaddr *)&from, &fl);
		char name[256];
		size_t p = 12, nl = 0, qend;
		int qtype, i, rcode = 3, type = 0;
		unsigned char addr[16];

		if (n < 17)
			continue;
		while (p < (size_t)n && m[p]) {
			size_t l = m[p];
			if (p + 1 + l > (size_t)n || nl + l + 1 >= sizeof(name))
				break;
			if (nl)
				name[nl++] = '.';
			memcpy(name + nl, m + p + 1, l);
			nl += l;
			p += 1 + l;
		}
		name[nl] = 0;
		if (p + 5 > (size_t)n)
			continue;
		qtype = (m[p + 1] << 8) | m[p + 2];
		qend = p + 5;
		for (i = 2; i < argc; i++) {
			char *eq = strchr(argv[i], '=');
			if (!eq || (size_t)(eq - argv[i]) != nl ||
			    strncasecmp(argv[i], name, nl))
				continue;
			if (!strcmp(eq + 1, "servfail")) {
				rcode = 2;
				break;
			}
			rcode = 0;
			if (qtype == 1 && inet_pton(AF_INET, eq + 1, addr) == 1)
				type = 1;
			else if (qtype == 28 && inet_pton(AF_INET6, eq + 1, addr) == 1)
				type = 28;
			if (type)
				break;
		}
		m[2] = 0x84 | (m[2] & 0x01); /* response, authoritative, RD kept */
		m[3] = 0x80 | (unsigned char)rcode;
		m[6] = 0;
		m[7] = type ? 1 : 0;
		memset(m + 8, 0, 4);
		n = (ssize_t)qend;
		if (type) {
			size_t rd = type == 1 ? 4 : 16;
			unsigned char rr[12] = {0xc0, 0x0c, 0, (unsigned char)type, 0, 1,
						0, 0, 0, 60, 0, (unsigned char)rd};
			memcpy(m + n, rr, sizeof(rr));
			memcpy(m + n + sizeof(rr), addr, rd);
			n += (ssize_t)(sizeof(rr) + rd);
		}
		sendto(fd, m, (size_t)n, 0, (struct sockaddr *)&from, fl);
	}
}
