/* fsops.h - the filesystem operations beyond the reference seven
 *
 * Each acts on a name in a directory opened first (beneath the root when
 * confined, by a walk that follows no link), through the *at calls, so a
 * component swapped for a symlink meanwhile cannot lead out. Each returns
 * 0, or -1 with "OP PATH: cause" in ctx->err.
 */
#ifndef WFS_FSOPS_H
#define WFS_FSOPS_H

#include <sys/stat.h>
#include "buf.h"
#include "wickfs.h"

/* stat: the JSON object of PATH's metadata appended to out. */
int wfs_stat_json(struct wfs_ctx *c, const char *path, int follow,
		  struct buf *out);
/* exists: *yes 0/1; *type the type name when it exists. Missing is no
 * error; a refusal of the root is. */
int wfs_exists(struct wfs_ctx *c, const char *path, int *yes,
	       const char **type);
int wfs_mkdir(struct wfs_ctx *c, const char *path, int parents, int *created);
/* rm: *removed counts the entries removed. */
int wfs_rm(struct wfs_ctx *c, const char *path, int recursive, int force,
	   long long *removed);
/* mv, cp: when DST is an existing directory (or a link to one), SRC
 * lands inside it under its own last name; *landed is the path it got
 * (DST, or DST/NAME). */
int wfs_mv(struct wfs_ctx *c, const char *src, const char *dst,
	   int no_clobber, int *copied, const char **landed);
int wfs_cp(struct wfs_ctx *c, const char *src, const char *dst,
	   int recursive, int no_clobber, long long *copied,
	   const char **landed);
/* The start of mv's and cp's answer: {"src":SRC,"dst":DST (unclosed). */
void fsops_put_src_dst(struct buf *out, const char *src, const char *dst);
/* append: data added at the end, under the lock edit and write take. */
int wfs_append(struct wfs_ctx *c, const char *op, const char *path,
	       const char *data, size_t len);
int wfs_symlink(struct wfs_ctx *c, const char *target, const char *path);
int wfs_readlink(struct wfs_ctx *c, const char *path, char **target);
/* chmod: MODE octal, or symbolic (u+x, go-w, a=r, comma-separated). */
int wfs_chmod(struct wfs_ctx *c, const char *mode, const char *path,
	      unsigned *newmode);
/* ls --depth N (1: PATH's entries only; 0: no limit), --long (mode,
 * perm, mtime, link_target): the JSON array appended to out. */
int wfs_ls_tree(struct wfs_ctx *c, const char *path, int depth, int lng,
		struct buf *out);
/* "-rwxr-xr-x" for a mode (buf of 11). */
void fsops_mode_string(mode_t m, char *out);
/* RFC 3339 UTC with nanoseconds (buf of 40). */
void fsops_rfc3339(long long sec, long nsec, char *out, size_t n);

#endif
