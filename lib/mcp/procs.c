/* procs.c - background processes as MCP tools: start one, list them, read
 * their output from an offset, write to their stdin, signal, wait, kill.
 *
 * They are the daemon's (lib/daemon/bg.c), so that they have its rings,
 * limits, timeouts and detach: the first such call starts a `wickfs
 * daemon` of this server's own, on a Unix socket in a private directory
 * (/tmp/wickfs-mcp.XXXXXX, mode 0700), with --lifeline and a pipe as its
 * stdin that only this server holds. When the server ends, however it
 * ends, the pipe closes and the daemon stops, killing the processes but
 * the detached ones. Each call is one request on a connection of its own;
 * the answer's data is the tool's result, its error the tool's error.
 * HTTP sessions share the one daemon, and so see each other's processes.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "arena.h"
#include "bytes.h"
#include "ctx.h"
#include "mcp_int.h"

#define ANSWER_MAX (16u << 20) /* an answer's bytes: rings are 64 KiB a stream */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t daemon_pid;
static struct sockaddr_un addr;
static char dir[sizeof(addr.sun_path)];

void mcp_procs_stop(void)
{
	if (daemon_pid > 0) {
		kill(daemon_pid, SIGTERM);
		waitpid(daemon_pid, NULL, 0);
		rmdir(dir);
		daemon_pid = 0;
	}
}

/* A server stopped by a signal (the usual end of `mcp --listen`) leaves
 * no directory: the socket and the directory go, then the signal ends the
 * process as it would have (the daemon sees its lifeline close). Only
 * unlink, rmdir, signal and raise: all safe in a handler. */
static void on_signal(int sig)
{
	unlink(addr.sun_path);
	rmdir(dir);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void clean_on_signals(void)
{
	static const int sigs[] = {SIGTERM, SIGINT, SIGHUP};
	struct sigaction sa = {.sa_handler = on_signal}, old;
	size_t i;

	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (!sigaction(sigs[i], NULL, &old) && old.sa_handler == SIG_DFL)
			sigaction(sigs[i], &sa, NULL);
}

static int dial(void)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd >= 0 && connect(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

extern char **environ;

/* Under lock: start the daemon and wait for its socket. */
static int start_daemon(struct mcp_call *c)
{
	static const char *const argv[] = {"wickfs", "daemon", "--listen", "off", "--lifeline",
					   "--socket", addr.sun_path, NULL};
	char self[PATH_MAX], **env;
	size_t n = 0, k = 0;
	ssize_t len;
	int p[2], i, fd, st, nul;
	pid_t pid;

	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len <= 0)
		return wfs_fail(c->ctx, "%s: processes need /proc: /proc/self/exe: %s", c->tool,
				strerror(errno));
	self[len] = 0;
	memcpy(dir, "/tmp/wickfs-mcp.XXXXXX", 23);
	if (!mkdtemp(dir))
		return wfs_fail(c->ctx, "%s: cannot make a directory for the daemon under /tmp: %s", c->tool, strerror(errno));
	n = strlen(dir);
	memcpy(addr.sun_path, dir, n);
	memcpy(addr.sun_path + n, "/sock", 6);
	n = 0;
	/* The environment without the daemon's own settings and the root:
	 * those are this server's, not its daemon's. Made before the fork. */
	while (environ[n])
		n++;
	if (!(env = malloc((n + 1) * sizeof(*env))) || pipe2(p, O_CLOEXEC)) {
		free(env);
		rmdir(dir);
		return wfs_fail(c->ctx, "%s: %s", c->tool, strerror(errno));
	}
	for (n = 0; environ[n]; n++)
		if (strncmp(environ[n], "DAEMON_", 7) && strncmp(environ[n], "WICKFS_ROOT=", 12))
			env[k++] = environ[n];
	env[k] = NULL;
	/* its stdout is not ours: over stdio that is the client's channel */
	nul = open("/dev/null", O_WRONLY | O_CLOEXEC);
	pid = fork();
	if (!pid) {
		dup2(p[0], 0);
		dup2(nul >= 0 ? nul : 2, 1);
		execve(self, (char *const *)argv, env);
		_exit(127);
	}
	free(env);
	close(p[0]);
	if (nul >= 0)
		close(nul);
	if (pid < 0) {
		close(p[1]);
		rmdir(dir);
		return wfs_fail(c->ctx, "%s: fork: %s", c->tool, strerror(errno));
	}
	/* p[1] stays open, close-on-exec, for as long as this process lives */
	addr.sun_family = AF_UNIX;
	for (i = 0; i < 500; i++) {
		if ((fd = dial()) >= 0) {
			close(fd);
			daemon_pid = pid;
			clean_on_signals();
			return 0;
		}
		if (waitpid(pid, &st, WNOHANG) == pid)
			break;
		nanosleep(&(struct timespec){0, 10000000}, NULL);
	}
	close(p[1]);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	rmdir(dir);
	return wfs_fail(c->ctx, "%s: the daemon for processes did not start (its log is on "
				"stderr)",
			c->tool);
}

/* A connection to the daemon, started (again, if it died) as needed. */
static int connect_daemon(struct mcp_call *c)
{
	int fd = -1;

	pthread_mutex_lock(&lock);
	if (daemon_pid > 0 && (fd = dial()) < 0 && waitpid(daemon_pid, NULL, WNOHANG) == daemon_pid)
		daemon_pid = -1; /* it died: its processes with it */
	if (fd < 0 && !start_daemon(c) && (fd = dial()) < 0)
		wfs_fail(c->ctx, "%s: the daemon for processes: %s", c->tool, strerror(errno));
	pthread_mutex_unlock(&lock);
	return fd;
}

/* Send req (one line), read the answer's line into ans. */
static int exchange(struct mcp_call *c, const struct buf *req, struct buf *ans)
{
	struct pollfd pf = {.events = POLLIN};
	size_t off = 0;
	ssize_t k;
	char *nl = NULL;

	if ((pf.fd = connect_daemon(c)) < 0)
		return -1;
	while (off < req->len && (k = write(pf.fd, req->p + off, req->len - off)) > 0)
		off += (size_t)k;
	/* read until the newline; a cancel of the call (a long wait) ends it */
	while (off == req->len && !nl && ans->len < ANSWER_MAX) {
		if (c->ctx->cancel && *c->ctx->cancel)
			break;
		if (poll(&pf, 1, 200) <= 0)
			continue;
		if (buf_reserve(ans, 65536) || (k = read(pf.fd, ans->p + ans->len, 65536)) <= 0)
			break;
		nl = memchr(ans->p + ans->len, '\n', (size_t)k);
		ans->len += (size_t)k;
	}
	close(pf.fd);
	if (!nl)
		return wfs_fail(c->ctx, "%s: the daemon for processes gave no answer%s", c->tool,
				c->ctx->cancel && *c->ctx->cancel ? " (cancelled)" : "");
	ans->len = (size_t)(nl - ans->p);
	return 0;
}

/* Which process: "handle" or "tag". */
static int put_which(struct mcp_call *c, struct buf *b)
{
	const char *tag = NULL;
	long long h = 0;
	int given = 0;

	if (mcp_arg_int(c, "handle", &h, &given) || mcp_arg_str(c, "tag", 0, &tag, NULL))
		return -1;
	if (given)
		buf_printf(b, ",\"handle\":%lld", h);
	else if (tag) {
		buf_puts(b, ",\"tag\":");
		json_cstr(b, tag);
	} else
		return mcp_bad_arg(c, "handle", "is required (or \"tag\"): the process's handle from start_process");
	return 0;
}

/* Numbers (and booleans, marked "?") copied under the daemon's names:
 * "mcp=daemon,?mcp=daemon". */
static int put_fields(struct mcp_call *c, struct buf *b, const char *spec)
{
	char key[24], as[24];
	long long v;
	int given, flag, is_bool;

	while (*spec) {
		size_t n, m;

		is_bool = *spec == '?';
		spec += is_bool;
		n = strcspn(spec, "=");
		m = strcspn(spec + n + 1, ",");
		snprintf(key, sizeof(key), "%.*s", (int)n, spec);
		snprintf(as, sizeof(as), "%.*s", (int)m, spec + n + 1);
		spec += n + 1 + m + (spec[n + 1 + m] == ',');
		flag = 2;
		given = 0;
		if (is_bool) {
			if (mcp_arg_bool(c, key, &flag))
				return -1;
			if (flag != 2)
				buf_printf(b, ",\"%s\":%s", as, flag ? "true" : "false");
		} else if (mcp_arg_int(c, key, &v, &given))
			return -1;
		else if (given) {
			if (v < 0)
				return mcp_bad_arg(c, key, "must be 0 or more");
			buf_printf(b, ",\"%s\":%lld", as, v);
		}
	}
	return 0;
}

static int put_str(struct mcp_call *c, struct buf *b, const char *key, const char *as,
		   int required)
{
	const char *s = NULL;
	size_t n = 0;

	if (mcp_arg_str(c, key, required, &s, &n))
		return -1;
	if (s) {
		buf_printf(b, ",\"%s\":", as);
		json_str(b, s, n);
	}
	return 0;
}

/* The daemon's answer as the tool's: its data, or its error. */
static int answer(struct mcp_call *c, const struct buf *req)
{
	static const char ok[] = "{\"id\":\"m\",\"ok\":true,\"data\":";
	struct json_val v;
	struct buf ans;
	const char *msg = NULL;
	char err[96];
	int rc = -1;

	buf_init(&ans);
	if (req->oom)
		wfs_fail(c->ctx, "%s: out of memory", c->tool);
	else if (!exchange(c, req, &ans)) {
		if (ans.len > sizeof(ok) && !memcmp(ans.p, ok, sizeof(ok) - 1) &&
		    ans.p[ans.len - 1] == '}') {
			buf_add(&c->data, ans.p + sizeof(ok) - 1, ans.len - sizeof(ok));
			rc = c->data.oom ? wfs_fail(c->ctx, "%s: out of memory", c->tool) : 0;
			buf_add(&c->text, c->data.p, c->data.len);
		} else if (!json_parse(c->a, ans.p, ans.len, &v, err, sizeof(err)) &&
			   v.type == JSON_OBJ && !json_get_str(&v, "error", &msg, NULL) && msg)
			wfs_fail(c->ctx, "%s: %s", c->tool, msg);
		else
			wfs_fail(c->ctx, "%s: the daemon's answer is not one of ours: %.200s",
				 c->tool, ans.p);
	}
	buf_free(&ans);
	return rc;
}

static void begin(struct buf *b, const char *op)
{
	buf_init(b);
	buf_printf(b, "{\"id\":\"m\",\"op\":\"%s\"", op);
}

static int finish(struct mcp_call *c, struct buf *b, int rc)
{
	if (!rc) {
		buf_puts(b, "}\n");
		rc = answer(c, b);
	}
	buf_free(b);
	return rc;
}

int mcp_start_process(struct mcp_call *c)
{
	const char *cwd, *log = NULL, *cmd;
	size_t n;
	struct buf b;

	cwd = mcp_get(c->args, "cwd") ? mcp_path_arg(c, "cwd") : mcp_path(c, c->s->dirs[0]);
	if (!cwd || mcp_arg_str(c, "command", 1, &cmd, &n))
		return -1;
	if (mcp_get(c->args, "log") && !(log = mcp_path_arg(c, "log")))
		return -1;
	begin(&b, "start");
	buf_puts(&b, ",\"args\":[");
	json_str(&b, cmd, n);
	buf_puts(&b, "],\"workdir\":");
	json_cstr(&b, cwd);
	if (log) {
		/* opened by the daemon beneath the allowed directory that holds
		 * it, so no symlink swapped in since the check leads out */
		buf_puts(&b, ",\"log\":");
		json_cstr(&b, log);
		buf_puts(&b, ",\"root\":");
		json_cstr(&b, c->ctx->root);
	}
	return finish(c, &b,
		      put_str(c, &b, "tag", "tag", 0) || put_str(c, &b, "stdin", "stdin", 0) ||
			      put_fields(c, &b,
					 "timeout=timeout,idleTimeout=idle_timeout,?detach=detach"));
}

int mcp_list_processes(struct mcp_call *c)
{
	struct buf b;

	begin(&b, "list");
	return finish(c, &b, 0);
}

int mcp_process_output(struct mcp_call *c)
{
	struct buf b;

	begin(&b, "output");
	return finish(c, &b,
		      put_which(c, &b) ||
			      put_fields(c, &b, "offset=offset,stderrOffset=stderr_offset"));
}

int mcp_send_input(struct mcp_call *c)
{
	struct buf b;

	begin(&b, "input");
	return finish(c, &b,
		      put_which(c, &b) || put_str(c, &b, "input", "stdin", 0) ||
			      put_fields(c, &b, "?eof=eof"));
}

int mcp_signal_process(struct mcp_call *c)
{
	struct buf b;

	begin(&b, "signal");
	return finish(c, &b, put_which(c, &b) || put_str(c, &b, "signal", "signal", 1));
}

int mcp_wait_process(struct mcp_call *c)
{
	long long t = 30;
	int given;
	struct buf b;

	if (mcp_arg_int(c, "timeout", &t, &given))
		return -1;
	if (t < 0 || t > 3600)
		return mcp_bad_arg(c, "timeout", "must be 0 to 3600 seconds");
	begin(&b, "wait");
	buf_printf(&b, ",\"timeout\":%lld", t);
	return finish(c, &b, put_which(c, &b));
}

int mcp_kill_process(struct mcp_call *c)
{
	struct buf b;

	begin(&b, "kill");
	return finish(c, &b, put_which(c, &b));
}

/* ---- resource subscriptions: a file or a tree, watched by the daemon ----
 *
 * resources/subscribe sends the daemon a watch of the URI's path (with
 * its subtree); a thread of the subscription reads the events and says
 * notifications/resources/updated for the URI, once for what one read
 * brings (a burst of changes is one notification). It ends when the
 * subscription is dropped (the connection is shut, the daemon ends the
 * watch) or when the daemon does (the path was deleted or moved). */
struct sub {
	struct sub *next;
	struct mcp_server *s;
	mcp_updated_fn *updated;
	int fd;
	char uri[];
};

static struct sub *subs;

static void *notifier(void *arg)
{
	struct sub *u = arg, **p;
	char b[4096];
	ssize_t n;

	while ((n = read(u->fd, b, sizeof(b))) > 0 || (n < 0 && errno == EINTR))
		if (n > 0 && memmem(b, (size_t)n, "\"event\":\"", 9))
			u->updated(u->s, u->uri);
	pthread_mutex_lock(&lock);
	for (p = &subs; *p; p = &(*p)->next)
		if (*p == u) {
			*p = u->next;
			break;
		}
	pthread_mutex_unlock(&lock);
	close(u->fd);
	free(u);
	return NULL;
}

static struct sub **sub_find(const char *uri)
{
	struct sub **p;

	for (p = &subs; *p && strcmp((*p)->uri, uri); p = &(*p)->next)
		;
	return p;
}

int mcp_subscribe(struct mcp_server *s, struct arena *a, const char *uri, int on,
		  mcp_updated_fn *updated, char *err, size_t errlen)
{
	struct mcp_call c;
	struct wfs_ctx ctx;
	struct sub *u, **p;
	struct buf req;
	const char *path = mcp_uri_path(a, uri);
	char line[1024];
	size_t n = 0;
	pthread_t t;
	int fd, rc;

	if (!path) {
		snprintf(err, errlen, "Invalid params: uri must be a file:// URI, got %s", uri);
		return -32602;
	}
	pthread_mutex_lock(&lock);
	p = sub_find(uri);
	if (!on && *p) {
		shutdown((*p)->fd, SHUT_RDWR); /* its thread unlinks and frees it */
		*p = (*p)->next;
	}
	pthread_mutex_unlock(&lock);
	if (!on || *p)
		return 0;
	if ((rc = mcp_resource_call(&c, &ctx, s, a, "resources/subscribe", uri, &path, err, errlen)))
		return rc;
	if ((fd = connect_daemon(&c)) < 0) {
		snprintf(err, errlen, "Resource not found: %s", ctx.err);
		return -32002;
	}
	buf_init(&req);
	buf_puts(&req, "{\"id\":\"w\",\"op\":\"watch\",\"recursive\":true,\"path\":");
	json_cstr(&req, path);
	buf_puts(&req, ",\"root\":"); /* as start's log */
	json_cstr(&req, ctx.root);
	buf_puts(&req, "}\n");
	/* the first line, a byte at a time: what follows is the thread's */
	if (!req.oom && !bytes_write_all(fd, req.p, req.len))
		while (n < sizeof(line) - 1 && read(fd, line + n, 1) == 1 && line[n] != '\n')
			n++;
	line[n] = 0;
	buf_free(&req);
	if (!strstr(line, "\"event\":\"watching\"")) {
		struct json_val v;
		const char *msg = NULL;

		close(fd);
		if (json_parse(a, line, n, &v, err, errlen) || v.type != JSON_OBJ ||
		    json_get_str(&v, "error", &msg, NULL) || !msg)
			msg = "the daemon gave no answer";
		snprintf(err, errlen, "Resource not found: %s", msg);
		return -32002;
	}
	if (!(u = malloc(sizeof(*u) + strlen(uri) + 1))) {
		close(fd);
		snprintf(err, errlen, "resources/subscribe %s: out of memory", uri);
		return -32603;
	}
	u->s = s;
	u->updated = updated;
	u->fd = fd;
	strcpy(u->uri, uri);
	pthread_mutex_lock(&lock);
	u->next = subs;
	subs = u;
	if (pthread_create(&t, NULL, notifier, u)) {
		subs = u->next;
		pthread_mutex_unlock(&lock);
		close(fd);
		free(u);
		snprintf(err, errlen, "resources/subscribe %s: cannot start a thread", uri);
		return -32603;
	}
	pthread_detach(t);
	pthread_mutex_unlock(&lock);
	return 0;
}
