/* gosstemplate.c - fuzz target: lib/check/template.c, gossfile templates.
 *
 * Property: no crash, bounded work; an error names its line; a template
 * without "{{" comes out as it went in.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "arena.h"
#include "buf.h"
#include "check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *env[] = {"HOME=/root", "OS=debian", NULL};
	static const char vars_text[] = "users: [a, b]\nn: 2\nm: {k: v}\n";
	struct arena a;
	struct buf out;
	struct json_val vars;
	char err[256], *s;

	arena_init(&a);
	buf_init(&out);
	s = arena_strndup(&a, (const char *)data, size); /* NUL-terminated */
	if (check_yaml_parse(&a, vars_text, sizeof(vars_text) - 1, &vars, err, sizeof(err)))
		abort();
	if (check_template(&a, s, size, &vars, env, &out, err, sizeof(err))) {
		if (strncmp(err, "line ", 5))
			abort();
	} else if (!memmem(s, size, "{{", 2) && (out.len != size || (size && memcmp(out.p, s, size)))) {
		abort();
	}
	buf_free(&out);
	arena_free(&a);
	return 0;
}
