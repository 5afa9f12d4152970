/* cp.c - copy a file, link or tree
 *
 * APPLET(cp, "r|recursive no-clobber", 2, 2, APPLET_LOOP_OK|APPLET_WRITES)
 *
 * config APPLET_CP
 *	bool "cp: copy a file, symlink or directory tree"
 *	default y
 *	help
 *	  usage: wickfs cp [-r] [--no-clobber] SRC DST
 *
 *	  Copy SRC to DST: the new name, or an existing directory to copy
 *	  into (SRC keeps its name there). Modes and modification times are
 *	  kept (owners too when run as root); symlinks are copied as links,
 *	  never followed, so nothing outside the source tree is read. Each
 *	  file lands atomically. Data: {"src","dst","copied"} (dst: the path
 *	  the copy got; copied: files and links copied).
 *
 *	  -r, --recursive  copy a directory and everything in it
 *	  --no-clobber     fail when DST (or an entry in it) exists
 *
 *	  Example: wickfs cp -r src backup/src
 */
#define FOR_cp
#include "applet_opts.h"
#include "applet.h"
#include "fsops.h"

int cp_main(struct req *r)
{
	int recursive = opt_has(r, OPT_r), no_clobber = opt_has(r, OPT_no_clobber);
	const char *dst;
	long long copied;

	if (wfs_cp(r->ctx, r->argv[0], r->argv[1], recursive, no_clobber, &copied,
		   &dst))
		return reply_ctx_error(r);
	reply_ok_begin(r);
	fsops_put_src_dst(r->out, r->argv[0], dst);
	buf_printf(r->out, ",\"copied\":%lld}", copied);
	return reply_ok_end(r);
}
