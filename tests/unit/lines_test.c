/* lines_test.c - numbered pages of lines (include/lines.h) */
#include <stdlib.h>
#include <unistd.h>
#include "lines.h"
#include "unit.h"

static void check(const char *name, const char *text, size_t offset,
		  size_t limit, size_t max, const char *want, size_t total,
		  size_t first, size_t shown, size_t cut, int more)
{
	struct lines_page pg;
	struct buf out;

	buf_init(&out);
	lines_page(text, strlen(text), offset, limit, max, &out, &pg);
	unit_check_mem(name, want, strlen(want), out.p ? out.p : "", out.len);
	unit_check_int(unit_name("%s/total", name), (long long)total, (long long)pg.total);
	unit_check_int(unit_name("%s/first", name), (long long)first, (long long)pg.first);
	unit_check_int(unit_name("%s/shown", name), (long long)shown, (long long)pg.shown);
	unit_check_int(unit_name("%s/cut", name), (long long)cut, (long long)pg.cut);
	unit_check_int(unit_name("%s/more", name), more, pg.more);
	unit_check_int(unit_name("%s/truncated", name), more || cut, pg.truncated);
	buf_free(&out);
}

/* The same text through `cat -n`, when it is there. */
static void against_cat(void)
{
	const char *text = "a\n\tb\r\n\nlast";
	struct lines_page pg;
	struct buf out, cat;
	char chunk[256];
	char path[512], cmd[600];
	FILE *f, *p;
	size_t n;

	snprintf(path, sizeof(path), "%s/lines_test.%d",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
	snprintf(cmd, sizeof(cmd), "cat -n '%s' 2>/dev/null", path);
	f = fopen(path, "wb");
	p = NULL;
	if (f) {
		fputs(text, f);
		fclose(f);
		p = popen(cmd, "r");
	}
	if (!p) {
		printf("ok lines/against_cat # skipped: cannot run cat -n\n");
		return;
	}
	buf_init(&out);
	buf_init(&cat);
	while ((n = fread(chunk, 1, sizeof(chunk), p)) > 0)
		buf_add(&cat, chunk, n);
	if (pclose(p) != 0 || !cat.len) {
		printf("ok lines/against_cat # skipped: cat -n failed\n");
	} else {
		lines_page(text, strlen(text), 1, 0, 0, &out, &pg);
		unit_check_mem("lines/against_cat", cat.p, cat.len,
			       out.p ? out.p : "", out.len);
	}
	remove(path);
	buf_free(&out);
	buf_free(&cat);
}

int main(void)
{
	char *long_line;

	check("lines/all", "a\nb\n", 0, 0, 0, "     1\ta\n     2\tb\n", 2, 1, 2, 0, 0);
	check("lines/no_final_newline", "a\nb", 1, 0, 0, "     1\ta\n     2\tb",
	      2, 1, 2, 0, 0);
	check("lines/empty", "", 1, 0, 0, "", 0, 0, 0, 0, 0);
	check("lines/offset", "a\nb\nc\n", 2, 0, 0, "     2\tb\n     3\tc\n",
	      3, 2, 2, 0, 0);
	check("lines/limit", "a\nb\nc\n", 1, 2, 0, "     1\ta\n     2\tb\n",
	      3, 1, 2, 0, 1);
	check("lines/offset_past_end", "a\n", 5, 0, 0, "", 1, 0, 0, 0, 0);
	check("lines/blank_lines", "\n\n", 1, 0, 0, "     1\t\n     2\t\n",
	      2, 1, 2, 0, 0);
	/* 5 characters kept; the é (2 bytes) counts once */
	check("lines/cut", "h\xc3\xa9llo world\nok\n", 1, 0, 5,
	      "     1\th\xc3\xa9llo [... line cut: 11 characters]\n     2\tok\n",
	      2, 1, 2, 1, 0);
	check("lines/exactly_max", "abcde\n", 1, 0, 5, "     1\tabcde\n", 1, 1, 1, 0, 0);
	check("lines/wide_number", "a\nb\nc\n", 3, 1, 0, "     3\tc\n", 3, 3, 1, 0, 0);

	long_line = malloc(3001);
	memset(long_line, 'x', 3000);
	long_line[3000] = 0;
	{
		struct lines_page pg;
		struct buf out;

		buf_init(&out);
		lines_page(long_line, 3000, 1, 0, 0, &out, &pg);
		unit_check_int("lines/default_cut_length",
			       7 + 2000 + (long long)strlen(" [... line cut: 3000 characters]"),
			       (long long)out.len);
		buf_free(&out);
	}
	free(long_line);
	against_cat();
	return unit_done();
}
