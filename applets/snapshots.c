/* snapshots.c - the snapshots in a store, oldest first
 *
 * APPLET(snapshots, "store:", 0, 1, 0)
 *
 * config APPLET_SNAPSHOTS
 *	bool "snapshots: list the stored snapshots"
 *	default y
 *	depends on APPLET_SNAPSHOT
 *	help
 *	  usage: wickfs snapshots [--store DIR] [DIR]
 *
 *	  {"snapshots":[{"id","tag","time","files",...}]}, oldest first.
 *
 *	  Example: wickfs -t snapshots
 */
#define FOR_snapshots
#include "applet_opts.h"
#include "applet.h"
#include "snapshot.h"

int snapshots_main(struct req *r)
{
	struct wfs_snap_opts o = {r->argc ? r->argv[0] : NULL, opt_str(r, OPT_store), NULL};
	struct wfs_snap_info *l;
	size_t n, i;

	if (wfs_snapshots(r->ctx, &o, &l, &n))
		return reply_ctx_error(r);
	reply_ok_begin(r);
	buf_puts(r->out, "{\"snapshots\":[");
	for (i = 0; i < n; i++) {
		if (i)
			buf_putc(r->out, ',');
		wfs_snap_info_json(r->out, &l[i]);
	}
	buf_puts(r->out, "]}");
	return reply_ok_end(r);
}
