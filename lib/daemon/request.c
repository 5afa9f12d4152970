/* request.c - one NDJSON request: parse, decide how to answer, render.
 *
 * Legacy form {"id","cmd","workdir","stdin","timeout"} answers
 * {"id","stdout","stderr","exit_code","error"?} as the Go daemon does.
 * A cmd that is a plain `wickfs APPLET 'arg'...` runs the applet in
 * process (the fast path) and answers the bytes the spawned command would
 * print. The native form {"id","op","args","stdin"} answers the applet's
 * envelope with the id added.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "daemon_int.h"
#include "json.h"
#include "reply.h"
#include "shellwords.h"
#include "util.h"

/* Jobs and their arenas are recycled by the loop thread (the only one
 * that creates and frees them): no malloc or page faults per request. */
#define JOB_CACHE 16

static struct job *job_new(struct daemon *d)
{
	struct job *j = d->job_cache;

	if (j) {
		struct arena a = j->arena;
		struct buf b = j->resp;
		d->job_cache = j->next;
		d->njob_cache--;
		memset(j, 0, sizeof(*j));
		j->arena = a;
		j->resp = b;
	} else {
		j = calloc(1, sizeof(*j));
		if (!j)
			return NULL;
		arena_init(&j->arena);
		buf_init(&j->resp);
	}
	j->d = d;
	j->id = "";
	return j;
}

void job_free(struct job *j)
{
	struct daemon *d;

	if (!j)
		return;
	d = j->d;
	if (d && d->njob_cache < JOB_CACHE && !d->stopping) {
		arena_reset(&j->arena);
		if (j->resp.cap > (64u << 10))
			buf_free(&j->resp);
		buf_reset(&j->resp);
		j->next = d->job_cache;
		d->job_cache = j;
		d->njob_cache++;
		return;
	}
	arena_free(&j->arena);
	buf_free(&j->resp);
	free(j);
}

void job_cache_free(struct daemon *d)
{
	struct job *j;

	while ((j = d->job_cache)) {
		d->job_cache = j->next;
		arena_free(&j->arena);
		buf_free(&j->resp);
		free(j);
	}
	d->njob_cache = 0;
}

static void resp_begin(struct job *j)
{
	buf_reset(&j->resp);
	buf_puts(&j->resp, "{\"id\":");
	json_str(&j->resp, j->id, j->id_len);
	j->mode = JOB_DONE;
}

/* A legacy line: a command's streams, cut to fit one response line. */
static void resp_run(struct job *j, const struct reply_run *run,
		     const char *error)
{
	buf_reset(&j->resp);
	reply_legacy(&j->resp, j->id, j->id_len, run, error, REPLY_LINE_MAX);
	j->mode = JOB_DONE;
}

void resp_legacy(struct job *j, const char *out, size_t out_len,
		 const char *err, size_t err_len, int code, const char *error)
{
	struct reply_run run = {out, err, out_len, err_len, code, 0, 0, 0};

	resp_run(j, &run, error);
}

/* An applet's answer too big for one response line (a 12 MB file read in
 * one piece): an error envelope that says how to ask for less. */
static void too_big(const struct job *j, size_t size, struct buf *b)
{
	char msg[400];

	snprintf(msg, sizeof(msg), "%s: the answer is %zu bytes, more than one "
		 "daemon response line holds (%u bytes); ask for less: "
		 "read --bytes --offset N --limit N reads a part of a file, "
		 "grep --max N caps the matches",
		 j->applet ? j->applet->name : "wickfs", size, REPLY_LINE_MAX);
	buf_reset(b);
	reply_error_line(b, msg);
}

/* The fast path's legacy line: the envelope is stdout, escaped once more.
 * An envelope cut short would not parse: too big, it becomes an error. */
static void resp_legacy_env(struct job *j, const char *env, size_t len,
			    const char *err, size_t err_len, int code,
			    const char *error)
{
	size_t room = REPLY_LINE_MAX - reply_legacy_overhead(j->id, j->id_len, error);
	struct buf big;

	if ((len + err_len) * 6 < room ||
	    json_str_size(env, len, room, NULL) +
	    json_str_size(err, err_len, room, NULL) < room)
		return resp_legacy(j, env, len, err, err_len, code, error);
	buf_init(&big);
	too_big(j, len, &big);
	resp_legacy(j, big.p ? big.p : "", big.len, "", 0, 1, error);
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

static void resp_fail(struct job *j, int code, const char *msg)
{
	if (j->native) {
		resp_begin(j);
		buf_puts(&j->resp, ",\"ok\":false,\"error\":");
		json_cstr(&j->resp, msg);
		buf_puts(&j->resp, "}\n");
	} else {
		resp_legacy(j, "", 0, "", 0, code, msg);
	}
}

static void resp_invalid(struct job *j, const char *what)
{
	char msg[512];

	j->id = "";
	j->id_len = 0;
	j->native = 0;
	snprintf(msg, sizeof(msg), "invalid JSON: %s", what);
	resp_legacy(j, "", 0, "", 0, 0, msg);
}

static int token_ok(const char *want, const struct json_val *got)
{
	size_t n = strlen(want), i;
	unsigned char diff = 0;

	if (!got || got->type != JSON_STR)
		return 0;
	/* Constant time in the token's content; only the length leaks. */
	diff = got->len != n;
	for (i = 0; i < n; i++)
		diff |= (unsigned char)(want[i] ^ (i < got->len ? got->str[i] : 0));
	return !diff;
}

/* A string member: absent and null leave dflt; another type is an error. */
static int get_str(const struct json_val *v, const char *key, const char **s,
		   size_t *len)
{
	const struct json_val *m = json_get(v, key);

	if (!m || m->type == JSON_NULL)
		return 0;
	if (m->type != JSON_STR)
		return -1;
	*s = m->str;
	if (len)
		*len = m->len;
	return 0;
}

static int is_wickfs(const char *word)
{
	return !strcmp(path_base(word), "wickfs");
}

static char *join_words(struct arena *a, char **w, int n)
{
	struct buf b;
	char *s;
	int i;

	buf_init(&b);
	for (i = 0; i < n; i++) {
		if (i)
			buf_putc(&b, ' ');
		buf_puts(&b, w[i]);
	}
	s = b.oom ? NULL : arena_strndup(a, b.p ? b.p : "", b.len);
	buf_free(&b);
	return s;
}

/* `exec CMD...` without options runs CMD on the loop, not on a worker;
 * the reference's form `exec COMMAND` is literal even when it starts
 * with '-'. */
static int exec_applet_async(struct job *j, const struct applet *a, int argc,
			     char **argv)
{
	if (strcmp(a->name, "exec") || argc < 1 ||
	    (argv[0][0] == '-' && argc != APPLET_REF_ARGS(a->flags)))
		return 0;
	j->exec.command = join_words(&j->arena, argv, argc);
	if (!j->exec.command)
		return 0;
	j->mode = JOB_EXEC_APPLET;
	return 1;
}

/* Seconds: absent, null, zero or negative take the default; anything
 * past a century (1e999 is infinity) is a century. Compared as a double
 * before the cast, which overflows otherwise. */
static long long timeout_of(const struct json_val *m)
{
	const double century = 100.0 * 365 * 86400;
	double t = m && m->type == JSON_NUM ? m->num : 0;

	if (!(t >= 1))
		return DAEMON_DEFAULT_TIMEOUT;
	return t > century ? (long long)century : (long long)t;
}

static void parse_cmd(struct job *j, const struct json_val *v)
{
	struct daemon *d = j->d;
	const char *cmd = "";
	size_t len = 0;
	const struct applet *a;
	char **w;
	int n;

	if (get_str(v, "cmd", &cmd, &len))
		return resp_invalid(j, "field \"cmd\" must be a string");
	if (!len)
		return resp_fail(j, 1, "empty command");
	if (strlen(cmd) != len)
		return resp_fail(j, 1, "command contains a NUL byte");
	n = shellwords_split(&j->arena, cmd, len, &w);
	if (n >= 2 && is_wickfs(w[0]) && !j->exec.env_add &&
	    (a = applet_find(w[1])) && !strcmp(a->name, w[1]) &&
	    !(a->flags & APPLET_CLI_ONLY) && (!j->workdir || d->private_cwd)) {
		if (exec_applet_async(j, a, n - 2, w + 2))
			return;
		j->mode = JOB_APPLET;
		j->applet = a;
		j->argc = n - 2;
		j->argv = w + 2;
		return;
	}
	j->mode = JOB_SHELL;
	j->exec.command = cmd;
}

static void parse_op(struct job *j, const struct json_val *v)
{
	const struct json_val *op = json_get(v, "op"), *args = json_get(v, "args");
	const struct applet *a = applet_find(op->str);
	size_t i;

	if (!a || strcmp(a->name, op->str) || (a->flags & APPLET_CLI_ONLY)) {
		char msg[300];
		snprintf(msg, sizeof(msg), "unknown op: %.200s", op->str);
		return resp_fail(j, 1, msg);
	}
	if (args && args->type != JSON_NULL && args->type != JSON_ARR)
		return resp_fail(j, 1, "args must be an array of strings");
	j->argc = args && args->type == JSON_ARR ? (int)args->len : 0;
	j->argv = arena_alloc(&j->arena, (size_t)(j->argc + 1) * sizeof(char *));
	if (!j->argv)
		return resp_fail(j, 1, "out of memory");
	for (i = 0; i < (size_t)j->argc; i++) {
		if (args->items[i].type != JSON_STR)
			return resp_fail(j, 1, "args must be an array of strings");
		j->argv[i] = (char *)args->items[i].str;
	}
	j->argv[j->argc] = NULL;
	if (j->workdir && !j->d->private_cwd)
		return resp_fail(j, 1, "workdir is not supported for op requests "
			"here (no per-thread working directory); send a cmd");
	if (exec_applet_async(j, a, j->argc, j->argv))
		return;
	j->mode = JOB_APPLET;
	j->applet = a;
}

static int parse_env(struct job *j, const struct json_val *env)
{
	const char **list;
	size_t i;

	if (!env || env->type == JSON_NULL)
		return 0;
	if (env->type != JSON_OBJ)
		return -1;
	list = arena_alloc(&j->arena, (env->len + 1) * sizeof(*list));
	if (!list)
		return -1;
	for (i = 0; i < env->len; i++) {
		if (env->items[i].type != JSON_STR || !env->key_lens[i] ||
		    memchr(env->keys[i], '=', env->key_lens[i]))
			return -1;
		list[i] = arena_printf(&j->arena, "%s=%s", env->keys[i],
				       env->items[i].str);
		if (!list[i])
			return -1;
	}
	list[i] = NULL;
	j->exec.env_add = list;
	return 0;
}

struct job *request_parse(struct daemon *d, const char *line, size_t len)
{
	struct job *j = job_new(d);

	if (!j)
		return NULL;
	j->started_ms = wfs_now_ms();
	request_parse_into(j, line, len);
	return j;
}

struct job *request_defer_parse(struct daemon *d, const char *line, size_t len)
{
	struct job *j = job_new(d);
	char *copy;

	if (!j)
		return NULL;
	j->started_ms = wfs_now_ms();
	copy = arena_alloc(&j->arena, len + 1);
	if (!copy) {
		job_free(j);
		return NULL;
	}
	memcpy(copy, line, len);
	copy[len] = 0;
	j->line = copy;
	j->line_len = len;
	j->mode = JOB_PARSE;
	return j;
}

void request_parse_into(struct job *j, const char *line, size_t len)
{
	struct daemon *d = j->d;
	const struct json_val *m;
	struct json_val v;
	char err[256];

	if (json_parse(&j->arena, line, len, &v, err, sizeof(err))) {
		resp_invalid(j, err);
		return;
	}
	if (v.type != JSON_OBJ) {
		resp_invalid(j, "a request must be a JSON object");
		return;
	}
	if (get_str(&v, "id", &j->id, &j->id_len)) {
		resp_invalid(j, "field \"id\" must be a string");
		return;
	}
	m = json_get(&v, "op");
	j->native = m && m->type == JSON_STR;
	if (d->o->token && !token_ok(d->o->token, json_get(&v, "token"))) {
		j->refused = 1;
		resp_fail(j, 1, "unauthorized: this daemon requires a \"token\" "
			  "field matching DAEMON_TOKEN");
		return;
	}
	m = json_get(&v, "timeout");
	if (m && m->type != JSON_NULL && m->type != JSON_NUM) {
		resp_invalid(j, "field \"timeout\" must be a number of seconds");
		return;
	}
	j->timeout_s = timeout_of(m);
	j->deadline_ms = j->started_ms + j->timeout_s * 1000;
	if (get_str(&v, "workdir", &j->workdir, NULL) ||
	    get_str(&v, "stdin", &j->in, &j->in_len)) {
		resp_invalid(j, "fields \"workdir\" and \"stdin\" must be strings");
		return;
	}
	if (j->workdir && !*j->workdir)
		j->workdir = NULL;
	if (parse_env(j, json_get(&v, "env"))) {
		resp_fail(j, 1, "env must be an object of string values with "
			  "non-empty names without '='");
		return;
	}
	if (j->native)
		parse_op(j, &v);
	else
		parse_cmd(j, &v);
	if ((j->mode == JOB_SHELL || j->mode == JOB_EXEC_APPLET) &&
	    d->o->readonly && !d->o->readonly_exec) {
		struct buf env;
		if (j->mode == JOB_SHELL || j->native)
			return resp_fail(j, 1, EXEC_READONLY_MSG);
		/* what `wickfs exec` itself answers in read-only mode */
		buf_init(&env);
		reply_error_line(&env, EXEC_READONLY_MSG);
		resp_legacy(j, env.p ? env.p : "", env.len, "", 0, 1, NULL);
		buf_free(&env);
		return;
	}
	if (j->mode == JOB_SHELL || j->mode == JOB_EXEC_APPLET) {
		j->exec.cwd = j->workdir;
		j->exec.in = j->in;
		j->exec.in_len = j->in_len;
		j->exec.timeout_ms = j->timeout_s * 1000;
		j->exec.max_output = d->o->max_output;
	}
}

static void timeout_msg(struct job *j, char *msg, size_t n)
{
	snprintf(msg, n, "command timed out after %llds", j->timeout_s);
}

/* exec's envelope sized for the line it goes out in: spliced after the id
 * (native), or escaped once more as the legacy stdout, where the budget
 * shrinks by the measured growth until it fits. */
static void exec_env_fit(const struct job *j, const struct reply_run *run,
			 struct buf *env)
{
	size_t over = reply_legacy_overhead(j->id, j->id_len, NULL);
	size_t max = REPLY_LINE_MAX - over, need;
	int tries;

	for (tries = 0; tries < 8; tries++) {
		buf_reset(env);
		reply_exec(env, run, max);
		if (j->native)
			return;
		need = json_str_size(env->p, env->len, SIZE_MAX, NULL) + over;
		if (need < REPLY_LINE_MAX)
			return;
		max = (size_t)((double)max * (double)(REPLY_LINE_MAX - over) /
			       (double)need) - 64;
	}
}

void request_command_done(struct job *j, struct wfs_exec_result *res,
			  const char *spawn_error)
{
	const char *shut = "daemon shutting down: command killed";
	struct buf env;
	char msg[128];

	struct reply_run run;

	timeout_msg(j, msg, sizeof(msg));
	if (j->mode == JOB_SHELL) {
		if (spawn_error)
			return resp_legacy(j, "", 0, "", 0, 1, spawn_error);
		run = reply_run_of(res);
		return resp_run(j, &run, res->timed_out ? msg
				: j->cancelled ? shut : NULL);
	}
	/* JOB_EXEC_APPLET: what `wickfs exec CMD` would have printed. */
	buf_init(&env);
	if (spawn_error) {
		reply_error_line(&env, spawn_error);
	} else if (!j->native && (res->timed_out || j->cancelled)) {
		/* The request's timeout killed the whole `wickfs exec`. */
		buf_free(&env);
		return resp_legacy(j, "", 0, "", 0, res->timed_out ? 124 : -1,
				   res->timed_out ? msg : shut);
	} else {
		run = reply_run_of(res);
		exec_env_fit(j, &run, &env);
	}
	if (j->native)
		resp_native(j, env.p, env.len);
	else
		resp_legacy_env(j, env.p, env.len, "", 0, spawn_error ? 1 : 0, NULL);
	buf_free(&env);
}

int request_run_applet(struct job *j, int cwd_fd, int private_cwd)
{
	struct buf out, err;
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
		resp_fail(j, 1, msg);
		return 0;
	}
	buf_init(&out);
	buf_init(&err);
	wfs_ctx_init_root(&ctx, &j->arena, j->d->root);
	ctx.readonly = j->d->o->readonly;
	ctx.readonly_exec = j->d->o->readonly_exec;
	ctx.deadline_ms = j->deadline_ms;
	ctx.cancel = &j->d->stopping;
	if (j->probe)
		ctx.read_max = INLINE_MAX;
	memset(&r, 0, sizeof(r));
	r.in = j->in ? j->in : "";
	r.in_len = j->in ? j->in_len : 0;
	r.in_fd = -1;
	r.in_loaded = 1;
	r.out = &out;
	r.err = &err;
	r.arena = &j->arena;
	r.ctx = &ctx;
	rc = applet_run(j->applet, &r, j->argc, j->argv);
	if (ctx.too_big) {
		again = 1; /* nothing answered: a worker reads it */
		j->probe = 0;
	} else if (out.oom || err.oom) {
		resp_fail(j, 1, "out of memory");
	} else if (j->native) {
		resp_native(j, out.p ? out.p : "", out.len);
	} else {
		char msg[128] = "";
		if (rc && j->d->stopping)
			snprintf(msg, sizeof(msg), "daemon shutting down");
		else if (rc && wfs_now_ms() >= j->deadline_ms)
			timeout_msg(j, msg, sizeof(msg));
		resp_legacy_env(j, out.p ? out.p : "", out.len,
				err.p ? err.p : "", err.len,
				*msg && !j->d->stopping ? 124 : rc, msg);
	}
	buf_free(&out);
	buf_free(&err);
	/* Back where we were: the next request may have no workdir. */
	if (private_cwd && j->workdir && fchdir(cwd_fd) && !again)
		resp_fail(j, 1, "cannot return to the daemon's directory");
	return again;
}

/* Small file operations run on the loop thread itself: a handoff to a
 * worker and back costs more than the work. Anything that can take long
 * (grep, glob, big files, directories, options we do not know) goes to
 * the workers. */
int request_inline_ok(const struct job *j)
{
	const char *name = j->applet->name, *path;
	char full[4096];
	struct stat st;
	int i;

	if (strcmp(name, "read") && strcmp(name, "ls") &&
	    strcmp(name, "write") && strcmp(name, "edit"))
		return 0;
	for (i = 0; i < j->argc; i++)
		if (j->argv[i][0] == '-')
			return 0;
	if (j->in_len > INLINE_MAX)
		return 0;
	/* read tries on the loop and gives up on a big file by itself
	 * (probe): no stat for the common small one */
	if (!strcmp(name, "read"))
		return 2;
	path = j->argc ? j->argv[0] : ".";
	if (!*path)
		path = ".";
	if (path[0] != '/' && j->workdir) {
		if ((size_t)snprintf(full, sizeof(full), "%s/%s", j->workdir, path) >=
		    sizeof(full))
			return 0;
		path = full;
	}
	if (stat(path, &st))
		return 1; /* fails fast, in the applet, with its own message */
	if (S_ISDIR(st.st_mode))
		return !strcmp(name, "ls") && st.st_size <= INLINE_MAX / 4;
	return S_ISREG(st.st_mode) && st.st_size <= INLINE_MAX;
}
