/* json.c - fuzz target: lib/json.c's parser.
 *
 * Property: whatever parses, written back out (json_str for strings, the
 * literal text for numbers) parses again to the same rendering: the
 * parser and the writer agree, and no input crashes or leaks.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "arena.h"
#include "buf.h"
#include "json.h"

static void render(struct buf *b, const struct json_val *v, int depth)
{
	size_t i;

	if (depth > 1000)
		abort(); /* the parser let through a nesting it should refuse */
	switch (v->type) {
	case JSON_NULL:
		buf_puts(b, "null");
		break;
	case JSON_BOOL:
		json_bool(b, v->boolean);
		break;
	case JSON_NUM:
		buf_puts(b, v->str);
		break;
	case JSON_STR:
		json_str(b, v->str, v->len);
		break;
	case JSON_ARR:
	case JSON_OBJ:
		buf_putc(b, v->type == JSON_ARR ? '[' : '{');
		for (i = 0; i < v->len; i++) {
			if (i)
				buf_putc(b, ',');
			if (v->type == JSON_OBJ) {
				json_str(b, v->keys[i], v->key_lens[i]);
				buf_putc(b, ':');
			}
			render(b, &v->items[i], depth + 1);
		}
		buf_putc(b, v->type == JSON_ARR ? ']' : '}');
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct arena a;
	struct json_val v, w;
	struct buf b1, b2;
	char err[256];

	arena_init(&a);
	buf_init(&b1);
	buf_init(&b2);
	if (!json_parse(&a, (const char *)data, size, &v, err, sizeof(err))) {
		render(&b1, &v, 0);
		if (json_parse(&a, b1.p, b1.len, &w, err, sizeof(err)))
			abort(); /* our own rendering does not parse */
		render(&b2, &w, 0);
		if (b1.len != b2.len || memcmp(b1.p, b2.p, b1.len))
			abort(); /* a second round changed the value */
		if (v.type == JSON_OBJ && v.len)
			(void)json_get(&v, v.keys[0]);
	} else if (!err[0]) {
		abort(); /* an error without a message */
	}
	buf_free(&b1);
	buf_free(&b2);
	arena_free(&a);
	return 0;
}
