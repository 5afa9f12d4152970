/* session.c - what survives from one command to the next: the working
 * directory and the exported environment of a named session.
 *
 * A command run with "session":NAME starts in the session's directory
 * with its variables, and hands its own back when it ends: the shell runs
 * it under an EXIT trap that execs this binary as `wickfs __session FILE
 * STATUS`, which writes its working directory and environment (what the
 * shell exported, inherited across the exec) to FILE and exits with
 * STATUS. The daemon reads FILE when the command is done. No shell is
 * kept alive between commands; what a shell alone holds (functions,
 * aliases, unexported variables) does not survive, nor does the state of
 * a command killed by a signal or one that sets its own EXIT trap. File
 * ops with the session's name run in its directory too.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "confine.h"
#include "daemon_int.h"
#include "json.h"

#define SESSIONS_MAX 64
#define STATE_MAX (1u << 20)

extern char **environ;

struct session {
	struct session *next;
	char name[65];
	char *cwd;  /* NULL: the daemon's (or the request's workdir) */
	char **env; /* K=V that differ from the daemon's environment */
	size_t nenv;
	size_t held; /* bytes of cwd and env, counted in the memory budget */
};

static void forget(struct daemon *d, struct session *s)
{
	size_t i;

	for (i = 0; i < s->nenv; i++)
		free(s->env[i]);
	free(s->env);
	free(s->cwd);
	s->env = NULL;
	s->nenv = 0;
	s->cwd = NULL;
	wfs_budget_sub(&d->mem, s->held);
	s->held = 0;
}

static struct session *find(struct daemon *d, const char *name, struct session ***at)
{
	struct session **pp;

	for (pp = &d->sessions; *pp; pp = &(*pp)->next)
		if (!strcmp((*pp)->name, name))
			break;
	if (at)
		*at = pp;
	return *pp;
}

static void state_path(const struct daemon *d, const char *name, char *out, size_t n)
{
	snprintf(out, n, "%s/%s", d->session_dir, name);
}

/* A name safe as a file name and inside a shell's quotes. */
static int name_ok(const char *s)
{
	size_t n = strlen(s);

	return n && n < 65 && s[0] != '.' &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") == n;
}

/* Our own binary's path, once, for commands to run (NULL with msg set):
 * a session's saver, a CLI-only applet asked for in a request. */
const char *session_self(struct daemon *d, char *msg, size_t n)
{
	char self[4096];
	ssize_t k;

	if (d->session_self)
		return d->session_self;
	k = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (k <= 0 || strpbrk((self[k] = 0, self), "'\"$`\\") || strstr(self, " (deleted)")) {
		snprintf(msg, n, "the daemon cannot name its own binary through /proc/self/exe, "
				 "which this request runs");
		return NULL;
	}
	if (!(d->session_self = strdup(self)))
		snprintf(msg, n, "out of memory");
	return d->session_self;
}

/* The state directory and our own path, once. -1 with msg set. */
static int setup(struct daemon *d, char *msg, size_t n)
{
	char dir[] = "/tmp/wickfs-sessions-XXXXXX";

	if (d->session_dir)
		return 0;
	if (!session_self(d, msg, n))
		return -1;
	if (!mkdtemp(dir)) {
		snprintf(msg, n, "session: cannot make a directory for the sessions' state "
				 "under /tmp: %s",
			 strerror(errno));
		return -1;
	}
	d->session_dir = strdup(dir);
	return d->session_dir ? 0 : -1;
}

/* The request's variables first (they win), then the session's others. */
static const char *const *merged_env(struct job *j, const struct session *s)
{
	const char *const *req = j->exec.env_add;
	const char **list;
	size_t nreq = 0, k, i, r;

	while (req && req[nreq])
		nreq++;
	list = arena_alloc(&j->arena, (nreq + s->nenv + 1) * sizeof(*list));
	if (!list)
		return NULL;
	for (k = 0; k < nreq; k++)
		list[k] = req[k];
	for (i = 0; i < s->nenv; i++) {
		size_t kl = strcspn(s->env[i], "=") + 1;
		for (r = 0; r < nreq && strncmp(req[r], s->env[i], kl); r++)
			;
		if (r == nreq)
			list[k++] = s->env[i];
	}
	list[k] = NULL;
	return list;
}

void session_apply(struct job *j, const struct json_val *v)
{
	struct daemon *d = j->d;
	struct session *s, **at;
	char msg[300], path[4200];
	int spawns = j->mode == JOB_EXEC_APPLET || (j->mode == JOB_PROC && j->proc_op <= PROC_START);

	if (v->type != JSON_STR || !name_ok(v->str))
		return answer_fail(j, 1, "session: a name of 1 to 64 letters, digits, '_', '-' "
					 "or '.' (not first)");
	if (!(s = find(d, v->str, &at))) {
		if (d->nsessions >= SESSIONS_MAX) {
			snprintf(msg, sizeof(msg), "session: %d sessions are open, the daemon's "
						   "limit (end one with session_close)",
				 d->nsessions);
			return answer_fail(j, 1, msg);
		}
		if (setup(d, msg, sizeof(msg)))
			return answer_fail(j, 1, msg);
		if (!(s = calloc(1, sizeof(*s))))
			return answer_fail(j, 1, "out of memory");
		strcpy(s->name, v->str);
		*at = s;
		d->nsessions++;
	}
	if (!j->workdir && s->cwd && (spawns || d->private_cwd))
		j->workdir = j->exec.cwd = s->cwd;
	if (!spawns)
		return;
	j->session = arena_strdup(&j->arena, s->name);
	state_path(d, s->name, path, sizeof(path));
	j->exec.env_add = merged_env(j, s);
	j->exec.command = arena_printf(&j->arena, "trap 'exec \"%s\" __session \"%s\" $?' EXIT\n%s",
				       d->session_self, path, j->exec.command);
	if (!j->exec.env_add || !j->exec.command)
		answer_fail(j, 1, "out of memory");
}

static int differs(const char *kv)
{
	static const char *const skip[] = {"PWD=", "OLDPWD=", "SHLVL=", "_=", NULL};
	size_t i;

	for (i = 0; skip[i]; i++)
		if (!strncmp(kv, skip[i], strlen(skip[i])))
			return 0;
	for (i = 0; environ[i]; i++)
		if (!strcmp(environ[i], kv))
			return 0;
	return strchr(kv, '=') != NULL;
}

void session_collect(struct daemon *d, const char *name)
{
	struct session *s = find(d, name, NULL);
	char path[4200], *buf, *p, *end, *cwd;
	ssize_t n;
	size_t cap = 0;
	int fd;

	if (!d->session_dir)
		return;
	state_path(d, name, path, sizeof(path));
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	unlink(path);
	if (fd < 0)
		return; /* killed, or its own EXIT trap: nothing changes */
	buf = malloc(STATE_MAX + 1);
	while (buf && (n = read(fd, buf + cap, STATE_MAX - cap)) > 0)
		cap += (size_t)n;
	close(fd);
	if (!buf || !s || !cap || buf[0] != '/' || cap == STATE_MAX) {
		free(buf);
		return;
	}
	buf[cap] = 0;
	end = buf + cap;
	/* a directory outside the root is not kept: the next command starts
	 * where the last one did that stayed inside */
	cwd = s->cwd;
	s->cwd = NULL;
	if (!d->root || !confine_check(d->root, buf, path, sizeof(path))) {
		free(cwd);
		cwd = strdup(buf);
	}
	forget(d, s);
	s->cwd = cwd;
	s->held = cwd ? strlen(cwd) + 1 : 0;
	/* What a session keeps counts in the daemon's memory budget, like
	 * answers: an export that would take it past its bulk part is not
	 * kept (the directory is), and the daemon says so. */
	for (p = buf + strlen(buf) + 1; p < end; p += strlen(p) + 1) {
		size_t n = strlen(p) + 1 + sizeof(char *);
		char **e;

		if (!differs(p))
			continue;
		if (wfs_budget_used(&d->mem) + s->held + n > d->mem.bulk) {
			daemon_log("session %s: %.*s not kept: over the memory budget (--max-memory)",
				   s->name, (int)strcspn(p, "="), p);
			continue;
		}
		if (!(e = realloc(s->env, (s->nenv + 1) * sizeof(*e))))
			continue;
		s->env = e;
		if ((e[s->nenv] = strdup(p))) {
			s->nenv++;
			s->held += n;
		}
	}
	wfs_budget_add(&d->mem, s->held);
	free(buf);
}

/* The ops "session" (what it holds) and "session_close". 1 when v is one. */
int session_op(struct job *j, const char *op, const struct json_val *v)
{
	struct daemon *d = j->d;
	const struct json_val *nv = json_get(v, "session");
	struct session *s, **at;
	struct buf *o = &j->resp;
	size_t i;

	if (strcmp(op, "session") && strcmp(op, "session_close"))
		return 0;
	if (!nv || nv->type != JSON_STR || !(s = find(d, nv->str, &at))) {
		answer_fail(j, 1, "session: no such session (its name in \"session\")");
		return 1;
	}
	buf_reset(o);
	buf_puts(o, "{\"id\":");
	json_str(o, j->id, j->id_len);
	buf_puts(o, ",\"ok\":true,\"data\":{\"session\":");
	json_cstr(o, s->name);
	buf_puts(o, ",\"cwd\":");
	if (s->cwd)
		json_cstr(o, s->cwd);
	else
		buf_puts(o, "null");
	buf_puts(o, ",\"env\":{");
	for (i = 0; i < s->nenv; i++) {
		size_t kl = strcspn(s->env[i], "=");
		if (i)
			buf_putc(o, ',');
		json_str(o, s->env[i], kl);
		buf_putc(o, ':');
		json_cstr(o, s->env[i] + kl + 1);
	}
	buf_puts(o, "}}}\n");
	j->mode = JOB_DONE;
	if (op[7]) { /* session_close */
		*at = s->next;
		forget(d, s);
		free(s);
		d->nsessions--;
	}
	return 1;
}

void session_free_all(struct daemon *d)
{
	struct session *s;
	char path[4200];

	while ((s = d->sessions)) {
		d->sessions = s->next;
		state_path(d, s->name, path, sizeof(path));
		unlink(path);
		forget(d, s);
		free(s);
	}
	if (d->session_dir)
		rmdir(d->session_dir);
	free(d->session_dir);
	free(d->session_self);
}

/* `wickfs __session FILE STATUS`, at a session command's end: our working
 * directory and environment to FILE (through a rename, whole or not at
 * all), then exit with STATUS. */
int session_save(int argc, char **argv)
{
	char cwd[4096], tmp[4200];
	int fd, rc = argc > 3 ? atoi(argv[3]) : 1, i;

	if (argc < 4 || !getcwd(cwd, sizeof(cwd)))
		return rc;
	snprintf(tmp, sizeof(tmp), "%s.%d", argv[2], (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return rc;
	for (i = -1; i < 0 || environ[i]; i++) {
		const char *s = i < 0 ? cwd : environ[i];
		if (write(fd, s, strlen(s) + 1) < 0)
			break;
	}
	if (close(fd) | (i < 0 || environ[i]) || rename(tmp, argv[2]))
		unlink(tmp);
	return rc;
}
