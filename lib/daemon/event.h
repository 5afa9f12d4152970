/* event.h - the bottom of the daemon: watches, timers and the loop that
 * runs them (loop.c), epoll control and the log (event.c).
 *
 * Every other file of lib/daemon includes this one; it includes none of
 * them. A watch or a timer carries its own handler, as the file and time
 * events of Redis' ae.c do, so the loop calls up into the files that
 * registered them without naming any: a new kind of watch adds a handler
 * where its descriptor is opened, and nothing here.
 */
#ifndef WFS_DAEMON_EVENT_H
#define WFS_DAEMON_EVENT_H

struct watch;
struct timer;
struct loop;

/* Called for a ready descriptor; events are epoll's (EPOLLIN, ...). */
typedef void watch_fn(struct watch *w, unsigned events);
/* Called once now (wfs_now_ms) has reached t->at: it sets t->at again,
 * or 0 to sleep until someone does. */
typedef void timer_fn(struct timer *t, long long now);

/* Every descriptor in the epoll set points at one of these. */
struct watch {
	watch_fn *handler;
	void *data; /* what the handler acts on: a connection, a job, ... */
};

struct timer {
	long long at; /* wfs_now_ms() when due; 0: off */
	timer_fn *fire;
	void *data;
	struct timer *next; /* the loop's list */
};

struct loop {
	int ep;
	int stop; /* set by a handler: loop_run returns after this batch */
	int poll_us;
	long long poll_until; /* ns, CLOCK_MONOTONIC; 0: sleep at once */
	struct timer *timers;
	/* After every batch of events and due timers: what was closed
	 * during the batch can be freed then. */
	void (*after)(struct loop *l);
	void *data;
};

/* loop.c */
/* Wait, call the handler of each ready watch, then of each due timer,
 * then l->after, until l->stop. */
void loop_run(struct loop *l);
/* A timer, off until t->at is set; the last added fires first. */
void loop_add_timer(struct loop *l, struct timer *t, timer_fn *fire, void *data);
/* An answer went out from the process itself: the client's next request
 * is likely microseconds away, so poll for it a moment (l->poll_us)
 * rather than pay a sleep and a cross-CPU wakeup. */
void loop_poll_after(struct loop *l);
/* The next events (ev is epoll's): polled for while the window lasts,
 * then waited for until the first timer. */
struct epoll_event;
int loop_wait(struct loop *l, struct epoll_event *ev, int max);

/* event.c */
/* epoll_ctl for a watch: op EPOLL_CTL_ADD, _MOD or _DEL (w NULL). */
int event_ctl(struct loop *l, int op, int fd, struct watch *w, unsigned events);
/* A line on stderr, stamped with the time. */
void daemon_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* For a line a flood repeats: daemon_log_rate is 0 when one was logged
 * less than a second ago, else 1 + how many were skipped since. */
struct log_rate {
	long long until;
	unsigned skipped;
};
unsigned daemon_log_rate(struct log_rate *r);

/* The earlier of two times, 0 meaning none. */
static inline long long earliest(long long a, long long b)
{
	return !a ? b : (!b ? a : (a < b ? a : b));
}

#endif
