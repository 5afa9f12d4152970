/* answer.c - the answers of the daemon's requests: the applet run in
 * process, a finished command, errors; every line through lib/reply.c,
 * under the host's line limit (include/reply.h).
 *
 * Legacy requests are answered {"id","stdout","stderr","exit_code",
 * "error"?} as the Go daemon does, with the applet's envelope as stdout
 * on the fast path; native ones with the applet's envelope, the id
 * spliced in front.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "daemon_int.h"
#include "json.h"
#include "reply.h"

static void resp_begin(struct job *j)
{
	buf_reset(&j->resp);
	buf_puts(&j->resp, "{\"id\":");
	json_str(&j->resp, j->id, j->id_len);
	j->mode = JOB_DONE;
}

/* A legacy line: a command's streams, cut to fit one response line. */
static void resp_run(struct job *j, const struct reply_run *run,
		     const char *error, size_t max)
{
	buf_reset(&j->resp);
	reply_legacy(&j->resp, j->id, j->id_len, run, error, max);
	j->mode = JOB_DONE;
}

void answer_legacy(struct job *j, const char *out, size_t out_len,
		   const char *err, size_t err_len, int code, const char *error)
{
	struct reply_run run = {out, err, out_len, err_len, code, 0, 0, 0};

	resp_run(j, &run, error, REPLY_LINE_MAX);
}

/* An applet's answer too big for one response line (a 12 MB file read in
 * one piece): an error envelope that says how to ask for less. */
static void too_big(const struct job *j, size_t size, struct buf *b)
{
	buf_reset(b);
	reply_too_big(b, j->applet ? j->applet->name : "wickfs", size);
}

/* The fast path's legacy line: the envelope is stdout, escaped once more.
 * An envelope cut short would not parse: too big, it becomes an error. */
static void answer_legacy_env(struct job *j, const char *env, size_t len,
			      const char *err, size_t err_len, int code,
			      const char *error)
{
	size_t room = REPLY_LINE_MAX - reply_legacy_overhead(j->id, j->id_len, error);
	struct buf big;

	if ((len + err_len) * 6 < room ||
	    json_str_size(env, len, room, NULL) +
			    json_str_size(err, err_len, room, NULL) <
		    room)
		return answer_legacy(j, env, len, err, err_len, code, error);
	buf_init(&big);
	too_big(j, len, &big);
	answer_legacy(j, big.p ? big.p : "", big.len, "", 0, 1, error);
	buf_free(&big);
}

/* The applet's envelope with the id spliced in front. */
static void resp_native(struct job *j, const char *env, size_t len)
{
	struct buf *b = &j->resp;

	if (len + json_str_size(j->id, j->id_len, SIZE_MAX, NULL) + 8 >=
	    REPLY_LINE_MAX) {
		struct buf big;
		buf_init(&big);
		too_big(j, len, &big);
		resp_native(j, big.p ? big.p : "", big.len);
		buf_free(&big);
		return;
	}
	resp_begin(j);
	if (len >= 2 && env[0] == '{' && env[len - 1] == '\n') {
		buf_putc(b, ',');
		buf_add(b, env + 1, len - 1);
		return;
	}
	/* Not an envelope (an applet's --help text): carry it as data. */
	buf_puts(b, ",\"ok\":true,\"data\":");
	json_str(b, env, len);
	buf_puts(b, "}\n");
}

void answer_fail(struct job *j, int code, const char *msg)
{
	if (j->native) {
		resp_begin(j);
		buf_puts(&j->resp, ",\"ok\":false,\"error\":");
		json_cstr(&j->resp, msg);
		buf_puts(&j->resp, "}\n");
	} else {
		answer_legacy(j, "", 0, "", 0, code, msg);
	}
}

void answer_invalid(struct job *j, const char *what)
{
	char msg[512];

	j->id = "";
	j->id_len = 0;
	j->native = 0;
	snprintf(msg, sizeof(msg), "invalid JSON: %s", what);
	answer_legacy(j, "", 0, "", 0, 0, msg);
}

void answer_over_budget(struct job *j, size_t size)
{
	const struct daemon *d = j->d;
	char msg[400];
	int code = 1;

	/* A command ran: its exit code stays, its output is gone. */
	if (!j->native && j->spawned)
		code = j->exit_code;
	snprintf(msg, sizeof(msg), "the answer (%zu bytes) is dropped: the "
				   "daemon's memory budget (--max-memory %zu) is held by answers "
				   "not yet read and requests in progress; %sretry, or ask for "
				   "less (read --bytes --offset N --limit N)",
		 size, d->mem.limit,
		 j->spawned ? "the command ran; " : "");
	answer_fail(j, code, msg);
}

static void timeout_msg(struct job *j, char *msg, size_t n)
{
	snprintf(msg, n, "command timed out after %llds", j->timeout_s);
}

/* exec's envelope sized for the line it goes out in: spliced after the id
 * (native), or escaped once more as the legacy stdout, where the budget
 * shrinks by the measured growth until it fits. */
static void exec_env_fit(const struct job *j, const struct reply_run *run,
			 struct buf *env, size_t line_max)
{
	size_t over = reply_legacy_overhead(j->id, j->id_len, NULL);
	size_t max = line_max - over, need;
	int tries;

	for (tries = 0; tries < 8; tries++) {
		buf_reset(env);
		reply_exec(env, run, max);
		if (j->native)
			return;
		need = json_str_size(env->p, env->len, SIZE_MAX, NULL) + over;
		if (need < line_max)
			return;
		max = (size_t)((double)max * (double)(line_max - over) /
			       (double)need) -
		      64;
	}
}

/* A command's line: cut to what the memory budget has room for, not
 * dropped once the command has run. */
static size_t command_line_max(const struct job *j)
{
	struct wfs_budget *b = &j->d->mem;
	size_t used = wfs_budget_used(b);
	size_t room = used < b->bulk ? b->bulk - used : 0;

	if (room < SMALL_ANSWER)
		room = SMALL_ANSWER;
	return room < REPLY_LINE_MAX ? room : REPLY_LINE_MAX;
}

/* An applet run in an overlay (request.c's overlay_applet): its envelope,
 * or why there is none. */
static void answer_overlay(struct job *j, const struct wfs_exec_result *res,
			   const char *spawn_error, const char *timeout, const char *shut)
{
	const struct buf *o, *e;
	char msg[600];

	if (spawn_error || res->timed_out || j->cancelled)
		return answer_fail(j, 1, spawn_error ? spawn_error : res->timed_out ? timeout
										    : shut);
	o = &res->out;
	e = &res->err;
	if (!res->out_truncated && o->len >= 2 && o->p[0] == '{' && o->p[o->len - 1] == '\n')
		return resp_native(j, o->p, o->len);
	snprintf(msg, sizeof(msg), "overlay %.100s: %s (exit code %d)%s%.*s", j->overlay,
		 res->out_truncated ? "the answer is larger than max_output"
				    : "the applet gave no answer",
		 res->exit_code, e->len ? ": " : "", (int)(e->len < 300 ? e->len : 300),
		 e->len ? e->p : "");
	answer_fail(j, 1, msg);
}

void answer_command(struct job *j, struct wfs_exec_result *res,
		    const char *spawn_error)
{
	size_t max = command_line_max(j);
	const char *shut = "daemon shutting down: command killed";
	struct buf env;
	char msg[128];

	struct reply_run run;

	timeout_msg(j, msg, sizeof(msg));
	if (j->mode == JOB_SHELL) {
		if (spawn_error)
			return answer_legacy(j, "", 0, "", 0, 1, spawn_error);
		run = reply_run_of(res);
		j->exit_code = res->exit_code;
		return resp_run(j, &run, res->timed_out ? msg : j->cancelled ? shut
									     : NULL,
				max);
	}
	if (j->own_envelope)
		return answer_overlay(j, res, spawn_error, msg, shut);
	/* JOB_EXEC_APPLET: what `wickfs exec CMD` would have printed. */
	buf_init(&env);
	if (spawn_error) {
		reply_error_line(&env, spawn_error);
	} else if (!j->native && (res->timed_out || j->cancelled)) {
		/* The request's timeout killed the whole `wickfs exec`. */
		buf_free(&env);
		return answer_legacy(j, "", 0, "", 0, res->timed_out ? 124 : -1,
				     res->timed_out ? msg : shut);
	} else {
		run = reply_run_of(res);
		exec_env_fit(j, &run, &env, max);
	}
	if (j->native)
		resp_native(j, env.p, env.len);
	else
		answer_legacy_env(j, env.p, env.len, "", 0, spawn_error ? 1 : 0, NULL);
	buf_free(&env);
}

int answer_applet(struct job *j, int cwd_fd, int private_cwd)
{
	struct buf *out = &j->out, err;
	struct wfs_ctx ctx;
	struct req r;
	int rc, again = 0;

	if (private_cwd && j->workdir && chdir(j->workdir)) {
		char msg[600], eb[128];
		snprintf(eb, sizeof(eb), "%s", strerror(errno));
		if (eb[0] >= 'A' && eb[0] <= 'Z')
			eb[0] = (char)(eb[0] - 'A' + 'a');
		snprintf(msg, sizeof(msg), "chdir %.400s: %s",
			 j->workdir ? j->workdir : ".", eb);
		answer_fail(j, 1, msg);
		return 0;
	}
	/* The job's, recycled with it: no malloc, realloc or free (and
	 * madvise) per small request. */
	buf_reset(&j->out);
	buf_init(&err);
	wfs_ctx_init_root(&ctx, &j->arena, j->root);
	ctx.set = &j->set;
	ctx.budget = &j->d->mem;
	ctx.readonly = j->d->o->readonly;
	ctx.readonly_exec = j->d->o->readonly_exec;
	ctx.mounts = j->d->o->mounts;
	ctx.deadline_ms = j->deadline_ms;
	/* set when the client goes away or the daemon stops */
	ctx.cancel = &j->abandon;
	if (j->probe)
		ctx.read_max = INLINE_MAX;
	req_init(&r, &j->arena, &ctx, out, &err);
	r.in = j->in ? j->in : "";
	r.in_len = j->in ? j->in_len : 0;
	rc = applet_run(j->applet, &r, j->argc, j->argv);
	j->budget_held += ctx.budget_held;
	if (ctx.too_big) {
		again = 1; /* nothing answered: a worker reads it */
		j->probe = 0;
	} else if (out->oom || err.oom) {
		answer_fail(j, 1, "out of memory");
	} else if (j->native) {
		resp_native(j, out->p ? out->p : "", out->len);
	} else {
		char msg[128] = "";
		if (rc && j->d->stopping)
			snprintf(msg, sizeof(msg), "daemon shutting down");
		else if (rc && wfs_now_ms() >= j->deadline_ms)
			timeout_msg(j, msg, sizeof(msg));
		answer_legacy_env(j, out->p ? out->p : "", out->len,
				  err.p ? err.p : "", err.len,
				  *msg && !j->d->stopping ? 124 : rc, msg);
	}
	buf_free(&err);
	/* Back where we were: the next request may have no workdir. */
	if (private_cwd && j->workdir && fchdir(cwd_fd) && !again)
		answer_fail(j, 1, "cannot return to the daemon's directory");
	return again;
}
