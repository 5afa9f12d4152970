/* archive.h - pack a tree into a gzip tar, unpack one into a directory.
 *
 * Both stream: memory stays flat whatever the size of the tree (the names
 * of one directory at a time when packing; one entry when unpacking).
 */
#ifndef WFS_ARCHIVE_H
#define WFS_ARCHIVE_H

#include "wickfs.h"

/* Unpack's default bound on decompressed bytes (tar headers included):
 * the gzip-bomb limit. --max-bytes / WICKFS_UNPACK_MAX change it. */
#define ARCHIVE_DEFAULT_MAX (4ULL << 30)
/* At most this many skipped paths are listed (the count is exact). */
#define ARCHIVE_MAX_SKIPPED 1000

/* --progress: a line like "pack: 1200 files, 35.2 MB, 41.0 MB/s" handed
 * to fn about four times a second while the work goes on, and once more at
 * the end (done = 1, also after an error). The caller prints it. */
struct wfs_progress {
	void (*fn)(void *arg, const char *line, int done);
	void *arg;
	unsigned long long every_ns;          /* between lines; 0: 250 ms */
	unsigned long long start_ns, last_ns; /* set by the callee */
};

struct wfs_pack_opts {
	const char *dir;
	const char **exclude; /* globs, as grep's --exclude */
	int nexclude;
	int level;                     /* 0-9, -1: 6 */
	int threads;                   /* <= 0: WICKFS_THREADS, else the cores */
	int whole_seconds;             /* no pax mtime records (3% smaller for
			       * small files, mtimes cut to seconds) */
	int out_fd;                    /* the gzip stream goes here */
	int gitignore;                 /* leave out what .gitignore files name */
	struct wfs_progress *progress; /* NULL: none */
};

struct wfs_archive_result {
	unsigned long long files, dirs, symlinks;
	unsigned long long bytes;    /* file data */
	unsigned long long gz_bytes; /* compressed size */
	const char **skipped;        /* other types (in c->arena) */
	size_t nskipped;             /* listed */
	unsigned long long skipped_total;
};

int wfs_pack(struct wfs_ctx *c, const struct wfs_pack_opts *o,
	     struct wfs_archive_result *res);
/* wfs_pack into the file output (confined, refused in read-only mode):
 * written to a temporary beside it and renamed over it when complete,
 * so a failure leaves what was there. */
int wfs_pack_file(struct wfs_ctx *c, struct wfs_pack_opts *o, const char *output,
		  struct wfs_archive_result *res);

struct wfs_unpack_opts {
	const char *dir; /* created when missing (one level) */
	int in_fd;
	unsigned long long max_bytes;  /* 0: ARCHIVE_DEFAULT_MAX */
	struct wfs_progress *progress; /* NULL: none */
	int same_permissions;          /* modes as stored (less setuid and
					 setgid), not cut by the umask */
};

/* Every entry lands beneath dir or the whole call fails naming it: no
 * absolute names, no "..", no path through a symlink (all creation goes
 * through directory descriptors opened with O_NOFOLLOW). Each file is
 * written to a temporary name and renamed into place, so an error leaves
 * no partial file; entries completed before the error stay. */
int wfs_unpack(struct wfs_ctx *c, const struct wfs_unpack_opts *o,
	       struct wfs_archive_result *res);
/* wfs_unpack of the regular file input, opened confined. */
int wfs_unpack_file(struct wfs_ctx *c, struct wfs_unpack_opts *o, const char *input,
		    struct wfs_archive_result *res);

/* The result as the data of an envelope: {"files","dirs","symlinks",
 * "bytes","compressed_bytes","skipped":[...],"skipped_total"}. */
/* The names in the directory open at dirfd, sorted bytewise ("." and
 * ".." left out), each and the array malloc'd; NULL with errno set. */
char **archive_list_dir(int dirfd, size_t *n);

void wfs_archive_json(struct buf *b, const struct wfs_archive_result *r);

#endif
