/* template.c - the part of Go's text/template gossfiles commonly use
 *
 * goss expands a gossfile as a template before reading it. We take what
 * gossfiles in the wild use: {{.Env.X}}, {{.Vars.x.y}}, {{.}}, $variables,
 * if/else/end with eq, ne, not, and, or; range over a list or map (with
 * "$k, $v :="); pipes into toLower/toUpper (lower/upper); mkSlice, index,
 * len, getEnv. Anything else is an error naming it and its line, never
 * passed through as text. The interpreter walks the token list, running
 * or skipping blocks; range re-walks its body once per element.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include "check_int.h"
#include "wfs_features.h"

#ifdef CONFIG_FEATURE_CHECK_TEMPLATE

#define TPL_VARS 32

struct tok {
	const char *s; /* action text (trimmed) or literal text */
	size_t n;
	int action;
	int line;
};

struct tvar {
	const char *name; /* "$x" */
	size_t n;
	const struct json_val *v;
};

struct tpl {
	struct arena *a;
	struct tok *t;
	size_t nt;
	struct json_val root;
	const struct json_val *env;
	struct tvar var[TPL_VARS];
	int nvar;
	struct buf *out;
	char *err;
	size_t errlen;
	int steps;
};

enum {
	T_EOF,
	T_END,
	T_ELSE
};

static int terr(struct tpl *t, int line, const char *fmt, const char *what, size_t n)
{
	char m[160];

	snprintf(m, sizeof(m), fmt, (int)(n > 60 ? 60 : n), what);
	snprintf(t->err, t->errlen, "line %d: template: %s", line, m);
	return -1;
}

static int tokenize(struct tpl *t, const char *s, size_t n)
{
	size_t i = 0, cap = 0;
	int line = 1;

	while (i < n) {
		const char *o = strstr(s + i, "{{"), *c;
		size_t start, end, txt_end;
		struct tok k = {0};

		if (!o || o >= s + n) {
			o = s + n;
		}
		txt_end = (size_t)(o - s);
		if (o < s + n && o[2] == '-' && (o[3] == ' ' || o[3] == '\t' || o[3] == '\n'))
			while (txt_end > i && isspace((unsigned char)s[txt_end - 1]))
				txt_end--;
		if (txt_end > i) {
			k.s = s + i;
			k.n = txt_end - i;
			k.line = line;
			if (arena_grow(t->a, &t->t, &cap, t->nt + 1, sizeof(*t->t)))
				return terr(t, line, "%.*sout of memory", "", 0);
			t->t[t->nt++] = k;
		}
		for (; i < (size_t)(o - s); i++)
			line += s[i] == '\n';
		if (o >= s + n)
			break;
		c = strstr(o + 2, "}}");
		if (!c || c >= s + n)
			return terr(t, line, "%.*sunclosed action", "", 0);
		start = (size_t)(o - s) + 2;
		end = (size_t)(c - s);
		if (s[start] == '-')
			start++;
		if (end > start && s[end - 1] == '-' && isspace((unsigned char)s[end - 2]))
			end--;
		while (start < end && isspace((unsigned char)s[start]))
			start++;
		while (end > start && isspace((unsigned char)s[end - 1]))
			end--;
		k.s = s + start;
		k.n = end - start;
		k.action = 1;
		k.line = line;
		if (arena_grow(t->a, &t->t, &cap, t->nt + 1, sizeof(*t->t)))
			return -1;
		t->t[t->nt++] = k;
		for (; i < (size_t)(c - s) + 2; i++)
			line += s[i] == '\n';
		if (c[-1] == '-' && c - 1 > o + 2 && isspace((unsigned char)c[-2]))
			while (i < n && isspace((unsigned char)s[i]))
				line += s[i++] == '\n';
	}
	return 0;
}

/* Words of an action: quoted strings kept whole, "|" its own word. */
static int words(struct tpl *t, const struct tok *k, const char **w, size_t *wl, int max)
{
	size_t i = 0;
	int n = 0;

	while (i < k->n) {
		size_t j = i;

		if (isspace((unsigned char)k->s[i])) {
			i++;
			continue;
		}
		if (n == max)
			return terr(t, k->line, "%.*stoo many words in an action", "", 0);
		if (k->s[i] == '"' || k->s[i] == '`') {
			char q = k->s[i];
			for (j = i + 1; j < k->n && k->s[j] != q; j++)
				if (k->s[j] == '\\' && q == '"')
					j++;
			if (j >= k->n)
				return terr(t, k->line, "%.*sunterminated string", "", 0);
			j++;
		} else if (k->s[i] == '|' || k->s[i] == '(' || k->s[i] == ')') {
			j = i + 1;
		} else {
			while (j < k->n && !isspace((unsigned char)k->s[j]) &&
			       !strchr("|()", k->s[j]))
				j++;
		}
		w[n] = k->s + i;
		wl[n++] = j - i;
		i = j;
	}
	return n;
}

static int is(const char *w, size_t n, const char *name)
{
	return strlen(name) == n && !memcmp(w, name, n);
}

static const struct json_val *member(const struct json_val *o, const char *k, size_t n)
{
	size_t i;

	for (i = o->len; o->type == JSON_OBJ && i-- > 0;)
		if (o->key_lens[i] == n && !memcmp(o->keys[i], k, n))
			return &o->items[i];
	return NULL;
}

static struct json_val nothing = {JSON_NULL, 0, 0, NULL, 0, NULL, NULL, NULL};
static struct json_val empty = {JSON_STR, 0, 0, "", 0, NULL, NULL, NULL};

/* .A.B from v. */
static int fields(struct tpl *t, int line, const struct json_val *v, const char *w, size_t n,
		  const struct json_val **out)
{
	size_t i = 0;

	while (i < n) {
		size_t j;

		if (w[i] != '.')
			return terr(t, line, "unexpected \"%.*s\"", w, n);
		for (j = ++i; j < n && w[j] != '.'; j++)
			;
		if (j == i)
			break;
		if (v->type == JSON_OBJ) {
			const struct json_val *m = member(v, w + i, j - i);
			v = m ? m : (v == t->env ? &empty : &nothing);
		} else if (v->type == JSON_NULL) {
			v = &nothing;
		} else {
			return terr(t, line, "can't evaluate field \"%.*s\" of a non-map", w, n);
		}
		i = j;
	}
	*out = v;
	return 0;
}

static const char *to_text(struct tpl *t, const struct json_val *v)
{
	struct buf b;
	const char *s;
	size_t i;

	switch (v->type) {
	case JSON_STR:
	case JSON_NUM:
		return v->str;
	case JSON_BOOL:
		return v->boolean ? "true" : "false";
	case JSON_NULL:
		return "<no value>";
	default:
		break;
	}
	/* as Go prints them: [a b], map[k:v] */
	buf_init(&b);
	buf_puts(&b, v->type == JSON_ARR ? "[" : "map[");
	for (i = 0; i < v->len; i++) {
		if (i)
			buf_putc(&b, ' ');
		if (v->type == JSON_OBJ)
			buf_printf(&b, "%s:", v->keys[i]);
		buf_puts(&b, to_text(t, &v->items[i]));
	}
	buf_putc(&b, ']');
	s = arena_strndup(t->a, b.p ? b.p : "", b.len);
	buf_free(&b);
	return s ? s : "";
}

static int truth(const struct json_val *v)
{
	switch (v->type) {
	case JSON_NULL:
		return 0;
	case JSON_BOOL:
		return v->boolean;
	case JSON_NUM:
		return v->num != 0;
	default:
		return v->len != 0;
	}
}

static int equal(const struct json_val *a, const struct json_val *b)
{
	if (a->type == JSON_NUM && b->type == JSON_NUM)
		return a->num == b->num;
	if (a->type != b->type)
		return 0;
	if (a->type == JSON_BOOL)
		return a->boolean == b->boolean;
	if (a->type == JSON_STR)
		return a->len == b->len && !memcmp(a->str, b->str, a->len);
	return a->type == JSON_NULL;
}

/* One operand word. */
static int operand(struct tpl *t, int line, const struct json_val *dot, const char *w, size_t n,
		   const struct json_val **out)
{
	struct json_val *v;

	if (w[0] == '.')
		return fields(t, line, dot, w, n, out);
	if (w[0] == '$') {
		size_t k = 1;
		int i;
		while (k < n && w[k] != '.')
			k++;
		if (k == 1) {
			return fields(t, line, &t->root, w + 1, n - 1, out);
		}
		for (i = t->nvar; i-- > 0;)
			if (t->var[i].n == k && !memcmp(t->var[i].name, w, k))
				return fields(t, line, t->var[i].v, w + k, n - k, out);
		return terr(t, line, "undefined variable \"%.*s\"", w, k);
	}
	if (w[0] == '"' || w[0] == '`') {
		struct buf b;
		size_t i;
		buf_init(&b);
		for (i = 1; i + 1 < n; i++) {
			char c = w[i];
			if (c == '\\' && w[0] == '"' && i + 2 < n) {
				c = w[++i];
				c = c == 'n' ? '\n' : (c == 't' ? '\t' : c);
			}
			buf_putc(&b, c);
		}
		v = check_str(t->a, "");
		if (v && b.len) {
			v->str = arena_strndup(t->a, b.p, b.len);
			v->len = b.len;
		}
		buf_free(&b);
		*out = v;
		return v ? 0 : -1;
	}
	if (isdigit((unsigned char)w[0]) || w[0] == '-') {
		char *e, *s = arena_strndup(t->a, w, n);
		double d = check_strtod(s, &e);
		if (*e)
			return terr(t, line, "bad number \"%.*s\"", w, n);
		v = check_num(t->a, d);
		v->str = s;
		*out = v;
		return 0;
	}
	if (is(w, n, "true") || is(w, n, "false")) {
		*out = check_bool(t->a, w[0] == 't');
		return 0;
	}
	if (is(w, n, "nil")) {
		*out = &nothing;
		return 0;
	}
	return terr(t, line, "function \"%.*s\" not supported", w, n);
}

static const struct json_val *caseconv(struct tpl *t, const struct json_val *v, int up)
{
	const char *s = to_text(t, v);
	char *c = arena_strdup(t->a, s);
	size_t i;

	for (i = 0; c && c[i]; i++)
		c[i] = (char)(up ? toupper((unsigned char)c[i]) : tolower((unsigned char)c[i]));
	return check_str(t->a, c ? c : "");
}

/* One command of a pipeline: w[0..n), with the previous result (prev)
 * as its last argument. */
static int command(struct tpl *t, int line, const struct json_val *dot, const char **w,
		   size_t *wl, int n, const struct json_val *prev, const struct json_val **out)
{
	const struct json_val *arg[16];
	int na = 0, i;
	const char *f = w[0];
	size_t fl = wl[0];

	if (!n)
		return terr(t, line, "%.*sempty command", "", 0);
	if (f[0] == '.' || f[0] == '$' || f[0] == '"' || f[0] == '`' || isdigit((unsigned char)f[0]) ||
	    is(f, fl, "true") || is(f, fl, "false") || is(f, fl, "nil")) {
		if (n > 1 || prev)
			return terr(t, line, "can't give arguments to \"%.*s\"", f, fl);
		return operand(t, line, dot, f, fl, out);
	}
	for (i = 1; i < n; i++) {
		if (na == 15)
			return terr(t, line, "%.*stoo many arguments", "", 0);
		if (operand(t, line, dot, w[i], wl[i], &arg[na++]))
			return -1;
	}
	if (prev)
		arg[na++] = prev;
	if (is(f, fl, "eq") || is(f, fl, "ne")) {
		int r = 0;
		if (na < 2)
			return terr(t, line, "\"%.*s\" needs two arguments", f, fl);
		for (i = 1; i < na; i++)
			r |= equal(arg[0], arg[i]);
		*out = check_bool(t->a, f[0] == 'e' ? r : !r);
	} else if (is(f, fl, "not") && na == 1) {
		*out = check_bool(t->a, !truth(arg[0]));
	} else if ((is(f, fl, "and") || is(f, fl, "or")) && na >= 1) {
		for (i = 0; i < na - 1; i++)
			if (truth(arg[i]) == (f[0] == 'o'))
				break;
		*out = arg[i];
	} else if ((is(f, fl, "toLower") || is(f, fl, "lower")) && na == 1) {
		*out = caseconv(t, arg[0], 0);
	} else if ((is(f, fl, "toUpper") || is(f, fl, "upper")) && na == 1) {
		*out = caseconv(t, arg[0], 1);
	} else if (is(f, fl, "len") && na == 1) {
		*out = check_num(t->a, (double)(arg[0]->type == JSON_STR || arg[0]->type >= JSON_ARR
							? arg[0]->len
							: 0));
		((struct json_val *)*out)->str = arena_printf(t->a, "%zu", (size_t)(*out)->num);
	} else if (is(f, fl, "mkSlice")) {
		struct json_val *l = arena_alloc(t->a, sizeof(*l));
		size_t cap = 0;
		memset(l, 0, sizeof(*l));
		l->type = JSON_ARR;
		for (i = 0; i < na; i++)
			if (check_append(t->a, l, &cap, arg[i]))
				return -1;
		*out = l;
	} else if (is(f, fl, "index") && na >= 1) {
		const struct json_val *v = arg[0];
		for (i = 1; i < na; i++) {
			if (v->type == JSON_OBJ && arg[i]->type == JSON_STR) {
				const struct json_val *m = member(v, arg[i]->str, arg[i]->len);
				v = m ? m : &nothing;
			} else if (v->type == JSON_ARR && arg[i]->type == JSON_NUM && arg[i]->num >= 0 &&
				   arg[i]->num < (double)v->len) {
				v = &v->items[(size_t)arg[i]->num];
			} else if (v->type == JSON_NULL) {
				v = &nothing;
			} else {
				return terr(t, line, "%.*sindex out of range or of a wrong type", "", 0);
			}
		}
		*out = v;
	} else if (is(f, fl, "getEnv") && (na == 1 || na == 2)) {
		const struct json_val *m = member(t->env, to_text(t, arg[0]), strlen(to_text(t, arg[0])));
		*out = m ? m : (na == 2 ? arg[1] : &empty);
	} else {
		return terr(t, line, "function \"%.*s\" not supported", f, fl);
	}
	return 0;
}

static int pipeline(struct tpl *t, int line, const struct json_val *dot, const char **w,
		    size_t *wl, int n, const struct json_val **out)
{
	const struct json_val *prev = NULL;
	int i = 0;

	while (i < n) {
		int j = i;
		while (j < n && !(wl[j] == 1 && w[j][0] == '|'))
			j++;
		if (j < n && (w[j][0] == '(' || w[j][0] == ')'))
			return terr(t, line, "%.*sparentheses are not supported", "", 0);
		for (int k = i; k < j; k++)
			if (wl[k] == 1 && (w[k][0] == '(' || w[k][0] == ')'))
				return terr(t, line, "%.*sparentheses are not supported", "", 0);
		if (command(t, line, dot, w + i, wl + i, j - i, prev, &prev))
			return -1;
		i = j + 1;
	}
	if (!prev)
		return terr(t, line, "%.*smissing value", "", 0);
	*out = prev;
	return 0;
}

static int block(struct tpl *t, size_t *i, int run, const struct json_val *dot, int *term);

static int setvar(struct tpl *t, int line, const char *name, size_t n, const struct json_val *v)
{
	int i;

	for (i = t->nvar; i-- > 0;)
		if (t->var[i].n == n && !memcmp(t->var[i].name, name, n)) {
			t->var[i].v = v;
			return 0;
		}
	if (t->nvar == TPL_VARS)
		return terr(t, line, "%.*stoo many variables", "", 0);
	t->var[t->nvar].name = name;
	t->var[t->nvar].n = n;
	t->var[t->nvar++].v = v;
	return 0;
}

static int do_range(struct tpl *t, size_t *i, int run, const struct json_val *dot,
		    const char **w, size_t *wl, int n, int line)
{
	const struct json_val *coll = &nothing;
	const char *kn = NULL, *vn = NULL;
	size_t kl = 0, vl = 0, start = *i, k, count = 0;
	int term = T_EOF, nvar = t->nvar, p = 1;

	/* range $k, $v := X  |  range $v := X  |  range X */
	if (n > 2 && w[1][0] == '$') {
		if (n > 4 && w[1][wl[1] - 1] == ',' && w[2][0] == '$' && is(w[3], wl[3], ":=")) {
			kn = w[1], kl = wl[1] - 1, vn = w[2], vl = wl[2], p = 4;
		} else if (is(w[2], wl[2], ":=")) {
			vn = w[1], vl = wl[1], p = 3;
		}
	}
	if (run && pipeline(t, line, dot, w + p, wl + p, n - p, &coll))
		return -1;
	if (run && coll->type != JSON_ARR && coll->type != JSON_OBJ && coll->type != JSON_NULL)
		return terr(t, line, "%.*srange can't iterate over a scalar", "", 0);
	count = run ? coll->len : 0;
	if (coll->type == JSON_NULL)
		count = 0;
	for (k = 0; k < count; k++) {
		const struct json_val *item = &coll->items[k];
		*i = start;
		if (vn && setvar(t, line, vn, vl, item))
			return -1;
		if (kn && setvar(t, line, kn, kl,
				 coll->type == JSON_OBJ ? check_str(t->a, coll->keys[k])
							: check_num(t->a, (double)k)))
			return -1;
		if (block(t, i, 1, item, &term))
			return -1;
		if (++t->steps > 100000)
			return terr(t, line, "%.*stoo many iterations", "", 0);
	}
	if (!count) {
		*i = start;
		if (block(t, i, 0, dot, &term))
			return -1;
		if (term == T_ELSE && block(t, i, run, dot, &term))
			return -1;
	} else if (term == T_ELSE && block(t, i, 0, dot, &term)) {
		return -1;
	}
	t->nvar = nvar;
	if (term != T_END)
		return terr(t, line, "%.*srange without end", "", 0);
	return 0;
}

static int block(struct tpl *t, size_t *i, int run, const struct json_val *dot, int *term)
{
	while (*i < t->nt) {
		struct tok *k = &t->t[(*i)++];
		const char *w[64];
		size_t wl[64];
		int n;
		const struct json_val *v;

		if (!k->action) {
			if (run)
				buf_add(t->out, k->s, k->n);
			continue;
		}
		if (k->n >= 2 && !memcmp(k->s, "/*", 2))
			continue;
		n = words(t, k, w, wl, 64);
		if (n < 0)
			return -1;
		if (!n)
			return terr(t, k->line, "%.*sempty action", "", 0);
		if (is(w[0], wl[0], "end")) {
			*term = T_END;
			return 0;
		}
		if (is(w[0], wl[0], "else")) {
			if (n > 1)
				return terr(t, k->line, "\"else %.*s\" not supported", w[1], wl[1]);
			*term = T_ELSE;
			return 0;
		}
		if (is(w[0], wl[0], "if")) {
			int yes = 0, tm;
			if (run && pipeline(t, k->line, dot, w + 1, wl + 1, n - 1, &v))
				return -1;
			yes = run && truth(v);
			if (block(t, i, yes, dot, &tm))
				return -1;
			if (tm == T_ELSE && block(t, i, run && !yes, dot, &tm))
				return -1;
			if (tm != T_END)
				return terr(t, k->line, "%.*sif without end", "", 0);
			continue;
		}
		if (is(w[0], wl[0], "range")) {
			if (do_range(t, i, run, dot, w, wl, n, k->line))
				return -1;
			continue;
		}
		if (is(w[0], wl[0], "with") || is(w[0], wl[0], "define") ||
		    is(w[0], wl[0], "template") || is(w[0], wl[0], "block"))
			return terr(t, k->line, "\"%.*s\" not supported", w[0], wl[0]);
		if (n > 2 && w[0][0] == '$' && (is(w[1], wl[1], ":=") || is(w[1], wl[1], "="))) {
			if (run && (pipeline(t, k->line, dot, w + 2, wl + 2, n - 2, &v) ||
				    setvar(t, k->line, w[0], wl[0], v)))
				return -1;
			continue;
		}
		if (!run)
			continue;
		if (pipeline(t, k->line, dot, w, wl, n, &v))
			return -1;
		buf_puts(t->out, to_text(t, v));
	}
	*term = T_EOF;
	return 0;
}

int check_template(struct arena *a, const char *s, size_t n, const struct json_val *vars,
		   char **env, struct buf *out, char *err, size_t errlen)
{
	struct tpl t = {0};
	struct json_val *e = arena_alloc(a, sizeof(*e)), *root = arena_alloc(a, 2 * sizeof(*root));
	const char *keys[2] = {"Env", "Vars"};
	size_t kl[2] = {3, 4}, cap = 0, kcap;
	int term;
	size_t i = 0;

	if (!e || !root)
		return -1;
	t.a = a;
	t.out = out;
	t.err = err;
	t.errlen = errlen;
	memset(e, 0, sizeof(*e));
	e->type = JSON_OBJ;
	for (; env && *env; env++) {
		const char *eq = strchr(*env, '=');
		size_t len = eq ? (size_t)(eq - *env) : strlen(*env);

		kcap = cap;
		if (arena_grow(a, &e->keys, &kcap, e->len + 1, sizeof(*e->keys)) ||
		    (kcap = cap, arena_grow(a, &e->key_lens, &kcap, e->len + 1, sizeof(size_t))) ||
		    arena_grow(a, &e->items, &cap, e->len + 1, sizeof(*e->items)))
			return -1;
		e->keys[e->len] = arena_strndup(a, *env, len);
		e->key_lens[e->len] = len;
		e->items[e->len] = *check_str(a, eq ? eq + 1 : "");
		e->len++;
	}
	t.env = e;
	root[0] = *e;
	root[1] = vars ? *vars : nothing;
	t.env = &root[0];
	memset(&t.root, 0, sizeof(t.root));
	t.root.type = JSON_OBJ;
	t.root.len = 2;
	t.root.items = root;
	t.root.keys = keys;
	t.root.key_lens = kl;
	if (tokenize(&t, s, n))
		return -1;
	if (block(&t, &i, 1, &t.root, &term))
		return -1;
	if (term != T_EOF)
		return terr(&t, t.t[i - 1].line, "unexpected \"%.*s\"", t.t[i - 1].s, t.t[i - 1].n);
	return 0;
}
#else
int check_template(struct arena *a, const char *s, size_t n, const struct json_val *vars,
		   char **env, struct buf *out, char *err, size_t errlen)
{
	const char *o = memmem(s, n, "{{", 2);
	int line = 1;

	(void)a, (void)vars, (void)env;
	if (!o) {
		buf_add(out, s, n);
		return 0;
	}
	for (; s < o; s++)
		line += *s == '\n';
	snprintf(err, errlen, "line %d: template: built without CONFIG_FEATURE_CHECK_TEMPLATE", line);
	return -1;
}
#endif
