/* textops.c - patch, insert-line and apply-patch on files
 *
 * Each holds the lock write and edit take (include/filelock.h) on every
 * file it changes, so none of them loses another's change, and writes
 * through a temp file renamed over the target.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ctx.h"
#include "edit.h"
#include "fs.h"

/* What update() makes of a file's text: patch's edits, or the lines
 * edit --insert-line puts after line `after` (edits NULL). */
struct change {
	const struct patch_edit *edits;
	size_t n;
	size_t after;
	const char *text;
	size_t len;
};

/* The new text into out: 0, or -1 with "OP PATH: what went wrong". */
static int apply_change(struct wfs_ctx *c, const char *op, const char *path,
			const char *data, size_t len, const struct change *ch,
			struct buf *out)
{
	struct patch_error err;
	char msg[512];
	int failed = ch->edits
			     ? patch_apply(data, len, ch->edits, ch->n, out, &err)
			     : patch_insert(data, len, ch->after, ch->text, ch->len, out, &err);

	if (!failed)
		return 0;
	patch_error_text(&err, msg, sizeof(msg));
	return wfs_fail(c, "%s %s: %s", op, path, msg);
}

/* Lock path (which must exist), read it, make the change, replace the
 * file with the result. */
static int update(struct wfs_ctx *c, const char *op, const char *path,
		  const struct change *ch)
{
	struct wfs_locked l;
	struct buf nb;
	char *data;
	size_t len;
	int rc = -1;

	if (wfs_lock_file(c, op, path, 0, &l))
		return -1;
	buf_init(&nb);
	if (!fs_read_fd(c, op, path, l.fd, &l.st, &data, &len) &&
	    !apply_change(c, op, path, data, len, ch, &nb)) {
		if (nb.oom)
			rc = wfs_fail(c, "%s %s: out of memory", op, path);
		else
			rc = wfs_commit_new(c, op, &l, nb.p ? nb.p : "", nb.len);
	}
	buf_free(&nb);
	wfs_unlock(&l);
	return rc;
}

int wfs_commit_new(struct wfs_ctx *c, const char *op, struct wfs_locked *l,
		   const char *data, size_t len)
{
	char *tmp;

	if (wfs_stage(c, op, l->dirfd, l->target, data, len,
		      l->fd >= 0 ? &l->st : NULL, &tmp))
		return -1;
	return wfs_commit(c, op, l->dirfd, tmp, l->name, l->target);
}

int wfs_patch(struct wfs_ctx *c, const char *path,
	      const struct patch_edit *edits, size_t n)
{
	struct change ch = {edits, n, 0, NULL, 0};

	if (!n)
		return wfs_fail(c, "patch %s: no hunks: expected a JSON list of {old_text,new_text}", path);
	return update(c, "patch", path, &ch);
}

int wfs_insert_line(struct wfs_ctx *c, const char *path, size_t after,
		    const char *text, size_t len)
{
	struct change ch = {NULL, 0, after, text, len};

	if (!len)
		return wfs_fail(c, "edit %s: new_text must not be empty to insert", path);
	return update(c, "edit", path, &ch);
}
