/* targz_stream.c - fuzz target: the unpack read path, gzip reader
 * (lib/gzpar.c, inflate) then tar reader (lib/tar.c), fed from memory.
 *
 * Properties: no input crashes, hangs or leaks; the decompressed bytes
 * never pass the reader's limit (1 MiB here, the gzip-bomb bound); every
 * entry the tar reader returns has a name, and its data read back is
 * exactly its declared size or an error.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "gzpar.h"
#include "tar.h"

#define LIMIT (1u << 20)

struct mem {
	const uint8_t *p;
	size_t n;
};

static ssize_t mem_read(void *arg, void *p, size_t n)
{
	struct mem *m = arg;

	if (n > m->n)
		n = m->n;
	memcpy(p, m->p, n);
	m->p += n;
	m->n -= n;
	return (ssize_t)n;
}

static ssize_t gz_read(void *arg, void *p, size_t n)
{
	return gzpar_reader_read(arg, p, n);
}

static const char *gz_err(void *arg)
{
	return gzpar_reader_error(arg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mem m = {data, size};
	struct gzpar_reader *z = gzpar_reader_open(mem_read, &m, LIMIT);
	struct tar_reader *t = z ? tar_reader_open(gz_read, gz_err, z) : NULL;
	struct tar_entry e;
	char buf[4096];
	int r;

	while (t && (r = tar_next(t, &e)) == 1) {
		unsigned long long got = 0;
		ssize_t n;
		if (!e.name || !*e.name)
			abort();
		while ((n = tar_read(t, buf, sizeof(buf))) > 0)
			got += (unsigned long long)n;
		if (n == 0 && got != e.size)
			abort();
		if (n < 0)
			break;
	}
	if (z && gzpar_reader_out_bytes(z) > LIMIT)
		abort();
	tar_reader_free(t);
	gzpar_reader_free(z);
	return 0;
}
