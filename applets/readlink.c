/* readlink.c - a symlink's target
 *
 * APPLET(readlink, "", 1, 1, APPLET_LOOP_OK|APPLET_LOOP_DIR)
 *
 * config APPLET_READLINK
 *	bool "readlink: a symlink's target"
 *	default y
 *	help
 *	  usage: wickfs readlink PATH
 *
 *	  Data: {"path","target"}: the target as stored, not resolved.
 *
 *	  Example: wickfs readlink current
 */
#define FOR_readlink
#include "applet_opts.h"
#include "applet.h"
#include "fsops.h"
#include "json.h"

int readlink_main(struct req *r)
{
	char *target;

	if (wfs_readlink(r->ctx, r->argv[0], &target))
		return reply_ctx_error(r);
	reply_ok_begin(r);
	buf_puts(r->out, "{\"path\":");
	json_cstr(r->out, r->argv[0]);
	buf_puts(r->out, ",\"target\":");
	json_cstr(r->out, target);
	buf_putc(r->out, '}');
	return reply_ok_end(r);
}
