/* patch_test.c - find-and-replace edits and their helpers (include/patch.h) */
#include <stdlib.h>
#include "edit.h"
#include "unit.h"

#define E(o, n)                                    \
	{                                          \
		o, n, sizeof(o) - 1, sizeof(n) - 1 \
	}

/* Apply edits to text: want is the result, or the error text. */
static void check(const char *name, const char *text,
		  const struct patch_edit *e, size_t n, const char *want)
{
	struct patch_error err;
	struct buf out;
	char msg[300];

	buf_init(&out);
	if (patch_apply(text, strlen(text), e, n, &out, &err)) {
		patch_error_text(&err, msg, sizeof(msg));
		unit_check_str(name, want, msg);
		unit_check_int(unit_name("%s/out_untouched", name), 0, (long long)out.len);
	} else {
		unit_check_mem(name, want, strlen(want), out.p ? out.p : "", out.len);
	}
	buf_free(&out);
}

static void apply(void)
{
	struct patch_edit one[] = {E("b\n", "B\n")};
	struct patch_edit seq[] = {E("a", "x"), E("xb", "yb")};
	struct patch_edit second_bad[] = {E("a", "x"), E("zzz", "y")};
	struct patch_edit amb[] = {E("b", "B"), E("dup", "D")};
	struct patch_edit empty[] = {E("", "x")};
	struct patch_edit same[] = {E("a", "a")};
	struct patch_edit lf_in_crlf[] = {E("b\nc\n", "B\nC\nD\n")};
	struct patch_edit eof_nl[] = {E("c\n", "C\n")};
	struct patch_edit bom_gone[] = {E("\xef\xbb\xbf"
					  "a",
					  "A")};
	struct patch_edit near[] = {E("if (x) {\n  y();\n}\n", "z\n")};

	check("patch/one", "a\nb\nc\n", one, 1, "a\nB\nc\n");
	check("patch/sequential", "ab\n", seq, 2, "yb\n");
	check("patch/all_or_nothing", "ab\n", second_bad, 2,
	      "hunk 2: old_text not found");
	check("patch/ambiguous", "b\ndup\nx\ndup\n", amb, 2,
	      "hunk 2: old_text occurs 2 times (lines 2 and 4, ...); give more "
	      "context to make it unique");
	check("patch/empty", "a\n", empty, 1, "hunk 1: old_text is empty");
	check("patch/same", "a\n", same, 1,
	      "hunk 1: old_text and new_text are the same");
	check("patch/crlf_follows_file", "a\r\nb\r\nc\r\n", lf_in_crlf, 1,
	      "a\r\nB\r\nC\r\nD\r\n");
	check("patch/no_final_newline_kept", "a\nb\nc", eof_nl, 1, "a\nb\nC");
	check("patch/bom_kept", "\xef\xbb\xbf"
				"a\n",
	      bom_gone, 1,
	      "\xef\xbb\xbf"
	      "A\n");
	check("patch/not_found_closest", "x\n\tif(x){\n\t\ty();\n\t}\nw\n", near, 1,
	      "hunk 1: old_text not found; closest match ignoring whitespace: "
	      "lines 2-4");
	check("patch/not_found_crlf", "x\r\ny\r\n", second_bad + 1, 1,
	      "hunk 1: old_text not found; the file has CRLF line endings");
}

static void closest(void)
{
	const char *t = "one\ntwo\n  three  four\nfive\nsix\n";
	size_t f, l;

	unit_check_int("closest/exact_ignoring_space",
		       1, patch_closest(t, strlen(t), "two\nthreefour\n", 14, &f, &l));
	unit_check_int("closest/first", 2, (long long)f);
	unit_check_int("closest/last", 3, (long long)l);
	unit_check_int("closest/half_of_lines",
		       1, patch_closest(t, strlen(t), "five\nsixty\n", 11, &f, &l));
	unit_check_int("closest/half_first", 4, (long long)f);
	unit_check_int("closest/nothing",
		       0, patch_closest(t, strlen(t), "seven\neight\nnine\n", 17, &f, &l));
	unit_check_int("closest/too_long", 0,
		       patch_closest("a\n", 2, "a\nb\nc\n", 6, &f, &l));
}

static void check_insert(const char *name, const char *text, size_t after,
			 const char *ins, const char *want)
{
	struct patch_error err;
	struct buf out;
	char msg[200];

	buf_init(&out);
	if (patch_insert(text, strlen(text), after, ins, strlen(ins), &out, &err)) {
		patch_error_text(&err, msg, sizeof(msg));
		unit_check_str(name, want, msg);
	} else {
		unit_check_mem(name, want, strlen(want), out.p ? out.p : "", out.len);
	}
	buf_free(&out);
}

static void insert(void)
{
	check_insert("insert/top", "a\nb\n", 0, "x", "x\na\nb\n");
	check_insert("insert/middle", "a\nb\n", 1, "x\n", "a\nx\nb\n");
	check_insert("insert/end", "a\nb\n", 2, "x\ny", "a\nb\nx\ny\n");
	check_insert("insert/end_no_newline", "a\nb", 2, "x\n", "a\nb\nx");
	check_insert("insert/top_after_bom", "\xef\xbb\xbf"
					     "a\n",
		     0, "x\n",
		     "\xef\xbb\xbf"
		     "x\na\n");
	check_insert("insert/crlf", "a\r\nb\r\n", 1, "x\ny\n", "a\r\nx\r\ny\r\nb\r\n");
	check_insert("insert/empty_file", "", 0, "x", "x\n");
	check_insert("insert/past_end", "a\n", 2, "x", "insert after line 2: the file has 1 lines");
	check_insert("insert/empty_text", "a\n", 0, "", "insert: new_text is empty");
}

static void crlf(void)
{
	unit_check_int("crlf/yes", 1, patch_crlf("a\r\nb\r\nc\n", 8));
	unit_check_int("crlf/no", 0, patch_crlf("a\r\nb\nc\n", 7));
	unit_check_int("crlf/empty", 0, patch_crlf("", 0));
}

int main(void)
{
	apply();
	closest();
	insert();
	crlf();
	return unit_done();
}
