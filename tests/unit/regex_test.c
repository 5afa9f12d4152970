/* regex_test.c - table tests for the regex engine (lib/re)
 *
 * Each row: pattern, flags, input, search offset, expected match [ms,me),
 * NO for no match, or ERR for a compile error (with a fragment the message
 * must contain). Every match row is also run with ms == NULL (the fast
 * "is there a match, roughly where" mode) and through the Pike VM alone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "re.h"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define NO -1
#define ERR -2
#define I RE_ICASE
#define L RE_LINE
#define F RE_LITERAL

struct tc {
	const char *pat;
	unsigned fl;
	const char *in;
	int from, ms, me;
	const char *errpart;
};

static const struct tc tests[] = {
	/* literals */
	{"abc", 0, "xxabcxx", 0, 2, 5},
	{"abc", 0, "xxabxabc", 0, 5, 8},
	{"abc", 0, "ab", 0, NO},
	{"", 0, "abc", 0, 0, 0},
	{"", 0, "", 0, 0, 0},
	{"", 0, "abc", 3, 3, 3},
	{"a", 0, "", 0, NO},
	{"héllo", 0, "say héllo!", 0, 4, 10},
	{"日本", 0, "にっぽん日本語", 0, 12, 18},
	/* escapes */
	{"\\t\\n\\r\\f\\v\\a", 0, "x\t\n\r\f\v\ay", 0, 1, 7},
	{"\\x41\\x{42}\\x{263a}", 0, "zAB\xe2\x98\xba", 0, 1, 6},
	{"\\101\\0", 0, "A", 0, NO},
	{"\\101", 0, "xA", 0, 1, 2},
	{"\\141\\142", 0, "ab", 0, 0, 2},
	{"\\Qa.b*c\\E+", 0, "a.b*cc", 0, 0, 6},
	{"\\Qa.b", 0, "xa.b", 0, 1, 4},
	{"\\.\\*\\+\\?\\(\\)\\[\\]\\{\\}\\|\\^\\$\\\\", 0,
	 ".*+?()[]{}|^$\\", 0, 0, 14},
	{"\\-\\/\\#\\ \\<", 0, "-/# <", 0, 0, 5},
	/* dot */
	{"a.c", 0, "abc", 0, 0, 3},
	{"a.c", 0, "a\nc", 0, NO},
	{"(?s)a.c", 0, "a\nc", 0, 0, 3},
	{"(?s)a.c", L, "a\nc", 0, NO},
	{"a.c", 0, "a\xc3\xa9"
		   "c",
	 0, 0, 4},
	{"a.c", 0, "a\xe2\x98\xba"
		   "c",
	 0, 0, 5},
	{"a.c", 0, "a\xf0\x9f\x98\x80"
		   "c",
	 0, 0, 6},
	{"a..c", 0, "a\xc3\xa9"
		    "c",
	 0, NO},
	{"^.$", 0, "\xe2\x82\xac", 0, 0, 3},
	{"^...$", 0, "\xe2\x82\xac", 0, NO},
	/* invalid UTF-8 in the input: one bad byte is one character */
	{"a.c", 0, "a\xff"
		   "c",
	 0, 0, 3},
	{"a.c", 0, "a\x80"
		   "c",
	 0, 0, 3},
	{"caf. au", 0, "caf\xe9 au lait", 0, 0, 7},
	{"a[^x]c", 0, "a\xe9"
		      "c",
	 0, 0, 3},
	{"a[a-z]c", 0, "a\xe9"
		       "c",
	 0, NO},
	{"[^\xc3\xa9]", 0, "\xc3\xa9", 0, NO},
	{"^[^\xc3\xa9]*$", L, "caf\xc3\xa9", 0, NO},
	{"^[^x]*$", L, "caf\xc3\xa9", 0, 0, 5},
	/* Go reads each byte of invalid UTF-8 as one U+FFFD */
	{"^..$", 0, "\xe6\x97", 0, 0, 2},
	{"^.$", 0, "\xe6\x97", 0, NO},
	{"^..$", L, "abc\n\xe6\x97\nxyz", 0, 4, 6},
	{"^...$", L, "abc\n\xe6\x97\nxyz", 0, 0, 3},
	{"\xe6\x97", 0, "\xe6\x97", 0, ERR, 0, "invalid UTF-8"},
	{".", 0, "\xed\xa0\x80", 0, 0, 1},
	{"^...$", 0, "\xed\xa0\x80", 0, 0, 3},
	{".", 0, "\xe0\x80\x80", 0, 0, 1},
	{"^...$", 0, "\xe0\x80\x80", 0, 0, 3},
	{".", 0, "\xf4\x90\x80\x80", 0, 0, 1},
	{"^....$", 0, "\xf4\x90\x80\x80", 0, 0, 4},
	{"^..$", 0, "\xc0\xaf", 0, 0, 2},
	{"^.$", 0, "\xf4\x8f\xbf\xbf", 0, 0, 4},
	{"^..$", 0, "\xf0\x9f\x98", 0, NO},
	{"^...$", 0, "\xf0\x9f\x98", 0, 0, 3},
	{"^.a$", 0, "\xf0\x9f\x98"
		    "a",
	 0, NO},
	{"^...a$", 0, "\xf0\x9f\x98"
		      "a",
	 0, 0, 4},
	{"x.+y", 0, "x\xe6\x97\xe6\x97\xa5y", 0, 0, 7},
	{"\\x{FFFD}", 0, "\xff", 0, 0, 1},
	{"\\x{FFFD}", 0, "ab\x80", 0, 2, 3},
	{"\\x{FFFD}", 0, "\xef\xbf\xbd", 0, 0, 3},
	{"\\x{FFFD}", 0, "\xc3\xa9", 0, NO},
	{"\\x{FFFD}+", 0, "a\xe6\x97\xff"
			  "b",
	 0, 1, 4},
	{"[^a]", 0, "\xe6\x97"
		    "a",
	 0, 0, 1},
	{"\\pS", 0, "a\xe6\x97", 0, 1, 2},
	{"\\PL", 0, "a\xf5", 0, 1, 2},
	{"\\pL", 0, "\xf5", 0, NO},
	{"\\x{D800}", 0, "\xed\xa0\x80", 0, NO},
	{"[\\x{D800}-\\x{DFFF}]", 0, "\xed\xa0\x80", 0, NO},
	{"\\x{D800}|b", 0, "a\xed\xa0\x80"
			   "b",
	 0, 4, 5},
	/* \B only where Go stands: never inside a character */
	{"\\B", 0, "a\xc3\xa9"
		   "b",
	 0, NO},
	{"\\B", 0, "\xc3\xa9", 0, 0, 0},
	{"\\B", 0, "\xe2\x82\xac\xe2\x82\xac", 1, 3, 3},
	{"a\\B", 0, "a\xc3\xa9", 0, NO},
	{"\\xe9\\B", 0, "\xc3\xa9\xc3\xa9", 0, 0, 2},
	{"\\B", 0, "ab", 0, 1, 1},
	{"\\B", L, "a\xc3\xa9"
		   "b\nxy",
	 0, 6, 6},
	{"\\B", 0, "a\xf0\x90\x80"
		   "A",
	 0, 2, 2},
	{"\\B.", 0, "a\xe6\x97"
		    "a",
	 0, 2, 3},
	{"\\B.", 0, "a\xe6\x97\xa5"
		    "a",
	 0, NO},
	/* Unicode 15.0 categories and scripts, as Go's tables */
	{"\\pL", 0, "\xf0\x9e\x93\x90", 0, 0, 4},
	{"\\p{Latin}", 0, "\xca\xb0", 0, 0, 2},
	{"\\p{Greek}", 0, "\xcd\x82", 0, NO},
	{"\\p{Inherited}", 0, "\xcd\x82", 0, 0, 2},
	{"\\p{Han}", 0, "\xf0\x96\xbf\xa2", 0, 0, 4},
	{"\\p{So}", 0, "a\xc2\xa9", 0, 1, 3},
	{"\\p{Sc}+", 0, "a$\xe2\x82\xac", 0, 1, 5},
	{"\\p{Hiragana}", 0, "a\xe3\x81\xb2", 0, 1, 4},
	{"\\p{Arabic}", 0, "a\xd8\xb9", 0, 1, 3},
	{"\\p{^Arabic}", 0, "\xd8\xb9"
			    "a",
	 0, 2, 3},
	{"\\P{Arabic}", 0, "\xd8\xb9"
			   "a",
	 0, 2, 3},
	{"\\pC", 0, "a\x01", 0, 1, 2},
	{"\\pC", 0, "\xcd\xb8", 0, NO}, /* U+0378 unassigned: not C */
	{"\\p{Cn}", 0, "", 0, ERR, 0, "unknown Unicode class"},
	{"\\p{Cs}", 0, "\xed\xa0\x80", 0, NO},
	{"\\p{Co}", 0, "\xee\x80\x80", 0, 0, 3},
	{"\\p{Zl}", 0, "\xe2\x80\xa8", 0, 0, 3},
	{"\\p{Old_Italic}", 0, "\xf0\x90\x8c\x80", 0, 0, 4},
	{"\\p{Common}", 0, "a1", 0, 1, 2},
	{"\\p{Nko}", 0, "\xdf\x80", 0, 0, 2},
	{"\\p{Yi}", 0, "\xea\x80\x80", 0, 0, 3},
	{"\\p{Kawi}", 0, "\xf0\x91\xbc\x80", 0, 0, 4},
	{"\\p{latin}", 0, "", 0, ERR, 0, "unknown Unicode class"},
	{"\\p{Lx}", 0, "", 0, ERR, 0, "unknown Unicode class"},
	{"\\pX", 0, "", 0, ERR, 0, "unknown Unicode class"},
	/* folding as Go: simple folding orbits, no dotless i */
	{"(?i)\xc4\xb1", 0, "I", 0, NO},
	{"(?i)\xc4\xb1", 0, "i", 0, NO},
	{"(?i)i", 0, "\xc4\xb1\xc4\xb0", 0, NO},
	{"(?i)\xc4\xb1", 0, "\xc4\xb1", 0, 0, 2},
	{"(?i)[\\x{130}]", 0, "i", 0, NO},
	{"(?i)k", 0, "\xe2\x84\xaa", 0, 0, 3},
	{"(?i)s", 0, "\xc5\xbf", 0, 0, 2},
	{"(?i)\xce\xa3", 0, "\xcf\x82", 0, 0, 2},
	{"(?i)\\x{1e9e}", 0, "\xc3\x9f", 0, 0, 2},
	{"(?i)\\p{Lu}", 0, "a", 0, 0, 1},
	{"(?i)\\P{Lu}", 0, "aA1", 0, 2, 3},
	/* Go's parser: a repeat after a flag group or an empty \Q\E
	 * applies to the item before them */
	{"a(?i)*", 0, "aaab", 0, 0, 3},
	{"ba(?i)+", 0, "xbaaa", 0, 1, 5},
	{"a\\Q\\E*", 0, "aaab", 0, 0, 3},
	{"a(?i)(?s){2}", 0, "xaa", 0, 1, 3},
	{"a*(?i)*", 0, "aa", 0, 0, 2},
	{"(?i)*", 0, "", 0, ERR, 0, "missing argument to repetition"},
	{"a|(?i)*", 0, "", 0, ERR, 0, "missing argument to repetition"},
	{"(?i)a(?-i)*", 0, "AAb", 0, 0, 2},
	{"a(?i)**", 0, "", 0, ERR, 0, "invalid nested repetition"},
	{"\\_", 0, "a_", 0, 1, 2},
	{"[\\_]", 0, "a_", 0, 1, 2},
	{"\\pL{1000}", 0, "ab", 0, NO},
	/* classes */
	{"[abc]+", 0, "xxbcay", 0, 2, 5},
	{"[a-c]+", 0, "xxbcay", 0, 2, 5},
	{"[^a-c]+", 0, "abxyzc", 0, 2, 5},
	{"[]a]+", 0, "x]a]", 0, 1, 4},
	{"[^]a]", 0, "]ab", 0, 2, 3},
	{"[a-]+", 0, "x-a-", 0, 1, 4},
	{"[-a]+", 0, "x-a-", 0, 1, 4},
	{"[a-c-e]+", 0, "xa-eb", 0, 1, 5},
	{"[\\d.]+", 0, "v1.25x", 0, 1, 5},
	{"[\\]\\[]+", 0, "a[]b", 0, 1, 3},
	{"[\\x41-\\x43]+", 0, "zABCD", 0, 1, 4},
	{"[[:alpha:]]+", 0, "12abC3", 0, 2, 5},
	{"[[:digit:][:upper:]]+", 0, "abA1Bc", 0, 2, 5},
	{"[[:^alpha:]]+", 0, "ab12c", 0, 2, 4},
	{"[[:space:]]", 0, "a\tb", 0, 1, 2},
	{"[[:xdigit:]]+", 0, "xyzBEEFg", 0, 3, 7},
	{"[[:punct:]]+", 0, "ab!?c", 0, 2, 4},
	{"[[:word:]]+", 0, "--a_1--", 0, 2, 5},
	{"[α-ω]+", 0, "abγδεz", 0, 2, 8},
	{"[^α]", 0, "α", 0, NO},
	{"[^α]", 0, "αβ", 0, 2, 4},
	{"[\\x{1F600}-\\x{1F64F}]", 0, "hi \xf0\x9f\x98\x80", 0, 3, 7},
	{"[\\p{Greek}\\d]+", 0, "x1α2y", 0, 1, 5},
	/* Perl classes (ASCII) */
	{"\\d+", 0, "ab123c", 0, 2, 5},
	{"\\D+", 0, "12ab3", 0, 2, 4},
	{"\\s+", 0, "a \t\nb", 0, 1, 4},
	{"\\S+", 0, "  ab ", 0, 2, 4},
	{"\\w+", 0, "--ab_9--", 0, 2, 6},
	{"\\W+", 0, "ab--cd", 0, 2, 4},
	{"\\d", 0, "\xd9\xa3", 0, NO}, /* Arabic-Indic three */
	{"\\w", 0, "é", 0, NO},
	/* Unicode classes */
	{"\\pL+", 0, "12héllo3", 0, 2, 8},
	{"\\p{L}+", 0, "--Жук--", 0, 2, 8},
	{"\\p{Lu}", 0, "abcÉd", 0, 3, 5},
	{"\\p{Ll}+", 0, "ABcdé", 0, 2, 6},
	{"\\pN+", 0, "ab١٢3", 0, 2, 7},
	{"\\p{Nd}", 0, "x٣", 0, 1, 3},
	{"\\pP+", 0, "ab,.!c", 0, 2, 5},
	{"\\pS", 0, "a+b", 0, 1, 2},
	{"\\pZ", 0, "a\xc2\xa0"
		    "b",
	 0, 1, 3},
	{"\\p{Greek}+", 0, "abΑβγd", 0, 2, 8},
	{"\\p{Cyrillic}+", 0, "hiПривет!", 0, 2, 14},
	{"\\p{Han}+", 0, "abc漢字def", 0, 3, 9},
	{"\\p{Latin}+", 0, "ΑβabcéΓ", 0, 4, 9},
	{"\\PL+", 0, "ab12cd", 0, 2, 4},
	{"\\P{L}+", 0, "ab12cd", 0, 2, 4},
	{"\\p{^L}+", 0, "ab12cd", 0, 2, 4},
	{"\\P{^L}+", 0, "12ab34", 0, 2, 4},
	{"\\p{Any}+", 0, "ab\ncd", 0, 0, 5},
	/* anchors */
	{"^abc", 0, "abcabc", 0, 0, 3},
	{"^abc", 0, "xabc", 0, NO},
	{"^abc", 0, "x\nabc", 0, NO},
	{"(?m)^abc", 0, "x\nabc", 0, 2, 5},
	{"^abc", L, "x\nabc", 0, 2, 5},
	{"abc$", 0, "abc\nx", 0, NO},
	{"(?m)abc$", 0, "abc\nx", 0, 0, 3},
	{"abc$", L, "abc\nx", 0, 0, 3},
	{"abc$", 0, "xabc", 0, 1, 4},
	{"\\Aabc", 0, "abc", 0, 0, 3},
	{"(?m)\\Aabc", 0, "x\nabc", 0, NO},
	{"abc\\z", 0, "abc\n", 0, NO},
	{"abc\\z", 0, "xabc", 0, 1, 4},
	{"(?m)abc\\z", 0, "abc\nabc", 0, 4, 7},
	{"^$", 0, "", 0, 0, 0},
	{"^$", L, "ab\n\ncd", 0, 3, 3},
	{"(?m)^$", 0, "ab\n", 0, 3, 3},
	{"$", 0, "ab", 0, 2, 2},
	{"^", 0, "ab", 1, NO},
	{"(?m)^", 0, "ab\ncd", 1, 3, 3},
	{"^b", 0, "ab", 1, NO},
	{"^b", L, "ab", 1, NO},
	{"^b", L, "a\nb", 1, 2, 3},
	/* word boundaries */
	{"\\bfoo\\b", 0, "a foo b", 0, 2, 5},
	{"\\bfoo\\b", 0, "afoo b", 0, NO},
	{"\\bfoo\\b", 0, "foo", 0, 0, 3},
	{"\\bfoo", 0, "xfoo", 1, NO},
	{"\\bfoo", 0, " foo", 1, 1, 4},
	{"foo\\b", 0, "foobar", 0, NO},
	{"\\Boo\\B", 0, "foobar", 0, 1, 3},
	{"\\B", 0, "", 0, 0, 0},
	{"\\b", 0, "", 0, NO},
	{"\\b", 0, "ab", 0, 0, 0},
	{"\\b", 0, "ab", 1, 2, 2},
	{"\\B", 0, "ab", 0, 1, 1},
	{"\\bé", 0, " é", 0, NO}, /* é is not an ASCII word char */
	/* groups and alternation: leftmost-first */
	{"a|ab", 0, "ab", 0, 0, 1},
	{"ab|a", 0, "ab", 0, 0, 2},
	{"(a|ab)(c|bcd)", 0, "abcd", 0, 0, 4},
	{"(a+|b+)*c", 0, "aabbc", 0, 0, 5},
	{"x(?:ab|cd)+y", 0, "xabcdaby", 0, 0, 8},
	{"(?P<word>\\w+)", 0, "  hi", 0, 2, 4},
	{"(?<word>\\w+)@", 0, "  hi@", 0, 2, 5},
	{"foo|bar|baz", 0, "xxbazbar", 0, 2, 5},
	{"|a", 0, "a", 0, 0, 0},
	{"a|", 0, "b", 0, 0, 0},
	{"()", 0, "x", 0, 0, 0},
	{"(a)|b", 0, "b", 0, 0, 1},
	{"abcd|c", 0, "abcd", 0, 0, 4},
	{"bc|abcd", 0, "abcd", 0, 0, 4},
	/* alternations of literals: the multi-literal prefilter */
	{"foo|bar_baz|qux\\d+", 0, "xx qux12 bar_baz", 0, 3, 8},
	{"foo|bar_baz|qux\\d+", 0, "xx qux bar_baz", 0, 7, 14},
	{"abcd|bcde", 0, "xabcde", 0, 1, 5},
	{"bcde|abcd", 0, "xabcde", 0, 1, 5},
	{"bcde|abcd", 0, "xabcdbcde", 0, 1, 5},
	{"ab|abc", 0, "xxabc", 0, 2, 4},
	{"abc|ab", 0, "xxabc", 0, 2, 5},
	{"abc|ab", 0, "xxabd", 0, 2, 4},
	{"foo|bar", 0, "bar", 0, 0, 3},
	{"foo|bar", 0, "ba", 0, NO},
	{"foo|bar", 0, "foo bar", 1, 4, 7},
	{"foo|bar", 0, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxfoo", 0, 32, 35},
	{"foo|bar", 0, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxfo", 0, NO},
	{"foo|bar", 0, "xxxxxxxxxxxxxxfooxxxxxxxxxxxxxxxxxxxx", 0, 14, 17},
	{"foo|bar", 0, "xxxxxxxxxxxxxxxbarxxxxxxxxxxxxxxxxxxx", 0, 15, 18},
	{"foo|bar", 0, "fob bao foa fOo BAR xxxxxxxxxxxxxxxxxxbar", 0, 38, 41},
	{"Foo|BAR", I, "xx fOo bAr", 0, 3, 6},
	{"Foo|BAR", I, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxbAr", 0, 34, 37},
	{"(?i)foo|bar", 0, "xx BAR", 0, 3, 6},
	{"kmalloc|kfree", I, "x KFREE y", 0, 2, 7},
	{"kfree|spin_lock", I, "x \xe2\x84\xaa"
			       "free",
	 0, 2, 9},
	{"kfree|spin_lock", I, "x \xc5\xbfPIN_LOCK", 0, 2, 12},
	{"alpha|beta|gamma|delta|epsilon|zeta|eta|theta|iota|kappa", 0,
	 "xx iota, theta, kappa", 0, 3, 7},
	{"alpha|beta|gamma|delta|epsilon|zeta|eta|theta|iota|kappa", 0,
	 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx the thet theta", 0, 40, 45},
	{"alpha|beta|gamma|delta|epsilon|zeta|eta|theta|iota|kappa", 0,
	 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx kapp kap zeta", 0, 40, 44},
	{"aa|bb|cc|dd|ee|ff|gg|hh|ii|jj|kk|ll|mm|nn|oo|pp|qq|rr", 0,
	 "abcdefghijklmnopqrstuvwxyz rr", 0, 27, 29},
	{"foo|\\d+", 0, "xx 42 foo", 0, 3, 5},
	{"foo|b", 0, "xb foo", 0, 1, 2},
	{"foo|", 0, "xfoo", 0, 0, 0},
	{"x(foo|bar)|baz", 0, "xbaz xbar", 0, 1, 4},
	{"\\b(foo|bar)\\b", 0, "foobar barx bar", 0, 12, 15},
	{"(ab|cd)|(ef|gh)", 0, "xxxxxxxxxxxxxxxxxxxxxxxgh", 0, 23, 25},
	{"foo|bar\\d", L, "bar\nfoo", 0, 4, 7},
	{"foo|bar\\d", L, "xxxxxxxxxxxxxxxxxxxxxxxx bar\n7 foo", 0, 31, 34},
	{"fo\\no|bar", L, "fo\no", 0, NO},
	{"a|b", F, "xa|b", 0, 1, 4},
	/* repetition */
	{"a*", 0, "aaab", 0, 0, 3},
	{"a*", 0, "baaa", 0, 0, 0},
	{"a+", 0, "baaa", 0, 1, 4},
	{"ba?", 0, "baa", 0, 0, 2},
	{"a{2}", 0, "aaaa", 0, 0, 2},
	{"a{2,}", 0, "aaaa", 0, 0, 4},
	{"a{2,3}", 0, "aaaa", 0, 0, 3},
	{"a{0}b", 0, "ab", 0, 1, 2},
	{"a{0,0}", 0, "a", 0, 0, 0},
	{"(ab){2}", 0, "abababab", 0, 0, 4},
	{"a{,2}", 0, "a{,2}", 0, 0, 5},
	{"a{", 0, "a{", 0, 0, 2},
	{"a{1", 0, "a{1", 0, 0, 3},
	{"a{1,2", 0, "a{1,2", 0, 0, 5},
	{"{", 0, "{", 0, 0, 1},
	{"x{1000}", 0, "x", 0, NO},
	/* lazy */
	{"a*?", 0, "aaa", 0, 0, 0},
	{"a+?", 0, "aaa", 0, 0, 1},
	{"a??b", 0, "ab", 0, 0, 2},
	{"a??", 0, "a", 0, 0, 0},
	{"a{2,3}?", 0, "aaaa", 0, 0, 2},
	{"a{2,}?", 0, "aaaa", 0, 0, 2},
	{"<.*?>", 0, "<a><b>", 0, 0, 3},
	{"<.*>", 0, "<a><b>", 0, 0, 6},
	{"(?U)<.*>", 0, "<a><b>", 0, 0, 3},
	{"(?U)<.*?>", 0, "<a><b>", 0, 0, 6},
	{"(?U)a+", 0, "aaa", 0, 0, 1},
	/* flags */
	{"(?i)hello", 0, "say HeLLo", 0, 4, 9},
	{"hello", I, "say HeLLo", 0, 4, 9},
	{"(?i:he)llo", 0, "HEllo HELLO", 0, 0, 5},
	{"(?i:he)llo", 0, "HELLO", 0, NO},
	{"(?i)he(?-i)llo", 0, "HELLO HEllo", 0, 6, 11},
	{"a(?i)b|c", 0, "C", 0, 0, 1},
	{"(a(?i)b)c", 0, "aBC", 0, NO},
	{"(?i)[a-c]+", 0, "xABCa", 0, 1, 5},
	{"(?i)[^a]", 0, "Ab", 0, 1, 2},
	{"(?i)\\p{Lu}+", 0, "abC", 0, 0, 3},
	{"(?ims)^A.B$", 0, "x\na\nb", 0, 2, 5},
	{"(?i)k", 0, "\xe2\x84\xaa", 0, 0, 3}, /* Kelvin sign */
	{"(?i)s", 0, "\xc5\xbf", 0, 0, 2},     /* long s */
	{"(?i)é", 0, "CAFÉ", 0, 3, 5},
	{"(?i)straße", 0, "STRAẞE", 0, 0, 8}, /* ß/ẞ: 2 vs 3 bytes */
	{"(?i)ß", 0, "ẞ", 0, 0, 3},
	{"(?i)σ", 0, "ΣΑς", 0, 0, 2},
	{"(?i)ς", 0, "Σ", 0, 0, 2},
	{"(?i)привет", 0, "ПРИВЕТ мир", 0, 0, 12},
	{"(?i)ÿ", 0, "Ÿ", 0, 0, 2},
	{"(?i)µ", 0, "Μ", 0, 0, 2},
	{"(?i)xyz", L, "a\nxYz\n", 0, 2, 5},
	/* RE_LITERAL */
	{"a.b*", F, "xa.b*", 0, 1, 5},
	{"a.b*", F, "axbb", 0, NO},
	{"(", F, "x(", 0, 1, 2},
	{"\\d", F, "5\\d", 0, 1, 3},
	{"ABC", F | I, "xabc", 0, 1, 4},
	{"Éa", F | I, "xéA", 0, 1, 4},
	{"a\nb", F | L, "a\nb", 0, NO},
	{"a\nb", F, "a\nb", 0, 0, 3},
	{"\xff\xfe", F, "a\xff\xfe", 0, 1, 3},
	{"", F, "abc", 1, 1, 1},
	/* RE_LINE semantics */
	{"a.*b", L, "a\nb ab", 0, 4, 6},
	{"a[^x]b", L, "a\nb", 0, NO},
	{"a\\sb", L, "a\nb", 0, NO},
	{"a\\nb", L, "a\nb", 0, NO},
	{"a\\nb", 0, "a\nb", 0, 0, 3},
	{"a\\Sb", L, "a\nb", 0, NO},
	{"x$", L, "ax\nbx", 0, 1, 2},
	{"\\Ax", L, "a\nx", 0, 2, 3},
	{"a\\z", L, "a\nb", 0, 0, 1},
	{"foo", L, "bar\nfoo\n", 0, 4, 7},
	{"foo", L, "bar\nfoo\nfoo", 5, 8, 11},
	{"[A-Z]+_SUSPEND", L, "x\nfoo BAR_SUSPEND\n", 0, 6, 17},
	{"[A-Z]+_SUSPEND", L, "x\nfoo bar_SUSPEND\n", 0, NO},
	{"\\w{3}\\d", L, "ab\n1c2\nxyz9", 0, 7, 11},
	{"^\\s*$", L, "a\n \nb", 0, 2, 3},
	/* runs: the DFA skips to where 21 bytes of \w (30 of [a-z], 7 of
	 * [0-9-]) in a row start, and must still find the earliest end */
	{"\\w{20}\\d", L, "int x = a_very_long_identifier_name;\n"
			  "y = abcdefghijklmnopqrst9;",
	 0, 41, 62},
	{"\\w{20}\\d", L, "abcdefghijklmnopqrstu abcdefghijklmnopqrs1", 0,
	 NO},
	{"\\w{20}\\d", 0, "x: 1234567890123456789012345", 0, 3, 24},
	{"\\w{20}\\d", 0, "x: 1234567890123456789012345", 5, 5, 26},
	{"\\w{20}\\d", L, "ab cd\nabcdefghijklmnopqrstuvwxyz0\n", 0, 12, 33},
	{"[a-z]{30}", L, "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA "
			 "abcdefghijklmnopqrstuvwxyzabcd!",
	 0, 41, 71},
	{"[a-z]{30}", I, "ABCDEFGHIJKLMNOPQRSTUVWXYZABC, "
			 "ABCDEFGHIJKLMNOPQRSTUVWXYZABCD",
	 0, 31, 61},
	{"\\d{4}-\\d{2}", L, "12-34 1234-5 2024-11-26", 0, 13, 20},
	{"\\b\\d{4}-\\d{2}", L, "x2024-11 2024-11", 0, 9, 16},
	{"^\\d{4}-\\d{2}", L, "a 2024-11\n2024-1\n2024-12", 0, 17, 24},
	{"(?:ab\\d){3}x", 0, "ab1ab2ab3 ab1ab2ab3x", 0, 10, 20},
	{"\\w{5}\\B", 0, "abcd abcde abcdef", 0, 11, 16},
	{"\\w{5}\\b", 0, "abcd \xff\xff"
			 "abcde",
	 0, 7, 12},
	{"\\w{5}", 0, "h\xc3\xa9llo wo\xe2\x82rld world", 0, 15, 20},
	/* classes with other characters: their bytes are 80-ff */
	{"(?i)\\w{20}\\d", 0, "xx \xe2\x84\xaa"
			      "bcdefghijklmnopqrst1",
	 0, 3, 26},
	{"[a-c\xc3\xa9]{8}", L, "abc\xc3\xa9\xc3\xa9 ab\xc3\xa9\xc3\xa9\xc3\xa9"
				"cab",
	 0, 8, 19},
	/* the DFA idles at every 'a' inside a run it already found */
	{"[bc][a-c]{5}", 0, "aaaaaaaaaaaaaaaaaaaabcccccc", 0, 20, 26},
	{"[bc][a-c]{5}", L, "aaaaaaaaaaaaaaaaaaaacbcaca\nbaaaaa", 0, 20, 26},
	{"[bc][a-c]{5}", 0, "aaaaaaaaaaaaaaaaaaaacbca", 0, NO},
	{"(?-m)^b", L, "a\nb", 0, 2, 3},
	/* from offsets */
	{"a", 0, "aaa", 1, 1, 2},
	{"a", 0, "aaa", 3, NO},
	{"ab", 0, "abab", 1, 2, 4},
	{"\\bb", 0, "ab b", 1, 3, 4},
	{"\\Bb", 0, "ab b", 1, 1, 2},
	{"(?m)^b", 0, "a\nb", 2, 2, 3},
	{"^", L, "a\nb", 1, 2, 2},
	{"$", L, "a\nb", 1, 1, 1},
	{"\\Ab", 0, "ab", 1, NO},
	/* empty matches */
	{"x*", 0, "", 0, 0, 0},
	{"(a*)*", 0, "b", 0, 0, 0},
	{"(a*)+", 0, "b", 0, 0, 0},
	{"(a*|b)*", 0, "ab", 0, 0, 2},
	{"(a|b)*?c", 0, "abc", 0, 0, 3},
	{"(|a)*", 0, "aa", 0, 0, 2}, /* as Go (issue 46123) */
	{"(|a)+", 0, "aa", 0, 0, 0},
	{"(a|)+", 0, "aa", 0, 0, 2},
	{"(?:a*)*b", 0, "aab", 0, 0, 3},
	/* pathological: must be linear */
	{"(a*)*b", 0, NULL, 0, NO},
	{"(a|aa)*c", 0, NULL, 0, NO},
	{"(x+x+)+y", 0, NULL, 0, NO},
	{"(?:a?){30}a{30}", 0, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 0, 0, 30},
	{"[a-q][^u-z]{13}x", 0, NULL, 0, NO},
	{"(?:b|c)\\w{999}", 0, NULL, 0, NO}, /* idles at each byte of a run */
	/* errors */
	{"foo(bar", 0, "", 0, ERR, 0, "missing closing ): at position 7"},
	{"foo)bar", 0, "", 0, ERR, 0, "unexpected ): at position 3"},
	{"[abc", 0, "", 0, ERR, 0, "missing closing ]"},
	{"[]", 0, "", 0, ERR, 0, "missing closing ]"},
	{"[z-a]", 0, "", 0, ERR, 0, "invalid character class range"},
	{"[a-\\d]", 0, "", 0, ERR, 0, "invalid character class range"},
	{"*a", 0, "", 0, ERR, 0, "missing argument to repetition operator"},
	{"a|*", 0, "", 0, ERR, 0, "nothing to repeat"},
	{"(+)", 0, "", 0, ERR, 0, "missing argument"},
	{"{2}", 0, "", 0, ERR, 0, "missing argument"},
	{"a**", 0, "", 0, ERR, 0, "invalid nested repetition operator: `**`"},
	{"a*+", 0, "", 0, ERR, 0, "possessive quantifier `*+`"},
	{"a++", 0, "", 0, ERR, 0, "possessive"},
	{"a{2}{3}", 0, "", 0, ERR, 0, "nested repetition"},
	{"a{1001}", 0, "", 0, ERR, 0, "invalid repeat count"},
	{"a{2,1}", 0, "", 0, ERR, 0, "invalid repeat count"},
	{"a{0,1001}", 0, "", 0, ERR, 0, "invalid repeat count"},
	{"(a)\\1", 0, "", 0, ERR, 0, "backreferences are not supported"},
	{"\\k<a>", 0, "", 0, ERR, 0, "backreferences"},
	{"(?=a)", 0, "", 0, ERR, 0, "lookahead"},
	{"(?!a)", 0, "", 0, ERR, 0, "lookahead"},
	{"(?<=a)", 0, "", 0, ERR, 0, "lookbehind"},
	{"(?<!a)", 0, "", 0, ERR, 0, "lookbehind"},
	{"\\C", 0, "", 0, ERR, 0, "\\C"},
	{"\\Z", 0, "", 0, ERR, 0, "\\Z is not supported"},
	{"\\q", 0, "", 0, ERR, 0, "invalid escape sequence: `\\q`"},
	{"a\\", 0, "", 0, ERR, 0, "trailing backslash"},
	{"\\x{110000}", 0, "", 0, ERR, 0, "invalid escape"},
	{"\\xZ1", 0, "", 0, ERR, 0, "invalid escape"},
	{"\\p{Foo}", 0, "", 0, ERR, 0, "unknown Unicode class"},
	{"[[:foo:]]", 0, "", 0, ERR, 0, "invalid POSIX class"},
	{"(?P<>a)", 0, "", 0, ERR, 0, "invalid named capture"},
	{"(?P<a-b>x)", 0, "", 0, ERR, 0, "invalid named capture"},
	/* Go 1.23 takes a name twice */
	{"(?P<n>a)(?P<n>b)", 0, "ab", 0, 0, 2},
	{"(?P<n", 0, "", 0, ERR, 0, "invalid named capture"},
	{"(?x)a", 0, "", 0, ERR, 0, "invalid or unsupported group syntax"},
	{"(?i", 0, "", 0, ERR, 0, "missing closing )"},
	{"(?)", 0, "x", 0, 0, 0},
	{"a(?)b", 0, "ab", 0, 0, 2},
	{"(?-)", 0, "", 0, ERR, 0, "unsupported group"},
	{"(?i-)", 0, "", 0, ERR, 0, "unsupported group"},
	{"(?i-)", 0, "", 0, ERR, 0, "unsupported group"},
	{"[\\b]", 0, "", 0, ERR, 0, "invalid escape"},
	{"\\pL{1000}\\pL{1000}", 0, "", 0, ERR, 0, "pattern too large"},
	/* Go: nested counts may make at most 1000 copies */
	{"((a{100}){100}){100}", 0, "", 0, ERR, 0, "invalid repeat count"},
	{"(?:a{2}){501}", 0, "", 0, ERR, 0, "invalid repeat count `{501}`"},
	{"(?:a{2}){500}", 0, "aa", 0, NO},
	{"(?:a{2}){2}", 0, "aaaaa", 0, 0, 4},
	{"(?:a{0}){1000}(?:a*){1000}b", 0, "aab", 0, 0, 3},
	{"(?:a+){1000}", 0, "aa", 0, NO},
	{"(?:a{2,}){501}", 0, "", 0, ERR, 0, "invalid repeat count"},
	{"[[:a:b:]]", 0, "", 0, ERR, 0, "invalid POSIX class name: `[:a:b:]`"},
	{"[[:alpha:]:]]", 0, "x:]", 0, 1, 3},
	{"[[:alpha]", 0, "a", 0, 0, 1},
	{"a\xff", 0, "", 0, ERR, 0, "invalid UTF-8"},
	{"x(y", 0, "", 0, ERR, 0, "in \"x(y\""},
	{"((((((((((((((((((((((((((((((((((((((((((((((((((a)))))))))))))"
	 ")))))))))))))))))))))))))))))))))))))",
	 0, "a", 0, 0, 1},
};

static int failed, passed;

static void report(int ok, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#include <stdarg.h>
static void report(int ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		printf("ok %s\n", name);
		passed++;
		return;
	}
	printf("FAIL %s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	failed++;
}

/* Inputs for the pathological rows: long runs that never match. */
static char *patho_input(const char *pat, size_t *n)
{
	size_t len = 100000, i;
	char *s = malloc(len + 1);
	char c = 'a';

	if (strstr(pat, "x+x+"))
		c = 'x';
	for (i = 0; i < len; i++)
		s[i] = c;
	if (pat[0] == '[') {
		for (i = 0; i < len; i++)
			s[i] = "abcdefghijklmnop"[i % 16];
	}
	s[len] = 0;
	*n = len;
	return s;
}

static void run_one(int idx, const struct tc *t, unsigned extra)
{
	char name[160], err[256];
	struct re *re;
	size_t n, ms = 0, me = 0, me2 = 0;
	char *in, *owned = NULL;
	int r, r2, k;

	snprintf(name, sizeof(name), "re/%d%s /%.60s/%s%s%s", idx,
		 extra ? "/pike" : "", t->pat, t->fl & I ? "i" : "",
		 t->fl & L ? "l" : "", t->fl & F ? "f" : "");
	for (k = 0; name[k]; k++)
		if ((unsigned char)name[k] < 0x20)
			name[k] = '?';
	re = re_compile(t->pat, strlen(t->pat), t->fl | extra, err,
			sizeof(err));
	if (t->ms == ERR) {
		report(!re && !strncmp(err, "invalid regex: ", 15) &&
			       strstr(err, t->errpart),
		       name, "want error containing '%s', got %s", t->errpart,
		       re ? "a compiled regex" : err);
		re_free(re);
		return;
	}
	if (!re) {
		report(0, name, "compile: %s", err);
		return;
	}
	in = (char *)t->in;
	if (!in)
		in = owned = patho_input(t->pat, &n);
	else
		n = strlen(in);
	r = re_search(re, in, n, (size_t)t->from, &ms, &me);
	r2 = re_search(re, in, n, (size_t)t->from, NULL, &me2);
	if (t->ms == NO)
		report(r == 0 && r2 == 0, name, "want no match, got %d [%zu,%zu)"
						" / fast %d",
		       r, ms, me, r2);
	else
		report(r == 1 && ms == (size_t)t->ms && me == (size_t)t->me &&
			       r2 == 1 && me2 >= ms && me2 <= me,
		       name, "want [%d,%d), got %d [%zu,%zu), fast %d at %zu",
		       t->ms, t->me, r, ms, me, r2, me2);
	free(owned);
	re_free(re);
}

static unsigned rnd(unsigned m)
{
	static unsigned long long rng = 7;

	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return (unsigned)(rng >> 33) % m;
}

/* The DFA against the Pike VM on every match of pat in text: 0 when they
 * agree, 1 when they differ, -1 when pat does not compile. */
static int dfa_pike_differ(const char *pat, const char *text, size_t n, unsigned fl)
{
	char err[256];
	size_t ms, me, ms2, me2, pos;
	int r, r2, bad = 0;
	struct re *re = re_compile(pat, strlen(pat), fl, err, sizeof(err));
	struct re *pike = re_compile(pat, strlen(pat), fl | RE_DEBUG_PIKE, err, sizeof(err));

	for (pos = 0; re && pike && pos <= n && !bad; pos = me2 + 1) {
		r = re_search(re, text, n, pos, &ms, &me);
		r2 = re_search(pike, text, n, pos, &ms2, &me2);
		bad = r != r2 || (r == 1 && (ms != ms2 || me != me2));
		if (!bad && r == 1 && re_search(re, text, n, pos, NULL, &me) == 1)
			bad = me < ms2 || me > me2;
		if (r != 1)
			break;
	}
	if (!re || !pike)
		bad = -1;
	re_free(re);
	re_free(pike);
	return bad;
}

/* Random alternations of short literals over a small alphabet against
 * long random text: the prefilter's answer must be the Pike VM's. */
static void random_sets(void)
{
	static const char alpha[] = "abAB_\n";
	char pat[128], text[300];
	size_t k, n;
	unsigned fl;
	int c, j, bad = 0;

	for (c = 0; c < 3000 && !bad; c++) {
		k = 0;
		for (j = rnd(12) + 2; j > 0; j--) {
			for (n = rnd(4) + 2; n > 0; n--)
				pat[k++] = alpha[rnd(5)];
			pat[k++] = '|';
		}
		pat[--k] = 0;
		n = rnd(sizeof(text));
		for (k = 0; k < n; k++)
			text[k] = alpha[rnd(rnd(2) ? 6 : 3)];
		fl = (rnd(2) ? RE_ICASE : 0) | (rnd(2) ? RE_LINE : 0);
		bad = dfa_pike_differ(pat, text, n, fl) == 1;
	}
	report(!bad, "re/random-sets", "/%s/%u on \"%.*s\"", pat, fl,
	       (int)n, text);
}

/* Random patterns that start with runs of ASCII sets (and some that do
 * not) against random text: the DFA, which skips to where a run starts,
 * must agree with the Pike VM on every match. */
static void random_runs(void)
{
	static const char *const item[] = {
		"[a-c]", "\\d", "\\w", "x", "[a-c_1]", "[a-c\xc3\xa9]", "\\b",
		"^", "\\B", "$", ".", "\xc3\xa9", "(?:a\\d)", "\\s", "[^a]"};
	static const char *const rep[] = {"", "", "{3}", "{2,4}", "+", "*",
					  "{5}", "?"};
	static const char alpha[] = "abc_x19 \n\xc3\xa9\xff";
	char pat[128], text[300];
	size_t k, n;
	unsigned fl;
	int c, j, bad = 0;

	for (c = 0; c < 3000 && !bad; c++) {
		pat[0] = 0;
		for (j = rnd(4) + 1; j > 0; j--) {
			strcat(pat, item[rnd(rnd(3) ? 6 : 15)]);
			strcat(pat, rep[rnd(8)]);
		}
		n = rnd(sizeof(text));
		for (k = 0; k < n; k++)
			text[k] = alpha[rnd(rnd(4) ? 8 : sizeof(alpha) - 1)];
		fl = (rnd(2) ? RE_ICASE : 0) | (rnd(2) ? RE_LINE : 0);
		bad = dfa_pike_differ(pat, text, n, fl) != 0;
	}
	report(!bad, "re/random-runs", "/%s/%u on \"%.*s\"", pat, fl,
	       (int)n, text);
}

static void misc_tests(void)
{
	char err[256];
	struct re *re, *cl;
	size_t ms, me, i;
	char *big;
	int r;

	/* re_clone gives an independent, working copy */
	re = re_compile("b+c", 3, 0, err, sizeof(err));
	cl = re ? re_clone(re) : NULL;
	re_free(re);
	r = cl ? re_search(cl, "abbc", 4, 0, &ms, &me) : -1;
	report(r == 1 && ms == 1 && me == 4, "re/clone", "r=%d", r);
	re_free(cl);

	/* error message format, exactly */
	re = re_compile("foo(bar", 7, 0, err, sizeof(err));
	report(!re && !strcmp(err, "invalid regex: missing closing ): at "
				   "position 7 in \"foo(bar\""),
	       "re/errmsg", "%s", err);

	/* a long buffer with RE_LINE: many lines, match on the last */
	big = malloc(1 << 20);
	for (i = 0; i < (1 << 20); i++)
		big[i] = (i % 61 == 60) ? '\n' : "abcdefgh"[i % 8];
	memcpy(big + (1 << 20) - 20, "xx FOO_SUSPEND yy\n", 18);
	re = re_compile("[A-Z]+_SUSPEND", 14, RE_LINE, err, sizeof(err));
	r = re_search(re, big, 1 << 20, 0, &ms, &me);
	report(r == 1 && ms == (1 << 20) - 17 && me == (1 << 20) - 6,
	       "re/bigline", "r=%d %zu %zu", r, ms, me);
	r = re_search(re, big, 1 << 20, 0, NULL, &me);
	report(r == 1 && me >= (1 << 20) - 17 && me <= (1 << 20) - 6,
	       "re/bigline-fast", "r=%d %zu", r, me);
	re_free(re);
	/* iterate matches like grep: one per line */
	re = re_compile("(?i)ABC", 7, RE_LINE, err, sizeof(err));
	{
		const char *s = "abc\nxx\nxABcx\nABD\nabC";
		size_t pos = 0, n = strlen(s), cnt = 0;

		while (re_search(re, s, n, pos, NULL, &me) == 1) {
			cnt++;
			while (me < n && s[me] != '\n')
				me++;
			pos = me + 1;
			if (pos > n)
				break;
		}
		report(cnt == 3, "re/iterate-lines", "cnt=%zu", cnt);
	}
	re_free(re);
	free(big);
	random_sets();
	random_runs();
}

int main(void)
{
	size_t i;

	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		run_one((int)i, &tests[i], 0);
		if (tests[i].ms != ERR)
			run_one((int)i, &tests[i], RE_DEBUG_PIKE);
	}
	misc_tests();
	return failed != 0;
}
