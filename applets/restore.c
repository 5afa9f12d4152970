/* restore.c - bring a tree back to a snapshot
 *
 * APPLET(restore, "store:", 1, 2, APPLET_WRITES)
 *
 * config APPLET_RESTORE
 *	bool "restore: a tree back to a snapshot, journalled"
 *	default y
 *	depends on APPLET_SNAPSHOT
 *	help
 *	  usage: wickfs restore [--store DIR] ID|TAG [DIR]
 *
 *	  Make DIR as in the snapshot (id, id prefix or tag), journalled: if
 *	  interrupted, the next snapshot(s)/restore finishes it. Data: what
 *	  it did, {"id","deleted","recreated","reverted"}: paths deleted (not
 *	  in the snapshot), recreated (gone since), reverted (changed since).
 *
 *	  Example: wickfs restore before-refactor
 */
#define FOR_restore
#include "applet_opts.h"
#include "applet.h"
#include "snapshot.h"

int restore_main(struct req *r)
{
	struct wfs_snap_opts o = {r->argc > 1 ? r->argv[1] : NULL, opt_str(r, OPT_store), NULL};
	struct wfs_snap_diff d;

	if (wfs_restore(r->ctx, &o, r->argv[0], &d))
		return reply_ctx_error(r);
	reply_ok_begin(r);
	wfs_restore_json(r->out, &d);
	return reply_ok_end(r);
}
