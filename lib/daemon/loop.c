/* loop.c - the daemon's event loop, its setup and its shutdown.
 *
 * One epoll set, level-triggered, in the spirit of Redis' ae.c. Every
 * descriptor carries a struct watch naming what it belongs to:
 * listeners and connections (conn.c, listen.c), the pidfds and pipes of
 * running commands (proc.c), the eventfd of the worker pool (pool.c) and
 * a signalfd. Objects closed during an event batch are freed after it,
 * since later events of the same batch may still point at them.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>
#include "daemon_int.h"

#define SHUTDOWN_MS 5000 /* longest wait for in-flight work at exit */

void dlog(const char *fmt, ...)
{
	char line[1024];
	struct tm tm;
	time_t t = time(NULL);
	va_list ap;
	size_t n;

	/* by hand: strftime would bring in the time zone code */
	gmtime_r(&t, &tm);
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

unsigned dlog_rate(struct daemon *d)
{
	long long now = wfs_now_ms();
	unsigned n;

	if (now < d->quiet_until) {
		d->quiet++;
		return 0;
	}
	d->quiet_until = now + 1000;
	n = d->quiet + 1;
	d->quiet = 0;
	return n;
}

int ep_ctl(struct daemon *d, int op, int fd, struct watch *w,
	   unsigned events)
{
	struct epoll_event ev = {.events = events, .data.ptr = w};

	return epoll_ctl(d->ep, op, fd, &ev);
}

/* ---- shutdown ---- */

static void begin_shutdown(struct daemon *d, int sig)
{
	long long now = wfs_now_ms();
	struct conn *c, *next;
	struct job *j;
	int i;

	if (d->stopping) {
		dlog("signal %d again: exiting now", sig);
		d->stop_deadline = now;
		return;
	}
	dlog("signal %d: shutting down (%d requests in flight)", sig, d->inflight);
	d->stopping = 1;
	d->stop_deadline = now + SHUTDOWN_MS;
	for (i = 0; i < d->nlis; i++) {
		epoll_ctl(d->ep, EPOLL_CTL_DEL, d->lis[i].fd, NULL);
		close(d->lis[i].fd);
	}
	d->nlis = 0;
	d->accept_resume = 0;
	listen_remove_socket(d);
	for (j = d->running; j; j = j->next) {
		j->cancelled = 1;
		exec_kill(&j->proc, now);
	}
	if (d->running)
		d->next_timer = now;
	while ((j = d->wait_head)) {
		d->wait_head = j->next;
		j->cancelled = 1;
		j->mode = JOB_DONE;
		job_fail_now(d, j, "daemon shutting down");
	}
	d->wait_tail = NULL;
	/* in-process work stops at its next check (its cancel flag) */
	for (c = d->conns; c; c = c->next)
		if (c->job)
			c->job->abandon = 1;
	for (c = d->conns; c; c = next) {
		next = c->next;
		conn_process(c);
	}
}

/* ---- the loop ---- */

static void free_dead(struct daemon *d)
{
	while (d->dead_jobs) {
		struct job *j = d->dead_jobs;
		d->dead_jobs = j->next;
		job_free(j);
	}
	while (d->dead_conns) {
		struct conn *c = d->dead_conns;
		d->dead_conns = c->next;
		buf_free(&c->in);
		buf_free(&c->out);
		free(c);
	}
}

static void take_done(struct daemon *d)
{
	uint64_t n;
	struct job *j, *next;

	if (read(d->wake_fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		dlog("eventfd: %s", strerror(errno));
	for (j = pool_take_done(d->pool); j; j = next) {
		next = j->next;
		if (j->parsed)
			job_parsed(d, j);
		else
			job_complete(d, j);
	}
}

static void handle_signal(struct daemon *d)
{
	struct signalfd_siginfo si;

	while (read(d->sig_fd, &si, sizeof(si)) == sizeof(si))
		begin_shutdown(d, (int)si.ssi_signo);
}

static int loop_timeout(struct daemon *d, long long now)
{
	long long t = earliest(d->next_timer, d->accept_resume);

	if (d->stopping)
		t = earliest(t, d->stop_deadline);
	t = earliest(t, d->reap_at);
	t = earliest(t, d->check_at);
	if (!t)
		return -1;
	return t <= now ? 0 : (int)(t - now > 60000 ? 60000 : t - now);
}

void loop_poll_after(struct daemon *d)
{
	if (d->o->poll_us)
		d->poll_until = wfs_now_ns() + d->o->poll_us * 1000LL;
}

/* The next events: polled for while the window after an in-process
 * answer lasts, then waited for. The window costs at most poll_us of CPU
 * per answer and is never opened by commands, which take far longer;
 * it yields the CPU at every turn, so it never holds up a client that
 * shares the CPU. */
static int wait_events(struct daemon *d, struct epoll_event *ev, int max,
		       long long now_ms)
{
	int n;

	while (d->poll_until && !d->stopping) {
		n = epoll_wait(d->ep, ev, max, 0);
		if (n)
			return n;
		if (wfs_now_ns() >= d->poll_until)
			break;
		sched_yield(); /* a client on this CPU goes first */
	}
	d->poll_until = 0;
	return epoll_wait(d->ep, ev, max, loop_timeout(d, now_ms));
}

static void run_loop(struct daemon *d)
{
	struct epoll_event ev[256];
	int i, n;

	while (!d->stopping || d->inflight || d->nconns) {
		long long now = wfs_now_ms();

		if (d->stopping && now >= d->stop_deadline) {
			dlog("gave up waiting: %d requests in flight", d->inflight);
			break;
		}
		n = wait_events(d, ev, 256, now);
		if (n < 0 && errno != EINTR) {
			dlog("epoll_wait: %s", strerror(errno));
			break;
		}
		for (i = 0; i < n; i++) {
			struct watch *w = ev[i].data.ptr;
			switch (w->kind) {
			case W_LISTEN:
				if (!d->stopping)
					conn_accept(d, w->ptr);
				break;
			case W_CONN:
				conn_event(w->ptr, ev[i].events);
				break;
			case W_PROC:
				proc_event(d, w->ptr, w->index);
				break;
			case W_WAKE:
				take_done(d);
				break;
			case W_SIGNAL:
				handle_signal(d);
				break;
			}
		}
		now = wfs_now_ms();
		if (d->next_timer && now >= d->next_timer)
			procs_tick(d, now);
		if (d->accept_resume && now >= d->accept_resume) {
			d->accept_resume = 0;
			for (i = 0; i < d->nlis; i++)
				ep_ctl(d, EPOLL_CTL_ADD, d->lis[i].fd,
				       &d->lis[i].w, EPOLLIN);
		}
		if (d->check_at && now >= d->check_at)
			conns_expire(d, now);
		if (d->reap_at && now >= d->reap_at) {
			proc_reap_orphans(d);
			d->reap_at = now + 1000;
		}
		free_dead(d);
	}
}

static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max > (1u << 20) ? (1u << 20) : rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static void teardown(struct daemon *d)
{
	struct job *j;
	int i;

	for (i = 0; i < d->nlis; i++)
		close(d->lis[i].fd);
	listen_remove_socket(d);
	/* Left only when the shutdown wait ran out. */
	while ((j = d->running)) {
		d->running = j->next;
		exec_abort(&j->proc);
		job_free(j);
	}
	while (d->conns) {
		struct conn *c = d->conns;
		c->job = NULL; /* a worker may still hold its job */
		conn_close(c);
	}
	free_dead(d);
	if (d->pool && !d->inflight)
		pool_stop(d->pool);
	job_cache_free(d);
	if (d->ep >= 0)
		close(d->ep);
	if (d->wake_fd >= 0)
		close(d->wake_fd);
	if (d->sig_fd >= 0)
		close(d->sig_fd);
	if (d->cwd_fd >= 0)
		close(d->cwd_fd);
}

int daemon_run(const struct daemon_opts *o)
{
	struct daemon dd, *d = &dd;
	sigset_t sigs;
	int i, rc = 1;

	memset(d, 0, sizeof(*d));
	d->o = o;
	d->mem.limit = o->max_memory;
	d->mem.bulk = o->max_memory - o->max_memory / 4;
	d->ep = d->wake_fd = d->sig_fd = d->cwd_fd = -1;
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	/* Blocked before the workers start, so they inherit the mask. */
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	raise_fd_limit();
	d->ep = epoll_create1(EPOLL_CLOEXEC);
	d->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	d->sig_fd = signalfd(-1, &sigs, SFD_NONBLOCK | SFD_CLOEXEC);
	d->cwd_fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (d->cwd_fd < 0)
		d->cwd_fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (d->ep < 0 || d->wake_fd < 0 || d->sig_fd < 0 || d->cwd_fd < 0) {
		dlog("setup: %s", strerror(errno));
		goto out;
	}
	d->root = o->root;
	if (d->root) {
		dlog("workspace root %s: the working directory; file operations and "
		     "workdirs are confined to it, shell commands are not",
		     d->root);
	}
	if ((o->socket && listen_unix(d, o->socket)) ||
	    (o->listen && listen_tcp(d, o->listen)))
		goto out;
	if (!d->nlis) {
		dlog("nothing to listen on: give --listen or --socket");
		goto out;
	}
	if (o->listen && !o->token && !o->nallow)
		dlog("warning: no DAEMON_TOKEN and no DAEMON_ALLOW_FROM: anyone who "
		     "can reach tcp %s can run commands as uid %d (see --token-file, "
		     "--allow-from)",
		     o->listen, (int)geteuid());
	/* Confined: relative paths and commands without a workdir start in
	 * the workspace. */
	if (d->root) {
		int fd;
		if (chdir(d->root) ||
		    (fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
			dlog("chdir %s: %s", d->root, strerror(errno));
			goto out;
		}
		close(d->cwd_fd);
		d->cwd_fd = fd;
	}
	d->pool = pool_start(o->workers, d->wake_fd, d->cwd_fd);
	if (!d->pool) {
		dlog("cannot start worker threads");
		goto out;
	}
	d->private_cwd = pool_private_cwd(d->pool);
	/* The loop thread gets its own cwd too, for the small operations it
	 * runs itself; it always returns to cwd_fd before spawning. */
	d->loop_private_cwd = d->private_cwd && !unshare(CLONE_FS);
	if (!d->private_cwd)
		dlog("no per-thread working directory (unshare CLONE_FS "
		     "refused): requests with a workdir are spawned");
	d->wake_w = (struct watch){W_WAKE, 0, NULL};
	d->sig_w = (struct watch){W_SIGNAL, 0, NULL};
	ep_ctl(d, EPOLL_CTL_ADD, d->wake_fd, &d->wake_w, EPOLLIN);
	ep_ctl(d, EPOLL_CTL_ADD, d->sig_fd, &d->sig_w, EPOLLIN);
	for (i = 0; i < d->nlis; i++) {
		d->lis[i].w = (struct watch){W_LISTEN, 0, &d->lis[i]};
		ep_ctl(d, EPOLL_CTL_ADD, d->lis[i].fd, &d->lis[i].w, EPOLLIN);
	}
	if (getpid() == 1)
		d->reap_at = wfs_now_ms() + 1000;
	dlog("ready: pid %d, %d workers, max line %zu bytes, memory budget %zu "
	     "bytes (%s)",
	     (int)getpid(), o->workers, o->max_line, o->max_memory,
	     o->memory_from);
	run_loop(d);
	rc = 0;
	dlog("stopped");
out:
	teardown(d);
	return rc;
}
