/* textops.h - patch, insert-line and apply-patch on files (lib/textops.c,
 * lib/applypatch_fs.c). Errors name the path; WICKFS_READONLY refuses. */
#ifndef WFS_TEXTOPS_H
#define WFS_TEXTOPS_H

#include <stddef.h>
#include "buf.h"
#include "filelock.h"
#include "patch.h"
#include "wickfs.h"

/* Stage data and rename it over the locked file (mode kept). */
int wfs_commit_new(struct wfs_ctx *c, const char *op, struct wfs_locked *l,
		   const char *data, size_t len);

/* Apply edits to path all or nothing, in one atomic replace. */
int wfs_patch(struct wfs_ctx *c, const char *path,
	      const struct patch_edit *edits, size_t n);

/* Insert text after line `after` (0 = top). */
int wfs_insert_line(struct wfs_ctx *c, const char *path, size_t after,
		    const char *text, size_t len);

/* One file apply-patch changed, for the answer. */
struct wfs_patched {
	const char *op;   /* "add", "delete", "update" */
	const char *path; /* as in the patch */
	const char *move_to;
};

/* Parse and apply an "*** Begin Patch" text: every file changes or none
 * does. *files / *n list what changed. */
int wfs_apply_patch(struct wfs_ctx *c, const char *text, size_t len,
		    struct wfs_patched **files, size_t *n);

#endif
