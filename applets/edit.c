/* edit.c - replace text in a file
 *
 * APPLET(edit, "all unique insert-line#<0 !all,unique !all,insert-line !unique,insert-line", 1, 1, APPLET_REF(1)|APPLET_LOOP_OK|APPLET_WRITES|APPLET_STDIN)
 *
 * config APPLET_EDIT
 *	bool "edit: replace text in a file"
 *	default y
 *	help
 *	  usage: wickfs edit [--all|--unique] PATH < {"old_text":..,"new_text":..}
 *	         wickfs edit --insert-line N PATH < {"new_text":..}
 *
 *	  Replace the first occurrence of old_text with new_text (keys match
 *	  case-insensitively; others are ignored). Every other byte is kept
 *	  (CRLF, BOM, a missing final newline); the replacement is atomic and
 *	  concurrent edits of one file are serialised, never lost.
 *	  Data: {"path","replacements"}.
 *
 *	  --all     replace every occurrence
 *	  --unique  fail, listing the lines, when old_text occurs more than once
 *	  --insert-line N  insert new_text as whole lines after line N (0: at
 *	            the top); old_text must be absent
 *
 *	  old_text equal to new_text is an error. When old_text is not found,
 *	  the error gives the lines of the closest match ignoring whitespace,
 *	  if any, and says when the file has CRLF line endings.
 *
 *	  Example: echo '{"old_text":"v1","new_text":"v2"}' | wickfs edit --unique VERSION
 */
#include <errno.h>
#include <string.h>
#define FOR_edit
#include "applet_opts.h"
#include "applet.h"
#include "json.h"
#include "edit.h"

int edit_main(struct req *r)
{
	int insert = opt_has(r, OPT_insert_line);
	size_t after = (size_t)opt_num(r, OPT_insert_line);
	struct wfs_edit e = {"", 0, "", 0, EDIT_FIRST}; /* absent texts are empty */
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
	e.which = opt_has(r, OPT_all) ? EDIT_ALL : opt_has(r, OPT_unique) ? EDIT_UNIQUE
									  : EDIT_FIRST;
	if (insert && e.old_len)
		return reply_error(r, "edit %s: --insert-line takes new_text only, not old_text",
				   r->argv[0]);
	if (insert ? wfs_insert_line(r->ctx, r->argv[0], after, e.new_text, e.new_len)
		   : wfs_edit(r->ctx, r->argv[0], &e, &n))
		return reply_ctx_error(r);
	return reply_path_num(r, "replacements", insert ? 1 : n);
}
