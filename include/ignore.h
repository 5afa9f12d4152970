/* ignore.h - .gitignore rules (lib/ignore.c) */
#ifndef WFS_IGNORE_H
#define WFS_IGNORE_H

struct ignore_set;

/* The rules of the .gitignore in the directory open at dirfd, chained to
 * parent (the set in effect above it); NULL when it has none, or none
 * readable. rel: that directory's path relative to the walk's root ("" at
 * the root). Confined, a .gitignore that is a symlink is not followed. */
struct ignore_set *ignore_load(int dirfd, int confined, const char *rel,
			       struct ignore_set *parent);

/* Does the innermost set s (and those above it) ignore the entry rel
 * (relative to the root) named name? 1 yes, 0 no. */
int ignore_match(const struct ignore_set *s, const char *rel, const char *name,
		 int is_dir);

/* Free s alone, not its parents. */
void ignore_free(struct ignore_set *s);

#endif
