/* mkdir.c - make a directory
 *
 * APPLET(mkdir, "p|parents", 1, 1, APPLET_LOOP_OK|APPLET_WRITES)
 *
 * config APPLET_MKDIR
 *	bool "mkdir: make a directory"
 *	default y
 *	help
 *	  usage: wickfs mkdir [-p] PATH
 *
 *	  Make PATH (0777 & ~umask). Data: {"path","created"}.
 *
 *	  -p, --parents  make missing parents too; an existing directory is
 *	                 no error (created false)
 *
 *	  Example: wickfs mkdir -p build/out
 */
#define FOR_mkdir
#include "applet_opts.h"
#include "applet.h"
#include "fsops.h"
#include "json.h"

int mkdir_main(struct req *r)
{
	int parents = opt_has(r, OPT_p);
	int created;

	if (wfs_mkdir(r->ctx, r->argv[0], parents, &created))
		return reply_ctx_error(r);
	reply_ok_begin(r);
	buf_puts(r->out, "{\"path\":");
	json_cstr(r->out, r->argv[0]);
	buf_printf(r->out, ",\"created\":%s}", created ? "true" : "false");
	return reply_ok_end(r);
}
