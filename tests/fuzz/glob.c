/* glob.c - fuzz target: the glob matcher (lib/globmatch.c).
 *
 * Input: a pattern, a NUL, a name. Properties: no crash or hang on any
 * pattern; a name matches itself once every meta character is escaped
 * with a backslash (globmatch and, without '/' games, globmatch_path);
 * globmatch answers only 1, 0 or -1.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "globmatch.h"

static char *escaped(const char *s)
{
	char *o = malloc(strlen(s) * 2 + 1), *w = o;

	if (!o)
		return NULL;
	for (; *s; s++) {
		if (strchr("*?[]\\{},", *s))
			*w++ = '\\';
		*w++ = *s;
	}
	*w = 0;
	return o;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf, *pat, *name, *nul, *esc;
	int r;

	if (size > 512)
		return 0; /* patterns are short; keeps every run quick */
	buf = malloc(size + 2);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = buf[size + 1] = 0;
	pat = buf;
	nul = memchr(buf, 0, size);
	name = nul ? nul + 1 : buf + size;
	r = globmatch(pat, name);
	if (r < -1 || r > 1)
		abort();
	r = globmatch_path(pat, name);
	if (r < -1 || r > 1)
		abort();
	(void)globmatch_is_path_pattern(pat);
	(void)globmatch_entry(pat, name, name);
	esc = escaped(name);
	if (esc) {
		if (!strchr(name, '/') && globmatch(esc, name) != 1)
			abort(); /* an escaped name must match itself */
		free(esc);
	}
	free(buf);
	return 0;
}
