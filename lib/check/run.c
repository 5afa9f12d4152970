/* run.c - load a gossfile (templates, includes), check it, run it
 *
 * Loading is strict: an unknown resource type or attribute, or a matcher
 * goss would not accept, stops everything before a test runs (exit 78),
 * with the file, the line and the key, so that a typo never reads as a
 * pass. Running is serial: the checks read small system files.
 */
#include <ctype.h>
#include <errno.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "check_int.h"
#include "fs.h"
#include "globmatch.h"

#define MAX_INCLUDE_DEPTH 16

struct loader {
	struct wfs_ctx *ctx;
	struct arena *a;
	const struct check_opts *o;
	const struct json_val *vars;
	struct check_res *res;
	size_t n, cap;
	struct buf *err;
};

long long check_duration_ms(const char *s)
{
	double total = 0;
	int any = 0;

	while (*s) {
		char *end;
		double v = check_strtod(s, &end);
		if (end == s || v < 0)
			return -1;
		s = end;
		if (!strncmp(s, "ms", 2))
			v *= 1, s += 2;
		else if (!strncmp(s, "us", 2) || !strncmp(s, "\xc2\xb5s", 3))
			v /= 1000, s += s[0] == 'u' ? 2 : 3;
		else if (!strncmp(s, "ns", 2))
			v /= 1e6, s += 2;
		else if (*s == 's')
			v *= 1000, s++;
		else if (*s == 'm')
			v *= 60000, s++;
		else if (*s == 'h')
			v *= 3600000, s++;
		else
			return -1;
		total += v;
		any = 1;
	}
	return any && total < 1e12 ? (long long)total : -1;
}

/* A file whole, "-" for the given data; NUL-terminated. */
static int load_text(struct loader *l, const char *path, const char **data, size_t *len)
{
	char *d;

	if (!strcmp(path, "-")) {
		*data = arena_strndup(l->a, l->o->data ? l->o->data : "", l->o->len);
		*len = l->o->len;
		return *data ? 0 : -1;
	}
	if (wfs_read(l->ctx, path, &d, len)) {
		buf_printf(l->err, "wickfs check: %s\n", l->ctx->err);
		return -1;
	}
	*data = d;
	return 0;
}

/* YAML, or JSON when it starts with '{' (JSON is no subset of our YAML:
 * its maps span lines). */
static int parse_doc(struct loader *l, const char *path, const char *s, size_t n,
		     struct json_val *v, struct check_lines *lines)
{
	char why[256];
	size_t i = 0;

	while (i < n && isspace((unsigned char)s[i]))
		i++;
	if (i < n && s[i] == '{') {
		if (json_parse(l->a, s, n, v, why, sizeof(why)) == 0)
			return 0;
	} else if (check_yaml_lines(l->a, s, n, v, lines, why, sizeof(why)) == 0) {
		return 0;
	}
	buf_printf(l->err, "wickfs check: %s: %s\n", path, why);
	return -1;
}

static int bad(struct loader *l, const struct check_lines *lines, const char *key, const char *fmt,
	       const char *a1, const char *a2, const char *a3)
{
	int line = check_line_of(lines, key);

	buf_printf(l->err, "wickfs check: %s: ", lines->file);
	if (line)
		buf_printf(l->err, "line %d: ", line);
	buf_printf(l->err, fmt, a1, a2, a3);
	buf_putc(l->err, '\n');
	return -1;
}

static int load(struct loader *l, const char *path, int depth);

static int by_name(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* The files a pattern in the last component names, sorted (as Go's
 * filepath.Glob); -1 for a pattern in a directory component. */
static int matches(struct arena *a, const char *pat, const char ***out)
{
	const char *slash = strrchr(pat, '/'), *base = slash ? slash + 1 : pat;
	const char *dir = slash ? (slash == pat ? "/" : arena_strndup(a, pat, (size_t)(slash - pat))) : ".";
	const char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	DIR *d;

	if (strpbrk(dir, "*?[\\"))
		return -1;
	if (!(d = opendir(dir)))
		return 0;
	while ((e = readdir(d))) {
		if ((e->d_name[0] == '.' && base[0] != '.') || globmatch(base, e->d_name) != 1)
			continue;
		if (arena_grow(a, &names, &cap, n + 1, sizeof(*names)))
			break;
		names[n++] = slash ? arena_printf(a, "%s/%s", strcmp(dir, "/") ? dir : "", e->d_name)
				   : arena_strdup(a, e->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), by_name);
	*out = names;
	return (int)n;
}

static int include(struct loader *l, const struct check_lines *lines, const char *from,
		   const char *key, const struct json_val *attrs, int depth)
{
	const struct json_val *f = NULL, *skip = NULL;
	const char *pat = key, *slash = strrchr(from, '/');
	const char **names;
	size_t i;
	int rc = 0, n;

	if (attrs->type == JSON_OBJ)
		for (i = 0; i < attrs->len; i++) {
			if (!strcmp(attrs->keys[i], "file"))
				f = &attrs->items[i];
			else if (!strcmp(attrs->keys[i], "skip"))
				skip = &attrs->items[i];
			else
				return bad(l, lines, attrs->keys[i], "gossfile %s: unknown attribute \"%s\"%s",
					   key, attrs->keys[i], "");
		}
	if (skip && skip->type == JSON_BOOL && skip->boolean)
		return 0;
	if (f && f->type == JSON_STR)
		pat = f->str;
	if (pat[0] != '/' && slash && strcmp(from, "-"))
		pat = arena_printf(l->a, "%.*s/%s", (int)(slash - from), from, pat);
	if (depth >= MAX_INCLUDE_DEPTH)
		return bad(l, lines, key, "gossfile %s: includes nested more than %s deep%s", key, "16", "");
	if (!strpbrk(pat, "*?[\\"))
		return load(l, pat, depth + 1);
	n = matches(l->a, pat, &names);
	if (n < 0)
		return bad(l, lines, key, "gossfile %s: %s: a pattern only in the file name, %s",
			   key, pat, "not in directories");
	if (n == 0)
		return bad(l, lines, key, "gossfile %s: no file matches %s%s", key, pat, "");
	for (i = 0; !rc && i < (size_t)n; i++)
		rc = load(l, names[i], depth + 1);
	return rc;
}

static int add_resource(struct loader *l, const char *type, const char *id,
			const struct json_val *attrs)
{
	size_t i;

	/* a later definition of the same resource replaces the earlier */
	for (i = 0; i < l->n; i++)
		if (!strcmp(l->res[i].type, type) && !strcmp(l->res[i].id, id)) {
			l->res[i].attrs = attrs;
			return 0;
		}
	if (arena_grow(l->a, &l->res, &l->cap, l->n + 1, sizeof(*l->res)))
		return -1;
	l->res[l->n].type = type;
	l->res[l->n].id = id;
	l->res[l->n++].attrs = attrs;
	return 0;
}

/* A key of the map given again after position i. */
static int given_again(const struct json_val *map, size_t i)
{
	size_t k;

	for (k = i + 1; k < map->len; k++)
		if (!strcmp(map->keys[k], map->keys[i]))
			return 1;
	return 0;
}

static int load(struct loader *l, const char *path, int depth)
{
	struct check_lines lines = {0};
	struct json_val doc;
	const char *text;
	size_t len, i, j;
	struct buf t;
	char why[256];

	lines.file = path;
	if (load_text(l, path, &text, &len))
		return -1;
	if (memmem(text, len, "{{", 2)) {
		buf_init(&t);
		if (check_template(l->a, text, len, l->vars, l->o->env, &t, why, sizeof(why))) {
			buf_free(&t);
			buf_printf(l->err, "wickfs check: %s: %s\n", path, why);
			return -1;
		}
		text = arena_strndup(l->a, t.p ? t.p : "", t.len);
		len = t.len;
		buf_free(&t);
	}
	if (parse_doc(l, path, text, len, &doc, &lines))
		return -1;
	if (doc.type == JSON_NULL)
		return 0;
	if (doc.type != JSON_OBJ) {
		buf_printf(l->err, "wickfs check: %s: a gossfile is a map of resource types\n", path);
		return -1;
	}
	for (i = 0; i < doc.len; i++) {
		const char *type = doc.keys[i];
		const struct json_val *set = &doc.items[i];

		if (strcmp(type, "gossfile") && !check_type_title(type))
			return bad(l, &lines, type, "unknown resource type \"%s\"%s%s", type, "", "");
		/* a type given twice in one file: the last map replaces the
		 * earlier whole, as goss documents (not merged) */
		if (given_again(&doc, i))
			continue;
		if (set->type == JSON_NULL)
			continue;
		if (set->type != JSON_OBJ)
			return bad(l, &lines, type, "%s: expected a map of resources%s%s", type, "", "");
		for (j = 0; j < set->len; j++) {
			const char *id = set->keys[j];
			const struct json_val *attrs = &set->items[j];
			size_t k;

			if (!strcmp(type, "gossfile")) {
				if (include(l, &lines, path, id, attrs, depth))
					return -1;
				continue;
			}
			if (attrs->type == JSON_NULL)
				continue;
			if (attrs->type != JSON_OBJ)
				return bad(l, &lines, id, "%s %s: expected a map of attributes%s", type, id, "");
			for (k = 0; k < attrs->len; k++) {
				const char *name = attrs->keys[k], *m;

				if (!check_attr_known(type, name))
					return bad(l, &lines, name, "%s %s: unknown attribute \"%s\"", type, id, name);
				if (strcmp(name, "meta") && strcmp(name, "content") &&
				    (m = check_matcher_valid(&attrs->items[k])))
					return bad(l, &lines, name, "%s %s: bad matcher \"%s\"", type, id, m);
			}
			if (add_resource(l, type, id, attrs))
				return -1;
		}
	}
	return 0;
}

static int load_vars(struct loader *l, const char *path)
{
	struct check_lines lines = {0};
	struct json_val *v = arena_alloc(l->a, sizeof(*v));
	const char *text;
	size_t len;

	if (!v || load_text(l, path, &text, &len) || parse_doc(l, path, text, len, v, &lines))
		return -1;
	l->vars = v;
	return 0;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int check_run(struct wfs_ctx *c, struct arena *a, const struct check_opts *o, struct buf *out,
	      struct buf *err)
{
	struct loader l = {0};
	struct check_run run = {0};
	struct arena attempt, *held;
	long long t0 = now_ns(), deadline = t0 + o->retry_ms * 1000000LL;
	size_t i, failed;

	l.ctx = c;
	l.a = a;
	l.o = o;
	l.err = err;
	if (!check_format_known(o->format)) {
		buf_printf(err, "wickfs check: unknown format \"%s\" (documentation, rspecish, json, junit, tap, silent)\n",
			   o->format);
		return CHECK_BAD_FILE;
	}
	if ((o->vars && load_vars(&l, o->vars)) || load(&l, o->gossfile ? o->gossfile : "./goss.yaml", 0))
		return CHECK_BAD_FILE;
	/* Each attempt in an arena of its own (file contents included, via
	 * the context), so that a long retry holds one attempt, not all. */
	arena_init(&attempt);
	held = c->arena;
	c->arena = &attempt;
	run.ctx = c;
	run.a = &attempt;
	run.sysroot = o->sysroot;
	for (;;) {
		long long ms = o->sleep_ms > 0 ? o->sleep_ms : 1000, now;
		struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};

		arena_free(&attempt);
		run.res = NULL;
		run.n = run.cap = 0;
		for (i = 0; i < l.n; i++)
			check_resource(&run, &l.res[i]);
		for (failed = i = 0; i < run.n; i++)
			failed += run.res[i].result == CHECK_FAILED;
		now = now_ns();
		if (!failed || !o->retry_ms || now >= deadline)
			break;
		/* as goss says it, on stderr: the CI log shows the wait */
		buf_printf(err, "Retrying in %lld.%03llds (elapsed/timeout time: %lld.%03llds/%lld.%03llds)\n",
			   ms / 1000, ms % 1000, (now - t0) / 1000000000, (now - t0) / 1000000 % 1000,
			   o->retry_ms / 1000, o->retry_ms % 1000);
		nanosleep(&ts, NULL);
	}
	check_render(out, o->format, run.res, run.n, now_ns() - t0);
	c->arena = held;
	arena_free(&attempt);
	return failed ? CHECK_FAIL : CHECK_PASS;
}
