/* globwalk.h - files by name pattern over a tree (lib/globwalk.c) */
#ifndef WFS_GLOBWALK_H
#define WFS_GLOBWALK_H

#include <stddef.h>
#include "ctx.h"
#include "walk.h"

/* glob */
struct wfs_glob_opts {
	const char *pattern;
	const char *path; /* default "." */
	long max;         /* 100 by default; 0 = no cap */
	struct walk_opts walk;
	char type;            /* 0 (reference: not directories), 'f', 'd', 'l' */
	int sort_mtime;       /* newest first */
	int sort_name;        /* by path, byte order */
	unsigned match_flags; /* GLOB_EXTGLOB, GLOB_DOTGLOB, GLOB_NOCASE */
	int failglob;         /* no match is an error (bash's failglob) */
};
struct wfs_glob_result {
	const char **files;
	size_t n;
	int truncated;
	struct walk_errors *errors; /* directories not read */
};
int wfs_glob(struct wfs_ctx *c, const struct wfs_glob_opts *o,
	     struct wfs_glob_result *res);

#endif
