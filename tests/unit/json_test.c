/* json_test.c - the JSON writer and parser (include/json.h)
 *
 * Expected values follow Go's encoding/json, up to the forms the contract
 * lets differ (PROTOCOL.md: the same value, not the same bytes).
 */
#include <limits.h>
#include <stdlib.h>
#include "json.h"
#include "unit.h"

/* Forms that encode the same value, mapped to one spelling before
 * comparing: \b \f and their \u forms; U+2028, U+2029, U+FFFD raw or
 * escaped. */
static char *canon(const char *s, size_t n, size_t *outn)
{
	char *o = malloc(n * 6 + 1);
	size_t i, w = 0;

	for (i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 1 < n && (s[i + 1] == 'b' || s[i + 1] == 'f')) {
			w += (size_t)sprintf(o + w, "\\u%04x", s[i + 1] == 'b' ? 8 : 12);
			i++;
		} else if (s[i] == '\\' && i + 1 < n) {
			o[w++] = s[i++];
			o[w++] = s[i];
		} else if (i + 2 < n && !memcmp(s + i, "\xe2\x80\xa8", 3)) {
			w += (size_t)sprintf(o + w, "\\u2028");
			i += 2;
		} else if (i + 2 < n && !memcmp(s + i, "\xe2\x80\xa9", 3)) {
			w += (size_t)sprintf(o + w, "\\u2029");
			i += 2;
		} else if (i + 2 < n && !memcmp(s + i, "\xef\xbf\xbd", 3)) {
			w += (size_t)sprintf(o + w, "\\ufffd");
			i += 2;
		} else {
			o[w++] = s[i];
		}
	}
	/* hex digits of \u escapes in one case */
	for (i = 0; i + 5 < w; i++)
		if (o[i] == '\\' && o[i + 1] == 'u') {
			size_t k;
			for (k = 2; k < 6; k++)
				if (o[i + k] >= 'A' && o[i + k] <= 'F')
					o[i + k] = (char)(o[i + k] - 'A' + 'a');
			i += 5;
		}
	o[w] = 0;
	*outn = w;
	return o;
}

static void check_str_out(const char *name, const char *in, size_t n,
			  const char *want)
{
	struct buf b;
	size_t gn, wn;
	char *g, *w;

	buf_init(&b);
	json_str(&b, in, n);
	g = canon(b.p ? b.p : "", b.len, &gn);
	w = canon(want, strlen(want), &wn);
	unit_check_mem(name, w, wn, g, gn);
	free(g);
	free(w);
	buf_free(&b);
}

struct wcase {
	const char *in;
	size_t n;
	const char *want;
};
#define W(s, w)                     \
	{                           \
		s, sizeof(s) - 1, w \
	}

static const struct wcase writer_cases[] = {
	W("", "\"\""),
	W("abc", "\"abc\""),
	W("a\"b", "\"a\\\"b\""),
	W("a\\b", "\"a\\\\b\""),
	W("a/b", "\"a/b\""),
	W("l1\nl2", "\"l1\\nl2\""),
	W("cr\r", "\"cr\\r\""),
	W("\ttab", "\"\\ttab\""),
	W("\b\f", "\"\\u0008\\u000c\""),
	W("\x01\x1f", "\"\\u0001\\u001f\""),
	W("a\0b", "\"a\\u0000b\""),
	W("\x7f", "\"\x7f\""),
	W(" ~", "\" ~\""),
	/* valid UTF-8 passes through */
	W("\xc3\xa9", "\"\xc3\xa9\""),
	W("\xe2\x82\xac", "\"\xe2\x82\xac\""),
	W("\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\""),
	W("\xf4\x8f\xbf\xbf", "\"\xf4\x8f\xbf\xbf\""),
	W("\xef\xbb\xbf", "\"\xef\xbb\xbf\""),
	W("\xe2\x80\xa8\xe2\x80\xa9", "\"\\u2028\\u2029\""),
	/* invalid UTF-8: one U+FFFD per bad byte, as Go's DecodeRune */
	W("\xff", "\"\\ufffd\""),
	W("a\x80"
	  "b",
	  "\"a\\ufffdb\""),
	W("a\xc3", "\"a\\ufffd\""),
	W("\xe2\x82", "\"\\ufffd\\ufffd\""),
	W("\xe2\x82x", "\"\\ufffd\\ufffdx\""),
	W("\xc0\xaf", "\"\\ufffd\\ufffd\""),
	W("\xc1\xbf", "\"\\ufffd\\ufffd\""),
	W("\xe0\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\""),
	W("\xf0\x80\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\\ufffd\""),
	W("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\""),
	W("\xed\xbf\xbf", "\"\\ufffd\\ufffd\\ufffd\""),
	W("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\""),
	W("\xf5\x80\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\""),
	W("\xfe", "\"\\ufffd\""),
	W("\xf0\x9f\x98", "\"\\ufffd\\ufffd\\ufffd\""),
	W("x\xf0\x9f\x98\x80\xff", "\"x\xf0\x9f\x98\x80\\ufffd\""),
};

static void test_writer(void)
{
	struct buf b;
	size_t i;

	for (i = 0; i < sizeof(writer_cases) / sizeof(writer_cases[0]); i++) {
		const struct wcase *c = &writer_cases[i];
		check_str_out(unit_name("json.str[%zu]%s", i, unit_show(c->in, c->n)),
			      c->in, c->n, c->want);
	}

	buf_init(&b);
	json_cstr(&b, "k\"");
	unit_check_mem("json.cstr", "\"k\\\"\"", 5, b.p, b.len);
	buf_reset(&b);
	json_int(&b, 0);
	buf_putc(&b, ',');
	json_int(&b, -1);
	buf_putc(&b, ',');
	json_int(&b, LLONG_MAX);
	buf_putc(&b, ',');
	json_int(&b, LLONG_MIN);
	unit_check_str("json.int", "0,-1,9223372036854775807,-9223372036854775808", b.p);
	buf_reset(&b);
	json_bool(&b, 1);
	json_bool(&b, 0);
	json_bool(&b, 7);
	unit_check_str("json.bool", "truefalsetrue", b.p);
	buf_free(&b);

	/* A long string: every byte kept, in order. */
	{
		size_t n = 1 << 20, k;
		char *s = malloc(n);
		for (k = 0; k < n; k++)
			s[k] = (char)('a' + k % 26);
		buf_init(&b);
		json_str(&b, s, n);
		if (b.len == n + 2 && b.p[0] == '"' && !memcmp(b.p + 1, s, n) &&
		    b.p[n + 1] == '"')
			unit_ok("json.str.1MiB");
		else
			unit_fail("json.str.1MiB", "length %zu, want %zu", b.len, n + 2);
		buf_free(&b);
		free(s);
	}
}

/* ---- parser ---- */

static int parse(struct arena *a, const char *s, size_t n, struct json_val *v,
		 char *err)
{
	err[0] = 0;
	return json_parse(a, s, n, v, err, 256);
}

struct scase {
	const char *in;
	size_t n;
	const char *want;
	size_t wn;
};
#define S(s, w)                                    \
	{                                          \
		s, sizeof(s) - 1, w, sizeof(w) - 1 \
	}

/* A JSON string literal and the bytes it decodes to (Go's Unmarshal). */
static const struct scase string_cases[] = {
	S("\"\"", ""),
	S("\"abc\"", "abc"),
	S("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"", "\"\\/\b\f\n\r\t"),
	S("\"\\u0041\"", "A"),
	S("\"\\u00e9\\u00E9\"", "\xc3\xa9\xc3\xa9"),
	S("\"\\u20ac\"", "\xe2\x82\xac"),
	S("\"\\u0000x\"", "\0x"),
	S("\"\\ud83d\\ude00\"", "\xf0\x9f\x98\x80"),
	S("\"\\uD83D\\uDE00\"", "\xf0\x9f\x98\x80"),
	S("\"\\udbff\\udfff\"", "\xf4\x8f\xbf\xbf"),
	/* lone or mismatched surrogates become U+FFFD */
	S("\"\\ud800\"", "\xef\xbf\xbd"),
	S("\"\\udc00\"", "\xef\xbf\xbd"),
	S("\"\\ud800x\"", "\xef\xbf\xbdx"),
	S("\"\\ud800\\u0041\"", "\xef\xbf\xbd"
				"A"),
	S("\"\\ud800\\ud800\\udc00\"", "\xef\xbf\xbd\xf0\x90\x80\x80"),
	S("\"\\ude00\\ud83d\"", "\xef\xbf\xbd\xef\xbf\xbd"),
	/* raw UTF-8 kept, invalid bytes become U+FFFD */
	S("\"\xc3\xa9\"", "\xc3\xa9"),
	S("\"\xf0\x9f\x98\x80\"", "\xf0\x9f\x98\x80"),
	S("\"a\xff"
	  "b\"",
	  "a\xef\xbf\xbd"
	  "b"),
	S("\"\xc0\xaf\"", "\xef\xbf\xbd\xef\xbf\xbd"),
	S("\"\xed\xa0\x80\"", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"),
	S("\"\x7f\"", "\x7f"),
};

static const char *bad_inputs[] = {
	"",
	"   ",
	"{",
	"}",
	"[",
	"[1,]",
	"[1 2]",
	"{\"a\"}",
	"{\"a\":}",
	"{\"a\":1,}",
	"{a:1}",
	"{'a':1}",
	"{\"a\" 1}",
	"{\"a\":1 \"b\":2}",
	"tru",
	"truex",
	"nul",
	"True",
	"01",
	"1.",
	"-",
	".5",
	"+1",
	"1e",
	"1e+",
	"0x10",
	"\"abc",
	"\"\\x\"",
	"\"\\u12\"",
	"\"\\u12g4\"",
	"\"\\",
	"\"a\nb\"",
	"\"a\tb\"",
	"{} x",
	"{}{}",
	"[1]]",
	"NaN",
};

static void test_parser(void)
{
	struct arena a;
	struct json_val v;
	const struct json_val *m;
	char err[256];
	size_t i;

	arena_init(&a);

	for (i = 0; i < sizeof(string_cases) / sizeof(string_cases[0]); i++) {
		const struct scase *c = &string_cases[i];
		const char *name = unit_name("json.parse.str[%zu]%s", i, unit_show(c->in, c->n));
		if (parse(&a, c->in, c->n, &v, err))
			unit_fail(name, "parse error: %s", err);
		else if (v.type != JSON_STR)
			unit_fail(name, "type %d, want a string", v.type);
		else
			unit_check_mem(name, c->want, c->wn, v.str, v.len);
	}

	for (i = 0; i < sizeof(bad_inputs) / sizeof(bad_inputs[0]); i++) {
		const char *name = unit_name("json.parse.error[%s]",
					     unit_show(bad_inputs[i], strlen(bad_inputs[i])));
		if (!parse(&a, bad_inputs[i], strlen(bad_inputs[i]), &v, err))
			unit_fail(name, "parsed, want an error");
		else if (!err[0])
			unit_fail(name, "error without a message");
		else
			unit_ok(name);
	}
	/* A NUL byte outside a string is not whitespace. */
	if (!parse(&a, "{}\0", 3, &v, err))
		unit_fail("json.parse.error[trailing NUL]", "parsed, want an error");
	else
		unit_ok("json.parse.error[trailing NUL]");
	/* The message says where. */
	if (!parse(&a, "{\"a\":1,", 7, &v, err) || !strstr(err, "offset"))
		unit_fail("json.parse.error.offset", "message %s has no offset", err);
	else
		unit_ok("json.parse.error.offset");

	/* Deep nesting is an error, not a crash. */
	{
		size_t n = 100000;
		char *deep = malloc(n);
		memset(deep, '[', n);
		if (!parse(&a, deep, n, &v, err))
			unit_fail("json.parse.deep", "parsed 100000 open brackets");
		else
			unit_ok("json.parse.deep");
		free(deep);
	}

	/* Values and types. */
	{
		const char *s = " \t\r\n{ \"s\" : \"x\" , \"n\" : -1.5e3 , \"t\" : true ,"
				" \"f\" : false , \"z\" : null , \"a\" : [ 1 , [ ] , { } ] ,"
				" \"o\" : { \"k\" : 0 } } \n";
		if (parse(&a, s, strlen(s), &v, err)) {
			unit_fail("json.parse.values", "parse error: %s", err);
		} else {
			unit_check_int("json.parse.values.obj", JSON_OBJ, v.type);
			unit_check_int("json.parse.values.count", 7, (long long)v.len);
			m = json_get(&v, "s");
			unit_check_str("json.parse.values.str", "x", m && m->type == JSON_STR ? m->str : NULL);
			m = json_get(&v, "n");
			if (m && m->type == JSON_NUM && m->num == -1500.0 && !strcmp(m->str, "-1.5e3"))
				unit_ok("json.parse.values.num");
			else
				unit_fail("json.parse.values.num", "want -1.5e3");
			m = json_get(&v, "t");
			unit_check_int("json.parse.values.true", 1, m && m->type == JSON_BOOL && m->boolean);
			m = json_get(&v, "f");
			unit_check_int("json.parse.values.false", 1, m && m->type == JSON_BOOL && !m->boolean);
			m = json_get(&v, "z");
			unit_check_int("json.parse.values.null", 1, m && m->type == JSON_NULL);
			m = json_get(&v, "a");
			unit_check_int("json.parse.values.arr", 1,
				       m && m->type == JSON_ARR && m->len == 3 &&
					       m->items[0].type == JSON_NUM &&
					       m->items[1].type == JSON_ARR && m->items[1].len == 0 &&
					       m->items[2].type == JSON_OBJ && m->items[2].len == 0);
			m = json_get(json_get(&v, "o"), "k");
			unit_check_int("json.parse.values.nested", 1,
				       m && m->type == JSON_NUM && m->num == 0);
			unit_check_int("json.get.absent", 1, json_get(&v, "missing") == NULL);
			unit_check_int("json.get.not_object", 1,
				       json_get(json_get(&v, "a"), "x") == NULL);
		}
	}
	{
		const char *nums[] = {"0", "-0", "1", "123", "1.25", "1e3", "1E-3",
				      "-2.5e+2", "0.0"};
		double want[] = {0, 0, 1, 123, 1.25, 1000, 0.001, -250, 0};
		for (i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
			const char *name = unit_name("json.parse.num[%s]", nums[i]);
			if (parse(&a, nums[i], strlen(nums[i]), &v, err))
				unit_fail(name, "parse error: %s", err);
			else if (v.type != JSON_NUM || v.num != want[i])
				unit_fail(name, "got type %d value %g", v.type, v.num);
			else
				unit_ok(name);
		}
	}
	/* Scalars at the top level. */
	unit_check_int("json.parse.top.true", 0, parse(&a, "true", 4, &v, err));
	unit_check_int("json.parse.top.null", 0, parse(&a, " null ", 6, &v, err));

	/* Keys: exact, case-insensitive, escaped, duplicated. */
	{
		const char *s = "{\"OLD_TEXT\":\"a\",\"New_Text\":\"b\",\"extra\":[1]}";
		if (parse(&a, s, strlen(s), &v, err)) {
			unit_fail("json.get.fold", "parse error: %s", err);
		} else {
			m = json_get(&v, "old_text");
			unit_check_str("json.get.fold.upper", "a", m ? m->str : NULL);
			m = json_get(&v, "new_text");
			unit_check_str("json.get.fold.mixed", "b", m ? m->str : NULL);
			m = json_get(&v, "Extra");
			unit_check_int("json.get.fold.query", 1, m && m->type == JSON_ARR);
			unit_check_int("json.get.fold.prefix_only", 1, json_get(&v, "old") == NULL);
			unit_check_int("json.get.fold.longer", 1, json_get(&v, "old_text_x") == NULL);
		}
	}
	{
		const char *s = "{\"k\":1,\"k\":2}";
		if (parse(&a, s, strlen(s), &v, err)) {
			unit_fail("json.get.duplicate", "parse error: %s", err);
		} else {
			m = json_get(&v, "k");
			/* Go: later members overwrite earlier ones. */
			unit_check_int("json.get.duplicate", 2, m ? (long long)m->num : -1);
		}
	}
	{
		const char *s = "{\"ol\\u0064_text\":\"esc\"}";
		if (parse(&a, s, strlen(s), &v, err)) {
			unit_fail("json.get.escaped_key", "parse error: %s", err);
		} else {
			m = json_get(&v, "old_text");
			unit_check_str("json.get.escaped_key", "esc", m ? m->str : NULL);
		}
	}
	{
		/* Go's Unmarshal sets the field once per matching member, in
		 * order: the last member that matches (exactly or folded) wins. */
		const char *s = "{\"old_text\":\"exact\",\"OLD_TEXT\":\"folded\"}";
		if (parse(&a, s, strlen(s), &v, err)) {
			unit_fail("json.get.last_match_wins", "parse error: %s", err);
		} else {
			m = json_get(&v, "old_text");
			unit_check_str("json.get.last_match_wins", "folded", m ? m->str : NULL);
		}
	}
	/* A key holding a NUL is not the key without it. */
	{
		const char *s = "{\"a\\u0000b\":1}";
		if (parse(&a, s, strlen(s), &v, err))
			unit_fail("json.get.nul_key", "parse error: %s", err);
		else
			unit_check_int("json.get.nul_key", 1, json_get(&v, "a") == NULL);
	}
	/* Strings holding NUL report their full length. */
	{
		const char *s = "{\"old_text\":\"a\\u0000b\",\"new_text\":\"\"}";
		if (parse(&a, s, strlen(s), &v, err)) {
			unit_fail("json.parse.nul_len", "parse error: %s", err);
		} else {
			m = json_get(&v, "old_text");
			unit_check_mem("json.parse.nul_len", "a\0b", 3, m ? m->str : NULL, m ? m->len : 0);
			m = json_get(&v, "new_text");
			unit_check_mem("json.parse.empty_str", "", 0, m ? m->str : NULL, m ? m->len : 1);
		}
	}
	/* A big array and a big string. */
	{
		size_t n = 100000, k, w = 0;
		char *s = malloc(n * 2 + 2);
		s[w++] = '[';
		for (k = 0; k < n; k++) {
			s[w++] = '7';
			s[w++] = ',';
		}
		s[w - 1] = ']';
		if (parse(&a, s, w, &v, err) || v.type != JSON_ARR || v.len != n ||
		    v.items[n - 1].num != 7)
			unit_fail("json.parse.big_array", "%s", err);
		else
			unit_ok("json.parse.big_array");
		free(s);
	}
	{
		size_t n = 1 << 20;
		char *s = malloc(n + 2);
		memset(s, 'q', n + 2);
		s[0] = s[n + 1] = '"';
		if (parse(&a, s, n + 2, &v, err) || v.type != JSON_STR || v.len != n)
			unit_fail("json.parse.big_string", "%s", err);
		else
			unit_ok("json.parse.big_string");
		free(s);
	}

	/* Round trip: write every byte value, parse it back. */
	{
		char all[256], *rt;
		struct buf b;
		size_t k;
		for (k = 0; k < 128; k++)
			all[k] = (char)k;
		buf_init(&b);
		json_str(&b, all, 128);
		rt = b.p;
		if (parse(&a, rt, b.len, &v, err))
			unit_fail("json.roundtrip.ascii", "parse error: %s", err);
		else
			unit_check_mem("json.roundtrip.ascii", all, 128, v.str, v.len);
		buf_reset(&b);
		json_str(&b, "\xe2\x80\xa8\xf0\x9f\x98\x80\xff", 8);
		if (parse(&a, b.p, b.len, &v, err))
			unit_fail("json.roundtrip.utf8", "parse error: %s", err);
		else
			unit_check_mem("json.roundtrip.utf8",
				       "\xe2\x80\xa8\xf0\x9f\x98\x80\xef\xbf\xbd", 10,
				       v.str, v.len);
		buf_free(&b);
	}
	arena_free(&a);
}

int main(void)
{
	test_writer();
	test_parser();
	return unit_done();
}
