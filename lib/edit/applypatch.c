/* applypatch.c - parse and apply "*** Begin Patch" patches
 * (include/applypatch.h) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "edit.h"

/* ---- the patch, line by line ---- */

struct reader {
	const char *p, *end;
	size_t line;   /* number of the line last read */
	int strip_cr;  /* the patch has CRLF line ends */
	const char *s; /* the line last read, without its line end */
	size_t n;
};

static int next_line(struct reader *r)
{
	const char *nl;

	if (r->p >= r->end)
		return 0;
	nl = memchr(r->p, '\n', (size_t)(r->end - r->p));
	r->s = r->p;
	r->n = (size_t)((nl ? nl : r->end) - r->p);
	r->p = nl ? nl + 1 : r->end;
	if (r->strip_cr && r->n && r->s[r->n - 1] == '\r')
		r->n--;
	r->line++;
	return 1;
}

/* Look at the next line without taking it. */
static int peek_line(const struct reader *r, const char **s, size_t *n)
{
	struct reader copy = *r;

	if (!next_line(&copy))
		return 0;
	*s = copy.s;
	*n = copy.n;
	return 1;
}

static int space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static void trim(const char **s, size_t *n)
{
	while (*n && space(**s))
		(*s)++, (*n)--;
	while (*n && space((*s)[*n - 1]))
		(*n)--;
}

/* The line, trimmed, is `word` or begins with it; *rest gets the rest. */
static int marker(const char *s, size_t n, const char *word, const char **rest,
		  size_t *rn)
{
	size_t wn = strlen(word);

	trim(&s, &n);
	if (n < wn || memcmp(s, word, wn))
		return 0;
	if (rest) {
		*rest = s + wn;
		*rn = n - wn;
		trim(rest, rn);
	}
	return 1;
}

static int is(const char *s, size_t n, const char *word)
{
	const char *rest;
	size_t rn;

	return marker(s, n, word, &rest, &rn) && !rn;
}

static int parse_fail(char *err, size_t errlen, size_t line, const char *what,
		      const char *s, size_t n)
{
	if (s)
		snprintf(err, errlen, "patch line %zu: expected %s, got \"%.*s\"",
			 line, what, (int)(n > 60 ? 60 : n), s);
	else
		snprintf(err, errlen, "patch line %zu: expected %s", line, what);
	return -1;
}

/* Make room for one more item in an arena array (doubling, copying). */
static void *grow(struct arena *a, void *arr, size_t n, size_t *cap,
		  size_t size)
{
	void *p;

	if (n < *cap)
		return arr;
	*cap = *cap ? *cap * 2 : 8;
	p = arena_alloc(a, *cap * size);
	if (p && n)
		memcpy(p, arr, n * size);
	return p;
}

/* ---- the parser ---- */

struct parser {
	struct arena *a;
	struct reader r;
	char *err;
	size_t errlen;
};

static int nomem(struct parser *ps)
{
	snprintf(ps->err, ps->errlen, "patch line %zu: out of memory", ps->r.line);
	return -1;
}

static int parse_path(struct parser *ps, const char *rest, size_t rn,
		      const char **path)
{
	if (!rn)
		return parse_fail(ps->err, ps->errlen, ps->r.line,
				  "a path after the colon", NULL, 0);
	*path = arena_strndup(ps->a, rest, rn);
	return *path ? 0 : nomem(ps);
}

static int parse_add(struct parser *ps, struct applypatch_file *f)
{
	struct buf b;
	const char *s;
	size_t n;

	buf_init(&b);
	while (peek_line(&ps->r, &s, &n) && n && s[0] == '+') {
		next_line(&ps->r);
		buf_add(&b, s + 1, n - 1);
		buf_putc(&b, '\n');
	}
	f->content = arena_strndup(ps->a, b.p ? b.p : "", b.len);
	f->content_len = b.len;
	buf_free(&b);
	return f->content && !b.oom ? 0 : nomem(ps);
}

static struct applypatch_hunk *new_hunk(struct parser *ps,
					struct applypatch_file *f, size_t *cap)
{
	struct applypatch_hunk *h;

	f->hunks = grow(ps->a, f->hunks, f->nhunks, cap, sizeof(*h));
	if (!f->hunks)
		return NULL;
	h = &f->hunks[f->nhunks++];
	memset(h, 0, sizeof(*h));
	h->patch_line = ps->r.line;
	return h;
}

static int add_line(struct parser *ps, struct applypatch_line **lines,
		    size_t *n, size_t *cap, char kind, const char *s, size_t len)
{
	*lines = grow(ps->a, *lines, *n, cap, sizeof(**lines));
	if (!*lines)
		return nomem(ps);
	(*lines)[*n].kind = kind;
	(*lines)[*n].p = s;
	(*lines)[(*n)++].len = len;
	return 0;
}

/* Hunks up to the next "*** " line that is not "*** End of File". */
static int parse_hunks(struct parser *ps, struct applypatch_file *f)
{
	struct applypatch_hunk *h = NULL;
	size_t hunk_cap = 0, line_cap = 0, anchor_cap = 0, n;
	const char *s;

	while (peek_line(&ps->r, &s, &n)) {
		if (n >= 4 && !memcmp(s, "*** ", 4) && !is(s, n, "*** End of File"))
			break;
		next_line(&ps->r);
		if (n >= 2 && !memcmp(s, "@@", 2)) {
			const char *anchor = s + 2;
			size_t an = n - 2;

			/* "@@" lines in a row: anchors of one hunk */
			if (!h || h->nlines) {
				if (!(h = new_hunk(ps, f, &hunk_cap)))
					return nomem(ps);
				line_cap = 0;
				anchor_cap = 0;
			}
			trim(&anchor, &an);
			if (an && add_line(ps, &h->anchors, &h->nanchors,
					   &anchor_cap, '@', anchor, an))
				return -1;
			continue;
		}
		if (is(s, n, "*** End of File")) {
			if (!h || !h->nlines)
				return parse_fail(ps->err, ps->errlen, ps->r.line,
						  "hunk lines before '*** End of File'",
						  s, n);
			h->at_eof = 1;
			h = NULL;
			continue;
		}
		if (n && s[0] != ' ' && s[0] != '-' && s[0] != '+')
			return parse_fail(ps->err, ps->errlen, ps->r.line,
					  "'@@' or a hunk line starting with ' ', '-' or '+'",
					  s, n);
		if (!h) { /* the first hunk may start without "@@" */
			if (f->nhunks)
				return parse_fail(ps->err, ps->errlen, ps->r.line,
						  "'@@' to start a hunk after '*** End of File'",
						  s, n);
			if (!(h = new_hunk(ps, f, &hunk_cap)))
				return nomem(ps);
			line_cap = 0;
		}
		if (add_line(ps, &h->lines, &h->nlines, &line_cap, n ? s[0] : ' ',
			     n ? s + 1 : s, n ? n - 1 : 0))
			return -1;
	}
	if (!f->nhunks)
		return parse_fail(ps->err, ps->errlen, ps->r.line + 1,
				  "a hunk ('@@' and its lines) for the update of",
				  f->path, strlen(f->path));
	if (h && !h->nlines)
		return parse_fail(ps->err, ps->errlen, ps->r.line + 1,
				  "lines after '@@'", NULL, 0);
	return 0;
}

/* One "*** ... File:" section; *done when "*** End Patch" is read. */
static int parse_section(struct parser *ps, struct applypatch_file *f, int *done)
{
	const char *rest, *s;
	size_t rn, n;

	if (!next_line(&ps->r))
		return parse_fail(ps->err, ps->errlen, ps->r.line + 1,
				  "'*** End Patch' before the end of the input",
				  NULL, 0);
	memset(f, 0, sizeof(*f));
	f->patch_line = ps->r.line;
	if (is(ps->r.s, ps->r.n, "*** End Patch")) {
		*done = 1;
		return 0;
	}
	if (marker(ps->r.s, ps->r.n, "*** Add File:", &rest, &rn)) {
		f->op = APPLYPATCH_ADD;
		return parse_path(ps, rest, rn, &f->path) || parse_add(ps, f);
	}
	if (marker(ps->r.s, ps->r.n, "*** Delete File:", &rest, &rn)) {
		f->op = APPLYPATCH_DELETE;
		return parse_path(ps, rest, rn, &f->path);
	}
	if (!marker(ps->r.s, ps->r.n, "*** Update File:", &rest, &rn))
		return parse_fail(ps->err, ps->errlen, ps->r.line,
				  "'*** Add File: ', '*** Delete File: ', "
				  "'*** Update File: ' or '*** End Patch'",
				  ps->r.s, ps->r.n);
	f->op = APPLYPATCH_UPDATE;
	if (parse_path(ps, rest, rn, &f->path))
		return -1;
	if (peek_line(&ps->r, &s, &n) && marker(s, n, "*** Move to:", &rest, &rn)) {
		next_line(&ps->r);
		if (parse_path(ps, rest, rn, &f->move_to))
			return -1;
	}
	return parse_hunks(ps, f);
}

static int crlf_text(const char *s, size_t n)
{
	const char *nl = memchr(s, '\n', n);

	return nl && nl > s && nl[-1] == '\r';
}

int applypatch_parse(struct arena *a, const char *text, size_t len,
		     struct applypatch_plan *plan, char *err, size_t errlen)
{
	struct parser ps = {a, {text, text + len, 0, 0, NULL, 0}, err, errlen};
	size_t cap = 0;
	int done = 0;

	memset(plan, 0, sizeof(*plan));
	ps.r.strip_cr = crlf_text(text, len);
	do { /* blank lines before the patch are fine */
		if (!next_line(&ps.r))
			return parse_fail(err, errlen, ps.r.line + 1,
					  "'*** Begin Patch'", NULL, 0);
	} while (is(ps.r.s, ps.r.n, ""));
	if (!is(ps.r.s, ps.r.n, "*** Begin Patch"))
		return parse_fail(err, errlen, ps.r.line, "'*** Begin Patch'",
				  ps.r.s, ps.r.n);
	for (;;) {
		struct applypatch_file f;

		if (parse_section(&ps, &f, &done))
			return -1;
		if (done)
			break;
		plan->files = grow(a, plan->files, plan->nfiles, &cap, sizeof(f));
		if (!plan->files)
			return nomem(&ps);
		plan->files[plan->nfiles++] = f;
	}
	while (next_line(&ps.r))
		if (!is(ps.r.s, ps.r.n, ""))
			return parse_fail(err, errlen, ps.r.line,
					  "nothing after '*** End Patch'",
					  ps.r.s, ps.r.n);
	return 0;
}

/* ---- applying an update ---- */

struct text_line {
	const char *p;
	size_t len;
};

enum match_mode {
	MATCH_EXACT,
	MATCH_RTRIM,
	MATCH_TRIM
};

static int same_line(const char *a, size_t an, const char *b, size_t bn,
		     enum match_mode mode)
{
	if (mode == MATCH_TRIM) {
		trim(&a, &an);
		trim(&b, &bn);
	} else if (mode == MATCH_RTRIM) {
		while (an && space(a[an - 1]))
			an--;
		while (bn && space(b[bn - 1]))
			bn--;
	}
	return an == bn && !memcmp(a, b, an);
}

/* The hunk's lines of one side: want ' ' and '-' (old) or ' ' and '+'. */
static size_t side(const struct applypatch_hunk *h, char other,
		   const struct applypatch_line **out)
{
	size_t i, n = 0;

	for (i = 0; i < h->nlines; i++)
		if (h->lines[i].kind != other)
			out[n++] = &h->lines[i];
	return n;
}

static int match_at(const struct text_line *t, size_t at,
		    const struct applypatch_line **pat, size_t m,
		    enum match_mode mode)
{
	size_t i;

	for (i = 0; i < m; i++)
		if (!same_line(t[at + i].p, t[at + i].len, pat[i]->p, pat[i]->len,
			       mode))
			return 0;
	return 1;
}

/* First place at or after `from` where pat matches, each mode in turn;
 * a hunk at the end of file is tried at the end first. -1 if none. */
static long seek(const struct text_line *t, size_t n, size_t from,
		 const struct applypatch_line **pat, size_t m, int at_eof)
{
	enum match_mode mode;
	size_t at;

	if (m > n)
		return -1;
	for (mode = MATCH_EXACT; mode <= MATCH_TRIM; mode++) {
		if (at_eof && n - m >= from && match_at(t, n - m, pat, m, mode))
			return (long)(n - m);
		for (at = from; at + m <= n; at++)
			if (match_at(t, at, pat, m, mode))
				return (long)at;
	}
	return -1;
}

struct change {
	size_t at, old_n; /* the lines of the text the hunk replaces */
	const struct applypatch_hunk *h;
};

/* Where each hunk goes, in order; a hunk never starts before the end of
 * the previous one. */
static int place_hunks(const struct applypatch_file *f, const struct text_line *t,
		       size_t n, struct change *ch, const struct applypatch_line **pool,
		       char *err, size_t errlen)
{
	size_t k, from = 0;

	for (k = 0; k < f->nhunks; k++) {
		const struct applypatch_hunk *h = &f->hunks[k];
		const struct applypatch_line **old = pool;
		size_t on = side(h, '+', old);
		size_t a;
		long at;

		pool += h->nlines;
		for (a = 0; a < h->nanchors; a++) {
			const struct applypatch_line *ap = &h->anchors[a];

			if ((at = seek(t, n, from, &ap, 1, 0)) < 0) {
				snprintf(err, errlen, "%s: hunk %zu (patch line %zu): "
						      "anchor \"%.*s\" not found",
					 f->path, k + 1,
					 h->patch_line, (int)(ap->len > 60 ? 60 : ap->len),
					 ap->p);
				return -1;
			}
			from = (size_t)at + 1;
		}
		if (!on) {
			at = h->nanchors ? (long)from : (long)n;
		} else {
			at = seek(t, n, from, old, on, h->at_eof);
			/* a blank last line of context often stands for nothing */
			if (at < 0 && old[on - 1]->len == 0 && on > 1) {
				on--;
				at = seek(t, n, from, old, on, h->at_eof);
			}
		}
		if (at < 0) {
			snprintf(err, errlen, "%s: hunk %zu (patch line %zu): its "
					      "context and removed lines were not found (first: "
					      "\"%.*s\")",
				 f->path, k + 1, h->patch_line,
				 (int)(old[0]->len > 60 ? 60 : old[0]->len), old[0]->p);
			return -1;
		}
		ch[k].at = (size_t)at;
		ch[k].old_n = on;
		ch[k].h = h;
		from = (size_t)at + on;
	}
	return 0;
}

static struct text_line *split_lines(const char *s, size_t len, int crlf,
				     size_t *n)
{
	const char *end = s + len, *nl;
	struct text_line *t;
	size_t count = 0, k;

	for (nl = s; nl < end; count++) {
		const char *e = memchr(nl, '\n', (size_t)(end - nl));
		nl = e ? e + 1 : end;
	}
	t = malloc((count + 1) * sizeof(*t));
	if (!t)
		return NULL;
	for (k = 0; k < count; k++) {
		nl = memchr(s, '\n', (size_t)(end - s));
		t[k].p = s;
		t[k].len = (size_t)((nl ? nl : end) - s);
		s = nl ? nl + 1 : end;
		if (crlf && t[k].len && t[k].p[t[k].len - 1] == '\r')
			t[k].len--;
	}
	*n = count;
	return t;
}

/* Every line end is "\r\n" (and there is one). */
static int all_crlf(const char *s, size_t n)
{
	size_t i, seen = 0;

	for (i = 0; i < n; i++)
		if (s[i] == '\n') {
			if (!i || s[i - 1] != '\r')
				return 0;
			seen++;
		}
	return seen > 0;
}

static void emit(struct buf *out, const char *p, size_t n, const char *eol,
		 int *first)
{
	if (!*first)
		buf_puts(out, eol);
	*first = 0;
	buf_add(out, p, n);
}

/* The new lines of a placed hunk: context lines as the text has them
 * (the patch may differ in whitespace), added lines from the patch. A
 * blank context line left out of the match is left out here too. */
static void emit_hunk(struct buf *out, const struct change *c,
		      const struct text_line *t, const char *eol, int *first)
{
	const struct applypatch_hunk *h = c->h;
	size_t i, used = 0;

	for (i = 0; i < h->nlines; i++) {
		const struct applypatch_line *l = &h->lines[i];

		if (l->kind == '+')
			emit(out, l->p, l->len, eol, first);
		else if (used < c->old_n && l->kind == ' ')
			emit(out, t[c->at + used].p, t[c->at + used].len, eol, first);
		if (l->kind != '+')
			used++;
	}
}

int applypatch_update(const struct applypatch_file *f, const char *old,
		      size_t len, struct buf *out, char *err, size_t errlen)
{
	int bom = len >= 3 && !memcmp(old, "\xef\xbb\xbf", 3), crlf, first = 1;
	const char *eol;
	const struct applypatch_line **pool = NULL;
	struct text_line *t;
	struct change *ch = NULL;
	size_t n = 0, k, i = 0, total = 0;
	int final_nl, rc = -1;

	if (bom) {
		old += 3;
		len -= 3;
	}
	crlf = all_crlf(old, len);
	eol = crlf ? "\r\n" : "\n";
	final_nl = !len || old[len - 1] == '\n';
	t = split_lines(old, len, crlf, &n);
	for (k = 0; k < f->nhunks; k++)
		total += f->hunks[k].nlines;
	pool = malloc((total + 1) * sizeof(*pool));
	ch = malloc((f->nhunks + 1) * sizeof(*ch));
	if (!t || !pool || !ch) {
		snprintf(err, errlen, "%s: out of memory", f->path);
		goto out;
	}
	if (place_hunks(f, t, n, ch, pool, err, errlen))
		goto out;
	if (bom)
		buf_add(out, "\xef\xbb\xbf", 3);
	for (k = 0; k <= f->nhunks; k++) {
		size_t stop = k < f->nhunks ? ch[k].at : n;

		for (; i < stop; i++)
			emit(out, t[i].p, t[i].len, eol, &first);
		if (k == f->nhunks)
			break;
		emit_hunk(out, &ch[k], t, eol, &first);
		i += ch[k].old_n;
	}
	if (!first && final_nl)
		buf_puts(out, eol);
	if (out->oom) {
		snprintf(err, errlen, "%s: out of memory", f->path);
		goto out;
	}
	rc = 0;
out:
	free(t);
	free(pool);
	free(ch);
	return rc;
}
