/* read.c - print a file
 *
 * APPLET(read, "lines bytes offset#<0 limit#<1>16777216 gzip !lines,bytes !lines,gzip", 1, 1, APPLET_REF(1)|APPLET_LOOP_OK|APPLET_LOOP_PROBE)
 *
 * config APPLET_READ
 *	bool "read: print a file as a JSON string"
 *	default y
 *	help
 *	  usage: wickfs read PATH
 *	         wickfs read --lines [--offset N] [--limit N] PATH
 *	         wickfs read --bytes [--offset N] [--limit N] PATH
 *	         wickfs read --gzip [--bytes ...] PATH
 *
 *	  The whole file as a string when it is valid UTF-8, else "base64:"
 *	  and its standard base64. FIFOs, sockets and devices are refused.
 *	  WICKFS_MAX_FILE bounds the size (default 1 GiB).
 *
 *	  --lines   numbered lines as `cat -n` prints them (6-wide number,
 *	            tab), from line --offset (1 = the first) at most --limit
 *	            lines (default 2000); a line over 2000 characters is cut
 *	            with a marker. Data: {"path","text","offset","lines",
 *	            "total_lines","truncated"}.
 *	  --bytes   the bytes from --offset (default 0) at most --limit
 *	            (default 65536, at most 16 MiB), of a file of any size, as a string or
 *	            "base64:..." when not UTF-8. Data: {"path","content",
 *	            "offset","bytes","size","eof"}.
 *	  --gzip    the content (or the --bytes range) as the base64 of one
 *	            gzip member, for hosts that want smaller lines
 *
 *	  Example: wickfs read --lines --offset 40 --limit 20 main.go
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#define FOR_read
#include "applet_opts.h"
#include "applet.h"
#include "base64.h"
#include "fs.h"
#include "utf8.h"
#include "gzpar.h"
#include "json.h"
#include "lines.h"
#include "transfer.h"

#define READ_BYTES_LIMIT 65536

static void put_text(struct buf *out, const char *data, size_t len, int gzip)
{
	struct buf z;

	if (gzip) {
		buf_init(&z);
		if (gzpar_gzip_buf(data, len, &z))
			z.oom = 1;
		buf_putc(out, '"');
		base64_encode(out, (const unsigned char *)z.p, z.len);
		buf_putc(out, '"');
		out->oom |= z.oom; /* the envelope reports it */
		buf_free(&z);
	} else if (utf8_valid(data, len)) {
		json_str(out, data, len);
	} else {
		buf_puts(out, "\"base64:");
		base64_encode(out, (const unsigned char *)data, len);
		buf_putc(out, '"');
	}
}

static int read_lines(struct req *r, long long offset, long long limit)
{
	struct lines_page page;
	struct buf text;
	char *data;
	size_t len;

	if (wfs_read(r->ctx, r->argv[0], &data, &len))
		return reply_ctx_error(r);
	buf_init(&text);
	lines_page(data, len, (size_t)offset, (size_t)limit, 0, &text, &page);
	if (text.oom) {
		buf_free(&text);
		return reply_error(r, "read %s: out of memory", r->argv[0]);
	}
	if (r->text) { /* the lines as they are */
		r->text_done = 1;
		buf_add(r->out, text.p, text.len);
		buf_free(&text);
		return 0;
	}
	reply_ok_begin(r);
	buf_puts(r->out, "{\"path\":");
	json_cstr(r->out, r->argv[0]);
	buf_puts(r->out, ",\"text\":");
	json_str(r->out, text.p ? text.p : "", text.len);
	buf_printf(r->out, ",\"offset\":%zu,\"lines\":%zu,\"total_lines\":%zu,\"truncated\":%s}",
		   page.first, page.shown, page.total, page.truncated ? "true" : "false");
	buf_free(&text);
	return reply_ok_end(r);
}

/* A byte range by pread: no need to load, or to bound, the whole file. */
static int read_bytes(struct req *r, long long offset, long long limit)
{
	struct wfs_range g;

	if (wfs_read_range(r->ctx, "read", r->argv[0], offset, limit, &g))
		return reply_ctx_error(r);
	if (r->text) {
		r->text_done = 1;
		buf_add(r->out, g.data, g.len);
		return 0;
	}
	reply_ok_begin(r);
	buf_puts(r->out, "{\"path\":");
	json_cstr(r->out, r->argv[0]);
	buf_puts(r->out, ",\"content\":");
	put_text(r->out, g.data, g.len, opt_has(r, OPT_gzip));
	buf_printf(r->out, ",\"offset\":%lld,\"bytes\":%zu,\"size\":%lld,\"eof\":%s}", offset,
		   g.len, (long long)g.st.st_size,
		   offset + (long long)g.len >= g.st.st_size ? "true" : "false");
	return reply_ok_end(r);
}

int read_main(struct req *r)
{
	int lines = opt_has(r, OPT_lines), bytes = opt_has(r, OPT_bytes);
	int has_offset = opt_has(r, OPT_offset), has_limit = opt_has(r, OPT_limit);
	long long offset = has_offset ? opt_num(r, OPT_offset) : lines ? 1
								       : 0;
	long long limit = has_limit ? opt_num(r, OPT_limit)
			  : lines   ? LINES_LIMIT
				    : READ_BYTES_LIMIT;
	char *data;
	size_t len;

	if ((has_offset || has_limit) && !lines && !bytes)
		return reply_error(r, "read %s: --offset and --limit need --lines or --bytes",
				   r->argv[0]);
	if (lines && offset < 1)
		return reply_error(r, "read %s: --offset counts lines from 1", r->argv[0]);
	if (lines)
		return read_lines(r, offset, limit);
	if (bytes)
		return read_bytes(r, offset, limit);
	if (wfs_read(r->ctx, r->argv[0], &data, &len))
		return reply_ctx_error(r);
	if (r->text && !opt_has(r, OPT_gzip)) { /* the bytes, as cat */
		r->text_done = 1;
		buf_add(r->out, data, len);
		return 0;
	}
	reply_ok_begin(r);
	put_text(r->out, data, len, opt_has(r, OPT_gzip));
	return reply_ok_end(r);
}
