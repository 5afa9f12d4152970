/* apply_patch.c - apply an "*** Begin Patch" patch: all files or none
 *
 * APPLET(apply-patch, "", 0, 0, APPLET_WRITES|APPLET_STDIN)
 *
 * config APPLET_APPLY_PATCH
 *	bool "apply-patch: the *** Begin Patch format, all files or none"
 *	default y
 *	help
 *	  usage: wickfs apply-patch < PATCH
 *
 *	  *** Begin Patch / *** Add File: P / *** Delete File: P /
 *	  *** Update File: P (*** Move to: Q) with @@ hunks of ' ', '-',
 *	  '+' lines / *** End Patch. Context matches exactly, then ignoring
 *	  trailing whitespace, then ignoring surrounding whitespace.
 *	  Every file is locked (as edit locks) and its new content staged
 *	  in a temp file beside it; only when all are ready are they renamed
 *	  over their targets, then moved and deleted files removed. Any
 *	  error before that changes no file (the missing parent directories
 *	  of an added or moved-to file may have been made). Each rename is
 *	  atomic: a kill
 *	  between two renames leaves each file whole, old or new, and the
 *	  unrenamed temps (.wickfs-tmp-*) behind. Under --root every path
 *	  must resolve beneath it. Errors name the patch line and the file.
 *	  Data: {"files":[{"op","path","move_to"}]}.
 *
 *	  Example: wickfs apply-patch < change.patch
 */
#include <errno.h>
#include <string.h>
#define FOR_apply_patch
#include "applet_opts.h"
#include "applet.h"
#include "json.h"
#include "edit.h"

int apply_patch_main(struct req *r)
{
	struct wfs_patched *f;
	const char *in;
	size_t len, n, i;

	if (req_stdin(r, &in, &len))
		return reply_error(r, "apply-patch: reading stdin: %s", strerror(errno));
	if (wfs_apply_patch(r->ctx, in, len, &f, &n))
		return reply_ctx_error(r);
	reply_ok_begin(r);
	buf_puts(r->out, "{\"files\":[");
	for (i = 0; i < n; i++) {
		buf_puts(r->out, i ? ",{\"op\":" : "{\"op\":");
		json_cstr(r->out, f[i].op);
		buf_puts(r->out, ",\"path\":");
		json_cstr(r->out, f[i].path);
		if (f[i].move_to) {
			buf_puts(r->out, ",\"move_to\":");
			json_cstr(r->out, f[i].move_to);
		}
		buf_putc(r->out, '}');
	}
	buf_puts(r->out, "]}");
	return reply_ok_end(r);
}
