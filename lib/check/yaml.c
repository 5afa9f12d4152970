/* yaml.c - the YAML subset gossfiles use, read into a JSON tree
 *
 * Gossfiles are small maps of maps: block maps and lists, flow [a, b] and
 * {k: v} on one line, plain and quoted scalars, | and > block scalars,
 * comments. Anchors, aliases, tags and further documents are refused with
 * their line rather than half-supported. The reader works on lines: an
 * indentation decides nesting, so a tab there is an error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check_int.h"

struct yline {
	const char *s; /* content, after the indentation */
	size_t len;    /* comment and trailing blanks removed */
	int indent;
	int no; /* 1-based line number */
};

struct yparse {
	struct arena *a;
	struct yline *l;
	size_t n, i;
	const char *src;
	size_t srclen;
	struct check_lines *lines;
	char *err;
	size_t errlen;
	int depth;
};

static int fail(struct yparse *p, int line, const char *what)
{
	snprintf(p->err, p->errlen, "line %d: %s", line, what);
	return -1;
}

/* Where a comment starts: '#' at the start or after a blank, outside
 * quotes that open a scalar. */
static size_t strip_comment(const char *s, size_t n)
{
	size_t i;
	char q = 0;

	for (i = 0; i < n; i++) {
		char c = s[i];

		if (q) {
			if (c == q && q == '\'' && i + 1 < n && s[i + 1] == '\'')
				i++;
			else if (c == '\\' && q == '"')
				i++;
			else if (c == q)
				q = 0;
		} else if ((c == '"' || c == '\'') &&
			   (i == 0 || strchr(" \t[{,:-", s[i - 1]))) {
			q = c;
		} else if (c == '#' && (i == 0 || s[i - 1] == ' ' || s[i - 1] == '\t')) {
			n = i;
			break;
		}
	}
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	return n;
}

static int split_lines(struct yparse *p)
{
	const char *s = p->src, *end = s + p->srclen;
	size_t cap = 0;
	int no = 0, seen = 0;

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s)), *e = nl ? nl : end;
		struct yline y = {0};
		const char *c = s;

		no++;
		while (c < e && *c == ' ')
			c++;
		if (c < e && *c == '\t') {
			/* a tab after spaces or alone, before any content */
			const char *t = c;
			while (t < e && (*t == ' ' || *t == '\t'))
				t++;
			if (t < e && *t != '#')
				return fail(p, no, "tab in indentation");
		}
		y.s = c;
		y.indent = (int)(c - s);
		y.no = no;
		y.len = strip_comment(c, (size_t)(e - c));
		s = nl ? nl + 1 : end;
		if (!y.len)
			continue;
		if (y.len >= 3 && !memcmp(y.s, "---", 3) && (y.len == 3 || y.s[3] == ' ') &&
		    !y.indent) {
			if (seen)
				return fail(p, no, "more than one document");
			seen = 1;
			if (y.len == 3)
				continue;
			y.s += 4;
			y.len -= 4;
		} else if (y.len == 3 && !memcmp(y.s, "...", 3) && !y.indent) {
			continue;
		} else if (y.s[0] == '%') {
			return fail(p, no, "directives are not supported");
		}
		seen = 1;
		if (arena_grow(p->a, &p->l, &cap, p->n + 1, sizeof(*p->l)))
			return fail(p, no, "out of memory");
		p->l[p->n++] = y;
	}
	return 0;
}

static void record(struct yparse *p, const char *key, int line)
{
	struct check_lines *l = p->lines;
	size_t kc;

	if (!l)
		return;
	kc = l->cap; /* both arrays grow alike from the same capacity */
	if (arena_grow(p->a, &l->keys, &kc, l->n + 1, sizeof(*l->keys)) ||
	    arena_grow(p->a, &l->line, &l->cap, l->n + 1, sizeof(*l->line)))
		return;
	l->keys[l->n] = key;
	l->line[l->n++] = line;
}

int check_line_of(const struct check_lines *l, const char *key)
{
	size_t i;

	for (i = 0; l && i < l->n; i++)
		if (l->keys[i] == key)
			return l->line[i];
	return 0;
}

/* A growing list of values and (for maps) keys. */
struct coll {
	struct json_val *items;
	const char **keys;
	size_t n, cap, kcap;
};

static int coll_add(struct yparse *p, struct coll *c, const char *key, const struct json_val *v)
{
	size_t kc = c->cap;

	if (arena_grow(p->a, &c->items, &c->cap, c->n + 1, sizeof(*c->items)))
		return -1;
	if (key && arena_grow(p->a, &c->keys, &kc, c->n + 1, sizeof(*c->keys)))
		return -1;
	c->items[c->n] = *v;
	if (key)
		c->keys[c->n] = key;
	c->n++;
	return 0;
}

static void coll_done(struct yparse *p, struct coll *c, struct json_val *out, int map)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	out->type = map ? JSON_OBJ : JSON_ARR;
	out->len = c->n;
	out->items = c->items;
	if (map) {
		out->keys = c->keys;
		out->key_lens = arena_alloc(p->a, (c->n + 1) * sizeof(size_t));
		for (i = 0; out->key_lens && i < c->n; i++)
			out->key_lens[i] = strlen(c->keys[i]);
	}
}

/* A plain scalar's type as YAML 1.2's core schema gives it. */
static void plain(struct yparse *p, const char *s, size_t n, struct json_val *v)
{
	char *t = arena_strndup(p->a, s, n), *end;

	memset(v, 0, sizeof(*v));
	if (!n || !strcmp(t, "~") || !strcmp(t, "null") || !strcmp(t, "Null") ||
	    !strcmp(t, "NULL")) {
		v->type = JSON_NULL;
		return;
	}
	if (!strcmp(t, "true") || !strcmp(t, "True") || !strcmp(t, "TRUE") ||
	    !strcmp(t, "false") || !strcmp(t, "False") || !strcmp(t, "FALSE")) {
		v->type = JSON_BOOL;
		v->boolean = t[0] == 't' || t[0] == 'T';
		return;
	}
	v->str = t;
	v->len = n;
	if (strspn(t, "+-0123456789.eE") == n && strpbrk(t, "0123456789") &&
	    (v->num = check_strtod(t, &end), *end == 0)) {
		v->type = JSON_NUM;
		return;
	}
	v->type = JSON_STR;
}

static int quoted(struct yparse *p, int line, const char *s, size_t n, size_t *used,
		  struct json_val *v)
{
	struct buf b;
	char q = s[0];
	size_t i;

	buf_init(&b);
	for (i = 1; i < n; i++) {
		char c = s[i];

		if (c == q) {
			if (q == '\'' && i + 1 < n && s[i + 1] == '\'') {
				buf_putc(&b, '\'');
				i++;
				continue;
			}
			break;
		}
		if (c == '\\' && q == '"' && i + 1 < n) {
			c = s[++i];
			switch (c) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'a': c = '\a'; break;
			case 'v': c = '\v'; break;
			case 'e': c = 27; break;
			case '0': c = 0; break;
			case '"':
			case '\\':
			case '/':
			case ' ': break;
			case 'x':
			case 'u': {
				unsigned cp = 0, k, digits = c == 'x' ? 2 : 4;
				for (k = 0; k < digits && i + 1 < n; k++) {
					char h = s[++i];
					cp = cp * 16 + (unsigned)(h >= 'a' ? h - 'a' + 10
									   : (h >= 'A' ? h - 'A' + 10 : h - '0'));
				}
				if (cp < 0x80) {
					buf_putc(&b, (char)cp);
				} else if (cp < 0x800) {
					buf_putc(&b, (char)(0xc0 | cp >> 6));
					buf_putc(&b, (char)(0x80 | (cp & 63)));
				} else {
					buf_putc(&b, (char)(0xe0 | cp >> 12));
					buf_putc(&b, (char)(0x80 | ((cp >> 6) & 63)));
					buf_putc(&b, (char)(0x80 | (cp & 63)));
				}
				continue;
			}
			default:
				buf_free(&b);
				return fail(p, line, "unknown escape in a double-quoted string");
			}
		}
		buf_putc(&b, c);
	}
	if (i >= n) {
		buf_free(&b);
		return fail(p, line, "unterminated quoted string");
	}
	memset(v, 0, sizeof(*v));
	v->type = JSON_STR;
	v->str = arena_strndup(p->a, b.p ? b.p : "", b.len);
	v->len = b.len;
	buf_free(&b);
	*used = i + 1;
	return v->str ? 0 : fail(p, line, "out of memory");
}

static int refused(struct yparse *p, int line, char c)
{
	if (c == '&')
		return fail(p, line, "anchors are not supported");
	if (c == '*')
		return fail(p, line, "aliases are not supported");
	if (c == '!')
		return fail(p, line, "tags are not supported (quote a value that starts with '!')");
	if (c == '@' || c == '`')
		return fail(p, line, "a plain value cannot start with '@' or '`'");
	return 0;
}

static size_t skip_blank(const char *s, size_t n, size_t i)
{
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return i;
}

/* A value inside a flow collection, from s[*i]. */
static int flow_value(struct yparse *p, int line, const char *s, size_t n, size_t *i,
		      struct json_val *v);

static int flow_coll(struct yparse *p, int line, const char *s, size_t n, size_t *i,
		     struct json_val *v)
{
	int map = s[*i] == '{';
	char close = map ? '}' : ']';
	struct coll c = {0};

	if (++p->depth > 64)
		return fail(p, line, "nested too deeply");
	(*i)++;
	for (;;) {
		struct json_val item, key;
		const char *k = NULL;

		*i = skip_blank(s, n, *i);
		if (*i >= n)
			return fail(p, line, "unterminated flow collection (write it on one line)");
		if (s[*i] == close) {
			(*i)++;
			break;
		}
		if (map) {
			if (flow_value(p, line, s, n, i, &key))
				return -1;
			if (key.type == JSON_ARR || key.type == JSON_OBJ)
				return fail(p, line, "a map key must be a scalar");
			k = key.type == JSON_NULL ? "" : (key.str ? key.str : (key.boolean ? "true" : "false"));
			*i = skip_blank(s, n, *i);
			if (*i < n && s[*i] == ':') {
				*i = skip_blank(s, n, *i + 1);
				if (flow_value(p, line, s, n, i, &item))
					return -1;
			} else {
				memset(&item, 0, sizeof(item));
			}
			record(p, k, line);
		} else if (flow_value(p, line, s, n, i, &item)) {
			return -1;
		} else if ((*i = skip_blank(s, n, *i)) < n && s[*i] == ':' &&
			   item.type != JSON_ARR && item.type != JSON_OBJ) {
			/* [a, k: v]: a map of one pair inside a list */
			struct coll one = {0};
			struct json_val val;
			k = item.type == JSON_NULL ? "" : (item.str ? item.str : (item.boolean ? "true" : "false"));
			*i = skip_blank(s, n, *i + 1);
			if (flow_value(p, line, s, n, i, &val) || coll_add(p, &one, k, &val))
				return -1;
			record(p, k, line);
			coll_done(p, &one, &item, 1);
			k = NULL;
		}
		if (coll_add(p, &c, k, &item))
			return fail(p, line, "out of memory");
		*i = skip_blank(s, n, *i);
		if (*i < n && s[*i] == ',')
			(*i)++;
		else if (*i < n && s[*i] != close)
			return fail(p, line, "expected ',' or the end of the flow collection");
	}
	p->depth--;
	coll_done(p, &c, v, map);
	return 0;
}

static int flow_value(struct yparse *p, int line, const char *s, size_t n, size_t *i,
		      struct json_val *v)
{
	size_t j = *i, used;

	if (j < n && (s[j] == '[' || s[j] == '{'))
		return flow_coll(p, line, s, n, i, v);
	if (j < n && (s[j] == '"' || s[j] == '\'')) {
		if (quoted(p, line, s + j, n - j, &used, v))
			return -1;
		*i = j + used;
		return 0;
	}
	if (j < n && refused(p, line, s[j]))
		return -1;
	/* plain: up to , ] } or ": " */
	while (j < n && !strchr(",]}", s[j]) &&
	       !(s[j] == ':' && (j + 1 == n || strchr(" ,]}", s[j + 1]))))
		j++;
	used = j;
	while (used > *i && s[used - 1] == ' ')
		used--;
	plain(p, s + *i, used - *i, v);
	*i = j;
	return 0;
}

/* A value written after "key:" or "- " on its line. */
static int inline_value(struct yparse *p, int line, const char *s, size_t n, struct json_val *v)
{
	size_t i = 0;

	if (s[0] == '[' || s[0] == '{' || s[0] == '"' || s[0] == '\'') {
		if (flow_value(p, line, s, n, &i, v))
			return -1;
		if (skip_blank(s, n, i) != n)
			return fail(p, line, "text after a value");
		return 0;
	}
	if (refused(p, line, s[0]))
		return -1;
	plain(p, s, n, v);
	return 0;
}

/* The position of a mapping ':' in a line ("key: v", "key:"), or -1. */
static long key_colon(const char *s, size_t n)
{
	size_t i = 0;

	if (n && (s[0] == '"' || s[0] == '\'')) {
		char q = s[0];
		for (i = 1; i < n; i++) {
			if (s[i] == '\\' && q == '"')
				i++;
			else if (s[i] == q && q == '\'' && i + 1 < n && s[i + 1] == q)
				i++;
			else if (s[i] == q)
				break;
		}
		if (i >= n)
			return -1;
		i++;
		i = skip_blank(s, n, i);
		return i < n && s[i] == ':' && (i + 1 == n || s[i + 1] == ' ') ? (long)i : -1;
	}
	if (n && (s[0] == '[' || s[0] == '{'))
		return -1;
	for (; i < n; i++)
		if (s[i] == ':' && (i + 1 == n || s[i + 1] == ' '))
			return (long)i;
	return -1;
}

static int is_item(const struct yline *y)
{
	return y->s[0] == '-' && (y->len == 1 || y->s[1] == ' ');
}

static int node(struct yparse *p, int indent, struct json_val *v);

/* | and >: the lines indented beyond the parent's. */
static int block_scalar(struct yparse *p, int parent, const char *h, size_t hn, struct json_val *v)
{
	const char *s = p->src, *end = s + p->srclen;
	int fold = h[0] == '>', chomp = 0, line = p->i ? p->l[p->i - 1].no : 1, no = 0, ind = -1;
	struct buf b;
	size_t k;

	for (k = 1; k < hn; k++) {
		if (h[k] == '-')
			chomp = -1;
		else if (h[k] == '+')
			chomp = 1;
		else if (h[k] != ' ')
			return fail(p, line, "block scalar indentation indicators are not supported");
	}
	/* walk the raw text from the line after the header */
	while (s < end && no < line) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		no++;
		s = nl ? nl + 1 : end;
	}
	buf_init(&b);
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s)), *e = nl ? nl : end, *c = s;
		int in;

		while (c < e && *c == ' ')
			c++;
		in = (int)(c - s);
		if (c == e || (c + 1 == e && *c == '\r')) { /* blank line */
			buf_putc(&b, '\n');
		} else {
			if (in <= parent)
				break;
			if (ind < 0)
				ind = in;
			if (in < ind)
				break;
			if (fold && b.len && b.p[b.len - 1] == '\n' && in == ind &&
			    (b.len < 2 || b.p[b.len - 2] != '\n'))
				b.p[b.len - 1] = ' ';
			buf_add(&b, s + ind, (size_t)(e - s) - (size_t)ind);
			buf_putc(&b, '\n');
		}
		no++;
		s = nl ? nl + 1 : end;
	}
	/* the parsed lines up to there belong to the scalar */
	while (p->i < p->n && p->l[p->i].no <= no)
		p->i++;
	if (chomp <= 0)
		while (b.len && b.p[b.len - 1] == '\n')
			b.len--;
	if (chomp == 0 && b.len)
		buf_putc(&b, '\n');
	memset(v, 0, sizeof(*v));
	v->type = JSON_STR;
	v->str = arena_strndup(p->a, b.p ? b.p : "", b.len);
	v->len = b.len;
	buf_free(&b);
	return 0;
}

/* After "key:" or "- " with text: a value; without: what is indented
 * below (a list may sit at the key's own indentation). */
static int after(struct yparse *p, int indent, int map_key, const char *s, size_t n,
		 struct json_val *v)
{
	int line = p->l[p->i - 1].no;

	if (n && (s[0] == '|' || s[0] == '>'))
		return block_scalar(p, indent, s, n, v);
	if (n)
		return inline_value(p, line, s, n, v);
	if (p->i < p->n && (p->l[p->i].indent > indent ||
			    (map_key && p->l[p->i].indent == indent && is_item(&p->l[p->i]))))
		return node(p, p->l[p->i].indent, v);
	memset(v, 0, sizeof(*v));
	return 0;
}

static int seq(struct yparse *p, int indent, struct json_val *v)
{
	struct coll c = {0};

	while (p->i < p->n && p->l[p->i].indent == indent && is_item(&p->l[p->i])) {
		struct yline *y = &p->l[p->i];
		struct json_val item;
		size_t off = 1;

		off = skip_blank(y->s, y->len, off);
		if (off < y->len && (key_colon(y->s + off, y->len - off) >= 0 ||
				     is_item(&(struct yline){y->s + off, y->len - off, 0, 0}))) {
			/* "- key: v" or "- - v": the rest is a node at its column */
			y->indent += (int)off;
			y->s += off;
			y->len -= off;
			if (node(p, y->indent, &item))
				return -1;
		} else {
			p->i++;
			if (after(p, indent, 0, y->s + off, y->len - off, &item))
				return -1;
		}
		if (coll_add(p, &c, NULL, &item))
			return fail(p, y->no, "out of memory");
	}
	coll_done(p, &c, v, 0);
	return 0;
}

static int map(struct yparse *p, int indent, struct json_val *v)
{
	struct coll c = {0};

	while (p->i < p->n && p->l[p->i].indent == indent && !is_item(&p->l[p->i])) {
		struct yline *y = &p->l[p->i];
		long colon = key_colon(y->s, y->len);
		struct json_val kv, item;
		const char *key;
		size_t off;

		if (colon < 0)
			return fail(p, y->no, "expected \"key: value\"");
		if (y->s[0] == '"' || y->s[0] == '\'') {
			size_t used;
			if (quoted(p, y->no, y->s, (size_t)colon, &used, &kv))
				return -1;
			key = kv.str;
		} else {
			size_t kl = (size_t)colon;
			if (refused(p, y->no, y->s[0]))
				return -1;
			if (y->s[0] == '?')
				return fail(p, y->no, "complex keys are not supported");
			while (kl && y->s[kl - 1] == ' ')
				kl--;
			key = arena_strndup(p->a, y->s, kl);
		}
		if (!key)
			return fail(p, y->no, "out of memory");
		if (!strcmp(key, "<<"))
			return fail(p, y->no, "merge keys are not supported");
		record(p, key, y->no);
		off = skip_blank(y->s, y->len, (size_t)colon + 1);
		p->i++;
		if (after(p, indent, 1, y->s + off, y->len - off, &item))
			return -1;
		if (coll_add(p, &c, key, &item))
			return fail(p, y->no, "out of memory");
	}
	coll_done(p, &c, v, 1);
	return 0;
}

static int node(struct yparse *p, int indent, struct json_val *v)
{
	struct yline *y = &p->l[p->i];
	int rc;

	if (y->s[0] == '?' && (y->len == 1 || y->s[1] == ' '))
		return fail(p, y->no, "complex keys are not supported");
	if (!is_item(y) && key_colon(y->s, y->len) < 0) {
		p->i++;
		rc = inline_value(p, y->no, y->s, y->len, v);
	} else {
		/* collections count alike in block and flow form: the limit
		 * holds for the same tree however it is written */
		if (++p->depth > 64)
			return fail(p, y->no, "nested too deeply");
		rc = is_item(y) ? seq(p, indent, v) : map(p, indent, v);
		p->depth--;
	}
	if (!rc && p->i < p->n && p->l[p->i].indent > indent)
		return fail(p, p->l[p->i].no, "unexpected indentation");
	return rc;
}

int check_yaml_lines(struct arena *a, const char *s, size_t n, struct json_val *out,
		     struct check_lines *lines, char *err, size_t errlen)
{
	struct yparse p = {0};

	p.a = a;
	p.src = s;
	p.srclen = n;
	p.lines = lines;
	p.err = err;
	p.errlen = errlen;
	memset(out, 0, sizeof(*out));
	if (memchr(s, 0, n))
		return fail(&p, 1, "NUL byte in the file");
	if (split_lines(&p))
		return -1;
	if (!p.n)
		return 0;
	if (p.l[0].indent)
		return fail(&p, p.l[0].no, "unexpected indentation");
	if (node(&p, 0, out))
		return -1;
	if (p.i < p.n)
		return fail(&p, p.l[p.i].no, p.l[p.i].indent ? "unexpected indentation" : "unexpected text after the document");
	return 0;
}

int check_yaml_parse(struct arena *a, const char *s, size_t n, struct json_val *out, char *err,
		     size_t errlen)
{
	return check_yaml_lines(a, s, n, out, NULL, err, errlen);
}
