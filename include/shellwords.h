/* shellwords.h - split a command line that needs no shell */
#ifndef WFS_SHELLWORDS_H
#define WFS_SHELLWORDS_H

#include <stddef.h>
#include "arena.h"

/* Split CMD into words when it is made only of plain characters,
 * single-quoted strings and backslash escapes, separated by blanks: what
 * RemoteFS builds ('it'\''s' included). Returns the number of words and a
 * NULL-terminated vector in the arena, or -1 when the command has any other
 * shell syntax (or is empty) and must go to sh -c. */
int shellwords_split(struct arena *a, const char *cmd, size_t len,
		     char ***argv);

/* Non-zero for shell builtins and reserved words: a word list starting
 * with one of these must still go to sh (echo and printf differ from the
 * programs of the same name, cd has no program). */
int shellwords_is_builtin(const char *word);

#endif
