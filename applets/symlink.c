/* symlink.c - make a symbolic link
 *
 * APPLET(symlink, "", 2, 2, APPLET_LOOP_OK|APPLET_WRITES)
 *
 * config APPLET_SYMLINK
 *	bool "symlink: make a symbolic link"
 *	default y
 *	help
 *	  usage: wickfs symlink TARGET PATH
 *
 *	  Make PATH a symlink to TARGET. TARGET is stored as it is: it may
 *	  point anywhere, even outside the workspace root, since it is only
 *	  data; nothing here follows it. Data: {"path","target"}.
 *
 *	  Example: wickfs symlink ../shared/config.yml config.yml
 */
#define FOR_symlink
#include "applet_opts.h"
#include "applet.h"
#include "fsops.h"
#include "json.h"

int symlink_main(struct req *r)
{
	if (wfs_symlink(r->ctx, r->argv[0], r->argv[1]))
		return reply_ctx_error(r);
	reply_ok_begin(r);
	buf_puts(r->out, "{\"path\":");
	json_cstr(r->out, r->argv[1]);
	buf_puts(r->out, ",\"target\":");
	json_cstr(r->out, r->argv[0]);
	buf_putc(r->out, '}');
	return reply_ok_end(r);
}
