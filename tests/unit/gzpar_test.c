/* gzpar_test.c - the parallel gzip writer and the bounded reader */
#include <errno.h>
#include <stdlib.h>
#include <zlib.h>
#include "gzpar.h"
#include "unit.h"

struct mem {
	unsigned char *p;
	size_t len, cap, pos, chunk;
	int fail_after; /* sink: fail once this many calls were made (0: never) */
	int calls;
};

static int mem_sink(void *arg, const void *p, size_t n)
{
	struct mem *m = arg;

	if (m->fail_after && ++m->calls >= m->fail_after) {
		errno = ENOSPC;
		return -1;
	}
	if (m->len + n > m->cap) {
		m->cap = (m->len + n) * 2 + 64;
		m->p = realloc(m->p, m->cap);
	}
	memcpy(m->p + m->len, p, n);
	m->len += n;
	return 0;
}

/* Hands out at most m->chunk bytes a call, to cross every boundary. */
static ssize_t mem_source(void *arg, void *p, size_t n)
{
	struct mem *m = arg;

	if (m->chunk && n > m->chunk)
		n = m->chunk;
	if (n > m->len - m->pos)
		n = m->len - m->pos;
	memcpy(p, m->p + m->pos, n);
	m->pos += n;
	return (ssize_t)n;
}

static unsigned char *make_input(size_t n, unsigned seed)
{
	unsigned char *p = malloc(n ? n : 1);
	size_t i;

	/* Compressible text with some noise: repeats across blocks, so the
	 * dictionary matters. */
	for (i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (seed >> 24) % 7 == 0 ? (unsigned char)(seed >> 16)
					     : (unsigned char)("lorem ipsum dolor "[i % 18]);
	}
	return p;
}

static int compress_mem(const unsigned char *in, size_t n, int level,
			int threads, size_t piece, struct mem *out)
{
	struct gzpar_writer *g = gzpar_writer_open(level, threads, mem_sink, out);
	size_t off = 0;
	int r = 0;

	if (!g)
		return -1;
	while (off < n && !r) {
		size_t k = n - off < piece ? n - off : piece;
		r = gzpar_writer_write(g, in + off, k);
		off += k;
	}
	if (!r)
		r = gzpar_writer_finish(g);
	gzpar_writer_free(g);
	return r;
}

/* Decode with plain zlib: exactly one gzip member covering all bytes. */
static int zlib_decode_one(const struct mem *gz, unsigned char **out,
			   size_t *outlen)
{
	z_stream z;
	size_t cap = 1024, len = 0;
	unsigned char *o = malloc(cap);
	int ret;

	memset(&z, 0, sizeof(z));
	inflateInit2(&z, 15 + 16);
	z.next_in = gz->p;
	z.avail_in = (uInt)gz->len;
	do {
		if (cap - len < 65536) {
			cap = cap * 2 + 65536;
			o = realloc(o, cap);
		}
		z.next_out = o + len;
		z.avail_out = (uInt)(cap - len);
		ret = inflate(&z, Z_NO_FLUSH);
		len = cap - z.avail_out;
	} while (ret == Z_OK);
	inflateEnd(&z);
	*out = o;
	*outlen = len;
	return ret == Z_STREAM_END && z.avail_in == 0 ? 0 : -1;
}

static int decode_all(struct mem *gz, unsigned long long limit,
		      unsigned char **out, size_t *outlen, char *err,
		      size_t errlen)
{
	struct gzpar_reader *z = gzpar_reader_open(mem_source, gz, limit);
	size_t cap = 1024, len = 0;
	unsigned char *o = malloc(cap);
	ssize_t n;

	gz->pos = 0;
	for (;;) {
		while (cap - len < 4096) {
			cap *= 2;
			o = realloc(o, cap);
		}
		n = gzpar_reader_read(z, o + len, 4096 - (len % 3)); /* odd sizes */
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	snprintf(err, errlen, "%s", gzpar_reader_error(z));
	gzpar_reader_free(z);
	*out = o;
	*outlen = len;
	return n < 0 ? -1 : 0;
}

static void round_trip(size_t n, int level, int threads, size_t piece)
{
	char name[128], err[256];
	unsigned char *in = make_input(n, (unsigned)n), *o;
	struct mem gz = {0};
	size_t olen;
	unsigned long crc, got;

	snprintf(name, sizeof(name), "gzpar/round_trip_%zu_l%d_t%d_p%zu", n,
		 level, threads, piece);
	if (compress_mem(in, n, level, threads, piece, &gz)) {
		unit_fail(name, "compression failed");
		goto out;
	}
	if (zlib_decode_one(&gz, &o, &olen) || olen != n || memcmp(o, in, n)) {
		unit_fail(name, "zlib does not read back one member of %zu bytes (got %zu)", n, olen);
		free(o);
		goto out;
	}
	free(o);
	crc = crc32(crc32(0, NULL, 0), in, (uInt)n);
	got = gz.p[gz.len - 8] | gz.p[gz.len - 7] << 8 |
	      gz.p[gz.len - 6] << 16 | (unsigned long)gz.p[gz.len - 5] << 24;
	if (crc != got) {
		unit_fail(name, "trailer CRC %08lx, want %08lx", got, crc);
		goto out;
	}
	gz.chunk = 1000;
	if (decode_all(&gz, 0, &o, &olen, err, sizeof(err)) || olen != n ||
	    memcmp(o, in, n))
		unit_fail(name, "gzpar_reader_read: %s (%zu bytes)", err, olen);
	else
		unit_ok(name);
	free(o);
out:
	free(in);
	free(gz.p);
}

/* The block layout is fixed, so the worker count cannot change a byte. */
static void same_bytes_any_threads(void)
{
	size_t n = 5 * GZPAR_BLOCK + 12345;
	unsigned char *in = make_input(n, 7);
	struct mem a = {0}, b = {0};

	compress_mem(in, n, 6, 1, 70000, &a);
	compress_mem(in, n, 6, 4, 999, &b);
	if (a.len == b.len && !memcmp(a.p, b.p, a.len))
		unit_ok("gzpar/threads_do_not_change_output");
	else
		unit_fail("gzpar/threads_do_not_change_output", "%zu vs %zu bytes", a.len, b.len);
	free(in);
	free(a.p);
	free(b.p);
}

/* The dictionary keeps the ratio close to one-stream deflate. A random
 * 16 KiB pattern repeated: each block starts with bytes only the previous
 * block's tail (the dictionary) can match, so without it every block
 * would cost 16 KiB more. */
static void ratio_near_single_stream(void)
{
	size_t n = 2 * 1024 * 1024, i;
	unsigned char *in = malloc(n);
	struct mem a = {0};
	uLongf zl = compressBound((uLong)n);
	unsigned char *z = malloc(zl);
	unsigned seed = 99;

	for (i = 0; i < n; i++) {
		if (i < 16384) {
			seed = seed * 1103515245u + 12345u;
			in[i] = (unsigned char)(seed >> 16);
		} else {
			in[i] = in[i - 16384];
		}
	}
	compress_mem(in, n, 6, 2, n, &a);
	compress2(z, &zl, in, (uLong)n, 6);
	if (a.len <= zl + zl / 100 + 1024)
		unit_ok("gzpar/ratio_within_1pct");
	else
		unit_fail("gzpar/ratio_within_1pct", "%zu bytes vs zlib %lu", a.len, (unsigned long)zl);
	free(in);
	free(z);
	free(a.p);
}

static void expect_read_error(const char *name, struct mem *gz,
			      unsigned long long limit, const char *needle)
{
	unsigned char *o;
	size_t olen;
	char err[256];

	if (decode_all(gz, limit, &o, &olen, err, sizeof(err)) == 0)
		unit_fail(name, "accepted (%zu bytes)", olen);
	else if (!strstr(err, needle))
		unit_fail(name, "error %s lacks %s", err, needle);
	else
		unit_ok(name);
	free(o);
}

static void reader_cases(void)
{
	size_t n = 300000, olen;
	unsigned char *in = make_input(n, 11), *o;
	struct mem a = {0}, b = {0}, cat = {0}, t;
	char err[256];

	compress_mem(in, n, 6, 2, n, &a);
	compress_mem(in, 1000, 1, 1, 1000, &b);
	mem_sink(&cat, a.p, a.len);
	mem_sink(&cat, b.p, b.len);
	if (decode_all(&cat, 0, &o, &olen, err, sizeof(err)) == 0 &&
	    olen == n + 1000 && !memcmp(o, in, n) && !memcmp(o + n, in, 1000))
		unit_ok("gzpar/multi_member");
	else
		unit_fail("gzpar/multi_member", "%s (%zu bytes)", err, olen);
	free(o);

	mem_sink(&cat, "\0\0\0\0", 4);
	if (decode_all(&cat, 0, &o, &olen, err, sizeof(err)) == 0 && olen == n + 1000)
		unit_ok("gzpar/trailing_zeros_accepted");
	else
		unit_fail("gzpar/trailing_zeros_accepted", "%s", err);
	free(o);
	mem_sink(&cat, "x", 1);
	expect_read_error("gzpar/trailing_garbage", &cat, 0, "trailing garbage after member 2");

	t = a;
	t.len = a.len - 3; /* cut inside the trailer */
	expect_read_error("gzpar/truncated_trailer", &t, 0, "truncated");
	t.len = a.len / 2;
	expect_read_error("gzpar/truncated_middle", &t, 0, "truncated stream: member 1");
	t.len = 0;
	expect_read_error("gzpar/empty_input", &t, 0, "empty input");

	a.p[a.len / 2] ^= 0x55;
	a.p[a.len / 2 + 1] ^= 0xaa;
	expect_read_error("gzpar/corrupt", &a, 0, "corrupt data in member 1");
	a.p[a.len / 2] ^= 0x55;
	a.p[a.len / 2 + 1] ^= 0xaa;
	a.p[a.len - 6] ^= 1; /* the CRC */
	expect_read_error("gzpar/bad_crc", &a, 0, "incorrect data check");
	a.p[a.len - 6] ^= 1;

	expect_read_error("gzpar/limit", &a, n - 1, "exceeds the limit of");
	if (decode_all(&a, n, &o, &olen, err, sizeof(err)) == 0 && olen == n)
		unit_ok("gzpar/limit_exact_ok");
	else
		unit_fail("gzpar/limit_exact_ok", "%s", err);
	free(o);

	t.p = (unsigned char *)"plain text, not gzip";
	t.len = strlen((char *)t.p);
	expect_read_error("gzpar/not_gzip", &t, 0, "corrupt data in member 1");
	free(in);
	free(a.p);
	free(b.p);
	free(cat.p);
}

static void sink_error(void)
{
	size_t n = 4 * GZPAR_BLOCK;
	unsigned char *in = make_input(n, 5);
	struct mem m = {0};

	m.fail_after = 2;
	struct gzpar_writer *g = gzpar_writer_open(6, 2, mem_sink, &m);
	int r = gzpar_writer_write(g, in, n);
	if (!r)
		r = gzpar_writer_finish(g);
	if (r && strstr(gzpar_writer_error(g), "No space left"))
		unit_ok("gzpar/sink_error_reported");
	else
		unit_fail("gzpar/sink_error_reported", "r=%d err=%s", r, gzpar_writer_error(g));
	gzpar_writer_free(g);
	free(in);
	free(m.p);
}

int main(void)
{
	static const size_t sizes[] = {0, 1, GZPAR_DICT - 1, GZPAR_BLOCK - 1,
				       GZPAR_BLOCK, GZPAR_BLOCK + 1,
				       3 * GZPAR_BLOCK + 7};
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		round_trip(sizes[i], 6, 1, 4096);
		round_trip(sizes[i], 6, 3, 777);
	}
	round_trip(2 * GZPAR_BLOCK + 5, 0, 2, 100000);
	round_trip(2 * GZPAR_BLOCK + 5, 1, 2, 100000);
	round_trip(9 * GZPAR_BLOCK + 5, 9, 8, 1 << 20);
	same_bytes_any_threads();
	ratio_near_single_stream();
	reader_cases();
	sink_error();
	return unit_done();
}
