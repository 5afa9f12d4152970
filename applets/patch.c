/* patch.c - apply a list of find-and-replace edits, all or nothing
 *
 * APPLET(patch, "", 1, 1, APPLET_WRITES|APPLET_STDIN)
 *
 * config APPLET_PATCH
 *	bool "patch: apply {old_text,new_text} edits to a file atomically"
 *	default y
 *	help
 *	  usage: wickfs patch PATH < [{"old_text":..,"new_text":..},...]
 *
 *	  Apply the edits in order, each to the result of the ones before;
 *	  each old_text must occur exactly once (keys match
 *	  case-insensitively). All or nothing: the file is replaced once,
 *	  atomically (a kill leaves the old or the new content), under the
 *	  lock edit and write take, so concurrent edits are never lost.
 *	  CRLF, a BOM and a missing final newline are kept. The error names
 *	  the first hunk that does not apply. Data: {"path","hunks"}.
 *
 *	  Example: echo '[{"old_text":"a","new_text":"b"}]' | wickfs patch config.ini
 */
#include <errno.h>
#include <string.h>
#define FOR_patch
#include "applet_opts.h"
#include "applet.h"
#include "json.h"
#include "edit.h"

int patch_main(struct req *r)
{
	const char *path = r->argv[0], *in;
	struct patch_edit *e;
	struct json_val v;
	char err[256];
	size_t len, i;

	if (req_stdin(r, &in, &len))
		return reply_error(r, "patch %s: reading stdin: %s", path, strerror(errno));
	if (json_parse(r->arena, in, len, &v, err, sizeof(err)))
		return reply_error(r, "invalid JSON input: %s", err);
	if (v.type != JSON_ARR)
		return reply_error(r, "invalid JSON input: expected a list of {old_text,new_text}");
	e = arena_alloc(r->arena, v.len * sizeof(*e) + 1);
	if (!e)
		return reply_error(r, "patch %s: out of memory", path);
	for (i = 0; i < v.len; i++) {
		e[i].old_text = e[i].new_text = ""; /* absent texts are empty */
		e[i].old_len = e[i].new_len = 0;
		if (v.items[i].type != JSON_OBJ)
			return reply_error(r, "invalid JSON input: hunk %zu is not an object", i + 1);
		if (json_get_str(&v.items[i], "old_text", &e[i].old_text, &e[i].old_len) ||
		    json_get_str(&v.items[i], "new_text", &e[i].new_text, &e[i].new_len))
			return reply_error(r, "invalid JSON input: hunk %zu: old_text and new_text must be strings",
					   i + 1);
	}
	if (wfs_patch(r->ctx, path, e, v.len))
		return reply_ctx_error(r);
	reply_ok_begin(r);
	buf_puts(r->out, "{\"path\":");
	json_cstr(r->out, path);
	buf_printf(r->out, ",\"hunks\":%zu}", v.len);
	return reply_ok_end(r);
}
