/* gzpar.c - parallel gzip writer and a bounded streaming gzip reader.
 *
 * The writer follows pigz's scheme: raw deflate per block, each block
 * primed with the 32 KiB of input before it (so the ratio stays close to
 * one-stream gzip), each ended on a byte boundary so the compressed blocks
 * concatenate into one valid deflate stream, CRCs combined in order.
 * The caller's thread fills blocks and writes finished ones in order;
 * workers only compress. An ordered ring (slots.h) bounds the blocks in
 * flight and gives them back in input order.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "buf.h"
#include "ctx.h"
#include "gzpar.h"
#include "slots.h"

struct block {
	int last;
	int failed; /* deflate failed (out of memory) */
	unsigned char *in;
	size_t in_len;
	unsigned char *dict;
	size_t dict_len;
	unsigned char *out;
	size_t out_len, out_cap;
	unsigned long crc;
};

struct gzpar_writer {
	struct slots ring; /* block j in blocks[j % nblock] */
	struct block *blocks;
	int nblock;
	int nthreads; /* workers running; 0: compress inline */
	pthread_t th[GZPAR_MAX_THREADS];
	volatile int stop;
	int level;
	z_stream inline_z;
	int inline_ready;
	struct block *cur; /* being filled: block slots_next(&ring) */
	gzpar_sink_fn sink;
	void *arg;
	unsigned long crc;
	unsigned long long in_bytes, out_bytes;
	int failed, finished, header_done;
	char err[256];
};

int gzpar_default_threads(void)
{
	long n = wfs_cpus();

	if (n < 1)
		n = 1;
	if (n > GZPAR_MAX_THREADS)
		n = GZPAR_MAX_THREADS;
	return (int)n;
}

static void set_err(struct gzpar_writer *g, const char *fmt, const char *detail)
{
	if (g->failed)
		return;
	g->failed = 1;
	snprintf(g->err, sizeof(g->err), fmt, detail);
}

/* Deflate one block into its out buffer. 0, or -1 (zlib failed). */
static int compress_block(z_stream *z, struct block *s)
{
	int flush = s->last ? Z_FINISH : Z_SYNC_FLUSH, ret;

	if (deflateReset(z) != Z_OK)
		return -1;
	if (s->dict_len &&
	    deflateSetDictionary(z, s->dict, (uInt)s->dict_len) != Z_OK)
		return -1;
	s->crc = crc32(0, s->in, (uInt)s->in_len);
	z->next_in = s->in;
	z->avail_in = (uInt)s->in_len;
	s->out_len = 0;
	for (;;) {
		if (s->out_cap - s->out_len < 64) {
			size_t cap = s->out_cap * 2;
			unsigned char *o = realloc(s->out, cap);
			if (!o)
				return -1;
			s->out = o;
			s->out_cap = cap;
		}
		z->next_out = s->out + s->out_len;
		z->avail_out = (uInt)(s->out_cap - s->out_len);
		ret = deflate(z, flush);
		s->out_len = s->out_cap - z->avail_out;
		if (ret == Z_STREAM_END)
			return 0;
		if (ret != Z_OK && ret != Z_BUF_ERROR)
			return -1;
		/* A flush is complete once deflate leaves output space. */
		if (!s->last && z->avail_in == 0 && z->avail_out > 0)
			return 0;
	}
}

static int deflate_init(z_stream *z, int level)
{
	memset(z, 0, sizeof(*z));
	/* Raw deflate: the gzip header and trailer are ours. */
	return deflateInit2(z, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
}

static void *worker(void *arg)
{
	struct gzpar_writer *g = arg;
	z_stream z;
	int ok = deflate_init(&z, g->level) == Z_OK;
	size_t j;

	slots_lock(&g->ring);
	while (!slots_take(&g->ring, &j)) {
		struct block *b = &g->blocks[j % g->nblock];

		slots_unlock(&g->ring);
		b->failed = ok ? compress_block(&z, b) : -1;
		slots_lock(&g->ring);
		slots_complete(&g->ring, j);
	}
	slots_unlock(&g->ring);
	if (ok)
		deflateEnd(&z);
	return NULL;
}

static int sink_write(struct gzpar_writer *g, const void *p, size_t n)
{
	if (g->failed)
		return -1;
	if (n && g->sink(g->arg, p, n)) {
		set_err(g, "gzip: writing the output: %s", strerror(errno));
		return -1;
	}
	g->out_bytes += n;
	return 0;
}

static int write_header(struct gzpar_writer *g)
{
	unsigned char h[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};

	/* XFL: 2 = best compression, 4 = fastest, as gzip marks them. */
	h[8] = g->level == 9 ? 2 : g->level == 1 ? 4
						 : 0;
	g->header_done = 1;
	return sink_write(g, h, sizeof(h));
}

/* Write the oldest block once it is compressed; wait: block until it
 * is. 1: written; 0: none was; -1: error. */
static int write_head(struct gzpar_writer *g, int wait)
{
	struct block *b;
	size_t j;
	int head;

	slots_lock(&g->ring);
	head = slots_head(&g->ring, wait, &j);
	slots_unlock(&g->ring);
	if (head != SLOTS_DONE)
		return 0;
	b = &g->blocks[j % g->nblock];
	if (b->failed) {
		set_err(g, "gzip: deflate failed%s", " (out of memory?)");
		return -1;
	}
	if (sink_write(g, b->out, b->out_len))
		return -1;
	g->crc = crc32_combine(g->crc, b->crc, (z_off_t)b->in_len);
	slots_lock(&g->ring);
	slots_retire(&g->ring);
	slots_unlock(&g->ring);
	return 1;
}

/* Write finished blocks in order; wait: every block handed out. */
static int drain(struct gzpar_writer *g, int wait)
{
	int r;

	while ((r = write_head(g, wait)) > 0)
		;
	return r;
}

/* Hand the filled block to a worker (or compress it here). */
static int submit(struct gzpar_writer *g, int last)
{
	struct block *b = g->cur;
	size_t j;

	b->last = last;
	g->cur = NULL;
	slots_lock(&g->ring);
	slots_publish(&g->ring);
	if (!g->nthreads) {
		/* no worker: this thread is one (the lock is nobody else's) */
		slots_take(&g->ring, &j);
		b->failed = compress_block(&g->inline_z, b);
		slots_complete(&g->ring, j);
	}
	slots_unlock(&g->ring);
	return drain(g, 0);
}

/* Take the next block for filling, once the one that had its place is
 * written. */
static int start_block(struct gzpar_writer *g)
{
	size_t j = slots_next(&g->ring);
	struct block *b = &g->blocks[j % g->nblock];

	while (slots_full(&g->ring)) {
		if (write_head(g, 1) <= 0)
			return -1;
	}
	b->in_len = 0;
	b->dict_len = 0;
	if (j > 0) {
		/* The previous block is full (only the last may be short). */
		struct block *p = &g->blocks[(j - 1) % g->nblock];
		memcpy(b->dict, p->in + p->in_len - GZPAR_DICT, GZPAR_DICT);
		b->dict_len = GZPAR_DICT;
	}
	g->cur = b;
	return 0;
}

static int alloc_blocks(struct gzpar_writer *g)
{
	int i;

	g->blocks = calloc((size_t)g->nblock, sizeof(*g->blocks));
	if (!g->blocks)
		return -1;
	for (i = 0; i < g->nblock; i++) {
		struct block *s = &g->blocks[i];
		s->out_cap = GZPAR_BLOCK + GZPAR_BLOCK / 8 + 1024;
		s->in = malloc(GZPAR_BLOCK);
		s->dict = malloc(GZPAR_DICT);
		s->out = malloc(s->out_cap);
		if (!s->in || !s->dict || !s->out)
			return -1;
	}
	return 0;
}

struct gzpar_writer *gzpar_writer_open(int level, int threads, gzpar_sink_fn sink, void *arg)
{
	struct gzpar_writer *g = calloc(1, sizeof(*g));
	int i;

	if (!g)
		return NULL;
	if (level < 0 || level > 9)
		level = 6;
	if (threads <= 0)
		threads = gzpar_default_threads();
	if (threads > GZPAR_MAX_THREADS)
		threads = GZPAR_MAX_THREADS;
	g->level = level;
	g->sink = sink;
	g->arg = arg;
	g->crc = crc32(0, NULL, 0);
	g->nblock = threads > 1 ? 2 * threads + 2 : 2;
	if (slots_init(&g->ring, (size_t)g->nblock, &g->stop)) {
		free(g);
		return NULL;
	}
	if (alloc_blocks(g))
		goto fail;
	if (deflate_init(&g->inline_z, level) != Z_OK)
		goto fail;
	g->inline_ready = 1;
	for (i = 0; threads > 1 && i < threads; i++) {
		if (pthread_create(&g->th[i], NULL, worker, g))
			break; /* fewer workers, or inline: still correct */
		g->nthreads++;
	}
	return g;
fail:
	gzpar_writer_free(g);
	return NULL;
}

int gzpar_writer_write(struct gzpar_writer *g, const void *p, size_t n)
{
	const unsigned char *b = p;

	if (g->failed || g->finished)
		return -1;
	if (!g->header_done && write_header(g))
		return -1;
	while (n) {
		if (g->cur && g->cur->in_len == GZPAR_BLOCK && submit(g, 0))
			return -1;
		if (!g->cur && start_block(g))
			return -1;
		size_t take = GZPAR_BLOCK - g->cur->in_len;
		if (take > n)
			take = n;
		memcpy(g->cur->in + g->cur->in_len, b, take);
		g->cur->in_len += take;
		g->in_bytes += take;
		b += take;
		n -= take;
	}
	return 0;
}

int gzpar_writer_finish(struct gzpar_writer *g)
{
	unsigned char t[8];
	int i;

	if (g->failed || g->finished)
		return -1;
	if (!g->header_done && write_header(g))
		return -1;
	if (!g->cur && start_block(g))
		return -1;
	if (submit(g, 1) || drain(g, 1))
		return -1;
	for (i = 0; i < 4; i++) {
		t[i] = (unsigned char)(g->crc >> (8 * i));
		t[4 + i] = (unsigned char)(g->in_bytes >> (8 * i));
	}
	g->finished = 1;
	return sink_write(g, t, sizeof(t));
}

int gzpar_writer_reset(struct gzpar_writer *g, gzpar_sink_fn sink, void *arg)
{
	/* Workers may still hold blocks of an unfinished stream. */
	if (g->nthreads && !g->finished)
		return -1;
	slots_lock(&g->ring);
	slots_reset(&g->ring);
	slots_unlock(&g->ring);
	g->cur = NULL;
	g->sink = sink;
	g->arg = arg;
	g->crc = crc32(0, NULL, 0);
	g->in_bytes = g->out_bytes = 0;
	g->failed = g->finished = g->header_done = 0;
	g->err[0] = 0;
	return 0;
}

const char *gzpar_writer_error(const struct gzpar_writer *g)
{
	return g->err;
}

unsigned long long gzpar_writer_out_bytes(const struct gzpar_writer *g)
{
	return g->out_bytes;
}

void gzpar_writer_free(struct gzpar_writer *g)
{
	int i;

	if (!g)
		return;
	slots_lock(&g->ring);
	g->stop = 1;
	slots_wake(&g->ring);
	slots_unlock(&g->ring);
	for (i = 0; i < g->nthreads; i++)
		pthread_join(g->th[i], NULL);
	if (g->inline_ready)
		deflateEnd(&g->inline_z);
	for (i = 0; g->blocks && i < g->nblock; i++) {
		free(g->blocks[i].in);
		free(g->blocks[i].dict);
		free(g->blocks[i].out);
	}
	free(g->blocks);
	slots_destroy(&g->ring);
	free(g);
}

/* ---- reader ---- */

enum {
	READ_MEMBER,
	READ_BETWEEN,
	READ_END,
	READ_FAILED
};

struct gzpar_reader {
	z_stream z;
	int zinit;
	int state;
	int members;
	int eof;
	gzpar_source_fn src;
	void *arg;
	unsigned long long limit, out_bytes, in_bytes;
	char err[256];
	unsigned char in[65536];
};

struct gzpar_reader *gzpar_reader_open(gzpar_source_fn src, void *arg, unsigned long long limit)
{
	struct gzpar_reader *z = calloc(1, sizeof(*z));

	if (!z)
		return NULL;
	/* 15 + 16: a gzip wrapper only, so raw deflate or zlib data is
	 * refused rather than guessed at. */
	if (inflateInit2(&z->z, 15 + 16) != Z_OK) {
		free(z);
		return NULL;
	}
	z->zinit = 1;
	z->src = src;
	z->arg = arg;
	z->limit = limit;
	return z;
}

static ssize_t reader_fail(struct gzpar_reader *z, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static ssize_t reader_fail(struct gzpar_reader *z, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(z->err, sizeof(z->err), fmt, ap);
	va_end(ap);
	z->state = READ_FAILED;
	return -1;
}

/* More input into z->in when it is used up. 0, 1 at end, -1 error. */
static int refill(struct gzpar_reader *z)
{
	ssize_t n;

	if (z->z.avail_in)
		return 0;
	if (z->eof)
		return 1;
	do
		n = z->src(z->arg, z->in, sizeof(z->in));
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		reader_fail(z, "gzip: reading the input: %s", strerror(errno));
		return -1;
	}
	if (n == 0) {
		z->eof = 1;
		return 1;
	}
	z->in_bytes += (size_t)n;
	z->z.next_in = z->in;
	z->z.avail_in = (uInt)n;
	return 0;
}

/* After a member: another member, zero padding, or the end. */
static int between(struct gzpar_reader *z)
{
	for (;;) {
		int r = refill(z);
		if (r < 0)
			return -1;
		if (r > 0) {
			z->state = READ_END;
			return 0;
		}
		if (z->z.next_in[0] == 0x1f) {
			inflateReset(&z->z);
			z->state = READ_MEMBER;
			return 0;
		}
		while (z->z.avail_in && z->z.next_in[0] == 0) {
			z->z.next_in++;
			z->z.avail_in--;
		}
		if (z->z.avail_in)
			return (int)reader_fail(z, "gzip: trailing garbage after member %d (offset %llu)",
						z->members, z->in_bytes - z->z.avail_in);
	}
}

ssize_t gzpar_reader_read(struct gzpar_reader *z, void *p, size_t n)
{
	for (;;) {
		if (z->state == READ_FAILED)
			return -1;
		if (z->state == READ_END || !n)
			return 0;
		if (z->state == READ_BETWEEN) {
			if (between(z))
				return -1;
			continue;
		}
		int r = refill(z);
		if (r < 0)
			return -1;
		if (r > 0) {
			if (!z->members && !z->in_bytes)
				return reader_fail(z, "gzip: empty input, not a gzip stream");
			return reader_fail(z, "gzip: truncated stream: member %d ends early, after %llu bytes of output",
					   z->members + 1, z->out_bytes);
		}
		/* Room for one byte past the limit, to see it crossed. */
		size_t room = n;
		if (z->limit && room > z->limit - z->out_bytes + 1)
			room = (size_t)(z->limit - z->out_bytes + 1);
		z->z.next_out = p;
		z->z.avail_out = (uInt)(room > (1u << 30) ? (1u << 30) : room);
		uInt before = z->z.avail_out;
		int ret = inflate(&z->z, Z_NO_FLUSH);
		size_t got = before - z->z.avail_out;
		z->out_bytes += got;
		if (z->limit && z->out_bytes > z->limit)
			return reader_fail(z, "gzip: decompressed data exceeds the limit of %llu bytes (a gzip bomb?)",
					   z->limit);
		if (ret == Z_STREAM_END) {
			z->members++;
			z->state = READ_BETWEEN;
		} else if (ret == Z_DATA_ERROR || ret == Z_NEED_DICT) {
			return reader_fail(z, "gzip: corrupt data in member %d after %llu bytes of output: %s",
					   z->members + 1, z->out_bytes,
					   z->z.msg ? z->z.msg : "invalid deflate data");
		} else if (ret == Z_MEM_ERROR) {
			return reader_fail(z, "gzip: out of memory");
		}
		if (got)
			return (ssize_t)got;
	}
}

const char *gzpar_reader_error(const struct gzpar_reader *z)
{
	return z->err;
}

unsigned long long gzpar_reader_out_bytes(const struct gzpar_reader *z)
{
	return z->out_bytes;
}

unsigned long long gzpar_reader_in_bytes(const struct gzpar_reader *z)
{
	return z->in_bytes;
}

void gzpar_reader_free(struct gzpar_reader *z)
{
	if (!z)
		return;
	if (z->zinit)
		inflateEnd(&z->z);
	free(z);
}

/* ---- whole buffers (read --gzip, write --gzip, upload) ---- */

static int buf_sink(void *arg, const void *p, size_t n)
{
	buf_add(arg, p, n);
	return ((struct buf *)arg)->oom ? -1 : 0;
}

int gzpar_gzip_buf(const void *p, size_t n, struct buf *out)
{
	struct gzpar_writer *g = gzpar_writer_open(6, 1, buf_sink, out);
	int rc = !g || gzpar_writer_write(g, p, n) || gzpar_writer_finish(g) ? -1 : 0;

	gzpar_writer_free(g);
	return rc;
}

struct mem_src {
	const char *p;
	size_t n;
};

static ssize_t mem_source(void *arg, void *p, size_t n)
{
	struct mem_src *m = arg;

	if (n > m->n)
		n = m->n;
	memcpy(p, m->p, n);
	m->p += n;
	m->n -= n;
	return (ssize_t)n;
}

int gzpar_gunzip_buf(const void *p, size_t n, unsigned long long limit,
		     struct buf *out, char *err, size_t errlen)
{
	struct mem_src m = {p, n};
	struct gzpar_reader *z = gzpar_reader_open(mem_source, &m, limit);
	char tmp[16384];
	ssize_t got = -1;

	while (z && (got = gzpar_reader_read(z, tmp, sizeof(tmp))) > 0)
		buf_add(out, tmp, (size_t)got);
	snprintf(err, errlen, "%s", !z || out->oom ? "out of memory" : gzpar_reader_error(z));
	gzpar_reader_free(z);
	return got < 0 || out->oom ? -1 : 0;
}
