/* ls.c - list a directory
 *
 * APPLET(ls, "", 0, 1, APPLET_REF(1)|APPLET_LOOP_OK|APPLET_LOOP_DIR)
 *
 * config APPLET_LS
 *	bool "ls: list a directory as JSON"
 *	default y
 *	help
 *	  usage: wickfs ls [PATH]
 *
 *	  List PATH (default ".", also for ""), sorted by name:
 *	  [{"name","type","size"}], type "file", "dir" or "symlink",
 *	  size from lstat.
 */
#define FOR_ls
#include "applet.h"
#include "json.h"

int ls_main(struct req *r)
{
	const char *path = r->argc && r->argv[0][0] ? r->argv[0] : ".";
	struct wfs_dirent *e;
	size_t n, i;

	if (wfs_ls(r->ctx, path, &e, &n))
		return reply_ctx_error(r);
	reply_ok_begin(r);
	buf_putc(r->out, '[');
	for (i = 0; i < n; i++) {
		buf_puts(r->out, i ? ",{\"name\":" : "{\"name\":");
		json_cstr(r->out, e[i].name);
		buf_puts(r->out, ",\"type\":");
		json_cstr(r->out, e[i].type);
		buf_printf(r->out, ",\"size\":%lld}", e[i].size);
	}
	buf_putc(r->out, ']');
	return reply_ok_end(r);
}
