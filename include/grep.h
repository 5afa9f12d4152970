/* grep.h - content search over a tree (lib/grep.c) */
#ifndef WFS_GREP_H
#define WFS_GREP_H

#include <stddef.h>
#include "ctx.h"
#include "walk.h"

/* grep */
struct wfs_grep_match;
struct walk_errors;
struct wfs_grep_opts {
	const char *pattern;
	const char *path; /* default "." */
	long max;         /* 200 by default; 0 = no cap */
	int ignore_case, fixed, word, multiline;
	int before, after; /* context lines */
	int files_with_matches, count;
	int gz;
	struct walk_opts walk;
	const char **include, **exclude;
	int ninclude, nexclude;
	unsigned glob_flags; /* for include and exclude: GLOB_EXTGLOB, ... */
	/* When set, matches go to emit, in order, as they are found, and
	 * wfs_grep_result.matches stays empty (n still counts them). A
	 * non-zero return stops the search. */
	int (*emit)(void *arg, const struct wfs_grep_match *m);
	void *emit_arg;
};
struct wfs_grep_match {
	const char *file;
	long long line;
	const char *text;
	size_t text_len;
	int context;     /* 1: a context line, not a match */
	long long count; /* --count: matches in file */
	int text_cut;    /* the line is longer: text is its first 64 KiB */
	int skipped;     /* emit only: file is over WICKFS_MAX_FILE (for a .gz,
			  decompressed), not searched; nothing else is set */
};
struct wfs_grep_result {
	struct wfs_grep_match *matches;
	size_t n;
	int truncated;
	size_t skipped;             /* files over WICKFS_MAX_FILE */
	struct walk_errors *errors; /* files and directories not read */
};
int wfs_grep(struct wfs_ctx *c, const struct wfs_grep_opts *o,
	     struct wfs_grep_result *res);

#endif
