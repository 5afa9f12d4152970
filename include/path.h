/* path.h - lexical path helpers (lib/path.c) */
#ifndef WFS_PATH_H
#define WFS_PATH_H

#include "arena.h"

/* Go's filepath.Clean: lexical, "" -> ".". */
char *path_clean(struct arena *a, const char *p);
/* Base name without trailing slashes ("" for "/"). Points into p. */
const char *path_base(const char *p);

#endif
