/* re.h - RE2/Go syntax regular expressions in linear time
 *
 * Parse to an AST, compile to a byte-level program over UTF-8, then match
 * with a literal prefilter, a lazy DFA and a Pike VM (for exact positions).
 * No backtracking: every search is linear in the input.
 */
#ifndef WFS_RE_H
#define WFS_RE_H

#include <stddef.h>

#define RE_ICASE 1u          /* case-insensitive, like (?i): Unicode simple folding */
#define RE_LINE 2u           /* grep mode: matches never cross '\n'; ^ $ \A \z are
			 line anchors; '.' and classes never match '\n' */
#define RE_LITERAL 4u        /* the pattern is a fixed string */
#define RE_DEBUG_PIKE 0x100u /* tests: skip prefilters and the DFA */

struct re;

/* Compile pat[0..len). NULL on error, err filled with a message that starts
 * with "invalid regex: " and quotes the pattern. */
struct re *re_compile(const char *pat, size_t len, unsigned flags, char *err,
		      size_t errlen);
/* A struct re holds mutable caches: one thread uses one at a time.
 * re_clone gives an independent copy for another thread (NULL on OOM). */
struct re *re_clone(const struct re *re);
void re_free(struct re *re);

/* Leftmost-first match (Go/RE2 semantics) in s[0..n), the search starting
 * at offset from; bytes before from are context for ^, \b and \B.
 * Returns 1 and sets *ms, *me to the match, 0 for no match, -1 on an
 * internal limit (the step cap of the Pike VM, or memory). If ms is NULL, *me is set to some offset
 * inside [start, end] of the leftmost match, which is enough to find the
 * matching line and much faster. */
int re_search(struct re *re, const char *s, size_t n, size_t from, size_t *ms,
	      size_t *me);

/* Non-zero when whether a match ends at a point depends on the text after
 * it ($, \z, \b, \B): a search of a window cut from a longer line must
 * then not trust a match that touches the window's end. */
int re_end_sensitive(const struct re *re);

#endif
