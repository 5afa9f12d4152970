/* resources.c - files as MCP resources: file:// URIs in the allowed
 * directories, read through the same confinement as the tools. No file
 * is listed (a tree can be large); the template says how to name one. */
#include <stdio.h>
#include <string.h>
#include "base64.h"
#include "ctx.h"
#include "fs.h"
#include "utf8.h"
#include "mcp_int.h"

int mcp_resource_call(struct mcp_call *c, struct wfs_ctx *ctx, struct mcp_server *s,
		      struct arena *a, const char *method, const char *uri, const char **path,
		      char *err, size_t errlen)
{
	wfs_ctx_init_root(ctx, a, NULL);
	*c = (struct mcp_call){.s = s, .ctx = ctx, .a = a, .tool = method, .flags = MCP_RO};
	if (!s->ndirs) {
		snprintf(err, errlen, "Resource not found: %s: no allowed directories", uri);
		return -32002;
	}
	if (!(*path = mcp_path(c, *path))) {
		snprintf(err, errlen, "Resource not found: %s", ctx->err);
		return -32002;
	}
	return 0;
}

int mcp_resource(struct mcp_server *s, struct arena *a, const char *uri, struct buf *out,
		 char *err, size_t errlen)
{
	struct mcp_call c;
	struct wfs_ctx ctx;
	const char *path = mcp_uri_path(a, uri);
	char *data;
	size_t n;
	int rc;

	if (!path) {
		snprintf(err, errlen, "Invalid params: uri must be a file:// URI, got %s", uri);
		return -32602;
	}
	if ((rc = mcp_resource_call(&c, &ctx, s, a, "resources/read", uri, &path, err, errlen)))
		return rc;
	if (wfs_read(&ctx, path, &data, &n)) {
		snprintf(err, errlen, "Resource not found: %s", ctx.err);
		return -32002;
	}
	buf_puts(out, "{\"contents\":[{\"uri\":");
	json_cstr(out, uri);
	if (utf8_valid(data, n)) {
		buf_puts(out, ",\"mimeType\":\"text/plain\",\"text\":");
		json_str(out, data, n);
	} else {
		buf_printf(out, ",\"mimeType\":\"%s\",\"blob\":\"", mcp_mime_of(path));
		base64_encode(out, (const unsigned char *)data, n);
		buf_putc(out, '"');
	}
	buf_puts(out, "}]}");
	return out->oom ? (snprintf(err, errlen, "resources/read %s: out of memory", uri), -32603)
			: 0;
}
