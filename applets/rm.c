/* rm.c - remove a file, link or directory
 *
 * APPLET(rm, "r|recursive f|force", 1, 1, APPLET_LOOP_OK|APPLET_LOOP_DIR|APPLET_WRITES)
 *
 * config APPLET_RM
 *	bool "rm: remove a file, symlink or directory"
 *	default y
 *	help
 *	  usage: wickfs rm [-r] [-f] PATH
 *
 *	  Remove PATH: a file, a symlink (never its target) or an empty
 *	  directory. Data: {"path","removed"} (entries removed).
 *
 *	  -r, --recursive  remove a directory and everything in it; links
 *	                   inside are removed, never followed
 *	  -f, --force      a missing path is no error (removed 0)
 *
 *	  Example: wickfs rm -r build/tmp
 */
#define FOR_rm
#include "applet_opts.h"
#include "applet.h"
#include "fsops.h"
#include "json.h"

int rm_main(struct req *r)
{
	int recursive = opt_has(r, OPT_r), force = opt_has(r, OPT_f);
	long long removed;

	if (wfs_rm(r->ctx, r->argv[0], recursive, force, &removed))
		return reply_ctx_error(r);
	reply_ok_begin(r);
	buf_puts(r->out, "{\"path\":");
	json_cstr(r->out, r->argv[0]);
	buf_printf(r->out, ",\"removed\":%lld}", removed);
	return reply_ok_end(r);
}
