/* gzpar.h - gzip streams: a parallel writer (pigz's scheme) and a streaming
 * reader with a decompression limit.
 *
 * Writer: the input is cut into GZPAR_BLOCK-byte blocks, each deflated by a
 * worker thread on its own, primed with the previous 32 KiB of input as a
 * dictionary and ended on a byte boundary (Z_SYNC_FLUSH, the last one
 * Z_FINISH); the blocks go out in order as ONE gzip member whose CRC is
 * the blocks' CRCs combined. At most 2 blocks per worker are in flight, so
 * memory is bounded (about 300 KB per block plus zlib's state per worker).
 *
 * Both are re-entrant: all state lives in the object; errors are values
 * (a message in the object), nothing prints.
 */
#ifndef WFS_GZPAR_H
#define WFS_GZPAR_H

#include <stddef.h>
#include <sys/types.h>

#define GZPAR_BLOCK (128 * 1024)
#define GZPAR_DICT (32 * 1024)
#define GZPAR_MAX_THREADS 8

/* Sink of compressed bytes: 0, or -1 (errno set) to stop. */
typedef int (*gzpar_sink_fn)(void *arg, const void *p, size_t n);
/* Source of compressed bytes: bytes read, 0 at end, -1 (errno set). */
typedef ssize_t (*gzpar_source_fn)(void *arg, void *p, size_t n);

/* Worker count: the online cores, clamped to 1..GZPAR_MAX_THREADS (a
 * caller passes WICKFS_THREADS from its settings to gzpar_writer_open). */
int gzpar_default_threads(void);

struct gzpar_writer;

/* A writer at LEVEL (0-9; -1 default 6) with THREADS workers (<= 0: the
 * default; 1: compress in the calling thread). NULL when out of memory. */
struct gzpar_writer *gzpar_writer_open(int level, int threads, gzpar_sink_fn sink, void *arg);
/* Append input. 0, or -1 once any error happened (gzpar_writer_error says which). */
int gzpar_writer_write(struct gzpar_writer *g, const void *p, size_t n);
/* Compress what is left, write the trailer, stop the workers. 0 or -1. */
int gzpar_writer_finish(struct gzpar_writer *g);
/* Start a new stream to another sink with the same buffers and zlib state,
 * which cost more than compressing a small file (mmap and page faults for
 * about 900 KB). Allowed after gzpar_writer_finish, or at any point for a
 * writer of one thread. 0, or -1 when not allowed. */
int gzpar_writer_reset(struct gzpar_writer *g, gzpar_sink_fn sink, void *arg);
/* The first error's message ("" when none). */
const char *gzpar_writer_error(const struct gzpar_writer *g);
/* Output bytes so far. */
unsigned long long gzpar_writer_out_bytes(const struct gzpar_writer *g);
/* Stop the workers (if gzpar_writer_finish was not called) and free. */
void gzpar_writer_free(struct gzpar_writer *g);

struct gzpar_reader;

/* A reader of one or more concatenated gzip members (pigz -i, cat a.gz
 * b.gz). LIMIT bounds the decompressed bytes (0: no bound): reading past it
 * is an error, the defence against gzip bombs. NULL when out of memory. */
struct gzpar_reader *gzpar_reader_open(gzpar_source_fn src, void *arg, unsigned long long limit);
/* Up to n decompressed bytes: the count, 0 at the end of the last member
 * (its CRC and length checked), -1 with gzpar_reader_error set. Zero bytes
 * after the last member are accepted (tape padding); anything else is an
 * error. */
ssize_t gzpar_reader_read(struct gzpar_reader *z, void *p, size_t n);
const char *gzpar_reader_error(const struct gzpar_reader *z);
unsigned long long gzpar_reader_out_bytes(const struct gzpar_reader *z);
unsigned long long gzpar_reader_in_bytes(const struct gzpar_reader *z);
void gzpar_reader_free(struct gzpar_reader *z);

/* A buffer as one gzip member (level 6), appended to out: 0 or -1. */
struct buf;
int gzpar_gzip_buf(const void *p, size_t n, struct buf *out);
/* A gzip stream in memory, decompressed and appended to out, at most
 * limit bytes (0: no bound): 0, or -1 with the reason in err. */
int gzpar_gunzip_buf(const void *p, size_t n, unsigned long long limit,
		     struct buf *out, char *err, size_t errlen);

#endif
