/* soak.c - mixed, checked requests against a daemon, for bench/soak.sh.
 *
 * usage: soak SOCK DIR REQUESTS CONNS
 *
 * CONNS connections to the daemon's Unix socket SOCK, driven by one
 * poll() loop, one request in flight per connection: a connection's
 * requests depend on each other (the read checks the write before it), so
 * they go one after another, and the load comes from the connections
 * running side by side. Connection N owns DIR/cN/ and cycles through the
 * same five requests as bench/soak.py:
 *   write f.txt   "line K of N\nsecond\n"     ok, bytes_written right
 *   read f.txt    the text just written, byte for byte
 *   edit f.txt    second -> edited            ok, one replacement
 *   grep edited   DIR/cN                      ok, the edited line found
 *   exec true                                 exit_code 0, no error
 * Every answer is checked: its id, no error envelope, the content above.
 * A connection the daemon closes counts all its unanswered requests as
 * errors. The first few errors go to stderr. Prints one line:
 * "requests R errors E seconds S"; exits 1 when E is not 0.
 */
#define _GNU_SOURCE /* memmem */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

struct buf {
	char *p;
	size_t len, cap;
};

struct conn {
	int fd, idx;
	long k, n;		/* next request number, requests to send */
	char dir[4096], file[4096];
	struct buf out, in;
	size_t sent;		/* bytes of out already written */
	char id[48];		/* the id of the request in flight */
};

static long errors, answered;
static int errors_printed;

static void buf_put(struct buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->p = realloc(b->p, b->cap);
		if (!b->p) {
			perror("soak: realloc");
			exit(2);
		}
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = 0;
}

static void buf_str(struct buf *b, const char *s)
{
	buf_put(b, s, strlen(s));
}

/* s as a JSON string, quotes included. */
static void buf_json(struct buf *b, const char *s)
{
	char esc[8];

	buf_put(b, "\"", 1);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = (char)c;
			buf_put(b, esc, 2);
		} else if (c == '\n') {
			buf_put(b, "\\n", 2);
		} else if (c < 0x20) {
			snprintf(esc, sizeof(esc), "\\u%04x", c);
			buf_put(b, esc, 6);
		} else {
			buf_put(b, s, 1);
		}
	}
	buf_put(b, "\"", 1);
}

static void body_of(char *out, size_t cap, long k, int idx)
{
	snprintf(out, cap, "line %ld of %d\nsecond\n", k, idx);
}

/* The request number c->k as one NDJSON line in c->out. */
static void make_request(struct conn *c)
{
	char body[128];
	struct buf *b = &c->out;

	b->len = 0;
	c->sent = 0;
	snprintf(c->id, sizeof(c->id), "%d-%ld", c->idx, c->k);
	buf_str(b, "{\"id\":");
	buf_json(b, c->id);
	switch (c->k % 5) {
	case 0:
		body_of(body, sizeof(body), c->k, c->idx);
		buf_str(b, ",\"op\":\"write\",\"args\":[");
		buf_json(b, c->file);
		buf_str(b, "],\"stdin\":");
		buf_json(b, body);
		break;
	case 1:
		buf_str(b, ",\"op\":\"read\",\"args\":[");
		buf_json(b, c->file);
		buf_str(b, "]");
		break;
	case 2:
		buf_str(b, ",\"op\":\"edit\",\"args\":[");
		buf_json(b, c->file);
		buf_str(b, "],\"stdin\":");
		buf_json(b, "{\"old_text\":\"second\",\"new_text\":\"edited\"}");
		break;
	case 3:
		buf_str(b, ",\"op\":\"grep\",\"args\":[\"edited\",");
		buf_json(b, c->dir);
		buf_str(b, "]");
		break;
	default:
		buf_str(b, ",\"cmd\":\"true\"");
	}
	buf_str(b, "}\n");
}

/* The raw value of the top-level KEY in the object LINE (up to its end,
 * a comma or brace at depth 0), or NULL. Enough for the daemon's compact
 * one-line answers; strings are skipped with their escapes. */
static const char *json_value(const char *line, const char *key, size_t *len)
{
	const char *p = line;
	size_t klen = strlen(key);
	int depth = 0;

	for (; *p; p++) {
		if (*p == '"') {
			const char *s = ++p;
			while (*p && *p != '"')
				p += (*p == '\\' && p[1]) ? 2 : 1;
			if (!*p)
				return NULL;
			if (depth == 1 && p[1] == ':' && (size_t)(p - s) == klen &&
			    !memcmp(s, key, klen)) {
				const char *v = p + 2, *e = v;
				int d = 0;
				for (; *e; e++) {
					if (*e == '"') {
						for (e++; *e && *e != '"';)
							e += (*e == '\\' && e[1]) ? 2 : 1;
						if (!*e)
							return NULL;
					} else if (*e == '{' || *e == '[') {
						d++;
					} else if (*e == '}' || *e == ']') {
						if (d-- == 0)
							break;
					} else if (*e == ',' && d == 0) {
						break;
					}
				}
				*len = (size_t)(e - v);
				return v;
			}
		} else if (*p == '{' || *p == '[') {
			depth++;
		} else if (*p == '}' || *p == ']') {
			depth--;
		}
	}
	return NULL;
}

static int value_is(const char *line, const char *key, const char *want)
{
	size_t len;
	const char *v = json_value(line, key, &len);

	return v && len == strlen(want) && !memcmp(v, want, len);
}

static int value_has(const char *line, const char *key, const char *part)
{
	size_t len;
	const char *v = json_value(line, key, &len);

	return v && memmem(v, len, part, strlen(part)) != NULL;
}

/* Whether LINE is the right answer to request c->k. */
static int answer_ok(struct conn *c, const char *line)
{
	char want[512], body[128];
	struct buf b = {0};
	int ok;

	snprintf(want, sizeof(want), "\"%s\"", c->id);
	if (!value_is(line, "id", want) || json_value(line, "error", &(size_t){0}))
		return 0;
	switch (c->k % 5) {
	case 0:
		body_of(body, sizeof(body), c->k, c->idx);
		snprintf(want, sizeof(want), "\"bytes_written\":%zu", strlen(body));
		return value_is(line, "ok", "true") && value_has(line, "data", want);
	case 1:
		body_of(body, sizeof(body), c->k - 1, c->idx);
		buf_json(&b, body);
		ok = value_is(line, "ok", "true") && value_is(line, "data", b.p);
		free(b.p);
		return ok;
	case 2:
		return value_is(line, "ok", "true") &&
		       value_has(line, "data", "\"replacements\":1");
	case 3:
		buf_str(&b, "\"file\":");
		buf_json(&b, c->file);
		buf_str(&b, ",\"line\":2,\"text\":\"edited\"");
		ok = value_is(line, "ok", "true") && value_has(line, "data", b.p);
		free(b.p);
		return ok;
	default:
		return value_is(line, "exit_code", "0");
	}
}

static void note_error(const char *what, const char *req, const char *got)
{
	errors++;
	if (errors_printed++ < 5)
		fprintf(stderr, "error: %s: %.200s -> %.300s\n", what, req, got);
}

static void conn_fail(struct conn *c, const char *why)
{
	long left = c->n - c->k;

	fprintf(stderr, "soak: connection %d: %s; %ld requests unanswered\n",
		c->idx, why, left);
	errors += left;
	answered += left;
	c->k = c->n;
	close(c->fd);
	c->fd = -1;
}

/* Checks each whole line in c->in; moves on to the next request. */
static void conn_answers(struct conn *c)
{
	char *nl;

	while (c->fd >= 0 && (nl = memchr(c->in.p, '\n', c->in.len))) {
		size_t used = (size_t)(nl - c->in.p) + 1;
		*nl = 0;
		if (c->sent < c->out.len || c->k >= c->n)
			note_error("answer not asked for", "", c->in.p);
		else if (!answer_ok(c, c->in.p))
			note_error("wrong answer", c->out.p, c->in.p);
		answered++;
		memmove(c->in.p, c->in.p + used, c->in.len - used);
		c->in.len -= used;
		if (++c->k < c->n)
			make_request(c);
	}
}

static void conn_io(struct conn *c, short revents)
{
	char chunk[65536];
	ssize_t n;

	if (revents & POLLOUT && c->sent < c->out.len) {
		n = write(c->fd, c->out.p + c->sent, c->out.len - c->sent);
		if (n < 0 && errno != EAGAIN && errno != EINTR) {
			conn_fail(c, strerror(errno));
			return;
		}
		if (n > 0)
			c->sent += (size_t)n;
	}
	if (revents & (POLLIN | POLLHUP | POLLERR)) {
		n = read(c->fd, chunk, sizeof(chunk));
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
			conn_fail(c, n ? strerror(errno) : "closed by the daemon");
			return;
		}
		if (n > 0) {
			buf_put(&c->in, chunk, (size_t)n);
			conn_answers(c);
		}
	}
	if (c->fd >= 0 && c->k >= c->n) {
		close(c->fd);
		c->fd = -1;
	}
}

static int dial(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "soak: connect %s: %s\n", path, strerror(errno));
		exit(2);
	}
	return fd;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct conn *cs;
	struct pollfd *pf;
	long total, conns, i, live;
	double t0;

	if (argc != 5 || (total = atol(argv[3])) < 0 || (conns = atol(argv[4])) < 1) {
		fprintf(stderr, "usage: soak SOCK DIR REQUESTS CONNS\n");
		return 2;
	}
	cs = calloc((size_t)conns, sizeof(*cs));
	pf = calloc((size_t)conns, sizeof(*pf));
	mkdir(argv[2], 0755);
	t0 = now();
	for (i = 0; i < conns; i++) {
		struct conn *c = &cs[i];
		c->idx = (int)i;
		c->n = total / conns + (i < total % conns);
		snprintf(c->dir, sizeof(c->dir), "%s/c%ld", argv[2], i);
		snprintf(c->file, sizeof(c->file), "%s/f.txt", c->dir);
		if (mkdir(c->dir, 0755) && errno != EEXIST) {
			fprintf(stderr, "soak: mkdir %s: %s\n", c->dir, strerror(errno));
			return 2;
		}
		c->fd = c->n ? dial(argv[1]) : -1;
		if (c->n)
			make_request(c);
	}
	for (;;) {
		for (i = live = 0; i < conns; i++) {
			pf[i].fd = cs[i].fd;
			pf[i].events = POLLIN;
			if (cs[i].fd >= 0 && cs[i].sent < cs[i].out.len)
				pf[i].events |= POLLOUT;
			live += cs[i].fd >= 0;
		}
		if (!live)
			break;
		if (poll(pf, (nfds_t)conns, -1) < 0 && errno != EINTR) {
			perror("soak: poll");
			return 2;
		}
		for (i = 0; i < conns; i++)
			if (cs[i].fd >= 0 && pf[i].revents)
				conn_io(&cs[i], pf[i].revents);
	}
	printf("requests %ld errors %ld seconds %.1f\n", answered, errors, now() - t0);
	for (i = 0; i < conns; i++) {
		free(cs[i].out.p);
		free(cs[i].in.p);
	}
	free(cs);
	free(pf);
	return errors != 0;
}
