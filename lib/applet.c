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
 * starts with '-' but names no option is an error naming it ("unknown
 * option"); a positional that starts with '-' goes after "--".
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "applet.h"
#include "text.h"
#include "archive.h"
#include "json.h"
#include "reply.h"
#include "bytes.h"
#include "gzpar.h"
#include "ctx.h"
#include "path.h"
#include "settings.h"

const struct applet *applet_find(const char *name)
{
	size_t i;

	for (i = 0; i < applet_count; i++)
		if (!strcmp(applet_table[i].name, name))
			return &applet_table[i];
	return NULL;
}

const struct applet *applet_alias(const char *name)
{
	if (!strncmp(name, "wickfs-", 7))
		name += 7;
	if (!strcmp(name, "wick-daemon") || !strcmp(name, "wickdaemon"))
		name = "daemon";
	return applet_find(name);
}

const struct applet *applet_of_command(char *const *w, int n, int *used)
{
	const char *base = n > 0 ? path_base(w[0]) : "";

	if (!strcmp(base, "wickfs")) {
		*used = 2;
		return n > 1 ? applet_alias(w[1]) : NULL;
	}
	*used = 1;
	return strncmp(base, "wickfs-", 7) ? NULL : applet_alias(base);
}

void req_init(struct req *r, struct arena *a, struct wfs_ctx *ctx,
	      struct buf *out, struct buf *err)
{
	memset(r, 0, sizeof(*r));
	r->in = "";
	r->in_fd = -1;
	r->out = out;
	r->err = err;
	r->arena = a;
	r->ctx = ctx;
}

/* The option NAME (length n) of the applet: its index, or -1. */
static int opt_find(const struct applet *a, const char *name, size_t n)
{
	int i;

	for (i = 0; a->opts[i].names; i++) {
		const char *p = a->opts[i].names;
		for (;;) {
			size_t len = strcspn(p, "|");
			if (len == n && !memcmp(p, name, n))
				return i;
			if (!p[len])
				break;
			p += len + 1;
		}
	}
	return -1;
}

/* The value of option i, from NAME (the option as given, or the
 * variable its default came from); -1 after an error reply. */
static int take_value(struct req *r, int i, const char *name, const char *val,
		      int from_env)
{
	const struct optdef *d = &r->applet->opts[i];
	struct opt_val *o = &r->opt[i];
	char *end;

	o->str = val;
	if (d->type == '#') {
		errno = 0;
		o->num = strtoll(val, &end, 10);
		if (errno || end == val || *end) {
			reply_error(r, "%s: %s%s needs an integer, got \"%s\"",
				    r->applet->name, from_env ? "" : "option ", name, val);
			return -1;
		}
		if ((d->min != OPT_NUM_MIN && o->num < d->min) ||
		    (d->max != OPT_NUM_MAX && o->num > d->max)) {
			if (d->max == OPT_NUM_MAX)
				reply_error(r, "%s: %s takes %d or more, got %s",
					    r->applet->name, name, (int)d->min, val);
			else
				reply_error(r, "%s: %s takes %d to %d, got %s",
					    r->applet->name, name, (int)d->min,
					    (int)d->max, val);
			return -1;
		}
	}
	if (d->type == '*') {
		if (arena_grow(r->arena, (void **)&o->list, &o->cap, o->nlist + 2,
			       sizeof(*o->list))) {
			reply_error(r, "%s: out of memory", r->applet->name);
			return -1;
		}
		o->list[o->nlist++] = val;
		o->list[o->nlist] = NULL; /* NULL-ended for whoever wants that */
	}
	return 0;
}

/* Record option i, given as NAME; -1 after an error reply. */
static int set_value(struct req *r, int i, const char *name, const char *val)
{
	r->opt[i].seen++;
	return r->applet->opts[i].type ? take_value(r, i, name, val, 0) : 0;
}

/* Option i not given: its default from the first variable of its spec's
 * $VAR list that is set and not empty, held to the option's range. 0, or
 * -1 after an error reply. */
static int env_default(struct req *r, int i)
{
	const char *name = applet_env_names[r->applet->opts[i].env], *v;

	for (; *name; name += strlen(name) + 1) {
		v = settings_env(r->ctx->set, name);
		if (v && *v)
			return take_value(r, i, name, v, 1);
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
	const struct applet *a = r->applet;
	char *eq, *name;
	size_t n;
	int i;

	*used = 0;
	if (arg[0] != '-' || !arg[1])
		return 0;
	if (arg[1] == '-') {
		name = arg + 2;
		eq = strchr(name, '=');
		n = eq ? (size_t)(eq - name) : strlen(name);
		if (n < 2 || (i = opt_find(a, name, n)) < 0)
			return 0;
		if (!a->opts[i].type && eq)
			return missing_or_extra(r, arg, "takes no value");
		if (!a->opts[i].type)
			return set_value(r, i, arg, NULL) ? -1 : 1;
		if (eq)
			return set_value(r, i, arg, eq + 1) ? -1 : 1;
		if (!next)
			return missing_or_extra(r, arg, "needs a value");
		*used = 1;
		return set_value(r, i, arg, next) ? -1 : 1;
	}
	/* Short options: -x, -xVALUE, -x VALUE, or a cluster of flags -iw. */
	if ((i = opt_find(a, arg + 1, 1)) < 0)
		return 0;
	if (a->opts[i].type) {
		if (arg[2])
			return set_value(r, i, arg, arg + 2) ? -1 : 1;
		if (!next)
			return missing_or_extra(r, arg, "needs a value");
		*used = 1;
		return set_value(r, i, arg, next) ? -1 : 1;
	}
	for (name = arg + 2; *name; name++) {
		int e = opt_find(a, name, 1);
		if (e < 0 || a->opts[e].type)
			return 0; /* not a flag cluster: positional */
	}
	for (name = arg + 1; *name; name++)
		set_value(r, opt_find(a, name, 1), arg, NULL);
	return 1;
}

static const char *opt_dash(const char *names)
{
	return strcspn(names, "|") > 1 ? "--" : "-";
}

/* Declared exclusions, then the defaults of numbers not given. */
static int opts_check(struct req *r)
{
	const struct optdef *d = r->applet->opts;
	int i, j;

	for (i = 0; d[i].names; i++) {
		if (!r->opt[i].seen) {
			r->opt[i].num = d[i].dflt;
			if (d[i].env && env_default(r, i))
				return 1;
			continue;
		}
		for (j = i + 1; d[j].names; j++)
			if ((d[i].excl >> j & 1) && r->opt[j].seen)
				return reply_error(r, "%s: %s%.*s cannot be combined with %s%.*s",
						   r->applet->name, opt_dash(d[i].names),
						   (int)strcspn(d[i].names, "|"), d[i].names,
						   opt_dash(d[j].names),
						   (int)strcspn(d[j].names, "|"), d[j].names);
	}
	return 0;
}

static int usage_line(struct req *r)
{
	const char *h = applet_help(r->applet, r->arena);
	const char *nl;

	if (!h)
		return reply_error(r, "%s: out of memory", r->applet->name);
	nl = strchr(h, '\n');

	return reply_error(r, "%.*s", (int)(nl ? nl - h : (long)strlen(h)), h);
}

static int run(const struct applet *a, struct req *r, int argc, char **argv)
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

		/* -h as --help, where the applet has no -h of its own */
		if (!opts_done && (!strcmp(argv[i], "--help") ||
				   (!strcmp(argv[i], "-h") && opt_find(a, "h", 1) < 0))) {
			const char *h = applet_help(a, r->arena);

			if (!h)
				return reply_error(r, "%s: out of memory", a->name);
			buf_puts(r->out, h);
			r->text_done = 1;
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
		/* Outside the reference's literal form an argument that looks
		 * like an option is one: name it (a path that starts with "-"
		 * goes after "--"). */
		if (!opts_done && argv[i][0] == '-' && argv[i][1])
			return reply_error(r, "%s: unknown option %s (wickfs help %s)", a->name,
					   argv[i], a->name);
		pos[np++] = argv[i];
		if (a->flags & APPLET_STOP_AT_ARG)
			opts_done = 1;
	}
	pos[np] = NULL;
	if (opts_check(r))
		return 1;
	for (i = 0; r->escaped_paths && i < np; i++) {
		const char *why;
		char *raw = path_unescape(r->arena, pos[i], &why);

		if (!raw)
			return reply_error(r, "%s %s: %s (--escaped-paths)", a->name, pos[i], why);
		pos[i] = raw;
	}
	if (np < a->min_args || (a->max_args >= 0 && np > a->max_args))
		return usage_line(r);
	r->argc = np;
	r->argv = pos;
	if ((a->flags & APPLET_SPAWNS) && r->ctx->readonly && !r->ctx->readonly_exec)
		return reply_error(r, "%s: " WFS_READONLY_SPAWN_REFUSED, a->name);
	if ((a->flags & APPLET_WRITES) &&
	    wfs_writable(r->ctx, a->name, np ? pos[np - 1] : NULL))
		return reply_ctx_error(r);
	return a->main(r);
}

const char *applet_help(const struct applet *a, struct arena *ar)
{
	struct buf b;
	char err[128];
	char *h = NULL;

	buf_init(&b);
	if (!gzpar_gunzip_buf(applet_help_gz, applet_help_gz_size, applet_help_size, &b, err,
			      sizeof(err)) &&
	    b.len == applet_help_size && a->help < b.len)
		h = arena_strdup(ar, b.p + a->help);
	buf_free(&b);
	return h;
}

int applet_run(const struct applet *a, struct req *r, int argc, char **argv)
{
	size_t base = r->out->len;
	int rc;

	r->text_done = 0;
	rc = run(a, r, argc, argv);
	if (r->text && !r->text_done)
		rc = text_render(r, base, rc);
	return rc;
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
	if (!r->out_stream || r->out->len < 256 * 1024)
		return;
	bytes_write_all(1, r->out->p, r->out->len); /* stdout gone: dropped */
	buf_reset(r->out);
}

static void progress_to_tty(void *arg, const char *line, int done)
{
	char out[160];
	int n = snprintf(out, sizeof(out), "\r%s\033[K%s", line, done ? "\n" : "");

	(void)arg;
	if (n > 0 && write(2, out, (size_t)n < sizeof(out) ? (size_t)n : sizeof(out) - 1) < 0)
		return; /* a progress line is not worth an error */
}

/* Not a terminal (a CI log): a plain line now and then, never a \r. */
static void progress_to_log(void *arg, const char *line, int done)
{
	char out[160];
	int n = snprintf(out, sizeof(out), "%s%s\n", line, done ? " (done)" : "");

	(void)arg;
	if (n > 0 && write(2, out, (size_t)n < sizeof(out) ? (size_t)n : sizeof(out) - 1) < 0)
		return;
}

struct wfs_progress *req_progress(struct req *r, int opt, struct wfs_progress *p)
{
	if (!opt_has(r, opt))
		return NULL;
	memset(p, 0, sizeof(*p));
	p->fn = progress_to_tty;
	if (!isatty(2)) {
		p->fn = progress_to_log;
		p->every_ns = 5000000000ULL;
	}
	return p;
}
