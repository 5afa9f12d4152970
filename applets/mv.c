/* mv.c - move or rename
 *
 * APPLET(mv, "no-clobber", 2, 2, APPLET_LOOP_OK|APPLET_WRITES)
 *
 * config APPLET_MV
 *	bool "mv: move or rename a path"
 *	default y
 *	help
 *	  usage: wickfs mv [--no-clobber] SRC DST
 *
 *	  Rename SRC to DST atomically (renameat2), replacing a file at DST;
 *	  when DST is an existing directory, SRC moves into it under its
 *	  own name. Across filesystems SRC is copied (modes, times and links
 *	  kept) and then removed. Data: {"src","dst","copied"} (dst: the
 *	  path SRC got).
 *
 *	  --no-clobber  fail when DST exists (RENAME_NOREPLACE)
 *
 *	  Example: wickfs mv draft.md docs/final.md
 */
#define FOR_mv
#include "applet_opts.h"
#include "applet.h"
#include "fsops.h"

int mv_main(struct req *r)
{
	int no_clobber = opt_has(r, OPT_no_clobber);
	const char *dst;
	int copied;

	if (wfs_mv(r->ctx, r->argv[0], r->argv[1], no_clobber, &copied, &dst))
		return reply_ctx_error(r);
	reply_ok_begin(r);
	fsops_put_src_dst(r->out, r->argv[0], dst);
	buf_printf(r->out, ",\"copied\":%s}", copied ? "true" : "false");
	return reply_ok_end(r);
}
