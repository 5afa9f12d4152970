/* regex.c - fuzz target: lib/re, differential against the Pike VM.
 *
 * Input: one flags byte, a pattern up to the first NUL, then the subject.
 * The normal search (literal prefilters, lazy DFA, then the Pike VM for
 * positions) must agree exactly with a Pike-VM-only run (RE_DEBUG_PIKE),
 * also when only the line is wanted (ms == NULL: a point inside the
 * match) and from a start offset inside the subject. Small inputs only:
 * the point is the engines' agreement, not throughput.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "re.h"

static void compare(struct re *re, struct re *rp, const char *s, size_t n,
		    size_t from)
{
	size_t ms = 0, me = 0, ms2 = 0, me2 = 0, me3 = 0;
	int got, got2, got3;

	got = re_search(re, s, n, from, &ms, &me);
	got2 = re_search(rp, s, n, from, &ms2, &me2);
	got3 = re_search(re, s, n, from, NULL, &me3);
	if (got < 0 || got2 < 0 || got3 < 0)
		return; /* an internal limit, reported as an error: not a bug */
	if (got != got2 || got != got3)
		abort();
	if (got && (ms != ms2 || me != me2 || ms < from || me > n || ms > me ||
		    me3 < ms || me3 > me))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned fl[] = { 0, RE_ICASE, RE_LINE, RE_ICASE | RE_LINE,
				       RE_LITERAL, RE_LITERAL | RE_ICASE,
				       RE_LITERAL | RE_LINE,
				       RE_LITERAL | RE_LINE | RE_ICASE };
	const char *pat, *s, *nul;
	size_t plen, n;
	unsigned flags;
	struct re *re, *rp;
	char err[512];

	if (size < 1 || size > 300)
		return 0;
	flags = fl[data[0] & 7];
	pat = (const char *)data + 1;
	nul = memchr(pat, 0, size - 1);
	plen = nul ? (size_t)(nul - pat) : size - 1;
	if (plen > 64)
		return 0;
	s = nul ? nul + 1 : pat + plen;
	n = (size_t)((const char *)data + size - s);
	re = re_compile(pat, plen, flags, err, sizeof(err));
	rp = re_compile(pat, plen, flags | RE_DEBUG_PIKE, err, sizeof(err));
	if (!re != !rp)
		abort(); /* the same pattern compiles one way only */
	if (re) {
		compare(re, rp, s, n, 0);
		if (n)
			compare(re, rp, s, n, (data[0] >> 3) % (n + 1));
	}
	re_free(re);
	re_free(rp);
	return 0;
}
