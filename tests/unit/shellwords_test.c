/* shellwords_test.c - what the daemon answers in process, and what goes
 * to sh. A wrong "plain" verdict would run a shell command without its
 * shell, so the refusals matter as much as the splits. */
#include <stdlib.h>
#include "arena.h"
#include "shellwords.h"
#include "unit.h"

/* WANT: the words joined by '|', or NULL when sh is needed. */
static void split(const char *name, const char *cmd, const char *want)
{
	struct arena a;
	char **w, got[1024] = "";
	int n, i;

	arena_init(&a);
	n = shellwords_split(&a, cmd, strlen(cmd), &w);
	for (i = 0; i < n; i++) {
		if (i)
			strcat(got, "|");
		strcat(got, w[i]);
	}
	if (!want && n < 0)
		unit_ok(name);
	else if (!want)
		unit_fail(name, "%s: split into %s, want sh", cmd, got);
	else if (n < 0)
		unit_fail(name, "%s: needs sh, want %s", cmd, want);
	else if (strcmp(got, want) || w[n])
		unit_fail(name, "%s: got %s want %s", cmd, got, want);
	else
		unit_ok(name);
	arena_free(&a);
}

int main(void)
{
	split("sw.plain", "wickfs ls /tmp", "wickfs|ls|/tmp");
	split("sw.quoted", "wickfs read '/a b/c.txt'", "wickfs|read|/a b/c.txt");
	split("sw.quote_idiom", "wickfs read '/it'\\''s'", "wickfs|read|/it's");
	split("sw.empty_word", "wickfs ls ''", "wickfs|ls|");
	split("sw.tabs_spaces", "  wickfs\t grep  'a|b'  ", "wickfs|grep|a|b");
	split("sw.specials_in_quotes", "wickfs grep '$x;`y`>z&&\"'", "wickfs|grep|$x;`y`>z&&\"");
	split("sw.backslash", "echo a\\ b", "echo|a b");
	split("sw.utf8", "wickfs read '/tmp/é'", "wickfs|read|/tmp/é");
	split("sw.assign_later_ok", "env A=1 x", "env|A=1|x");

	split("sw.pipe", "wickfs ls / | cat", NULL);
	split("sw.semicolon", "wickfs ls /; rm -rf /x", NULL);
	split("sw.and", "true&&false", NULL);
	split("sw.dollar", "echo $HOME", NULL);
	split("sw.subst", "echo `id`", NULL);
	split("sw.redirect", "wickfs ls / >out", NULL);
	split("sw.redirect_in", "cat <in", NULL);
	split("sw.double_quotes", "echo \"a\"", NULL);
	split("sw.glob", "ls *.c", NULL);
	split("sw.glob_q", "ls a?", NULL);
	split("sw.brackets", "ls [ab]", NULL);
	split("sw.tilde", "ls ~", NULL);
	split("sw.comment", "ls #x", NULL);
	split("sw.newline", "ls\nrm x", NULL);
	split("sw.assignment", "A=1 wickfs ls", NULL);
	split("sw.unterminated", "wickfs read '/x", NULL);
	split("sw.trailing_backslash", "echo \\", NULL);
	split("sw.braces", "echo {a,b}", NULL);
	split("sw.parens", "(ls)", NULL);
	split("sw.background", "sleep 1 &", NULL);
	split("sw.empty", "", NULL);
	split("sw.blank", "   ", NULL);

	if (shellwords_is_builtin("echo") && shellwords_is_builtin("cd") &&
	    shellwords_is_builtin("true") && !shellwords_is_builtin("ls") &&
	    !shellwords_is_builtin("wickfs"))
		unit_ok("sw.builtins");
	else
		unit_fail("sw.builtins", "wrong verdicts");
	return unit_done();
}
