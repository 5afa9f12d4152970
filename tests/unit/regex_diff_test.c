/* regex_diff_test.c - differential test against the C library's regexec
 *
 * Random patterns from the subset RE2 and POSIX ERE agree on (literals,
 * '.', brackets, * + ?, |, groups, ^ $) against random lines; only "is
 * there a match" is compared, so leftmost-longest vs leftmost-first does
 * not matter. Our fast path (DFA, prefilters, ms == NULL) must also agree
 * exactly with our Pike VM on positions. Fixed seed: deterministic.
 */
#undef _GNU_SOURCE /* glibc's GNU <regex.h> has its own RE_ICASE */
#define WFS_SYSTEM_REGEX
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "regex.h"

#define CASES 20000

static unsigned long long rng = 20240601;

static unsigned rnd(unsigned n)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return (unsigned)(rng >> 33) % n;
}

static void add(char *p, size_t *k, const char *s)
{
	size_t n = strlen(s);

	memcpy(p + *k, s, n);
	*k += n;
	p[*k] = 0;
}

static void gen(char *p, size_t *k, int depth);

static void atom(char *p, size_t *k, int depth)
{
	static const char *lits[] = { "a", "b", "c", "A", "x", "ab", "ba" };
	static const char *cls[] = { "[ab]", "[^a]", "[a-c]", "[^bc]", "[xA]",
				     "[[:alpha:]]", "[[:digit:]]" };
	unsigned r = rnd(10), group = 0;

	if (r < 5)
		add(p, k, lits[rnd(7)]);
	else if (r < 6)
		add(p, k, ".");
	else if (r < 8)
		add(p, k, cls[rnd(7)]);
	else if (depth < 2) {
		add(p, k, "(");
		gen(p, k, depth + 1);
		add(p, k, ")");
		group = 1;
	} else {
		add(p, k, "a");
	}
	/* musl's TRE gets nested counted repeats of groups wrong: keep
	 * repeated groups shallow */
	r = rnd(12);
	if (group && (depth > 0 || r == 3))
		return;
	if (r == 0)
		add(p, k, "*");
	else if (r == 1)
		add(p, k, "+");
	else if (r == 2)
		add(p, k, "?");
	else if (r == 3)
		add(p, k, "{1,2}");
}

static void gen(char *p, size_t *k, int depth)
{
	unsigned i, n = 1 + rnd(3);

	/* anchors only outside groups: glibc gets (^a)+ wrong */
	if (depth == 0 && rnd(8) == 0)
		add(p, k, "^");
	for (i = 0; i < n; i++)
		atom(p, k, depth);
	if (depth == 0 && rnd(8) == 0)
		add(p, k, "$");
	if (rnd(5) == 0) {
		add(p, k, "|");
		gen(p, k, depth);
	}
}

int main(void)
{
	char pat[512], in[64], err[256], name[700];
	int i, bad = 0, skipped = 0;

	for (i = 0; i < CASES; i++) {
		size_t k = 0, n = rnd(14), j, ms = 0, me = 0, ms2 = 0, me2 = 0,
		       me3 = 0;
		unsigned fl = rnd(4) == 0 ? RE_ICASE : 0;
		int line = rnd(2);
		char *ln, *nl;
		int want, got, got2, got3;
		regex_t rx;
		struct re *re, *rp;

		pat[0] = 0;
		gen(pat, &k, 0);
		for (j = 0; j < n; j++)
			in[j] = "abcxA1 \n"[rnd(line ? 8 : 7)];
		in[n] = 0;
		if (regcomp(&rx, pat, REG_EXTENDED | REG_NOSUB |
					      (fl ? REG_ICASE : 0))) {
			skipped++;
			continue;
		}
		/* RE_LINE: a match in any line, each line on its own */
		want = 0;
		for (ln = in; ln; ln = nl ? nl + 1 : NULL) {
			char one[64];

			nl = strchr(ln, '\n');
			j = nl ? (size_t)(nl - ln) : strlen(ln);
			memcpy(one, ln, j);
			one[j] = 0;
			want |= regexec(&rx, one, 0, NULL, 0) == 0;
		}
		regfree(&rx);
		fl |= line ? RE_LINE : 0;
		re = re_compile(pat, strlen(pat), fl, err, sizeof(err));
		rp = re_compile(pat, strlen(pat), fl | RE_DEBUG_PIKE, err,
				sizeof(err));
		snprintf(name, sizeof(name), "rediff/%d /%s/%s%s \"%s\"", i,
			 pat, fl & RE_ICASE ? "i" : "", line ? "l" : "", in);
		for (j = 0; name[j]; j++)
			if (name[j] == '\n')
				name[j] = '|';
		if (!re || !rp) {
			printf("FAIL %s: compile: %s\n", name, err);
			bad++;
			re_free(re);
			re_free(rp);
			continue;
		}
		got = re_search(re, in, n, 0, &ms, &me);
		got2 = re_search(rp, in, n, 0, &ms2, &me2);
		got3 = re_search(re, in, n, 0, NULL, &me3);
		if (got != want || got2 != want || got3 != want ||
		    (want && (ms != ms2 || me != me2 || me3 < ms ||
			      me3 > me))) {
			printf("FAIL %s: regexec %d, ours %d [%zu,%zu), pike %d "
			       "[%zu,%zu), fast %d at %zu\n", name, want, got,
			       ms, me, got2, ms2, me2, got3, me3);
			bad++;
		}
		re_free(re);
		re_free(rp);
	}
	if (!bad)
		printf("ok rediff/%d-cases (%d skipped by regcomp)\n",
		       CASES - skipped, skipped);
	return bad != 0;
}
