/* globmatch.h - shell-style pattern matching */
#ifndef WFS_GLOBMATCH_H
#define WFS_GLOBMATCH_H

/* Go's filepath.Match: '*' and '?' never match '/', classes [abc] [a-z]
 * [^a], backslash escapes. Returns 1 on a match, 0 on none, -1 for
 * a malformed pattern (as Go's ErrBadPattern). */
int globmatch(const char *pat, const char *name);

/* Our extension, for patterns with '/', "**" or "{a,b}": matched against
 * a path relative to the search root. "**" as a whole component matches
 * zero or more directories; {a,b,c} alternation (nesting allowed, at
 * most GLOB_BRACE_MAX expansions tried, 16 groups deep; beyond either the
 * pattern is malformed). Returns 1, 0 or -1 like globmatch. */
#define GLOB_BRACE_MAX 10000
int globmatch_path(const char *pat, const char *path);

/* Non-zero when pat matches relative paths (has '/' or "**"); others
 * match base names. */
int globmatch_is_path_pattern(const char *pat);

/* Match an entry: its relative path for a path pattern, else its base
 * name (with {a,b} alternation). 1, 0 or -1 like globmatch. */
int globmatch_entry(const char *pat, const char *rel, const char *name);

/* The same with bash's options (shopt): */
#define GLOB_EXTGLOB 1u /* ?(..) *(..) +(..) @(..) !(..), '|' between
			   alternatives; and bash's pathname rule: a
			   leading '.' of a name matches only a '.' */
#define GLOB_DOTGLOB 2u /* ... unless this: '*', '?', [..] match it too */
#define GLOB_NOCASE 4u  /* ASCII letters match either case */
int globmatch_opts(const char *pat, const char *name, unsigned flags);
int globmatch_path_opts(const char *pat, const char *path, unsigned flags);
int globmatch_entry_opts(const char *pat, const char *rel, const char *name, unsigned flags);

#endif
