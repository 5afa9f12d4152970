/* glob.c - find files by name pattern
 *
 * APPLET(glob, "max#<0=100 hidden no-skip gitignore sort: type:", 1, 2, APPLET_REF(2))
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
 */
#include <string.h>
#define FOR_glob
#include "applet_opts.h"
#include "applet.h"
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
