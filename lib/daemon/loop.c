/* loop.c - the daemon's event loop: listeners, connections, commands.
 *
 * One epoll set, level-triggered, in the spirit of Redis' ae.c. Every
 * descriptor carries a struct watch naming what it belongs to. A
 * connection runs one request at a time: the next line is parsed only
 * when the previous response is written out, so responses come in order
 * and a connection never holds more than one line and one response.
 * Objects closed during an event batch are freed after it, since later
 * events of the same batch may still point at them.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <sched.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "daemon_int.h"
#include "json.h"

#define READ_CHUNK 65536
#define KEEP_BUF (256u << 10)  /* idle buffers larger than this are freed */
#define SHUTDOWN_MS 5000       /* longest wait for in-flight work at exit */

struct conn {
	struct daemon *d;
	int fd;
	struct watch w;
	unsigned events;
	struct buf in;
	size_t in_off, scan_off;  /* consumed; searched for '\n' */
	struct buf out;
	size_t out_off;
	struct job *job;          /* the request in flight */
	int skipping;             /* dropping an oversize line to its end */
	int eof, dead;
	struct conn *prev, *next;
};

static void dlog(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void dlog(const char *fmt, ...)
{
	char line[1024];
	struct tm tm;
	time_t t = time(NULL);
	va_list ap;
	size_t n;

	gmtime_r(&t, &tm);
	n = strftime(line, sizeof(line), "%Y-%m-%dT%H:%M:%SZ wick-daemon: ", &tm);
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
	va_end(ap);
	n = strlen(line);
	line[n++] = '\n';
	if (write(2, line, n) < 0)
		return;
}

static int ep_ctl(struct daemon *d, int op, int fd, struct watch *w,
		  unsigned events)
{
	struct epoll_event ev = {.events = events, .data.ptr = w};

	return epoll_ctl(d->ep, op, fd, &ev);
}

static long long earliest(long long a, long long b)
{
	return !a ? b : !b ? a : a < b ? a : b;
}

/* ---- connections ---- */

static void conn_process(struct conn *c);

static void conn_update(struct conn *c)
{
	struct daemon *d = c->d;
	unsigned want = 0;

	if (c->dead)
		return;
	if (!c->eof && (c->skipping || c->in.len - c->in_off <= d->o->max_line))
		want |= EPOLLIN;
	if (c->out.len > c->out_off)
		want |= EPOLLOUT;
	if (want != c->events && !ep_ctl(d, EPOLL_CTL_MOD, c->fd, &c->w, want))
		c->events = want;
}

/* Close now; the memory goes when no job refers to it any more. */
static void conn_close(struct conn *c)
{
	struct daemon *d = c->d;

	if (!c->dead) {
		epoll_ctl(d->ep, EPOLL_CTL_DEL, c->fd, NULL);
		close(c->fd);
		c->fd = -1;
		c->dead = 1;
		if (c->prev)
			c->prev->next = c->next;
		else
			d->conns = c->next;
		if (c->next)
			c->next->prev = c->prev;
		d->nconns--;
		if (d->o->verbose)
			dlog("connection closed");
	}
	if (!c->job) {
		c->next = d->dead_conns;
		d->dead_conns = c;
	}
}

static void conn_flush(struct conn *c)
{
	while (!c->dead && c->out_off < c->out.len) {
		ssize_t n = send(c->fd, c->out.p + c->out_off,
				 c->out.len - c->out_off, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0) {
			conn_close(c);
			return;
		}
		c->out_off += (size_t)n;
	}
	if (c->out_off == c->out.len) {
		if (c->out.cap > KEEP_BUF)
			buf_free(&c->out);
		buf_reset(&c->out);
		c->out_off = 0;
	}
}

/* Queue a finished response; the buffer is taken when ours is empty. */
static void conn_send(struct conn *c, struct buf *resp)
{
	if (c->out_off == c->out.len && resp->len > READ_CHUNK) {
		buf_free(&c->out);
		c->out = *resp;
		c->out_off = 0;
		buf_init(resp);
	} else {
		buf_add(&c->out, resp->p, resp->len);
	}
	if (c->out.oom) {
		conn_close(c);
		return;
	}
	conn_flush(c);
}

/* ---- commands ---- */

static void proc_before_close(struct exec_proc *p, int i)
{
	struct job *j = p->owner;

	epoll_ctl(j->d->ep, EPOLL_CTL_DEL, p->fd[i], NULL);
}

static void job_complete(struct daemon *d, struct job *j);

static void job_fail_now(struct daemon *d, struct job *j, const char *msg)
{
	resp_legacy(j, "", 0, "", 0, 1, msg);
	job_complete(d, j);
}

static void proc_start(struct daemon *d, struct job *j)
{
	char err[600];
	struct stat st;
	long long t;
	int i;

	if (j->workdir && (stat(j->workdir, &st) || !S_ISDIR(st.st_mode))) {
		snprintf(err, sizeof(err), "chdir %.400s: %s", j->workdir,
			 errno == ENOENT ? "no such file or directory" :
			 !S_ISDIR(st.st_mode) ? "not a directory" : strerror(errno));
		return job_fail_now(d, j, err);
	}
	if (exec_start(&j->proc, &j->exec, err, sizeof(err))) {
		request_command_done(j, NULL, err);
		return job_complete(d, j);
	}
	j->proc.owner = j;
	j->proc.before_close = proc_before_close;
	j->running = 1;
	for (i = 0; i < EXEC_NFDS; i++) {
		if (j->proc.fd[i] < 0)
			continue;
		j->w[i] = (struct watch){W_PROC, i, j};
		ep_ctl(d, EPOLL_CTL_ADD, j->proc.fd[i], &j->w[i], EPOLLIN);
	}
	j->prev = NULL;
	j->next = d->running;
	if (d->running)
		d->running->prev = j;
	d->running = j;
	d->nrunning++;
	t = exec_tick(&j->proc, wfs_now_ms());
	d->next_timer = earliest(d->next_timer, t);
	if (d->o->verbose)
		dlog("id=%s spawned pid %d: %.200s", j->id, (int)j->proc.pid,
		     j->exec.command);
}

static void proc_complete(struct daemon *d, struct job *j)
{
	struct wfs_exec_result res;

	exec_finish(&j->proc, &res);
	j->running = 0;
	if (j->prev)
		j->prev->next = j->next;
	else
		d->running = j->next;
	if (j->next)
		j->next->prev = j->prev;
	d->nrunning--;
	request_command_done(j, &res, NULL);
	buf_free(&res.out);
	buf_free(&res.err);
	job_complete(d, j);
	while (d->wait_head && d->nrunning < d->o->max_procs) {
		struct job *w = d->wait_head;
		d->wait_head = w->next;
		if (!d->wait_head)
			d->wait_tail = NULL;
		proc_start(d, w);
	}
}

static void proc_event(struct daemon *d, struct job *j, int index)
{
	if (!j->running)
		return;
	exec_io(&j->proc, index);
	if (exec_done(&j->proc))
		proc_complete(d, j);
}

static void procs_tick(struct daemon *d, long long now)
{
	struct job *j, *next;
	long long t = 0;

	/* Commands started during the walk (the next request of a connection)
	 * put their own timers in next_timer. */
	d->next_timer = 0;
	for (j = d->running; j; j = next) {
		long long jt = exec_tick(&j->proc, now);
		next = j->next;
		if (exec_done(&j->proc))
			proc_complete(d, j);
		else
			t = earliest(t, jt);
	}
	d->next_timer = earliest(d->next_timer, t);
}

/* ---- requests ---- */

static void job_complete(struct daemon *d, struct job *j)
{
	struct conn *c = j->conn;

	if (j->mode != JOB_DONE || j->running)
		return;
	if (d->o->verbose)
		dlog("id=%s answered in %lld ms", j->id,
		     wfs_now_ms() - j->started_ms);
	if (c) {
		if (c->job == j) {
			d->inflight--;
			c->job = NULL;
		}
		if (c->dead) {
			conn_close(c); /* now free to go */
		} else {
			conn_send(c, &j->resp);
			conn_process(c);
		}
	}
	j->next = d->dead_jobs;
	d->dead_jobs = j;
}

static void dispatch(struct daemon *d, struct conn *c, struct job *j)
{
	j->conn = c;
	if (j->mode == JOB_DONE) {
		if (d->o->verbose || j->refused)
			dlog("id=%s refused: %.*s", j->id,
			     (int)(j->resp.len > 300 ? 300 : j->resp.len - 1), j->resp.p);
		j->conn = NULL;
		conn_send(c, &j->resp);
		j->next = d->dead_jobs;
		d->dead_jobs = j;
		return;
	}
	c->job = j;
	d->inflight++;
	if (j->mode == JOB_APPLET && d->loop_private_cwd == d->private_cwd &&
	    request_inline_ok(j)) {
		request_run_applet(j, d->cwd_fd, d->loop_private_cwd);
		job_complete(d, j);
	} else if (j->mode == JOB_APPLET)
		pool_submit(d->pool, j);
	else if (d->nrunning < d->o->max_procs)
		proc_start(d, j);
	else {
		j->next = NULL;
		if (d->wait_tail)
			d->wait_tail->next = j;
		else
			d->wait_head = j;
		d->wait_tail = j;
	}
}

static void handle_line(struct conn *c, const char *line, size_t len)
{
	struct daemon *d = c->d;
	struct job *j;
	size_t i;

	for (i = 0; i < len; i++)
		if (line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
			break;
	if (i == len)
		return; /* blank lines are skipped */
	j = request_parse(d, line, len);
	if (!j) {
		struct buf b;
		buf_init(&b);
		buf_puts(&b, "{\"id\":\"\",\"stdout\":\"\",\"stderr\":\"\","
			     "\"exit_code\":1,\"error\":\"out of memory\"}\n");
		conn_send(c, &b);
		buf_free(&b);
		return;
	}
	dispatch(d, c, j);
}

static void oversize(struct conn *c)
{
	struct daemon *d = c->d;
	struct buf b;

	dlog("request line over %zu bytes: answered with an error, skipped",
	     d->o->max_line);
	buf_init(&b);
	buf_printf(&b, "{\"id\":\"\",\"stdout\":\"\",\"stderr\":\"\",\"exit_code\":1,"
		   "\"error\":\"request line exceeds the limit of %zu bytes\"}\n",
		   d->o->max_line);
	conn_send(c, &b);
	buf_free(&b);
}

/* Answer buffered lines while nothing is in flight and the previous
 * response is out. */
static void conn_process(struct conn *c)
{
	struct daemon *d = c->d;

	while (!c->dead && !c->job && c->out_off == c->out.len && !d->stopping) {
		char *base = c->in.p + c->in_off, *nl;
		size_t avail = c->in.len - c->in_off, len;

		if (!avail)
			break;
		nl = memchr(c->in.p + c->scan_off, '\n', c->in.len - c->scan_off);
		if (c->skipping) {
			c->in_off = nl ? (size_t)(nl - c->in.p) + 1 : c->in.len;
			c->scan_off = c->in_off;
			c->skipping = !nl;
			continue;
		}
		if (!nl) {
			c->scan_off = c->in.len;
			if (avail > d->o->max_line) {
				c->in_off = c->scan_off = c->in.len;
				c->skipping = 1;
				oversize(c);
				continue;
			}
			if (!c->eof)
				break;
			/* The last line may lack its newline. */
			c->in_off = c->scan_off = c->in.len;
			handle_line(c, base, avail);
			continue;
		}
		len = (size_t)(nl - base);
		c->in_off += len + 1;
		c->scan_off = c->in_off;
		if (len > d->o->max_line)
			oversize(c);
		else
			handle_line(c, base, len);
	}
	if (c->dead)
		return;
	if (c->in_off == c->in.len) {
		if (c->in.cap > KEEP_BUF)
			buf_free(&c->in);
		buf_reset(&c->in);
		c->in_off = c->scan_off = 0;
	} else if (c->in_off > READ_CHUNK) {
		memmove(c->in.p, c->in.p + c->in_off, c->in.len - c->in_off);
		c->in.len -= c->in_off;
		c->scan_off -= c->in_off;
		c->in_off = 0;
	}
	if (!c->job && c->out_off == c->out.len &&
	    (d->stopping || (c->eof && c->in_off == c->in.len))) {
		conn_close(c);
		return;
	}
	conn_update(c);
}

/* The rest of an oversize line is dropped as it arrives (the error was
 * answered already), whatever the state of the connection. */
static void skip_read(struct conn *c, size_t n)
{
	char *fresh = c->in.p + c->in.len - n;
	char *nl = memchr(fresh, '\n', n);
	size_t keep;

	if (!nl) {
		c->in.len -= n;
		return;
	}
	keep = (size_t)(c->in.p + c->in.len - (nl + 1));
	memmove(fresh, nl + 1, keep);
	c->in.len = (size_t)(fresh - c->in.p) + keep;
	c->skipping = 0;
}

static void conn_read(struct conn *c)
{
	size_t limit = c->d->o->max_line + 1, want;
	int k;

	for (k = 0; k < 4; k++) {
		ssize_t n;

		if (!c->skipping && c->in.len - c->in_off > limit)
			break;
		/* Small reads stay in one small buffer (no mmap per request);
		 * a big request gets big reads. */
		want = c->in.len - c->in_off > READ_CHUNK ? 4 * READ_CHUNK : READ_CHUNK / 4;
		if (buf_reserve(&c->in, want)) {
			conn_close(c);
			return;
		}
		want = c->in.cap - c->in.len - 1;
		n = recv(c->fd, c->in.p + c->in.len, want, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n < 0) {
			conn_close(c);
			return;
		}
		if (n == 0) {
			c->eof = 1;
			break;
		}
		c->in.len += (size_t)n;
		if (c->skipping)
			skip_read(c, (size_t)n);
		if ((size_t)n < want)
			break; /* drained: spare the recv that would say EAGAIN */
	}
	conn_process(c);
}

static void conn_event(struct conn *c, unsigned ev)
{
	if (c->dead)
		return;
	if (ev & EPOLLOUT) {
		conn_flush(c);
		if (c->dead)
			return;
		conn_process(c);
	}
	/* A hang-up: take what the peer sent before it went, then close;
	 * a request already running still completes, unanswered. */
	if (!c->dead && (ev & (EPOLLIN | EPOLLHUP)) && !(ev & EPOLLERR))
		conn_read(c);
	if (!c->dead && (ev & (EPOLLHUP | EPOLLERR)))
		conn_close(c);
}

/* ---- listeners ---- */

static void accept_all(struct daemon *d, struct listener *l)
{
	for (;;) {
		int fd = accept4(l->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC), one = 1;
		struct conn *c;

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno == EMFILE || errno == ENFILE ||
			    errno == ENOBUFS || errno == ENOMEM) {
				int i;
				dlog("accept: %s: pausing new connections for 100 ms",
				     strerror(errno));
				for (i = 0; i < d->nlis; i++)
					epoll_ctl(d->ep, EPOLL_CTL_DEL, d->lis[i].fd, NULL);
				d->accept_resume = wfs_now_ms() + 100;
			}
			return;
		}
		if (d->nconns >= d->o->max_conns) {
			dlog("connection refused: %d connections open (--max-conns)",
			     d->nconns);
			close(fd);
			continue;
		}
		c = calloc(1, sizeof(*c));
		if (!c) {
			close(fd);
			continue;
		}
		if (!l->is_unix)
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		c->d = d;
		c->fd = fd;
		c->w = (struct watch){W_CONN, 0, c};
		c->events = EPOLLIN;
		buf_init(&c->in);
		buf_init(&c->out);
		if (ep_ctl(d, EPOLL_CTL_ADD, fd, &c->w, EPOLLIN)) {
			close(fd);
			free(c);
			continue;
		}
		c->next = d->conns;
		if (d->conns)
			d->conns->prev = c;
		d->conns = c;
		d->nconns++;
		if (d->o->verbose)
			dlog("connection accepted (%s)", l->is_unix ? "unix" : "tcp");
	}
}

static int listen_tcp(struct daemon *d, const char *addr)
{
	struct addrinfo hints = {0}, *res, *ai;
	char host[256], port[32], shown[300];
	const char *colon = strrchr(addr, ':');
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	int fd = -1, rc, one = 1;

	if (!colon || (size_t)(colon - addr) >= sizeof(host) ||
	    strlen(colon + 1) >= sizeof(port) || !colon[1]) {
		dlog("bad listen address %s: want HOST:PORT", addr);
		return -1;
	}
	snprintf(host, sizeof(host), "%.*s", (int)(colon - addr), addr);
	snprintf(port, sizeof(port), "%s", colon + 1);
	if (host[0] == '[' && host[strlen(host) - 1] == ']') {
		memmove(host, host + 1, strlen(host));
		host[strlen(host) - 1] = 0;
	}
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE;
	rc = getaddrinfo(host[0] ? host : NULL, port, &hints, &res);
	if (rc) {
		dlog("listen %s: %s", addr, gai_strerror(rc));
		return -1;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0)
			continue;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (!bind(fd, ai->ai_addr, ai->ai_addrlen) && !listen(fd, 4096))
			break;
		rc = errno;
		close(fd);
		fd = -1;
		errno = rc;
	}
	freeaddrinfo(res);
	if (fd < 0) {
		dlog("listen tcp %s: %s", addr, strerror(errno));
		return -1;
	}
	snprintf(shown, sizeof(shown), "%s", addr);
	if (!getsockname(fd, (struct sockaddr *)&ss, &sl)) {
		char h[128], p[16];
		if (!getnameinfo((struct sockaddr *)&ss, sl, h, sizeof(h), p, sizeof(p),
				 NI_NUMERICHOST | NI_NUMERICSERV))
			snprintf(shown, sizeof(shown), "%s:%s", h, p);
	}
	d->lis[d->nlis].fd = fd;
	d->lis[d->nlis].is_unix = 0;
	d->nlis++;
	dlog("listening on tcp %s", shown);
	return 0;
}

static int listen_unix(struct daemon *d, const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct stat st;
	mode_t old;
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		dlog("socket path too long: %s", path);
		return -1;
	}
	strcpy(sa.sun_path, path);
	if (!lstat(path, &st)) {
		if (!S_ISSOCK(st.st_mode)) {
			dlog("%s exists and is not a socket: not removing it", path);
			return -1;
		}
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd >= 0 && !connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
			close(fd);
			dlog("another daemon is listening on %s", path);
			return -1;
		}
		if (fd >= 0)
			close(fd);
		unlink(path); /* stale socket of a daemon that is gone */
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		dlog("socket: %s", strerror(errno));
		return -1;
	}
	old = umask(0177); /* created 0600: commands for our user only */
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		umask(old);
		dlog("bind %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	umask(old);
	if (listen(fd, 4096) || lstat(path, &st)) {
		dlog("listen %s: %s", path, strerror(errno));
		close(fd);
		unlink(path);
		return -1;
	}
	d->sock_path = strdup(path);
	d->sock_ino = st.st_ino;
	d->lis[d->nlis].fd = fd;
	d->lis[d->nlis].is_unix = 1;
	d->nlis++;
	dlog("listening on unix %s", path);
	return 0;
}

static void remove_socket(struct daemon *d)
{
	struct stat st;

	if (d->sock_path && !lstat(d->sock_path, &st) && st.st_ino == d->sock_ino &&
	    S_ISSOCK(st.st_mode))
		unlink(d->sock_path);
	free(d->sock_path);
	d->sock_path = NULL;
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
	remove_socket(d);
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
	for (c = d->conns; c; c = next) {
		next = c->next;
		conn_process(c);
	}
}

/* ---- PID 1 ----
 * As a container's first process, orphaned grandchildren are ours to
 * reap. A zombie of a running command is left to its job, which needs
 * its status; waitid peeks (WNOWAIT) before reaping anything. */

static void reap_orphans(struct daemon *d)
{
	for (;;) {
		siginfo_t si;
		struct job *j;

		memset(&si, 0, sizeof(si));
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) || !si.si_pid)
			return;
		for (j = d->running; j; j = j->next)
			if (j->proc.pid == si.si_pid)
				return;
		waitpid(si.si_pid, NULL, WNOHANG);
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
	if (!t)
		return -1;
	return t <= now ? 0 : (int)(t - now > 60000 ? 60000 : t - now);
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
		n = epoll_wait(d->ep, ev, 256, loop_timeout(d, now));
		if (n < 0 && errno != EINTR) {
			dlog("epoll_wait: %s", strerror(errno));
			break;
		}
		for (i = 0; i < n; i++) {
			struct watch *w = ev[i].data.ptr;
			switch (w->kind) {
			case W_LISTEN:
				if (!d->stopping)
					accept_all(d, w->ptr);
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
		if (d->reap_at && now >= d->reap_at) {
			reap_orphans(d);
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
	remove_socket(d);
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
	if ((o->socket && listen_unix(d, o->socket)) ||
	    (o->listen && listen_tcp(d, o->listen)))
		goto out;
	if (!d->nlis) {
		dlog("nothing to listen on: give --listen or --socket");
		goto out;
	}
	if (o->listen && !o->token)
		dlog("warning: no DAEMON_TOKEN set: anyone who can reach tcp %s "
		     "can run commands as this user", o->listen);
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
	dlog("ready: pid %d, %d workers, max line %zu bytes", (int)getpid(),
	     o->workers, o->max_line);
	run_loop(d);
	rc = 0;
	dlog("stopped");
out:
	teardown(d);
	return rc;
}
