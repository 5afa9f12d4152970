/* daemon_load.c - closed-loop load generator for the wick-daemon.
 *
 * usage: daemon_load ADDR CONNS REQUESTS_PER_CONN LINE
 *   ADDR  unix:PATH or tcp:HOST:PORT
 *   LINE  the request, sent as is ('\n' appended); each "%N" in it
 *         becomes the request's number (connection * REQUESTS_PER_CONN
 *         + i), so that each request may name its own file
 * Each connection (a thread) sends LINE, waits for the answer, repeats.
 * Prints: requests, seconds, requests/s, median, p90 and p99 round trip
 * in microseconds. With DAEMON_LOAD_SAVE=FILE, the first answer is
 * written to FILE too (bench/echo_floor.c replays it).
 */
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

struct worker {
	pthread_t t;
	const char *addr, *line;
	size_t line_len;
	long n, first;
	double *lat;
	int failed;
};

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int dial(const char *addr)
{
	int fd, one = 1;

	if (!strncmp(addr, "unix:", 5)) {
		struct sockaddr_un sa = {.sun_family = AF_UNIX};
		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", addr + 5);
		fd = socket(AF_UNIX, SOCK_STREAM, 0);
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
			return -1;
		return fd;
	}
	if (!strncmp(addr, "tcp:", 4)) {
		struct addrinfo hints = {0}, *res;
		char host[256];
		const char *colon = strrchr(addr + 4, ':');
		snprintf(host, sizeof(host), "%.*s", (int)(colon - addr - 4), addr + 4);
		hints.ai_socktype = SOCK_STREAM;
		if (getaddrinfo(host, colon + 1, &hints, &res))
			return -1;
		fd = socket(res->ai_family, SOCK_STREAM, 0);
		if (connect(fd, res->ai_addr, res->ai_addrlen)) {
			freeaddrinfo(res);
			return -1;
		}
		freeaddrinfo(res);
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		return fd;
	}
	return -1;
}

/* LINE with each "%N" replaced by num, into out (of cap bytes). */
static size_t expand(const char *line, long num, char *out, size_t cap)
{
	size_t o = 0;

	for (; *line && o + 24 < cap; line++) {
		if (line[0] == '%' && line[1] == 'N') {
			o += (size_t)snprintf(out + o, cap - o, "%ld", num);
			line++;
		} else {
			out[o++] = *line;
		}
	}
	out[o] = 0;
	return o;
}

static void *run(void *arg)
{
	struct worker *w = arg;
	static __thread char buf[1 << 20], req[8192];
	int fd = dial(w->addr);
	int numbered = strstr(w->line, "%N") != NULL;
	long i;

	if (fd < 0) {
		w->failed = 1;
		return NULL;
	}
	for (i = 0; i < w->n; i++) {
		const char *line = w->line;
		size_t len = w->line_len, got = 0;
		double t0;
		if (numbered) {
			len = expand(w->line, w->first + i, req, sizeof(req));
			line = req;
		}
		t0 = now_us();
		if (write(fd, line, len) != (ssize_t)len) {
			w->failed = 1;
			break;
		}
		for (;;) {
			ssize_t n = read(fd, buf + got, sizeof(buf) - got);
			if (n <= 0) {
				w->failed = 1;
				goto out;
			}
			got += (size_t)n;
			if (buf[got - 1] == '\n')
				break;
			if (got == sizeof(buf))
				got = 0;
		}
		w->lat[i] = now_us() - t0;
		if (!i && !w->first && getenv("DAEMON_LOAD_SAVE")) {
			FILE *f = fopen(getenv("DAEMON_LOAD_SAVE"), "wb");
			if (f) {
				fwrite(buf, 1, got, f);
				fclose(f);
			}
		}
	}
out:
	close(fd);
	return NULL;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	struct worker *w;
	double *all, t0, secs;
	long conns, n, i, k = 0;
	char *line;

	if (argc != 5) {
		fprintf(stderr, "usage: daemon_load ADDR CONNS REQUESTS_PER_CONN LINE\n");
		return 2;
	}
	conns = atol(argv[2]);
	n = atol(argv[3]);
	line = malloc(strlen(argv[4]) + 2);
	sprintf(line, "%s\n", argv[4]);
	w = calloc((size_t)conns, sizeof(*w));
	all = calloc((size_t)(conns * n), sizeof(*all));
	t0 = now_us();
	for (i = 0; i < conns; i++) {
		w[i].addr = argv[1];
		w[i].line = line;
		w[i].line_len = strlen(line);
		w[i].n = n;
		w[i].first = i * n;
		w[i].lat = all + i * n;
		pthread_create(&w[i].t, NULL, run, &w[i]);
	}
	for (i = 0; i < conns; i++) {
		pthread_join(w[i].t, NULL);
		if (w[i].failed) {
			fprintf(stderr, "daemon_load: connection %ld failed\n", i);
			return 1;
		}
	}
	secs = (now_us() - t0) / 1e6;
	k = conns * n;
	qsort(all, (size_t)k, sizeof(*all), cmp);
	printf("requests %ld  seconds %.3f  req/s %.0f  median_us %.1f  p90_us %.1f  p99_us %.1f\n",
	       k, secs, k / secs, all[k / 2], all[k * 9 / 10], all[k * 99 / 100]);
	free(all);
	free(w);
	free(line);
	return 0;
}
