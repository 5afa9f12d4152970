/* conn.c - connections: read lines, answer one request at a time, in
 * order, and write the responses out.
 *
 * The next line is parsed only when the previous response is written, so
 * a connection never holds more than one line and one response; a line
 * over the limit is answered with an error and dropped as it arrives.
 *
 * Clients must not exhaust the daemon: what it holds for them, requests
 * being read or handled and answers waiting to be sent, has one budget
 * (--max-memory). Past it the connections holding the most request bytes
 * are refused; an answer the budget has no room for becomes an error
 * naming it (and a file is reserved for before it is read, so a big one
 * is refused before it is loaded: wfs_budget_take); an answer its
 * client does not read within --write-timeout closes the
 * connection; a line left unfinished longer than --line-timeout is
 * refused; at --max-conns the oldest connection that never sent a valid
 * request makes room for a new one; and --allow-from names the TCP peers
 * accepted at all.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>
#include "daemon_int.h"
#include "netaddr.h"
#include "reply.h"

/* The memory of b: the most it held since it was allocated, as its
 * pages stay with us (tracked in *p and *mark). */
static size_t touched(const struct buf *b, const char **p, size_t *mark)
{
	if (b->p != *p) {
		*p = b->p;
		*mark = 0;
	}
	if (b->len > *mark)
		*mark = b->len;
	return b->p ? *mark : 0;
}

/* Our buffers, both ways, counted in the daemon's budget. */
void conn_account(struct conn *c)
{
	size_t now = c->dead ? 0 : touched(&c->in, &c->in_p, &c->in_hw) + touched(&c->out, &c->out_p, &c->out_hw);

	wfs_budget_add(&c->d->mem, now);
	wfs_budget_sub(&c->d->mem, c->held);
	c->held = now;
}

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
	if (want != c->events && !event_ctl(&d->loop, EPOLL_CTL_MOD, c->fd, &c->w, want))
		c->events = want;
}

void conn_close(struct conn *c)
{
	struct daemon *d = c->d;

	if (!c->dead) {
		event_ctl(&d->loop, EPOLL_CTL_DEL, c->fd, NULL, 0);
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
		conn_account(c);
		/* Nobody will read the answer: in-process work stops. */
		if (c->job)
			c->job->abandon = 1;
		if (d->o->verbose)
			daemon_log("connection closed");
	}
	if (!c->job) {
		c->next = d->dead_conns;
		d->dead_conns = c;
	} else if (c->job->drained) {
		c->job->drained(c->job); /* a process it followed lets it go */
	}
}

static void conn_flush(struct conn *c)
{
	size_t was = c->out_off;

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
	if (c->dead)
		return;
	if (c->out_off == c->out.len) {
		if (c->out.cap > KEEP_BUF)
			buf_free(&c->out);
		buf_reset(&c->out);
		c->out_off = 0;
		c->write_since = 0;
		conn_account(c);
		if (c->job && c->job->drained)
			c->job->drained(c->job);
	} else if (!c->write_since || c->out_off != was) {
		/* The reader's deadline runs from its last progress. */
		struct daemon *d = c->d;
		c->write_since = wfs_now_ms();
		d->conn_timer.at = earliest(d->conn_timer.at,
					    c->write_since + d->o->write_timeout * 1000LL);
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
	conn_account(c);
	conn_flush(c);
}

/* An event line of a job still running (j->emit): queued and sent as
 * the socket takes it; 1 when the reader is behind. */
static int conn_emit(struct job *j, const char *line, size_t n)
{
	struct conn *c = j->conn;

	if (c->dead)
		return 0;
	buf_add(&c->out, line, n);
	if (c->out.oom) {
		conn_close(c);
		return 0;
	}
	conn_account(c);
	conn_flush(c);
	conn_update(c);
	return !c->dead && c->out.len - c->out_off > STREAM_HIGH;
}

/* A finished answer takes its place in the budget, or gives way to an
 * error naming it. What the job held is given back first. */
static void admit(struct daemon *d, struct job *j)
{
	size_t n = j->resp.len, used = wfs_budget_used(&d->mem);
	size_t cap = n > SMALL_ANSWER ? d->mem.bulk : d->mem.limit;
	unsigned k;

	if (used <= cap && n <= cap - used)
		return;
	if ((k = daemon_log_rate(&d->flood)))
		daemon_log("id=%s: an answer of %zu bytes dropped: %zu of the memory "
			   "budget's %zu bytes are in use (--max-memory)%s",
			   j->id, n,
			   used, d->mem.limit, k > 1 ? ", and more since" : "");
	answer_over_budget(j, n);
}

/* A job's answer (j->answered, from job_complete): sent, and the
 * connection goes on with its next line. */
static void conn_answer(struct job *j)
{
	struct daemon *d = j->d;
	struct conn *c = j->conn;

	if (c->job == j) {
		d->inflight--;
		c->job = NULL;
	}
	if (c->dead) {
		if (d->o->verbose)
			daemon_log("id=%s unanswered, its client is gone: %.100s",
				   j->id, j->resp.p ? j->resp.p : "");
		conn_close(c); /* now free to go */
	} else {
		admit(d, j);
		conn_send(c, &j->resp);
		if (!j->spawned)
			loop_poll_after(&d->loop);
		conn_process(c);
	}
}

static void log_refused(struct daemon *d, struct job *j)
{
	if (d->o->verbose || j->refused)
		daemon_log("id=%s refused: %.*s", j->id,
			   (int)(j->resp.len > 300 ? 300 : j->resp.len - 1), j->resp.p);
}

/* Start a parsed job: in process here or on a worker, or as a command. */
static void run_job(struct daemon *d, struct job *j)
{
	int how;

	if (j->mode == JOB_APPLET && d->loop_private_cwd == d->private_cwd &&
	    (how = request_inline_ok(j))) {
		j->probe = how == 2;
		/* a lane could have answered it: the connection goes to one
		 * when idle */
		if (j->conn && !j->session_v)
			j->conn->lane_fit = 1;
		if (answer_applet(j, d->cwd_fd, d->loop_private_cwd))
			pool_submit(d->pool, j);
		else
			job_complete(d, j);
	} else if (j->mode == JOB_APPLET)
		pool_submit(d->pool, j);
	else if (j->mode == JOB_PROC)
		(j->proc_op >= PROC_WATCH ? watch_run : bg_run)(d, j);
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

static void dispatch(struct daemon *d, struct conn *c, struct job *j)
{
	c->lane_fit = 0;
	j->conn = c;
	j->answered = conn_answer;
	j->emit = conn_emit;
	if (j->authed)
		c->authed = 1;
	if (j->mode == JOB_DONE) {
		log_refused(d, j);
		j->conn = NULL;
		conn_send(c, &j->resp);
		loop_poll_after(&d->loop);
		j->next = d->dead_jobs;
		d->dead_jobs = j;
		return;
	}
	c->job = j;
	d->inflight++;
	if (j->mode == JOB_PARSE)
		pool_submit(d->pool, j);
	else
		run_job(d, j);
}

/* A job whose big line a worker parsed: run or answer it now. */
static void conn_parsed(struct daemon *d, struct job *j)
{
	if (j->session_v && j->mode != JOB_DONE)
		session_apply(j, j->session_v);
	j->parsed = 0;
	j->line = NULL;
	free(j->owned_line);
	j->owned_line = NULL;
	if (j->authed && j->conn && !j->conn->dead)
		j->conn->authed = 1;
	if (j->mode == JOB_DONE)
		log_refused(d, j);
	else if (j->conn && j->conn->dead)
		j->mode = JOB_DONE; /* nobody to answer: do not start it */
	else if (d->stopping && j->mode != JOB_APPLET)
		return job_fail_now(d, j, "daemon shutting down");
	if (j->mode == JOB_DONE)
		job_complete(d, j);
	else
		run_job(d, j);
}

/* A legacy error line with an empty id, for a line that never became a
 * request. */
static void conn_error(struct conn *c, const char *msg)
{
	struct reply_run none = {"", "", 0, 0, 1, 0, 0, 0};
	struct buf b;

	buf_init(&b);
	reply_legacy(&b, "", 0, &none, msg, REPLY_LINE_MAX);
	conn_send(c, &b);
	buf_free(&b);
}

/* An error line, as much of it as the socket takes now, then close. */
static void conn_refuse(struct conn *c, const char *msg)
{
	conn_error(c, msg);
	if (!c->dead)
		conn_close(c);
}

/* A big line goes to a worker to be parsed, and is not copied on the
 * loop when it is most of the buffer: the job takes the buffer itself
 * and the connection keeps a copy of what follows the line. Either way
 * its bytes count against the budget until the job is done. */
static struct job *defer_line(struct conn *c, size_t start, size_t len)
{
	struct daemon *d = c->d;
	size_t rest = c->in.len - c->in_off;
	struct job *j;
	struct buf nb;

	if (rest >= len) {
		j = request_defer_parse(d, c->in.p + start, len);
	} else {
		buf_init(&nb);
		if (rest)
			buf_add(&nb, c->in.p + c->in_off, rest);
		if (nb.oom)
			return NULL;
		j = request_take_line(d, c->in.p, start, len);
		if (!j) {
			buf_free(&nb);
			return NULL;
		}
		c->in = nb;
		c->in_off = c->scan_off = 0;
		conn_account(c);
	}
	return j;
}

/* The line at start (len bytes) in c->in, already consumed. */
static void handle_line(struct conn *c, size_t start, size_t len)
{
	struct daemon *d = c->d;
	const char *line = c->in.p + start;
	struct job *j;
	size_t i;

	for (i = 0; i < len; i++)
		if (line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
			break;
	if (i == len)
		return; /* blank lines are skipped */
	j = len > PARSE_INLINE_MAX ? defer_line(c, start, len)
				   : request_parse(d, line, len);
	if (!j) {
		conn_error(c, "out of memory");
		return;
	}
	/* The job's arena holds what the line said until it is done. */
	if (j->mode != JOB_DONE) {
		j->counted = len;
		wfs_budget_add(&d->mem, len);
	}
	dispatch(d, c, j);
}

static void oversize(struct conn *c)
{
	struct daemon *d = c->d;
	char msg[100];

	daemon_log("request line over %zu bytes: answered with an error, skipped",
		   d->o->max_line);
	snprintf(msg, sizeof(msg), "request line exceeds the limit of %zu bytes",
		 d->o->max_line);
	conn_error(c, msg);
}

/* An unfinished line is waiting for its end: its deadline runs from
 * its first bytes. */
static void line_started(struct conn *c)
{
	struct daemon *d = c->d;

	if (c->line_since)
		return;
	c->line_since = wfs_now_ms();
	d->conn_timer.at = earliest(d->conn_timer.at,
				    c->line_since + d->o->line_timeout * 1000LL);
}

void conn_expire(struct timer *t, long long now)
{
	struct daemon *d = t->data;
	long long limit = d->o->line_timeout * 1000LL, next = 0;
	long long wlimit = d->o->write_timeout * 1000LL;
	struct conn *c, *nx;
	char msg[160];

	for (c = d->conns; c; c = nx) {
		nx = c->next;
		if (c->lane)
			continue;
		if (c->write_since && now - c->write_since >= wlimit) {
			daemon_log("an answer of %zu bytes unread for %d s (the "
				   "daemon's --write-timeout): connection closed",
				   c->out.len - c->out_off, d->o->write_timeout);
			conn_close(c);
			continue;
		}
		if (c->write_since)
			next = earliest(next, c->write_since + wlimit);
		if (!c->line_since || c->job)
			continue;
		if (now - c->line_since < limit) {
			next = earliest(next, c->line_since + limit);
			continue;
		}
		daemon_log("request line unfinished after %d s: connection closed",
			   d->o->line_timeout);
		snprintf(msg, sizeof(msg), "request line unfinished after %d s "
					   "(the daemon's --line-timeout): connection closed",
			 d->o->line_timeout);
		conn_refuse(c, msg);
	}
	t->at = next;
}

/* Past the budget (less room for a small answer), the buffers idle
 * connections keep (to spare a malloc per request) go first; then the
 * connections holding the most request bytes are refused, largest first,
 * until the total is back under it. */
static void enforce_budget(struct daemon *d)
{
	size_t target = d->mem.limit - SMALL_ANSWER;
	struct conn *c;
	char msg[300];

	for (c = d->conns; c; c = c->next) {
		if (c->lane)
			continue; /* a lane keeps small buffers only */
		if (c->in.cap && c->in_off == c->in.len) {
			buf_free(&c->in);
			c->in_off = c->scan_off = 0;
		}
		if (c->out.cap && c->out_off == c->out.len) {
			buf_free(&c->out);
			c->out_off = 0;
		}
		conn_account(c);
	}
	while (wfs_budget_used(&d->mem) > target) {
		struct conn *big = NULL;
		size_t n = 0;

		for (c = d->conns; c; c = c->next)
			if (!c->lane && c->in.len - c->in_off > n)
				big = c, n = c->in.len - c->in_off;
		if (!big)
			return;
		daemon_log("memory budget of %zu bytes exceeded (--max-memory): refused "
			   "the connection holding the most request bytes (%zu)",
			   d->mem.limit, n);
		snprintf(msg, sizeof(msg), "request refused: the daemon holds more "
					   "than its memory budget (--max-memory %zu) in requests "
					   "and unread answers, and this connection held the most "
					   "request bytes (%zu)",
			 d->mem.limit, n);
		conn_refuse(big, msg);
	}
}

void conn_process(struct conn *c)
{
	struct daemon *d = c->d;

	/* An answer made here may send the connection to a lane (c->lane):
	 * from then on it is not ours to touch. */
	while (!c->dead && !c->lane && !c->job && c->out_off == c->out.len && !d->stopping) {
		size_t avail = c->in.len - c->in_off, len;
		char *base, *nl;

		if (!avail)
			break;
		base = c->in.p + c->in_off;
		nl = memchr(c->in.p + c->scan_off, '\n', c->in.len - c->scan_off);
		if (c->skipping) {
			c->in_off = nl ? (size_t)(nl - c->in.p) + 1 : c->in.len;
			c->scan_off = c->in_off;
			c->skipping = !nl;
			if (nl)
				c->line_since = 0;
			continue;
		}
		if (!nl) {
			c->scan_off = c->in.len;
			if (avail > d->o->max_line) {
				c->in_off = c->scan_off = c->in.len;
				c->skipping = 1;
				line_started(c); /* its end has a deadline too */
				oversize(c);
				continue;
			}
			if (!c->eof) {
				line_started(c);
				break;
			}
			/* The last line may lack its newline. */
			c->in_off = c->scan_off = c->in.len;
			c->line_since = 0;
			handle_line(c, (size_t)(base - c->in.p), avail);
			continue;
		}
		len = (size_t)(nl - base);
		c->in_off += len + 1;
		c->scan_off = c->in_off;
		c->line_since = 0;
		if (len > d->o->max_line)
			oversize(c);
		else
			handle_line(c, (size_t)(base - c->in.p), len);
	}
	if (c->dead || c->lane)
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
	conn_account(c);
	if (!c->job && c->out_off == c->out.len &&
	    (d->stopping || (c->eof && c->in_off == c->in.len))) {
		conn_close(c);
		return;
	}
	if (c->lane_fit && d->to_lane && !c->job && c->out_off == c->out.len &&
	    c->in_off == c->in.len && !c->eof && !c->skipping && !d->to_lane(c))
		return;
	conn_update(c);
}

void conn_resume(struct conn *c)
{
	if (event_ctl(&c->d->loop, EPOLL_CTL_ADD, c->fd, &c->w, EPOLLIN) || c->out.oom) {
		conn_close(c);
		return;
	}
	c->events = EPOLLIN;
	c->lane_fit = 0;
	conn_account(c);
	conn_flush(c);
	if (!c->dead)
		conn_process(c);
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
	c->line_since = 0;
}

ssize_t conn_recv(struct conn *c, size_t room, size_t *asked)
{
	ssize_t n;

	if (buf_reserve(&c->in, room)) {
		errno = ENOMEM;
		return -1;
	}
	*asked = c->in.cap - c->in.len - 1;
	do
		n = recv(c->fd, c->in.p + c->in.len, *asked, 0);
	while (n < 0 && errno == EINTR);
	if (n > 0)
		c->in.len += (size_t)n;
	return n;
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
		n = conn_recv(c, c->in.len - c->in_off > READ_CHUNK ? 4 * READ_CHUNK : READ_CHUNK / 4,
			      &want);
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
		if (c->skipping)
			skip_read(c, (size_t)n);
		if ((size_t)n < want)
			break; /* drained: spare the recv that would say EAGAIN */
	}
	conn_account(c);
	if (wfs_budget_used(&c->d->mem) > c->d->mem.limit - SMALL_ANSWER)
		enforce_budget(c->d);
	conn_process(c);
}

static void conn_event(struct watch *w, unsigned ev)
{
	struct conn *c = w->data;

	if (c->dead || c->lane) /* a lane's since this batch began */
		return;
	if (ev & EPOLLOUT) {
		conn_flush(c);
		if (c->dead)
			return;
		conn_process(c);
	}
	/* A hang-up: take what the peer sent before it went, then close;
	 * a request already running still completes, unanswered. */
	if (!c->dead && !c->lane && (ev & (EPOLLIN | EPOLLHUP)) && !(ev & EPOLLERR))
		conn_read(c);
	if (!c->dead && !c->lane && (ev & (EPOLLHUP | EPOLLERR)))
		conn_close(c);
}

/* At --max-conns: the oldest connection that never sent a request
 * past the token check, has nothing in flight and is past a grace
 * period, is closed for the new one. Returns 0 when none qualifies. */
static int make_room(struct daemon *d)
{
	long long now = wfs_now_ms();
	struct conn *c, *old = NULL;

	for (c = d->conns; c; c = c->next)
		if (!c->lane && !c->authed && !c->job && c->out_off == c->out.len &&
		    now - c->opened_ms >= IDLE_GRACE_MS &&
		    (!old || c->opened_ms < old->opened_ms))
			old = c;
	if (!old)
		return 0;
	daemon_log("connection closed for a new one: %d connections open "
		   "(--max-conns), and it sent no valid request in %lld ms",
		   d->nconns, now - old->opened_ms);
	conn_refuse(old, "connection closed: the daemon is at its --max-conns "
			 "limit and this connection sent no valid request");
	return 1;
}

void conn_accept(struct watch *w, unsigned events)
{
	struct listener *l = (struct listener *)((char *)w - offsetof(struct listener, w));
	struct daemon *d = w->data;

	(void)events;
	if (d->stopping)
		return;
	for (;;) {
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);
		int fd = accept4(l->fd, (struct sockaddr *)&ss, &sl,
				 SOCK_NONBLOCK | SOCK_CLOEXEC),
		    one = 1;
		struct conn *c;
		unsigned k;

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno == EMFILE || errno == ENFILE ||
			    errno == ENOBUFS || errno == ENOMEM) {
				int i;
				daemon_log("accept: %s: pausing new connections for 100 ms",
					   strerror(errno));
				for (i = 0; i < d->nlis; i++)
					event_ctl(&d->loop, EPOLL_CTL_DEL, d->lis[i].fd, NULL, 0);
				d->accept_timer.at = wfs_now_ms() + 100;
			}
			return;
		}
		if (!l->is_unix && d->o->nallow &&
		    !netaddr_cidr_match(d->o->allow, d->o->nallow, (struct sockaddr *)&ss)) {
			if ((k = daemon_log_rate(&d->flood))) {
				char who[80];
				netaddr_format((struct sockaddr *)&ss, who, sizeof(who));
				daemon_log("connection from %s refused: not in --allow-from%s",
					   who, k > 1 ? " (and more since)" : "");
			}
			close(fd);
			continue;
		}
		if (d->nconns >= d->o->max_conns && !make_room(d)) {
			daemon_log("connection refused: %d connections open (--max-conns)",
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
		c->opened_ms = wfs_now_ms();
		c->w = (struct watch){conn_event, c};
		c->events = EPOLLIN;
		buf_init(&c->in);
		buf_init(&c->out);
		if (event_ctl(&d->loop, EPOLL_CTL_ADD, fd, &c->w, EPOLLIN)) {
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
			daemon_log("connection accepted (%s)", l->is_unix ? "unix" : "tcp");
	}
}

void conn_accept_resume(struct timer *t, long long now)
{
	struct daemon *d = t->data;
	int i;

	(void)now;
	t->at = 0;
	for (i = 0; i < d->nlis; i++)
		event_ctl(&d->loop, EPOLL_CTL_ADD, d->lis[i].fd, &d->lis[i].w, EPOLLIN);
}

void conn_pool_done(struct watch *w, unsigned events)
{
	struct daemon *d = w->data;
	struct job *j, *next;
	uint64_t n;

	(void)events;
	if (read(d->wake_fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		daemon_log("eventfd: %s", strerror(errno));
	for (j = pool_take_done(d->pool); j; j = next) {
		next = j->next;
		if (j->parsed)
			conn_parsed(d, j);
		else
			job_complete(d, j);
	}
}
