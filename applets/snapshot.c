/* snapshot.c - a content-addressed snapshot of a tree, or its diff
 *
 * APPLET(snapshot, "tag: store: diff:", 0, 1, 0)
 *
 * config APPLET_SNAPSHOT
 *	bool "snapshot, snapshots, restore: deduplicated snapshots of a tree"
 *	default y
 *	help
 *	  usage: wickfs snapshot [--tag T] [--store DIR] [--diff ID|TAG] [DIR]
 *
 *	  Snapshot DIR (default: the root, else "."), each content once, by
 *	  SHA-256, in the store (default DIR/.wickfs/snapshots; DIR/.wickfs
 *	  is left out). Data: {"id","tag","files","bytes",...}; a tag names
 *	  its newest snapshot, and "previous" the one it named before (still
 *	  reachable by its id). --diff lists
 *	  what differs instead: {"id","added","removed","modified"}.
 *
 *	  Example: wickfs snapshot --tag before-refactor
 */
#define FOR_snapshot
#include "applet_opts.h"
#include "applet.h"
#include "snapshot.h"

int snapshot_main(struct req *r)
{
	struct wfs_snap_opts o = {r->argc ? r->argv[0] : NULL, opt_str(r, OPT_store),
				  opt_str(r, OPT_tag)};
	const char *ref = opt_str(r, OPT_diff);
	struct wfs_snap_info info;
	struct wfs_snap_diff d;

	if (ref ? wfs_snap_diff(r->ctx, &o, ref, &d) : wfs_snapshot(r->ctx, &o, &info))
		return reply_ctx_error(r);
	reply_ok_begin(r);
	if (ref)
		wfs_snap_diff_json(r->out, &d);
	else
		wfs_snap_info_json(r->out, &info);
	return reply_ok_end(r);
}
