/* daemon.c - the daemon: setup, signals, shutdown and teardown around
 * the event loop (loop.c).
 *
 * It wires the parts together: each listener, connection, command and
 * the worker pool's eventfd carries the handler of the file that owns
 * it, and the timers theirs. Objects closed during an event batch are
 * freed after it (the loop's after hook), since later events of the
 * same batch may still point at them.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <unistd.h>
#include "daemon_int.h"

#define SHUTDOWN_MS 5000 /* longest wait for in-flight work at exit */

/* ---- shutdown ---- */

static void begin_shutdown(struct daemon *d, int sig)
{
	long long now = wfs_now_ms();
	struct conn *c, *next;
	struct job *j;
	int i;

	if (d->stopping) {
		if (!sig)
			return;
		daemon_log("signal %d again: exiting now", sig);
		d->stop_timer.at = now;
		return;
	}
	if (sig)
		daemon_log("signal %d: shutting down (%d requests in flight)", sig, d->inflight);
	else
		daemon_log("stdin ended (--lifeline): shutting down (%d requests in flight)",
			   d->inflight);
	d->stopping = 1;
	lane_stop(d);
	d->stop_timer.at = now + SHUTDOWN_MS;
	/* no polling for a next request any more */
	d->loop.poll_us = 0;
	d->loop.poll_until = 0;
	for (i = 0; i < d->nlis; i++) {
		event_ctl(&d->loop, EPOLL_CTL_DEL, d->lis[i].fd, NULL, 0);
		close(d->lis[i].fd);
	}
	d->nlis = 0;
	d->accept_timer.at = 0;
	listen_remove_socket(d);
	for (j = d->running; j; j = j->next) {
		j->cancelled = 1;
		exec_kill(&j->proc, now);
	}
	if (d->running)
		d->proc_timer.at = now;
	bg_stop_all(d, 0);
	watch_stop_all(d);
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

static void on_signal(struct watch *w, unsigned events)
{
	struct daemon *d = w->data;
	struct signalfd_siginfo si;

	(void)events;
	while (read(d->sig_fd, &si, sizeof(si)) == sizeof(si))
		begin_shutdown(d, (int)si.ssi_signo);
}

/* --lifeline: whatever comes on stdin is read and dropped; its end (the
 * program that started us closed the pipe, or died) stops the daemon as
 * SIGTERM would. */
static void on_lifeline(struct watch *w, unsigned events)
{
	struct daemon *d = w->data;
	char b[256];
	ssize_t n;

	(void)events;
	while ((n = read(0, b, sizeof(b))) > 0)
		;
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	event_ctl(&d->loop, EPOLL_CTL_DEL, 0, NULL, 0);
	begin_shutdown(d, 0);
}

/* The shutdown's wait for in-flight work ran out. */
static void stop_now(struct timer *t, long long now)
{
	struct daemon *d = t->data;

	(void)now;
	if (d->inflight || d->nconns)
		daemon_log("gave up waiting: %d requests in flight", d->inflight);
	d->loop.stop = 1;
}

static void free_dead(struct daemon *d)
{
	bg_free_dead(d);
	watch_free_dead(d);
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

static void after_batch(struct loop *l)
{
	struct daemon *d = l->data;

	free_dead(d);
	if (d->stopping && !d->inflight && !d->nconns)
		l->stop = 1;
}

/* ---- setup and teardown ---- */

static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (wfs_rlimit(RLIMIT_NOFILE, &rl, NULL))
		return;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max > (1u << 20) ? (1u << 20) : rl.rlim_max;
		wfs_rlimit(RLIMIT_NOFILE, NULL, &rl);
	}
}

static void teardown(struct daemon *d)
{
	struct job *j;
	int i;

	lane_stop(d);
	for (i = 0; i < d->nlis; i++)
		close(d->lis[i].fd);
	listen_remove_socket(d);
	/* Left only when the shutdown wait ran out. */
	while ((j = d->running)) {
		d->running = j->next;
		exec_abort(&j->proc);
		job_free(j);
	}
	bg_stop_all(d, 1);
	while (d->conns) {
		struct conn *c = d->conns;
		c->job = NULL; /* a worker may still hold its job */
		conn_close(c);
	}
	free_dead(d);
	if (d->pool && !d->inflight)
		pool_stop(d->pool);
	job_cache_free(d);
	session_free_all(d);
	if (d->loop.ep >= 0)
		close(d->loop.ep);
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
	struct loop *l = &d->loop;
	sigset_t sigs;
	int i, rc = 1;

	memset(d, 0, sizeof(*d));
	d->o = o;
	d->mem.limit = o->max_memory;
	d->mem.bulk = o->max_memory - o->max_memory / 4;
	l->ep = d->wake_fd = d->sig_fd = d->cwd_fd = -1;
	l->poll_us = o->poll_us;
	l->after = after_batch;
	l->data = d;
	/* fired in the reverse order, the stop last */
	loop_add_timer(l, &d->stop_timer, stop_now, d);
	loop_add_timer(l, &d->reap_timer, proc_reap, d);
	loop_add_timer(l, &d->conn_timer, conn_expire, d);
	loop_add_timer(l, &d->accept_timer, conn_accept_resume, d);
	loop_add_timer(l, &d->proc_timer, proc_tick, d);
	loop_add_timer(l, &d->bg_timer, bg_tick, d);
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	/* Blocked before the workers start, so they inherit the mask. */
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	raise_fd_limit();
	l->ep = epoll_create1(EPOLL_CLOEXEC);
	d->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	d->sig_fd = signalfd(-1, &sigs, SFD_NONBLOCK | SFD_CLOEXEC);
	d->cwd_fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (d->cwd_fd < 0)
		d->cwd_fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (l->ep < 0 || d->wake_fd < 0 || d->sig_fd < 0 || d->cwd_fd < 0) {
		daemon_log("setup: %s", strerror(errno));
		goto out;
	}
	d->root = o->root;
	if (d->root) {
		daemon_log("workspace root %s: the working directory; file operations and "
			   "workdirs are confined to it, shell commands are not",
			   d->root);
	}
	for (i = 0; o->mounts && o->mounts[i]; i++)
		daemon_log("--mount %s: bound in the daemon's mount namespace", o->mounts[i]);
	/* A scratch image has no /tmp: the default socket failing there is
	 * no reason to stop when the host only needs TCP; an asked-for socket
	 * failing is. */
	if (o->socket && listen_unix(d, o->socket)) {
		if (!o->socket_default || !o->listen)
			goto out;
		daemon_log("the default socket %s cannot be made (above): serving tcp %s "
			   "alone",
			   o->socket, o->listen);
	}
	if (o->listen && listen_tcp(d, o->listen))
		goto out;
	if (!d->nlis) {
		daemon_log("nothing to listen on: give --listen or --socket");
		goto out;
	}
	if (o->listen && !o->token && !o->nallow)
		daemon_log("warning: no DAEMON_TOKEN and no DAEMON_ALLOW_FROM: anyone who "
			   "can reach tcp %s can run commands as uid %d (see --token-file, "
			   "--allow-from)",
			   o->listen, (int)geteuid());
	/* Confined: relative paths and commands without a workdir start in
	 * the workspace. */
	if (d->root) {
		int fd;
		if (chdir(d->root) ||
		    (fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
			daemon_log("chdir %s: %s", d->root, strerror(errno));
			goto out;
		}
		close(d->cwd_fd);
		d->cwd_fd = fd;
	}
	d->pool = pool_start(o->workers, d->wake_fd, d->cwd_fd);
	if (!d->pool) {
		daemon_log("cannot start worker threads");
		goto out;
	}
	d->private_cwd = pool_private_cwd(d->pool);
	/* The loop thread gets its own cwd too, for the small operations it
	 * runs itself; it always returns to cwd_fd before spawning. */
	d->loop_private_cwd = d->private_cwd && !unshare(CLONE_FS);
	if (!d->private_cwd)
		daemon_log("no per-thread working directory (unshare CLONE_FS "
			   "refused): requests with a workdir are spawned");
	d->wake_w = (struct watch){conn_pool_done, d};
	d->sig_w = (struct watch){on_signal, d};
	event_ctl(l, EPOLL_CTL_ADD, d->wake_fd, &d->wake_w, EPOLLIN);
	event_ctl(l, EPOLL_CTL_ADD, d->sig_fd, &d->sig_w, EPOLLIN);
	d->life_w = (struct watch){on_lifeline, d};
	if (o->lifeline && (fcntl(0, F_SETFL, fcntl(0, F_GETFL) | O_NONBLOCK) ||
			    event_ctl(l, EPOLL_CTL_ADD, 0, &d->life_w, EPOLLIN))) {
		daemon_log("--lifeline: stdin cannot be watched: %s (a pipe or a socket is "
			   "needed)",
			   strerror(errno));
		goto out;
	}
	for (i = 0; i < d->nlis; i++) {
		d->lis[i].w = (struct watch){conn_accept, d};
		event_ctl(l, EPOLL_CTL_ADD, d->lis[i].fd, &d->lis[i].w, EPOLLIN);
	}
	if (getpid() == 1)
		d->reap_timer.at = wfs_now_ms() + 1000;
	i = o->lanes;
	if (i < 0 && (i = wfs_cpus()) > 8)
		i = 8;
	lane_start(d, i);
	daemon_log("ready: pid %d, %d workers, max line %zu bytes, memory budget %zu "
		   "bytes (%s), %d lanes",
		   (int)getpid(), o->workers, o->max_line, o->max_memory,
		   o->memory_from, d->nlanes);
	loop_run(l);
	rc = 0;
	daemon_log("stopped");
out:
	teardown(d);
	return rc;
}
