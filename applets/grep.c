/* grep.c - search file contents
 *
 * APPLET(grep, "i F w A# B# C# max# l|files-with-matches c|count include* exclude* hidden no-skip gitignore z U", 1, 2, 0)
 *
 * config APPLET_GREP
 *	bool "grep: search file contents with RE2 syntax"
 *	default y
 *	help
 *	  usage: wickfs grep [OPTIONS] PATTERN [PATH]
 *
 *	  Search PATH (default ".", a directory or a file) for lines matching
 *	  PATTERN (Go/RE2 syntax). The walk is lexical and skips directories
 *	  named node_modules, __pycache__, vendor or starting with ".", files
 *	  with binary extensions (.png, .zip, .so, ...) and files with a NUL
 *	  byte in their first block. At most 200 matches.
 *	  Data: {"matches":[{"file","line","text"}],"truncated"}.
 *
 *	  -i          ignore case
 *	  -F          PATTERN is a fixed string
 *	  -w          match whole words only
 *	  -A N, -B N, -C N  N lines of context after, before, around each
 *	              match; context lines carry "context":true
 *	  --max N     at most N matches (default 200, 0: no cap)
 *	  -l, --files-with-matches  list matching files: "files":[...]
 *	  -c, --count matches per file: "counts":[{"file","count"}]
 *	  --include GLOB, --exclude GLOB  only / never files matching GLOB
 *	              (repeatable; a GLOB with "/" matches the relative path)
 *	  --hidden    descend into directories starting with "."
 *	  --no-skip   descend into node_modules, __pycache__, vendor
 *	  --gitignore honour .gitignore files
 *	  -z          search inside .gz files
 *	  -U          multiline: PATTERN may match across lines
 */
#include "applet.h"
#include "json.h"

int grep_main(struct req *r)
{
	struct wfs_grep_opts o = {0};
	struct wfs_grep_result res;
	long long ctx = opt_num(r, "C", 0);
	size_t i;

	o.pattern = r->argv[0];
	o.path = r->argc > 1 && r->argv[1][0] ? r->argv[1] : ".";
	o.max = opt_num(r, "max", 200);
	o.ignore_case = opt_has(r, "i");
	o.fixed = opt_has(r, "F");
	o.word = opt_has(r, "w");
	o.multiline = opt_has(r, "U");
	o.before = (int)opt_num(r, "B", ctx);
	o.after = (int)opt_num(r, "A", ctx);
	o.files_with_matches = opt_has(r, "l");
	o.count = opt_has(r, "c");
	o.hidden = opt_has(r, "hidden");
	o.no_skip = opt_has(r, "no-skip");
	o.gitignore = opt_has(r, "gitignore");
	o.gz = opt_has(r, "z");
	o.ninclude = opt_list(r, "include", &o.include);
	o.nexclude = opt_list(r, "exclude", &o.exclude);
	if (o.max < 0 || o.before < 0 || o.after < 0 || ctx < 0 ||
	    o.before > 10000 || o.after > 10000)
		return reply_error(r, "grep: --max, -A, -B and -C take a count from 0 (context at most 10000)");
	if (o.multiline && (o.before || o.after))
		return reply_error(r, "grep: -U cannot be combined with -A, -B or -C");
	if (wfs_grep(r->ctx, &o, &res))
		return reply_ctx_error(r);
	reply_ok_begin(r);
	if (o.files_with_matches || o.count) {
		buf_puts(r->out, o.count ? "{\"counts\":[" : "{\"files\":[");
		for (i = 0; i < res.n; i++) {
			if (i)
				buf_putc(r->out, ',');
			if (o.count) {
				buf_puts(r->out, "{\"file\":");
				json_cstr(r->out, res.matches[i].file);
				buf_printf(r->out, ",\"count\":%lld}", res.matches[i].count);
			} else {
				json_cstr(r->out, res.matches[i].file);
			}
		}
	} else {
		buf_puts(r->out, "{\"matches\":[");
		for (i = 0; i < res.n; i++) {
			const struct wfs_grep_match *m = &res.matches[i];
			buf_puts(r->out, i ? ",{\"file\":" : "{\"file\":");
			json_cstr(r->out, m->file);
			buf_printf(r->out, ",\"line\":%lld,\"text\":", m->line);
			json_str(r->out, m->text, m->text_len);
			if (m->context)
				buf_puts(r->out, ",\"context\":true");
			buf_putc(r->out, '}');
		}
	}
	buf_puts(r->out, "],\"truncated\":");
	json_bool(r->out, res.truncated);
	buf_putc(r->out, '}');
	return reply_ok_end(r);
}
