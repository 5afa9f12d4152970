/* read.c - print a file
 *
 * APPLET(read, "", 1, 1, APPLET_REF(1)|APPLET_LOOP_OK|APPLET_LOOP_PROBE)
 *
 * config APPLET_READ
 *	bool "read: print a file as a JSON string"
 *	default y
 *	help
 *	  usage: wickfs read PATH
 *
 *	  The whole file as a string when it is valid UTF-8, else "base64:"
 *	  and its standard base64. FIFOs, sockets and devices are refused.
 *	  WICKFS_MAX_FILE bounds the size (default 1 GiB).
 */
#define FOR_read
#include "applet.h"
#include "json.h"
#include "util.h"

int read_main(struct req *r)
{
	char *data;
	size_t len;

	if (wfs_read(r->ctx, r->argv[0], &data, &len))
		return reply_ctx_error(r);
	reply_ok_begin(r);
	if (utf8_valid(data, len)) {
		json_str(r->out, data, len);
	} else {
		buf_puts(r->out, "\"base64:");
		base64_encode(r->out, (const unsigned char *)data, len);
		buf_putc(r->out, '"');
	}
	return reply_ok_end(r);
}
