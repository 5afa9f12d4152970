/* glob.c - find files by name pattern
 *
 * APPLET(glob, "max#<0=100 hidden no-skip gitignore sort: type: extglob dotglob nocaseglob nullglob failglob !nullglob,failglob", 1, 2, APPLET_REF(2))
 *
 * config APPLET_GLOB
 *	bool "glob: find files by pattern"
 *	default y
 *	help
 *	  usage: wickfs glob [OPTIONS] PATTERN [PATH]
 *
 *	  Walk PATH (default ".") in lexical order, skipping directories named
 *	  node_modules, __pycache__, vendor or starting with ".", and list
 *	  entries that are not directories whose base name matches PATTERN
 *	  (*, ?, [...], \). A PATTERN with "/" or "**" matches the path
 *	  relative to PATH (**\/\*.go, src/\**\/test_*.py); {a,b} alternates.
 *	  Data: {"files":[...],"truncated"}. Given exactly PATTERN and PATH,
 *	  both are literal; options go before them, and -- ends them.
 *
 *	  --max N        at most N files (default 100, 0: no cap)
 *	  --sort name|mtime  by path, or newest first
 *	  --type f|d|l   regular files, directories or symlinks only
 *	  --hidden       descend into directories starting with "."
 *	  --no-skip      descend into node_modules, __pycache__, vendor
 *	  --gitignore    honour .gitignore files
 *
 *	  bash's shopt options, by the same names:
 *	  --extglob      ?(a|b) *(..) +(..) @(..) !(..) as bash reads them,
 *	                 and bash's rule that a leading "." of a name is
 *	                 matched only by a "." in PATTERN
 *	  --dotglob      ... unless this: *, ? and [..] match it too
 *	  --nocaseglob   letters match either case
 *	  --failglob     no match is an error; --nullglob (the default)
 *	                 an empty list
 *
 *	  Example: wickfs glob --extglob '!(*_test).go' src
 */
#include <string.h>
#define FOR_glob
#include "applet_opts.h"
#include "applet.h"
#include "text.h"
#include "globmatch.h"
#include "json.h"
#include "walk.h"

int glob_main(struct req *r)
{
	struct wfs_glob_opts o = {0};
	struct wfs_glob_result res;
	const char *sort = opt_str(r, OPT_sort), *type = opt_str(r, OPT_type);
	size_t i;

	o.pattern = r->argv[0];
	o.path = r->argc > 1 && r->argv[1][0] ? r->argv[1] : ".";
	o.max = opt_num(r, OPT_max);
	o.walk = opt_walk(r, OPT_hidden, OPT_no_skip, OPT_gitignore);
	o.match_flags = (opt_has(r, OPT_extglob) ? GLOB_EXTGLOB : 0) |
			(opt_has(r, OPT_dotglob) ? GLOB_DOTGLOB : 0) |
			(opt_has(r, OPT_nocaseglob) ? GLOB_NOCASE : 0);
	o.failglob = opt_has(r, OPT_failglob);
	if (sort && !strcmp(sort, "mtime"))
		o.sort_mtime = 1;
	else if (sort && !strcmp(sort, "name"))
		o.sort_name = 1;
	else if (sort)
		return reply_error(r, "glob: --sort takes name or mtime, got \"%s\"", sort);
	if (type) {
		if (strlen(type) != 1 || !strchr("fdl", type[0]))
			return reply_error(r, "glob: --type takes f, d or l, got \"%s\"", type);
		o.type = type[0];
	}
	if (wfs_glob(r->ctx, &o, &res))
		return reply_ctx_error(r);
	reply_ok_begin(r);
	buf_puts(r->out, "{\"files\":[");
	for (i = 0; i < res.n; i++) {
		if (i)
			buf_putc(r->out, ',');
		json_cstr(r->out, res.files[i]);
	}
	buf_puts(r->out, "],\"truncated\":");
	json_bool(r->out, res.truncated);
	walk_errors_json(r->out, res.errors);
	buf_putc(r->out, '}');
	return reply_ok_end(r);
}

/* One path a line; what was cut or could not be read on stderr. */
int glob_text(struct req *r, int ok, const struct json_val *v)
{
	const struct json_val *f, *errs;
	size_t i;

	if (!ok)
		return text_error(r, v->str);
	f = json_get(v, "files");
	for (i = 0; f && f->type == JSON_ARR && i < f->len; i++) {
		text_value(r->out, &f->items[i]);
		buf_putc(r->out, '\n');
	}
	errs = json_get(v, "errors");
	for (i = 0; errs && errs->type == JSON_ARR && i < errs->len; i++)
		buf_printf(r->err, "wickfs glob: %s: %s\n", text_str(&errs->items[i], "path"),
			   text_str(&errs->items[i], "error"));
	if (text_bool(v, "truncated"))
		buf_printf(r->err, "wickfs glob: stopped at %zu paths (--max N for more, 0 for all)\n",
			   f && f->type == JSON_ARR ? f->len : 0);
	return errs ? 1 : 0;
}
