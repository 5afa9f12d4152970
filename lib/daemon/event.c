/* event.c - what every part of the daemon uses: epoll control and the
 * log. It calls nothing else of the daemon (event.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>
#include "ctx.h"
#include "event.h"
#include "wickfs.h"

void daemon_log(const char *fmt, ...)
{
	char line[1024];
	struct tm tm;
	time_t t = time(NULL);
	va_list ap;
	size_t n;

	/* by hand: strftime would bring in the time zone code */
	wfs_gmtime(t, &tm);
	n = (size_t)snprintf(line, sizeof(line), "%04d-%02d-%02dT%02d:%02d:%02dZ wick-daemon: ",
			     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
			     tm.tm_min, tm.tm_sec);
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
	va_end(ap);
	n = strlen(line);
	line[n++] = '\n';
	if (write(2, line, n) < 0)
		return;
}

unsigned daemon_log_rate(struct log_rate *r)
{
	long long now = wfs_now_ms();
	unsigned n;

	if (now < r->until) {
		r->skipped++;
		return 0;
	}
	r->until = now + 1000;
	n = r->skipped + 1;
	r->skipped = 0;
	return n;
}

int event_ctl(struct loop *l, int op, int fd, struct watch *w, unsigned events)
{
	struct epoll_event ev = {.events = events, .data.ptr = w};

	return epoll_ctl(l->ep, op, fd, &ev);
}
