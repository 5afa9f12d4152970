/* diff.c - compare two files, or a file and new content
 *
 * APPLET(diff, "json stdin", 1, 2, 0)
 *
 * config APPLET_DIFF
 *	bool "diff: unified diff of two files"
 *	default y
 *	help
 *	  usage: wickfs diff [--json] A B
 *	         wickfs diff [--json] --stdin PATH < NEW_CONTENT
 *
 *	  A unified diff with 3 lines of context, as `diff -u` prints it
 *	  (headers "--- A" and "+++ B"; with --stdin, "+++ PATH" too), and
 *	  the counts of lines added and removed. Equal texts give "".
 *	  Data: {"diff","added","removed"}.
 *
 *	  --stdin  compare PATH with the content on stdin
 *	  --json   data: {"added","removed","hunks":[{"old_start",
 *	           "old_lines","new_start","new_lines","lines":[..]}]}
 *
 *	  Example: wickfs -t diff old.txt new.txt
 */
#include <errno.h>
#include <string.h>
#define FOR_diff
#include "applet_opts.h"
#include "applet.h"
#include "text.h"
#include "diff.h"
#include "json.h"

int diff_main(struct req *r)
{
	int json = opt_has(r, OPT_json), from_stdin = opt_has(r, OPT_stdin);
	const char *a_path = r->argv[0], *b_path = r->argv[r->argc - 1];
	char *a, *b;
	size_t alen, blen;
	struct diff d;
	struct buf text;

	if (from_stdin != (r->argc == 1))
		return reply_error(r, "diff: give two files, or --stdin and one file");
	if (wfs_read(r->ctx, a_path, &a, &alen))
		return reply_ctx_error(r);
	if (from_stdin) {
		const char *in;
		if (req_stdin(r, &in, &blen))
			return reply_error(r, "diff %s: reading stdin: %s", a_path,
					   strerror(errno));
		b = (char *)in;
	} else if (wfs_read(r->ctx, b_path, &b, &blen)) {
		return reply_ctx_error(r);
	}
	if (diff_compute(&d, a, alen, b, blen, 3))
		return reply_error(r, "diff %s: out of memory", a_path);
	reply_ok_begin(r);
	if (json) {
		diff_json(&d, r->out);
	} else {
		buf_init(&text);
		diff_unified(&d, &text, a_path, b_path);
		buf_puts(r->out, "{\"diff\":");
		json_str(r->out, text.p ? text.p : "", text.len);
		buf_printf(r->out, ",\"added\":%zu,\"removed\":%zu}", d.added, d.removed);
		buf_free(&text);
	}
	diff_free(&d);
	return reply_ok_end(r);
}

/* A plain unified diff; as diff(1): 0 when the files are the same, 1
 * when they differ, 2 on trouble. */
int diff_text(struct req *r, int ok, const struct json_val *v)
{
	const struct json_val *d;

	if (!ok)
		return text_error(r, v->str) + 1;
	d = json_get(v, "diff");
	if (d && d->type == JSON_STR)
		buf_add(r->out, d->str, d->len);
	return d && d->type == JSON_STR && d->len ? 1 : 0;
}
