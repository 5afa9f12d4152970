/* tar.h - a ustar writer with pax extended headers, and a streaming reader
 * of ustar, pax ('x', 'g') and GNU long-name ('L', 'K') archives.
 *
 * Both work on callbacks, keep their state in the object and report errors
 * as messages (naming the entry) in the object: re-entrant, nothing prints.
 * The reader's memory is flat: one header, the current names, and a pax
 * header of at most TAR_MAX_META bytes.
 */
#ifndef WFS_TAR_H
#define WFS_TAR_H

#include <stddef.h>
#include <sys/types.h>

#define TAR_BLOCK 512
#define TAR_MAX_META (1024 * 1024) /* pax header or GNU long name */

enum {
	TAR_FILE = '0',
	TAR_HARDLINK = '1',
	TAR_SYMLINK = '2',
	TAR_CHAR = '3',
	TAR_BLOCKDEV = '4',
	TAR_DIR = '5',
	TAR_FIFO = '6',
};

struct tar_entry {
	char type;            /* TAR_* (the reader maps '\0' and '7' to '0') */
	const char *name;     /* directories may end in '/' */
	const char *linkname; /* symlink target ("" for others) */
	unsigned mode;        /* permission bits (07777) */
	unsigned long long size;
	long long mtime; /* seconds */
	long mtime_nsec;
	unsigned long long uid, gid;
};

typedef int (*tar_sink_fn)(void *arg, const void *p, size_t n);
/* Bytes read (short only at the end), 0 at end, -1 on error. */
typedef ssize_t (*tar_source_fn)(void *arg, void *p, size_t n);
/* The message of the source's last error, or NULL for strerror(errno). */
typedef const char *(*tar_source_error_fn)(void *arg);

struct tar_writer {
	tar_sink_fn sink;
	void *arg;
	unsigned long long bytes; /* written so far */
	unsigned long long left;  /* data bytes the current entry still owes */
	char name[256];           /* current entry, for messages */
	char err[512];
};

void tar_writer_init(struct tar_writer *w, tar_sink_fn sink, void *arg);
/* A header (preceded by a pax header when the name, link target, size,
 * mtime or ids do not fit ustar). The entry's size bytes of data must
 * follow through tar_write_data. 0 or -1 with w->err set. */
int tar_write_header(struct tar_writer *w, const struct tar_entry *e);
/* Entry data; the padding is written once the declared size is reached.
 * Writing more than declared is an error. */
int tar_write_data(struct tar_writer *w, const void *p, size_t n);
/* Zeros for the rest of the declared size (a file that shrank while read),
 * then the padding. */
int tar_write_fill(struct tar_writer *w);
/* The end-of-archive marker (two zero blocks). */
int tar_write_end(struct tar_writer *w);

struct tar_reader;

struct tar_reader *tar_reader_open(tar_source_fn src,
				   tar_source_error_fn src_error, void *arg);
/* The next entry: 1 (e filled; its strings live until the next call),
 * 0 at the end-of-archive marker, -1 with tar_error set. The data of the
 * previous entry that was not read is skipped. */
int tar_next(struct tar_reader *r, struct tar_entry *e);
/* The current entry's data: bytes read, 0 at its end, -1 with tar_error
 * set (a truncated archive names the entry). */
ssize_t tar_read(struct tar_reader *r, void *p, size_t n);
const char *tar_error(const struct tar_reader *r);
void tar_reader_free(struct tar_reader *r);

#endif
