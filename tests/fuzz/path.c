/* path.c - fuzz target: path_clean (lib/path.c), Go's filepath.Clean.
 *
 * Properties: cleaning is idempotent; the result has no empty, "." or
 * (after the leading ones, or at all when rooted) ".." components, no
 * trailing slash but for "/", and is never empty.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "arena.h"
#include "path.h"

static void check_shape(const char *c)
{
	const char *p = c, *e;
	int rooted = *c == '/', seen_name = 0;
	size_t n = strlen(c);

	if (!n)
		abort();
	if (n > 1 && c[n - 1] == '/')
		abort();
	if (!strcmp(c, "."))
		return;
	if (rooted)
		p++;
	while (*p) {
		for (e = p; *e && *e != '/'; e++)
			;
		if (e == p && n > 1)
			abort(); /* "//" */
		if (e - p == 1 && p[0] == '.')
			abort(); /* "." inside */
		if (e - p == 2 && p[0] == '.' && p[1] == '.' && (rooted || seen_name))
			abort(); /* ".." that should have been folded */
		if (!(e - p == 2 && p[0] == '.' && p[1] == '.'))
			seen_name = 1;
		p = *e ? e + 1 : e;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct arena a;
	char *in, *c1, *c2;

	arena_init(&a);
	in = malloc(size + 1);
	if (!in)
		return 0;
	memcpy(in, data, size);
	in[size] = 0; /* a C string: stops at the first NUL */
	c1 = path_clean(&a, in);
	if (c1) {
		check_shape(c1);
		c2 = path_clean(&a, c1);
		if (!c2 || strcmp(c1, c2))
			abort(); /* not idempotent */
		(void)path_base(c1);
	}
	free(in);
	arena_free(&a);
	return 0;
}
