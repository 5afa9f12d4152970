/* diff_test.c - the line diff (include/diff.h): written expectations, then
 * random texts compared with GNU `diff -u` when it is installed. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "diff.h"
#include "unit.h"

static void check_unified(const char *name, const char *a, const char *b,
			  int context, const char *want)
{
	struct diff d;
	struct buf out;

	buf_init(&out);
	if (diff_compute(&d, a, strlen(a), b, strlen(b), context)) {
		unit_fail(name, "diff_compute failed");
		return;
	}
	diff_unified(&d, &out, "a", "b");
	unit_check_mem(name, want, strlen(want), out.p ? out.p : "", out.len);
	diff_free(&d);
	buf_free(&out);
}

static void written(void)
{
	check_unified("diff/equal", "x\ny\n", "x\ny\n", 3, "");
	check_unified("diff/both_empty", "", "", 3, "");
	check_unified("diff/add_to_empty", "", "a\nb", 3,
		      "--- a\n+++ b\n@@ -0,0 +1,2 @@\n+a\n+b\n"
		      "\\ No newline at end of file\n");
	check_unified("diff/remove_all", "a\n", "", 3,
		      "--- a\n+++ b\n@@ -1 +0,0 @@\n-a\n");
	check_unified("diff/final_newline_only", "a\nb", "a\nb\n", 3,
		      "--- a\n+++ b\n@@ -1,2 +1,2 @@\n a\n-b\n"
		      "\\ No newline at end of file\n+b\n");
	check_unified("diff/context_without_newline", "a\nb\nc", "x\nb\nc", 3,
		      "--- a\n+++ b\n@@ -1,3 +1,3 @@\n-a\n+x\n b\n c\n"
		      "\\ No newline at end of file\n");
	/* 1..20 with 4 and 11 changed: a gap of 6 shares one hunk */
	check_unified("diff/gap_6_one_hunk",
		      "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n",
		      "1\n2\n3\nx\n5\n6\n7\n8\n9\n10\ny\n12\n13\n14\n15\n", 3,
		      "--- a\n+++ b\n@@ -1,14 +1,14 @@\n 1\n 2\n 3\n-4\n+x\n"
		      " 5\n 6\n 7\n 8\n 9\n 10\n-11\n+y\n 12\n 13\n 14\n");
	check_unified("diff/gap_7_two_hunks",
		      "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n",
		      "1\n2\n3\nx\n5\n6\n7\n8\n9\n10\n11\ny\n13\n14\n15\n", 3,
		      "--- a\n+++ b\n@@ -1,7 +1,7 @@\n 1\n 2\n 3\n-4\n+x\n 5\n"
		      " 6\n 7\n@@ -9,7 +9,7 @@\n 9\n 10\n 11\n-12\n+y\n 13\n"
		      " 14\n 15\n");
	check_unified("diff/context_1", "1\n2\n3\n4\n5\n", "1\n2\nx\n4\n5\n", 1,
		      "--- a\n+++ b\n@@ -2,3 +2,3 @@\n 2\n-3\n+x\n 4\n");
	check_unified("diff/context_0_insert", "1\n2\n", "1\nx\n2\n", 0,
		      "--- a\n+++ b\n@@ -1,0 +2 @@\n+x\n");
	/* an inserted block after a repeated line slides down, as GNU's */
	check_unified("diff/slide_down", "a\n}\nb\n", "a\n}\nx\n}\nb\n", 3,
		      "--- a\n+++ b\n@@ -1,3 +1,5 @@\n a\n }\n+x\n+}\n b\n");
	check_unified("diff/crlf_differs", "a\r\nb\r\n", "a\r\nb\n", 3,
		      "--- a\n+++ b\n@@ -1,2 +1,2 @@\n a\r\n-b\r\n+b\n");
}

static void counts_and_json(void)
{
	const char *a = "1\n2\n3\n", *b = "1\nx\ny\n3";
	struct diff d;
	struct buf out;

	buf_init(&out);
	if (diff_compute(&d, a, strlen(a), b, strlen(b), 3)) {
		unit_fail("diff/json", "diff_compute failed");
		return;
	}
	unit_check_int("diff/added", 3, (long long)d.added);
	unit_check_int("diff/removed", 2, (long long)d.removed);
	unit_check_int("diff/hunks", 1, (long long)d.nhunks);
	diff_json(&d, &out);
	unit_check_str("diff/json",
		       "{\"added\":3,\"removed\":2,\"hunks\":[{\"old_start\":1,"
		       "\"old_lines\":3,\"new_start\":1,\"new_lines\":4,\"lines\":"
		       "[\" 1\",\"-2\",\"-3\",\"+x\",\"+y\",\"+3\","
		       "\"\\\\ No newline at end of file\"]}]}",
		       out.p);
	diff_free(&d);
	buf_free(&out);
}

/* ---- against GNU diff: the same bytes after the two header lines,
 * also where many equally short scripts exist (few distinct lines) ---- */

static unsigned long long rng = 88172645463325252ull;

static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

static void random_line(struct buf *b, unsigned alphabet)
{
	buf_printf(b, "line %u\n", rnd(alphabet));
}

/* A text of n lines and an edited copy: deletions, insertions and
 * replacements of short runs, now and then without a final newline.
 * Rate 100: the second text is unrelated to the first. */
static void make_pair(struct buf *a, struct buf *b, unsigned n,
		      unsigned alphabet, unsigned rate)
{
	struct diff_line *l;
	size_t nl, i;

	buf_reset(a);
	buf_reset(b);
	for (i = 0; i < n; i++)
		random_line(a, alphabet);
	if (rnd(4) == 0 && a->len)
		a->len--;
	diff_split(a->p ? a->p : "", a->len, &l, &nl);
	for (i = 0; rate >= 100 && i < n; i++)
		random_line(b, alphabet);
	for (i = 0; rate < 100 && i < nl; i++) {
		unsigned r = rnd(100), k;

		if (r < rate) { /* delete a short run */
			i += rnd(3);
			continue;
		}
		if (r < 2 * rate) /* insert a short run */
			for (k = rnd(4) + 1; k; k--)
				random_line(b, alphabet);
		if (r < 3 * rate && r >= 2 * rate) /* replace */
			random_line(b, alphabet);
		else
			buf_add(b, l[i].p, l[i].len);
	}
	if (rnd(4) == 0 && b->len && b->p[b->len - 1] == '\n')
		b->len--;
	free(l);
}

static int write_file(const char *path, const struct buf *b)
{
	FILE *f = fopen(path, "wb");
	int rc;

	if (!f)
		return -1;
	rc = fwrite(b->p ? b->p : "", 1, b->len, f) == b->len ? 0 : -1;
	return fclose(f) || rc ? -1 : 0;
}

/* GNU's output without its two header lines. */
static int gnu_diff(const char *pa, const char *pb, struct buf *out)
{
	char cmd[1300], chunk[4096];
	size_t n;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "diff -u '%s' '%s'", pa, pb);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while ((n = fread(chunk, 1, sizeof(chunk), p)) > 0)
		buf_add(out, chunk, n);
	if (pclose(p) == -1)
		return -1;
	return 0;
}

static const char *skip_headers(const char *s, size_t *n)
{
	int k;

	for (k = 0; k < 2 && *n; k++) {
		const char *nl = memchr(s, '\n', *n);
		if (!nl)
			break;
		*n -= (size_t)(nl + 1 - s);
		s = nl + 1;
	}
	return s;
}

static void against_gnu(void)
{
	static const struct {
		unsigned n, alphabet, rate, rounds;
	} runs[] = {
		{30, 1000000, 10, 80},
		{30, 8, 10, 80},
		{200, 50, 5, 30},
		{300, 1000000, 3, 20},
		{1000, 100, 8, 5},
		{2000, 300, 15, 3},
		{100, 3, 10, 50},
		{500, 8, 20, 10},
		{3000, 5000, 2, 2},
		/* nearly all lines differ: the search gives up on minimal
		 * (GNU's too-expensive cut) and must give up as GNU does */
		{6000, 3000, 100, 1},
	};
	char dir[512], pa[600], pb[600];
	struct buf a, b, ours, gnu;
	size_t r, k, bad = 0, total = 0;

	if (system("diff --version 2>/dev/null | grep -q GNU") != 0) {
		printf("ok diff/against_gnu # skipped: GNU diff not installed\n");
		return;
	}
	snprintf(dir, sizeof(dir), "%s/diff_test.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir)) {
		unit_fail("diff/against_gnu", "mkdtemp failed");
		return;
	}
	snprintf(pa, sizeof(pa), "%s/a", dir);
	snprintf(pb, sizeof(pb), "%s/b", dir);
	buf_init(&a);
	buf_init(&b);
	buf_init(&ours);
	buf_init(&gnu);
	for (r = 0; r < sizeof(runs) / sizeof(runs[0]); r++)
		for (k = 0; k < runs[r].rounds; k++) {
			struct diff d;
			const char *g;
			size_t gn;

			make_pair(&a, &b, runs[r].n, runs[r].alphabet,
				  runs[r].rate);
			if (write_file(pa, &a) || write_file(pb, &b) ||
			    diff_compute(&d, a.p ? a.p : "", a.len,
					 b.p ? b.p : "", b.len, 3)) {
				unit_fail("diff/against_gnu", "setup failed");
				goto out;
			}
			buf_reset(&ours);
			buf_reset(&gnu);
			diff_unified(&d, &ours, "a", "b");
			diff_free(&d);
			if (gnu_diff(pa, pb, &gnu)) {
				unit_fail("diff/against_gnu", "running diff failed");
				goto out;
			}
			gn = gnu.len;
			g = skip_headers(gnu.p ? gnu.p : "", &gn);
			total++;
			/* ours has the 12-byte headers "--- a\n+++ b\n" */
			if (gn != (ours.len ? ours.len - 12 : 0) ||
			    memcmp(g, ours.p ? ours.p + 12 : "", gn)) {
				if (!bad++)
					unit_fail(unit_name("diff/against_gnu/%zu/%zu", r, k),
						  "n=%u alphabet=%u: ours %s gnu %s",
						  runs[r].n, runs[r].alphabet,
						  unit_show(ours.p, ours.len),
						  unit_show(gnu.p, gnu.len));
			}
		}
	if (!bad)
		unit_ok(unit_name("diff/against_gnu (%zu pairs)", total));
	else
		unit_fail("diff/against_gnu", "%zu of %zu pairs differ", bad, total);
out:
	unlink(pa);
	unlink(pb);
	rmdir(dir);
	buf_free(&a);
	buf_free(&b);
	buf_free(&ours);
	buf_free(&gnu);
}

int main(void)
{
	written();
	counts_and_json();
	against_gnu();
	return unit_done();
}
