/* edit.c - replace text in a file
 *
 * APPLET(edit, "all unique !all,unique", 1, 1, APPLET_REF(1)|APPLET_LOOP_OK)
 *
 * config APPLET_EDIT
 *	bool "edit: replace text in a file"
 *	default y
 *	help
 *	  usage: wickfs edit [--all|--unique] PATH < {"old_text":..,"new_text":..}
 *
 *	  Replace the first occurrence of old_text with new_text (keys match
 *	  case-insensitively; others are ignored). Every other byte is kept
 *	  (CRLF, BOM, a missing final newline); the replacement is atomic and
 *	  concurrent edits of one file are serialised, never lost.
 *	  Data: {"path","replacements"}.
 *
 *	  --all     replace every occurrence
 *	  --unique  fail, listing the lines, when old_text occurs more than once
 */
#include <errno.h>
#include <string.h>
#define FOR_edit
#include "applet.h"
#include "json.h"

int edit_main(struct req *r)
{
	struct wfs_edit e = {"", 0, "", 0, 0}; /* absent texts are empty */
	struct json_val v;
	const char *in;
	char err[256];
	size_t len;
	int n = 0;

	if (req_stdin(r, &in, &len))
		return reply_error(r, "edit %s: reading stdin: %s", r->argv[0],
				   strerror(errno));
	if (json_parse(r->arena, in, len, &v, err, sizeof(err)))
		return reply_error(r, "invalid JSON input: %s", err);
	/* null decodes to an empty input, as in Go: old_text is then empty */
	if (v.type != JSON_OBJ && v.type != JSON_NULL)
		return reply_error(r, "invalid JSON input: expected an object with old_text and new_text");
	if (json_get_str(&v, "old_text", &e.old_text, &e.old_len))
		return reply_error(r, "invalid JSON input: old_text must be a string");
	if (json_get_str(&v, "new_text", &e.new_text, &e.new_len))
		return reply_error(r, "invalid JSON input: new_text must be a string");
	e.all = opt_has(r, OPT_all) ? 1 : opt_has(r, OPT_unique) ? -1 : 0;
	if (wfs_edit(r->ctx, r->argv[0], &e, &n))
		return reply_ctx_error(r);
	reply_ok_begin(r);
	buf_puts(r->out, "{\"path\":");
	json_cstr(r->out, r->argv[0]);
	buf_printf(r->out, ",\"replacements\":%d}", n);
	return reply_ok_end(r);
}
