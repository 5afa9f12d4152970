/* shellwords.c - the shell-free subset of sh's word splitting.
 *
 * Accepted: runs of plain characters, '...' strings and \X escapes,
 * separated by spaces or tabs. Everything else (pipes, redirections,
 * variables, globs, double quotes, newlines, comments, a leading
 * assignment) means the command needs a real shell.
 */
#include <string.h>
#include "shellwords.h"

static int plain_char(unsigned char c)
{
	if (c >= 0x80)
		return 1; /* bytes of multibyte characters: literal in sh */
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9'))
		return 1;
	return c && strchr("_-./:=@%+,", c) != NULL;
}

int shellwords_split(struct arena *a, const char *cmd, size_t len,
		     char ***argv)
{
	char **v, *w;
	size_t i = 0, n = 0, max = len / 2 + 2;

	v = arena_alloc(a, max * sizeof(*v));
	w = arena_alloc(a, len + 1);
	if (!v || !w)
		return -1;
	for (;;) {
		char *start;
		int quoted = 0;

		while (i < len && (cmd[i] == ' ' || cmd[i] == '\t'))
			i++;
		if (i == len)
			break;
		start = w;
		while (i < len && cmd[i] != ' ' && cmd[i] != '\t') {
			unsigned char c = (unsigned char)cmd[i];

			if (c == '\'') {
				const char *q = memchr(cmd + i + 1, '\'', len - i - 1);
				if (!q)
					return -1;
				memcpy(w, cmd + i + 1, (size_t)(q - cmd - i - 1));
				w += q - cmd - i - 1;
				i = (size_t)(q - cmd) + 1;
				quoted = 1;
			} else if (c == '\\') {
				if (i + 1 >= len || cmd[i + 1] == '\n')
					return -1;
				*w++ = cmd[i + 1];
				i += 2;
				quoted = 1;
			} else if (plain_char(c)) {
				*w++ = (char)c;
				i++;
			} else {
				return -1;
			}
		}
		*w++ = 0;
		/* A first word such as A=1 is an assignment, not a program. */
		if (n == 0 && !quoted && strchr(start, '='))
			return -1;
		v[n++] = start;
	}
	if (n == 0)
		return -1;
	v[n] = NULL;
	*argv = v;
	return (int)n;
}

int shellwords_is_builtin(const char *word)
{
	/* clang-format off */
	static const char *const names[] = {
		"!", ".", ":", "[", "[[", "alias", "bg", "break", "case", "cd",
		"command", "continue", "do", "done", "echo", "elif", "else",
		"esac", "eval", "exec", "exit", "export", "false", "fc", "fg",
		"fi", "for", "function", "getopts", "hash", "if", "in", "jobs",
		"kill", "let", "local", "printf", "pwd", "read", "readonly",
		"return", "select", "set", "shift", "source", "test", "then",
		"time", "times", "trap", "true", "type", "ulimit", "umask",
		"unalias", "unset", "until", "wait", "while", "{", "}",
	};
	/* clang-format on */
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(word, names[i]))
			return 1;
	return 0;
}
