/* loop.c - the daemon's event loop, in the spirit of Redis' ae.c.
 *
 * One epoll set, level-triggered. It waits, calls the handler each ready
 * watch carries, then each due timer's, then the loop's after hook; what
 * the handlers belong to (listeners, connections, the commands' pidfds
 * and pipes, the worker pool's eventfd, a signalfd) is theirs to know,
 * not the loop's. The daemon's setup and shutdown are daemon.c's.
 */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/epoll.h>
#include "event.h"
#include "wickfs.h"

#define MAX_EVENTS 256

void loop_add_timer(struct loop *l, struct timer *t, timer_fn *fire, void *data)
{
	*t = (struct timer){0, fire, data, l->timers};
	l->timers = t;
}

void loop_poll_after(struct loop *l)
{
	if (l->poll_us)
		l->poll_until = wfs_now_ns() + l->poll_us * 1000LL;
}

/* Milliseconds to the first due timer, at most a minute; -1: none. */
static int loop_timeout(struct loop *l, long long now)
{
	long long t = 0;
	struct timer *tm;

	for (tm = l->timers; tm; tm = tm->next)
		t = earliest(t, tm->at);
	if (!t)
		return -1;
	return t <= now ? 0 : (int)(t - now > 60000 ? 60000 : t - now);
}

/* The next events: polled for while the window after an in-process
 * answer lasts, then waited for. The window costs at most poll_us of CPU
 * per answer and is never opened by commands, which take far longer;
 * it yields the CPU at every turn, so it never holds up a client that
 * shares the CPU. */
int loop_wait(struct loop *l, struct epoll_event *ev, int max)
{
	int n;

	while (l->poll_until) {
		n = epoll_wait(l->ep, ev, max, 0);
		if (n)
			return n;
		if (wfs_now_ns() >= l->poll_until)
			break;
		sched_yield(); /* a client on this CPU goes first */
	}
	l->poll_until = 0;
	return epoll_wait(l->ep, ev, max, loop_timeout(l, wfs_now_ms()));
}

void loop_run(struct loop *l)
{
	struct epoll_event ev[MAX_EVENTS];
	struct timer *t;
	long long now;
	int i, n;

	while (!l->stop) {
		n = loop_wait(l, ev, MAX_EVENTS);
		if (n < 0 && errno != EINTR) {
			daemon_log("epoll_wait: %s", strerror(errno));
			return;
		}
		for (i = 0; i < n; i++) {
			struct watch *w = ev[i].data.ptr;
			w->handler(w, ev[i].events);
		}
		now = wfs_now_ms();
		for (t = l->timers; t; t = t->next)
			if (t->at && now >= t->at)
				t->fire(t, now);
		l->after(l);
	}
}
