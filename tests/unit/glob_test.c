/* glob_test.c - globmatch (Go's filepath.Match) and globmatch_path */
#include "globmatch.h"
#include "unit.h"

#include <stdint.h>

struct mcase {
	const char *pat, *name;
	int want; /* 1 match, 0 none, -1 bad pattern */
};

/* Go's filepath.Match on Unix: the results its documentation and test
 * table give (ErrBadPattern is -1). */
static const struct mcase match_cases[] = {
	{"abc", "abc", 1},
	{"*", "abc", 1},
	{"*c", "abc", 1},
	{"a*", "a", 1},
	{"a*", "abc", 1},
	{"a*", "ab/c", 0},
	{"a*/b", "abc/b", 1},
	{"a*/b", "a/c/b", 0},
	{"a*b*c*d*e*/f", "axbxcxdxe/f", 1},
	{"a*b*c*d*e*/f", "axbxcxdxexxx/f", 1},
	{"a*b*c*d*e*/f", "axbxcxdxe/xxx/f", 0},
	{"a*b*c*d*e*/f", "axbxcxdxexxx/fff", 0},
	{"a*b?c*x", "abxbbxdbxebxczzx", 1},
	{"a*b?c*x", "abxbbxdbxebxczzy", 0},
	{"ab[c]", "abc", 1},
	{"ab[b-d]", "abc", 1},
	{"ab[e-g]", "abc", 0},
	{"ab[^c]", "abc", 0},
	{"ab[^b-d]", "abc", 0},
	{"ab[^e-g]", "abc", 1},
	{"a\\*b", "a*b", 1},
	{"a\\*b", "ab", 0},
	{"a?b", "a\xe2\x98\xba"
		"b",
	 1},
	{"a[^a]b", "a\xe2\x98\xba"
		   "b",
	 1},
	{"a???b", "a\xe2\x98\xba"
		  "b",
	 0},
	{"a[^a][^a][^a]b", "a\xe2\x98\xba"
			   "b",
	 0},
	{"[a-\xce\xb6]*", "\xce\xb1", 1},
	{"*[a-\xce\xb6]", "A", 0},
	{"a?b", "a/b", 0},
	{"a*b", "a/b", 0},
	{"[\\]a]", "]", 1},
	{"[\\-]", "-", 1},
	{"[x\\-]", "x", 1},
	{"[x\\-]", "-", 1},
	{"[x\\-]", "z", 0},
	{"[\\-x]", "x", 1},
	{"[\\-x]", "-", 1},
	{"[\\-x]", "a", 0},
	{"[]a]", "]", -1},
	{"[-]", "-", -1},
	{"[x-]", "x", -1},
	{"[x-]", "-", -1},
	{"[x-]", "z", -1},
	{"[-x]", "x", -1},
	{"[-x]", "-", -1},
	{"[-x]", "a", -1},
	{"\\", "a", -1},
	{"[a-b-c]", "a", -1},
	{"[", "a", -1},
	{"[^", "a", -1},
	{"[^bc", "a", -1},
	{"a[", "a", -1},
	{"a[", "ab", -1},
	{"a[", "x", -1},
	{"a/b[", "x", -1},
	{"*x", "xxx", 1},
	/* more of the same rules */
	{"", "", 1},
	{"", "a", 0},
	{"*", "", 1},
	{"?", "", 0},
	{"*.go", "main.go", 1},
	{"*.go", ".go", 1},
	{"*.go", "main.go.txt", 0},
	{"*.py", "A.PY", 0},
	{"*.PY", "a.py", 0},
	{"?", "\xc3\xa9", 1},
	{"??", "\xc3\xa9", 0},
	{"\\?", "?", 1},
	{"\\?", "a", 0},
	{"\\[", "[", 1},
	{"\\a", "a", 1},
	{"[a-c]x", "bx", 1},
	{"[a-c]x", "dx", 0},
	{"[abc]", "", 0},
	{"*a*a*a*a*a*a*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 0},
	{"*[", "abc", -1},
	{"a*[", "abc", -1},
	/* Go has no [!...] negation: '!' is an ordinary class member. */
	{"[!a]", "!", 1},
	{"[!a]", "a", 1},
	{"[!a]", "b", 0},
	/* no braces in filepath.Match */
	{"{a,b}", "a", 0},
	{"{a,b}", "{a,b}", 1},
	/* * and ? never cross '/'; the name is matched whole */
	{"*", "a/b", 0},
	{"*/*", "a/b", 1},
	{"a", "ab", 0},
	{"ab", "a", 0},
};

/* Path patterns (our extension): ** as a whole component is zero or more
 * directories; {a,b} alternation, nestable. */
static const struct mcase path_cases[] = {
	{"**/*.go", "a.go", 1},
	{"**/*.go", "x/a.go", 1},
	{"**/*.go", "x/y/z/a.go", 1},
	{"**/*.go", "a.py", 0},
	{"**/*.go", "x/a.go/b.py", 0},
	{"src/**/test_*.py", "src/test_a.py", 1},
	{"src/**/test_*.py", "src/a/test_b.py", 1},
	{"src/**/test_*.py", "src/a/b/c/test_d.py", 1},
	{"src/**/test_*.py", "lib/test_a.py", 0},
	{"src/**/test_*.py", "src/a/xtest_b.py", 0},
	{"src/**/test_*.py", "srcx/test_a.py", 0},
	{"a/**/b", "a/b", 1},
	{"a/**/b", "a/x/y/b", 1},
	{"a/**/b", "a/xb", 0},
	{"a/**/b", "a/x/b/c", 0},
	{"**/b.go", "b.go", 1},
	{"**/b.go", "ab.go", 0},
	{"**/b.go", "x/ab.go", 0},
	{"a/**", "a/b", 1},
	{"a/**", "a/b/c", 1},
	{"*/x.go", "a/x.go", 1},
	{"*/x.go", "a/b/x.go", 0},
	{"*/x.go", "x.go", 0},
	{"a?b", "a/b", 0},
	{"src/[ab].c", "src/a.c", 1},
	{"src/[ab].c", "src/c.c", 0},
	{"*.{c,h}", "a.c", 1},
	{"*.{c,h}", "a.h", 1},
	{"*.{c,h}", "a.o", 0},
	{"*.{c,h}", "a.ch", 0},
	{"{a,b}/x", "a/x", 1},
	{"{a,b}/x", "b/x", 1},
	{"{a,b}/x", "c/x", 0},
	{"{a,{b,c}}.txt", "c.txt", 1},
	{"{a,{b,c}}.txt", "d.txt", 0},
	{"{,x}y", "y", 1},
	{"{,x}y", "xy", 1},
	{"**/*.{js,ts}", "web/app/main.ts", 1},
	{"**/*.{js,ts}", "web/app/main.tsx", 0},
	{"docs/*.md", "docs/a.md", 1},
	{"docs/*.md", "docs/sub/a.md", 0},
	{"\\{a\\}", "{a}", 1},
	{"[", "a", -1},
	{"**/[", "a", -1},
	{"{a,b", "a", -1},
};

static void table(const char *what, const struct mcase *c, size_t n,
		  int (*fn)(const char *, const char *))
{
	size_t i;

	for (i = 0; i < n; i++) {
		int got = fn(c[i].pat, c[i].name);
		const char *name = unit_name("%s[%s,%s]", what,
					     unit_show(c[i].pat, strlen(c[i].pat)),
					     unit_show(c[i].name, strlen(c[i].name)));
		if (got == c[i].want)
			unit_ok(name);
		else
			unit_fail(name, "got %d want %d", got, c[i].want);
	}
}

/* The exhaustive definition of a path pattern without braces, for short
 * inputs: "**" takes zero or more whole segments (trailing, everything
 * below), any other segment pattern exactly one segment, as globmatch. */
static int ref_path(const char *p, const char *s)
{
	const char *pe = strchr(p, '/'), *se = strchr(s, '/');
	size_t pl = pe ? (size_t)(pe - p) : strlen(p), sl;
	char ps[64], ss[64];
	int r;

	if (pl == 2 && p[0] == '*' && p[1] == '*') {
		if (!pe)
			return 1;
		for (;;) {
			r = ref_path(pe + 1, s);
			if (r || !se)
				return r;
			s = se + 1;
			se = strchr(s, '/');
		}
	}
	sl = se ? (size_t)(se - s) : strlen(s);
	memcpy(ps, p, pl);
	ps[pl] = 0;
	memcpy(ss, s, sl);
	ss[sl] = 0;
	r = globmatch(ps, ss);
	if (r <= 0)
		return r;
	if (!pe || !se)
		return !pe && !se;
	return ref_path(pe + 1, se + 1);
}

/* globmatch_path against ref_path on random short patterns and paths. */
static void against_reference(void)
{
	static const char *const pt[] = {"a", "b", "*", "**", "?", "a*", "*b", "[ab]", "", "x"};
	static const char *const ps[] = {"a", "b", "ab", "ba", "x", ""};
	uint64_t seed = 1; /* 64 bits on every platform: the shifts below need them */
	unsigned long n;
	char pat[128], path[128];
	int bad = 0, i, k, m, a, b;

	for (n = 0; n < 200000 && bad < 5; n++) {
		pat[0] = path[0] = 0;
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		k = 1 + (int)(seed >> 33) % 6;
		m = (int)(seed >> 40) % 7;
		for (i = 0; i < k; i++) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			if (i)
				strcat(pat, "/");
			strcat(pat, pt[(seed >> 33) % 10]);
		}
		for (i = 0; i < m; i++) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			if (i)
				strcat(path, "/");
			strcat(path, ps[(seed >> 33) % 6]);
		}
		a = globmatch_path(pat, path);
		b = ref_path(pat, path);
		if (a != b) {
			unit_fail("glob.match_path.reference", "%s vs %s: got %d, the definition %d",
				  unit_show(pat, strlen(pat)), unit_show(path, strlen(path)), a, b);
			bad++;
		}
	}
	if (!bad)
		unit_ok("glob.match_path.reference");
}

int main(void)
{
	table("glob.match", match_cases, sizeof(match_cases) / sizeof(match_cases[0]),
	      globmatch);
	table("glob.match_path", path_cases, sizeof(path_cases) / sizeof(path_cases[0]),
	      globmatch_path);

	/* Plain patterns give the same answer through globmatch_path when
	 * the name has no '/'. */
	{
		size_t i;
		int bad = 0;
		for (i = 0; i < sizeof(match_cases) / sizeof(match_cases[0]); i++) {
			const struct mcase *c = &match_cases[i];
			if (strchr(c->name, '/') || strchr(c->pat, '/') || strchr(c->pat, '{'))
				continue;
			if (globmatch_path(c->pat, c->name) != c->want) {
				unit_fail("glob.match_path.plain", "%s vs %s: got %d want %d",
					  c->pat, c->name, globmatch_path(c->pat, c->name), c->want);
				bad = 1;
				break;
			}
		}
		if (!bad)
			unit_ok("glob.match_path.plain");
	}

	unit_check_int("glob.is_path[*.go]", 0, globmatch_is_path_pattern("*.go") != 0);
	unit_check_int("glob.is_path[[a-z]?.c]", 0, globmatch_is_path_pattern("[a-z]?.c") != 0);
	unit_check_int("glob.is_path[a/b]", 1, globmatch_is_path_pattern("a/*.go") != 0);
	unit_check_int("glob.is_path[**]", 1, globmatch_is_path_pattern("**/*.go") != 0);
	/* PROTOCOL section 4: only '/' and "**" make a path pattern; {a,b}
	 * alone alternates on the base name. */
	unit_check_int("glob.is_path[{a,b}]", 0, globmatch_is_path_pattern("*.{c,h}") != 0);
	unit_check_int("glob.entry[{a,b} base name in a subdir]", 1,
		       globmatch_entry("*.{c,h}", "src/deep/x.h", "x.h"));
	unit_check_int("glob.entry[{a,b} no]", 0,
		       globmatch_entry("*.{c,h}", "src/x.go", "x.go"));
	unit_check_int("glob.entry[path pattern uses rel]", 1,
		       globmatch_entry("src/**/*.h", "src/deep/x.h", "x.h"));
	unit_check_int("glob.entry[path pattern not base]", 0,
		       globmatch_entry("*/x.h", "src/deep/x.h", "x.h"));
	unit_check_int("glob.entry[bad]", -1, globmatch_entry("[x", "a", "a"));

	against_reference();
	/* Many "**" over many directories: each "**" used to try every split
	 * of the rest (a hang the fuzzer found); now one backtrack point. */
	{
		char pat[200] = "", path[64] = "a/b/c/d/e/f/g/h/i/j/k/l/x";
		int i;
		for (i = 0; i < 40; i++)
			strcat(pat, "**/");
		strcat(pat, "y");
		unit_check_int("glob.match_path.doublestar_chain_miss", 0, globmatch_path(pat, path));
		pat[strlen(pat) - 1] = 'x';
		unit_check_int("glob.match_path.doublestar_chain_hit", 1, globmatch_path(pat, path));
		unit_check_int("glob.match_path.doublestars_between", 1,
			       globmatch_path("**/b/**/**/f/**/l/**/x", path));
		unit_check_int("glob.match_path.doublestars_between_miss", 0,
			       globmatch_path("**/b/**/**/f/**/b/**/x", path));
	}
	/* {a,b} expansions are bounded: eight groups of ten alternatives
	 * (10^8) are refused as a bad pattern. */
	{
		char pat[200] = "";
		int i;
		for (i = 0; i < 8; i++)
			strcat(pat, "{,,,,,,,,,}");
		strcat(pat, "x");
		unit_check_int("glob.match_path.brace_bound", -1, globmatch_path(pat, "y"));
		unit_check_int("glob.match_path.brace_small", 1,
			       globmatch_path("{a,b}{c,d}{e,f}{g,h}.{x,y}", "bcfg.y"));
	}

	/* Long names and patterns do not crash or take long. */
	{
		char name[5001], pat[2002];
		memset(name, 'a', 5000);
		name[5000] = 0;
		memset(pat, '*', 2001);
		pat[2001] = 0;
		pat[2000] = 'b';
		unit_check_int("glob.match.long_stars", 0, globmatch(pat, name));
		unit_check_int("glob.match.long_name", 1, globmatch("a*a", name));
	}
	return unit_done();
}
