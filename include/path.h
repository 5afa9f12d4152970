/* path.h - lexical path helpers (lib/path.c) */
#ifndef WFS_PATH_H
#define WFS_PATH_H

#include "arena.h"

/* Go's filepath.Clean: lexical, "" -> ".". */
char *path_clean(struct arena *a, const char *p);
/* Base name without trailing slashes ("" for "/"). Points into p. */
const char *path_base(const char *p);

/* ,"KEY":ESCAPED when s is not UTF-8 (ls's "name_escaped"): its bytes
 * that are not part of a character as \xHH, backslashes as \\. Nothing
 * when s is UTF-8. */
struct buf;
void path_escaped_field(struct buf *b, const char *key, const char *s);
/* The bytes such an escaped form stands for (in a), or NULL with *why
 * (a bad escape, or a NUL byte). */
char *path_unescape(struct arena *a, const char *s, const char **why);

#endif
