/* gzip.c - fuzz target: lib/gzpar.c's multi-member reader (inflate).
 *
 * Property: any input ends in data then a clean end, or an error with its
 * message; the decompressed-bytes limit (1 MiB here) is never passed, so
 * a bomb is refused rather than inflated.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include "gzpar.h"

#define LIMIT (1u << 20)

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct src s = {data, size, 0};
	struct gzpar_reader *z = gzpar_reader_open(src_read, &s, LIMIT);
	unsigned long long total = 0;
	char buf[8192];
	ssize_t n;

	if (!z)
		return 0;
	while ((n = gzpar_reader_read(z, buf, sizeof(buf))) > 0) {
		total += (unsigned long long)n;
		if (total > LIMIT)
			abort(); /* the bomb limit let bytes through */
	}
	if (n < 0 && !gzpar_reader_error(z))
		abort();
	gzpar_reader_free(z);
	return 0;
}
