/* upload.c - a file, or a tree as a tar.gz, received in chunks of base64
 *
 * APPLET(upload, "offset#<0 last tree", 1, 1, APPLET_WRITES)
 *
 * config APPLET_UPLOAD
 *	bool "upload: the receiving side of download"
 *	default y
 *	depends on APPLET_DOWNLOAD
 *	help
 *	  usage: wickfs upload [--offset N] [--last] [--tree] PATH < BASE64
 *
 *	  Write a base64 chunk at --offset of PATH.wickfs-part (--tree:
 *	  DIR/.wickfs/upload.tar.gz); --last renames it to PATH (--tree:
 *	  unpacks it into DIR). Data: {"path","offset","bytes","size"}.
 *
 *	  Example: base64 < data.bin | wickfs upload data.bin
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#define FOR_upload
#include "applet_opts.h"
#include "applet.h"
#include "archive.h"
#include "base64.h"
#include "json.h"
#include "transfer.h"

int upload_main(struct req *r)
{
	const char *path = r->argv[0], *in;
	long long off = opt_num(r, OPT_offset);
	int tree = opt_has(r, OPT_tree);
	struct wfs_archive_result res;
	unsigned char *raw;
	size_t len, i, k = 0;
	char *txt;
	long n = -1;

	if (req_stdin(r, &in, &len))
		return reply_error(r, "upload %s: reading stdin: %s", path, strerror(errno));
	raw = arena_alloc(r->arena, len + 4);
	txt = arena_alloc(r->arena, len + 1);
	for (i = 0; txt && i < len; i++)
		if (!strchr(" \t\r\n", in[i]))
			txt[k++] = in[i];
	if (raw && txt)
		n = base64_decode(txt, k, raw);
	if (n < 0)
		return reply_error(r, "upload %s: stdin is not base64", path);
	if (wfs_upload(r->ctx, path, raw, (size_t)n, off, tree, opt_has(r, OPT_last), &res))
		return reply_ctx_error(r);
	reply_ok_begin(r);
	buf_puts(r->out, "{\"path\":");
	json_cstr(r->out, path);
	buf_printf(r->out, ",\"offset\":%lld,\"bytes\":%ld,\"size\":%lld", off, n, off + n);
	if (opt_has(r, OPT_last))
		buf_puts(r->out, ",\"done\":true");
	if (opt_has(r, OPT_last) && tree) {
		buf_puts(r->out, ",\"unpacked\":");
		wfs_archive_json(r->out, &res);
	}
	buf_putc(r->out, '}');
	return reply_ok_end(r);
}
