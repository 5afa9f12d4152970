/* parse.c - RE2/Go regular expression syntax to an AST
 *
 * Recursive descent. Flags (?imsU) are resolved here: case folding turns
 * literals and classes into folded sets, (?s) and RE_LINE decide what '.'
 * is, (?m) and RE_LINE decide which assertion ^ and $ become. The
 * compiler then never sees a flag.
 */
#include <ctype.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "re_int.h"

enum {
	PF_I = 1,
	PF_M = 2,
	PF_S = 4,
	PF_U = 8
};

struct parser {
	const char *pat;
	size_t len, pos;
	unsigned fl;      /* PF_* in effect */
	unsigned reflags; /* RE_* */
	int depth;
	struct ast *a;
	char *err;
	size_t errlen;
	int failed;
};

void re_errf(char *err, size_t errlen, const char *pat, size_t len,
	     size_t pos, const char *fmt, ...)
{
	char msg[160], q[200];
	size_t i, k = 0;
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (i = 0; i < len && k < sizeof(q) - 8; i++) {
		unsigned char c = (unsigned char)pat[i];

		if (c == '"' || c == '\\') {
			q[k++] = '\\';
			q[k++] = (char)c;
		} else if (c < 0x20 || c == 0x7f) {
			k += (size_t)snprintf(q + k, 5, "\\x%02x", c);
		} else {
			q[k++] = (char)c;
		}
	}
	if (i < len) {
		memcpy(q + k, "...", 3);
		k += 3;
	}
	q[k] = 0;
	snprintf(err, errlen, "invalid regex: %s: at position %zu in \"%s\"",
		 msg, pos, q);
}

static void *perr(struct parser *p, size_t pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void *perr(struct parser *p, size_t pos, const char *fmt, ...)
{
	char msg[160];
	va_list ap;

	if (p->failed)
		return NULL;
	p->failed = 1;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	re_errf(p->err, p->errlen, p->pat, p->len, pos, "%s", msg);
	return NULL;
}

static struct node *newnode(struct parser *p, int type)
{
	struct node *n = calloc(1, sizeof(*n));

	if (!n)
		return perr(p, p->pos, "out of memory");
	n->type = type;
	n->allnext = p->a->all;
	p->a->all = n;
	return n;
}

void re_ast_free(struct ast *a)
{
	struct node *n, *next;

	for (n = a->all; n; n = next) {
		next = n->allnext;
		class_free(&n->cls);
		free(n);
	}
	memset(a, 0, sizeof(*a));
}

/* The code point at s, *w its length; -1 (length 1) if invalid. */
static int32_t decode(const char *s, size_t n, size_t *w)
{
	int cp;

	*w = (size_t)utf8_decode(s, n, &cp);
	return cp;
}

static int32_t next_rune(struct parser *p)
{
	size_t w;
	int32_t r = decode(p->pat + p->pos, p->len - p->pos, &w);

	if (r < 0) {
		perr(p, p->pos, "invalid UTF-8 in pattern");
		return -1;
	}
	p->pos += w;
	return r;
}

static int peek(struct parser *p)
{
	return p->pos < p->len ? (unsigned char)p->pat[p->pos] : -1;
}

static int peek_at(struct parser *p, size_t off)
{
	return p->pos + off < p->len ? (unsigned char)p->pat[p->pos + off]
				     : -1;
}

static int starts(struct parser *p, const char *s)
{
	size_t n = strlen(s);

	return p->len - p->pos >= n && !memcmp(p->pat + p->pos, s, n);
}

/* ---- classes ---- */

static void class_remove(struct rclass *c, uint32_t x)
{
	int i;

	for (i = 0; i < c->n; i++) {
		if (x < c->r[i][0] || x > c->r[i][1])
			continue;
		if (c->r[i][0] == c->r[i][1]) {
			memmove(c->r + i, c->r + i + 1,
				(size_t)(c->n - i - 1) * sizeof(*c->r));
			c->n--;
		} else if (c->r[i][0] == x) {
			c->r[i][0]++;
		} else if (c->r[i][1] == x) {
			c->r[i][1]--;
		} else {
			uint32_t hi = c->r[i][1];

			c->r[i][1] = x - 1;
			class_add(c, x + 1, hi);
			class_norm(c);
		}
		return;
	}
}

/* Fold (under (?i)) and negate a finished set, add it to dst. */
static void class_merge(struct parser *p, struct rclass *dst, struct rclass *src,
			int neg)
{
	int i;

	if (p->fl & PF_I)
		class_fold(src);
	if (neg)
		class_negate(src);
	for (i = 0; i < src->n; i++)
		class_add(dst, src->r[i][0], src->r[i][1]);
	dst->oom |= src->oom;
	class_free(src);
}

static const struct {
	const char *name;
	const char *r; /* pairs of bytes: lo hi */
} posix[] = {
	{"alnum", "09AZaz"},
	{"alpha", "AZaz"},
	{"ascii", "\x01\x7f"},
	{"blank", "\t\t  "},
	{"cntrl", "\x01\x1f\x7f\x7f"},
	{"digit", "09"},
	{"graph", "!~"},
	{"lower", "az"},
	{"print", " ~"},
	{"punct", "!/:@[`{~"},
	{"space", "\t\r  "},
	{"upper", "AZ"},
	{"word", "09AZaz__"},
	{"xdigit", "09AFaf"},
};

static void add_pairs(struct rclass *c, const char *r)
{
	for (; r[0]; r += 2)
		class_add(c, (unsigned char)r[0], (unsigned char)r[1]);
}

/* [:alpha:] at p->pos; 1 parsed, 0 not a POSIX class */
static int parse_posix(struct parser *p, struct rclass *dst)
{
	const char *s = p->pat + p->pos + 2, *end;
	size_t i, n;
	int neg = 0;
	struct rclass t = {0};

	/* as Go: the name runs to the first ":]", so [[:a:b:]] is an
	 * unknown name, not a bracket holding '[' ':' 'a' ... */
	end = memmem(s, p->len - p->pos - 2, ":]", 2);
	if (!end)
		return 0;
	if (*s == '^')
		neg = 1, s++;
	n = (size_t)(end - s);
	for (i = 0; i < sizeof(posix) / sizeof(posix[0]); i++) {
		if (strlen(posix[i].name) != n || memcmp(posix[i].name, s, n))
			continue;
		add_pairs(&t, posix[i].r);
		if (!strcmp(posix[i].name, "ascii") ||
		    !strcmp(posix[i].name, "cntrl"))
			class_add(&t, 0, 0);
		class_merge(p, dst, &t, neg);
		p->pos = (size_t)(end + 2 - p->pat);
		return 1;
	}
	perr(p, p->pos, "invalid POSIX class name: `%.*s`",
	     (int)(end + 2 - (p->pat + p->pos)), p->pat + p->pos);
	return -1;
}

static uint32_t read_varint(const unsigned char **p)
{
	uint32_t v = 0;
	int shift = 0;

	while (**p & 0x80) {
		v |= (uint32_t)(*(*p)++ & 0x7f) << shift;
		shift += 7;
	}
	return v | (uint32_t) * (*p)++ << shift;
}

/* The Unicode names and ranges, inflated at the first \p (for the
 * process's life; NULL when memory ran out). */
static const unsigned char *unitab;
static pthread_once_t unitab_once = PTHREAD_ONCE_INIT;

static void unitab_load(void)
{
	unsigned char *p = malloc(re_unitab_len);
	uLongf n = re_unitab_len;

	if (p && uncompress(p, &n, re_unitab_z, re_unitab_zlen) == Z_OK && n == re_unitab_len)
		unitab = p;
	else
		free(p);
}

static void add_table(const struct re_unitab *u, struct rclass *t)
{
	const unsigned char *d = unitab + re_uninames_len + u->data;
	uint32_t lo, prev = 0;
	int i;

	for (i = 0; i < u->n; i++) {
		lo = prev + read_varint(&d);
		prev = lo + read_varint(&d);
		class_add(t, lo, prev);
		prev++;
	}
}

/* \p{name}: Any, a general category (one letter: the union of its
 * two-letter ones) or a script, names as Go spells them. 0: no such
 * class; -1: out of memory. */
static int unicode_class(const char *name, size_t n, struct rclass *t)
{
	const struct re_unitab *u;
	const char *un;
	int i, found = 0;

	if (n == 3 && !memcmp(name, "Any", 3)) {
		class_add(t, 0, 0x10ffff);
		return 1;
	}
	pthread_once(&unitab_once, unitab_load);
	if (!unitab)
		return -1;
	for (i = 0; i < re_nunitab; i++) {
		u = &re_unitabs[i];
		un = (const char *)unitab + u->name;
		if (n == 1 && i < re_ncat && un[0] == name[0]) {
			add_table(u, t);
			found = 1;
		} else if (strlen(un) == n && !memcmp(un, name, n)) {
			add_table(u, t);
			return 1;
		}
	}
	return found;
}

enum {
	ESC_RUNE,
	ESC_CLASS,
	ESC_ASSERT,
	ESC_ERR
};

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int parse_hex(struct parser *p, size_t start, int32_t *r)
{
	uint32_t v = 0;
	int d, nd = 0;

	if (peek(p) == '{') {
		p->pos++;
		while ((d = hexval(peek(p))) >= 0) {
			v = v * 16 + (uint32_t)d;
			if (v > 0x10ffff)
				goto bad;
			nd++;
			p->pos++;
		}
		if (peek(p) != '}' || !nd)
			goto bad;
		p->pos++;
	} else {
		int a = hexval(peek(p)), b = hexval(peek_at(p, 1));

		if (a < 0 || b < 0)
			goto bad;
		v = (uint32_t)(a * 16 + b);
		p->pos += 2;
	}
	*r = (int32_t)v;
	return ESC_RUNE;
bad:
	perr(p, start, "invalid escape sequence: `%.*s`",
	     (int)(p->pos - start + (p->pos < p->len)), p->pat + start);
	return ESC_ERR;
}

static int parse_uniclass(struct parser *p, size_t start, int neg,
			  struct rclass *dst)
{
	const char *name;
	size_t n;
	int k;
	struct rclass t = {0};
	const char *end;

	if (peek(p) == '{') {
		name = p->pat + p->pos + 1;
		end = memchr(name, '}', p->len - p->pos - 1);
		if (!end)
			return perr(p, start, "missing closing } in `%.*s`",
				    (int)(p->len - start), p->pat + start),
			       ESC_ERR;
		n = (size_t)(end - name);
		p->pos += n + 2;
		if (n && *name == '^')
			neg = !neg, name++, n--;
	} else if (p->pos < p->len) {
		name = p->pat + p->pos;
		n = 1;
		p->pos++;
	} else {
		return perr(p, start, "missing Unicode class name after \\%c",
			    p->pat[start + 1]),
		       ESC_ERR;
	}
	if ((k = unicode_class(name, n, &t)) <= 0) {
		class_free(&t);
		return perr(p, start,
			    k ? "out of memory for the Unicode tables at `%.*s`"
			      : "unknown Unicode class `%.*s` (not a general "
				"category or script)",
			    (int)(p->pos - start), p->pat + start),
		       ESC_ERR;
	}
	class_merge(p, dst, &t, neg);
	return ESC_CLASS;
}

/* An escape at p->pos ('\\'). A class escape is merged into cls. */
static int parse_escape(struct parser *p, int inclass, int32_t *r,
			struct rclass *cls, unsigned *ak)
{
	size_t start = p->pos;
	struct rclass t = {0};
	int c, neg;

	p->pos++;
	c = peek(p);
	if (c < 0)
		return perr(p, start, "trailing backslash at end of pattern"),
		       ESC_ERR;
	p->pos++;
	switch (c) {
	case '1':
	case '2':
	case '3':
	case '4':
	case '5':
	case '6':
	case '7':
		if (peek(p) < '0' || peek(p) > '7')
			return perr(p, start,
				    "backreferences are not supported: `\\%c`",
				    c),
			       ESC_ERR;
		/* fall through */
	case '0': {
		int v = c - '0', k;

		for (k = 0; k < 2 && peek(p) >= '0' && peek(p) <= '7'; k++)
			v = v * 8 + (p->pat[p->pos++] - '0');
		*r = v;
		return ESC_RUNE;
	}
	case 'x':
		return parse_hex(p, start, r);
	case 'a': *r = 7; return ESC_RUNE;
	case 'f': *r = 12; return ESC_RUNE;
	case 't': *r = 9; return ESC_RUNE;
	case 'n': *r = 10; return ESC_RUNE;
	case 'r': *r = 13; return ESC_RUNE;
	case 'v': *r = 11; return ESC_RUNE;
	case 'd':
	case 'D':
		add_pairs(&t, "09");
		class_merge(p, cls, &t, c == 'D');
		return ESC_CLASS;
	case 's':
	case 'S':
		add_pairs(&t, "\t\n\f\r  ");
		class_merge(p, cls, &t, c == 'S');
		return ESC_CLASS;
	case 'w':
	case 'W':
		add_pairs(&t, "09AZaz__");
		class_merge(p, cls, &t, c == 'W');
		return ESC_CLASS;
	case 'p':
	case 'P':
		neg = c == 'P';
		return parse_uniclass(p, start, neg, cls);
	case 'b':
	case 'B':
	case 'A':
	case 'z':
		if (inclass)
			break;
		*ak = c == 'b' ? A_WORDB : c == 'B' ? A_NWORDB
				   : c == 'A'       ? A_BOT
						    : A_EOT;
		return ESC_ASSERT;
	case 'C':
		return perr(p, start, "\\C (any byte) is not supported"),
		       ESC_ERR;
	case 'Z':
		return perr(p, start, "\\Z is not supported (use \\z or $)"),
		       ESC_ERR;
	case 'k':
	case 'g':
		return perr(p, start,
			    "backreferences are not supported: `\\%c`", c),
		       ESC_ERR;
	default:
		if (c < 0x80 && !isalnum(c)) { /* punctuation, and _ */
			*r = c;
			return ESC_RUNE;
		}
	}
	if (c >= 0x80)
		return perr(p, start, "invalid escape sequence: `\\` before a "
				      "non-ASCII character"),
		       ESC_ERR;
	return perr(p, start, "invalid escape sequence: `\\%c`", c), ESC_ERR;
}

/* One class item: a rune (*r, returns ESC_RUNE) or a set merged into cls. */
static int class_item(struct parser *p, int32_t *r, struct rclass *cls)
{
	unsigned ak;
	int k;

	if (peek(p) == '[' && peek_at(p, 1) == ':') {
		k = parse_posix(p, cls);
		if (k)
			return k > 0 ? ESC_CLASS : ESC_ERR;
	}
	if (peek(p) == '\\')
		return parse_escape(p, 1, r, cls, &ak);
	*r = next_rune(p);
	return *r < 0 ? ESC_ERR : ESC_RUNE;
}

static void finish_class(struct parser *p, struct rclass *c)
{
	class_norm(c);
	if (p->reflags & RE_LINE)
		class_remove(c, '\n');
}

static struct node *parse_class(struct parser *p)
{
	size_t start = p->pos;
	struct node *n = newnode(p, N_CLASS);
	struct rclass raw = {0};
	int neg = 0, first = 1, k;
	int32_t lo, hi;

	if (!n)
		return NULL;
	p->pos++;
	if (peek(p) == '^')
		neg = 1, p->pos++;
	for (;;) {
		size_t ipos = p->pos;

		if (p->pos >= p->len) {
			class_free(&raw);
			return perr(p, p->len, "missing closing ] for the [ "
					       "at position %zu",
				    start);
		}
		if (peek(p) == ']' && !first)
			break;
		first = 0;
		k = class_item(p, &lo, &raw);
		if (k == ESC_ERR)
			break;
		if (k == ESC_CLASS)
			continue;
		hi = lo;
		if (peek(p) == '-' && peek_at(p, 1) != ']' &&
		    peek_at(p, 1) >= 0) {
			p->pos++;
			k = class_item(p, &hi, &raw);
			if (k == ESC_ERR)
				break;
			if (k != ESC_RUNE || hi < lo) {
				class_free(&raw);
				return perr(p, ipos,
					    "invalid character class range: "
					    "`%.*s`",
					    (int)(p->pos - ipos),
					    p->pat + ipos);
			}
		}
		class_add(&raw, (uint32_t)lo, (uint32_t)hi);
	}
	if (p->failed) {
		class_free(&raw);
		return NULL;
	}
	p->pos++;
	class_merge(p, &n->cls, &raw, neg);
	finish_class(p, &n->cls);
	if (n->cls.oom)
		return perr(p, start, "out of memory");
	return n;
}

static struct node *class_node(struct parser *p, struct rclass *c)
{
	struct node *n = newnode(p, N_CLASS);

	if (!n) {
		class_free(c);
		return NULL;
	}
	n->cls = *c;
	finish_class(p, &n->cls);
	if (n->cls.oom)
		return perr(p, p->pos, "out of memory");
	return n;
}

static struct node *lit_node(struct parser *p, int32_t r, int raw)
{
	struct node *n;
	struct rclass c = {0};

	if (r == '\n' && (p->reflags & RE_LINE))
		return class_node(p, &c); /* can never match */
	/* text never decodes to a surrogate; U+FFFD also matches each
	 * byte of invalid UTF-8, which a class knows how to do */
	if (!raw && r >= 0xd800 && r <= 0xdfff)
		return class_node(p, &c);
	if (!raw && r == 0xfffd) {
		class_add(&c, 0xfffd, 0xfffd);
		return class_node(p, &c);
	}
	if (!raw && (p->fl & PF_I) && !re_foldtab())
		return NULL; /* out of memory, as newnode's */
	n = newnode(p, N_LIT);
	if (!n)
		return NULL;
	n->rune = r;
	n->raw = (uint8_t)raw;
	n->fold = !raw && (p->fl & PF_I) && re_foldnext((uint32_t)r) != (uint32_t)r;
	return n;
}

static struct node *assert_node(struct parser *p, unsigned ak)
{
	struct node *n = newnode(p, N_ASSERT);

	if (!n)
		return NULL;
	if (p->reflags & RE_LINE) {
		if (ak == A_BOT)
			ak = A_BOL;
		else if (ak == A_EOT)
			ak = A_EOL;
	}
	n->akind = ak;
	return n;
}

static struct node *parse_alt(struct parser *p);

static int valid_name(const char *s, size_t n)
{
	size_t i;

	if (!n)
		return 0;
	for (i = 0; i < n; i++)
		if (!re_isword((unsigned char)s[i]))
			return 0;
	return 1;
}

/* Parse (?flags) or (?flags: at p->pos (after "(?"). Returns ')' or ':'. */
static int parse_flags(struct parser *p, size_t start, unsigned *fl)
{
	unsigned f = *fl;
	int neg = 0, any = 0, c;

	for (;;) {
		c = peek(p);
		if (c < 0)
			return perr(p, p->len, "missing closing )"), -1;
		p->pos++;
		switch (c) {
		case 'i':
		case 'm':
		case 's':
		case 'U': {
			unsigned b = c == 'i' ? PF_I : c == 'm' ? PF_M
					       : c == 's'       ? PF_S
								: PF_U;

			f = neg ? f & ~b : f | b;
			any = 1;
			continue;
		}
		case '-':
			if (neg)
				break;
			neg = 1;
			any = 0;
			continue;
		case ':':
		case ')':
			/* Go takes (?) and (?:, not (?-) or (?i-) */
			if (!any && neg)
				break;
			*fl = f;
			return c;
		}
		break;
	}
	perr(p, start, "invalid or unsupported group syntax: `%.*s` (flags "
		       "are i m s U)",
	     (int)(p->pos - start), p->pat + start);
	return -1;
}

/* '(' at p->pos. *none is set for a bare flag group (?i). */
static struct node *parse_group(struct parser *p, int *none)
{
	size_t start = p->pos;
	unsigned saved = p->fl;
	int capture = 1, k;
	struct node *n, *g;

	p->pos++;
	if (peek(p) == '?') {
		if (starts(p, "?=") || starts(p, "?!"))
			return perr(p, start, "lookahead `(%.2s` is not "
					      "supported",
				    p->pat + p->pos);
		if (starts(p, "?<=") || starts(p, "?<!"))
			return perr(p, start, "lookbehind `(%.3s` is not "
					      "supported",
				    p->pat + p->pos);
		if (starts(p, "?P=") || starts(p, "?P>"))
			return perr(p, start, "backreferences are not "
					      "supported: `(%.3s`",
				    p->pat + p->pos);
		if (starts(p, "?P<") || starts(p, "?<")) {
			const char *name, *end;
			size_t nlen;

			p->pos += p->pat[p->pos + 1] == 'P' ? 3 : 2;
			name = p->pat + p->pos;
			end = memchr(name, '>', p->len - p->pos);
			if (!end)
				return perr(p, start, "invalid named capture "
						      "group: missing >");
			nlen = (size_t)(end - name);
			if (!valid_name(name, nlen))
				return perr(p, start, "invalid named capture "
						      "group name `%.*s` (letters, "
						      "digits and _ only)",
					    (int)nlen,
					    name);
			p->pos += nlen + 1;
		} else {
			unsigned f = p->fl;

			p->pos++;
			k = parse_flags(p, start, &f);
			if (k < 0)
				return NULL;
			if (k == ')') {
				p->fl = f;
				*none = 1;
				return NULL;
			}
			p->fl = f;
			capture = 0;
		}
	}
	if (++p->depth > RE_MAXDEPTH)
		return perr(p, start, "groups nested too deeply (max %d)",
			    RE_MAXDEPTH);
	n = parse_alt(p);
	p->depth--;
	p->fl = saved;
	if (!n)
		return NULL;
	if (peek(p) != ')')
		return perr(p, p->len, "missing closing )");
	p->pos++;
	if (!capture)
		return n;
	p->a->ncap++;
	g = newnode(p, N_GROUP);
	if (g)
		g->kid = n;
	return g;
}

static struct node *parse_atom(struct parser *p, int *none)
{
	struct rclass c = {0};
	unsigned ak = 0;
	int32_t r;
	int k;

	switch (peek(p)) {
	case '(':
		return parse_group(p, none);
	case '[':
		return parse_class(p);
	case '.':
		p->pos++;
		class_add(&c, 0, 0x10ffff);
		if (!(p->fl & PF_S))
			class_remove(&c, '\n');
		return class_node(p, &c);
	case '^':
		p->pos++;
		return assert_node(p, (p->fl & PF_M) ? A_BOL : A_BOT);
	case '$':
		p->pos++;
		return assert_node(p, (p->fl & PF_M) ? A_EOL : A_EOT);
	case '\\':
		k = parse_escape(p, 0, &r, &c, &ak);
		if (k == ESC_ERR) {
			class_free(&c);
			return NULL;
		}
		if (k == ESC_ASSERT)
			return assert_node(p, ak);
		if (k == ESC_CLASS)
			return class_node(p, &c);
		break;
	default:
		r = next_rune(p);
		if (r < 0)
			return NULL;
	}
	return lit_node(p, r, 0);
}

/* x{n}, x{n,}, x{n,m} at p->pos: 1 parsed, 0 not a repeat, -1 error */
static int parse_count(struct parser *p, int *min, int *max)
{
	size_t i = p->pos + 1, start = p->pos;
	long a = 0, b = -1;
	int nd = 0;

	while (i < p->len && p->pat[i] >= '0' && p->pat[i] <= '9') {
		if (a < 100000)
			a = a * 10 + (p->pat[i] - '0');
		i++, nd++;
	}
	if (!nd || i >= p->len)
		return 0;
	if (p->pat[i] == ',') {
		i++;
		if (i < p->len && p->pat[i] >= '0' && p->pat[i] <= '9') {
			b = 0;
			while (i < p->len && p->pat[i] >= '0' &&
			       p->pat[i] <= '9') {
				if (b < 100000)
					b = b * 10 + (p->pat[i] - '0');
				i++;
			}
		}
	} else {
		b = a;
	}
	if (i >= p->len || p->pat[i] != '}')
		return 0;
	p->pos = i + 1;
	if (a > RE_MAXREP || b > RE_MAXREP || (b >= 0 && b < a)) {
		perr(p, start, "invalid repeat count `%.*s` (counts are at "
			       "most %d, min <= max)",
		     (int)(p->pos - start),
		     p->pat + start, RE_MAXREP);
		return -1;
	}
	*min = (int)a;
	*max = (int)b;
	return 1;
}

static int is_repeat_op(struct parser *p)
{
	int c = peek(p), mn, mx;
	size_t save = p->pos;

	if (c == '*' || c == '+' || c == '?')
		return 1;
	if (c != '{')
		return 0;
	/* look without committing and without reporting errors */
	if (p->failed)
		return 0;
	c = parse_count(p, &mn, &mx);
	p->pos = save;
	if (c < 0) {
		p->failed = 0; /* the caller re-parses and reports */
		return 1;
	}
	return c;
}

/* Go's limit on nested counts: the repeats around any item may make at
 * most n copies of it in all, so (?:a{2}){501} is refused. */
static int rep_valid(const struct node *n, int lim)
{
	const struct node *k;
	int m;

	if (n->type == N_REP) {
		if (n->max == 0)
			return 1;
		m = n->max < 0 ? n->min : n->max;
		if (m > lim)
			return 0;
		if (m > 0)
			lim /= m;
	}
	for (k = n->kid; k; k = k->next)
		if (!rep_valid(k, lim))
			return 0;
	return 1;
}

static struct node *parse_reps(struct parser *p, struct node *atom)
{
	size_t start, opstart = 0;
	int min, max, c, k, have = 0;
	struct node *r;

	for (;;) {
		start = p->pos;
		c = peek(p);
		if (c == '*' || c == '+' || c == '?') {
			p->pos++;
			min = c == '+';
			max = c == '?' ? 1 : -1;
		} else if (c == '{') {
			k = parse_count(p, &min, &max);
			if (k < 0)
				return NULL;
			if (!k)
				return atom;
		} else {
			return atom;
		}
		if (have) {
			if (c == '+' && p->pos - opstart == 2)
				return perr(p, opstart, "possessive "
							"quantifier `%.*s` is not "
							"supported",
					    (int)(p->pos -
						  opstart),
					    p->pat + opstart);
			return perr(p, opstart, "invalid nested repetition "
						"operator: `%.*s`",
				    (int)(p->pos -
					  opstart),
				    p->pat + opstart);
		}
		r = newnode(p, N_REP);
		if (!r)
			return NULL;
		r->greedy = 1;
		if (peek(p) == '?') {
			p->pos++;
			r->greedy = 0;
		}
		if (p->fl & PF_U)
			r->greedy = !r->greedy;
		r->kid = atom;
		r->min = min;
		r->max = max;
		if ((min >= 2 || max >= 2) && !rep_valid(r, RE_MAXREP))
			return perr(p, start, "invalid repeat count `%.*s` "
					      "(nested counts make more than %d copies)",
				    (int)(p->pos - start), p->pat + start,
				    RE_MAXREP);
		atom = r;
		have = 1;
		opstart = start;
	}
}

/* The nodes of a sequence as one: itself, a concatenation, or empty. */
static struct node *cat_of(struct parser *p, struct node *head, int count)
{
	struct node *cat;

	if (count == 1)
		return head;
	cat = newnode(p, count ? N_CAT : N_EMPTY);
	if (cat)
		cat->kid = head;
	return cat;
}

struct seq {
	struct node *head, *prev, *tail; /* prev: the node before tail */
	int count;
};

static void seq_push(struct seq *q, struct node *n)
{
	if (q->tail)
		q->tail->next = n;
	else
		q->head = n;
	q->prev = q->tail;
	q->tail = n;
	q->count++;
}

/* Put n (tail under a repeat) in the place of the sequence's tail. */
static void seq_retail(struct seq *q, struct node *n)
{
	if (q->prev)
		q->prev->next = n;
	else
		q->head = n;
	q->tail = n;
}

/* \Q...\E at p->pos: its characters are literals; a repeat after it
 * applies to the last one. */
static int parse_quote(struct parser *p, struct seq *q)
{
	size_t stop;

	p->pos += 2;
	for (stop = p->pos; stop < p->len; stop++)
		if (p->pat[stop] == '\\' && stop + 1 < p->len &&
		    p->pat[stop + 1] == 'E')
			break;
	while (p->pos < stop) {
		int32_t r = next_rune(p);
		struct node *n;

		if (r < 0 || !(n = lit_node(p, r, 0)))
			return -1;
		seq_push(q, n);
	}
	if (stop < p->len)
		p->pos = stop + 2;
	return 0;
}

static struct node *parse_cat(struct parser *p)
{
	struct seq q = {0};
	struct node *n;
	int none, c, bare = 0;

	while ((c = peek(p)) >= 0 && c != '|' && c != ')') {
		size_t start = p->pos;

		if (is_repeat_op(p)) {
			size_t e = p->pos + 1;
			int mn, mx;

			/* as Go: after a flag group (?i) or an empty \Q\E a
			 * repeat applies to the item before them */
			if (bare && q.tail) {
				n = parse_reps(p, q.tail);
				if (!n)
					return NULL;
				seq_retail(&q, n);
				bare = 0;
				continue;
			}
			if (c == '{') {
				if (parse_count(p, &mn, &mx) < 0)
					return NULL;
				e = p->pos;
			}
			return perr(p, start, "missing argument to repetition "
					      "operator: `%.*s` (nothing to repeat)",
				    (int)(e - start), p->pat + start);
		}
		bare = 0;
		if (c == '\\' && peek_at(p, 1) == 'Q') {
			int before = q.count;

			if (parse_quote(p, &q))
				return NULL;
			if (q.count == before) {
				bare = 1;
				continue;
			}
			n = parse_reps(p, q.tail);
			if (!n)
				return NULL;
			seq_retail(&q, n);
			continue;
		}
		none = 0;
		n = parse_atom(p, &none);
		if (none) {
			bare = 1;
			continue;
		}
		if (!n)
			return NULL;
		n = parse_reps(p, n);
		if (!n)
			return NULL;
		seq_push(&q, n);
	}
	return cat_of(p, q.head, q.count);
}

static struct node *parse_alt(struct parser *p)
{
	struct node *first, *alt, *tail, *n;

	first = parse_cat(p);
	if (!first || peek(p) != '|')
		return first;
	alt = newnode(p, N_ALT);
	if (!alt)
		return NULL;
	alt->kid = tail = first;
	while (peek(p) == '|') {
		p->pos++;
		n = parse_cat(p);
		if (!n)
			return NULL;
		tail->next = n;
		tail = n;
	}
	return alt;
}

static struct node *parse_literal(struct parser *p)
{
	struct node *head = NULL, *tail = NULL, *n;
	int count = 0;

	while (p->pos < p->len) {
		size_t w;
		int32_t r = -1;

		if (p->reflags & RE_ICASE)
			r = decode(p->pat + p->pos, p->len - p->pos, &w);
		if (r < 0) {
			r = (unsigned char)p->pat[p->pos];
			w = 1;
			n = r < 0x80 ? lit_node(p, r, 0) : lit_node(p, r, 1);
		} else {
			n = lit_node(p, r, 0);
		}
		p->pos += w;
		if (!n)
			return NULL;
		if (tail)
			tail->next = n;
		else
			head = n;
		tail = n;
		count++;
	}
	return cat_of(p, head, count);
}

int re_parse(const char *pat, size_t len, unsigned flags, struct ast *a,
	     char *err, size_t errlen)
{
	struct parser p = {0};

	memset(a, 0, sizeof(*a));
	p.pat = pat;
	p.len = len;
	p.reflags = flags;
	p.fl = (flags & RE_ICASE) ? PF_I : 0;
	p.a = a;
	p.err = err;
	p.errlen = errlen;
	if (flags & RE_LITERAL)
		a->root = parse_literal(&p);
	else
		a->root = parse_alt(&p);
	if (a->root && p.pos < len)
		perr(&p, p.pos, "unexpected )");
	if (p.failed || !a->root) {
		if (!p.failed)
			perr(&p, p.pos, "out of memory");
		re_ast_free(a);
		return -1;
	}
	return 0;
}
