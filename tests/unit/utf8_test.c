/* utf8_test.c - UTF-8 validation and decoding with Go's rules */
#include "unit.h"
#include "utf8.h"

struct vcase {
	const char *s;
	size_t n;
	int valid;
};
#define V(s, v)                     \
	{                           \
		s, sizeof(s) - 1, v \
	}

static const struct vcase valid_cases[] = {
	V("", 1),
	V("a", 1),
	V("\0", 1),
	V("a\0b\0", 1),
	V("\x7f", 1),
	V("\xc2\x80", 1),         /* U+0080 */
	V("\xdf\xbf", 1),         /* U+07FF */
	V("\xe0\xa0\x80", 1),     /* U+0800 */
	V("\xed\x9f\xbf", 1),     /* U+D7FF */
	V("\xee\x80\x80", 1),     /* U+E000 */
	V("\xef\xbf\xbd", 1),     /* U+FFFD */
	V("\xef\xbf\xbf", 1),     /* U+FFFF */
	V("\xf0\x90\x80\x80", 1), /* U+10000 */
	V("\xf4\x8f\xbf\xbf", 1), /* U+10FFFF */
	V("\xef\xbb\xbf"
	  "BOM",
	  1),
	V("h\xc3\xa9llo w\xc3\xb6rld \xe2\x82\xac \xf0\x9f\x98\x80", 1),
	/* stray continuation bytes and bad leads */
	V("\x80", 0),
	V("\xbf", 0),
	V("a\x80", 0),
	V("\xc0", 0),
	V("\xfe", 0),
	V("\xff", 0),
	V("\xf5\x80\x80\x80", 0),
	V("\xf8\x88\x80\x80\x80", 0),
	V("\xfc\x84\x80\x80\x80\x80", 0),
	/* overlongs */
	V("\xc0\x80", 0),
	V("\xc0\xaf", 0),
	V("\xc1\xbf", 0),
	V("\xe0\x80\x80", 0),
	V("\xe0\x9f\xbf", 0),
	V("\xf0\x80\x80\x80", 0),
	V("\xf0\x8f\xbf\xbf", 0),
	/* UTF-16 surrogates */
	V("\xed\xa0\x80", 0),
	V("\xed\xad\xbf", 0),
	V("\xed\xb0\x80", 0),
	V("\xed\xbf\xbf", 0),
	V("\xed\xa0\xbd\xed\xb8\x80", 0),
	/* above U+10FFFF */
	V("\xf4\x90\x80\x80", 0),
	V("\xf7\xbf\xbf\xbf", 0),
	/* truncated sequences */
	V("\xc2", 0),
	V("\xe0\xa0", 0),
	V("\xe2\x82", 0),
	V("\xf0\x90\x80", 0),
	V("\xf0\x9f\x98", 0),
	V("abc\xc3", 0),
	V("\xc3"
	  "a",
	  0),
	V("\xe2\x82"
	  "a",
	  0),
	V("\xf0\x9f\x98"
	  "a",
	  0),
	V("\xe2\x28\xa1", 0),
};

struct dcase {
	const char *s;
	size_t n;
	int len, cp;
};
#define D(s, l, c)                     \
	{                              \
		s, sizeof(s) - 1, l, c \
	}

static const struct dcase decode_cases[] = {
	D("A", 1, 'A'),
	D("\0", 1, 0),
	D("\xc3\xa9", 2, 0xe9),
	D("\xe2\x82\xac", 3, 0x20ac),
	D("\xf0\x9f\x98\x80", 4, 0x1f600),
	D("\xf4\x8f\xbf\xbf", 4, 0x10ffff),
	D("\xc3\xa9xyz", 2, 0xe9),
	D("\x80", 1, -1),
	D("\xc0\x80", 1, -1),
	D("\xed\xa0\x80", 1, -1),
	D("\xf4\x90\x80\x80", 1, -1),
	D("\xe2\x82", 1, -1),
	D("\xff", 1, -1),
};

int main(void)
{
	char buf[64];
	size_t i, pos;

	for (i = 0; i < sizeof(valid_cases) / sizeof(valid_cases[0]); i++) {
		const struct vcase *c = &valid_cases[i];
		unit_check_int(unit_name("utf8.valid%s", unit_show(c->s, c->n)), c->valid,
			       utf8_valid(c->s, c->n) != 0);
	}
	/* The same sequences at every offset in ASCII (the 8-byte fast path
	 * must not skip or misalign them). */
	for (i = 0; i < sizeof(valid_cases) / sizeof(valid_cases[0]); i++) {
		const struct vcase *c = &valid_cases[i];
		int bad = 0;
		for (pos = 0; pos < 24 && !bad; pos++) {
			memset(buf, 'x', sizeof(buf));
			memcpy(buf + pos, c->s, c->n);
			if ((utf8_valid(buf, pos + c->n + 8) != 0) != c->valid)
				bad = 1;
			/* truncated right after the sequence */
			if ((utf8_valid(buf, pos + c->n) != 0) != c->valid)
				bad = 2;
		}
		if (bad)
			unit_fail(unit_name("utf8.valid.offsets%s", unit_show(c->s, c->n)),
				  "wrong at offset %zu (%s)", pos - 1,
				  bad == 1 ? "inside ASCII" : "at the end");
		else
			unit_ok(unit_name("utf8.valid.offsets%s", unit_show(c->s, c->n)));
	}
	/* n limits the check: a valid prefix of an invalid buffer. */
	unit_check_int("utf8.valid.length_bound", 1, utf8_valid("abc\xff", 3) != 0);
	unit_check_int("utf8.valid.cut_sequence", 0, utf8_valid("ab\xc3\xa9", 3) != 0);

	for (i = 0; i < sizeof(decode_cases) / sizeof(decode_cases[0]); i++) {
		const struct dcase *c = &decode_cases[i];
		int cp = 12345, len = utf8_decode(c->s, c->n, &cp);
		const char *name = unit_name("utf8.decode%s", unit_show(c->s, c->n));
		if (len == c->len && cp == c->cp)
			unit_ok(name);
		else
			unit_fail(name, "got length %d code point %d, want %d %d", len, cp,
				  c->len, c->cp);
	}
	/* A multibyte sequence cut by n is invalid even if the bytes follow. */
	{
		int cp = 0, len = utf8_decode("\xc3\xa9", 1, &cp);
		unit_check_int("utf8.decode.cut_by_n", 1, len == 1 && cp == -1);
	}
	/* Every code point encodes and validates; surrogates do not. */
	{
		unsigned cp;
		int bad = 0;
		for (cp = 0; cp <= 0x10ffff && !bad; cp++) {
			char e[4];
			size_t n;
			int got = -2, len;
			if (cp < 0x80) {
				e[0] = (char)cp;
				n = 1;
			} else if (cp < 0x800) {
				e[0] = (char)(0xc0 | cp >> 6);
				e[1] = (char)(0x80 | (cp & 63));
				n = 2;
			} else if (cp < 0x10000) {
				e[0] = (char)(0xe0 | cp >> 12);
				e[1] = (char)(0x80 | ((cp >> 6) & 63));
				e[2] = (char)(0x80 | (cp & 63));
				n = 3;
			} else {
				e[0] = (char)(0xf0 | cp >> 18);
				e[1] = (char)(0x80 | ((cp >> 12) & 63));
				e[2] = (char)(0x80 | ((cp >> 6) & 63));
				e[3] = (char)(0x80 | (cp & 63));
				n = 4;
			}
			len = utf8_decode(e, n, &got);
			if (cp >= 0xd800 && cp < 0xe000)
				bad = utf8_valid(e, n) || got != -1 || len != 1;
			else
				bad = !utf8_valid(e, n) || got != (int)cp || len != (int)n;
		}
		if (bad)
			unit_fail("utf8.all_code_points", "wrong at U+%04X", cp - 1);
		else
			unit_ok("utf8.all_code_points");
	}
	return unit_done();
}
