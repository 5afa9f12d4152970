/* edit.c - replace text in a file
 *
 * APPLET(edit, "all unique insert-line#", 1, 1, 0)
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
 */
#include <errno.h>
#include <string.h>
#include "applet.h"
#include "json.h"
#include "textops.h"

/* A string member, or "" when absent or null. -1 for another type. */
static int member(const struct json_val *obj, const char *key, const char **s,
		  size_t *n)
{
	const struct json_val *v = json_get(obj, key);

	*s = "";
	*n = 0;
	if (!v || v->type == JSON_NULL)
		return 0;
	if (v->type != JSON_STR)
		return -1;
	*s = v->str;
	*n = v->len;
	return 0;
}

int edit_main(struct req *r)
{
	int insert = opt_has(r, "insert-line");
	struct wfs_edit e = {0};
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
	if (member(&v, "old_text", &e.old_text, &e.old_len))
		return reply_error(r, "invalid JSON input: old_text must be a string");
	if (member(&v, "new_text", &e.new_text, &e.new_len))
		return reply_error(r, "invalid JSON input: new_text must be a string");
	e.all = opt_has(r, "all") ? 1 : opt_has(r, "unique") ? -1 : 0;
	if (insert && (e.all || e.old_len))
		return reply_error(r, "edit %s: --insert-line takes new_text only (no old_text, --all or --unique)",
				   r->argv[0]);
	if (insert && opt_num(r, "insert-line", 0) < 0)
		return reply_error(r, "edit %s: --insert-line must be 0 or more", r->argv[0]);
	if (insert ? wfs_insert_line(r->ctx, r->argv[0], (size_t)opt_num(r, "insert-line", 0),
				     e.new_text, e.new_len)
		   : wfs_edit(r->ctx, r->argv[0], &e, &n))
		return reply_ctx_error(r);
	n = insert ? 1 : n;
	reply_ok_begin(r);
	buf_puts(r->out, "{\"path\":");
	json_cstr(r->out, r->argv[0]);
	buf_printf(r->out, ",\"replacements\":%d}", n);
	return reply_ok_end(r);
}
