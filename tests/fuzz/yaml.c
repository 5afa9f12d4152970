/* yaml.c - fuzz target: lib/check/yaml.c, the gossfile reader.
 *
 * Property: what parses, written back as one line of JSON (numbers keep
 * their YAML literal, 0644 or +1, so it need not be strict JSON), is read
 * by the YAML reader again to the same tree (once the writer has replaced invalid UTF-8, which it escapes as
 * \ufffd the first time and writes as is the second): the flow subset
 * agrees with the block reader and the writer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "arena.h"
#include "buf.h"
#include "check.h"
#include "json.h"

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
		buf_puts(b, v->str);
		break;
	case JSON_STR:
		json_str(b, v->str, v->len);
		break;
	default:
		buf_putc(b, v->type == JSON_ARR ? '[' : '{');
		for (i = 0; i < v->len; i++) {
			if (i)
				buf_putc(b, ',');
			if (v->type == JSON_OBJ) {
				json_cstr(b, v->keys[i]);
				buf_putc(b, ':');
			}
			render(b, &v->items[i]);
		}
		buf_putc(b, v->type == JSON_ARR ? ']' : '}');
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct arena a;
	struct buf b1, b2, b3;
	struct json_val v, v2, v3;
	char err[256];

	arena_init(&a);
	buf_init(&b1);
	buf_init(&b2);
	buf_init(&b3);
	if (check_yaml_parse(&a, (const char *)data, size, &v, err, sizeof(err)) == 0) {
		render(&b1, &v);
		if (check_yaml_parse(&a, b1.p, b1.len, &v2, err, sizeof(err)))
			abort();
		render(&b2, &v2);
		if (check_yaml_parse(&a, b2.p, b2.len, &v3, err, sizeof(err)))
			abort();
		render(&b3, &v3);
		if (b3.len != b2.len || memcmp(b3.p, b2.p, b2.len))
			abort();
	} else if (strncmp(err, "line ", 5)) {
		abort(); /* every error names its line */
	}
	buf_free(&b1);
	buf_free(&b2);
	buf_free(&b3);
	arena_free(&a);
	return 0;
}
