/* exists.c - whether a path exists
 *
 * APPLET(exists, "", 1, 1, APPLET_LOOP_OK|APPLET_LOOP_DIR)
 *
 * config APPLET_EXISTS
 *	bool "exists: whether a path exists"
 *	default y
 *	help
 *	  usage: wickfs exists PATH
 *
 *	  Data: {"path","exists"} and "type" when it exists. A missing path
 *	  is no error; a symlink counts as existing even when dangling.
 *	  Confined, a path outside the root is an error.
 */
#define FOR_exists
#include "applet_opts.h"
#include "applet.h"
#include "fsops.h"
#include "json.h"

int exists_main(struct req *r)
{
	const char *type;
	int yes;

	if (wfs_exists(r->ctx, r->argv[0], &yes, &type))
		return reply_ctx_error(r);
	reply_ok_begin(r);
	buf_puts(r->out, "{\"path\":");
	json_cstr(r->out, r->argv[0]);
	buf_printf(r->out, ",\"exists\":%s", yes ? "true" : "false");
	if (type) {
		buf_puts(r->out, ",\"type\":");
		json_cstr(r->out, type);
	}
	buf_putc(r->out, '}');
	return reply_ok_end(r);
}
