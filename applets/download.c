/* download.c - a file, or a tree as a tar.gz, in chunks of base64
 *
 * APPLET(download, "offset#<0 limit#<1>7340032=4194304 tree remove", 1, 1, 0)
 *
 * config APPLET_DOWNLOAD
 *	bool "download, upload: move files and trees in chunks"
 *	default y
 *	help
 *	  usage: wickfs download [--offset N] [--limit N] [--remove] FILE
 *	         wickfs download --tree [--limit N] DIR
 *
 *	  FILE from --offset, at most --limit bytes (4 MiB; 7 at most), as
 *	  base64: {"path","offset","bytes","size","eof","data"}. --tree packs
 *	  DIR into a spool file ("path"); --remove deletes FILE at its end.
 *
 *	  Example: wickfs download --offset 0 --limit 1048576 dist/app.tar.gz
 */
#define FOR_download
#include "applet_opts.h"
#include "applet.h"
#include "base64.h"
#include "json.h"
#include "transfer.h"

int download_main(struct req *r)
{
	struct wfs_download d;

	if (wfs_download(r->ctx, r->argv[0], opt_num(r, OPT_offset), opt_num(r, OPT_limit),
			 opt_has(r, OPT_tree), opt_has(r, OPT_remove), &d))
		return reply_ctx_error(r);
	reply_ok_begin(r);
	buf_puts(r->out, "{\"path\":");
	json_cstr(r->out, d.path);
	if (d.spool)
		buf_puts(r->out, ",\"spool\":true");
	buf_printf(r->out, ",\"offset\":%lld,\"bytes\":%zu,\"size\":%lld,\"eof\":%s,\"data\":\"",
		   opt_num(r, OPT_offset), d.range.len, (long long)d.range.st.st_size,
		   d.eof ? "true" : "false");
	base64_encode(r->out, (const unsigned char *)d.range.data, d.range.len);
	buf_puts(r->out, "\"}");
	return reply_ok_end(r);
}
