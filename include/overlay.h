/* overlay.h - copy-on-write layers over a directory (lib/overlay.c)
 *
 * A layer is DIR/.wickfs/overlay/NAME: upper/ and work/ in overlayfs's
 * own format, and meta, the state (inode, ctime, size) of every entry
 * of DIR when the layer started, so that a commit can tell what changed
 * underneath since.
 */
#ifndef WFS_OVERLAY_H
#define WFS_OVERLAY_H

#include "buf.h"
#include "ctx.h"

/* CMD: start, list, diff, commit or discard; NAME (not for list) the
 * layer's, DIR (NULL: the root, else ".") the directory it covers;
 * commit applies only paths[0..np) (relative to DIR; none: all). 0 with
 * the answer's data appended to out, or -1 with c->err set. */
int wfs_overlay(struct wfs_ctx *c, const char *cmd, const char *name, const char *dir,
		char **paths, int np, struct buf *out);

/* Make DIR the view through layer NAME for this process and what it
 * starts: a mount (and, without CAP_SYS_ADMIN, a user) namespace of its
 * own with overlayfs mounted on DIR, then chdir into it. 0 (also when
 * DIR is that view already), or -1 with the reason in err: nothing is
 * then to run, neither on the layer nor on the real tree. */
int overlay_enter(const char *name, const char *dir, char *err, size_t n);

#endif
