/* shellwords.c - fuzz target: lib/shellwords.c, the daemon's fast path.
 *
 * Property: a command that splits into words splits the same way again
 * once each word is written back single-quoted ('it'\''s' for a quote):
 * the parser agrees with the quoting the client side uses.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "arena.h"
#include "buf.h"
#include "shellwords.h"

static void quote(struct buf *b, const char *w)
{
	buf_putc(b, '\'');
	for (; *w; w++) {
		if (*w == '\'')
			buf_puts(b, "'\\''");
		else
			buf_putc(b, *w);
	}
	buf_putc(b, '\'');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct arena a;
	struct buf b;
	char **w, **w2;
	int n, n2, i;

	arena_init(&a);
	buf_init(&b);
	n = shellwords_split(&a, (const char *)data, size, &w);
	if (n > 0) {
		for (i = 0; i < n; i++) {
			if (!w[i])
				abort();
			if (i)
				buf_putc(&b, ' ');
			quote(&b, w[i]);
			(void)shellwords_is_builtin(w[i]);
		}
		if (w[n])
			abort(); /* the vector is NULL-terminated */
		n2 = shellwords_split(&a, b.p, b.len, &w2);
		/* a word may be empty ('') only if the parser kept it */
		if (n2 != n)
			abort();
		for (i = 0; i < n; i++)
			if (strcmp(w[i], w2[i]))
				abort();
	}
	buf_free(&b);
	arena_free(&a);
	return 0;
}
