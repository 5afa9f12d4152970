/* server.c - MCP's JSON-RPC over stdio: one message a line, answered in
 * order, one at a time.
 *
 * Every message gets its own arena, dropped when it is answered. Nothing
 * a client sends stops the server: a line that is no JSON, no request or
 * names an unknown method gets a JSON-RPC error and the next line is read.
 * The server asks the client for its roots (roots/list) itself, so the
 * answers to those requests arrive as messages without a method.
 *
 * While a tool that may take long runs, a thread reads what the client
 * sends meanwhile, only to see a notifications/cancelled for it (the
 * operations stop on ctx->cancel), and sends progress notifications when
 * the request has a progressToken; the loop then handles those lines in
 * their order.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "arena.h"
#include "bytes.h"
#include "confine.h"
#include "mounts.h"
#include "ctx.h"
#include "path.h"
#include "mcp_int.h"

/* A line longer than this is refused unread: write_file's content rides
 * in one line, so it is generous. */
#define MCP_LINE_MAX (64u << 20)

static const char *const versions[] = {"2025-11-25", "2025-06-18"};
static const char *const levels[] = {"debug", "info", "notice", "warning",
				     "error", "critical", "alert", "emergency"};

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

static void send_buf(struct mcp_server *s, struct buf *b)
{
	if (b->oom)
		return;
	if (s->emit)
		return s->emit(s, b->p, b->len);
	buf_putc(b, '\n');
	if (b->oom)
		return;
	/* whole lines: subscriptions' threads send too */
	pthread_mutex_lock(&out_lock);
	if (bytes_write_all(s->out_fd, b->p, b->len))
		s->in_fd = -1; /* the client is gone: stop reading */
	pthread_mutex_unlock(&out_lock);
}

static void resource_updated(struct mcp_server *s, const char *uri)
{
	struct buf b;

	buf_init(&b);
	buf_puts(&b, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/resources/updated\","
		     "\"params\":{\"uri\":");
	json_cstr(&b, uri);
	buf_puts(&b, "}}");
	send_buf(s, &b);
	buf_free(&b);
}

/* The id as it came: a string or a number (null for a message that had
 * none we could read). */
static void put_id(struct buf *b, const struct json_val *id)
{
	if (id && id->type == JSON_STR)
		json_str(b, id->str, id->len);
	else if (id && id->type == JSON_NUM)
		buf_puts(b, id->str);
	else
		buf_puts(b, "null");
}

static void send_error(struct mcp_server *s, const struct json_val *id, int code,
		       const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void send_error(struct mcp_server *s, const struct json_val *id, int code,
		       const char *fmt, ...)
{
	struct buf b, m;
	va_list ap;

	buf_init(&b);
	buf_init(&m);
	va_start(ap, fmt);
	buf_vprintf(&m, fmt, ap);
	va_end(ap);
	buf_puts(&b, "{\"jsonrpc\":\"2.0\",\"id\":");
	put_id(&b, id);
	buf_printf(&b, ",\"error\":{\"code\":%d,\"message\":", code);
	json_str(&b, m.p ? m.p : "", m.len);
	buf_puts(&b, "}}");
	send_buf(s, &b);
	buf_free(&b);
	buf_free(&m);
}

/* {"jsonrpc":"2.0","id":ID,"result": ... the caller adds the rest. */
static void result_open(struct buf *b, const struct json_val *id)
{
	buf_puts(b, "{\"jsonrpc\":\"2.0\",\"id\":");
	put_id(b, id);
	buf_puts(b, ",\"result\":");
}

static void send_result(struct mcp_server *s, const struct json_val *id,
			const char *result)
{
	struct buf b;

	buf_init(&b);
	result_open(&b, id);
	buf_puts(&b, result);
	buf_putc(&b, '}');
	send_buf(s, &b);
	buf_free(&b);
}

/* A log line on stderr, and to the client once it set a level. */
static void mcp_log(struct mcp_server *s, int level, const char *msg)
{
	struct buf b;

	buf_init(&b);
	buf_printf(&b, "wickfs mcp: %s\n", msg);
	bytes_write_all(2, b.p, b.len); /* no stderr: nothing to do about it */
	if (s->log_level >= 0 && level >= s->log_level) {
		buf_reset(&b);
		buf_printf(&b, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\","
			       "\"params\":{\"level\":\"%s\",\"logger\":\"wickfs\",\"data\":",
			   levels[level]);
		json_cstr(&b, msg);
		buf_puts(&b, "}}");
		send_buf(s, &b);
	}
	buf_free(&b);
}

void mcp_free_dirs(struct mcp_server *s)
{
	size_t i;

	if (s->dirs_refs && !__atomic_sub_fetch(s->dirs_refs, 1, __ATOMIC_ACQ_REL)) {
		for (i = 0; i < s->ndirs; i++) {
			free(s->dirs[i]);
			free(s->given[i]);
		}
		free(s->dirs);
		free(s->given);
		free(s->ro);
		free(s->dirs_refs);
	}
	s->ro = NULL;
	s->dirs = s->given = NULL;
	s->dirs_refs = NULL;
	s->ndirs = 0;
}

void mcp_hold_dirs(struct mcp_server *s)
{
	if (s->dirs_refs)
		__atomic_add_fetch(s->dirs_refs, 1, __ATOMIC_RELAXED);
}

/* path made absolute against the working directory and cleaned. */
static char *absolute(const char *path)
{
	struct arena a;
	char cwd[PATH_MAX], *joined, *clean, *r = NULL;

	arena_init(&a);
	if (path[0] == '/')
		joined = arena_strdup(&a, path);
	else
		joined = getcwd(cwd, sizeof(cwd)) ? arena_printf(&a, "%s/%s", cwd, path) : NULL;
	clean = joined ? path_clean(&a, joined) : NULL;
	if (clean)
		r = strdup(clean);
	arena_free(&a);
	return r;
}

/* A mount's parts: VPATH (len *vlen), DIR in dir (NUL-ended), ro. */
int mcp_set_dirs(struct mcp_server *s, const char *const *paths, size_t n,
		 struct buf *err)
{
	size_t i, k = 0, nm = 0, vl;
	char **dirs, **given, dir[4096], rbuf[PATH_MAX + 1];
	unsigned char *ro;
	int r, *refs = malloc(sizeof(*refs));

	while (s->mounts && s->mounts[nm])
		nm++;
	dirs = calloc(n + nm + 1, sizeof(*dirs));
	given = calloc(n + nm + 1, sizeof(*given));
	ro = calloc(n + nm + 1, 1);
	for (i = 0; refs && dirs && given && ro && i < n + nm; i++) {
		const char *p = i < n ? paths[i] : dir;
		char *real, *abs;
		struct stat st;

		if (i >= n) { /* a mount: DIR under the name VPATH */
			if (mounts_split(s->mounts[i - n], &vl, dir, sizeof(dir), &r))
				continue;
			ro[k] = (unsigned char)r;
		}
		real = wfs_realpath(p, rbuf) ? strdup(rbuf) : NULL;
		abs = i < n ? absolute(p) : strndup(s->mounts[i - n], vl);
		if (!real || !abs || stat(real, &st) || !S_ISDIR(st.st_mode)) {
			buf_printf(err, "skipping %s: %s\n", p,
				   real && abs ? "not a directory" : strerror(errno));
			free(real);
			free(abs);
			continue;
		}
		dirs[k] = real;
		given[k++] = abs;
	}
	if (!k) {
		free(dirs);
		free(given);
		free(ro);
		free(refs);
		return -1;
	}
	mcp_free_dirs(s);
	*refs = 1;
	s->dirs_refs = refs;
	s->dirs = dirs;
	s->given = given;
	s->ro = ro;
	s->ndirs = k;
	/* a session's roots (HTTP) are its own: the process stays where it is
	 * (tools make relative paths absolute against dirs[0] themselves) */
	if (!s->emit && chdir(dirs[0]))
		buf_printf(err, "cannot enter %s: %s\n", dirs[0], strerror(errno));
	return 0;
}

static void ask_roots(struct mcp_server *s)
{
	struct buf b;

	buf_init(&b);
	buf_printf(&b, "{\"jsonrpc\":\"2.0\",\"id\":\"wickfs-roots-%u\",\"method\":\"roots/list\"}",
		   ++s->roots_asked);
	if (s->ask && !b.oom)
		s->ask(s, b.p, b.len);
	else
		send_buf(s, &b);
	buf_free(&b);
}

/* The answer to our roots/list. */
static void got_roots(struct mcp_server *s, struct arena *a, const struct json_val *msg)
{
	const struct json_val *roots = mcp_get(mcp_get(msg, "result"), "roots");
	const char **paths;
	struct buf err;
	size_t i, n = 0;
	int rc;

	if (!roots || roots->type != JSON_ARR) {
		mcp_log(s, 4, "roots/list failed: keeping the allowed directories");
		return;
	}
	paths = arena_alloc(a, (roots->len + 1) * sizeof(*paths));
	for (i = 0; paths && i < roots->len; i++) {
		const struct json_val *u = mcp_get(&roots->items[i], "uri");
		char *p = u && u->type == JSON_STR ? mcp_uri_path(a, u->str) : NULL;
		if (p)
			paths[n++] = p;
	}
	buf_init(&err);
	rc = !paths || mcp_set_dirs(s, paths, n, &err);
	if (err.len) {
		err.p[err.len - 1] = 0; /* its last newline */
		mcp_log(s, 3, err.p);
	}
	if (rc) {
		mcp_log(s, 4, "no valid root directory from the client: keeping the allowed directories");
	} else {
		buf_reset(&err);
		buf_printf(&err, "allowed directories from the client's roots: %zu", s->ndirs);
		mcp_log(s, 1, err.p);
	}
	buf_free(&err);
}

static void initialize(struct mcp_server *s, const struct json_val *id,
		       const struct json_val *params)
{
	const struct json_val *v = mcp_get(params, "protocolVersion");
	const char *ver = versions[0];
	struct buf b;
	size_t i;

	if (!v || v->type != JSON_STR)
		return send_error(s, id, -32602, "Invalid params: protocolVersion must be a string");
	for (i = 0; i < sizeof(versions) / sizeof(*versions); i++)
		if (!strcmp(v->str, versions[i]))
			ver = versions[i];
	/* over HTTP, roots/list goes out on the session's GET stream */
	s->client_roots = mcp_get(mcp_get(params, "capabilities"), "roots") != NULL;
	if (!s->ndirs && !s->client_roots)
		return send_error(s, id, -32602, "no allowed directories: start the server with "
						 "directory arguments, or use a client with roots");
	snprintf(s->version, sizeof(s->version), "%s", ver);
	buf_init(&b);
	result_open(&b, id);
	/* subscriptions over stdio, where a notification has a way out */
	buf_printf(&b, "{\"protocolVersion\":\"%s\",\"capabilities\":{\"tools\":"
		       "{\"listChanged\":false},\"logging\":{},\"resources\":{%s}},\"serverInfo\":{\"name\":"
		       "\"wickfs\",\"version\":\"" WFS_VERSION "\"}}}",
		   ver, s->emit ? "" : "\"subscribe\":true");
	send_buf(s, &b);
	buf_free(&b);
}

static int tool_hidden(const struct mcp_server *s, const struct mcp_tool *t)
{
	if (t->flags & MCP_SPAWNS)
		return s->no_commands || (s->readonly && !s->readonly_exec);
	return s->readonly && !(t->flags & MCP_RO);
}

static void tools_list(struct mcp_server *s, const struct json_val *id)
{
	struct buf b, text;
	struct mcp_tool_text *tt;
	size_t i;
	int first = 1;

	buf_init(&text);
	if (!(tt = mcp_tool_texts(&text))) {
		buf_free(&text);
		send_error(s, id, -32603, "tools/list: the tools' descriptions cannot be read");
		return;
	}
	buf_init(&b);
	result_open(&b, id);
	buf_puts(&b, "{\"tools\":[");
	for (i = 0; i < mcp_tool_count; i++) {
		const struct mcp_tool *t = &mcp_tools[i];
		unsigned f = t->flags;

		if (tool_hidden(s, t))
			continue;
		buf_puts(&b, first ? "{\"name\":\"" : ",{\"name\":\"");
		first = 0;
		buf_printf(&b, "%s\",\"title\":\"%s\",\"description\":", t->name, tt[i].title);
		json_cstr(&b, tt[i].desc);
		buf_puts(&b, ",\"inputSchema\":");
		mcp_put_schema(&b, tt[i].input);
		buf_puts(&b, ",\"outputSchema\":");
		mcp_put_schema(&b, tt[i].output);
		buf_putc(&b, ',');
		buf_printf(&b, "\"annotations\":{\"title\":\"%s\",\"readOnlyHint\":%s,",
			   tt[i].title, f & MCP_RO ? "true" : "false");
		if (!(f & MCP_RO))
			buf_printf(&b, "\"destructiveHint\":%s,\"idempotentHint\":%s,",
				   f & MCP_DESTRUCTIVE ? "true" : "false",
				   f & MCP_IDEMPOTENT ? "true" : "false");
		buf_puts(&b, "\"openWorldHint\":false}}");
	}
	buf_puts(&b, "]}}");
	send_buf(s, &b);
	buf_free(&b);
	free(tt);
	buf_free(&text);
}

/* Cut text to max bytes at a character's start, and say so. */
static void cap_text(struct buf *t, size_t max)
{
	size_t total = t->len, keep = max;

	if (t->len <= max)
		return;
	while (keep && ((unsigned char)t->p[keep] & 0xc0) == 0x80)
		keep--;
	t->len = keep;
	buf_printf(t, "\n[... result truncated: %zu of %zu bytes shown; ask for a part "
		      "(head/tail, read_lines offset/limit, a narrower path or pattern)]",
		   keep, total);
}

/* The watch over stdin while a long tool runs. */
struct watch {
	struct mcp_server *s;
	const struct json_val *id;    /* the request running */
	const struct json_val *token; /* its progressToken, or NULL */
	const char *tool;
	volatile int cancel;
	int stop[2]; /* a pipe: written when the tool is done */
	size_t scanned;
};

/* Does this line cancel w's request? */
static int cancels(struct watch *w, const char *line, size_t n)
{
	const struct json_val *m, *rid;
	struct json_val msg;
	struct arena a;
	char err[64];
	int yes = 0;

	if (!memmem(line, n, "notifications/cancelled", 23))
		return 0;
	arena_init(&a);
	if (!json_parse(&a, line, n, &msg, err, sizeof(err))) {
		m = mcp_get(&msg, "method");
		rid = mcp_get(mcp_get(&msg, "params"), "requestId");
		yes = m && m->type == JSON_STR && !strcmp(m->str, "notifications/cancelled") &&
		      rid && rid->type == w->id->type && !strcmp(rid->str, w->id->str);
	}
	arena_free(&a);
	return yes;
}

static void progress(struct watch *w, unsigned seconds)
{
	struct buf b;

	buf_init(&b);
	buf_puts(&b, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\","
		     "\"params\":{\"progressToken\":");
	put_id(&b, w->token);
	buf_printf(&b, ",\"progress\":%u,\"message\":\"%s: running for %u s\"}}", seconds,
		   w->tool, seconds);
	send_buf(w->s, &b);
	buf_free(&b);
}

static void *watch_run(void *arg)
{
	struct watch *w = arg;
	struct buf *got = &w->s->late;
	char chunk[16384];
	long long next = wfs_now_ms() + 1000;
	unsigned seconds = 0;
	int in_open = w->s->in_fd >= 0, hup = !in_open && w->s->hup_fd >= 0, r;

	while (!w->cancel) {
		struct pollfd p[2] = {{w->stop[0], POLLIN, 0},
				      {in_open ? w->s->in_fd : w->s->hup_fd, in_open ? POLLIN : POLLRDHUP, 0}};
		const char *nl;
		ssize_t n;

		/* with a progressToken, a notification each second it runs */
		long long now = wfs_now_ms();

		if (w->token && now >= next) {
			progress(w, ++seconds);
			next += 1000;
			continue;
		}
		r = poll(p, in_open || hup ? 2 : 1, w->token ? (int)(next - now) : -1);
		if (r < 0 && errno != EINTR)
			break;
		if (p[0].revents)
			break;
		if (hup && p[1].revents) /* the HTTP client left: its answer has no reader */
			w->cancel = 1;
		if (!in_open || !p[1].revents)
			continue;
		n = read(w->s->in_fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			in_open = 0; /* the end of input: the loop sees it again */
			continue;
		}
		buf_add(got, chunk, (size_t)n);
		while (!got->oom && (nl = memchr(got->p + w->scanned, '\n', got->len - w->scanned))) {
			size_t start = w->scanned;
			w->scanned = (size_t)(nl - got->p) + 1;
			if (cancels(w, got->p + start, w->scanned - start))
				w->cancel = 1;
		}
		if (got->len >= MCP_LINE_MAX)
			in_open = 0; /* enough held: the loop refuses it */
	}
	return NULL;
}

/* Run t, watching for its cancellation when it may take long: 0, 1 when
 * cancelled (no answer then), -1 with ctx->err. */
static int run_tool(struct mcp_server *s, const struct mcp_tool *t, struct mcp_call *c,
		    const struct json_val *id, const struct json_val *token)
{
	struct watch w = {0};
	const char *p, *nl;
	pthread_t th;
	int rc;

	w.s = s;
	w.id = id;
	w.tool = t->name;
	if (token && (token->type == JSON_STR || token->type == JSON_NUM))
		w.token = token;
	if (!(t->flags & MCP_LONG))
		return t->run(c); /* quick: a cancel would come too late anyway */
	/* lines already read, not yet handled, may cancel it before it runs */
	for (p = s->ahead; p && p < s->ahead + s->ahead_len; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(s->ahead + s->ahead_len - p));
		if (!nl)
			break;
		if (cancels(&w, p, (size_t)(nl - p)))
			return 1;
	}
	/* nothing to watch: no input (HTTP, or the client left), no progress */
	if ((s->in_fd < 0 && s->hup_fd < 0 && !w.token) || pipe2(w.stop, O_CLOEXEC))
		return t->run(c);
	if (pthread_create(&th, NULL, watch_run, &w)) {
		close(w.stop[0]);
		close(w.stop[1]);
		return t->run(c);
	}
	c->ctx->cancel = &w.cancel;
	if (s->running) /* HTTP: a cancel comes on another connection */
		s->running(s, id, &w.cancel);
	rc = t->run(c);
	if (s->running)
		s->running(s, id, NULL);
	if (write(w.stop[1], "x", 1) < 0)
		w.cancel = 1; /* cannot happen: the pipe is ours and empty */
	pthread_join(th, NULL);
	close(w.stop[0]);
	close(w.stop[1]);
	c->ctx->cancel = NULL;
	return w.cancel ? 1 : rc;
}

/* Why a hidden tool is refused, in ctx->err; -1. */
static int hidden_refusal(const struct mcp_server *s, const struct mcp_tool *t,
			  struct wfs_ctx *ctx)
{
	if (!(t->flags & MCP_SPAWNS))
		return wfs_writable(ctx, t->name, NULL);
	if (s->no_commands)
		return wfs_fail(ctx, "%s: refused, the server runs with --no-commands", t->name);
	return wfs_fail(ctx, "%s: " WFS_READONLY_SPAWN_REFUSED, t->name);
}

static void tools_call(struct mcp_server *s, struct arena *a, const struct json_val *id,
		       const struct json_val *params)
{
	static const struct json_val empty = {.type = JSON_OBJ};
	const struct json_val *name = mcp_get(params, "name");
	const struct json_val *args = mcp_get(params, "arguments");
	const struct mcp_tool *t = NULL;
	struct mcp_call c = {0};
	struct wfs_ctx ctx;
	struct buf b;
	size_t i;
	int rc;

	if (!name || name->type != JSON_STR)
		return send_error(s, id, -32602, "Invalid params: name must be a string");
	for (i = 0; i < mcp_tool_count && !t; i++)
		if (!strcmp(mcp_tools[i].name, name->str))
			t = &mcp_tools[i];
	if (!t)
		return send_error(s, id, -32602, "Unknown tool: %s", name->str);
	if (args && args->type != JSON_OBJ && args->type != JSON_NULL)
		return send_error(s, id, -32602, "Invalid params: arguments must be an object");
	wfs_ctx_init_root(&ctx, a, NULL);
	if (s->set)
		ctx.set = s->set;
	ctx.readonly = s->readonly;
	ctx.readonly_exec = s->readonly_exec;
	c.s = s;
	c.ctx = &ctx;
	c.a = a;
	c.tool = t->name;
	c.flags = t->flags;
	c.args = args && args->type == JSON_OBJ ? args : &empty;
	buf_init(&c.text);
	buf_init(&c.data);
	buf_init(&c.content);
	if (tool_hidden(s, t))
		rc = hidden_refusal(s, t, &ctx);
	else if (!s->ndirs)
		rc = wfs_fail(&ctx, "%s: no allowed directories (the client has sent no roots yet)",
			      t->name);
	else
		rc = run_tool(s, t, &c, id, mcp_get(mcp_get(params, "_meta"), "progressToken"));
	if (rc > 0) {
		mcp_log(s, 1, "a request was cancelled: its answer is not sent");
		goto out;
	}
	if (!rc && (c.text.oom || c.data.oom || c.content.oom))
		rc = wfs_fail(&ctx, "%s: out of memory", t->name);
	buf_init(&b);
	result_open(&b, id);
	buf_puts(&b, "{\"content\":");
	if (rc) {
		buf_puts(&b, "[{\"type\":\"text\",\"text\":");
		json_cstr(&b, ctx.err);
		buf_puts(&b, "}],\"isError\":true}}");
	} else if (c.content.len) {
		buf_add(&b, c.content.p, c.content.len);
		buf_printf(&b, ",\"structuredContent\":{\"content\":%.*s}}}", (int)c.content.len,
			   c.content.p);
	} else {
		if (!c.no_cap)
			cap_text(&c.text, s->max_result ? s->max_result : MCP_RESULT_MAX);
		buf_puts(&b, "[{\"type\":\"text\",\"text\":");
		json_str(&b, c.text.p ? c.text.p : "", c.text.len);
		buf_puts(&b, "}],\"structuredContent\":");
		if (c.data.len) {
			buf_add(&b, c.data.p, c.data.len);
		} else {
			buf_puts(&b, "{\"content\":");
			json_str(&b, c.text.p ? c.text.p : "", c.text.len);
			buf_putc(&b, '}');
		}
		buf_puts(&b, "}}");
	}
	if (b.oom)
		send_error(s, id, -32603, "%s: out of memory for the answer", t->name);
	else
		send_buf(s, &b);
	buf_free(&b);
out:
	buf_free(&c.text);
	buf_free(&c.data);
	buf_free(&c.content);
}

/* A file as a resource: text when it is UTF-8, else a base64 blob. */
static void resource_read(struct mcp_server *s, struct arena *a, const struct json_val *id,
			  const struct json_val *params)
{
	const struct json_val *uri = mcp_get(params, "uri");
	char err[1024];
	struct buf b;
	int code;

	if (!uri || uri->type != JSON_STR)
		return send_error(s, id, -32602, "Invalid params: uri must be a string");
	buf_init(&b);
	result_open(&b, id);
	code = mcp_resource(s, a, uri->str, &b, err, sizeof(err));
	if (code) {
		send_error(s, id, code, "%s", err);
	} else {
		buf_putc(&b, '}');
		send_buf(s, &b);
	}
	buf_free(&b);
}

static void subscribe(struct mcp_server *s, struct arena *a, const struct json_val *id,
		      const struct json_val *params, int on)
{
	const struct json_val *uri = mcp_get(params, "uri");
	char err[1024];
	int code;

	if (!uri || uri->type != JSON_STR)
		return send_error(s, id, -32602, "Invalid params: uri must be a string");
	code = mcp_subscribe(s, a, uri->str, on, resource_updated, err, sizeof(err));
	if (code)
		return send_error(s, id, code, "%s", err);
	send_result(s, id, "{}");
}

static void set_level(struct mcp_server *s, const struct json_val *id,
		      const struct json_val *params)
{
	const struct json_val *l = mcp_get(params, "level");
	int i;

	for (i = 0; l && l->type == JSON_STR && i < 8; i++) {
		if (!strcmp(l->str, levels[i])) {
			s->log_level = i;
			return send_result(s, id, "{}");
		}
	}
	send_error(s, id, -32602, "Invalid params: level must be one of debug, info, notice, "
				  "warning, error, critical, alert, emergency");
}

static void notification(struct mcp_server *s, const char *method)
{
	if (!strcmp(method, "notifications/initialized")) {
		if (s->client_roots)
			ask_roots(s);
		else if (s->ndirs && !s->emit) /* HTTP: said once per session, noise */
			mcp_log(s, 1, "the client has no roots: serving the directories given");
	} else if (!strcmp(method, "notifications/roots/list_changed")) {
		ask_roots(s);
	}
	/* notifications/cancelled: requests are answered one at a time, so
	 * the one it names has been answered already; nothing to answer. */
}

void mcp_handle(struct mcp_server *s, struct arena *a, const char *line, size_t n)
{
	struct json_val msg;
	const struct json_val *id, *method, *params, *v;
	char err[160];

	if (json_parse(a, line, n, &msg, err, sizeof(err)))
		return send_error(s, NULL, -32700, "Parse error: %s", err);
	if (msg.type != JSON_OBJ)
		return send_error(s, NULL, -32600, "Invalid Request: %s",
				  msg.type == JSON_ARR ? "batches are not supported"
						       : "a message is an object");
	id = mcp_get(&msg, "id");
	method = mcp_get(&msg, "method");
	params = mcp_get(&msg, "params");
	if (params && params->type == JSON_NULL)
		params = NULL; /* as absent */
	if (id && id->type != JSON_STR && id->type != JSON_NUM)
		return send_error(s, NULL, -32600, "Invalid Request: id must be a string or a number");
	v = mcp_get(&msg, "jsonrpc");
	if (!v || v->type != JSON_STR || strcmp(v->str, "2.0"))
		return send_error(s, id, -32600, "Invalid Request: jsonrpc must be \"2.0\"");
	if (!method) {
		char want[32];
		snprintf(want, sizeof(want), "wickfs-roots-%u", s->roots_asked);
		if (!mcp_get(&msg, "result") && !mcp_get(&msg, "error"))
			send_error(s, id, -32600, "Invalid Request: method is missing");
		else if (id && id->type == JSON_STR && !strcmp(id->str, want))
			got_roots(s, a, &msg);
		return; /* an answer to nothing we asked: dropped */
	}
	if (method->type != JSON_STR)
		return send_error(s, id, -32600, "Invalid Request: method must be a string");
	if (params && params->type != JSON_OBJ)
		return send_error(s, id, -32602, "Invalid params: params must be an object");
	if (!id)
		return notification(s, method->str);
	if (!strcmp(method->str, "initialize"))
		initialize(s, id, params);
	else if (!strcmp(method->str, "ping"))
		send_result(s, id, "{}");
	else if (!strcmp(method->str, "tools/list"))
		tools_list(s, id);
	else if (!strcmp(method->str, "tools/call"))
		tools_call(s, a, id, params);
	else if (!strcmp(method->str, "logging/setLevel"))
		set_level(s, id, params);
	else if (!strcmp(method->str, "resources/list"))
		send_result(s, id, "{\"resources\":[]}");
	else if (!strcmp(method->str, "resources/templates/list"))
		send_result(s, id, MCP_FILE_TEMPLATE);
	else if (!strcmp(method->str, "resources/read"))
		resource_read(s, a, id, params);
	else if (!s->emit && !strncmp(method->str, "resources/", 10) &&
		 (!strcmp(method->str + 10, "subscribe") || !strcmp(method->str + 10, "unsubscribe")))
		subscribe(s, a, id, params, method->str[10] == 's');
	else
		send_error(s, id, -32601, "Method not found: %s", method->str);
}

int mcp_serve(struct mcp_server *s)
{
	struct arena a;
	struct buf in;
	size_t start = 0, scan = 0;
	int skipping = 0;

	s->log_level = -1;
	s->hup_fd = -1;
	buf_init(&s->late);
	arena_init(&a);
	buf_init(&in);
	while (s->in_fd >= 0) {
		char *nl;
		ssize_t got;

		if (buf_reserve(&in, 65536))
			break;
		got = read(s->in_fd, in.p + in.len, in.cap - in.len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		in.len += (size_t)got;
		while ((nl = memchr(in.p + scan, '\n', in.len - scan))) {
			size_t n = (size_t)(nl - (in.p + start)), next = (size_t)(nl - in.p) + 1;
			if (!skipping && n > MCP_LINE_MAX)
				send_error(s, NULL, -32700, "Parse error: a line over %u bytes",
					   MCP_LINE_MAX);
			else if (!skipping && n && !(n == 1 && in.p[start] == '\r')) {
				s->ahead = in.p + next;
				s->ahead_len = in.len - next;
				mcp_handle(s, &a, in.p + start, n);
			}
			skipping = 0;
			arena_reset(&a);
			if (s->late.len) { /* read while a tool ran: after what we hold */
				buf_add(&in, s->late.p, s->late.len);
				buf_free(&s->late);
			}
			start = scan = next;
		}
		scan = in.len;
		if (in.len - start > MCP_LINE_MAX && !skipping) {
			send_error(s, NULL, -32700, "Parse error: a line over %u bytes", MCP_LINE_MAX);
			skipping = 1;
		}
		if (skipping || start == in.len) {
			in.len = start = scan = 0; /* drop what was handled or refused */
		} else if (start) {
			memmove(in.p, in.p + start, in.len - start);
			in.len -= start;
			scan -= start;
			start = 0;
		}
	}
	if (in.len > start && !skipping)
		mcp_handle(s, &a, in.p + start, in.len - start); /* a last line without \n */
	buf_free(&in);
	buf_free(&s->late);
	arena_free(&a);
	return 0;
}
