/* diff.c - Myers' O((N+M)D) line diff in linear space, printed as diff -u
 *
 * The search follows Myers' 1986 paper ("An O(ND) Difference Algorithm and
 * Its Variations"): find the middle snake by running the forward and the
 * backward search together, split there, recurse. Two vectors of N+M+3
 * entries are all the search holds, whatever D is.
 *
 * GNU diff's choices are kept where they decide which of several equally
 * short scripts is printed, so the output matches `diff -u`: ties go to
 * the same diagonal, lines found nowhere in the other text are set aside
 * before the search, a search that grows too expensive settles for the
 * furthest-reaching diagonal, and runs of changes slide down as far as
 * they can unless they can line up with a change in the other text.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "diff.h"
#include "json.h"

int diff_split(const char *p, size_t len, struct diff_line **lines, size_t *n)
{
	const char *s, *end = p + len, *nl;
	size_t count = 0, k;
	struct diff_line *l;

	*lines = NULL;
	*n = 0;
	for (s = p; s < end; count++) {
		nl = memchr(s, '\n', (size_t)(end - s));
		s = nl ? nl + 1 : end;
	}
	if (!count)
		return 0;
	l = malloc(count * sizeof(*l));
	if (!l)
		return -1;
	for (s = p, k = 0; k < count; k++) {
		nl = memchr(s, '\n', (size_t)(end - s));
		l[k].p = s;
		l[k].len = (size_t)((nl ? nl + 1 : end) - s);
		s += l[k].len;
	}
	*lines = l;
	*n = count;
	return 0;
}

/* ---- equivalence classes: equal lines get one number ---- */

static uint64_t line_hash(const struct diff_line *l)
{
	uint64_t h = 1469598103934665603ull;
	size_t i;

	for (i = 0; i < l->len; i++)
		h = (h ^ (unsigned char)l->p[i]) * 1099511628211ull;
	return h;
}

/* Number the lines of both texts into ea and eb; classes are dense
 * from 0. Returns the class count, or -1 when memory runs out. */
static long classify(const struct diff *d, int *ea, int *eb)
{
	size_t cap = 16, i, total = d->na + d->nb, mask;
	const struct diff_line **rep;
	long *slot, nclass = 0;

	while (cap < total * 2)
		cap <<= 1;
	mask = cap - 1;
	slot = malloc(cap * sizeof(*slot));
	rep = malloc((total ? total : 1) * sizeof(*rep));
	if (!slot || !rep) {
		free(slot);
		free(rep);
		return -1;
	}
	memset(slot, 0xff, cap * sizeof(*slot));
	for (i = 0; i < total; i++) {
		const struct diff_line *l = i < d->na ? &d->a[i] : &d->b[i - d->na];
		size_t h = (size_t)line_hash(l) & mask;
		long c;

		while ((c = slot[h]) >= 0 && (rep[c]->len != l->len ||
					      memcmp(rep[c]->p, l->p, l->len)))
			h = (h + 1) & mask;
		if (c < 0) {
			c = slot[h] = nclass++;
			rep[c] = l;
		}
		if (i < d->na)
			ea[i] = (int)c;
		else
			eb[i - d->na] = (int)c;
	}
	free(slot);
	free(rep);
	return nclass;
}

/* ---- the search ---- */

struct search {
	const int *x, *y;           /* classes of the lines that take part */
	const long *xline, *yline;  /* their line numbers in the texts */
	unsigned char *xchg, *ychg; /* change flags by line number */
	long *fd, *bd;              /* furthest x per diagonal, forward / backward */
	long too_expensive;         /* search cost after which a split is guessed */
};

struct split {
	long x, y;
	int lo_minimal, hi_minimal;
};

/* When the search has cost too much, split at the diagonal that got
 * furthest, forward or backward: the script is then not minimal. */
static void guess_split(const struct search *s, long xoff, long xlim, long yoff,
			long ylim, long fmin, long fmax, long bmin, long bmax,
			struct split *sp)
{
	long fxy = -1, fx = 0, bxy = LONG_MAX, bx = 0, d;

	for (d = fmax; d >= fmin; d -= 2) {
		long x = s->fd[d] < xlim ? s->fd[d] : xlim, y = x - d;
		if (y > ylim) {
			x = ylim + d;
			y = ylim;
		}
		if (x + y > fxy) {
			fxy = x + y;
			fx = x;
		}
	}
	for (d = bmax; d >= bmin; d -= 2) {
		long x = s->bd[d] > xoff ? s->bd[d] : xoff, y = x - d;
		if (y < yoff) {
			x = yoff + d;
			y = yoff;
		}
		if (x + y < bxy) {
			bxy = x + y;
			bx = x;
		}
	}
	if ((xlim + ylim) - bxy < fxy - (xoff + yoff)) {
		sp->x = fx;
		sp->y = fxy - fx;
		sp->lo_minimal = 1;
		sp->hi_minimal = 0;
	} else {
		sp->x = bx;
		sp->y = bxy - bx;
		sp->lo_minimal = 0;
		sp->hi_minimal = 1;
	}
}

/* The middle snake of x[xoff,xlim) against y[yoff,ylim): both ranges are
 * non-empty and differ at both ends. */
static void find_split(struct search *s, long xoff, long xlim, long yoff,
		       long ylim, int minimal, struct split *sp)
{
	const int *x = s->x, *y = s->y;
	long *fd = s->fd, *bd = s->bd;
	long dmin = xoff - ylim, dmax = xlim - yoff;
	long fmid = xoff - yoff, bmid = xlim - ylim;
	long fmin = fmid, fmax = fmid, bmin = bmid, bmax = bmid, c, d;
	int odd = (int)((fmid - bmid) & 1);

	fd[fmid] = xoff;
	bd[bmid] = xlim;
	for (c = 1;; c++) {
		/* widen the band by a diagonal each side, fencing it */
		if (fmin > dmin)
			fd[--fmin - 1] = -1;
		else
			fmin++;
		if (fmax < dmax)
			fd[++fmax + 1] = -1;
		else
			fmax--;
		for (d = fmax; d >= fmin; d -= 2) {
			long lo = fd[d - 1], hi = fd[d + 1];
			long px = lo >= hi ? lo + 1 : hi, py = px - d;

			while (px < xlim && py < ylim && x[px] == y[py])
				px++, py++;
			fd[d] = px;
			if (odd && bmin <= d && d <= bmax && bd[d] <= px) {
				sp->x = px;
				sp->y = py;
				sp->lo_minimal = sp->hi_minimal = 1;
				return;
			}
		}
		if (bmin > dmin)
			bd[--bmin - 1] = LONG_MAX;
		else
			bmin++;
		if (bmax < dmax)
			bd[++bmax + 1] = LONG_MAX;
		else
			bmax--;
		for (d = bmax; d >= bmin; d -= 2) {
			long lo = bd[d - 1], hi = bd[d + 1];
			long px = lo < hi ? lo : hi - 1, py = px - d;

			while (px > xoff && py > yoff && x[px - 1] == y[py - 1])
				px--, py--;
			bd[d] = px;
			if (!odd && fmin <= d && d <= fmax && px <= fd[d]) {
				sp->x = px;
				sp->y = py;
				sp->lo_minimal = sp->hi_minimal = 1;
				return;
			}
		}
		if (!minimal && c >= s->too_expensive) {
			guess_split(s, xoff, xlim, yoff, ylim, fmin, fmax, bmin,
				    bmax, sp);
			return;
		}
	}
}

static void compare(struct search *s, long xoff, long xlim, long yoff,
		    long ylim, int minimal)
{
	struct split sp;

	for (;;) {
		while (xoff < xlim && yoff < ylim && s->x[xoff] == s->y[yoff])
			xoff++, yoff++;
		while (xlim > xoff && ylim > yoff &&
		       s->x[xlim - 1] == s->y[ylim - 1])
			xlim--, ylim--;
		if (xoff == xlim) {
			while (yoff < ylim)
				s->ychg[s->yline[yoff++]] = 1;
			return;
		}
		if (yoff == ylim) {
			while (xoff < xlim)
				s->xchg[s->xline[xoff++]] = 1;
			return;
		}
		find_split(s, xoff, xlim, yoff, ylim, minimal, &sp);
		compare(s, xoff, sp.x, yoff, sp.y, sp.lo_minimal);
		/* the upper half in this frame: depth stays logarithmic */
		xoff = sp.x;
		yoff = sp.y;
		minimal = sp.hi_minimal;
	}
}

/* GNU diff sets aside, before the search, the lines the other text lacks
 * (they can only be changes) and, inside runs of those, lines the other
 * text has very often (they would only make the search wander). Lines the
 * other text has often are "provisional": they stay in the search unless
 * they sit inside a run of set-aside lines, away from its ends, and are
 * not too many. mark[] holds 0 (search), 1 (set aside), 2 (provisional). */
static void settle_provisional(unsigned char *mark, long n)
{
	long i, j, k, len, prov, minimum, tem, consec;

	for (i = 0; i < n; i++) {
		if (mark[i] == 2)
			mark[i] = 0; /* not inside a run */
		if (mark[i] != 1)
			continue;
		prov = 0;
		for (j = i; j < n && mark[j]; j++)
			prov += mark[j] == 2;
		while (mark[j - 1] == 2) { /* a run ends on a certain line */
			mark[--j] = 0;
			prov--;
		}
		len = j - i;
		if (prov * 4 > len) { /* a quarter provisional: keep them all */
			for (k = i; k < j; k++)
				if (mark[k] == 2)
					mark[k] = 0;
			continue;
		}
		/* long stretches of provisional lines stay in the search */
		minimum = 1;
		for (tem = len >> 2; (tem >>= 2) > 0;)
			minimum <<= 1;
		minimum++;
		for (k = 0, consec = 0; k < len; k++) {
			if (mark[i + k] != 2)
				consec = 0;
			else if (++consec == minimum)
				k -= consec; /* go back and keep the whole stretch */
			else if (consec > minimum)
				mark[i + k] = 0;
		}
		/* near either end, provisional lines stay until three
		 * certain ones in a row, or a certain one 8 lines in */
		for (k = 0, consec = 0; k < len; k++) {
			if (k >= 8 && mark[i + k] == 1)
				break;
			if (mark[i + k] == 2)
				consec = mark[i + k] = 0;
			else if (!mark[i + k])
				consec = 0;
			else if (++consec == 3)
				break;
		}
		i += len - 1;
		for (k = 0, consec = 0; k < len; k++) {
			if (k >= 8 && mark[i - k] == 1)
				break;
			if (mark[i - k] == 2)
				consec = mark[i - k] = 0;
			else if (!mark[i - k])
				consec = 0;
			else if (++consec == 3)
				break;
		}
	}
}

/* Keep the lines of [lo,hi) of one text that take part in the search;
 * the rest are changes without one. count[c]: occurrences of class c in
 * the other range. Returns the number kept. */
static long keep_lines(const int *e, long lo, long hi, const long *count,
		       unsigned char *chg, int *kept, long *line)
{
	long i, n = 0, many = 5, tem;
	unsigned char *mark = malloc((size_t)(hi - lo) + 1);

	if (!mark)
		return -1;
	for (tem = (hi - lo) / 64; (tem >>= 2) > 0;)
		many *= 2;
	for (i = lo; i < hi; i++)
		mark[i - lo] = !count[e[i]] ? 1 : count[e[i]] > many ? 2
								     : 0;
	settle_provisional(mark, hi - lo);
	for (i = lo; i < hi; i++) {
		if (mark[i - lo]) {
			chg[i] = 1;
			continue;
		}
		kept[n] = e[i];
		line[n++] = i;
	}
	free(mark);
	return n;
}

/* The lines both texts share at the start (*pre) and at the end (*suf),
 * less `horizon` lines on each side: GNU leaves those in the analysis,
 * where they count when lines are set aside and bound how far runs of
 * changes slide. */
static void common_ends(const struct diff *d, const int *ea, const int *eb,
			long horizon, long *pre, long *suf)
{
	long na = (long)d->na, nb = (long)d->nb, p = 0, s = 0;

	while (p < na && p < nb && ea[p] == eb[p])
		p++;
	while (s < na - p && s < nb - p && ea[na - 1 - s] == eb[nb - 1 - s])
		s++;
	*pre = p - (p < horizon ? p : horizon);
	*suf = s - (s < horizon ? s : horizon);
}

static int search_changes(struct diff *d, const int *ea, const int *eb,
			  long nclass, long pre, long suf)
{
	long na = (long)d->na, nb = (long)d->nb, nx, ny;
	long *acount, *bcount, *xline, *yline, *v, diags;
	int *x, *y, rc = -1;
	struct search s;

	acount = calloc((size_t)nclass + 1, sizeof(long));
	bcount = calloc((size_t)nclass + 1, sizeof(long));
	x = malloc(((size_t)na + 1) * sizeof(int));
	y = malloc(((size_t)nb + 1) * sizeof(int));
	xline = malloc(((size_t)na + 1) * sizeof(long));
	yline = malloc(((size_t)nb + 1) * sizeof(long));
	v = malloc(((size_t)na + (size_t)nb + 3) * 2 * sizeof(long));
	if (!acount || !bcount || !x || !y || !xline || !yline || !v)
		goto out;
	for (long i = pre; i < na - suf; i++)
		acount[ea[i]]++;
	for (long i = pre; i < nb - suf; i++)
		bcount[eb[i]]++;
	nx = keep_lines(ea, pre, na - suf, bcount, d->a_changed, x, xline);
	ny = keep_lines(eb, pre, nb - suf, acount, d->b_changed, y, yline);
	if (nx < 0 || ny < 0)
		goto out;
	s.x = x;
	s.y = y;
	s.xline = xline;
	s.yline = yline;
	s.xchg = d->a_changed;
	s.ychg = d->b_changed;
	s.fd = v + ny + 1;
	s.bd = v + (na + nb + 3) + ny + 1;
	s.too_expensive = 1;
	for (diags = nx + ny + 3; diags; diags >>= 2)
		s.too_expensive <<= 1;
	if (s.too_expensive < 4096)
		s.too_expensive = 4096;
	compare(&s, 0, nx, 0, ny, 0);
	rc = 0;
out:
	free(acount);
	free(bcount);
	free(x);
	free(y);
	free(xline);
	free(yline);
	free(v);
	return rc;
}

/* Slide each run of changed lines of one text (ch, n lines, with zero
 * fences at ch[-1] and ch[n]) over equal lines: up to merge with the runs
 * above, down as far as it goes, then back up to the last place where it
 * ends level with a change in the other text (och), if there was one.
 * j walks the other text: the unchanged lines of both pair up in order. */
static void shift_runs(unsigned char *ch, long n, const unsigned char *och,
		       const int *e)
{
	long i = 0, j = 0, start, len, level;

	for (;;) {
		while (i < n && !ch[i]) {
			while (och[j])
				j++;
			j++;
			i++;
		}
		if (i == n)
			return;
		start = i;
		while (ch[i])
			i++;
		while (och[j])
			j++;
		do {
			len = i - start;
			while (start > 0 && e[start - 1] == e[i - 1]) {
				ch[--start] = 1;
				ch[--i] = 0;
				while (ch[start - 1])
					start--;
				while (och[--j])
					;
			}
			level = och[j - 1] ? i : n;
			while (i < n && e[start] == e[i]) {
				ch[start++] = 0;
				ch[i++] = 1;
				while (ch[i])
					i++;
				while (och[++j])
					level = i;
			}
		} while (len != i - start);
		while (level < i) {
			ch[--start] = 1;
			ch[--i] = 0;
			while (och[--j])
				;
		}
	}
}

/* ---- hunks ---- */

static int add_hunk(struct diff *d, size_t *cap, const struct diff_hunk *h)
{
	if (d->nhunks == *cap) {
		size_t ncap = *cap ? *cap * 2 : 8;
		struct diff_hunk *p = realloc(d->hunks, ncap * sizeof(*p));
		if (!p)
			return -1;
		d->hunks = p;
		*cap = ncap;
	}
	d->hunks[d->nhunks++] = *h;
	return 0;
}

/* Close hunk h whose changes span [a_start,a_end) / [b_start,b_end). */
static int close_hunk(struct diff *d, size_t *cap, struct diff_hunk *h,
		      size_t a_end, size_t b_end, size_t context)
{
	size_t lead = h->a_start < context ? h->a_start : context;
	size_t tail = d->na - a_end < context ? d->na - a_end : context;

	h->a_start -= lead;
	h->b_start -= lead;
	h->a_count = a_end + tail - h->a_start;
	h->b_count = b_end + tail - h->b_start;
	return add_hunk(d, cap, h);
}

/* Changes closer than 2*context unchanged lines share a hunk, as in GNU. */
static int build_hunks(struct diff *d, size_t context)
{
	size_t i = 0, j = 0, cap = 0, a_end = 0, b_end = 0;
	struct diff_hunk h = {0};
	int open = 0;

	while (i < d->na || j < d->nb) {
		size_t i0 = i, j0 = j;

		if (i < d->na && j < d->nb && !d->a_changed[i] && !d->b_changed[j]) {
			i++;
			j++;
			continue;
		}
		while (i < d->na && d->a_changed[i])
			i++;
		while (j < d->nb && d->b_changed[j])
			j++;
		if (open && i0 - a_end > 2 * context) {
			if (close_hunk(d, &cap, &h, a_end, b_end, context))
				return -1;
			open = 0;
		}
		if (!open) {
			memset(&h, 0, sizeof(h));
			h.a_start = i0;
			h.b_start = j0;
			open = 1;
		}
		h.removed += i - i0;
		h.added += j - j0;
		d->removed += i - i0;
		d->added += j - j0;
		a_end = i;
		b_end = j;
	}
	if (open && close_hunk(d, &cap, &h, a_end, b_end, context))
		return -1;
	return 0;
}

void diff_free(struct diff *d)
{
	free(d->a);
	free(d->b);
	if (d->a_changed)
		free(d->a_changed - 1);
	if (d->b_changed)
		free(d->b_changed - 1);
	free(d->hunks);
	memset(d, 0, sizeof(*d));
}

int diff_compute(struct diff *d, const char *a, size_t alen, const char *b,
		 size_t blen, int context)
{
	unsigned char *ac, *bc;
	int *ea = NULL, *eb = NULL, rc = -1;
	long nclass, pre, suf;

	memset(d, 0, sizeof(*d));
	if (context < 0)
		context = 0;
	if (diff_split(a, alen, &d->a, &d->na) ||
	    diff_split(b, blen, &d->b, &d->nb))
		goto out;
	/* change flags with a zero fence before and after (shift_runs) */
	ac = calloc(d->na + 2, 1);
	bc = calloc(d->nb + 2, 1);
	d->a_changed = ac ? ac + 1 : NULL;
	d->b_changed = bc ? bc + 1 : NULL;
	ea = malloc((d->na + 1) * sizeof(int));
	eb = malloc((d->nb + 1) * sizeof(int));
	if (!ac || !bc || !ea || !eb)
		goto out;
	nclass = classify(d, ea, eb);
	if (nclass < 0)
		goto out;
	common_ends(d, ea, eb, context, &pre, &suf);
	if (search_changes(d, ea, eb, nclass, pre, suf))
		goto out;
	shift_runs(d->a_changed + pre, (long)d->na - pre - suf,
		   d->b_changed + pre, ea + pre);
	shift_runs(d->b_changed + pre, (long)d->nb - pre - suf,
		   d->a_changed + pre, eb + pre);
	if (build_hunks(d, (size_t)context))
		goto out;
	rc = 0;
out:
	free(ea);
	free(eb);
	if (rc)
		diff_free(d);
	return rc;
}

/* ---- rendering ---- */

static void put_range(struct buf *out, size_t start, size_t count)
{
	if (count == 1)
		buf_printf(out, "%zu", start + 1);
	else if (count == 0)
		buf_printf(out, "%zu,0", start);
	else
		buf_printf(out, "%zu,%zu", start + 1, count);
}

static void put_line(struct buf *out, char mark, const struct diff_line *l)
{
	buf_putc(out, mark);
	buf_add(out, l->p, l->len);
	if (!l->len || l->p[l->len - 1] != '\n')
		buf_puts(out, "\n\\ No newline at end of file\n");
}

/* Call emit for each line of hunk h in unified order: context, then each
 * change's removed lines, then its added lines. */
static void walk_hunk(const struct diff *d, const struct diff_hunk *h,
		      void (*emit)(void *, char, const struct diff_line *),
		      void *arg)
{
	size_t i = h->a_start, j = h->b_start;
	size_t ae = h->a_start + h->a_count, be = h->b_start + h->b_count;

	while (i < ae || j < be) {
		if ((i < ae && d->a_changed[i]) || (j < be && d->b_changed[j])) {
			while (i < ae && d->a_changed[i])
				emit(arg, '-', &d->a[i++]);
			while (j < be && d->b_changed[j])
				emit(arg, '+', &d->b[j++]);
			continue;
		}
		emit(arg, ' ', &d->a[i]);
		i++;
		j++;
	}
}

static void emit_unified(void *arg, char mark, const struct diff_line *l)
{
	put_line(arg, mark, l);
}

void diff_unified(const struct diff *d, struct buf *out, const char *a_label,
		  const char *b_label)
{
	size_t k;

	if (!d->nhunks)
		return;
	buf_printf(out, "--- %s\n+++ %s\n", a_label, b_label);
	for (k = 0; k < d->nhunks; k++) {
		const struct diff_hunk *h = &d->hunks[k];

		buf_puts(out, "@@ -");
		put_range(out, h->a_start, h->a_count);
		buf_puts(out, " +");
		put_range(out, h->b_start, h->b_count);
		buf_puts(out, " @@\n");
		walk_hunk(d, h, emit_unified, out);
	}
}

struct json_emit {
	struct buf *out, line;
	int first;
};

static void emit_json(void *arg, char mark, const struct diff_line *l)
{
	struct json_emit *je = arg;
	size_t n = l->len;
	int eol = n && l->p[n - 1] == '\n';

	buf_reset(&je->line);
	buf_putc(&je->line, mark);
	buf_add(&je->line, l->p, eol ? n - 1 : n);
	if (!je->first)
		buf_putc(je->out, ',');
	je->first = 0;
	json_str(je->out, je->line.p ? je->line.p : "", je->line.len);
	if (!eol)
		buf_puts(je->out, ",\"\\\\ No newline at end of file\"");
}

static size_t range_start(size_t start, size_t count)
{
	return count ? start + 1 : start;
}

void diff_json(const struct diff *d, struct buf *out)
{
	struct json_emit je;
	size_t k;

	buf_init(&je.line);
	je.out = out;
	buf_printf(out, "{\"added\":%zu,\"removed\":%zu,\"hunks\":[", d->added,
		   d->removed);
	for (k = 0; k < d->nhunks; k++) {
		const struct diff_hunk *h = &d->hunks[k];

		buf_printf(out, "%s{\"old_start\":%zu,\"old_lines\":%zu,"
				"\"new_start\":%zu,\"new_lines\":%zu,\"lines\":[",
			   k ? "," : "", range_start(h->a_start, h->a_count),
			   h->a_count, range_start(h->b_start, h->b_count),
			   h->b_count);
		je.first = 1;
		walk_hunk(d, h, emit_json, &je);
		buf_puts(out, "]}");
	}
	buf_puts(out, "]}");
	buf_free(&je.line);
}
