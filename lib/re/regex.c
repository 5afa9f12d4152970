/* regex.c - the public API: compile, clone, search */
#include <stdlib.h>
#include <string.h>
#include "re_int.h"

struct re {
	unsigned flags;
	struct prog prog;
	struct pike *pike; /* caches, built on first use */
	struct dfa *dfa;
	int nodfa;        /* the DFA gave up on this pattern */
	struct litset pf; /* literals every match contains one of */
};

RE_COLD struct re *re_compile(const char *pat, size_t len, unsigned flags, char *err,
			      size_t errlen)
{
	struct ast a;
	struct re *re;
	int r;

	if (err && errlen)
		err[0] = 0;
	if (re_parse(pat, len, flags, &a, err, errlen))
		return NULL;
	re = calloc(1, sizeof(*re));
	if (!re) {
		re_ast_free(&a);
		re_errf(err, errlen, pat, len, 0, "out of memory");
		return NULL;
	}
	re->flags = flags;
	r = re_compile_prog(&a, &re->prog);
	prefilter_extract(&a, &re->pf);
	re_ast_free(&a);
	if (r) {
		re_errf(err, errlen, pat, len, 0, r == -2 ? "out of memory" : "pattern too large (more than %d instructions after "
									      "expanding repeats and classes)",
			RE_MAXPROG);
		free(re);
		return NULL;
	}
	return re;
}

RE_COLD struct re *re_clone(const struct re *src)
{
	struct re *re = calloc(1, sizeof(*re));

	if (!re)
		return NULL;
	re->flags = src->flags;
	re->pf = src->pf;
	if (re_prog_copy(&re->prog, &src->prog)) {
		free(re);
		return NULL;
	}
	return re;
}

void re_free(struct re *re)
{
	if (!re)
		return;
	pike_free(re->pike);
	dfa_free(re->dfa);
	re_prog_free(&re->prog);
	free(re);
}

int re_end_sensitive(const struct re *re)
{
	/* A_BOUND is not here: it only looks past an invalid byte, and a
	 * window cut where a character starts agrees with the whole text. */
	return (re->prog.asserts & (A_EOL | A_EOT | A_WORDB | A_NWORDB)) != 0;
}

static int run_pike(struct re *re, const unsigned char *s, size_t n,
		    size_t from, size_t *ms, size_t *me)
{
	if (!re->pike) {
		re->pike = pike_new(&re->prog);
		if (!re->pike)
			return -1; /* out of memory: grep reports a limit */
	}
	return pike_search(re->pike, &re->prog, s, n, from, ms, me);
}

/* Exact positions once the DFA says a match ends near e. */
static int exact(struct re *re, const unsigned char *s, size_t n, size_t from,
		 size_t e, size_t *ms, size_t *me)
{
	size_t ls = e;

	if (re->flags & RE_LINE) {
		/* the leftmost match lies in the line holding e */
		while (ls > from && s[ls - 1] != '\n')
			ls--;
		from = ls;
	}
	return run_pike(re, s, n, from, ms, me);
}

static int run_dfa(struct re *re, const unsigned char *s, size_t n,
		   size_t from, size_t end, size_t *e)
{
	int r;

	if (re->nodfa)
		return -1;
	if (!re->dfa) {
		re->dfa = dfa_new(&re->prog, &re->pf);
		if (!re->dfa)
			return -1;
	}
	r = dfa_search(re->dfa, &re->prog, s, n, from, end, e);
	if (r >= 0 || r == -2)
		return r;
	re->nodfa = 1; /* it thrashes on this pattern: stop trying */
	return -1;
}

/* The DFA met invalid UTF-8 in the line [ls, le) (RE_LINE): the Pike VM
 * decides that line alone, as matches never cross '\n'. */
static int pike_line(struct re *re, const unsigned char *s, size_t ls,
		     size_t le, size_t *ms, size_t *me)
{
	size_t dummy;

	return run_pike(re, s, le, ls, ms ? ms : &dummy, me);
}

/* RE_LINE with a required literal: run the DFA only on lines holding it. */
static int line_search(struct re *re, const unsigned char *s, size_t n,
		       size_t from, size_t *ms, size_t *me)
{
	size_t pos = from, p, ls, le, e, dummy, len;
	const unsigned char *q;
	int r;

	for (;;) {
		p = prefilter_find(&re->pf, s, n, pos, &len);
		if (p >= n)
			return 0;
		ls = p;
		while (ls > pos && s[ls - 1] != '\n')
			ls--;
		q = memchr(s + p, '\n', n - p);
		le = q ? (size_t)(q - s) : n;
		r = run_dfa(re, s, n, ls, le, &e);
		if (r == -2) {
			r = pike_line(re, s, ls, le, ms, me);
			if (r)
				return r;
		} else if (r < 0) {
			return run_pike(re, s, n, ls, ms ? ms : &dummy, me);
		} else if (r > 0) {
			if (!ms) {
				*me = e;
				return 1;
			}
			return exact(re, s, n, ls, e, ms, me);
		}
		if (le >= n)
			return 0;
		pos = le + 1;
	}
}

/* No literal to look for: the DFA over the text, the Pike VM for lines
 * (or, without RE_LINE, the rest of the text) it cannot decide. */
static int dfa_then_pike(struct re *re, const unsigned char *s, size_t n,
			 size_t from, size_t *ms, size_t *me)
{
	size_t dummy, e, ls, le;
	const unsigned char *q;
	int r;

	for (;;) {
		r = run_dfa(re, s, n, from, n, &e);
		if (r == -2 && (re->flags & RE_LINE)) {
			for (ls = e; ls > from && s[ls - 1] != '\n'; ls--)
				;
			q = e < n ? memchr(s + e, '\n', n - e) : NULL;
			le = q ? (size_t)(q - s) : n;
			r = pike_line(re, s, ls, le, ms, me);
			if (r)
				return r;
			if (le >= n)
				return 0;
			from = le + 1;
			continue;
		}
		if (r < 0)
			return run_pike(re, s, n, from, ms ? ms : &dummy, me);
		if (r == 0)
			return 0;
		if (!ms) {
			*me = e;
			return 1;
		}
		return exact(re, s, n, from, e, ms, me);
	}
}

int re_search(struct re *re, const char *s, size_t n, size_t from, size_t *ms,
	      size_t *me)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t dummy, p, len;

	if (from > n)
		return 0;
	/* Matches start where a character does (Go steps by character): a
	 * from inside one moves on to the next. The Pike VM would restart
	 * there anyway, but the DFA of a pattern blind to decoding would
	 * report an empty match inside the character (found by fuzzing). */
	while (from < n && !re_bound(u, n, from))
		from++;
	if (re->flags & RE_DEBUG_PIKE)
		return run_pike(re, u, n, from, ms ? ms : &dummy, me);
	if (re->pf.n) {
		if (re->pf.pure) {
			p = prefilter_find(&re->pf, u, n, from, &len);
			if (p >= n)
				return 0;
			if (ms)
				*ms = p;
			*me = ms ? p + len : p;
			return 1;
		}
		if (re->flags & RE_LINE)
			return line_search(re, u, n, from, ms, me);
		if (prefilter_find(&re->pf, u, n, from, &len) >= n)
			return 0;
	}
	return dfa_then_pike(re, u, n, from, ms, me);
}
