/* globmatch.c - Go's filepath.Match, and path patterns with ** and {a,b} */
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

/* Match pattern p against name s within [s, end); '*' and '?' do not match
 * '/'. Iterative with one backtrack point per '*': linear for typical use. */
static int match_span(const char *p, const char *s, const char *end)
{
	const char *star_p = NULL, *star_s = NULL;
	int c, hit, len;

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

int globmatch(const char *pat, const char *name)
{
	if (!pattern_ok(pat))
		return -1;
	return match_span(pat, name, name + strlen(name));
}

int globmatch_is_path_pattern(const char *pat)
{
	return strchr(pat, '/') || strstr(pat, "**");
}

int globmatch_entry(const char *pat, const char *rel, const char *name)
{
	if (globmatch_is_path_pattern(pat))
		return globmatch_path(pat, rel);
	return strchr(pat, '{') ? globmatch_path(pat, name) : globmatch(pat, name);
}

/* ---- path patterns ---- */

/* One pattern segment [p, p + plen) against the path segment [s, end). */
static int match_segment(const char *p, size_t plen, const char *s, const char *end)
{
	char seg[512];

	if (plen >= sizeof(seg))
		return -1;
	memcpy(seg, p, plen);
	seg[plen] = 0;
	return match_span(seg, s, end);
}

/* Segment-wise match of pattern p against path s. A "**" segment is to
 * segments what '*' is to characters, and every other segment matches
 * exactly one, so one backtrack point is enough, the latest "**": an
 * earlier one never needs to take more segments (what it would take, the
 * later one can). Linear in path segments per "**" instead of trying
 * every split: 40 "**" against 20 directories was billions of tries. */
static int match_segments(const char *p, const char *s)
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
			if (!pe)
				return 1; /* trailing ** matches everything below */
			/* zero directories first; more on backtracking */
			p = star_p = pe + 1;
			star_s = s;
			continue;
		}
		se = strchr(s, '/');
		r = match_segment(p, plen, s, se ? se : s + strlen(s));
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
		if (!star_p || !(se = strchr(star_s, '/')))
			return 0;
		star_s = se + 1;
		p = star_p;
		s = star_s;
	}
}

/* Expand the first {a,b} group and recurse; depth and count bounded:
 * past GLOB_BRACE_MAX expansions the pattern is refused (-1), as eight
 * groups of ten alternatives were 10^8 tries. */
static int match_braces(const char *pat, const char *path, int depth, int *budget)
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
		return pattern_ok(pat) ? match_segments(pat, path) : -1;
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
		const char *e = alt;
		char *cand;
		int r;

		for (level = 0; e < close; e++) {
			if (*e == '\\' && e + 1 < close)
				e++;
			else if (*e == '{')
				level++;
			else if (*e == '}')
				level--;
			else if (*e == ',' && !level)
				break;
		}
		cand = malloc(plen + 1);
		if (!cand)
			return -1;
		memcpy(cand, pat, (size_t)(open - pat));
		memcpy(cand + (open - pat), alt, (size_t)(e - alt));
		strcpy(cand + (open - pat) + (e - alt), close + 1);
		r = match_braces(cand, path, depth + 1, budget);
		free(cand);
		if (r)
			return r;
		alt = e + 1;
	}
	return 0;
}

int globmatch_path(const char *pat, const char *path)
{
	int budget = GLOB_BRACE_MAX;

	return match_braces(pat, path, 0, &budget);
}
