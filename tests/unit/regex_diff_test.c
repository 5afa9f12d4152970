/* regex_diff_test.c - differential tests of the regex engine
 *
 * 1. Against the C library's regexec: random patterns from the subset RE2
 *    and POSIX ERE agree on (literals, '.', brackets, * + ?, |, groups,
 *    ^ $) against random lines; only "is there a match" is compared, so
 *    leftmost-longest vs leftmost-first does not matter. Our fast path
 *    (DFA, prefilters, ms == NULL) must also agree exactly with our Pike
 *    VM on positions. Fixed seed: deterministic.
 * 2. Against the Unicode Character Database (Debian's unicode-data, the
 *    files Go's tables come from), read here by a parser of its own: every
 *    general category and script over all code points, and simple case
 *    folding. Skipped when the files are absent.
 * 3. Invalid UTF-8 against a decoder written here with Go's rules: every
 *    byte that does not begin a valid sequence is one U+FFFD.
 */
#undef _GNU_SOURCE /* glibc's GNU <regex.h> has its own RE_ICASE */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "re.h"
#include "../../lib/re/re_int.h"

#define UCD "/usr/share/unicode"
#define NCP 0x110000

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
	static const char *lits[] = {"a", "b", "c", "A", "x", "ab", "ba"};
	static const char *cls[] = {"[ab]", "[^a]", "[a-c]", "[^bc]", "[xA]",
				    "[[:alpha:]]", "[[:digit:]]"};
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

/* ---- 2. the Unicode Character Database ---- */

static int fails; /* checks of parts 2 and 3 that failed */

static void fail(const char *name, const char *fmt, unsigned long a,
		 unsigned long b)
{
	printf("FAIL %s: ", name);
	printf(fmt, a, b);
	printf("\n");
	fails++;
}

/* Fields of the data lines of a UCD file; NULL at its end. */
static int ucd_line(FILE *f, char *buf, size_t n, char **fld, int max)
{
	char *p, *h;
	int k;

	while (fgets(buf, (int)n, f)) {
		if ((h = strchr(buf, '#')))
			*h = 0;
		for (k = 0, p = buf; k < max; k++) {
			while (*p == ' ')
				p++;
			fld[k] = p;
			p = strchr(p, ';');
			if (p)
				*p++ = 0;
			h = fld[k] + strlen(fld[k]);
			while (h > fld[k] && (h[-1] == ' ' || h[-1] == '\n' ||
					      h[-1] == '\r'))
				*--h = 0;
			if (!p) {
				k++;
				break;
			}
		}
		if (k > 1)
			return k;
	}
	return 0;
}

static uint16_t *gcat;  /* two letters of each code point's category */
static uint8_t *script; /* 1 + index in snames, 0 for none */
static char snames[256][64];
static int nscripts;
static uint32_t *foldto; /* CaseFolding C and S target, or itself */

static int load_ucd(void)
{
	char buf[1024], *f[16];
	FILE *fp;
	unsigned long lo, hi, c, first = 0;
	int k, nf, have_first = 0;

	gcat = calloc(NCP, sizeof(*gcat));
	script = calloc(NCP, 1);
	foldto = malloc(NCP * sizeof(*foldto));
	if (!gcat || !script || !foldto)
		return -1;
	if (!(fp = fopen(UCD "/UnicodeData.txt", "r")))
		return -1;
	while ((nf = ucd_line(fp, buf, sizeof(buf), f, 16)) > 2) {
		c = strtoul(f[0], NULL, 16);
		lo = c;
		if (strstr(f[1], ", First>")) {
			first = c;
			have_first = 1;
			continue;
		}
		if (strstr(f[1], ", Last>") && have_first)
			lo = first;
		have_first = 0;
		for (; lo <= c; lo++)
			gcat[lo] = (uint16_t)(f[2][0] << 8 | f[2][1]);
	}
	fclose(fp);
	if (!(fp = fopen(UCD "/Scripts.txt", "r")))
		return -1;
	while (ucd_line(fp, buf, sizeof(buf), f, 3) >= 2) {
		char *dots = strstr(f[0], "..");

		lo = strtoul(f[0], NULL, 16);
		hi = dots ? strtoul(dots + 2, NULL, 16) : lo;
		for (k = 0; k < nscripts && strcmp(snames[k], f[1]); k++)
			;
		if (k == nscripts) {
			if (nscripts == 255)
				return -1;
			snprintf(snames[nscripts++], sizeof(snames[0]), "%s",
				 f[1]);
		}
		for (; lo <= hi; lo++)
			script[lo] = (uint8_t)(k + 1);
	}
	fclose(fp);
	for (c = 0; c < NCP; c++)
		foldto[c] = (uint32_t)c;
	if (!(fp = fopen(UCD "/CaseFolding.txt", "r")))
		return -1;
	while (ucd_line(fp, buf, sizeof(buf), f, 4) >= 3)
		if (!strcmp(f[1], "C") || !strcmp(f[1], "S"))
			foldto[strtoul(f[0], NULL, 16)] =
				(uint32_t)strtoul(f[2], NULL, 16);
	fclose(fp);
	return 0;
}

/* The set \p{name} parses to, as sorted ranges. */
static int parse_set(const char *pat, unsigned flags, struct ast *a,
		     const struct rclass **cls)
{
	char err[256];

	if (re_parse(pat, strlen(pat), flags, a, err, sizeof(err))) {
		printf("FAIL ucd %s: %s\n", pat, err);
		fails++;
		return -1;
	}
	if (a->root->type != N_CLASS) {
		fail(pat, "parsed to node type %lu%lu", 0,
		     (unsigned long)a->root->type);
		re_ast_free(a);
		return -1;
	}
	*cls = &a->root->cls;
	return 0;
}

static int is_surrogate(unsigned long c)
{
	return c >= 0xd800 && c <= 0xdfff;
}

/* Compare \p{name} with want(c) for every code point, then match each
 * edge of each range (and the code points beside it) through re_search. */
static void check_set(const char *name, int (*want)(unsigned long, int),
		      int arg)
{
	char pat[128], tn[160], buf[8];
	const struct rclass *cls;
	struct ast a;
	struct re *re;
	unsigned long c, lo, mism = 0, firstbad = 0;
	int i = 0, in, e, k;
	size_t ms, me;

	snprintf(pat, sizeof(pat), "\\p{%s}", name);
	snprintf(tn, sizeof(tn), "ucd/%s", name);
	if (parse_set(pat, 0, &a, &cls))
		return;
	for (c = 0; c < NCP; c++) {
		while (i < cls->n && cls->r[i][1] < c)
			i++;
		in = i < cls->n && cls->r[i][0] <= c;
		if (in != want(c, arg) && !mism++)
			firstbad = c;
	}
	if (mism)
		fail(tn, "%lu code points differ from the UCD, first U+%04lX",
		     mism, firstbad);
	snprintf(pat, sizeof(pat), "^\\p{%s}$", name);
	re = re_compile(pat, strlen(pat), 0, NULL, 0);
	for (i = 0; re && i < cls->n && !mism; i++) {
		for (e = 0; e < 4; e++) {
			lo = e == 0 ? cls->r[i][0] : e == 1 ? cls->r[i][1]
					     : e == 2       ? cls->r[i][0] - 1
							    : cls->r[i][1] + 1;
			if (lo >= NCP || is_surrogate(lo))
				continue;
			k = (int)utf8_encode(buf, (unsigned)lo);
			if (re_search(re, buf, (size_t)k, 0, &ms, &me) !=
			    want(lo, arg)) {
				fail(tn, "re_search on U+%04lX says %lu", lo,
				     (unsigned long)!want(lo, arg));
				mism++;
				break;
			}
		}
	}
	if (!re)
		fail(tn, "does not compile%lu%lu", 0, 0);
	re_free(re);
	re_ast_free(&a);
	if (!mism && re)
		printf("ok %s\n", tn);
}

static int want_cat(unsigned long c, int cat)
{
	if (cat < 0x100) /* one letter: every category it begins */
		return gcat[c] >> 8 == cat && gcat[c] != ('C' << 8 | 'n');
	return gcat[c] == cat && cat != ('C' << 8 | 'n');
}

static int want_script(unsigned long c, int k)
{
	return script[c] == k + 1;
}

/* Simple folding: the orbit re_foldnext walks from c is exactly the set
 * of code points with c's CaseFolding target; (?i)c matches each member. */
static void check_folding(void)
{
	uint32_t *size = calloc(NCP, sizeof(*size)), x;
	unsigned long c, bad = 0, firstbad = 0, n;
	char pat[16], buf[8];
	size_t ms, me;
	int k, m;

	if (!size) {
		fail("ucd/folding", "out of memory%lu%lu", 0, 0);
		return;
	}
	for (c = 0; c < NCP; c++)
		size[foldto[c]]++;
	for (c = 0; c < NCP; c++) {
		n = 0;
		x = (uint32_t)c;
		do {
			if (foldto[x] != foldto[c])
				break;
			n++;
			x = re_foldnext(x);
		} while (x != c && n <= 8);
		if ((x != c || n != size[foldto[c]]) && !bad++)
			firstbad = c;
	}
	if (bad)
		fail("ucd/folding", "%lu orbits differ from CaseFolding.txt, "
				    "first U+%04lX",
		     bad, firstbad);
	for (c = 0; c < NCP && !bad; c++) {
		struct re *re;

		if (size[foldto[c]] < 2 || is_surrogate(c))
			continue;
		memcpy(pat, "(?i)", 4);
		k = (int)utf8_encode(pat + 4, (unsigned)c);
		re = re_compile(pat, (size_t)k + 4, 0, NULL, 0);
		for (x = re_foldnext((uint32_t)c);; x = re_foldnext(x)) {
			m = (int)utf8_encode(buf, x);
			if (!re || re_search(re, buf, (size_t)m, 0, &ms, &me) != 1 || ms || me != (size_t)m) {
				fail("ucd/folding", "(?i)U+%04lX does not match "
						    "U+%04lX",
				     c, x);
				bad++;
				break;
			}
			if (x == c)
				break;
		}
		re_free(re);
	}
	free(size);
	if (!bad)
		printf("ok ucd/folding\n");
}

static void check_ucd(void)
{
	static const char one[] = "CLMNPSZ";
	char nm[3] = {0};
	int cats[64], ncats = 0, k;
	unsigned long c;

	if (load_ucd()) {
		printf("ok ucd # skipped: " UCD " (Debian's unicode-data) "
		       "is not installed\n");
		return;
	}
	for (c = 0; c < NCP; c++) {
		for (k = 0; k < ncats && cats[k] != gcat[c]; k++)
			;
		if (k == ncats && gcat[c] && ncats < 64)
			cats[ncats++] = gcat[c];
	}
	for (k = 0; k < ncats; k++) {
		if (cats[k] == ('C' << 8 | 'n'))
			continue;
		nm[0] = (char)(cats[k] >> 8);
		nm[1] = (char)cats[k];
		check_set(nm, want_cat, cats[k]);
	}
	for (k = 0; one[k]; k++) {
		nm[0] = one[k];
		nm[1] = 0;
		check_set(nm, want_cat, one[k]);
	}
	for (k = 0; k < nscripts; k++)
		check_set(snames[k], want_script, k);
	check_folding();
}

/* ---- 3. invalid UTF-8 ---- */

/* Go's reading of s[i..n): the width of its character; *valid if it is
 * a real one (else U+FFFD of width 1). Written apart from the engine's. */
static int go_width(const unsigned char *s, size_t i, size_t n, int *valid)
{
	unsigned c = s[i], need, min, v, k;

	*valid = 1;
	if (c < 0x80)
		return 1;
	need = c >= 0xf0 ? 3 : c >= 0xe0 ? 2
		       : c >= 0xc0       ? 1
					 : 0;
	min = need == 3 ? 0x10000 : need == 2 ? 0x800
					      : 0x80;
	v = c & (0x3f >> need);
	if (!need || c > 0xf7 || i + need >= n) /* stray, or cut short */
		goto bad;
	for (k = 1; k <= need; k++) {
		if ((s[i + k] & 0xc0) != 0x80)
			goto bad;
		v = v << 6 | (s[i + k] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		goto bad;
	return (int)need + 1;
bad:
	*valid = 0;
	return 1;
}

static int go_word(const unsigned char *s, size_t i, size_t n)
{
	return i < n && s[i] < 0x80 && re_isword(s[i]);
}

/* Random byte strings from pieces that make every kind of sequence. */
static void check_invalid(void)
{
	/* clang-format off */
	static const char *piece[] = {
		"a", "_", " ", "\xc3\xa9", "\xe6\x97\xa5", "\xf0\x9f\x98\x80",
		"\x80", "\xbf", "\xc0", "\xc1", "\xc2", "\xe0", "\xe0\xa0",
		"\xe0\x80", "\xed\xa0\x80", "\xed\x9f\xbf", "\xe6\x97",
		"\xf0", "\xf0\x90", "\xf0\x80\x80\x80", "\xf4\x90\x80\x80",
		"\xf4\x8f\xbf\xbf", "\xf5", "\xff", "\xef\xbf\xbd", "\xa5",
	};
	/* clang-format on */
	static const unsigned fl[] = {0, RE_LINE, RE_DEBUG_PIKE};
	struct re *dot[3], *fffd[3], *nb[3], *cnt[3];
	unsigned char t[64];
	size_t n, i, j, w[64], at[64], nu, ms, me;
	int valid[64], f, it, r, bad = 0, k;
	char pat[32], tn[200];

	for (f = 0; f < 3; f++) {
		dot[f] = re_compile("(?s).", 5, fl[f], NULL, 0);
		fffd[f] = re_compile("\\x{FFFD}", 8, fl[f], NULL, 0);
		nb[f] = re_compile("\\B", 2, fl[f], NULL, 0);
	}
	for (it = 0; it < 3000 && !bad; it++) {
		n = 0;
		for (k = rnd(6); k >= 0; k--) {
			const char *p = piece[rnd(sizeof(piece) /
						  sizeof(piece[0]))];

			memcpy(t + n, p, strlen(p));
			n += strlen(p);
		}
		for (i = nu = 0; i < n; i += w[nu++]) {
			at[nu] = i;
			w[nu] = (size_t)go_width(t, i, n, &valid[nu]);
		}
		at[nu] = n;
		snprintf(pat, sizeof(pat), "^(?s:.){%zu}$", nu);
		for (f = 0; f < 3; f++)
			cnt[f] = re_compile(pat, strlen(pat), fl[f], NULL, 0);
		snprintf(tn, sizeof(tn), "utf8/%d", it);
		for (j = 0; j <= nu && !bad; j++) {
			size_t fx = nu, bx = nu + 1;

			/* first U+FFFD (invalid or encoded) at unit >= j */
			for (i = j; i < nu && fx == nu; i++)
				if (!valid[i] || (w[i] == 3 && t[at[i]] == 0xef &&
						  t[at[i] + 1] == 0xbf &&
						  t[at[i] + 2] == 0xbd))
					fx = i;
			/* first \B at a unit boundary >= j */
			for (i = j; i <= nu && bx > nu; i++) {
				int a = i ? go_word(t, at[i - 1], n) &&
							w[i - 1] == 1
					  : 0;

				if (a == go_word(t, at[i], n))
					bx = i;
			}
			for (f = 0; f < 3; f++) {
				r = re_search(dot[f], (char *)t, n, at[j], &ms,
					      &me);
				if (j < nu ? r != 1 || ms != at[j] ||
						     me != at[j] + w[j]
					   : r != 0)
					bad++;
				r = re_search(fffd[f], (char *)t, n, at[j], &ms,
					      &me);
				if (fx < nu ? r != 1 || ms != at[fx] ||
						      me != at[fx] + w[fx]
					    : r != 0)
					bad++;
				r = re_search(nb[f], (char *)t, n, at[j], &ms,
					      &me);
				if (bx <= nu ? r != 1 || ms != at[bx] : r != 0)
					bad++;
				if (j == 0 && re_search(cnt[f], (char *)t, n, 0,
							NULL, &me) != 1)
					bad++;
				/* the fast path (DFA, ms == NULL) agrees */
				if (re_search(dot[f], (char *)t, n, at[j], NULL,
					      &me) != (j < nu) ||
				    re_search(fffd[f], (char *)t, n, at[j],
					      NULL, &me) != (fx < nu) ||
				    re_search(nb[f], (char *)t, n, at[j], NULL,
					      &me) != (bx <= nu))
					bad++;
				if (bad) {
					printf("FAIL %s: flags %u, from unit "
					       "%zu of %zu, text",
					       tn, fl[f], j,
					       nu);
					for (i = 0; i < n; i++)
						printf(" %02x", t[i]);
					printf("\n");
					fails++;
					break;
				}
			}
		}
		for (f = 0; f < 3; f++)
			re_free(cnt[f]);
	}
	for (f = 0; f < 3; f++) {
		re_free(dot[f]);
		re_free(fffd[f]);
		re_free(nb[f]);
	}
	if (!bad)
		printf("ok utf8/invalid-bytes-%d-texts\n", it);
}

int main(void)
{
	char pat[512], in[64], err[256], name[700];
	int i, bad = 0, skipped = 0;

	check_ucd();
	check_invalid();

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
		if (regcomp(&rx, pat, REG_EXTENDED | REG_NOSUB | (fl ? REG_ICASE : 0))) {
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
			       "[%zu,%zu), fast %d at %zu\n",
			       name, want, got,
			       ms, me, got2, ms2, me2, got3, me3);
			bad++;
		}
		re_free(re);
		re_free(rp);
	}
	if (!bad)
		printf("ok rediff/%d-cases (%d skipped by regcomp)\n",
		       CASES - skipped, skipped);
	return bad || fails;
}
