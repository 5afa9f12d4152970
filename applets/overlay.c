/* overlay.c - copy-on-write layers: try changes, review, keep or drop
 *
 * APPLET(overlay, "dir:", 1, -1, 0)
 *
 * config APPLET_OVERLAY
 *	bool "overlay: copy-on-write layers over a directory (overlayfs)"
 *	default y
 *	help
 *	  usage: wickfs overlay start|diff|discard NAME [DIR]
 *	         wickfs overlay commit NAME [PATH...] [--dir DIR]
 *	         wickfs overlay list [DIR]
 *	         wickfs --overlay NAME APPLET ..., wickfs APPLET --overlay NAME ...
 *	         (as WICKFS_OVERLAY=NAME)
 *
 *	  A layer over DIR (default: the root, else "."), kept in
 *	  DIR/.wickfs/overlay/NAME. With --overlay NAME every applet, exec
 *	  included, runs in a mount namespace of its own where DIR is an
 *	  overlayfs view: it reads through the layer and writes into it,
 *	  the real tree untouched; where the kernel refuses the namespace
 *	  or the mount (a default Docker seccomp profile does), the request
 *	  is refused with the reason, never run on the real tree. A daemon
 *	  or mcp started so serves every request through the layer.
 *
 *	  start    begin a layer, recording the state of DIR's files
 *	  diff     {"name","added","changed","deleted","mode_changed",
 *	           "diff"}: the paths, and a unified diff of the text files
 *	  commit   apply the layer (or only PATHs, relative to DIR) to DIR:
 *	           refused, naming it, if a real file it would change
 *	           changed since start; each file moved in by a rename
 *	           (whole, old or new); interrupted, run it again to finish
 *	  discard  drop the layer
 *	  list     {"overlays":[{"name","started","commit_interrupted"}]}
 *
 *	  Example: wickfs --overlay try exec 'make fmt' && wickfs overlay diff try
 */
#include <string.h>
#define FOR_overlay
#include "applet_opts.h"
#include "applet.h"
#include "overlay.h"

int overlay_main(struct req *r)
{
	const char *cmd = r->argv[0], *dir = opt_str(r, OPT_dir);
	int named = strcmp(cmd, "list") != 0, commit = !strcmp(cmd, "commit");
	int rest = r->argc - 1 - named;
	struct buf b;

	if (rest < 0)
		return reply_error(r, "overlay %s: needs a NAME (wickfs help overlay)", cmd);
	if (!commit && rest) {
		if (rest > 1 || dir)
			return reply_error(r, "overlay %s: too many arguments (wickfs help overlay)", cmd);
		dir = r->argv[r->argc - 1];
	}
	buf_init(&b);
	return reply_buf(r, &b,
			 wfs_overlay(r->ctx, cmd, named ? r->argv[1] : NULL, dir, r->argv + 2,
				     commit ? rest : 0, &b));
}
