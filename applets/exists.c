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
 *
 *	  Example: wickfs -t exists /app/bin/server
 */
#define FOR_exists
#include "applet_opts.h"
#include "applet.h"
#include "text.h"
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

/* An assertion for a CI step: 0 and "PATH: TYPE" when it exists, 1 and
 * the cause on stderr when not, 2 when that could not be told. */
int exists_text(struct req *r, int ok, const struct json_val *v)
{
	const char *path = text_str(v, "path"), *type = text_str(v, "type");

	if (!ok)
		return text_error(r, v->str) + 1;
	if (!text_bool(v, "exists")) {
		buf_printf(r->err, "wickfs exists: %s: no such file or directory\n", path ? path : "");
		return 1;
	}
	buf_printf(r->out, "%s: %s\n", path ? path : "", type ? type : "exists");
	return 0;
}
