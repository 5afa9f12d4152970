/* grep.c - search file contents
 *
 * APPLET(grep, "i F w U A#<0>10000 B#<0>10000 C#<0>10000 max#<0=200 l|files-with-matches c|count include* exclude* extglob dotglob nocaseglob hidden no-skip gitignore z !U,A !U,B !U,C", 1, 2, APPLET_REF(2))
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
 *	  Given exactly PATTERN and PATH, both are literal ("-i" is searched
 *	  for); options go before them, and -- ends them.
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
 *	  --extglob, --dotglob, --nocaseglob  bash's options for those GLOBs
 *	              (wickfs help glob)
 *	  --hidden    descend into directories starting with "."
 *	  --no-skip   descend into node_modules, __pycache__, vendor
 *	  --gitignore honour .gitignore files
 *	  -z          search inside .gz files
 *	  -U          multiline: PATTERN may match across lines
 *
 *	  The text of a line is cut at 64 KiB ("text_truncated":true); lines
 *	  of any length are searched in bounded memory (a match longer than
 *	  64 KiB that crosses a 4 MiB window of a longer line can be missed).
 *	  Files over WICKFS_MAX_FILE (default 1 GiB; a .gz by its
 *	  decompressed size) are not searched but named in "skipped" (at
 *	  most 100; the field is absent when none is).
 *
 *	  Example: wickfs grep -C 2 --include '*.go' 'func main' src
 */
#define FOR_grep
#include "applet_opts.h"
#include <string.h>
#include "applet.h"
#include "text.h"
#include "fsops.h"
#include "globmatch.h"
#include "json.h"
#include "walk.h"

struct emitter {
	struct req *r;
	size_t n;           /* items written */
	int mode;           /* 0 matches, 1 files, 2 counts */
	int flushed;        /* part of the envelope already went to stdout */
	struct buf skipped; /* files over WICKFS_MAX_FILE, as JSON strings */
	size_t nskipped;
	/* text mode: grep's own lines, "--" between groups of context */
	const char *path; /* what was searched: a file's matches omit it */
	int context;
	const char *last_file;
	long long last_line;
};

/* Text mode, as grep -n (-H when PATH is a directory) and rg print. */
static void emit_text(struct emitter *e, const struct wfs_grep_match *m)
{
	struct buf *out = e->r->out;
	int named = strcmp(m->file, e->path) != 0;

	if (e->mode == 1) {
		buf_puts(out, m->file);
		buf_putc(out, '\n');
		return;
	}
	if (e->mode == 2) {
		if (named)
			buf_printf(out, "%s:", m->file);
		buf_printf(out, "%lld\n", m->count);
		return;
	}
	if (e->context && e->last_file &&
	    (strcmp(e->last_file, m->file) || m->line != e->last_line + 1))
		buf_puts(out, "--\n");
	e->last_file = m->file;
	e->last_line = m->line;
	if (named)
		buf_printf(out, "%s%c", m->file, m->context ? '-' : ':');
	buf_printf(out, "%lld%c", m->line, m->context ? '-' : ':');
	buf_add(out, m->text, m->text_len);
	buf_putc(out, '\n');
}

#define SKIPPED_LIST 100

/* Each match is rendered as it is found, so the CLI's memory stays
 * bounded whatever the output size. */
static int emit(void *arg, const struct wfs_grep_match *m)
{
	struct emitter *e = arg;
	struct buf *out = e->r->out;
	size_t before;

	if (m->skipped) {
		if (e->nskipped++ < SKIPPED_LIST) {
			if (e->skipped.len)
				buf_putc(&e->skipped, ',');
			json_cstr(&e->skipped, m->file);
		}
		return e->skipped.oom ? -1 : 0;
	}
	if (e->r->text) {
		struct wfs_grep_match copy;

		/* last_file must outlive this call */
		if (e->context && (!e->last_file || strcmp(e->last_file, m->file))) {
			copy = *m;
			copy.file = arena_strdup(e->r->arena, m->file);
			if (!copy.file)
				return -1;
			m = &copy;
		}
		e->n += !m->context;
		emit_text(e, m);
	} else if (e->n++)
		buf_putc(out, ',');
	if (e->r->text) {
	} else if (e->mode == 1) {
		json_cstr(out, m->file);
	} else if (e->mode == 2) {
		buf_puts(out, "{\"file\":");
		json_cstr(out, m->file);
		buf_puts(out, ",\"count\":");
		json_int(out, m->count);
		buf_putc(out, '}');
	} else {
		buf_puts(out, "{\"file\":");
		json_cstr(out, m->file);
		buf_puts(out, ",\"line\":");
		json_int(out, m->line);
		buf_puts(out, ",\"text\":");
		json_str(out, m->text, m->text_len);
		if (m->text_cut)
			buf_puts(out, ",\"text_truncated\":true");
		if (m->context)
			buf_puts(out, ",\"context\":true");
		buf_putc(out, '}');
	}
	before = out->len;
	req_flush(e->r);
	if (out->len < before)
		e->flushed = 1;
	return out->oom ? -1 : 0;
}

/* Text mode: the lines as they are found, what was not searched on
 * stderr; as grep, 0 when something matched, 1 when nothing did, 2 when
 * a file or directory could not be read. */
static int grep_text_run(struct req *r, struct wfs_grep_opts *o, struct emitter *em)
{
	struct wfs_grep_result res;
	size_t i;
	int rc;

	r->text_done = 1;
	rc = wfs_grep(r->ctx, o, &res);
	buf_free(&em->skipped);
	if (rc)
		return text_error(r, r->ctx->err) + 1;
	for (i = 0; res.errors && i < res.errors->n; i++)
		buf_printf(r->err, "wickfs grep: %s: %s\n", res.errors->v[i].path,
			   res.errors->v[i].error);
	if (res.errors && res.errors->total > res.errors->n)
		buf_printf(r->err, "wickfs grep: %llu more paths not read\n",
			   res.errors->total - res.errors->n);
	if (em->nskipped)
		buf_printf(r->err, "wickfs grep: %zu files over WICKFS_MAX_FILE not searched\n",
			   em->nskipped);
	if (res.truncated)
		buf_printf(r->err, "wickfs grep: stopped at %zu matches (--max N for more, 0 for all)\n",
			   em->n);
	if (res.errors && res.errors->total)
		return 2;
	if (!em->n) { /* the reference answers [] for a missing PATH; grep says so */
		const char *type;
		int yes = 1;

		if (wfs_exists(r->ctx, o->path, &yes, &type))
			return text_error(r, r->ctx->err) + 1;
		if (!yes) {
			buf_printf(r->err, "wickfs grep: %s: no such file or directory\n", o->path);
			return 2;
		}
	}
	return em->n ? 0 : 1;
}

int grep_main(struct req *r)
{
	struct wfs_grep_opts o = {0};
	struct wfs_grep_result res;
	struct emitter em = {.r = r};
	static const char *const heads[] = {
		"{\"matches\":[", "{\"files\":[", "{\"counts\":["};
	size_t base = r->out->len;

	o.pattern = r->argv[0];
	o.path = r->argc > 1 && r->argv[1][0] ? r->argv[1] : ".";
	o.max = opt_num(r, OPT_max);
	o.ignore_case = opt_has(r, OPT_i);
	o.fixed = opt_has(r, OPT_F);
	o.word = opt_has(r, OPT_w);
	o.multiline = opt_has(r, OPT_U);
	/* -C N is the default of -A and -B */
	o.before = (int)opt_num(r, opt_has(r, OPT_B) ? OPT_B : OPT_C);
	o.after = (int)opt_num(r, opt_has(r, OPT_A) ? OPT_A : OPT_C);
	o.files_with_matches = opt_has(r, OPT_l);
	o.count = opt_has(r, OPT_c);
	o.walk = opt_walk(r, OPT_hidden, OPT_no_skip, OPT_gitignore);
	o.gz = opt_has(r, OPT_z);
	o.ninclude = opt_list(r, OPT_include, &o.include);
	o.nexclude = opt_list(r, OPT_exclude, &o.exclude);
	o.glob_flags = (opt_has(r, OPT_extglob) ? GLOB_EXTGLOB : 0) |
		       (opt_has(r, OPT_dotglob) ? GLOB_DOTGLOB : 0) |
		       (opt_has(r, OPT_nocaseglob) ? GLOB_NOCASE : 0);
	em.mode = o.files_with_matches ? 1 : o.count ? 2
						     : 0;
	buf_init(&em.skipped);
	o.emit = emit;
	o.emit_arg = &em;
	em.path = o.path;
	em.context = o.before || o.after;
	if (r->text)
		return grep_text_run(r, &o, &em);
	reply_ok_begin(r);
	buf_puts(r->out, heads[em.mode]);
	if (wfs_grep(r->ctx, &o, &res)) {
		buf_free(&em.skipped);
		if (!em.flushed) {
			r->out->len = base;
			return reply_ctx_error(r);
		}
		/* Too late for an error envelope: end the data, say why. */
		buf_puts(r->out, "],\"truncated\":true,\"error\":");
		json_cstr(r->out, r->ctx->err);
		buf_putc(r->out, '}');
		reply_ok_end(r);
		return 1;
	}
	buf_puts(r->out, "],\"truncated\":");
	json_bool(r->out, res.truncated);
	walk_errors_json(r->out, res.errors);
	if (em.nskipped) {
		buf_puts(r->out, ",\"skipped\":[");
		buf_add(r->out, em.skipped.p, em.skipped.len);
		buf_putc(r->out, ']');
	}
	buf_free(&em.skipped);
	buf_putc(r->out, '}');
	return reply_ok_end(r);
}
