/* bg.c - processes that outlive their request: the native ops exec with
 * "stream", start, list, output, attach, input, signal, wait and kill.
 *
 * A process lives until it exits and is killed or evicted, whatever
 * becomes of the connection that started it, and dies with the daemon.
 * Its output is read as it comes into a ring per stream that keeps the
 * first RING_HEAD bytes and the last RING_TAIL, counting the rest; the
 * jobs that follow it (attach, a streamed exec) get each chunk as an
 * event line. When a follower's connection is more than STREAM_HIGH
 * bytes behind, the pipes are left unread, so the command blocks on a
 * full pipe instead of the daemon buffering without end; the
 * connection's drained handler resumes them. A process on a terminal
 * ("pty") has one stream, stdout, the terminal's output; its input goes
 * to the terminal, and its end of input is the terminal's EOF (^D).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base64.h"
#include "confine.h"
#include "daemon_int.h"
#include "json.h"
#include "utf8.h"

#define RING_HEAD (8u << 10)
#define RING_TAIL (56u << 10)

struct bg_ring {
	char *head, *tail; /* allocated at their first byte */
	int no_tail;       /* the budget had no room: the rest is counted */
	unsigned long long total;
};

struct bg {
	struct daemon *d;
	struct bg *next, *prev;
	unsigned handle;
	pid_t pid;
	char *tag, *command, *session;
	char *log; /* detached: where its output goes ("/dev/null": nowhere) */
	struct exec_proc proc;
	struct watch w[EXEC_NFDS], in_w;
	struct bg_ring ring[2]; /* stdout, stderr */
	char carry[2][4];       /* a character's first bytes, not yet sent */
	unsigned char ncarry[2];
	size_t held; /* the rings' bytes in the budget */
	int running, paused, forget, pty;
	int fg; /* a streamed exec whose client still follows: gone at exit */
	int exit_code, signal, timed_out;
	struct job *followers; /* attach, streamed exec, wait */
	struct job *input;     /* an input being written */
};

static const char *const stream_names[2] = {"stdout", "stderr"};

static char *ring_alloc(struct bg *b, size_t n, int need_room)
{
	struct wfs_budget *m = &b->d->mem;
	char *p;

	if (need_room && wfs_budget_used(m) + n > m->bulk)
		return NULL;
	if ((p = malloc(n))) {
		wfs_budget_add(m, n);
		b->held += n;
	}
	return p;
}

static void ring_put(struct bg *b, struct bg_ring *r, const char *s, size_t n)
{
	while (n) {
		size_t k, pos;
		char *dst;

		if (r->total < RING_HEAD) {
			if (!r->head && !(r->head = ring_alloc(b, RING_HEAD, 0)))
				break;
			pos = (size_t)r->total;
			dst = r->head;
			k = RING_HEAD - pos;
		} else {
			if (!r->tail && !r->no_tail && !(r->tail = ring_alloc(b, RING_TAIL, 1)))
				r->no_tail = 1;
			if (r->no_tail)
				break;
			pos = (size_t)((r->total - RING_HEAD) % RING_TAIL);
			dst = r->tail;
			k = RING_TAIL - pos;
		}
		k = k < n ? k : n;
		memcpy(dst + pos, s, k);
		r->total += k;
		s += k;
		n -= k;
	}
	r->total += n; /* what no buffer kept */
}

/* The bytes kept from *off on, in one piece; *off moves past what was
 * dropped. 0 at the end. */
static size_t ring_get(const struct bg_ring *r, unsigned long long *off, const char **p)
{
	unsigned long long lo, t = r->total;
	size_t pos;

	if (*off < RING_HEAD && *off < t && r->head) {
		*p = r->head + *off;
		return (size_t)((t < RING_HEAD ? t : RING_HEAD) - *off);
	}
	lo = !r->tail ? t : (t > RING_HEAD + RING_TAIL ? t - RING_TAIL : RING_HEAD);
	if (*off < lo)
		*off = lo;
	if (*off >= t)
		return 0;
	pos = (size_t)((*off - RING_HEAD) % RING_TAIL);
	*p = r->tail + pos;
	return (size_t)(t - *off < RING_TAIL - pos ? t - *off : RING_TAIL - pos);
}

/* Bytes as a JSON string, or base64 with "encoding" when not UTF-8. */
static void put_data(struct buf *o, const char *key, const char *s, size_t n)
{
	int text = utf8_valid(s, n);

	if (!text)
		buf_printf(o, ",\"%s%sencoding\":\"base64\"", key, *key ? "_" : "");
	buf_printf(o, ",\"%s\":", *key ? key : "data");
	if (text) {
		json_str(o, s, n);
	} else {
		buf_putc(o, '"');
		base64_encode(o, (const unsigned char *)s, n);
		buf_putc(o, '"');
	}
}

static void put_status(struct buf *o, const struct bg *b)
{
	buf_printf(o, "\"handle\":%u,\"pid\":%d,\"running\":", b->handle, (int)b->pid);
	json_bool(o, b->running);
	if (b->tag) {
		buf_puts(o, ",\"tag\":");
		json_cstr(o, b->tag);
	}
	buf_puts(o, ",\"command\":");
	json_cstr(o, b->command);
	if (b->pty)
		buf_puts(o, ",\"pty\":true");
	if (b->log) {
		buf_puts(o, ",\"detached\":true,\"log\":");
		json_cstr(o, b->log);
	}
	if (!b->running) {
		buf_printf(o, ",\"exit_code\":%d,\"signal\":%d,\"timed_out\":", b->exit_code,
			   b->signal);
		json_bool(o, b->timed_out);
		if (b->timed_out == EXEC_IDLE)
			buf_puts(o, ",\"idle\":true");
	}
	buf_printf(o, ",\"stdout_bytes\":%llu,\"stderr_bytes\":%llu", b->ring[0].total,
		   b->ring[1].total);
}

/* {"id":ID, then the caller's fields. */
static void line_begin(struct buf *o, const struct job *j)
{
	buf_puts(o, "{\"id\":");
	json_str(o, j->id, j->id_len);
}

/* j's answer {"id","ok":true,"data":{status, more}}: it is done. */
static void answer_status(struct job *j, const struct bg *b, const char *more)
{
	buf_reset(&j->resp);
	line_begin(&j->resp, j);
	buf_puts(&j->resp, ",\"ok\":true,\"data\":{");
	put_status(&j->resp, b);
	buf_printf(&j->resp, "%s}}\n", more);
	j->mode = JOB_DONE;
}

/* An event line for a follower: {"id","event":NAME,body}. 1 when its
 * reader is behind. */
static int emit(struct job *j, const char *name, const struct buf *body)
{
	struct buf o;
	int behind;

	buf_init(&o);
	line_begin(&o, j);
	buf_printf(&o, ",\"event\":\"%s\"", name);
	buf_add(&o, body->p, body->len);
	buf_puts(&o, "}\n");
	behind = o.oom ? 0 : j->emit(j, o.p, o.len);
	buf_free(&o);
	return behind;
}

static int emit_chunk(struct job *j, int stream, unsigned long long off, const char *s,
		      size_t n)
{
	struct buf body;
	int behind;

	buf_init(&body);
	buf_printf(&body, ",\"offset\":%llu", off);
	put_data(&body, "", s, n);
	behind = emit(j, stream_names[stream], &body);
	buf_free(&body);
	return behind;
}

static void unfollow(struct bg *b, struct job *j)
{
	struct job **pp;

	for (pp = &b->followers; *pp; pp = &(*pp)->bg_next)
		if (*pp == j) {
			*pp = j->bg_next;
			break;
		}
	if (j->proc_op == PROC_EXEC)
		b->fg = 0;
	j->bg = NULL;
}

static void pipes_watch(struct bg *b, int op)
{
	int i;

	for (i = EXEC_OUT; i <= EXEC_ERR; i++)
		if (b->proc.fd[i] >= 0)
			event_ctl(&b->d->loop, op, b->proc.fd[i], &b->w[i], EPOLLIN);
}

static void resume(struct bg *b)
{
	if (!b->paused)
		return;
	b->paused = 0;
	/* blocked by our reader, it was not silent: the idle clock restarts */
	if (b->proc.idle_ms)
		b->proc.idle_at = wfs_now_ms() + b->proc.idle_ms;
	pipes_watch(b, EPOLL_CTL_ADD);
}

/* The length of s without a UTF-8 sequence cut short at its end. */
static size_t whole_chars(const char *s, size_t n)
{
	size_t i = n, len;
	unsigned char c;

	while (i && n - i < 3 && ((unsigned char)s[i - 1] & 0xC0) == 0x80)
		i--;
	if (!i || (c = (unsigned char)s[i - 1]) < 0xC0)
		return n;
	len = c >= 0xF0 ? 4 : (c >= 0xE0 ? 3 : 2);
	return n - (i - 1) < len ? i - 1 : n;
}

/* A chunk to every follower but the waits; 1 when one is behind. */
static int emit_all(struct bg *b, int stream, unsigned long long off, const char *s,
		    size_t n)
{
	struct job *j, *next;
	int behind = 0;

	for (j = b->followers; j; j = next) {
		next = j->bg_next;
		if (j->proc_op != PROC_WAIT)
			behind |= emit_chunk(j, stream, off, s, n);
	}
	return behind;
}

/* exec.c's sink: keep the chunk, pass it on, and stop reading while a
 * follower is behind. */
static int bg_sink(struct exec_proc *p, int stream, const char *s, size_t n)
{
	struct bg *b = p->owner;
	size_t held = b->ncarry[stream], whole;
	unsigned long long off = b->ring[stream].total - held;
	int behind = 0;
	struct buf c;

	ring_put(b, &b->ring[stream], s, n);
	/* A character cut at the chunk's end waits for its other bytes, so
	 * text stays text: the events begin with what was held back. */
	buf_init(&c);
	if (held) {
		buf_add(&c, b->carry[stream], held);
		buf_add(&c, s, n);
		if (!c.oom)
			s = c.p, n = c.len;
	}
	whole = whole_chars(s, n);
	b->ncarry[stream] = (unsigned char)(n - whole);
	memcpy(b->carry[stream], s + whole, n - whole);
	if (whole)
		behind = emit_all(b, stream, off, s, whole);
	buf_free(&c);
	if (behind && !b->paused) {
		b->paused = 1;
		b->proc.idle_at = 0;
		pipes_watch(b, EPOLL_CTL_DEL);
	}
	return b->paused;
}

static void bg_before_close(struct exec_proc *p, int i)
{
	struct bg *b = p->owner;

	event_ctl(&b->d->loop, EPOLL_CTL_DEL, p->fd[i], NULL, 0);
}

static void remove_bg(struct bg *b)
{
	struct daemon *d = b->d;

	if (b->prev)
		b->prev->next = b->next;
	else
		d->bgs = b->next;
	if (b->next)
		b->next->prev = b->prev;
	d->nbg--;
	b->next = d->dead_bgs;
	d->dead_bgs = b;
}

static void input_done(struct bg *b, const char *error)
{
	struct job *j = b->input;
	char more[64];

	if (b->proc.in_fd >= 0)
		event_ctl(&b->d->loop, EPOLL_CTL_DEL, b->proc.in_fd, NULL, 0);
	b->input = NULL;
	j->bg = NULL;
	if (error) {
		answer_fail(j, 1, error);
	} else {
		snprintf(more, sizeof(more), ",\"written\":%zu", j->in_done);
		answer_status(j, b, more);
	}
	job_complete(b->d, j);
}

static void exit_answer(struct job *j, struct bg *b)
{
	struct buf *o = &j->resp;

	if (j->proc_op == PROC_WAIT)
		return answer_status(j, b, "");
	buf_reset(o);
	line_begin(o, j);
	buf_printf(o, ",\"event\":\"exit\",\"handle\":%u,\"exit_code\":%d,\"signal\":%d,"
		      "\"timed_out\":",
		   b->handle, b->exit_code, b->signal);
	json_bool(o, b->timed_out);
	if (b->timed_out == EXEC_IDLE)
		buf_puts(o, ",\"idle\":true");
	buf_printf(o, ",\"stdout_bytes\":%llu,\"stderr_bytes\":%llu}\n", b->ring[0].total,
		   b->ring[1].total);
	j->mode = JOB_DONE;
}

/* The command exited and its pipes are closed: answer its followers. */
static void finished(struct bg *b)
{
	struct wfs_exec_result res;
	struct job *j;
	int s;

	exec_finish(&b->proc, &res);
	buf_free(&res.out);
	buf_free(&res.err);
	b->running = 0;
	b->d->nbg_running--;
	b->exit_code = res.exit_code;
	b->signal = res.signal;
	b->timed_out = res.timed_out;
	if (b->session)
		session_collect(b->d, b->session);
	for (s = 0; s < 2; s++)
		if (b->ncarry[s])
			emit_all(b, s, b->ring[s].total - b->ncarry[s], b->carry[s], b->ncarry[s]);
	b->ncarry[0] = b->ncarry[1] = 0;
	/* Settled before any answer: each lets its connection go on with
	 * its next request, which may name this process. */
	if (b->fg || b->forget)
		remove_bg(b);
	if (b->input)
		input_done(b, "input: the process exited");
	while ((j = b->followers)) {
		unfollow(b, j);
		exit_answer(j, b);
		job_complete(b->d, j);
	}
}

static void bg_event(struct watch *w, unsigned events)
{
	struct bg *b = w->data;

	(void)events;
	if (!b->running)
		return;
	exec_io(&b->proc, (int)(w - b->w));
	if (exec_done(&b->proc))
		finished(b);
}

static void schedule(struct bg *b)
{
	struct daemon *d = b->d;

	d->bg_timer.at = earliest(d->bg_timer.at, exec_tick(&b->proc, wfs_now_ms()));
	if (b->running && exec_done(&b->proc))
		d->bg_timer.at = wfs_now_ms();
}

/* Write what the input job holds while the pipe takes it. */
static void input_write(struct bg *b)
{
	struct job *j = b->input;
	const struct json_val *eof = json_get(j->req, "eof");

	while (j->in_done < j->in_len) {
		ssize_t n = write(b->proc.in_fd, j->in + j->in_done, j->in_len - j->in_done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			event_ctl(&b->d->loop, EPOLL_CTL_ADD, b->proc.in_fd, &b->in_w, EPOLLOUT);
			return;
		}
		if (n < 0)
			return input_done(b, "input: the process closed its stdin");
		j->in_done += (size_t)n;
	}
	if (eof && eof->type == JSON_BOOL && eof->boolean && b->pty) {
		/* a terminal's end of input is a character, at a line's start */
		if (write(b->proc.in_fd, "\4", 1) != 1)
			return input_done(b, "input: the terminal does not take input");
	} else if (eof && eof->type == JSON_BOOL && eof->boolean) {
		event_ctl(&b->d->loop, EPOLL_CTL_DEL, b->proc.in_fd, NULL, 0);
		close(b->proc.in_fd);
		b->proc.in_fd = -1;
	}
	input_done(b, NULL);
}

static void bg_input_event(struct watch *w, unsigned events)
{
	struct bg *b = w->data;

	(void)events;
	if (b->input)
		input_write(b);
}

/* conn.c calls this when a follower's connection caught up or closed. */
static void bg_drained(struct job *j)
{
	struct bg *b = j->bg;

	if (!b)
		return;
	if (j->conn && j->conn->dead) {
		if (b->input == j)
			return input_done(b, "client gone");
		unfollow(b, j);
		answer_fail(j, 1, "client gone");
		job_complete(b->d, j);
	}
	resume(b);
}

static void follow(struct bg *b, struct job *j)
{
	j->bg = b;
	j->bg_next = b->followers;
	b->followers = j;
	j->drained = bg_drained;
}

/* "detach": the log ("log", a path beneath the root, appended to and
 * made 0644 when new; else /dev/null) opened as j->exec.out_fd: 0, or -1
 * with why in err. */
static int open_log(struct job *j, const char **log, char *err,
		    size_t errlen)
{
	const struct json_val *l = json_get(j->req, "log");
	const int fl = O_WRONLY | O_APPEND | O_CLOEXEC;
	char why[400] = "", eb[128];
	int fd, made = 1;

	if (l && l->type != JSON_STR) {
		snprintf(err, errlen, "start: field \"log\" must be a path");
		return -1;
	}
	if (j->exec.pty || j->proc_op != PROC_START) {
		snprintf(err, errlen, "%s: a detached process has no terminal and is not streamed",
			 j->proc_op == PROC_START ? "start" : "exec");
		return -1;
	}
	*log = l && *l->str ? l->str : "/dev/null";
	if (!l || !*l->str)
		fd = open(*log, fl);
	else if ((fd = j->root ? confine_open(j->root, -1, *log, fl | O_CREAT | O_EXCL, why, sizeof(why))
			       : open(*log, fl | O_CREAT | O_EXCL, 0644)) < 0 &&
		 errno == EEXIST) {
		made = 0;
		fd = j->root ? confine_open(j->root, -1, *log, fl, why, sizeof(why)) : open(*log, fl);
	}
	if (fd < 0) {
		snprintf(err, errlen, "start: log %.150s: %s", *log,
			 why[0] ? why : wfs_strerror(errno, eb, sizeof(eb)));
		return -1;
	}
	if (made && l && j->root)
		fchmod(fd, 0644); /* made beneath the root with no mode */
	j->exec.out_fd = fd;
	return 0;
}

static void start(struct daemon *d, struct job *j)
{
	const struct json_val *tag = json_get(j->req, "tag"), *det = json_get(j->req, "detach");
	const char *log = NULL;
	struct bg *b, *old = NULL;
	char err[600];
	struct buf body;
	int i;

	if (det && det->type == JSON_BOOL && det->boolean && open_log(j, &log, err, sizeof(err)))
		return answer_fail(j, 1, err);

	if (d->nbg_running >= d->o->max_background) {
		snprintf(err, sizeof(err), "%s: %d processes are running, the daemon's limit "
					   "(--max-background %d)",
			 j->proc_op == PROC_EXEC ? "exec" : "start", d->nbg_running,
			 d->o->max_background);
		return answer_fail(j, 1, err);
	}
	/* at the limit, the oldest that exited makes room */
	for (b = d->bgs; b && d->nbg >= d->o->max_background; b = b->next)
		if (!b->running)
			old = b;
	if (old)
		remove_bg(old);
	if (!(b = calloc(1, sizeof(*b))))
		return answer_fail(j, 1, "out of memory");
	b->d = d;
	/* a session's command is shown without the line that wraps it */
	b->command = strdup(j->session ? strchr(j->exec.command, '\n') + 1 : j->exec.command);
	/* its state is read when it ends, not when this request is answered */
	if (j->session && !(b->session = strdup(j->session))) {
		free(b->command);
		b->command = NULL;
	}
	j->session = NULL;
	if (tag && tag->type == JSON_STR)
		b->tag = strdup(tag->str);
	if (log && !(b->log = strdup(log))) {
		free(b->command);
		b->command = NULL;
	}
	i = !b->command || exec_start(&b->proc, &j->exec, err, sizeof(err));
	if (j->exec.out_fd > 0)
		close(j->exec.out_fd); /* the process has its own */
	j->exec.out_fd = 0;
	if (i) {
		answer_fail(j, 1, b->command ? err : "out of memory");
		free(b->command);
		free(b->session);
		free(b->tag);
		free(b->log);
		free(b);
		return;
	}
	b->handle = ++d->bg_seq;
	b->pid = b->proc.pid;
	b->pty = j->exec.pty;
	b->proc.owner = b;
	b->proc.sink = bg_sink;
	b->proc.before_close = bg_before_close;
	b->running = 1;
	for (i = 0; i < EXEC_NFDS; i++) {
		b->w[i] = (struct watch){bg_event, b};
		if (b->proc.fd[i] >= 0)
			event_ctl(&d->loop, EPOLL_CTL_ADD, b->proc.fd[i], &b->w[i], EPOLLIN);
	}
	b->in_w = (struct watch){bg_input_event, b};
	b->next = d->bgs;
	if (d->bgs)
		d->bgs->prev = b;
	d->bgs = b;
	d->nbg++;
	d->nbg_running++;
	schedule(b);
	if (d->o->verbose)
		daemon_log("id=%s started process %u, pid %d: %.200s", j->id, b->handle,
			   (int)b->pid, b->command);
	if (j->proc_op == PROC_START)
		return answer_status(j, b, "");
	b->fg = 1;
	buf_init(&body);
	buf_printf(&body, ",\"handle\":%u,\"pid\":%d", b->handle, (int)b->pid);
	emit(j, "start", &body);
	buf_free(&body);
	follow(b, j);
}

static struct bg *find(struct daemon *d, struct job *j)
{
	const struct json_val *h = json_get(j->req, "handle"), *t = json_get(j->req, "tag");
	struct bg *b;

	for (b = d->bgs; b; b = b->next)
		if ((h && h->type == JSON_NUM && h->num == b->handle) ||
		    (!h && t && t->type == JSON_STR && b->tag && !strcmp(t->str, b->tag)))
			return b;
	answer_fail(j, 1, h || t ? "no such process (its \"handle\" or \"tag\")" : "give the process's \"handle\" or \"tag\"");
	return NULL;
}

static unsigned long long offset_of(const struct job *j, const char *key)
{
	const struct json_val *v = json_get(j->req, key);

	return v && v->type == JSON_NUM && v->num > 0 ? (unsigned long long)v->num : 0;
}

static const char *const offset_keys[2] = {"offset", "stderr_offset"};

/* The output kept from the asked offsets, each stream in one string up
 * to the first gap (asking again from its end skips the gap). */
static void output(struct job *j, struct bg *b)
{
	struct buf more, all;
	int s;

	buf_init(&more);
	buf_init(&all);
	for (s = 0; s < 2; s++) {
		unsigned long long off = offset_of(j, offset_keys[s]), first;
		const char *p;
		size_t n;

		buf_reset(&all);
		n = ring_get(&b->ring[s], &off, &p);
		first = off;
		while (n) { /* up to a gap: the answer is one run of bytes */
			unsigned long long want = off + n;
			buf_add(&all, p, n);
			off = want;
			if ((n = ring_get(&b->ring[s], &off, &p)) && off != want)
				break;
		}
		put_data(&more, stream_names[s], all.p ? all.p : "", all.len);
		buf_printf(&more, ",\"%s_offset\":%llu", stream_names[s], first);
	}
	answer_status(j, b, more.p ? more.p : "");
	buf_free(&more);
	buf_free(&all);
}

/* What is kept from the offsets, then the rest as it comes. */
static void attach(struct job *j, struct bg *b)
{
	int s;

	for (s = 0; s < 2; s++) {
		unsigned long long off = offset_of(j, offset_keys[s]);
		const char *p;
		size_t n;

		/* what is held back comes with the next chunk */
		unsigned long long end = b->ring[s].total - b->ncarry[s];

		while ((n = ring_get(&b->ring[s], &off, &p)) && off < end) {
			n = n > end - off ? (size_t)(end - off) : n;
			emit_chunk(j, s, off, p, n);
			off += n;
		}
	}
	if (!b->running)
		return exit_answer(j, b);
	follow(b, j);
}

static int signal_of(const struct json_val *v)
{
	static const char *const names[] = {"HUP", "INT", "QUIT", "KILL", "TERM", "STOP", "CONT"};
	static const int nums[] = {SIGHUP, SIGINT, SIGQUIT, SIGKILL, SIGTERM, SIGSTOP, SIGCONT};
	unsigned i;

	for (i = 0; v && i < sizeof(nums) / sizeof(nums[0]); i++)
		if ((v->type == JSON_NUM && v->num == nums[i]) ||
		    (v->type == JSON_STR && (!strcmp(v->str, names[i]) ||
					     (!strncmp(v->str, "SIG", 3) && !strcmp(v->str + 3, names[i])))))
			return nums[i];
	return 0;
}

static void list(struct daemon *d, struct job *j)
{
	struct buf *o = &j->resp;
	struct bg *b;

	buf_reset(o);
	line_begin(o, j);
	buf_printf(o, ",\"ok\":true,\"data\":{\"running\":%d,\"limit\":%d,\"processes\":[",
		   d->nbg_running, d->o->max_background);
	for (b = d->bgs; b; b = b->next) {
		buf_putc(o, '{');
		put_status(o, b);
		buf_puts(o, b->next ? "}," : "}");
	}
	buf_puts(o, "]}}\n");
	j->mode = JOB_DONE;
}

static void input(struct daemon *d, struct job *j, struct bg *b)
{
	if (b->proc.in_fd < 0 || !b->running)
		answer_fail(j, 1, "input: the process's stdin is closed (or was "
				  "given as \"stdin\" at start)");
	else if (b->input)
		answer_fail(j, 1, "input: another input is being written");
	if (j->mode == JOB_DONE)
		return job_complete(d, j);
	b->input = j;
	j->bg = b;
	j->drained = bg_drained;
	input_write(b);
}

static void act(struct daemon *d, struct job *j, struct bg *b)
{
	int sig;

	switch (j->proc_op) {
	case PROC_OUTPUT:
		return output(j, b);
	case PROC_ATTACH:
		return attach(j, b);
	case PROC_WAIT:
		if (!b->running)
			return answer_status(j, b, "");
		follow(b, j);
		d->bg_timer.at = earliest(d->bg_timer.at, j->deadline_ms);
		return;
	case PROC_SIGNAL:
		if (!(sig = signal_of(json_get(j->req, "signal"))))
			return answer_fail(j, 1, "signal: give one of TERM, INT, HUP, QUIT, "
						 "KILL, STOP, CONT (or its number)");
		if (!b->running)
			return answer_fail(j, 1, "signal: the process has exited");
		if (sig == SIGKILL)
			exec_kill(&b->proc, wfs_now_ms());
		else
			kill(-b->pid, sig);
		schedule(b);
		return answer_status(j, b, "");
	case PROC_RESIZE: {
		const struct json_val *r = json_get(j->req, "rows"), *c = json_get(j->req, "cols");
		if (!b->pty)
			return answer_fail(j, 1, "resize: the process has no terminal (start it "
						 "with \"pty\")");
		if (!r || !c || r->type != JSON_NUM || c->type != JSON_NUM || r->num < 1 ||
		    c->num < 1 || r->num > 9999 || c->num > 9999)
			return answer_fail(j, 1, "resize: give \"rows\" and \"cols\", each 1 to 9999");
		if (!b->running || exec_resize(&b->proc, (unsigned short)r->num,
					       (unsigned short)c->num))
			return answer_fail(j, 1, "resize: the process has exited");
		return answer_status(j, b, "");
	}
	default: /* PROC_KILL: it goes once it has exited */
		if (!b->running) {
			answer_status(j, b, "");
			return remove_bg(b);
		}
		b->forget = 1;
		exec_kill(&b->proc, wfs_now_ms());
		schedule(b);
		return answer_status(j, b, "");
	}
}

void bg_run(struct daemon *d, struct job *j)
{
	struct bg *b;

	if (j->proc_op <= PROC_START)
		start(d, j);
	else if (j->proc_op == PROC_LIST)
		list(d, j);
	else if ((b = find(d, j)) && j->proc_op == PROC_INPUT)
		return input(d, j, b); /* it completes the job itself */
	else if (b)
		act(d, j, b);
	if (!j->bg)
		job_complete(d, j);
}

void bg_tick(struct timer *t, long long now)
{
	struct daemon *d = t->data;
	struct bg *b, *next;
	struct job *j, *jn;
	long long at = 0;

	t->at = 0;
	for (b = d->bgs; b; b = next) {
		next = b->next;
		for (j = b->followers; j; j = jn) {
			jn = j->bg_next;
			if (j->proc_op != PROC_WAIT)
				continue;
			if (now < j->deadline_ms) {
				at = earliest(at, j->deadline_ms);
				continue;
			}
			unfollow(b, j);
			answer_status(j, b, "");
			job_complete(d, j);
		}
		if (!b->running)
			continue;
		at = earliest(at, exec_tick(&b->proc, now));
		if (exec_done(&b->proc))
			finished(b);
	}
	t->at = earliest(t->at, at);
}

void bg_stop_all(struct daemon *d, int now)
{
	struct bg *b;
	struct job *j;

	while (now && (b = d->bgs)) {
		if (b->running && b->log)
			exec_release(&b->proc); /* detached: it goes on */
		else if (b->running)
			exec_abort(&b->proc);
		while ((j = b->followers)) {
			b->followers = j->bg_next;
			job_free(j);
		}
		if (b->input)
			job_free(b->input);
		remove_bg(b);
	}
	for (b = d->bgs; b; b = b->next)
		if (b->running && !b->log) {
			exec_kill(&b->proc, wfs_now_ms());
			schedule(b);
		}
}

int bg_owns(struct daemon *d, pid_t pid)
{
	struct bg *b;

	for (b = d->bgs; b; b = b->next)
		if (b->running && b->proc.pid == pid)
			return 1;
	return 0;
}

void bg_free_dead(struct daemon *d)
{
	struct bg *b;
	int s;

	while ((b = d->dead_bgs)) {
		d->dead_bgs = b->next;
		for (s = 0; s < 2; s++) {
			free(b->ring[s].head);
			free(b->ring[s].tail);
		}
		wfs_budget_sub(&d->mem, b->held);
		free(b->tag);
		free(b->log);
		free(b->command);
		free(b->session);
		free(b);
	}
}
