/* tar.c - fuzz target: lib/tar.c's reader on hostile archives.
 *
 * Property: every entry and its data can be read (or a clean error is
 * set) with no crash, leak or out-of-bounds access; the reader never
 * returns more data than it declared for an entry.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include "tar.h"

struct src {
	const uint8_t *p;
	size_t n, off;
};

static ssize_t src_read(void *arg, void *p, size_t n)
{
	struct src *s = arg;
	size_t k = s->n - s->off < n ? s->n - s->off : n;

	memcpy(p, s->p + s->off, k);
	s->off += k;
	return (ssize_t)k;
}

static const char *src_error(void *arg)
{
	(void)arg;
	return "no error";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct src s = {data, size, 0};
	struct tar_reader *r = tar_reader_open(src_read, src_error, &s);
	struct tar_entry e;
	char buf[4096];
	int k, entries = 0;

	if (!r)
		return 0;
	while (entries++ < 1000 && (k = tar_next(r, &e)) == 1) {
		ssize_t n;
		while ((n = tar_read(r, buf, sizeof(buf))) > 0)
			if ((size_t)n > sizeof(buf))
				abort();
		if (n < 0 && !tar_error(r))
			abort(); /* an error without its message */
		if (n < 0)
			break;
	}
	tar_reader_free(r);
	return 0;
}
