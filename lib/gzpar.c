/* gzpar.c - parallel gzip writer and a bounded streaming gzip reader.
 *
 * The writer follows pigz's scheme: raw deflate per block, each block
 * primed with the 32 KiB of input before it (so the ratio stays close to
 * one-stream gzip), each ended on a byte boundary so the compressed blocks
 * concatenate into one valid deflate stream, CRCs combined in order.
 * The caller's thread fills blocks and writes finished ones in order;
 * workers only compress. A slot ring bounds the blocks in flight.
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
#include "gzpar.h"

enum {
	SLOT_FREE,
	SLOT_FILLING,
	SLOT_READY,
	SLOT_BUSY,
	SLOT_DONE,
	SLOT_FAILED
};

struct slot {
	int state;
	int last;
	long long seq;
	unsigned char *in;
	size_t in_len;
	unsigned char *dict;
	size_t dict_len;
	unsigned char *out;
	size_t out_len, out_cap;
	unsigned long crc;
};

struct gzw {
	pthread_mutex_t mu;
	pthread_cond_t work, done;
	struct slot *slots;
	int nslot;
	int nthreads; /* workers running; 0: compress inline */
	pthread_t th[GZPAR_MAX_THREADS];
	int stop;
	int level;
	z_stream inline_z;
	int inline_ready;
	long long fill_seq;  /* block being filled */
	long long take_seq;  /* next block a worker takes */
	long long write_seq; /* next block to write out */
	struct slot *cur;
	gz_sink_fn sink;
	void *arg;
	unsigned long crc;
	unsigned long long in_bytes, out_bytes;
	int failed, finished, header_done;
	char err[256];
};

int gz_default_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		n = 1;
	if (n > GZPAR_MAX_THREADS)
		n = GZPAR_MAX_THREADS;
	return (int)n;
}

static void set_err(struct gzw *g, const char *fmt, const char *detail)
{
	if (g->failed)
		return;
	g->failed = 1;
	snprintf(g->err, sizeof(g->err), fmt, detail);
}

/* Deflate one block into its out buffer. 0, or -1 (zlib failed). */
static int compress_block(z_stream *z, struct slot *s)
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
	struct gzw *g = arg;
	z_stream z;
	int ok = deflate_init(&z, g->level) == Z_OK;

	pthread_mutex_lock(&g->mu);
	for (;;) {
		struct slot *s = &g->slots[g->take_seq % g->nslot];

		if (g->stop)
			break;
		if (s->state != SLOT_READY || s->seq != g->take_seq) {
			pthread_cond_wait(&g->work, &g->mu);
			continue;
		}
		g->take_seq++;
		s->state = SLOT_BUSY;
		pthread_mutex_unlock(&g->mu);
		int r = ok ? compress_block(&z, s) : -1;
		pthread_mutex_lock(&g->mu);
		s->state = r ? SLOT_FAILED : SLOT_DONE;
		pthread_cond_broadcast(&g->done);
	}
	pthread_mutex_unlock(&g->mu);
	if (ok)
		deflateEnd(&z);
	return NULL;
}

static int sink_write(struct gzw *g, const void *p, size_t n)
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

static int write_header(struct gzw *g)
{
	unsigned char h[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};

	/* XFL: 2 = best compression, 4 = fastest, as gzip marks them. */
	h[8] = g->level == 9 ? 2 : g->level == 1 ? 4
						 : 0;
	g->header_done = 1;
	return sink_write(g, h, sizeof(h));
}

/* Write finished blocks in order; with WAIT, block until every block
 * before seq `upto` is written. */
static int drain(struct gzw *g, long long upto, int wait)
{
	while (g->write_seq < upto) {
		struct slot *s = &g->slots[g->write_seq % g->nslot];

		pthread_mutex_lock(&g->mu);
		while (wait && (s->state == SLOT_READY || s->state == SLOT_BUSY))
			pthread_cond_wait(&g->done, &g->mu);
		int state = s->state;
		pthread_mutex_unlock(&g->mu);
		if (state == SLOT_FAILED) {
			set_err(g, "gzip: deflate failed%s", " (out of memory?)");
			return -1;
		}
		if (state != SLOT_DONE)
			return 0;
		if (sink_write(g, s->out, s->out_len))
			return -1;
		g->crc = crc32_combine(g->crc, s->crc, (z_off_t)s->in_len);
		g->write_seq++;
		pthread_mutex_lock(&g->mu);
		s->state = SLOT_FREE;
		pthread_mutex_unlock(&g->mu);
	}
	return 0;
}

/* Hand the filled block to a worker (or compress it here). */
static int submit(struct gzw *g, int last)
{
	struct slot *s = g->cur;

	s->last = last;
	g->cur = NULL;
	g->fill_seq++;
	if (!g->nthreads) {
		s->state = compress_block(&g->inline_z, s) ? SLOT_FAILED : SLOT_DONE;
		return drain(g, g->fill_seq, 0);
	}
	pthread_mutex_lock(&g->mu);
	s->state = SLOT_READY;
	pthread_cond_signal(&g->work);
	pthread_mutex_unlock(&g->mu);
	return drain(g, g->fill_seq, 0);
}

/* Take the next slot for filling, writing out its old block first. */
static int start_block(struct gzw *g)
{
	struct slot *s = &g->slots[g->fill_seq % g->nslot];

	if (drain(g, g->fill_seq - g->nslot + 1, 1))
		return -1;
	pthread_mutex_lock(&g->mu); /* workers scan states under the lock */
	s->state = SLOT_FILLING;
	s->seq = g->fill_seq;
	pthread_mutex_unlock(&g->mu);
	s->in_len = 0;
	s->dict_len = 0;
	if (g->fill_seq > 0) {
		/* The previous block is full (only the last may be short). */
		struct slot *p = &g->slots[(g->fill_seq - 1) % g->nslot];
		memcpy(s->dict, p->in + p->in_len - GZPAR_DICT, GZPAR_DICT);
		s->dict_len = GZPAR_DICT;
	}
	g->cur = s;
	return 0;
}

static int alloc_slots(struct gzw *g)
{
	int i;

	g->slots = calloc((size_t)g->nslot, sizeof(*g->slots));
	if (!g->slots)
		return -1;
	for (i = 0; i < g->nslot; i++) {
		struct slot *s = &g->slots[i];
		s->out_cap = GZPAR_BLOCK + GZPAR_BLOCK / 8 + 1024;
		s->in = malloc(GZPAR_BLOCK);
		s->dict = malloc(GZPAR_DICT);
		s->out = malloc(s->out_cap);
		if (!s->in || !s->dict || !s->out)
			return -1;
	}
	return 0;
}

struct gzw *gzw_open(int level, int threads, gz_sink_fn sink, void *arg)
{
	struct gzw *g = calloc(1, sizeof(*g));
	int i;

	if (!g)
		return NULL;
	if (level < 0 || level > 9)
		level = 6;
	if (threads <= 0)
		threads = gz_default_threads();
	if (threads > GZPAR_MAX_THREADS)
		threads = GZPAR_MAX_THREADS;
	g->level = level;
	g->sink = sink;
	g->arg = arg;
	g->crc = crc32(0, NULL, 0);
	g->nslot = threads > 1 ? 2 * threads + 2 : 2;
	pthread_mutex_init(&g->mu, NULL);
	pthread_cond_init(&g->work, NULL);
	pthread_cond_init(&g->done, NULL);
	if (alloc_slots(g))
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
	gzw_free(g);
	return NULL;
}

int gzw_write(struct gzw *g, const void *p, size_t n)
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

int gzw_finish(struct gzw *g)
{
	unsigned char t[8];
	int i;

	if (g->failed || g->finished)
		return -1;
	if (!g->header_done && write_header(g))
		return -1;
	if (!g->cur && start_block(g))
		return -1;
	if (submit(g, 1) || drain(g, g->fill_seq, 1))
		return -1;
	for (i = 0; i < 4; i++) {
		t[i] = (unsigned char)(g->crc >> (8 * i));
		t[4 + i] = (unsigned char)(g->in_bytes >> (8 * i));
	}
	g->finished = 1;
	return sink_write(g, t, sizeof(t));
}

int gzw_reset(struct gzw *g, gz_sink_fn sink, void *arg)
{
	int i;

	/* Workers may still hold blocks of an unfinished stream. */
	if (g->nthreads && !g->finished)
		return -1;
	for (i = 0; i < g->nslot; i++)
		g->slots[i].state = SLOT_FREE;
	g->fill_seq = g->take_seq = g->write_seq = 0;
	g->cur = NULL;
	g->sink = sink;
	g->arg = arg;
	g->crc = crc32(0, NULL, 0);
	g->in_bytes = g->out_bytes = 0;
	g->failed = g->finished = g->header_done = 0;
	g->err[0] = 0;
	return 0;
}

const char *gzw_error(const struct gzw *g)
{
	return g->err;
}

unsigned long long gzw_out_bytes(const struct gzw *g)
{
	return g->out_bytes;
}

void gzw_free(struct gzw *g)
{
	int i;

	if (!g)
		return;
	pthread_mutex_lock(&g->mu);
	g->stop = 1;
	pthread_cond_broadcast(&g->work);
	pthread_mutex_unlock(&g->mu);
	for (i = 0; i < g->nthreads; i++)
		pthread_join(g->th[i], NULL);
	if (g->inline_ready)
		deflateEnd(&g->inline_z);
	for (i = 0; g->slots && i < g->nslot; i++) {
		free(g->slots[i].in);
		free(g->slots[i].dict);
		free(g->slots[i].out);
	}
	free(g->slots);
	pthread_mutex_destroy(&g->mu);
	pthread_cond_destroy(&g->work);
	pthread_cond_destroy(&g->done);
	free(g);
}

/* ---- reader ---- */

enum {
	GZR_MEMBER,
	GZR_BETWEEN,
	GZR_END,
	GZR_FAILED
};

struct gzr {
	z_stream z;
	int zinit;
	int state;
	int members;
	int eof;
	gz_source_fn src;
	void *arg;
	unsigned long long limit, out_bytes, in_bytes;
	char err[256];
	unsigned char in[65536];
};

struct gzr *gzr_open(gz_source_fn src, void *arg, unsigned long long limit)
{
	struct gzr *z = calloc(1, sizeof(*z));

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

static ssize_t gzr_fail(struct gzr *z, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static ssize_t gzr_fail(struct gzr *z, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(z->err, sizeof(z->err), fmt, ap);
	va_end(ap);
	z->state = GZR_FAILED;
	return -1;
}

/* More input into z->in when it is used up. 0, 1 at end, -1 error. */
static int refill(struct gzr *z)
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
		gzr_fail(z, "gzip: reading the input: %s", strerror(errno));
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
static int between(struct gzr *z)
{
	for (;;) {
		int r = refill(z);
		if (r < 0)
			return -1;
		if (r > 0) {
			z->state = GZR_END;
			return 0;
		}
		if (z->z.next_in[0] == 0x1f) {
			inflateReset(&z->z);
			z->state = GZR_MEMBER;
			return 0;
		}
		while (z->z.avail_in && z->z.next_in[0] == 0) {
			z->z.next_in++;
			z->z.avail_in--;
		}
		if (z->z.avail_in)
			return (int)gzr_fail(z, "gzip: trailing garbage after member %d (offset %llu)",
					     z->members, z->in_bytes - z->z.avail_in);
	}
}

ssize_t gzr_read(struct gzr *z, void *p, size_t n)
{
	for (;;) {
		if (z->state == GZR_FAILED)
			return -1;
		if (z->state == GZR_END || !n)
			return 0;
		if (z->state == GZR_BETWEEN) {
			if (between(z))
				return -1;
			continue;
		}
		int r = refill(z);
		if (r < 0)
			return -1;
		if (r > 0) {
			if (!z->members && !z->in_bytes)
				return gzr_fail(z, "gzip: empty input, not a gzip stream");
			return gzr_fail(z, "gzip: truncated stream: member %d ends early, after %llu bytes of output",
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
			return gzr_fail(z, "gzip: decompressed data exceeds the limit of %llu bytes (a gzip bomb?)",
					z->limit);
		if (ret == Z_STREAM_END) {
			z->members++;
			z->state = GZR_BETWEEN;
		} else if (ret == Z_DATA_ERROR || ret == Z_NEED_DICT) {
			return gzr_fail(z, "gzip: corrupt data in member %d after %llu bytes of output: %s",
					z->members + 1, z->out_bytes,
					z->z.msg ? z->z.msg : "invalid deflate data");
		} else if (ret == Z_MEM_ERROR) {
			return gzr_fail(z, "gzip: out of memory");
		}
		if (got)
			return (ssize_t)got;
	}
}

const char *gzr_error(const struct gzr *z)
{
	return z->err;
}

unsigned long long gzr_out_bytes(const struct gzr *z)
{
	return z->out_bytes;
}

unsigned long long gzr_in_bytes(const struct gzr *z)
{
	return z->in_bytes;
}

void gzr_free(struct gzr *z)
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

int gz_buf(const void *p, size_t n, struct buf *out)
{
	struct gzw *g = gzw_open(6, 1, buf_sink, out);
	int rc = !g || gzw_write(g, p, n) || gzw_finish(g) ? -1 : 0;

	gzw_free(g);
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

int gunzip_buf(const void *p, size_t n, unsigned long long limit,
	       struct buf *out, char *err, size_t errlen)
{
	struct mem_src m = {p, n};
	struct gzr *z = gzr_open(mem_source, &m, limit);
	char tmp[16384];
	ssize_t got = -1;

	while (z && (got = gzr_read(z, tmp, sizeof(tmp))) > 0)
		buf_add(out, tmp, (size_t)got);
	snprintf(err, errlen, "%s", !z || out->oom ? "out of memory" : gzr_error(z));
	gzr_free(z);
	return got < 0 || out->oom ? -1 : 0;
}
