/* transfer.h - files and trees moved in chunks (lib/transfer.c): the
 * operations behind download and upload, and read --bytes's range. */
#ifndef WFS_TRANSFER_H
#define WFS_TRANSFER_H

#include <stddef.h>
#include <sys/stat.h>
#include "archive.h"
#include "ctx.h"

/* Bytes [off, off + lim) of the regular file path (fewer at its end), in
 * c's arena, with its stat; the daemon's budget taken for them. */
struct wfs_range {
	char *data;
	size_t len;
	struct stat st;
};
int wfs_read_range(struct wfs_ctx *c, const char *op, const char *path, long long off,
		   long long lim, struct wfs_range *out);

/* download: a chunk of path, or with tree a chunk of a spool DIR packs
 * into (DIR/.wickfs/download-*.tar.gz, its path in *path); at the end of
 * a spool or with remove, the file is removed. */
struct wfs_download {
	const char *path; /* what was read: path, or the spool */
	int spool;        /* path is a spool this call made */
	struct wfs_range range;
	int eof;
};
int wfs_download(struct wfs_ctx *c, const char *path, long long off, long long lim, int tree,
		 int remove, struct wfs_download *res);

/* upload: data at off of PATH.wickfs-part (tree: PATH/.wickfs/upload.tar.gz);
 * last renames the part to PATH (tree: unpacks it into PATH, *unpacked
 * says what came out). */
int wfs_upload(struct wfs_ctx *c, const char *path, const unsigned char *data, size_t n,
	       long long off, int tree, int last, struct wfs_archive_result *unpacked);

#endif
