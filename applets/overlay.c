/* overlay.c - copy-on-write layers: try changes, review, keep or drop
 *
 * APPLET(overlay, "dir:", 1, -1, 0)
 *
 * config APPLET_OVERLAY
 *	bool "overlay: copy-on-write layers over a directory (overlayfs)"
 *	default y
 *	depends on FEATURE_OVERLAY
 *	help
 *	  usage: wickfs overlay start|diff|discard NAME [DIR]
 *	         wickfs overlay commit NAME [PATH...] [--dir DIR]
 *	         wickfs overlay list [DIR]
 *	         wickfs --overlay NAME APPLET ...  (as WICKFS_OVERLAY=NAME)
 *
 *	  A copy-on-write layer over DIR (default: the root, else "."), in
 *	  DIR/.wickfs/overlay/NAME. With --overlay NAME an applet, exec
 *	  included, runs where DIR is an overlayfs view (a mount namespace
 *	  of its own): it reads through the layer and writes into it. Where
 *	  the kernel refuses that (a default Docker seccomp profile does),
 *	  it is refused with the reason, never run on the real tree. A
 *	  daemon or mcp started so serves every request through it.
 *
 *	  start    begin, recording the state of DIR's files
 *	  diff     {"name","added","changed","deleted","mode_changed",
 *	           "diff"}: the paths, and a unified diff
 *	  commit   apply the layer, or only PATHs (relative to DIR):
 *	           refused, naming it, if a file it would change changed
 *	           since start; each moved in by a rename (old or new,
 *	           never half-written); interrupted, run it again
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
