/* globmatch.c - Go's filepath.Match, and path patterns with ** and {a,b}
 *
 * With GLOB_EXTGLOB, bash's extended patterns and its pathname rule for a
 * leading '.'; with GLOB_NOCASE, ASCII letters match either case. Those
 * go through a recursive matcher with a step budget (bash's own is
 * exponential on nested groups); the plain form keeps the linear one. */
#include <stdlib.h>
#include <string.h>
#include "globmatch.h"
#include "utf8.h"

/* One code point of s (at least one byte, even when invalid). */
static int rune_at(const char *s, int *cp)
{
	size_t n;
	int len;

	if ((unsigned char)*s < 0x80) {
		*cp = (unsigned char)*s;
		return 1;
	}
	n = strnlen(s, 4);
	len = utf8_decode(s, n, cp);

	if (*cp < 0)
		*cp = 0xfffd;
	return len;
}

/* Match a class at p (just after '['). Returns the pattern position after
 * ']' and sets *hit, or NULL for a malformed class. */
static const char *class_match(const char *p, int c, int *hit)
{
	int neg = 0, any = 0, lo, hi;

	*hit = 0;
	if (*p == '^') {
		neg = 1;
		p++;
	}
	for (;;) {
		if (*p == ']' && any)
			break;
		if (!*p || *p == ']' || *p == '-')
			return NULL;
		if (*p == '\\' && !*++p)
			return NULL;
		p += rune_at(p, &lo);
		hi = lo;
		if (*p == '-') {
			p++;
			if (!*p || *p == ']' || *p == '-')
				return NULL;
			if (*p == '\\' && !*++p)
				return NULL;
			p += rune_at(p, &hi);
		}
		if (lo <= c && c <= hi)
			*hit = 1;
		any = 1;
	}
	if (neg)
		*hit = !*hit;
	return p + 1;
}

/* Validate the whole pattern as Go 1.16+ does. */
static int pattern_ok(const char *p)
{
	int hit;

	while (*p) {
		if (*p == '\\') {
			if (!*++p)
				return 0;
			p++;
		} else if (*p == '[') {
			p = class_match(p + 1, 0, &hit);
			if (!p)
				return 0;
		} else {
			p++;
		}
	}
	return 1;
}

static int ext_span(const char *p, const char *s, const char *end, unsigned flags);

/* Match pattern p against name s within [s, end); '*' and '?' do not match
 * '/'. Iterative with one backtrack point per '*': linear for typical use. */
static int match_span(const char *p, const char *s, const char *end, unsigned flags)
{
	const char *star_p = NULL, *star_s = NULL;
	int c, hit, len;

	if (flags & (GLOB_EXTGLOB | GLOB_NOCASE))
		return ext_span(p, s, end, flags);
	while (1) {
		if (*p == '*') {
			while (*p == '*')
				p++;
			star_p = p;
			star_s = s;
			continue;
		}
		if (s == end) {
			if (!*p)
				return 1;
			goto backtrack;
		}
		len = rune_at(s, &c);
		if (!*p)
			goto backtrack;
		if (*p == '?') {
			if (c == '/')
				goto backtrack;
			p++;
			s += len;
			continue;
		}
		if (*p == '[') {
			const char *q = class_match(p + 1, c, &hit);
			if (!q)
				return -1;
			if (!hit || c == '/')
				goto backtrack;
			p = q;
			s += len;
			continue;
		}
		if (*p == '\\')
			p++;
		if (*p != *s)
			goto backtrack;
		p++;
		s++;
		continue;
backtrack:
		if (!star_p || star_s == end || *star_s == '/')
			return 0;
		star_s += rune_at(star_s, &c);
		p = star_p;
		s = star_s;
	}
}

static int ext_ok(const char *p);

int globmatch_opts(const char *pat, const char *name, unsigned flags)
{
	if (!pattern_ok(pat) || ((flags & GLOB_EXTGLOB) && !ext_ok(pat)))
		return -1;
	return match_span(pat, name, name + strlen(name), flags);
}

int globmatch(const char *pat, const char *name)
{
	return globmatch_opts(pat, name, 0);
}

int globmatch_is_path_pattern(const char *pat)
{
	return strchr(pat, '/') || strstr(pat, "**");
}

int globmatch_entry_opts(const char *pat, const char *rel, const char *name, unsigned flags)
{
	if (globmatch_is_path_pattern(pat))
		return globmatch_path_opts(pat, rel, flags);
	return strchr(pat, '{') ? globmatch_path_opts(pat, name, flags)
				: globmatch_opts(pat, name, flags);
}

int globmatch_entry(const char *pat, const char *rel, const char *name)
{
	return globmatch_entry_opts(pat, rel, name, 0);
}

/* ---- path patterns ---- */

/* One pattern segment [p, p + plen) against the path segment [s, end). */
static int match_segment(const char *p, size_t plen, const char *s, const char *end,
			 unsigned flags)
{
	char seg[512];

	if (plen >= sizeof(seg))
		return -1;
	memcpy(seg, p, plen);
	seg[plen] = 0;
	return match_span(seg, s, end, flags);
}

/* bash's rule under GLOB_EXTGLOB without GLOB_DOTGLOB: "**" takes no
 * name that starts with '.'. 2 when the first segment of s does, 1 when a
 * later one does, else 0. */
static int hidden_below(const char *s, unsigned flags)
{
	const char *q;

	if (!(flags & GLOB_EXTGLOB) || (flags & GLOB_DOTGLOB))
		return 0;
	if (*s == '.')
		return 2;
	for (q = strchr(s, '/'); q; q = strchr(q + 1, '/'))
		if (q[1] == '.')
			return 1;
	return 0;
}

/* Segment-wise match of pattern p against path s. A "**" segment is to
 * segments what '*' is to characters, and every other segment matches
 * exactly one, so one backtrack point is enough, the latest "**": an
 * earlier one never needs to take more segments (what it would take, the
 * later one can). Linear in path segments per "**" instead of trying
 * every split: 40 "**" against 20 directories was billions of tries. */
static int match_segments(const char *p, const char *s, unsigned flags)
{
	const char *star_p = NULL, *star_s = NULL, *pe, *se, *q;
	size_t plen;
	int r;

	for (q = p; q; q = pe ? pe + 1 : NULL) {
		pe = strchr(q, '/');
		if ((pe ? (size_t)(pe - q) : strlen(q)) >= 512)
			return -1; /* the same answer whatever the path */
	}
	for (;;) {
		pe = strchr(p, '/');
		plen = pe ? (size_t)(pe - p) : strlen(p);
		if (plen == 2 && p[0] == '*' && p[1] == '*') {
			if (!pe) /* trailing ** matches everything below */
				return !hidden_below(s, flags);
			/* zero directories first; more on backtracking */
			p = star_p = pe + 1;
			star_s = s;
			continue;
		}
		se = strchr(s, '/');
		r = match_segment(p, plen, s, se ? se : s + strlen(s), flags);
		if (r < 0)
			return r;
		if (r) {
			if (pe && se) {
				p = pe + 1;
				s = se + 1;
				continue;
			}
			if (!pe && !se)
				return 1;
		}
		/* the latest ** takes one more directory */
		if (!star_p || !(se = strchr(star_s, '/')) || hidden_below(star_s, flags) == 2)
			return 0;
		star_s = se + 1;
		p = star_p;
		s = star_s;
	}
}

/* The end of the alternative that starts at a, in a list ending at ae:
 * the first separator (b[2]) outside the groups b[0]...b[1] nested in it,
 * a backslash escaping one byte; with classes, a [...] is one piece (a
 * '|' in it separates nothing). */
static const char *alt_end(const char *a, const char *ae, const char *b, int classes)
{
	int level = 0, hit;

	for (; a < ae; a++) {
		if (*a == '\\' && a + 1 < ae) {
			a++;
		} else if (classes && *a == '[') {
			const char *q = class_match(a + 1, 0, &hit);
			if (q && q <= ae)
				a = q - 1;
		} else if (*a == b[0]) {
			level++;
		} else if (*a == b[1]) {
			level--;
		} else if (*a == b[2] && !level) {
			break;
		}
	}
	return a;
}

/* Expand the first {a,b} group and recurse; depth and count bounded:
 * past GLOB_BRACE_MAX expansions the pattern is refused (-1), as eight
 * groups of ten alternatives were 10^8 tries. */
static int match_braces(const char *pat, const char *path, int depth, int *budget,
			unsigned flags)
{
	const char *open = NULL, *close, *q, *alt;
	size_t plen = strlen(pat);
	int level = 0;

	if (depth > 16 || --*budget < 0)
		return -1;
	for (q = pat; *q; q++) {
		if (*q == '\\' && q[1]) {
			q++;
		} else if (*q == '{') {
			open = q;
			break;
		}
	}
	if (!open)
		return pattern_ok(pat) && (!(flags & GLOB_EXTGLOB) || ext_ok(pat))
			       ? match_segments(pat, path, flags)
			       : -1;
	for (q = open, close = NULL; *q; q++) {
		if (*q == '\\' && q[1])
			q++;
		else if (*q == '{')
			level++;
		else if (*q == '}' && --level == 0) {
			close = q;
			break;
		}
	}
	if (!close)
		return -1;
	for (alt = open + 1; alt <= close;) {
		const char *e = alt_end(alt, close, "{},", 0);
		char *cand;
		int r;

		cand = malloc(plen + 1);
		if (!cand)
			return -1;
		memcpy(cand, pat, (size_t)(open - pat));
		memcpy(cand + (open - pat), alt, (size_t)(e - alt));
		strcpy(cand + (open - pat) + (e - alt), close + 1);
		r = match_braces(cand, path, depth + 1, budget, flags);
		free(cand);
		if (r)
			return r;
		alt = e + 1;
	}
	return 0;
}

int globmatch_path_opts(const char *pat, const char *path, unsigned flags)
{
	int budget = GLOB_BRACE_MAX;

	return match_braces(pat, path, 0, &budget, flags);
}

int globmatch_path(const char *pat, const char *path)
{
	return globmatch_path_opts(pat, path, 0);
}

/* ---- bash's extended patterns ---- */

struct ext {
	const char *start; /* the name: where a leading '.' is special */
	unsigned flags;
	long budget; /* steps left; past it the pattern is refused */
};

#define EXT_STEPS 1000000L

static int is_ext_op(const char *p, const char *pe)
{
	return p + 1 < pe && p[1] == '(' && strchr("?*+@!", *p) && *p;
}

/* The ')' closing the group whose '(' is at p, or NULL. */
static const char *group_end(const char *p, const char *pe)
{
	int level = 0, hit;

	for (; p < pe; p++) {
		if (*p == '\\') {
			if (++p >= pe)
				return NULL;
		} else if (*p == '[') {
			const char *q = class_match(p + 1, 0, &hit);
			if (!q || q > pe)
				return NULL;
			p = q - 1;
		} else if (*p == '(') {
			level++;
		} else if (*p == ')' && --level == 0) {
			return p;
		}
	}
	return NULL;
}

/* Every group closes (for GLOB_EXTGLOB patterns). */
static int ext_ok(const char *p)
{
	const char *pe = p + strlen(p);

	for (; p < pe; p++) {
		if (*p == '\\' && p + 1 < pe)
			p++;
		else if (is_ext_op(p, pe) && !group_end(p + 1, pe))
			return 0;
	}
	return 1;
}

static int fold(int c)
{
	return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

static int ext_match(struct ext *x, const char *p, const char *pe, const char *s, const char *se);

/* Does one alternative of the list [a, ae) ('|'-separated) match all of
 * [s, t)? */
static int ext_alt(struct ext *x, const char *a, const char *ae, const char *s, const char *t)
{
	const char *e;
	int r;

	while (a <= ae) {
		e = alt_end(a, ae, "()|", 1);
		r = ext_match(x, a, e, s, t);
		if (r)
			return r;
		a = e + 1;
	}
	return 0;
}

static const char *next_rune(const char *s, const char *se)
{
	int c;

	return s + (s < se ? rune_at(s, &c) : 1);
}

/* The group op(a..ae) followed by the rest [rest, pe), against [s, se). */
static int ext_group(struct ext *x, char op, const char *a, const char *ae, const char *rest,
		     const char *pe, const char *s, const char *se)
{
	const char *t;
	int r;

	if (op == '?' || op == '*') { /* zero occurrences */
		r = ext_match(x, rest, pe, s, se);
		if (r)
			return r;
	}
	if (op == '!' && s == x->start && s < se && *s == '.' && !(x->flags & GLOB_DOTGLOB))
		return 0; /* bash: !(...) never matches a leading '.' */
	for (t = s; t <= se; t = next_rune(t, se)) {
		if (op == '*' && t == s)
			continue; /* an occurrence takes something: no endless loop */
		r = ext_alt(x, a, ae, s, t);
		if (r < 0)
			return r;
		if (op == '!' ? r : !r)
			continue;
		if (op == '*' || op == '+')
			r = ext_group(x, '*', a, ae, rest, pe, t, se);
		else
			r = ext_match(x, rest, pe, t, se);
		if (r)
			return r;
	}
	return 0;
}

/* Recursive matcher of [p, pe) against all of [s, se); 1, 0, or -1 when
 * the pattern is malformed or the step budget is spent. */
static int ext_match(struct ext *x, const char *p, const char *pe, const char *s, const char *se)
{
	int c, hit, len, lead;

	if (--x->budget < 0)
		return -1;
	while (p < pe) {
		/* bash: a leading '.' is matched only by a '.' in the pattern */
		lead = (x->flags & GLOB_EXTGLOB) && !(x->flags & GLOB_DOTGLOB) && s == x->start &&
		       s < se && *s == '.';
		if ((x->flags & GLOB_EXTGLOB) && is_ext_op(p, pe)) {
			const char *ge = group_end(p + 1, pe);
			if (!ge)
				return -1;
			return ext_group(x, *p, p + 2, ge, ge + 1, pe, s, se);
		}
		switch (*p) {
		case '*':
			if (lead)
				return 0;
			while (p < pe && *p == '*' && !((x->flags & GLOB_EXTGLOB) && is_ext_op(p, pe)))
				p++;
			for (;; s = next_rune(s, se)) {
				int r = ext_match(x, p, pe, s, se);
				if (r)
					return r;
				if (s >= se || *s == '/')
					return 0;
			}
		case '?':
			if (s >= se || *s == '/' || lead)
				return 0;
			p++;
			s = next_rune(s, se);
			continue;
		case '[': {
			const char *q;

			if (s >= se || *s == '/' || lead)
				return 0;
			len = rune_at(s, &c);
			q = class_match(p + 1, c, &hit);
			if (q && (x->flags & GLOB_NOCASE)) {
				/* either case in the set; a negated set holds neither */
				int other = c >= 'a' && c <= 'z' ? c - 32 : fold(c), hit2;

				class_match(p + 1, other, &hit2);
				hit = p[1] == '^' ? hit && hit2 : hit || hit2;
			}
			if (!q || q > pe)
				return -1;
			if (!hit)
				return 0;
			p = q;
			s += len;
			continue;
		}
		case '\\':
			if (++p >= pe)
				return -1;
			__attribute__((fallthrough)); /* the escaped byte is literal */
		default:
			if (s >= se)
				return 0;
			if ((x->flags & GLOB_NOCASE) ? fold((unsigned char)*p) != fold((unsigned char)*s)
						     : *p != *s)
				return 0;
			p++;
			s++;
		}
	}
	return s == se;
}

/* Can [p, pe) begin with an explicit '.'? bash considers a name that
 * starts with '.' only for such a pattern (under GLOB_EXTGLOB, without
 * GLOB_DOTGLOB): a '.', or a group one of whose alternatives can, or
 * one that may be empty followed by such a pattern. */
static int dot_first(const char *p, const char *pe)
{
	const char *ge, *e;
	char op;

	if (p >= pe)
		return 0;
	if (*p == '.' || (*p == '\\' && p + 1 < pe && p[1] == '.'))
		return 1;
	if (!is_ext_op(p, pe) || *p == '!' || !(ge = group_end(p + 1, pe)))
		return 0;
	op = *p;
	for (p += 2; p <= ge; p = e + 1) {
		e = alt_end(p, ge, "()|", 1);
		if (dot_first(p, e))
			return 1;
	}
	/* a group that may match nothing: what follows it counts too */
	return (op == '?' || op == '*') && dot_first(ge + 1, pe);
}

static int ext_span(const char *p, const char *s, const char *end, unsigned flags)
{
	struct ext x = {s, flags, EXT_STEPS};

	if ((flags & GLOB_EXTGLOB) && !(flags & GLOB_DOTGLOB) && s < end && *s == '.' &&
	    !dot_first(p, p + strlen(p)))
		return 0;

	return ext_match(&x, p, p + strlen(p), s, end);
}
