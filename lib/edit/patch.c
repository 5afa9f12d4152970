/* patch.c - find-and-replace edits, all or nothing (include/patch.h) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "edit.h"

#define BOM "\xef\xbb\xbf"

static int has_bom(const char *s, size_t n)
{
	return n >= 3 && !memcmp(s, BOM, 3);
}

int patch_crlf(const char *text, size_t len)
{
	size_t crlf = 0, lf = 0, i;

	for (i = 0; i < len; i++)
		if (text[i] == '\n') {
			if (i && text[i - 1] == '\r')
				crlf++;
			else
				lf++;
		}
	return crlf > lf;
}

/* 1-based line of byte offset off. */
static size_t line_at(const char *s, size_t off)
{
	size_t line = 1, i;

	for (i = 0; i < off; i++)
		line += s[i] == '\n';
	return line;
}

/* Append s with each "\n" not preceded by "\r" written as "\r\n". */
static void add_crlf(struct buf *b, const char *s, size_t n)
{
	size_t i, from = 0;

	for (i = 0; i < n; i++)
		if (s[i] == '\n' && (i == 0 || s[i - 1] != '\r')) {
			buf_add(b, s + from, i - from);
			buf_add(b, "\r\n", 2);
			from = i + 1;
		}
	buf_add(b, s + from, n - from);
}

static int has_bare_lf(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] == '\n' && (i == 0 || s[i - 1] != '\r'))
			return 1;
	return 0;
}

/* Occurrences of needle in hay, overlapping ones included; the offsets of
 * the first two in at[0], at[1]. */
static size_t occurrences(const char *hay, size_t hn, const char *needle,
			  size_t nn, size_t at[2])
{
	const char *p = hay, *end = hay + hn, *hit;
	size_t count = 0;

	while (nn && (size_t)(end - p) >= nn &&
	       (hit = memmem(p, (size_t)(end - p), needle, nn))) {
		if (count < 2)
			at[count] = (size_t)(hit - hay);
		count++;
		p = hit + 1;
	}
	return count;
}

static size_t eol_len(const char *s, size_t n)
{
	if (n && s[n - 1] == '\n')
		return n >= 2 && s[n - 2] == '\r' ? 2 : 1;
	return 0;
}

/* ---- closest match ignoring whitespace ---- */

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Hashes of each line with its whitespace removed; 0 for a blank line. */
static uint64_t *squeezed_lines(const char *s, size_t n, size_t *count)
{
	size_t lines = 0, i, k = 0;
	uint64_t *h, cur = 0;
	int blank = 1;

	for (i = 0; i < n; i++)
		lines += s[i] == '\n';
	lines += n && s[n - 1] != '\n';
	h = malloc((lines + 1) * sizeof(*h));
	if (!h)
		return NULL;
	for (i = 0; i < n; i++) {
		if (s[i] == '\n') {
			h[k++] = blank ? 0 : cur | 1;
			cur = 0;
			blank = 1;
		} else if (!is_space(s[i])) {
			if (blank)
				cur = 1469598103934665603ull;
			cur = (cur ^ (unsigned char)s[i]) * 1099511628211ull;
			blank = 0;
		}
	}
	if (n && s[n - 1] != '\n')
		h[k++] = blank ? 0 : cur | 1;
	*count = k;
	return h;
}

int patch_closest(const char *text, size_t len, const char *old_text,
		  size_t old_len, size_t *first, size_t *last)
{
	size_t nf, no, lo = 0, hi, s, i, best = 0, best_at = 0;
	uint64_t *fh = squeezed_lines(text, len, &nf);
	uint64_t *oh = squeezed_lines(old_text, old_len, &no);
	unsigned long long budget = 1ull << 26; /* comparisons, then give up */
	int found = 0;

	*first = *last = 0;
	if (!fh || !oh)
		goto out;
	hi = no; /* blank lines at either end of old_text do not count */
	while (lo < hi && !oh[lo])
		lo++;
	while (hi > lo && !oh[hi - 1])
		hi--;
	if (lo == hi || hi - lo > nf)
		goto out;
	for (s = 0; s + (hi - lo) <= nf && budget; s++) {
		size_t score = 0;

		for (i = lo; i < hi; i++)
			score += oh[i] && fh[s + i - lo] == oh[i];
		budget = budget > hi - lo ? budget - (hi - lo) : 0;
		if (score > best) {
			best = score;
			best_at = s;
		}
		if (score == hi - lo)
			break;
	}
	if (best && best * 2 >= hi - lo) {
		*first = best_at + 1;
		*last = best_at + (hi - lo);
		found = 1;
	}
out:
	free(fh);
	free(oh);
	return found;
}

/* ---- edits ---- */

static int fail(struct patch_error *err, enum patch_status st, size_t edit)
{
	err->status = st;
	err->edit = edit;
	return -1;
}

/* Where edit e matches cur: offset, length and the new text to put there
 * (in rep), following the text's conventions (include/patch.h). */
static int locate(const char *cur, size_t n, const struct patch_edit *e,
		  int crlf, size_t *off, size_t *mlen, struct buf *rep,
		  struct patch_error *err)
{
	struct buf conv;
	size_t at[2], count, new_len = e->new_len, cut;
	const char *old = e->old_text;

	buf_init(&conv);
	*mlen = e->old_len;
	count = occurrences(cur, n, old, *mlen, at);
	if (!count && crlf && has_bare_lf(old, *mlen)) {
		add_crlf(&conv, old, *mlen);
		if (conv.oom)
			return fail(err, PATCH_NOMEM, err->edit);
		old = conv.p;
		*mlen = conv.len;
		count = occurrences(cur, n, old, *mlen, at);
	}
	/* the text's last line lacks a newline that old_text has */
	cut = eol_len(old, *mlen);
	if (!count && cut && !eol_len(cur, n) && *mlen - cut &&
	    *mlen - cut <= n && !memcmp(cur + n - (*mlen - cut), old, *mlen - cut)) {
		count = 1;
		*mlen -= cut;
		at[0] = n - *mlen;
		new_len -= eol_len(e->new_text, new_len);
	}
	buf_free(&conv);
	if (count != 1) {
		err->status = count ? PATCH_AMBIGUOUS : PATCH_NOT_FOUND;
		err->count = count;
		if (count) {
			err->line = line_at(cur, at[0]);
			err->line2 = line_at(cur, at[1]);
		} else {
			patch_closest(cur, n, e->old_text, e->old_len,
				      &err->near_first, &err->near_last);
			err->crlf = crlf;
		}
		return -1;
	}
	*off = at[0];
	if (crlf)
		add_crlf(rep, e->new_text, new_len);
	else
		buf_add(rep, e->new_text, new_len);
	return rep->oom ? fail(err, PATCH_NOMEM, err->edit) : 0;
}

int patch_apply(const char *text, size_t len, const struct patch_edit *edits,
		size_t n, struct buf *out, struct patch_error *err)
{
	struct buf cur, next, rep, tmp;
	int crlf = patch_crlf(text, len), rc = -1;
	size_t k, off, mlen;

	memset(err, 0, sizeof(*err));
	buf_init(&cur);
	buf_init(&next);
	buf_init(&rep);
	if (len)
		buf_add(&cur, text, len);
	for (k = 0; k < n; k++) {
		const struct patch_edit *e = &edits[k];

		err->edit = k + 1;
		if (!e->old_len) {
			fail(err, PATCH_EMPTY, k + 1);
			goto out;
		}
		if (e->old_len == e->new_len &&
		    !memcmp(e->old_text, e->new_text, e->old_len)) {
			fail(err, PATCH_SAME, k + 1);
			goto out;
		}
		buf_reset(&rep);
		if (cur.oom || locate(cur.p ? cur.p : "", cur.len, e, crlf, &off,
				      &mlen, &rep, err))
			goto out;
		buf_reset(&next);
		buf_add(&next, cur.p, off);
		buf_add(&next, rep.p ? rep.p : "", rep.len);
		buf_add(&next, cur.p + off + mlen, cur.len - off - mlen);
		if (next.oom) {
			fail(err, PATCH_NOMEM, k + 1);
			goto out;
		}
		tmp = cur; /* the result is the text for the next edit */
		cur = next;
		next = tmp;
	}
	if (cur.oom) {
		fail(err, PATCH_NOMEM, n);
		goto out;
	}
	if (has_bom(text, len) && !has_bom(cur.p ? cur.p : "", cur.len))
		buf_add(out, BOM, 3);
	buf_add(out, cur.p ? cur.p : "", cur.len);
	err->edit = 0;
	rc = 0;
out:
	buf_free(&cur);
	buf_free(&next);
	buf_free(&rep);
	return rc;
}

int patch_insert(const char *text, size_t len, size_t after,
		 const char *new_text, size_t new_len, struct buf *out,
		 struct patch_error *err)
{
	int crlf = patch_crlf(text, len), open_end = len && text[len - 1] != '\n';
	const char *eol = crlf ? "\r\n" : "\n";
	size_t lines = 0, off = has_bom(text, len) ? 3 : 0, i;
	struct buf ins;

	memset(err, 0, sizeof(*err));
	err->edit = 1;
	if (!new_len)
		return fail(err, PATCH_NO_TEXT, 1);
	for (i = 0; i < len; i++)
		lines += text[i] == '\n';
	lines += open_end;
	if (after > lines) {
		err->line = after;
		err->count = lines;
		return fail(err, PATCH_BAD_LINE, 1);
	}
	/* after the after-th newline; none left means after the last
	 * line, which has no newline */
	for (i = 0; after && i < len; i++)
		if (text[i] == '\n' && --after == 0)
			off = i + 1;
	buf_init(&ins);
	if (crlf)
		add_crlf(&ins, new_text, new_len);
	else
		buf_add(&ins, new_text, new_len);
	if (ins.oom) {
		buf_free(&ins);
		return fail(err, PATCH_NOMEM, 1);
	}
	if (after) {
		buf_add(out, text, len);
		buf_add(out, eol, strlen(eol));
		buf_add(out, ins.p, ins.len - eol_len(ins.p, ins.len));
	} else {
		buf_add(out, text, off);
		buf_add(out, ins.p, ins.len);
		if (!eol_len(ins.p, ins.len))
			buf_add(out, eol, strlen(eol));
		buf_add(out, text + off, len - off);
	}
	buf_free(&ins);
	return out->oom ? fail(err, PATCH_NOMEM, 1) : 0;
}

void patch_error_text(const struct patch_error *err, char *msg, size_t len)
{
	size_t w = 0;

	switch (err->status) {
	case PATCH_OK:
		snprintf(msg, len, "no error");
		return;
	case PATCH_EMPTY:
		snprintf(msg, len, "hunk %zu: old_text is empty", err->edit);
		return;
	case PATCH_SAME:
		snprintf(msg, len, "hunk %zu: old_text and new_text are the same",
			 err->edit);
		return;
	case PATCH_AMBIGUOUS:
		snprintf(msg, len, "hunk %zu: old_text occurs %zu times (lines %zu "
				   "and %zu, ...); give more context to make it unique",
			 err->edit, err->count, err->line, err->line2);
		return;
	case PATCH_BAD_LINE:
		snprintf(msg, len, "insert after line %zu: the file has %zu lines",
			 err->line, err->count);
		return;
	case PATCH_NO_TEXT:
		snprintf(msg, len, "insert: new_text is empty");
		return;
	case PATCH_NOMEM:
		snprintf(msg, len, "hunk %zu: out of memory", err->edit);
		return;
	case PATCH_NOT_FOUND:
		break;
	}
	w = (size_t)snprintf(msg, len, "hunk %zu: old_text not found", err->edit);
	if (err->near_first && w < len)
		w += (size_t)snprintf(msg + w, len - w,
				      err->near_first == err->near_last ? "; closest match ignoring whitespace: line %zu" : "; closest match ignoring whitespace: lines %zu-%zu",
				      err->near_first, err->near_last);
	if (err->crlf && w < len)
		snprintf(msg + w, len - w, "; the file has CRLF line endings");
}
