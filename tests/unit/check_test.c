/* check_test.c - the gossfile YAML reader and goss durations, by table */
#include <stdlib.h>
#include "unit.h"
#include "check.h"

/* A tree as one line of JSON-like text (numbers as their literal). */
static void render(struct buf *b, const struct json_val *v)
{
	size_t i;

	switch (v->type) {
	case JSON_NULL:
		buf_puts(b, "null");
		break;
	case JSON_BOOL:
		buf_puts(b, v->boolean ? "true" : "false");
		break;
	case JSON_NUM:
		buf_printf(b, "#%s", v->str);
		break;
	case JSON_STR:
		json_str(b, v->str, v->len);
		break;
	default:
		buf_putc(b, v->type == JSON_ARR ? '[' : '{');
		for (i = 0; i < v->len; i++) {
			if (i)
				buf_putc(b, ',');
			if (v->type == JSON_OBJ)
				buf_printf(b, "%s:", v->keys[i]);
			render(b, &v->items[i]);
		}
		buf_putc(b, v->type == JSON_ARR ? ']' : '}');
	}
}

/* clang-format off */
static const char *good[][2] = {
	{"", "null"},
	{"# only a comment\n", "null"},
	{"---\na: 1\n", "{a:#1}"},
	{"a: 1\nb: two\nc: \"3\"\nd: '4'\n", "{a:#1,b:\"two\",c:\"3\",d:\"4\"}"},
	{"a: true\nb: False\nc: ~\nd:\ne: null\n", "{a:true,b:false,c:null,d:null,e:null}"},
	{"mode: \"0644\"\nsize: 0644\nf: 1.5\ng: -2e3\n", "{mode:\"0644\",size:#0644,f:#1.5,g:#-2e3}"},
	{"a:\n  b:\n    c: x # comment\n", "{a:{b:{c:\"x\"}}}"},
	{"l:\n- a\n- b\n", "{l:[\"a\",\"b\"]}"},
	{"l:\n  - a\n  -  b\n", "{l:[\"a\",\"b\"]}"},
	{"- k: 1\n  j: 2\n- - x\n  - y\n", "[{k:#1,j:#2},[\"x\",\"y\"]]"},
	{"f: [a, 'b c', \"d\\te\", [1], {k: v}]\n", "{f:[\"a\",\"b c\",\"d\\te\",[#1],{k:\"v\"}]}"},
	{"f: {a: 1, b: [x, y], c}\n", "{f:{a:#1,b:[\"x\",\"y\"],c:null}}"},
	{"f: [have-prefix: m, x]\n", "{f:[{have-prefix:\"m\"},\"x\"]}"},
	{"tcp:22:\n  listening: true\n", "{tcp:22:{listening:true}}"},
	{"http://x:80/a#b:\n  s: 1\n", "{http://x:80/a#b:{s:#1}}"},
	{"\"quoted key\": 1\n'it''s': 2\n", "{quoted key:#1,it's:#2}"},
	{"s: 'it''s # not a comment'\n", "{s:\"it's # not a comment\"}"},
	{"s: a#b\n", "{s:\"a#b\"}"},
	{"b: |\n  one\n  two\nc: 1\n", "{b:\"one\\ntwo\\n\",c:#1}"},
	{"b: |-\n  one\n\n  two\n", "{b:\"one\\n\\ntwo\"}"},
	{"b: >\n  one\n  two\n", "{b:\"one two\\n\"}"},
	{"u: \"\\u00e9\\x41\"\n", "{u:\"\xc3\xa9" "A\"}"},
	{"a: 1\r\nb: 2\r\n", "{a:#1,b:#2}"},
	{"a: 1\n...\n", "{a:#1}"},
	{"x\n", "\"x\""},
};

static const char *bad[][2] = {
	{"a:\n\tb: 1\n", "line 2: tab in indentation"},
	{"a: &x 1\n", "line 1: anchors are not supported"},
	{"a: *x\n", "line 1: aliases are not supported"},
	{"a: !!str 1\n", "line 1: tags are not supported"},
	{"a: 1\n---\nb: 2\n", "line 2: more than one document"},
	{"%YAML 1.2\n", "line 1: directives are not supported"},
	{"a: [1, 2\n", "line 1: unterminated flow collection"},
	{"a: \"x\n", "line 1: unterminated quoted string"},
	{"a: 1\n  b: 2\n", "line 2: unexpected indentation"},
	{"a:\n  b: 1\n c: 2\n", "line 3: unexpected indentation"},
	{"a: 1\njust text\n", "line 2: expected \"key: value\""},
	{"<<: {a: 1}\n", "line 1: merge keys are not supported"},
	{"? a\n", "line 1: complex keys are not supported"},
	{"a: \"\\q\"\n", "line 1: unknown escape"},
	{"a: [1] x\n", "line 1: text after a value"},
};

static const struct { const char *s; long long ms; } durations[] = {
	{"10s", 10000}, {"500ms", 500}, {"1m30s", 90000}, {"2h", 7200000}, {"1.5s", 1500},
	{"250us", 0}, {"0s", 0}, {"", -1}, {"10", -1}, {"s", -1}, {"5x", -1}, {"-1s", -1},
};
/* clang-format on */

int main(void)
{
	struct arena a;
	struct json_val v;
	struct buf b;
	char err[256];
	size_t i;

	arena_init(&a);
	buf_init(&b);
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		const char *name = unit_name("check.yaml.good.%zu", i);
		b.len = 0;
		if (check_yaml_parse(&a, good[i][0], strlen(good[i][0]), &v, err, sizeof(err))) {
			unit_fail(name, "%s: %s", unit_show(good[i][0], strlen(good[i][0])), err);
			continue;
		}
		render(&b, &v);
		if (b.len == strlen(good[i][1]) && !memcmp(b.p, good[i][1], b.len))
			unit_ok(name);
		else
			unit_fail(name, "%s: got %s, want %s", unit_show(good[i][0], strlen(good[i][0])),
				  unit_show(b.p, b.len), good[i][1]);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *name = unit_name("check.yaml.bad.%zu", i);
		err[0] = 0;
		if (!check_yaml_parse(&a, bad[i][0], strlen(bad[i][0]), &v, err, sizeof(err)))
			unit_fail(name, "%s parsed", unit_show(bad[i][0], strlen(bad[i][0])));
		else if (strncmp(err, bad[i][1], strlen(bad[i][1])))
			unit_fail(name, "%s: got \"%s\", want \"%s\"", unit_show(bad[i][0], strlen(bad[i][0])),
				  err, bad[i][1]);
		else
			unit_ok(name);
	}
	for (i = 0; i < sizeof(durations) / sizeof(durations[0]); i++) {
		long long ms = check_duration_ms(durations[i].s);
		const char *name = unit_name("check.duration.%s", durations[i].s);
		if (ms == durations[i].ms)
			unit_ok(name);
		else
			unit_fail(name, "got %lld, want %lld", ms, durations[i].ms);
	}
	buf_free(&b);
	arena_free(&a);
	return unit_failed;
}
