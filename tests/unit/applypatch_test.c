/* applypatch_test.c - the "*** Begin Patch" format (include/applypatch.h):
 * the format's published examples, rewritten as data, and our rules. */
#include <stdlib.h>
#include "edit.h"
#include "unit.h"

static int parse(struct arena *a, const char *patch, struct applypatch_plan *plan,
		 char *err, size_t errlen)
{
	return applypatch_parse(a, patch, strlen(patch), plan, err, errlen);
}

/* Parse patch (one Update File), apply it to old, compare with want (the
 * new text, or the error when want starts with '!'). */
static void check_update(const char *name, const char *patch, const char *old,
			 const char *want)
{
	struct applypatch_plan plan;
	struct arena a;
	struct buf out;
	char err[300];

	arena_init(&a);
	buf_init(&out);
	if (parse(&a, patch, &plan, err, sizeof(err))) {
		unit_check_str(name, want, unit_name("!%s", err));
	} else if (plan.nfiles != 1 || plan.files[0].op != APPLYPATCH_UPDATE) {
		unit_fail(name, "expected one Update File, got %zu files", plan.nfiles);
	} else if (applypatch_update(&plan.files[0], old, strlen(old), &out, err,
				     sizeof(err))) {
		unit_check_str(name, want, unit_name("!%s", err));
	} else {
		unit_check_mem(name, want, strlen(want), out.p ? out.p : "", out.len);
	}
	buf_free(&out);
	arena_free(&a);
}

static void check_parse_error(const char *name, const char *patch, const char *want)
{
	struct applypatch_plan plan;
	struct arena a;
	char err[300] = "";

	arena_init(&a);
	if (!parse(&a, patch, &plan, err, sizeof(err)))
		unit_fail(name, "parsed, expected \"%s\"", want);
	else
		unit_check_str(name, want, err);
	arena_free(&a);
}

/* The combined example of the format's description: add, update with a
 * move and an anchor, delete. */
static void published_example(void)
{
	const char *patch =
		"*** Begin Patch\n"
		"*** Add File: hello.txt\n"
		"+Hello world\n"
		"*** Update File: src/app.py\n"
		"*** Move to: src/main.py\n"
		"@@ def greet():\n"
		"-print(\"Hi\")\n"
		"+print(\"Hello, world!\")\n"
		"*** Delete File: obsolete.txt\n"
		"*** End Patch\n";
	const char *app = "import sys\n\ndef greet():\nprint(\"Hi\")\n";
	struct applypatch_plan plan;
	struct arena a;
	struct buf out;
	char err[300];

	arena_init(&a);
	buf_init(&out);
	if (parse(&a, patch, &plan, err, sizeof(err))) {
		unit_fail("applypatch/example", "%s", err);
		goto out;
	}
	unit_check_int("applypatch/example/files", 3, (long long)plan.nfiles);
	if (plan.nfiles != 3)
		goto out;
	unit_check_int("applypatch/example/add", APPLYPATCH_ADD, plan.files[0].op);
	unit_check_str("applypatch/example/add_path", "hello.txt", plan.files[0].path);
	unit_check_mem("applypatch/example/add_content", "Hello world\n", 12,
		       plan.files[0].content, plan.files[0].content_len);
	unit_check_str("applypatch/example/update_path", "src/app.py", plan.files[1].path);
	unit_check_str("applypatch/example/move_to", "src/main.py",
		       plan.files[1].move_to ? plan.files[1].move_to : "(none)");
	unit_check_int("applypatch/example/anchors", 1,
		       (long long)plan.files[1].hunks[0].nanchors);
	unit_check_int("applypatch/example/delete", APPLYPATCH_DELETE, plan.files[2].op);
	unit_check_str("applypatch/example/delete_path", "obsolete.txt", plan.files[2].path);
	unit_check_int("applypatch/example/line", 9, (long long)plan.files[2].patch_line);
	if (applypatch_update(&plan.files[1], app, strlen(app), &out, err, sizeof(err)))
		unit_fail("applypatch/example/update", "%s", err);
	else
		unit_check_str("applypatch/example/update",
			       "import sys\n\ndef greet():\nprint(\"Hello, world!\")\n", out.p);
out:
	buf_free(&out);
	arena_free(&a);
}

static void updates(void)
{
	/* the format's simplest update: context then a change */
	check_update("applypatch/update",
		     "*** Begin Patch\n*** Update File: u.txt\n@@\n foo\n-bar\n+baz\n*** End Patch\n",
		     "foo\nbar\n", "foo\nbaz\n");
	/* two hunks in one file, with context between */
	check_update("applypatch/two_hunks",
		     "*** Begin Patch\n*** Update File: f\n@@\n a\n-b\n+B\n@@\n e\n-f\n+F\n*** End Patch",
		     "a\nb\nc\nd\ne\nf\ng\n", "a\nB\nc\nd\ne\nF\ng\n");
	/* the first hunk may leave out its "@@" */
	check_update("applypatch/no_first_at",
		     "*** Begin Patch\n*** Update File: f\n-x\n+y\n*** End Patch\n",
		     "w\nx\n", "w\ny\n");
	/* anchors in a row narrow down which of two equal bodies changes
	 * (the format's "@@ class" / "@@ def" example) */
	check_update("applypatch/stacked_anchors",
		     "*** Begin Patch\n*** Update File: m.py\n@@ class B\n@@     def f(self):\n"
		     "-        pass\n+        return 1\n*** End Patch\n",
		     "class A\n    def f(self):\n        pass\nclass B\n    def g(self):\n"
		     "        pass\n    def f(self):\n        pass\n",
		     "class A\n    def f(self):\n        pass\nclass B\n    def g(self):\n"
		     "        pass\n    def f(self):\n        return 1\n");
	check_update("applypatch/anchor_not_found",
		     "*** Begin Patch\n*** Update File: f\n@@ def nope():\n-x\n+y\n*** End Patch\n",
		     "x\n", "!f: hunk 1 (patch line 3): anchor \"def nope():\" not found");
	check_update("applypatch/context_not_found",
		     "*** Begin Patch\n*** Update File: f\n@@\n a\n-zz\n+y\n*** End Patch\n",
		     "a\nb\n", "!f: hunk 1 (patch line 3): its context and removed lines "
			       "were not found (first: \"a\")");
	/* End of File: of two equal lines, the last one */
	check_update("applypatch/end_of_file",
		     "*** Begin Patch\n*** Update File: f\n@@\n-x\n+y\n*** End of File\n*** End Patch\n",
		     "x\nm\nx\n", "x\nm\ny\n");
	/* matching passes: trailing whitespace, then surrounding whitespace */
	check_update("applypatch/rtrim_pass",
		     "*** Begin Patch\n*** Update File: f\n@@\n a\n-b\n+c\n*** End Patch\n",
		     "a  \nb\t\n", "a  \nc\n");
	check_update("applypatch/trim_pass",
		     "*** Begin Patch\n*** Update File: f\n@@\n a\n-b\n+c\n*** End Patch\n",
		     "  a\n\tb \n", "  a\nc\n");
	check_update("applypatch/exact_before_trim",
		     "*** Begin Patch\n*** Update File: f\n@@\n-b\n+c\n*** End Patch\n",
		     " b\nb\n", " b\nc\n");
	/* pure additions: after the anchor, else at the end */
	check_update("applypatch/add_after_anchor",
		     "*** Begin Patch\n*** Update File: f\n@@ a\n+new\n*** End Patch\n",
		     "a\nb\n", "a\nnew\nb\n");
	check_update("applypatch/add_at_end",
		     "*** Begin Patch\n*** Update File: f\n@@\n+new\n*** End Patch\n",
		     "a\nb\n", "a\nb\nnew\n");
	/* the file's conventions survive */
	check_update("applypatch/crlf_kept",
		     "*** Begin Patch\n*** Update File: f\n@@\n a\n-b\n+c\n+d\n*** End Patch\n",
		     "a\r\nb\r\n", "a\r\nc\r\nd\r\n");
	check_update("applypatch/no_final_newline_kept",
		     "*** Begin Patch\n*** Update File: f\n@@\n a\n-b\n+c\n*** End Patch\n",
		     "a\nb", "a\nc");
	check_update("applypatch/bom_kept",
		     "*** Begin Patch\n*** Update File: f\n@@\n-a\n+b\n*** End Patch\n",
		     "\xef\xbb\xbf"
		     "a\n",
		     "\xef\xbb\xbf"
		     "b\n");
	check_update("applypatch/crlf_patch",
		     "*** Begin Patch\r\n*** Update File: f\r\n@@\r\n-a\r\n+b\r\n*** End Patch\r\n",
		     "a\n", "b\n");
	/* an empty patch line is empty context */
	check_update("applypatch/empty_context",
		     "*** Begin Patch\n*** Update File: f\n@@\n a\n\n-b\n+c\n*** End Patch\n",
		     "a\n\nb\n", "a\n\nc\n");
	check_update("applypatch/delete_all",
		     "*** Begin Patch\n*** Update File: f\n@@\n-a\n-b\n*** End Patch\n",
		     "a\nb\n", "");
}

static void parse_errors(void)
{
	check_parse_error("applypatch/err_begin", "hello\n",
			  "patch line 1: expected '*** Begin Patch', got \"hello\"");
	check_parse_error("applypatch/err_empty", "",
			  "patch line 1: expected '*** Begin Patch'");
	check_parse_error("applypatch/err_no_end",
			  "*** Begin Patch\n*** Delete File: a\n",
			  "patch line 3: expected '*** End Patch' before the end of the input");
	check_parse_error("applypatch/err_section",
			  "*** Begin Patch\n*** Frobnicate File: a\n*** End Patch\n",
			  "patch line 2: expected '*** Add File: ', '*** Delete File: ', "
			  "'*** Update File: ' or '*** End Patch', got \"*** Frobnicate File: a\"");
	check_parse_error("applypatch/err_no_path",
			  "*** Begin Patch\n*** Delete File:\n*** End Patch\n",
			  "patch line 2: expected a path after the colon");
	check_parse_error("applypatch/err_hunk_line",
			  "*** Begin Patch\n*** Update File: a\n@@\n x\nbad\n*** End Patch\n",
			  "patch line 5: expected '@@' or a hunk line starting with ' ', '-' "
			  "or '+', got \"bad\"");
	check_parse_error("applypatch/err_no_hunks",
			  "*** Begin Patch\n*** Update File: a\n*** End Patch\n",
			  "patch line 3: expected a hunk ('@@' and its lines) for the "
			  "update of, got \"a\"");
	check_parse_error("applypatch/err_empty_hunk",
			  "*** Begin Patch\n*** Update File: a\n@@ x\n*** End Patch\n",
			  "patch line 4: expected lines after '@@'");
	check_parse_error("applypatch/err_eof_first",
			  "*** Begin Patch\n*** Update File: a\n*** End of File\n*** End Patch\n",
			  "patch line 3: expected hunk lines before '*** End of File', "
			  "got \"*** End of File\"");
	check_parse_error("applypatch/err_after_end",
			  "*** Begin Patch\n*** Delete File: a\n*** End Patch\nmore\n",
			  "patch line 4: expected nothing after '*** End Patch', got \"more\"");
	check_parse_error("applypatch/err_add_line",
			  "*** Begin Patch\n*** Add File: a\n+x\ny\n*** End Patch\n",
			  "patch line 4: expected '*** Add File: ', '*** Delete File: ', "
			  "'*** Update File: ' or '*** End Patch', got \"y\"");
}

int main(void)
{
	published_example();
	updates();
	parse_errors();
	return unit_done();
}
