/* applet.c - option parsing from an applet's optspec, and the envelope.
 *
 * An optspec is a space-separated list of options: a name (one letter for
 * -x, longer for --name), optional aliases after '|', and a type suffix:
 * none for a flag, ':' a string, '#' an integer, '*' a repeatable string.
 * Example: "i|ignore-case A# include* max#".
 *
 * An applet given exactly its reference form (APPLET_REF: the Go host's
 * `grep PATTERN PATH`, `read PATH`, `exec COMMAND`) takes every argument
 * literally: `grep -i .` searches for "-i", `exec --help` runs "--help".
 * Beyond that form options apply, and "--" ends them. An argument that
 * starts with '-' but names no option is positional (a pattern "->").
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "applet.h"
#include "json.h"
#include "reply.h"

struct optdef {
	int index;
	char type;
};

/* Find NAME (length n) in the spec; fills the option's index and type. */
static int spec_find(const char *spec, const char *name, size_t n,
		     struct optdef *d)
{
	const char *p = spec;
	int index = 0;

	while (*p) {
		const char *end;
		char type = 0;

		while (*p == ' ')
			p++;
		if (!*p)
			break;
		end = p + strcspn(p, " ");
		if (end[-1] == ':' || end[-1] == '#' || end[-1] == '*')
			type = end[-1];
		while (p < end) {
			size_t len = strcspn(p, "|:#* ");
			if (len == n && !memcmp(p, name, n)) {
				d->index = index;
				d->type = type;
				return 0;
			}
			p += len;
			if (*p == '|')
				p++;
			else
				break;
		}
		p = end;
		index++;
	}
	return -1;
}

/* Record an option; -1 after an error reply. */
static int set_value(struct req *r, const struct optdef *d, const char *name,
		     const char *val)
{
	struct opt_val *o = &r->opt[d->index];
	char *end;

	o->seen++;
	if (!d->type)
		return 0;
	o->str = val;
	if (d->type == '#') {
		errno = 0;
		o->num = strtoll(val, &end, 10);
		if (errno || end == val || *end) {
			reply_error(r, "%s: option %s needs an integer, got \"%s\"",
				    r->applet->name, name, val);
			return -1;
		}
	}
	if (d->type == '*') {
		const char **l = arena_alloc(r->arena, (size_t)(o->nlist + 1) * sizeof(*l));
		if (!l) {
			reply_error(r, "%s: out of memory", r->applet->name);
			return -1;
		}
		if (o->nlist)
			memcpy(l, o->list, (size_t)o->nlist * sizeof(*l));
		l[o->nlist++] = val;
		o->list = l;
	}
	return 0;
}

static int missing_or_extra(struct req *r, const char *arg, const char *what)
{
	reply_error(r, "%s: option %s %s; see wickfs %s --help", r->applet->name,
		    arg, what, r->applet->name);
	return -1;
}

/* Returns 1 when arg was consumed as an option (and *used additional
 * arguments), 0 when it is positional, -1 after an error reply. */
static int parse_one(struct req *r, char *arg, char *next, int *used)
{
	const char *spec = r->applet->optspec;
	struct optdef d;
	char *eq, *name;
	size_t n;

	*used = 0;
	if (arg[0] != '-' || !arg[1])
		return 0;
	if (arg[1] == '-') {
		name = arg + 2;
		eq = strchr(name, '=');
		n = eq ? (size_t)(eq - name) : strlen(name);
		if (n < 2 || spec_find(spec, name, n, &d))
			return 0;
		if (!d.type && eq)
			return missing_or_extra(r, arg, "takes no value");
		if (!d.type)
			return set_value(r, &d, arg, NULL) ? -1 : 1;
		if (eq)
			return set_value(r, &d, arg, eq + 1) ? -1 : 1;
		if (!next)
			return missing_or_extra(r, arg, "needs a value");
		*used = 1;
		return set_value(r, &d, arg, next) ? -1 : 1;
	}
	/* Short options: -x, -xVALUE, -x VALUE, or a cluster of flags -iw. */
	if (spec_find(spec, arg + 1, 1, &d))
		return 0;
	if (d.type) {
		if (arg[2])
			return set_value(r, &d, arg, arg + 2) ? -1 : 1;
		if (!next)
			return missing_or_extra(r, arg, "needs a value");
		*used = 1;
		return set_value(r, &d, arg, next) ? -1 : 1;
	}
	for (name = arg + 2; *name; name++) {
		struct optdef e;
		if (spec_find(spec, name, 1, &e) || e.type)
			return 0; /* not a flag cluster: positional */
	}
	for (name = arg + 1; *name; name++) {
		spec_find(spec, name, 1, &d);
		set_value(r, &d, arg, NULL);
	}
	return 1;
}

static int usage_line(struct req *r)
{
	const char *h = r->applet->help;
	const char *nl = strchr(h, '\n');

	return reply_error(r, "%.*s", (int)(nl ? nl - h : (long)strlen(h)), h);
}

int applet_run(const struct applet *a, struct req *r, int argc, char **argv)
{
	char **pos;
	int i, np = 0, opts_done = 0;

	r->applet = a;
	memset(r->opt, 0, sizeof(r->opt));
	pos = arena_alloc(r->arena, (size_t)(argc + 1) * sizeof(*pos));
	if (!pos)
		return reply_error(r, "%s: out of memory", a->name);
	if (argc && argc == APPLET_REF_ARGS(a->flags))
		opts_done = 1; /* the reference's form: all literal */
	for (i = 0; i < argc; i++) {
		int used, rc;

		if (!opts_done && !strcmp(argv[i], "--help")) {
			buf_puts(r->out, a->help);
			return 0;
		}
		if (!opts_done && !strcmp(argv[i], "--")) {
			opts_done = 1;
			continue;
		}
		rc = opts_done ? 0 : parse_one(r, argv[i], argv[i + 1], &used);
		if (rc < 0)
			return 1;
		if (rc > 0) {
			i += used;
			continue;
		}
		pos[np++] = argv[i];
		if (a->flags & APPLET_STOP_AT_ARG)
			opts_done = 1;
	}
	pos[np] = NULL;
	if (np < a->min_args || (a->max_args >= 0 && np > a->max_args))
		return usage_line(r);
	r->argc = np;
	r->argv = pos;
	return a->main(r);
}

static const struct opt_val *opt_get(const struct req *r, const char *name)
{
	struct optdef d;

	if (spec_find(r->applet->optspec, name, strlen(name), &d))
		return NULL;
	return &r->opt[d.index];
}

int opt_has(const struct req *r, const char *name)
{
	const struct opt_val *o = opt_get(r, name);

	return o ? o->seen : 0;
}

const char *opt_str(const struct req *r, const char *name)
{
	const struct opt_val *o = opt_get(r, name);

	return o && o->seen ? o->str : NULL;
}

long long opt_num(const struct req *r, const char *name, long long dflt)
{
	const struct opt_val *o = opt_get(r, name);

	return o && o->seen ? o->num : dflt;
}

int opt_list(const struct req *r, const char *name, const char ***vals)
{
	const struct opt_val *o = opt_get(r, name);

	*vals = o ? o->list : NULL;
	return o ? o->nlist : 0;
}

int req_stdin(struct req *r, const char **data, size_t *len)
{
	struct buf b;
	char chunk[65536];
	ssize_t n;

	if (r->in_fd < 0 || r->in_loaded) {
		*data = r->in ? r->in : "";
		*len = r->in ? r->in_len : 0;
		return 0;
	}
	buf_init(&b);
	for (;;) {
		n = read(r->in_fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			buf_free(&b);
			return -1;
		}
		if (n == 0)
			break;
		buf_add(&b, chunk, (size_t)n);
	}
	if (b.oom) {
		buf_free(&b);
		errno = ENOMEM;
		return -1;
	}
	r->in = arena_strndup(r->arena, b.p ? b.p : "", b.len);
	r->in_len = b.len;
	buf_free(&b);
	if (!r->in)
		return -1;
	r->in_loaded = 1;
	*data = r->in;
	*len = r->in_len;
	return 0;
}

void req_flush(struct req *r)
{
	size_t off = 0;

	if (!r->out_stream || r->out->len < 256 * 1024)
		return;
	while (off < r->out->len) {
		ssize_t w = write(1, r->out->p + off, r->out->len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break; /* stdout gone: drop, as a closed pipe would */
		off += (size_t)w;
	}
	buf_reset(r->out);
}

int reply_ok_begin(struct req *r)
{
	reply_ok_open(r->out);
	return 0;
}

int reply_ok_end(struct req *r)
{
	reply_ok_close(r->out);
	return 0;
}

int reply_error(struct req *r, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;

	va_start(ap, fmt);
	wfs_vformat(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	reply_error_line(r->out, msg);
	return 1;
}

int reply_ctx_error(struct req *r)
{
	return reply_error(r, "%s", r->ctx->err);
}
