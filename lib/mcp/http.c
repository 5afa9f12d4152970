/* http.c - MCP's Streamable HTTP transport: a small HTTP/1.1 server at /mcp
 *
 * A thread per connection: a request is handled start to end on its
 * connection's thread (a tool runs there, as on stdio), which is less code
 * than an event loop with the tools moved to workers, and a slow client
 * holds only its own thread. Each POST carries one JSON-RPC message and is
 * handled by mcp_handle, as a stdio line is, with the session's state.
 *
 * Notifications that come before an answer (progress, log messages) turn
 * the answer into an event stream when the client accepts one. What
 * answers no request of the client's (our roots/list) goes out on the
 * session's GET stream, one at a time, or waits for one to open. A
 * session is protocol state (the log level, the version) and its allowed
 * directories: the server's, until the client's roots replace them for
 * that session alone. Sets of directories are shared by counting their
 * holders (a request holds its session's while it runs), so a session
 * whose roots change under a running tool never frees them under it. A
 * long tool is cancelled as on stdio, by notifications/cancelled (here
 * from another connection, found through h->running) or by its client
 * leaving.
 */
#include <errno.h>
#include <stddef.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include "arena.h"
#include "bytes.h"
#include "netaddr.h"
#include "mcp_int.h"

#define HEAD_MAX 16384          /* request line and headers */
#define IDLE_SECONDS 60         /* a connection silent this long is closed */
#define SESSIONS_MAX 1024       /* sessions held at once */
#define THREAD_STACK (2u << 20) /* as the daemon's workers: tools recurse */
#define KEEPALIVE_MS 25000      /* a comment on an idle GET stream */

struct session {
	char id[33];
	struct mcp_server s;
	unsigned long long used; /* h->uses when last used: the oldest goes first */
	struct conn *stream;     /* its GET stream, when one is open */
	char pending[96];        /* a request of ours waiting for a stream */
	struct session *next;
};

struct http {
	const struct mcp_server *base;
	const struct mcp_http_opts *o;
	int loopback;
	pthread_mutex_t lock; /* guards what follows */
	struct session *sessions;
	struct conn *running; /* connections whose long tool may be cancelled */
	size_t nsessions, memory;
	unsigned long long uses;
	int conns;
};

struct conn {
	struct http *h;
	int fd;
	char in[HEAD_MAX];
	size_t have;         /* bytes in in[] */
	char head[HEAD_MAX]; /* the request's head, out of in[]: hd points here */
	/* the current request */
	int sse_only, sse_ok, streaming, failed;
	int reply;            /* it is a request: the client waits for an answer */
	char sid[33];         /* a GET stream's session */
	struct buf answer;    /* the last message, when not streaming */
	const char *session;  /* the request's Mcp-Session-Id */
	char run_id[80];      /* while a long tool runs: its request id, typed */
	volatile int *cancel; /* and its flag */
	struct conn *run_next;
};

struct head {
	char method[8];
	const char *target, *origin, *auth, *session, *version, *accept, *type;
	const char *length, *encoding, *expect, *connection;
	int http10;
};

static const char *reason(int code)
{
	switch (code) {
	case 200: return "OK";
	case 202: return "Accepted";
	case 400: return "Bad Request";
	case 401: return "Unauthorized";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 406: return "Not Acceptable";
	case 408: return "Request Timeout";
	case 411: return "Length Required";
	case 413: return "Content Too Large";
	case 415: return "Unsupported Media Type";
	case 431: return "Request Header Fields Too Large";
	case 501: return "Not Implemented";
	case 503: return "Service Unavailable";
	default: return "HTTP Version Not Supported";
	}
}

static int send_all(struct conn *c, const char *p, size_t n)
{
	while (n && !c->failed) {
		ssize_t k = send(c->fd, p, n, MSG_NOSIGNAL);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			c->failed = 1;
		else
			p += k, n -= (size_t)k;
	}
	return c->failed ? -1 : 0;
}

/* A whole answer; extra holds more header lines ("Name: v\r\n"). A text
 * body is a JSON-RPC error without an id, as the transport suggests. */
static void respond(struct conn *c, int code, const char *extra, const char *type,
		    const char *body, size_t len, int close_after)
{
	struct buf b;

	buf_init(&b);
	buf_printf(&b, "HTTP/1.1 %d %s\r\n%sContent-Length: %zu\r\n", code, reason(code),
		   extra ? extra : "", len);
	if (len)
		buf_printf(&b, "Content-Type: %s\r\n", type);
	buf_puts(&b, close_after ? "Connection: close\r\n\r\n" : "\r\n");
	buf_add(&b, body, len);
	if (b.oom || send_all(c, b.p, b.len))
		c->failed = 1;
	buf_free(&b);
}

static void refuse(struct conn *c, int code, const char *extra, const char *why, int close_after)
{
	struct buf b;

	buf_init(&b);
	buf_printf(&b, "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":%d,\"message\":",
		   !strncmp(why, "Parse error", 11) ? -32700 : (code == 404 ? -32001 : -32000));
	json_cstr(&b, why);
	buf_puts(&b, "}}");
	respond(c, code, extra, "application/json", b.p ? b.p : "", b.len, close_after);
	buf_free(&b);
}

/* One SSE event or comment on a GET stream, whole or not at all: never
 * waits (it is sent with h->lock held), so a client that stops reading
 * loses its stream, not our time. */
static int stream_put(int fd, const char *p, size_t n)
{
	ssize_t k = send(fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);

	if (k == (ssize_t)n)
		return 0;
	shutdown(fd, SHUT_RDWR); /* cut short: the stream is broken, end it */
	return -1;
}

static int stream_event(int fd, const char *msg, size_t len)
{
	struct buf b;
	int rc = -1;

	buf_init(&b);
	buf_puts(&b, "event: message\ndata: ");
	buf_add(&b, msg, len);
	buf_puts(&b, "\n\n");
	if (!b.oom)
		rc = stream_put(fd, b.p, b.len);
	buf_free(&b);
	return rc;
}

/* mcp_handle's output for this request: the answer is kept to be sent
 * as JSON, unless a notification came first and the client takes an
 * event stream: then each goes out as an event at once. */
static void conn_emit(struct mcp_server *s, const char *msg, size_t len)
{
	static const char note[] = "{\"jsonrpc\":\"2.0\",\"method\"";
	struct conn *c = s->emit_data;
	struct buf b;

	if (!c->reply) /* a notification or an answer is answered by 202 alone */
		return s->ask(s, msg, len);
	if (!c->streaming && len >= sizeof(note) - 1 && !memcmp(msg, note, sizeof(note) - 1)) {
		if (!c->sse_ok)
			return; /* it takes JSON only: the answer alone */
		static const char head[] = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
					   "Cache-Control: no-cache\r\nConnection: close\r\n\r\n";
		c->streaming = 1;
		send_all(c, head, sizeof(head) - 1);
	}
	if (!c->streaming) {
		buf_reset(&c->answer);
		buf_add(&c->answer, msg, len);
		return;
	}
	buf_init(&b);
	buf_puts(&b, "event: message\ndata: ");
	buf_add(&b, msg, len);
	buf_puts(&b, "\n\n");
	if (!b.oom)
		send_all(c, b.p, b.len);
	buf_free(&b);
}

/* The headers we read, from the NUL-terminated head after the request
 * line: each value trimmed and NUL-terminated in place. */
static void parse_headers(char *p, struct head *hd)
{
	static const struct {
		const char *name;
		size_t off;
	} known[] = {
		{"origin", offsetof(struct head, origin)},
		{"authorization", offsetof(struct head, auth)},
		{"mcp-session-id", offsetof(struct head, session)},
		{"mcp-protocol-version", offsetof(struct head, version)},
		{"accept", offsetof(struct head, accept)},
		{"content-type", offsetof(struct head, type)},
		{"content-length", offsetof(struct head, length)},
		{"transfer-encoding", offsetof(struct head, encoding)},
		{"expect", offsetof(struct head, expect)},
		{"connection", offsetof(struct head, connection)},
	};
	char *eol;
	size_t i;

	for (; *p && (eol = strstr(p, "\r\n")) && eol != p; p = eol + 2) {
		char *colon = memchr(p, ':', (size_t)(eol - p)), *v, *e = eol;
		*eol = 0;
		if (!colon)
			continue;
		*colon = 0;
		for (v = colon + 1; *v == ' ' || *v == '\t'; v++)
			;
		while (e > v && (e[-1] == ' ' || e[-1] == '\t'))
			*--e = 0;
		for (i = 0; i < sizeof(known) / sizeof(*known); i++)
			if (!strcasecmp(p, known[i].name))
				*(const char **)((char *)hd + known[i].off) = v;
	}
}

/* Read until the head's blank line: its length with it, 0 at a clean end
 * of the connection, -1 on error or timeout, -2 when it is too long. */
static long read_head(struct conn *c)
{
	for (;;) {
		char *end = c->have ? memmem(c->in, c->have, "\r\n\r\n", 4) : NULL;
		ssize_t k;

		if (end)
			return end + 4 - c->in;
		if (c->have >= sizeof(c->in) - 1)
			return -2;
		k = recv(c->fd, c->in + c->have, sizeof(c->in) - 1 - c->have, 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k == 0 && !c->have ? 0 : -1;
		c->have += (size_t)k;
	}
}

/* n more bytes of body into b: from what was read with the head first. */
static int read_exact(struct conn *c, struct buf *b, size_t n)
{
	size_t take = n < c->have ? n : c->have;

	buf_add(b, c->in, take);
	memmove(c->in, c->in + take, c->have - take);
	c->have -= take;
	n -= take;
	if (buf_reserve(b, n))
		return -1;
	while (n) {
		ssize_t k = recv(c->fd, b->p + b->len, n, 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		b->len += (size_t)k;
		n -= (size_t)k;
	}
	return 0;
}

/* One line of a chunked body ("SIZE[;ext]\r\n" or a trailer) into line. */
static int read_line(struct conn *c, char *line, size_t max)
{
	for (;;) {
		char *nl = memchr(c->in, '\n', c->have);
		ssize_t k;

		if (nl) {
			size_t n = (size_t)(nl - c->in) + 1;
			if (n >= max)
				return -1;
			memcpy(line, c->in, n);
			line[n] = 0;
			memmove(c->in, c->in + n, c->have - n);
			c->have -= n;
			return 0;
		}
		if (c->have >= max)
			return -1;
		k = recv(c->fd, c->in + c->have, sizeof(c->in) - 1 - c->have, 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		c->have += (size_t)k;
	}
}

/* A chunked body: 0, -1 on a broken one, -2 when over max. */
static int read_chunked(struct conn *c, struct buf *b, size_t max)
{
	char line[256], *end;

	for (;;) {
		unsigned long long n;

		if (read_line(c, line, sizeof(line)))
			return -1;
		n = strtoull(line, &end, 16);
		if (end == line || (*end != ';' && *end != '\r' && *end != '\n'))
			return -1;
		if (!n)
			break;
		if (n > max - b->len)
			return -2;
		if (read_exact(c, b, (size_t)n) || read_line(c, line, sizeof(line)) ||
		    (strcmp(line, "\r\n") && strcmp(line, "\n")))
			return -1;
	}
	do /* trailers, up to the blank line */
		if (read_line(c, line, sizeof(line)))
			return -1;
	while (strcmp(line, "\r\n") && strcmp(line, "\n"));
	return 0;
}

/* Does this Origin name this machine ("http://localhost:3000")? */
static int local_origin(const char *o)
{
	static const char *const hosts[] = {"localhost", "127.0.0.1", "[::1]"};
	const char *h = strstr(o, "://");
	size_t i, n;

	if (!h)
		return 0;
	h += 3;
	for (i = 0; i < sizeof(hosts) / sizeof(*hosts); i++) {
		n = strlen(hosts[i]);
		if (!strncasecmp(h, hosts[i], n) && (!h[n] || h[n] == ':' || h[n] == '/'))
			return 1;
	}
	return 0;
}

/* DNS rebinding: a browser page's Origin must be one we were told of, or
 * this machine's when we listen on loopback. No Origin: not a browser. */
static int origin_ok(const struct http *h, const char *o)
{
	const char *const *a = h->o->origins;

	if (!o)
		return 1;
	for (; a && *a; a++)
		if (!strcasecmp(*a, o))
			return 1;
	/* elsewhere a rebinding page may claim any name: only those given */
	return h->loopback && local_origin(o);
}

/* The token compared in constant time: no timing says how much matched. */
static int auth_ok(const struct http *h, const char *v)
{
	const char *t = h->o->token;
	size_t n, i;
	unsigned char diff = 0;

	if (!t)
		return 1;
	if (!v || strncasecmp(v, "Bearer ", 7))
		return 0;
	v += 7;
	n = strlen(t);
	if (strlen(v) != n)
		return 0;
	for (i = 0; i < n; i++)
		diff |= (unsigned char)(v[i] ^ t[i]);
	return !diff;
}

static int memory_take(struct http *h, size_t n)
{
	int ok;

	pthread_mutex_lock(&h->lock);
	ok = h->memory + n <= h->o->max_memory;
	if (ok)
		h->memory += n;
	pthread_mutex_unlock(&h->lock);
	return ok;
}

static void memory_give(struct http *h, size_t n)
{
	pthread_mutex_lock(&h->lock);
	h->memory -= n;
	pthread_mutex_unlock(&h->lock);
}

/* A request id as a string that keeps its type: "s..." or "n...". */
static void id_key(char *out, size_t n, const struct json_val *id)
{
	snprintf(out, n, "%c%s", id && id->type == JSON_STR ? 's' : 'n', id ? id->str : "");
}

static void conn_running(struct mcp_server *s, const struct json_val *id, volatile int *cancel)
{
	struct conn *c = s->emit_data, **p;

	pthread_mutex_lock(&c->h->lock);
	for (p = &c->h->running; *p && *p != c; p = &(*p)->run_next)
		;
	if (*p)
		*p = c->run_next;
	if (cancel) {
		id_key(c->run_id, sizeof(c->run_id), id);
		c->run_next = c->h->running;
		c->h->running = c;
	}
	c->cancel = cancel;
	pthread_mutex_unlock(&c->h->lock);
}

/* notifications/cancelled: the session's running request it names stops;
 * it then sends no answer, as on stdio. */
static void cancel_request(struct http *h, const char *session, const struct json_val *params)
{
	const struct json_val *rid = mcp_get(params, "requestId");
	struct conn *c;
	char key[80];

	if (!rid || (rid->type != JSON_STR && rid->type != JSON_NUM))
		return;
	id_key(key, sizeof(key), rid);
	pthread_mutex_lock(&h->lock);
	for (c = h->running; c; c = c->run_next)
		if (c->cancel && !strcmp(c->run_id, key) && !strcmp(c->session, session))
			*c->cancel = 1;
	pthread_mutex_unlock(&h->lock);
}

static struct session *session_find(struct http *h, const char *id, struct session ***link)
{
	struct session **p;

	for (p = &h->sessions; *p; p = &(*p)->next)
		if (!strcmp((*p)->id, id)) {
			if (link)
				*link = p;
			return *p;
		}
	return NULL;
}

/* Out of the table already; called with h->lock held. Its GET stream
 * ends (its thread sees the hangup and finds the session gone). */
static void session_free(struct session *ses)
{
	if (ses->stream)
		shutdown(ses->stream->fd, SHUT_RDWR);
	mcp_free_dirs(&ses->s);
	free(ses);
}

/* Clients need not DELETE their sessions: when the table is full the
 * least recently used one ends (its client gets 404 and initializes
 * again, as the transport provides). Called with h->lock held. */
static void evict_oldest(struct http *h)
{
	struct session **p, **old = &h->sessions, *gone;

	for (p = &h->sessions; *p; p = &(*p)->next)
		if ((*p)->used < (*old)->used)
			old = p;
	gone = *old;
	*old = gone->next;
	h->nsessions--;
	session_free(gone);
}

/* s->ask: a message of ours outside any answer, to the session's GET
 * stream; our request (roots/list) waits for one when none is open. */
static void http_ask(struct mcp_server *s, const char *msg, size_t len)
{
	struct conn *c = s->emit_data;
	struct session *ses;

	pthread_mutex_lock(&c->h->lock);
	ses = c->session ? session_find(c->h, c->session, NULL) : NULL;
	if (ses && (!ses->stream || stream_event(ses->stream->fd, msg, len)) &&
	    len < sizeof(ses->pending) && memmem(msg, len, "\"id\"", 4)) {
		memcpy(ses->pending, msg, len);
		ses->pending[len] = 0;
	}
	pthread_mutex_unlock(&c->h->lock);
}

/* The version header: absent is the transport's first version. */
static int version_ok(const char *v)
{
	return !v || !strcmp(v, "2025-11-25") || !strcmp(v, "2025-06-18") ||
	       !strcmp(v, "2025-03-26");
}

/* A POST: one JSON-RPC message in body. */
static void post(struct conn *c, const struct head *hd, struct buf *body, int close_after)
{
	struct http *h = c->h;
	struct mcp_server s;
	struct session *ses = NULL;
	const struct json_val *method, *id;
	struct json_val msg;
	struct arena a;
	char err[160], extra[80] = "";
	int init = 0, hold = 0, *held = NULL;

	arena_init(&a);
	if (json_parse(&a, body->p ? body->p : "", body->len, &msg, err, sizeof(err)))
		msg.type = JSON_NULL;
	else if (msg.type != JSON_OBJ)
		snprintf(err, sizeof(err), "%s", msg.type == JSON_ARR ? "batches are not supported" : "a message is an object");
	if (msg.type != JSON_OBJ) {
		struct buf e;
		buf_init(&e);
		buf_printf(&e, "Parse error: %s", err);
		refuse(c, 400, NULL, e.p ? e.p : "Parse error", close_after);
		buf_free(&e);
		goto out;
	}
	method = mcp_get(&msg, "method");
	id = mcp_get(&msg, "id");
	init = method && method->type == JSON_STR && !strcmp(method->str, "initialize");
	pthread_mutex_lock(&h->lock);
	if (!init && hd->session)
		ses = session_find(h, hd->session, NULL);
	if (ses) {
		s = ses->s;
		ses->used = ++h->uses;
		mcp_hold_dirs(&s); /* while this request runs */
		hold = 1;
	}
	pthread_mutex_unlock(&h->lock);
	if (init) {
		s = *h->base;
		s.log_level = -1;
		mcp_hold_dirs(&s); /* the session's, if one is made */
		hold = 1;
	} else if (!hd->session) {
		refuse(c, 400, NULL, "Bad Request: the Mcp-Session-Id header is required", close_after);
		goto out;
	} else if (!ses) {
		refuse(c, 404, NULL, "Session not found: initialize again", close_after);
		goto out;
	} else if (!version_ok(hd->version)) {
		refuse(c, 400, NULL, "Bad Request: unsupported MCP-Protocol-Version", close_after);
		goto out;
	}
	held = s.dirs_refs; /* the set it began with */
	s.emit = conn_emit;
	s.ask = http_ask;
	s.emit_data = c;
	c->reply = id && method;
	s.in_fd = s.out_fd = -1;
	s.hup_fd = c->fd;
	s.running = conn_running;
	c->session = hd->session;
	if (ses && method && method->type == JSON_STR &&
	    !strcmp(method->str, "notifications/cancelled"))
		cancel_request(h, hd->session, mcp_get(&msg, "params"));
	buf_reset(&c->answer);
	mcp_handle(&s, &a, body->p, body->len);
	if (init && c->answer.len && !memmem(c->answer.p, c->answer.len, "\"error\":{", 9)) {
		struct session *n = calloc(1, sizeof(*n));
		unsigned char r[16];
		size_t i;

		pthread_mutex_lock(&h->lock);
		if (h->nsessions >= SESSIONS_MAX)
			evict_oldest(h);
		if (n && getrandom(r, sizeof(r), 0) == sizeof(r)) {
			for (i = 0; i < sizeof(r); i++)
				snprintf(n->id + 2 * i, 3, "%02x", r[i]);
			n->s = s;
			n->s.emit = NULL;
			s.dirs_refs = NULL; /* the session holds them now */
			s.ndirs = 0;
			n->used = ++h->uses;
			n->next = h->sessions;
			h->sessions = n;
			h->nsessions++;
			snprintf(extra, sizeof(extra), "Mcp-Session-Id: %s\r\n", n->id);
			n = NULL;
		}
		pthread_mutex_unlock(&h->lock);
		if (n || !extra[0]) {
			free(n);
			refuse(c, 503, NULL, "Service Unavailable: no session could be made", close_after);
			goto out;
		}
	} else if (ses) { /* what a request may change: the log level, roots */
		pthread_mutex_lock(&h->lock);
		if ((ses = session_find(h, hd->session, NULL))) {
			ses->s.log_level = s.log_level;
			ses->s.roots_asked = s.roots_asked;
			if (!method) /* an answer: to what waits, if anything */
				ses->pending[0] = 0;
			if (s.dirs_refs != held) { /* its new roots: swapped in */
				struct mcp_server t = ses->s;
				ses->s.dirs = s.dirs, ses->s.given = s.given, ses->s.ro = s.ro;
				ses->s.ndirs = s.ndirs, ses->s.dirs_refs = s.dirs_refs;
				s.dirs = t.dirs, s.given = t.given, s.ro = t.ro;
				s.ndirs = t.ndirs, s.dirs_refs = t.dirs_refs;
			}
		}
		pthread_mutex_unlock(&h->lock);
	}
	if (c->streaming || (id && method && !c->answer.len)) {
		c->failed = 1; /* the stream ends with the connection; cancelled: no answer */
	} else if (!id || !method) {
		if (c->answer.len) /* an invalid notification: its error */
			respond(c, 400, extra, "application/json", c->answer.p, c->answer.len,
				close_after);
		else
			respond(c, 202, extra, "", "", 0, close_after);
	} else if (c->sse_only) {
		struct buf b;
		buf_init(&b);
		buf_puts(&b, "event: message\ndata: ");
		buf_add(&b, c->answer.p, c->answer.len);
		buf_puts(&b, "\n\n");
		respond(c, 200, extra, "text/event-stream", b.p ? b.p : "", b.len, close_after);
		buf_free(&b);
	} else {
		respond(c, 200, extra, "application/json", c->answer.p ? c->answer.p : "",
			c->answer.len, close_after);
	}
out:
	if (hold)
		mcp_free_dirs(&s); /* this request's hold, or the old roots */
	arena_free(&a);
}

static void delete_session(struct conn *c, const struct head *hd, int close_after)
{
	struct session *ses, **link = NULL;

	pthread_mutex_lock(&c->h->lock);
	ses = hd->session ? session_find(c->h, hd->session, &link) : NULL;
	if (ses) {
		*link = ses->next;
		c->h->nsessions--;
		session_free(ses);
	}
	pthread_mutex_unlock(&c->h->lock);
	if (!hd->session)
		refuse(c, 400, NULL, "Bad Request: the Mcp-Session-Id header is required", close_after);
	else if (!ses)
		refuse(c, 404, NULL, "Session not found", close_after);
	else
		respond(c, 200, NULL, "", "", 0, close_after);
}

/* GET: the session's stream of what we send unasked (our roots/list),
 * one open at a time; it lasts until the client leaves or the session
 * ends, with a comment now and then so that proxies keep it. */
static void get_stream(struct conn *c, const struct head *hd)
{
	static const char head[] = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
				   "Cache-Control: no-cache\r\nConnection: close\r\n\r\n";
	struct http *h = c->h;
	struct session *ses;
	struct pollfd p = {.fd = c->fd, .events = POLLIN};
	int code = 0;

	if (!c->sse_ok)
		return refuse(c, 406, NULL, "Not Acceptable: a GET stream is text/event-stream", 1);
	if (!hd->session)
		return refuse(c, 400, NULL, "Bad Request: the Mcp-Session-Id header is required", 1);
	if (!version_ok(hd->version))
		return refuse(c, 400, NULL, "Bad Request: unsupported MCP-Protocol-Version", 1);
	pthread_mutex_lock(&h->lock);
	if (!(ses = session_find(h, hd->session, NULL)))
		code = 404;
	else if (ses->stream)
		code = 409;
	else if (!stream_put(c->fd, head, sizeof(head) - 1)) {
		ses->stream = c;
		snprintf(c->sid, sizeof(c->sid), "%s", ses->id);
		if (ses->pending[0] && !stream_event(c->fd, ses->pending, strlen(ses->pending)))
			ses->pending[0] = 0;
	}
	pthread_mutex_unlock(&h->lock);
	if (code)
		return refuse(c, code, NULL, code == 404 ? "Session not found: initialize again" : "Conflict: the session has a GET stream open already", 1);
	for (;;) { /* the client sends nothing more on it: wait for its end */
		int r = poll(&p, 1, KEEPALIVE_MS);
		if (r < 0 && errno == EINTR)
			continue;
		if (r)
			break; /* its end, or a hangup from session_free */
		pthread_mutex_lock(&h->lock);
		ses = session_find(h, c->sid, NULL);
		r = !ses || ses->stream != c || stream_put(c->fd, ": keep-alive\n\n", 14);
		pthread_mutex_unlock(&h->lock);
		if (r)
			break;
	}
	pthread_mutex_lock(&h->lock);
	if ((ses = session_find(h, c->sid, NULL)) && ses->stream == c)
		ses->stream = NULL;
	pthread_mutex_unlock(&h->lock);
	c->failed = 1; /* the connection ends with the stream */
}

/* One request on c: 0 to read the next one, -1 to close. */
static int request(struct conn *c)
{
	struct http *h = c->h;
	struct head hd = {0};
	struct buf body;
	long n = read_head(c);
	char *p, *sp, *line_end;
	size_t want = 0, held = 0;
	int close_after, rc = -1;

	if (n == -2)
		refuse(c, 431, NULL, "Request header fields too large", 1);
	if (n <= 0)
		return -1;
	memcpy(c->head, c->in, (size_t)n - 2); /* to the blank line: a string */
	c->head[n - 2] = 0;
	line_end = strstr(c->head, "\r\n");
	*line_end = 0;
	sp = strchr(c->head, ' ');
	p = sp ? strchr(sp + 1, ' ') : NULL;
	if (!sp || !p || (size_t)(sp - c->head) >= sizeof(hd.method) ||
	    strncmp(p + 1, "HTTP/1.", 7)) {
		refuse(c, p && strncmp(p + 1, "HTTP/", 5) ? 400 : 505, NULL, "Bad request line", 1);
		return -1;
	}
	memcpy(hd.method, c->head, (size_t)(sp - c->head));
	*p = 0;
	hd.target = sp + 1;
	hd.http10 = !strcmp(p + 1, "HTTP/1.0");
	if (line_end[2])
		parse_headers(line_end + 2, &hd);
	close_after = hd.http10 ? !(hd.connection && !strcasecmp(hd.connection, "keep-alive"))
				: (hd.connection && !strcasecmp(hd.connection, "close"));
	/* what follows the head stays in in[]: the body's start */
	memmove(c->in, c->in + n, c->have - (size_t)n);
	c->have -= (size_t)n;
	c->streaming = 0;
	c->sse_ok = hd.accept && strstr(hd.accept, "text/event-stream");
	c->sse_only = c->sse_ok && !strstr(hd.accept, "application/json") && !strstr(hd.accept, "*/*");
	buf_init(&body);
	if (hd.encoding && strcasecmp(hd.encoding, "chunked")) {
		refuse(c, 501, NULL, "Transfer-Encoding other than chunked", 1);
		goto out;
	}
	if (hd.length && !hd.encoding) {
		char *end;
		unsigned long long v = strtoull(hd.length, &end, 10);
		if (end == hd.length || *end || hd.length[0] == '-') {
			refuse(c, 400, NULL, "Bad Content-Length", 1);
			goto out;
		}
		if (v > h->o->max_body) {
			refuse(c, 413, NULL, "Request body too large", 1); /* unread: close */
			goto out;
		}
		want = (size_t)v;
	}
	/* the body is checked last: a refused request need not be read */
	if (strcmp(hd.target, "/mcp") && strncmp(hd.target, "/mcp?", 5)) {
		refuse(c, 404, NULL, "Not found: the endpoint is /mcp", 1);
		goto out;
	}
	if (!origin_ok(h, hd.origin)) {
		refuse(c, 403, NULL, "Forbidden: Origin not allowed", 1);
		goto out;
	}
	if (!auth_ok(h, hd.auth)) {
		refuse(c, 401, "WWW-Authenticate: Bearer\r\n", "Unauthorized: a bearer token is required", 1);
		goto out;
	}
	if (!strcmp(hd.method, "DELETE")) {
		delete_session(c, &hd, 1);
		goto out;
	}
	if (!strcmp(hd.method, "GET")) {
		get_stream(c, &hd);
		goto out;
	}
	if (strcmp(hd.method, "POST")) {
		refuse(c, 405, "Allow: GET, POST, DELETE\r\n", "Method not allowed", 1);
		goto out;
	}
	if (hd.type && strncasecmp(hd.type, "application/json", 16)) {
		refuse(c, 415, NULL, "Unsupported Media Type: send application/json", 1);
		goto out;
	}
	if (hd.accept && !c->sse_ok && !strstr(hd.accept, "application/json") &&
	    !strstr(hd.accept, "*/*")) {
		refuse(c, 406, NULL, "Not Acceptable: accept application/json or text/event-stream", 1);
		goto out;
	}
	if (!hd.length && !hd.encoding) {
		refuse(c, 411, NULL, "Length Required", 1);
		goto out;
	}
	held = hd.encoding ? h->o->max_body : want;
	if (!memory_take(h, held)) {
		held = 0;
		refuse(c, 503, "Retry-After: 1\r\n", "Service Unavailable: memory budget exhausted", 1);
		goto out;
	}
	if (hd.expect && !strcasecmp(hd.expect, "100-continue") &&
	    send_all(c, "HTTP/1.1 100 Continue\r\n\r\n", 25))
		goto out;
	if (hd.encoding) {
		int r = read_chunked(c, &body, h->o->max_body);
		if (r)
			refuse(c, r == -2 ? 413 : 400, NULL,
			       r == -2 ? "Request body too large" : "Bad chunked body", 1);
		if (r)
			goto out;
	} else if (read_exact(c, &body, want)) {
		goto out;
	}
	if (body.oom)
		goto out;
	post(c, &hd, &body, close_after);
	rc = close_after || c->failed ? -1 : 0;
out:
	if (held)
		memory_give(h, held);
	buf_free(&body);
	return rc;
}

static void *conn_run(void *arg)
{
	struct conn *c = arg;
	struct http *h = c->h;
	struct timeval linger = {1, 0};
	size_t drained = 0;
	ssize_t k;

	buf_init(&c->answer);
	while (!c->failed && !request(c))
		;
	buf_free(&c->answer);
	/* A refused body may still be coming: closing with it unread would
	 * reset the connection and lose our answer, so read it away, as a
	 * lingering close does: until the client stops (a second of
	 * silence, or its end) or 64 MiB. */
	shutdown(c->fd, SHUT_WR);
	setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &linger, sizeof(linger));
	while (drained < (64u << 20) && (k = recv(c->fd, c->in, sizeof(c->in), 0)) > 0)
		drained += (size_t)k;
	close(c->fd);
	free(c);
	pthread_mutex_lock(&h->lock);
	h->conns--;
	pthread_mutex_unlock(&h->lock);
	return NULL;
}

static int is_loopback(const struct sockaddr_storage *ss)
{
	const struct sockaddr_in6 *s6 = (const void *)ss;
	const unsigned char *a = s6->sin6_addr.s6_addr;
	static const unsigned char one[16] = {[15] = 1}, v4[12] = {[10] = 0xff, [11] = 0xff};

	if (ss->ss_family == AF_INET)
		return ((const unsigned char *)&((const struct sockaddr_in *)ss)->sin_addr)[0] == 127;
	return !memcmp(a, one, 16) || (!memcmp(a, v4, 12) && a[12] == 127);
}

int mcp_http_listen(const struct mcp_http_opts *o, struct buf *err)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char e[200], shown[80];
	int fd, one = 1;

	if (netaddr_parse(o->listen, 1, &ss, &len, e, sizeof(e))) {
		buf_printf(err, "--listen %s: %s\n", o->listen, e);
		return -1;
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&ss, len) || listen(fd, 128) ||
	    getsockname(fd, (struct sockaddr *)&ss, &len)) {
		buf_printf(err, "--listen %s: %s\n", o->listen, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	netaddr_format((struct sockaddr *)&ss, shown, sizeof(shown));
	/* the port chosen for :0 is known only now: tests and scripts read it */
	buf_printf(err, "wickfs mcp: listening on http://%s/mcp\n", shown);
	bytes_write_all(2, err->p, err->len);
	buf_reset(err);
	return fd;
}

int mcp_http_serve(const struct mcp_server *s, const struct mcp_http_opts *o, struct buf *err)
{
	int fd = mcp_http_listen(o, err);

	return fd < 0 ? 1 : mcp_http_run(s, o, fd, err);
}

int mcp_http_run(const struct mcp_server *s, const struct mcp_http_opts *o, int fd,
		 struct buf *err)
{
	struct http h = {0};
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	pthread_attr_t at;

	getsockname(fd, (struct sockaddr *)&ss, &len);
	h.base = s;
	h.o = o;
	h.loopback = is_loopback(&ss);
	pthread_mutex_init(&h.lock, NULL);
	pthread_attr_init(&at);
	pthread_attr_setstacksize(&at, THREAD_STACK);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	for (;;) {
		struct timeval idle = {IDLE_SECONDS, 0};
		struct conn *c;
		pthread_t th;
		int cfd = accept4(fd, NULL, NULL, SOCK_CLOEXEC), full;

		if (cfd < 0) {
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
				poll(NULL, 0, 10); /* out of descriptors: let some close */
			else if (errno != EINTR && errno != ECONNABORTED)
				break;
			continue;
		}
		setsockopt(cfd, SOL_SOCKET, SO_RCVTIMEO, &idle, sizeof(idle));
		setsockopt(cfd, SOL_SOCKET, SO_SNDTIMEO, &idle, sizeof(idle));
		pthread_mutex_lock(&h.lock);
		full = h.conns >= o->max_conns;
		if (!full)
			h.conns++;
		pthread_mutex_unlock(&h.lock);
		c = full ? NULL : calloc(1, sizeof(*c));
		if (c) {
			c->h = &h;
			c->fd = cfd;
		}
		if (!c || pthread_create(&th, &at, conn_run, c)) {
			static const char busy[] = "HTTP/1.1 503 Service Unavailable\r\n"
						   "Content-Length: 0\r\nConnection: close\r\n\r\n";
			if (send(cfd, busy, sizeof(busy) - 1, MSG_NOSIGNAL) < 0)
				errno = 0; /* it leaves anyway */
			close(cfd);
			free(c);
			if (!full) {
				pthread_mutex_lock(&h.lock);
				h.conns--;
				pthread_mutex_unlock(&h.lock);
			}
		}
	}
	buf_printf(err, "accept: %s\n", strerror(errno));
	close(fd);
	return 1;
}
