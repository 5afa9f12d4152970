/* cp.c - copy a file, link or tree
 *
 * APPLET(cp, "r|recursive no-clobber", 2, 2, APPLET_LOOP_OK)
 *
 * config APPLET_CP
 *	bool "cp: copy a file, symlink or directory tree"
 *	default y
 *	help
 *	  usage: wickfs cp [-r] [--no-clobber] SRC DST
 *
 *	  Copy SRC to DST (the new name). Modes and modification times are
 *	  kept (owners too when run as root); symlinks are copied as links,
 *	  never followed, so nothing outside the source tree is read. Each
 *	  file lands atomically. Data: {"src","dst","copied"} (files and
 *	  links copied).
 *
 *	  -r, --recursive  copy a directory and everything in it (into an
 *	                   existing directory DST: merged)
 *	  --no-clobber     fail when DST (or an entry in it) exists
 */
#define FOR_cp
#include "applet.h"
#include "fsops.h"
#include "json.h"

int cp_main(struct req *r)
{
	int recursive = opt_has(r, OPT_r), no_clobber = opt_has(r, OPT_no_clobber);
	long long copied;

	if (wfs_cp(r->ctx, r->argv[0], r->argv[1], recursive, no_clobber, &copied))
		return reply_ctx_error(r);
	reply_ok_begin(r);
	buf_puts(r->out, "{\"src\":");
	json_cstr(r->out, r->argv[0]);
	buf_puts(r->out, ",\"dst\":");
	json_cstr(r->out, r->argv[1]);
	buf_printf(r->out, ",\"copied\":%lld}", copied);
	return reply_ok_end(r);
}
