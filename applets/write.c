/* write.c - replace a file with stdin
 *
 * APPLET(write, "no-clobber append gzip !no-clobber,append", 1, 1, APPLET_REF(1)|APPLET_LOOP_OK|APPLET_WRITES|APPLET_STDIN)
 *
 * config APPLET_WRITE
 *	bool "write: replace a file atomically with stdin"
 *	default y
 *	help
 *	  usage: wickfs write [--no-clobber|--append] [--gzip] PATH < CONTENT
 *
 *	  Write stdin to PATH: parents are created, the replacement is atomic
 *	  (a temporary file in the same directory, then rename), an existing
 *	  file keeps its mode (and owner when run as root), a symlink is
 *	  written through to its target, a new file gets 0666 & ~umask.
 *	  Data: {"path","bytes_written"}. WICKFS_FSYNC=1 syncs before the
 *	  rename.
 *
 *	  --no-clobber  fail when PATH exists (also when it appears meanwhile)
 *	  --append      add stdin at the end instead, as `wickfs append` does
 *	  --gzip        stdin is base64 of gzip data (WICKFS_MAX_FILE bounds it)
 *
 *	  Example: printf 'hello\n' | wickfs write greeting.txt
 */
#include <errno.h>
#include <string.h>
#define FOR_write
#include "applet_opts.h"
#include "applet.h"
#include "fsops.h"
#include "base64.h"
#include "bytes.h"
#include "edit.h"
#include "fs.h"
#include "gzpar.h"
#include "json.h"
#include "settings.h"

/* stdin as base64 of gzip: the decompressed bytes (in the arena). */
static int gunzip_stdin(struct req *r, const char **data, size_t *len)
{
	unsigned char *raw = arena_alloc(r->arena, *len + 4);
	char *txt = arena_alloc(r->arena, *len + 1), err[256];
	size_t i, k = 0;
	struct buf out;
	long n = -1;

	/* Line breaks and spaces are ignored: base64(1) wraps its output. */
	for (i = 0; txt && i < *len; i++)
		if (!strchr(" \t\r\n", (*data)[i]))
			txt[k++] = (*data)[i];
	if (raw && txt)
		n = base64_decode(txt, k, raw);

	if (n < 0)
		return reply_error(r, "write %s: --gzip: stdin is not base64", r->argv[0]);
	buf_init(&out);
	if (gzpar_gunzip_buf(raw, (size_t)n, r->ctx->set->max_file, &out, err, sizeof(err)) ||
	    !(*data = arena_strndup(r->arena, out.p ? out.p : "", out.len))) {
		buf_free(&out);
		return reply_error(r, "write %s: --gzip: %s", r->argv[0], err);
	}
	*len = out.len;
	buf_free(&out);
	return 0;
}

int write_main(struct req *r)
{
	int no_clobber = opt_has(r, OPT_no_clobber), append = opt_has(r, OPT_append);
	const char *data;
	size_t len;
	int rc;

	if (req_stdin(r, &data, &len))
		return reply_error(r, "write %s: reading stdin: %s", r->argv[0],
				   strerror(errno));
	if (opt_has(r, OPT_gzip) && gunzip_stdin(r, &data, &len))
		return 1;
	rc = append ? wfs_append(r->ctx, "write", r->argv[0], data, len)
		    : wfs_write(r->ctx, r->argv[0], data, len, no_clobber);
	if (rc)
		return reply_ctx_error(r);
	return reply_path_num(r, "bytes_written", (long long)len);
}
