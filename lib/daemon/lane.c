/* lane.c - connections served on threads of their own (--lanes).
 *
 * The loop thread runs everything, and so at many connections it is the
 * bound: each small request costs it a dozen microseconds of system
 * calls. A lane is a thread with an epoll set of its own that serves
 * whole connections while they ask for what it can answer alone: a small
 * file operation the loop would run in process (request_inline_ok). The
 * loop hands a connection to a lane (d->to_lane) when it is idle after
 * such a request; the lane reads, parses, answers and writes; on the
 * first line it cannot answer alone (a command, a worker's applet, a
 * session, an unfinished line, an answer the socket does not take at
 * once, the end of the connection) it gives the connection back as it
 * stands, the line unread, and the loop goes on from there (lane_back).
 *
 * Ownership is whole: a connection is the loop's or one lane's
 * (c->lane, written by the loop alone), never both; what the lane keeps
 * of the daemon is the memory budget, which is atomic. The loop takes
 * every connection back before it shuts down (lane_stop).
 */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>
#include "daemon_int.h"

#define WORKER_STACK (2u << 20)

struct lane {
	struct daemon *d;
	pthread_t t;
	struct loop lp; /* its epoll set and poll window; no timers */
	volatile int stop;
	int private_cwd;
	int nconns;      /* the loop's count of those it gave this lane */
	struct job *job; /* recycled for every request */
};

/* To the loop, with what it has not read or sent (lane thread). */
static void give_back(struct lane *ln, struct conn *c)
{
	struct daemon *d = ln->d;
	uint64_t one = 1;
	int first;

	epoll_ctl(ln->lp.ep, EPOLL_CTL_DEL, c->fd, NULL);
	c->scan_off = c->in_off;
	pthread_mutex_lock(&d->lane_mu);
	first = !d->lane_back;
	c->back_next = d->lane_back;
	d->lane_back = c;
	pthread_mutex_unlock(&d->lane_mu);
	if (first && write(d->back_fd, &one, sizeof(one)) < 0)
		(void)0; /* the eventfd's count cannot overflow here */
}

/* Answer the line at c->in_off (len bytes) here: 0 when answered and
 * sent, 1 when it is the loop's. */
static int answer(struct lane *ln, struct conn *c, size_t len)
{
	struct daemon *d = ln->d;
	struct job *j = ln->job;
	size_t used, cap, off = 0;
	int how;

	if (len > d->o->max_line)
		return 1; /* the loop answers with the limit */
	job_recycle(j);
	job_clear(j, d);
	j->off_loop = 1;
	j->started_ms = wfs_now_ms();
	request_parse_into(j, c->in.p + c->in_off, len);
	if (j->mode != JOB_APPLET || j->session_v || ln->private_cwd != d->private_cwd ||
	    !(how = request_inline_ok(j)))
		return 1;
	j->probe = how == 2;
	j->conn = c;
	if (answer_applet(j, d->cwd_fd, ln->private_cwd)) {
		job_release(j);
		return 1; /* a big file: a worker's */
	}
	job_release(j);
	used = wfs_budget_used(&d->mem);
	cap = j->resp.len > SMALL_ANSWER ? d->mem.bulk : d->mem.limit;
	if (used > cap || j->resp.len > cap - used)
		return 1; /* the loop answers with the budget's error */
	c->in_off += len + 1;
	if (d->o->verbose)
		daemon_log("id=%s answered in %lld ms (lane)", j->id,
			   wfs_now_ms() - j->started_ms);
	while (off < j->resp.len) {
		ssize_t n = send(c->fd, j->resp.p + off, j->resp.len - off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			/* the rest is the loop's to send (or to fail on) */
			buf_add(&c->out, j->resp.p + off, j->resp.len - off);
			return 1;
		}
		off += (size_t)n;
	}
	loop_poll_after(&ln->lp);
	return 0;
}

/* A connection's descriptor is ready (lane thread). */
static void serve(struct lane *ln, struct conn *c)
{
	struct pollfd pf = {c->fd, POLLIN, 0};
	int waits = 0;
	char *nl;

more:
	for (;;) {
		size_t want;
		ssize_t n;

		if (c->in.len - c->in_off > READ_CHUNK)
			return give_back(ln, c);
		n = conn_recv(c, READ_CHUNK / 4, &want);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0) {
			c->eof = 1; /* or an error: the loop answers what came */
			return give_back(ln, c);
		}
		if ((size_t)n < want)
			break;
	}
	while ((nl = memchr(c->in.p + c->in_off, '\n', c->in.len - c->in_off)))
		if (answer(ln, c, (size_t)(nl - c->in.p) - c->in_off))
			return give_back(ln, c);
	/* An unfinished line: its end is often a moment behind (a client
	 * that writes the newline apart); else the loop times it. */
	if (c->in_off < c->in.len) {
		if (waits++ < 4 && poll(&pf, 1, 1) == 1)
			goto more;
		return give_back(ln, c);
	}
	if (c->in.cap > KEEP_BUF)
		buf_free(&c->in);
	buf_reset(&c->in);
	c->in_off = c->scan_off = 0;
	conn_account(c);
}

static void *lane_main(void *arg)
{
	struct lane *ln = arg;
	struct epoll_event ev[64];
	int i, n;

	ln->private_cwd = !unshare(CLONE_FS);
	while (!ln->stop) {
		n = loop_wait(&ln->lp, ev, 64);
		for (i = 0; i < n && !ln->stop; i++)
			if (ev[i].data.ptr)
				serve(ln, ev[i].data.ptr);
	}
	return NULL;
}

static int lane_take(struct conn *c);
static void lane_back(struct watch *w, unsigned events);

void lane_start(struct daemon *d, int n)
{
	struct epoll_event ev = {EPOLLIN, {0}};
	pthread_attr_t at;
	struct lane *ln;

	pthread_mutex_init(&d->lane_mu, NULL);
	/* one eventfd, in every lane's set, stops them all */
	if (n <= 0 || !(d->lanes = calloc((size_t)n, sizeof(*d->lanes))))
		return;
	d->back_w = (struct watch){lane_back, d};
	d->back_fd = -1;
	if ((d->lane_wake = eventfd(0, EFD_CLOEXEC)) < 0 ||
	    (d->back_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0 ||
	    event_ctl(&d->loop, EPOLL_CTL_ADD, d->back_fd, &d->back_w, EPOLLIN))
		n = 0; /* no lanes: lane_stop frees the array */
	pthread_attr_init(&at);
	pthread_attr_setstacksize(&at, WORKER_STACK);
	for (; d->nlanes < n; d->nlanes++) {
		ln = &d->lanes[d->nlanes];
		ln->d = d;
		ln->lp.poll_us = d->o->poll_us;
		if ((ln->lp.ep = epoll_create1(EPOLL_CLOEXEC)) < 0)
			break;
		if (epoll_ctl(ln->lp.ep, EPOLL_CTL_ADD, d->lane_wake, &ev) ||
		    !(ln->job = job_new(d)) || pthread_create(&ln->t, &at, lane_main, ln)) {
			close(ln->lp.ep);
			if (ln->job)
				job_destroy(ln->job);
			break;
		}
	}
	pthread_attr_destroy(&at);
	if (d->nlanes)
		d->to_lane = lane_take;
}

/* The connection, idle, to the lane with the fewest (loop thread); 0
 * when it went. */
static int lane_take(struct conn *c)
{
	struct daemon *d = c->d;
	struct epoll_event ev = {EPOLLIN, {.ptr = c}};
	struct lane *ln = d->lanes;
	int k;

	for (k = 1; k < d->nlanes; k++)
		if (d->lanes[k].nconns < ln->nconns)
			ln = &d->lanes[k];
	if (event_ctl(&d->loop, EPOLL_CTL_DEL, c->fd, NULL, 0))
		return 1;
	c->lane = (int)(ln - d->lanes) + 1;
	if (!epoll_ctl(ln->lp.ep, EPOLL_CTL_ADD, c->fd, &ev)) {
		ln->nconns++;
		return 0;
	}
	c->lane = 0;
	c->events = 0;
	conn_resume(c);
	return 0;
}

/* The connections the lanes gave back (loop thread, at back_fd). */
static void lane_back(struct watch *w, unsigned events)
{
	struct daemon *d = w->data;
	struct conn *c, *next;
	uint64_t n;

	(void)events;
	if (read(d->back_fd, &n, sizeof(n)) < 0)
		(void)0; /* EAGAIN: a batch taken already */
	pthread_mutex_lock(&d->lane_mu);
	c = d->lane_back;
	d->lane_back = NULL;
	pthread_mutex_unlock(&d->lane_mu);
	for (; c; c = next) {
		next = c->back_next;
		d->lanes[c->lane - 1].nconns--;
		c->lane = 0;
		conn_resume(c);
	}
}

/* Every lane stopped, its connections the loop's again (loop thread). */
void lane_stop(struct daemon *d)
{
	uint64_t one = 1;
	struct conn *c;
	int k;

	if (!d->lanes)
		return;
	for (k = 0; k < d->nlanes; k++)
		d->lanes[k].stop = 1;
	if (write(d->lane_wake, &one, sizeof(one)) < 0)
		(void)0; /* a new eventfd takes it */
	for (k = 0; k < d->nlanes; k++) {
		struct lane *ln = &d->lanes[k];
		pthread_join(ln->t, NULL);
		close(ln->lp.ep);
		job_destroy(ln->job);
	}
	close(d->lane_wake);
	event_ctl(&d->loop, EPOLL_CTL_DEL, d->back_fd, NULL, 0);
	close(d->back_fd);
	d->to_lane = NULL;
	free(d->lanes);
	d->lanes = NULL;
	d->nlanes = 0;
	d->lane_back = NULL;
	for (c = d->conns; c; c = c->next)
		if (c->lane) {
			c->lane = 0;
			c->events = 0;
			event_ctl(&d->loop, EPOLL_CTL_ADD, c->fd, &c->w, EPOLLIN);
			c->events = EPOLLIN;
		}
}
