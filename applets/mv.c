/* mv.c - move or rename
 *
 * APPLET(mv, "no-clobber", 2, 2, APPLET_LOOP_OK)
 *
 * config APPLET_MV
 *	bool "mv: move or rename a path"
 *	default y
 *	help
 *	  usage: wickfs mv [--no-clobber] SRC DST
 *
 *	  Rename SRC to DST atomically (renameat2), replacing a file at DST
 *	  (DST is the new name, not a directory to move into). Across
 *	  filesystems SRC is copied (modes, times and links kept) and then
 *	  removed. Data: {"src","dst","copied"}.
 *
 *	  --no-clobber  fail when DST exists (RENAME_NOREPLACE)
 */
#define FOR_mv
#include "applet.h"
#include "fsops.h"
#include "json.h"

int mv_main(struct req *r)
{
	int no_clobber = opt_has(r, OPT_no_clobber);
	int copied;

	if (wfs_mv(r->ctx, r->argv[0], r->argv[1], no_clobber, &copied))
		return reply_ctx_error(r);
	reply_ok_begin(r);
	buf_puts(r->out, "{\"src\":");
	json_cstr(r->out, r->argv[0]);
	buf_puts(r->out, ",\"dst\":");
	json_cstr(r->out, r->argv[1]);
	buf_printf(r->out, ",\"copied\":%s}", copied ? "true" : "false");
	return reply_ok_end(r);
}
