/* chmod.c - change a path's mode
 *
 * APPLET(chmod, "", 2, 2, APPLET_LOOP_OK|APPLET_WRITES)
 *
 * config APPLET_CHMOD
 *	bool "chmod: change a path's mode"
 *	default y
 *	help
 *	  usage: wickfs chmod MODE PATH
 *
 *	  MODE is octal (755, 0644) or symbolic: [ugoa]*[+-=][rwxXst]*,
 *	  comma-separated (u+x, go-w, a=r); no letter before the operator
 *	  means a (the umask is not applied). A symlink is followed to its
 *	  target (confined: only beneath the root). Data: {"path","mode"}.
 *
 *	  Example: wickfs chmod u+x scripts/run.sh
 */
#define FOR_chmod
#include "applet_opts.h"
#include "applet.h"
#include "fsops.h"
#include "json.h"

int chmod_main(struct req *r)
{
	unsigned mode;

	if (wfs_chmod(r->ctx, r->argv[0], r->argv[1], &mode))
		return reply_ctx_error(r);
	reply_ok_begin(r);
	buf_puts(r->out, "{\"path\":");
	json_cstr(r->out, r->argv[1]);
	buf_printf(r->out, ",\"mode\":\"%04o\"}", mode);
	return reply_ok_end(r);
}
