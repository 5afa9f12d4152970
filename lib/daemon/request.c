/* request.c - one NDJSON request: parse it and decide how to answer.
 *
 * Legacy form {"id","cmd","workdir","stdin","timeout"}: a cmd that is a
 * plain `wickfs APPLET 'arg'...` or `wickfs-APPLET 'arg'...` runs the
 * applet in process (the fast path), anything else is spawned. Native form {"id","op","args","stdin"}:
 * the applet in process. The answers are answer.c's.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "arena.h"
#include "confine.h"
#include "daemon_int.h"
#include "json.h"
#include "reply.h"
#include "shellwords.h"

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
	if (!(a->flags & APPLET_SPAWNS) || argc < 1 ||
	    (argv[0][0] == '-' && argc != APPLET_REF_ARGS(a->flags)))
		return 0;
	j->exec.command = join_words(&j->arena, argv, argc);
	if (!j->exec.command)
		return 0;
	j->mode = JOB_EXEC_APPLET;
	return 1;
}

/* The settings a request may change, each a number field named as in
 * settings_table (timeout, max_file, max_output): this job's copy of the
 * daemon's. A timeout absent, null, zero or negative is the default, as
 * the reference has it. 0, or -1 answered. */
static int request_settings(struct job *j, const struct json_val *v)
{
	const struct settings *base = j->d->o->settings ? j->d->o->settings
							: &settings_defaults;
	const struct setting *t;
	const struct json_val *m;
	char err[256];

	j->set = *base;
	for (t = settings_table; t->name; t++) {
		if (!(t->flags & SETTING_REQUEST) || !(m = json_get(v, t->name)) ||
		    m->type == JSON_NULL)
			continue;
		if (m->type != JSON_NUM) {
			snprintf(err, sizeof(err), "field \"%s\" must be a number of %s",
				 t->name, t->unit);
			answer_invalid(j, err);
			return -1;
		}
		if (settings_request(&j->set, base, t, m->num, err, sizeof(err))) {
			answer_fail(j, 1, err);
			return -1;
		}
	}
	return 0;
}

static void parse_cmd(struct job *j, const struct json_val *v)
{
	struct daemon *d = j->d;
	const char *cmd = "";
	size_t len = 0;
	const struct applet *a;
	char **w;
	int n, k;

	if (json_get_str(v, "cmd", &cmd, &len))
		return answer_invalid(j, "field \"cmd\" must be a string");
	if (!len)
		return answer_fail(j, 1, "empty command");
	if (strlen(cmd) != len)
		return answer_fail(j, 1, "command contains a NUL byte");
	n = shellwords_split(&j->arena, cmd, len, &w);
	if (n >= 1 && !j->exec.env_add && !j->overlay && (a = applet_of_command(w, n, &k)) &&
	    !(a->flags & APPLET_CLI_ONLY) && (!j->workdir || d->private_cwd)) {
		if (exec_applet_async(j, a, n - k, w + k))
			return;
		j->mode = JOB_APPLET;
		j->applet = a;
		j->argc = n - k;
		j->argv = w + k;
		return;
	}
	j->mode = JOB_SHELL;
	j->exec.command = cmd;
}

/* The ops on processes, in enum proc_op's order: bg.c runs them, watch.c
 * the last two. */
static const char *const proc_ops[] = {"exec", "start", "list", "output", "attach", "input",
				       "signal", "wait", "kill", "resize", "watch", "unwatch", NULL};

/* Which process op v is, or -1: exec with "stream" true, or one of the
 * others when no applet has its name. */
static int proc_op_of(const struct json_val *v, const char *name)
{
	const struct json_val *st = json_get(v, "stream");
	int k;

	for (k = 0; proc_ops[k] && strcmp(proc_ops[k], name); k++)
		;
	if (!proc_ops[k] || (k == PROC_EXEC && !(st && st->type == JSON_BOOL && st->boolean)))
		return -1;
	return k == PROC_EXEC || !applet_find(name) ? k : -1;
}

/* "pty": true, or {"rows":R,"cols":C} (24x80 by default). */
static void parse_pty(struct job *j, const struct json_val *p)
{
	const struct json_val *n[2];
	int i;

	if (!p || p->type == JSON_NULL || (p->type == JSON_BOOL && !p->boolean))
		return;
	if (p->type == JSON_OBJ || p->type == JSON_BOOL) {
		n[0] = json_get(p, "rows");
		n[1] = json_get(p, "cols");
		for (i = 0; i < 2; i++)
			if (n[i] && (n[i]->type != JSON_NUM || n[i]->num < 1 || n[i]->num > 9999))
				break;
		if (i == 2 && !j->in) {
			j->exec.pty = 1;
			j->exec.pty_rows = n[0] ? (unsigned short)n[0]->num : 0;
			j->exec.pty_cols = n[1] ? (unsigned short)n[1]->num : 0;
			return;
		}
	}
	answer_fail(j, 1, j->in ? "pty: a terminal's input comes through the \"input\" op, "
				  "not \"stdin\""
				: "pty: give true or {\"rows\":R,\"cols\":C}, each 1 to 9999");
}

/* Its fields are bg.c's to read, from a copy of the request in the
 * arena; a command is args joined, as exec's. */
static void parse_proc_op(struct job *j, const struct json_val *v, int k)
{
	const struct json_val *t = json_get(v, "timeout");
	struct json_val *keep = arena_alloc(&j->arena, sizeof(*keep));

	if (!keep)
		return answer_fail(j, 1, "out of memory");
	*keep = *v;
	j->req = keep;
	j->mode = JOB_PROC;
	j->proc_op = (enum proc_op)k;
	if (k > PROC_START)
		return;
	j->exec.command = join_words(&j->arena, j->argv, j->argc);
	if (!j->exec.command || !*j->exec.command)
		return answer_fail(j, 1, "empty command");
	/* a background process has no deadline unless one is asked for */
	j->exec.timeout_ms = k == PROC_EXEC || (t && t->type == JSON_NUM) ? j->timeout_s * 1000 : 0;
	j->exec.in_pipe = k == PROC_START;
	parse_pty(j, json_get(v, "pty"));
}

/* A CLI-only applet a request may ask for: our binary as a command, each
 * argument single-quoted. */
static void spawn_applet(struct job *j, const struct applet *a, const struct json_val *args)
{
	char msg[300];
	const char *self = session_self(j->d, msg, sizeof(msg));
	struct buf c;
	size_t i;

	if (!self)
		return answer_fail(j, 1, msg);
	if (args && args->type != JSON_NULL && args->type != JSON_ARR)
		return answer_fail(j, 1, "args must be an array of strings");
	buf_init(&c);
	buf_printf(&c, "'%s' %s", self, a->name);
	for (i = 0; args && args->type == JSON_ARR && i < args->len; i++) {
		const char *s = args->items[i].str;
		if (args->items[i].type != JSON_STR) {
			buf_free(&c);
			return answer_fail(j, 1, "args must be an array of strings");
		}
		buf_puts(&c, " '");
		for (; *s; s++)
			buf_puts(&c, *s == '\'' ? "'\\''" : (char[2]){*s, 0});
		buf_putc(&c, '\'');
	}
	j->exec.command = c.oom ? NULL : arena_strdup(&j->arena, c.p);
	buf_free(&c);
	if (!j->exec.command)
		return answer_fail(j, 1, "out of memory");
	j->mode = JOB_EXEC_APPLET;
}

/* "overlay": an applet of the loop or the workers (its arguments and
 * stdin checked) run instead as our binary in a process of its own (the daemon's threads share one mount
 * namespace; the supervisor enters the layer), confined as here, its
 * envelope the answer (answer_command). */
static void overlay_applet(struct job *j, const struct applet *a, const struct json_val *args)
{
	const char *const *had = j->exec.env_add;
	const char **env;
	size_t n = 0;

	if (j->root) {
		while (had && had[n])
			n++;
		if (!(env = arena_alloc(&j->arena, (n + 2) * sizeof(*env))) ||
		    !(env[n] = arena_printf(&j->arena, "WICKFS_ROOT=%s", j->root)))
			return answer_fail(j, 1, "out of memory");
		if (n)
			memcpy(env, had, n * sizeof(*env));
		env[n + 1] = NULL;
		j->exec.env_add = env;
	}
	j->own_envelope = 1;
	spawn_applet(j, a, args);
}

static void parse_op(struct job *j, const struct json_val *v)
{
	const struct json_val *op = json_get(v, "op"), *args = json_get(v, "args");
	const struct applet *a = applet_find(op->str);
	int proc = proc_op_of(v, op->str);
	size_t i;

	if (a && (a->flags & APPLET_DAEMON_SPAWN))
		return spawn_applet(j, a, args);
	if (a && (a->flags & APPLET_CLI_ONLY))
		a = NULL;
	if (!a && proc < 0 && session_op(j, op->str, v))
		return;
	if (!a && proc < 0) {
		char msg[300];
		snprintf(msg, sizeof(msg), "unknown op: %.200s", op->str);
		return answer_fail(j, 1, msg);
	}
	if (args && args->type != JSON_NULL && args->type != JSON_ARR)
		return answer_fail(j, 1, "args must be an array of strings");
	if (a && (a->flags & APPLET_STDIN) && !j->in) {
		char msg[300];
		snprintf(msg, sizeof(msg),
			 "%s: field \"stdin\" is missing: it is the input (\"\" for none); "
			 "refused rather than taken as empty",
			 a->name);
		return answer_fail(j, 1, msg);
	}
	j->argc = args && args->type == JSON_ARR ? (int)args->len : 0;
	j->argv = arena_alloc(&j->arena, (size_t)(j->argc + 1) * sizeof(char *));
	if (!j->argv)
		return answer_fail(j, 1, "out of memory");
	for (i = 0; i < (size_t)j->argc; i++) {
		if (args->items[i].type != JSON_STR)
			return answer_fail(j, 1, "args must be an array of strings");
		j->argv[i] = (char *)args->items[i].str;
	}
	j->argv[j->argc] = NULL;
	if (proc >= 0)
		return parse_proc_op(j, v, proc);
	if (j->workdir && !j->d->private_cwd)
		return answer_fail(j, 1, "workdir is not supported for op requests "
					 "here (no per-thread working directory); send a cmd");
	if (exec_applet_async(j, a, j->argc, j->argv))
		return;
	if (j->overlay)
		return overlay_applet(j, a, args);
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
	j->off_loop = 1;
	return j;
}

struct job *request_take_line(struct daemon *d, char *buf, size_t start,
			      size_t len)
{
	struct job *j = job_new(d);

	if (!j)
		return NULL;
	j->started_ms = wfs_now_ms();
	buf[start + len] = 0;
	j->owned_line = buf;
	j->line = buf + start;
	j->line_len = len;
	j->mode = JOB_PARSE;
	j->off_loop = 1;
	return j;
}

/* "root": the request's file paths (an applet's, start's log, watch's
 * path) confined beneath this directory, itself beneath the daemon's root
 * (a request may narrow the workspace, never widen it). 0, or -1 answered. */
static int request_root(struct job *j, const struct json_val *r)
{
	char canon[PATH_MAX + 1], why[PATH_MAX * 2 + 128], msg[PATH_MAX + sizeof(why) + 16];
	struct stat st;

	if (!r || r->type == JSON_NULL)
		return 0;
	if (r->type != JSON_STR || r->str[0] != '/' || strlen(r->str) != r->len) {
		answer_fail(j, 1, "field \"root\" must be an absolute path");
		return -1;
	}
	why[0] = 0;
	if (!confine_canon(j->d->root ? j->d->root : "/", r->str, canon, sizeof(canon), why,
			   sizeof(why)) &&
	    stat(canon, &st))
		snprintf(why, sizeof(why), "%s", strerror(errno));
	else if (!why[0] && !S_ISDIR(st.st_mode))
		strcpy(why, "not a directory");
	if (why[0]) {
		snprintf(msg, sizeof(msg), "root %.*s: %s", PATH_MAX, r->str, why);
		answer_fail(j, 1, msg);
		return -1;
	}
	if (!(j->root = arena_strdup(&j->arena, canon))) {
		answer_fail(j, 1, "root: out of memory");
		return -1;
	}
	return 0;
}

/* "overlay": a layer's name; what the request runs runs in it (an
 * applet spawned for it). 0, or -1 answered. */
static int request_overlay(struct job *j, const struct json_val *v)
{
	const struct json_val *o = json_get(v, "overlay");

	if (!o || o->type == JSON_NULL)
		return 0;
	if (o->type != JSON_STR || !o->len || strlen(o->str) != o->len) {
		answer_fail(j, 1, "field \"overlay\" must be the name of an overlay");
		return -1;
	}
	j->overlay = o->str;
	return 0;
}

void request_parse_into(struct job *j, const char *line, size_t len)
{
	struct daemon *d = j->d;
	const struct json_val *m;
	struct json_val v;
	char err[256];
	const struct json_val *sv;
	int spawns;

	j->root = d->root;
	if (json_parse(&j->arena, line, len, &v, err, sizeof(err))) {
		answer_invalid(j, err);
		return;
	}
	if (v.type != JSON_OBJ) {
		answer_invalid(j, "a request must be a JSON object");
		return;
	}
	if (json_get_str(&v, "id", &j->id, &j->id_len)) {
		answer_invalid(j, "field \"id\" must be a string");
		return;
	}
	m = json_get(&v, "op");
	j->native = m && m->type == JSON_STR;
	if (d->o->token && !token_ok(d->o->token, json_get(&v, "token"))) {
		j->refused = 1;
		answer_fail(j, 1, "unauthorized: this daemon requires a \"token\" "
				  "field matching DAEMON_TOKEN");
		return;
	}
	j->authed = 1;
	if (request_settings(j, &v))
		return;
	j->timeout_s = j->set.timeout;
	j->deadline_ms = j->started_ms + j->timeout_s * 1000;
	if (json_get_str(&v, "workdir", &j->workdir, NULL) ||
	    json_get_str(&v, "stdin", &j->in, &j->in_len)) {
		answer_invalid(j, "fields \"workdir\" and \"stdin\" must be strings");
		return;
	}
	if (j->workdir && !*j->workdir)
		j->workdir = NULL;
	if (request_root(j, json_get(&v, "root")))
		return;
	if (parse_env(j, json_get(&v, "env"))) {
		answer_fail(j, 1, "env must be an object of string values with "
				  "non-empty names without '='");
		return;
	}
	if (request_overlay(j, &v))
		return;
	if (j->native)
		parse_op(j, &v);
	else
		parse_cmd(j, &v);
	spawns = j->mode == JOB_SHELL || j->mode == JOB_EXEC_APPLET ||
		 (j->mode == JOB_PROC && j->proc_op <= PROC_START);
	if (spawns && d->o->readonly && !d->o->readonly_exec) {
		struct buf env;
		if (j->mode == JOB_SHELL || j->native)
			return answer_fail(j, 1, EXEC_READONLY_MSG);
		/* what `wickfs exec` itself answers in read-only mode */
		buf_init(&env);
		reply_error_line(&env, EXEC_READONLY_MSG);
		answer_legacy(j, env.p ? env.p : "", env.len, "", 0, 1, NULL);
		buf_free(&env);
		return;
	}
	if (spawns) {
		j->exec.cwd = j->workdir;
		j->exec.root = d->root;
		j->exec.in = j->in;
		j->exec.in_len = j->in_len;
		if (j->mode != JOB_PROC)
			j->exec.timeout_ms = j->timeout_s * 1000;
		j->exec.max_output = j->set.max_output;
		m = json_get(&v, "idle_timeout");
		if (m && m->type != JSON_NULL && (m->type != JSON_NUM || m->num < 0 || m->num > 1e6))
			return answer_fail(j, 1, "field \"idle_timeout\" must be a number of seconds "
						 "(0 to 1000000)");
		j->exec.idle_ms = m && m->type == JSON_NUM ? (long long)(m->num * 1000) : 0;
	}
	if (j->overlay && j->mode != JOB_DONE) {
		if (!spawns)
			return answer_fail(j, 1, "field \"overlay\": this request runs nothing "
						 "(a command, an applet, start or a session's "
						 "command does)");
		j->exec.overlay = j->overlay;
		j->exec.overlay_dir = j->root;
	}
	if (j->native && j->mode != JOB_DONE && (sv = json_get(&v, "session")) &&
	    sv->type != JSON_NULL) {
		j->session_v = sv;
		if (!j->off_loop) /* the sessions are the loop's */
			session_apply(j, sv);
	}
}

/* Small file operations run on the loop thread itself: a handoff to a
 * worker and back costs more than the work. Anything that can take long
 * (grep, glob, big files, directories, options we do not know) goes to
 * the workers. */
int request_inline_ok(const struct job *j)
{
	unsigned flags = j->applet->flags;
	const char *path;
	char full[4096];
	struct stat st;
	int i;

	if (!(flags & APPLET_LOOP_OK))
		return 0;
	for (i = 0; i < j->argc; i++)
		if (j->argv[i][0] == '-')
			return 0;
	if (j->in_len > INLINE_MAX)
		return 0;
	/* read tries on the loop and gives up on a big file by itself
	 * (probe): no stat for the common small one */
	if (flags & APPLET_LOOP_PROBE)
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
		return (flags & APPLET_LOOP_DIR) && st.st_size <= INLINE_MAX / 4;
	return S_ISREG(st.st_mode) && st.st_size <= INLINE_MAX;
}
