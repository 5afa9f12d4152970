/* grep.c - wfs_grep: the reference's walk, our regex engine, both cores
 *
 * The walk runs on the calling thread and hands files, in batches in walk
 * order, to worker threads through an ordered ring (slots.h); each file's
 * matches come back in its batch's slot, and the caller merges the slots
 * strictly in walk order, so the output and the cut at the cap are
 * exactly those of a sequential search.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "gzpar.h"
#include "grep.h"
#include "bytes.h"
#include "confine.h"
#include "ctx.h"
#include "fs.h"
#include "globmatch.h"
#include "re.h"
#include "settings.h"
#include "slots.h"
#include "walk.h"

#define GREP_BLOCK (64 * 1024)
#define GREP_RING 64
/* Memory does not follow the longest line: a line that outgrows a
 * GREP_LONG buffer is searched in windows of that size, each starting
 * with the last GREP_OVERLAP bytes of the one before (a match up to that
 * long that crosses a window's edge is still seen whole). The text kept of
 * a line, matched or context, is cut at GREP_TEXT_MAX and marked cut. */
#define GREP_LONG (4u << 20)
#define GREP_OVERLAP (64u << 10)
#define GREP_TEXT_MAX (64u << 10)

/* ---- matches of one file, in malloc'd memory (workers have no arena) ---- */

struct hit {
	long long line;
	size_t off, len; /* the text, in hits.text */
	int context;
	int cut; /* the line was longer than its text */
};

struct hits {
	struct hit *v;
	size_t n, cap;
	struct buf text; /* every held line, back to back: no malloc per line */
	long long count; /* matching lines */
	int oom;
	int limit;    /* the regex engine hit an internal limit */
	int too_big;  /* over WICKFS_MAX_FILE (decompressed): skipped */
	int open_err; /* the file could not be opened: errno */
	size_t bytes; /* held in v, roughly */
	/* Called when bytes grows past GREP_HOLD: hand what is held to the
	 * output once this file's turn comes, so memory stays bounded. */
	void (*flush)(struct hits *h, void *arg);
	void *flush_arg;
};

#define GREP_HOLD (1u << 20)
#define SPARE_N 32
#define SPARE_KEEP (32u << 10)

static void hits_free(struct hits *h)
{
	free(h->v);
	buf_free(&h->text);
	memset(h, 0, sizeof(*h));
}

/* Drop the held lines but keep the file's count and hooks. */
static void hits_clear(struct hits *h)
{
	h->n = 0;
	h->bytes = 0;
	buf_reset(&h->text);
}

static const char *hit_text(const struct hits *h, const struct hit *e)
{
	return h->text.p + e->off;
}

/* How much of a line of n bytes to keep: all, or GREP_TEXT_MAX backed up
 * to where a character starts. */
static size_t text_keep(const char *s, size_t n)
{
	if (n <= GREP_TEXT_MAX)
		return n;
	n = GREP_TEXT_MAX;
	while (n > GREP_TEXT_MAX - 4 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	return n;
}

/* cut: the line is longer than s[0..n) (a long line's head), and n may
 * be cut further here. */
static void hits_add(struct hits *h, long long line, const char *s, size_t n,
		     int context, int cut)
{
	struct hit *e;
	size_t keep;

	if (!cut && n && s[n - 1] == '\r')
		n--;
	keep = text_keep(s, n);
	cut |= keep < n;
	n = keep;
	if (h->n == h->cap) {
		size_t nc = h->cap ? h->cap * 2 : 16;
		struct hit *nv = realloc(h->v, nc * sizeof(*nv));
		if (!nv) {
			h->oom = 1;
			return;
		}
		h->v = nv;
		h->cap = nc;
	}
	e = &h->v[h->n];
	e->off = h->text.len;
	buf_add(&h->text, s, n);
	if (h->text.oom) {
		h->oom = 1;
		return;
	}
	e->len = n;
	e->line = line;
	e->context = context;
	e->cut = cut;
	h->n++;
	h->bytes += n + sizeof(*e) + 16;
	if (h->flush && h->bytes > GREP_HOLD)
		h->flush(h, h->flush_arg);
}

/* ---- searching one file ---- */

struct grep_cfg {
	const struct wfs_grep_opts *o;
	long per_file; /* stop a file after this many matches; 0: no limit */
	const volatile int *stop;
	long long deadline_ms; /* the request's, checked per block */
	const volatile int *cancel;
	unsigned long long max_file; /* WICKFS_MAX_FILE, decompressed bytes too */
};

struct reader {
	int fd;
	struct gzpar_reader *gz; /* -z on a .gz: its members inflated */
};

static ssize_t fd_read(int fd, void *p, size_t n)
{
	ssize_t k;

	do
		k = read(fd, p, n);
	while (k < 0 && errno == EINTR);
	return k;
}

static ssize_t gz_source(void *arg, void *p, size_t n)
{
	return fd_read(*(int *)arg, p, n);
}

/* A .gz cut short or corrupt reads as an error: the file is skipped, as
 * one that cannot be read. */
static ssize_t reader_read(struct reader *r, char *p, size_t n)
{
	if (r->gz)
		return gzpar_reader_read(r->gz, p, n);
	return fd_read(r->fd, p, n);
}

struct ctxline {
	long long line;
	char *text;
	size_t len;
	int cut;
};

struct ctxlines { /* ring of the last B lines, for -B */
	struct ctxline *v;
	int cap, n, head;
};

static void ctx_push(struct ctxlines *c, long long line, const char *s, size_t n,
		     int cut)
{
	struct ctxline *e;
	size_t keep;

	if (!c->cap)
		return;
	if (!cut && n && s[n - 1] == '\r')
		n--;
	keep = text_keep(s, n);
	cut |= keep < n;
	n = keep;
	e = &c->v[(c->head + c->n) % c->cap];
	if (c->n == c->cap) {
		e = &c->v[c->head];
		c->head = (c->head + 1) % c->cap;
		c->n--;
	}
	free(e->text);
	e->text = malloc(n + 1);
	if (!e->text)
		return;
	memcpy(e->text, s, n);
	e->text[n] = 0;
	e->len = n;
	e->line = line;
	e->cut = cut;
	c->n++;
}

struct scan {
	const struct grep_cfg *g;
	struct re *re;
	struct hits *h;
	long long line;     /* number of the line at buf[0] */
	long long last_out; /* last line emitted (match or context) */
	int after_left;
	struct ctxlines before;
	int done;
	/* a line longer than GREP_LONG, searched window by window */
	int inlong; /* buf[0..lctx) is the end of the last window */
	size_t lctx;
	size_t lfrom; /* where a window's search starts: 0 for the
			     * first, then 1 (buf[0] is context for ^, \b) */
	int lmatched;
	char *lhead; /* its first GREP_TEXT_MAX bytes, for the output */
	size_t lhead_len;
};

static int line_matches(struct scan *s, const char *p, size_t n)
{
	size_t me;
	int r = re_search(s->re, p, n, 0, NULL, &me);

	if (r < 0)
		s->h->limit = s->done = 1;
	return r == 1;
}

/* The verdict on line s->line (text p[0..n), cut: longer than that):
 * a match, a context line after one, or a candidate for context before. */
static void take_line(struct scan *s, int matched, const char *p, size_t n,
		      int cut)
{
	const struct wfs_grep_opts *o = s->g->o;
	int listing = !o->count && !o->files_with_matches;

	if (matched) {
		int i;
		for (i = 0; listing && i < s->before.n; i++) {
			struct ctxline *b = &s->before.v[(s->before.head + i) % s->before.cap];
			if (b->line > s->last_out)
				hits_add(s->h, b->line, b->text, b->len, 1, b->cut);
		}
		s->before.n = 0;
		if (listing)
			hits_add(s->h, s->line, p, n, 0, cut);
		s->h->count++;
		s->last_out = s->line;
		s->after_left = o->after;
		if (o->files_with_matches ||
		    (s->g->per_file && s->h->count >= s->g->per_file))
			s->done = 1;
	} else if (s->after_left > 0) {
		hits_add(s->h, s->line, p, n, 1, cut);
		s->last_out = s->line;
		s->after_left--;
	} else {
		ctx_push(&s->before, s->line, p, n, cut);
	}
	s->line++;
}

/* Line by line: for context windows, and for CRLF text, where the line
 * the pattern sees must end before the '\r' (as Go's scanner drops it). */
static void scan_lines(struct scan *s, const char *buf, size_t len)
{
	size_t pos = 0;

	while (pos < len && !s->done) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - buf) : len;
		const char *p = buf + pos;
		size_t n = end - pos;

		take_line(s, line_matches(s, p, n && p[n - 1] == '\r' ? n - 1 : n),
			  p, n, 0);
		pos = end + 1;
	}
}

/* The fast path: search the whole block, then find the line. Lines are
 * counted only up to each match, and once over the rest of the block. */
static void scan_block(struct scan *s, const char *buf, size_t len, int last)
{
	const struct wfs_grep_opts *o = s->g->o;
	size_t pos = 0, counted = 0, me;

	while (pos < len && !s->done) {
		int r = re_search(s->re, buf, len, pos, NULL, &me);
		const char *nl;
		size_t ls, le;

		if (r < 0)
			s->h->limit = s->done = 1;
		if (r != 1)
			break;
		/* An empty match after the final newline is not a line. */
		if (me == len && buf[len - 1] == '\n')
			break;
		ls = me;
		while (ls > pos && buf[ls - 1] != '\n')
			ls--;
		nl = bytes_find(buf + me, len - me, '\n');
		le = nl ? (size_t)(nl - buf) : len;
		s->line += (long long)bytes_count(buf + counted, ls - counted, '\n');
		counted = ls;
		if (!o->count && !o->files_with_matches)
			hits_add(s->h, s->line, buf + ls, le - ls, 0, 0);
		s->h->count++;
		if (o->files_with_matches ||
		    (s->g->per_file && s->h->count >= s->g->per_file))
			s->done = 1;
		pos = le + 1;
	}
	/* the lines after the last match count only for a next block */
	if (!s->done && !last)
		s->line += (long long)bytes_count(buf + counted, len - counted, '\n');
}

/* Multiline (-U): the whole file, matches may span lines. */
static void scan_multiline(struct scan *s, const char *buf, size_t len)
{
	size_t pos = 0, counted = 0, ms, me;
	long long line = 1;

	while (pos <= len && !s->done) {
		const char *nl;
		size_t ls, le;

		int r = re_search(s->re, buf, len, pos, &ms, &me);

		if (r < 0)
			s->h->limit = s->done = 1;
		if (r != 1)
			break;
		while ((nl = memchr(buf + counted, '\n', ms - counted))) {
			line++;
			counted = (size_t)(nl - buf) + 1;
		}
		ls = counted;
		le = me > ms ? me - 1 : me;
		nl = le < len ? memchr(buf + le, '\n', len - le) : NULL;
		le = nl ? (size_t)(nl - buf) : len;
		if (!s->g->o->count && !s->g->o->files_with_matches)
			hits_add(s->h, line, buf + ls, le - ls, 0, 0);
		s->h->count++;
		if (s->g->o->files_with_matches ||
		    (s->g->per_file && s->h->count >= s->g->per_file))
			s->done = 1;
		pos = le + 1;
	}
}

/* One window of a long line: buf[0..end), of which buf[0..s->lctx) was
 * in the window before (searched again: a match shorter than the overlap
 * that crossed the old edge is found whole). final: end is the line's
 * end. Returns where the next window starts (what to keep of buf). */
static size_t long_window(struct scan *s, const char *buf, size_t end, int final)
{
	size_t e = end, ms, me, room;
	int r;

	if (!s->inlong) {
		s->inlong = 1;
		s->lmatched = 0;
		s->lhead_len = 0;
		s->lctx = 0;
		s->lfrom = 0;
	}
	/* the head of the line, for the output */
	room = GREP_TEXT_MAX + 4 - s->lhead_len;
	if (s->lhead && room && end > s->lctx) {
		size_t k = end - s->lctx < room ? end - s->lctx : room;
		memcpy(s->lhead + s->lhead_len, buf + s->lctx, k);
		s->lhead_len += k;
	}
	/* Cut where a character starts, so the window's last characters
	 * decode as they do in the whole line. */
	while (!final && e > s->lctx && e + 3 > end && ((unsigned char)buf[e] & 0xc0) == 0x80)
		e--;
	if (!s->lmatched && !s->done) {
		size_t n = e;
		if (final && n && buf[n - 1] == '\r')
			n--; /* as scan_lines: the pattern does not see the '\r' */
		r = re_search(s->re, buf, n, s->lfrom, &ms, &me);
		if (r < 0)
			s->h->limit = s->done = 1;
		/* A match touching a cut edge may need what follows ($, \b):
		 * the next window, which holds it again, decides. */
		if (r == 1 && (final || me < n || !re_end_sensitive(s->re)))
			s->lmatched = 1;
	}
	s->lfrom = 1;
	return e > GREP_OVERLAP ? e - GREP_OVERLAP : 0;
}

/* The long line ended: give its verdict with its head as the text. */
static void long_end(struct scan *s)
{
	size_t n = s->lhead_len;

	s->inlong = 0;
	if (!s->lhead)
		n = 0;
	take_line(s, s->lmatched, s->lhead ? s->lhead : "", n, 1);
}

static int should_stop(const struct grep_cfg *g)
{
	return (g->stop && *g->stop) || (g->cancel && *g->cancel) ||
	       (g->deadline_ms && wfs_now_ms() >= g->deadline_ms);
}

static int has_suffix_gz(const char *name)
{
	size_t n = strlen(name);

	return n > 3 && !strcasecmp(name + n - 3, ".gz");
}

struct scratch { /* a worker's block buffer, reused across files */
	char *buf;
	size_t cap;
};

/* The file being read: sc->buf[0..have) holds what is not searched yet;
 * total counts every byte read (decompressed, for a .gz). */
struct source {
	const struct grep_cfg *g;
	struct reader rd;
	struct scratch *sc;
	struct hits *h;
	unsigned long long size; /* fstat's */
	unsigned long long total;
	size_t have;
	int first, eof;
};

/* Opens with gzip's magic: a .gz that is not one is searched as it is. */
static int is_gzip(int fd)
{
	unsigned char m[2];

	return pread(fd, m, 2, 0) == 2 && m[0] == 0x1f && m[1] == 0x8b;
}

/* Take the file open at fd (closed by source_close): a regular file within
 * the size limit, inflated as it is read when it is a .gz under -z.
 * -1: not to be searched. */
static int source_open(struct source *f, const struct grep_cfg *g, int fd,
		       const char *path, struct hits *h, struct scratch *sc)
{
	struct stat st;

	memset(f, 0, sizeof(*f));
	f->g = g;
	f->rd.fd = fd;
	f->sc = sc;
	f->h = h;
	f->first = 1;
	/* O_NONBLOCK stays: it changes nothing for a regular file. */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		return -1;
	f->size = (unsigned long long)st.st_size;
	if (f->size > g->max_file) {
		h->too_big = 1;
		return -1;
	}
	if (g->o->gz && has_suffix_gz(path) && is_gzip(fd)) {
		/* No bound here: source_read's is the one that names the file
		 * too big. */
		f->rd.gz = gzpar_reader_open(gz_source, &f->rd.fd, 0);
		if (!f->rd.gz)
			return -1;
	}
	return 0;
}

static void source_close(struct source *f)
{
	if (f->rd.gz)
		gzpar_reader_free(f->rd.gz);
	if (f->rd.fd >= 0)
		close(f->rd.fd);
}

/* The scratch buffer at least cap bytes (and one for a NUL). -1: none. */
static int scratch_reserve(struct scratch *sc, size_t cap)
{
	if (sc->cap >= cap)
		return 0;
	free(sc->buf);
	sc->cap = 0;
	sc->buf = malloc(cap + 1);
	if (!sc->buf)
		return -1;
	sc->cap = cap;
	return 0;
}

/* Twice the room, what is read kept. -1: out of memory. */
static int scratch_grow(struct scratch *sc)
{
	char *nb = realloc(sc->buf, sc->cap * 2 + 1);

	if (!nb)
		return -1;
	sc->buf = nb;
	sc->cap *= 2;
	return 0;
}

/* Read into the room after f->have. 1: read (f->eof set at the end);
 * 0: stop here: a read error, binary data, or over the size limit (what
 * the file matched is dropped: it is skipped as a whole). */
static int source_read(struct source *f)
{
	char *at = f->sc->buf + f->have;
	ssize_t k = reader_read(&f->rd, at, f->sc->cap - f->have);

	if (k < 0)
		return 0;
	f->total += (unsigned long long)k;
	if (f->total > f->g->max_file) {
		/* a .gz that inflates past the limit, or a file that grew */
		f->h->too_big = 1;
		hits_clear(f->h);
		f->h->count = 0;
		return 0;
	}
	/* Reading the size fstat gave is the end: spare the read that
	 * would return 0 (a growing file is read as it was). */
	if (k == 0 || (!f->rd.gz && f->total >= f->size))
		f->eof = 1;
	if (f->first && k > 0) {
		f->first = 0;
		if (bytes_find(at, (size_t)k, 0))
			return 0; /* binary */
	}
	f->have += (size_t)k;
	return 1;
}

/* Multiline (-U): the whole file in the buffer, then one search, as a
 * match may span any lines. */
static void search_whole(struct scan *s, struct source *f)
{
	while (!f->eof) {
		if (f->have == f->sc->cap && scratch_grow(f->sc))
			return;
		if (!source_read(f))
			return;
	}
	scan_multiline(s, f->sc->buf, f->have);
}

/* A line that fills the whole GREP_LONG buffer: search it as a window and
 * keep the overlap for the next one, rather than grow. -1: stop. */
static int search_long_window(struct scan *s, struct source *f)
{
	char *buf = f->sc->buf;
	size_t keep;

	if (!s->lhead && !(s->lhead = malloc(GREP_TEXT_MAX + 4)))
		return -1;
	keep = long_window(s, buf, f->have, 0);
	memmove(buf, buf + keep, f->have - keep);
	f->have -= keep;
	s->lctx = f->have;
	return should_stop(f->g) ? -1 : 0;
}

/* The long line's last window, once its newline (or the end) is read.
 * 1: lines after it wait in the buffer; 0: read on. */
static int search_long_end(struct scan *s, struct source *f)
{
	char *buf = f->sc->buf;
	char *nl = memchr(buf + s->lctx, '\n', f->have - s->lctx);
	size_t le = nl ? (size_t)(nl - buf) : f->have;

	if (!nl && !f->eof)
		return 0;
	long_window(s, buf, le, 1);
	long_end(s);
	le += nl ? 1 : 0;
	memmove(buf, buf + le, f->have - le);
	f->have -= le;
	return f->have && !s->done;
}

/* Streamed: block by block, the whole lines of each searched at once, the
 * unfinished last line carried to the next read. */
static void search_blocks(struct scan *s, struct source *f)
{
	const struct wfs_grep_opts *o = f->g->o;

	while (!s->done && !f->eof) {
		char *buf;
		size_t done_len;

		if (f->have == f->sc->cap) {
			if (f->sc->cap >= GREP_LONG ? search_long_window(s, f)
						    : scratch_grow(f->sc))
				break;
		}
		if (!source_read(f))
			break;
		if (s->inlong && !search_long_end(s, f))
			continue;
		buf = f->sc->buf;
		if (f->eof) {
			done_len = f->have;
		} else {
			char *nl = f->have ? memrchr(buf, '\n', f->have) : NULL;
			if (!nl)
				continue; /* a line longer than the buffer: grow */
			done_len = (size_t)(nl - buf) + 1;
		}
		if (o->before || o->after || bytes_find(buf, done_len, '\r'))
			scan_lines(s, buf, done_len);
		else
			scan_block(s, buf, done_len, f->eof);
		memmove(buf, buf + done_len, f->have - done_len);
		f->have -= done_len;
		if (should_stop(f->g))
			break; /* the caller reports a deadline or cancel */
	}
}

/* Search the file open at fd (owned: closed here) into h. Unreadable,
 * special and binary files give no hits, as the reference skips them. */
static void grep_file(const struct grep_cfg *g, struct re *re, int fd,
		      const char *path, struct hits *h, struct scratch *sc)
{
	const struct wfs_grep_opts *o = g->o;
	struct source f;
	struct scan s;

	h->open_err = fd < 0 ? errno : 0; /* the open was our argument */
	if (fd < 0)
		return;
	memset(&s, 0, sizeof(s));
	s.g = g;
	s.re = re;
	s.h = h;
	s.line = 1;
	if (source_open(&f, g, fd, path, h, sc))
		goto out;
	if (o->before > 0) {
		s.before.cap = o->before;
		s.before.v = calloc((size_t)o->before, sizeof(*s.before.v));
		if (!s.before.v)
			goto out;
	}
	/* Multiline needs the whole file: a match may span any lines. */
	if (scratch_reserve(sc, o->multiline ? (size_t)f.size + GREP_BLOCK : GREP_BLOCK))
		goto out;
	if (o->multiline)
		search_whole(&s, &f);
	else
		search_blocks(&s, &f);
out:
	free(s.lhead);
	if (s.before.v) {
		int i;
		for (i = 0; i < s.before.cap; i++)
			free(s.before.v[i].text);
		free(s.before.v);
	}
	source_close(&f);
}

/* ---- the driver: walk, workers, ordered merge ---- */

struct grep_run;
struct job;
struct flush_ref {
	struct grep_run *g;
	struct job *jb;
	int fi; /* the file's place in its job */
};

/* A job: up to GREP_BATCH consecutive files of the walk, so workers and
 * the walk meet once per batch rather than once per file. */
#define GREP_BATCH 16

enum {
	ENT_FILE,
	ENT_LINK,
	ENT_ROOT
};

struct job {
	char *paths[GREP_BATCH];
	size_t rel_off[GREP_BATCH];     /* where the path relative to the walk's root starts */
	unsigned char kind[GREP_BATCH]; /* ENT_* */
	struct hits h[GREP_BATCH];
	struct flush_ref fl[GREP_BATCH];
	int n;            /* files in the job */
	int merged_files; /* files already handed to the output */
	size_t index;     /* the job number */
};

struct grep_run {
	struct wfs_ctx *c;
	const struct wfs_grep_opts *o;
	struct grep_cfg cfg;
	struct re *re; /* the caller's; workers use clones */

	/* Its lock guards the merge and what it touches (errors, spares,
	 * the result) as well as the jobs. */
	struct slots ring;
	struct job jobs[GREP_RING];
	struct walk_errors errors; /* with the merge: in walk order */
	int filling;               /* the walk is filling the next job */
	volatile int stop;         /* the cap was reached, or an error */
	int nthreads;
	int rootfd; /* the walk's root, opened beneath the root */
	int croot;  /* confined: the workspace root, O_PATH */

	struct wfs_grep_result *res;
	size_t cap;
	long matched;
	int oom;
	const char *limit_file; /* where the regex engine gave up */
	struct scratch sc;      /* for the single-threaded path */
	/* Hit buffers of merged files, for the next ones (lock held): musl
	 * hands freed memory straight back to the kernel, and the page
	 * faults and TLB shootdowns that follow cost when matches abound. */
	struct hits spare[SPARE_N];
	int nspare;
};

/* Keep h's buffers for reuse if small enough, else free them. */
static void hits_release(struct grep_run *g, struct hits *h)
{
	if (g->nspare < SPARE_N && (h->v || h->text.p) && !h->text.oom &&
	    h->text.cap <= SPARE_KEEP && h->cap * sizeof(*h->v) <= SPARE_KEEP) {
		struct hits *s = &g->spare[g->nspare++];
		memset(s, 0, sizeof(*s));
		s->v = h->v;
		s->cap = h->cap;
		s->text = h->text;
		buf_reset(&s->text);
		memset(h, 0, sizeof(*h));
		return;
	}
	hits_free(h);
}

/* Give an empty h a spare's buffers, if there is one. */
static void hits_take(struct grep_run *g, struct hits *h)
{
	if (!g->nspare || h->v || h->text.p)
		return;
	*h = g->spare[--g->nspare];
}

static int keep_hit(struct grep_run *g, const struct hits *h,
		    const struct hit *e, const char *file, long long count)
{
	struct wfs_grep_match *m, one;

	if (g->o->emit) {
		memset(&one, 0, sizeof(one));
		one.file = file;
		one.count = count;
		if (e) {
			one.line = e->line;
			one.text = hit_text(h, e);
			one.text_len = e->len;
			one.context = e->context;
			one.text_cut = e->cut;
		}
		g->res->n++;
		if (g->o->emit(g->o->emit_arg, &one))
			g->stop = 1;
		return 0;
	}
	if (g->res->n == g->cap) {
		size_t nc = g->cap ? g->cap * 2 : 64;
		struct wfs_grep_match *nm = arena_alloc(g->c->arena, nc * sizeof(*nm));
		if (!nm)
			return -1;
		if (g->res->n)
			memcpy(nm, g->res->matches, g->res->n * sizeof(*nm));
		g->res->matches = nm;
		g->cap = nc;
	}
	m = &g->res->matches[g->res->n++];
	memset(m, 0, sizeof(*m));
	m->file = file;
	m->count = count;
	if (e) {
		m->line = e->line;
		m->text = arena_strndup(g->c->arena, hit_text(h, e), e->len);
		m->text_len = e->len;
		m->context = e->context;
		m->text_cut = e->cut;
		if (!m->text)
			return -1;
	}
	return 0;
}

/* Hand one file's hits to the output, in order; sets stop when the cap is
 * reached. */
static void merge_file(struct grep_run *g, const char *path, struct hits *h)
{
	const struct wfs_grep_opts *o = g->o;
	const char *file;
	size_t i;

	if (h->open_err && walk_error_worth(h->open_err) && !g->stop)
		walk_error_add(g->c, &g->errors, path, h->open_err);
	if (g->stop || (!h->count && !h->n && !h->limit && !h->oom && !h->too_big))
		return;
	if (h->too_big) {
		/* told to the caller (emit), not part of the matches */
		struct wfs_grep_match one;
		g->res->skipped++;
		if (!o->emit)
			return;
		memset(&one, 0, sizeof(one));
		one.file = path;
		one.skipped = 1;
		if (o->emit(o->emit_arg, &one))
			g->stop = 1;
		return;
	}
	if (h->oom || h->limit) {
		g->oom = h->oom;
		if (h->limit && !g->limit_file)
			g->limit_file = arena_strdup(g->c->arena, path);
		g->stop = 1;
		return;
	}
	/* Streamed matches are written at once: no copy of the name. */
	file = o->emit ? path : arena_strdup(g->c->arena, path);
	if (!file) {
		g->oom = 1;
		g->stop = 1;
		return;
	}
	if (o->count || o->files_with_matches) {
		if (keep_hit(g, h, NULL, file, h->count))
			g->oom = 1;
		if (o->max > 0 && (long)g->res->n >= o->max) {
			g->res->truncated = 1;
			g->stop = 1;
		}
		return;
	}
	for (i = 0; i < h->n && !g->stop; i++) {
		if (keep_hit(g, h, &h->v[i], file, 0)) {
			g->oom = 1;
			g->stop = 1;
		}
		if (!h->v[i].context && o->max > 0 && ++g->matched >= o->max) {
			g->res->truncated = 1;
			g->stop = 1;
		}
	}
}

/* Merge the job's files before file number upto (lock held). */
static void merge_upto(struct grep_run *g, struct job *jb, int upto)
{
	for (; jb->merged_files < upto; jb->merged_files++) {
		merge_file(g, jb->paths[jb->merged_files], &jb->h[jb->merged_files]);
		hits_release(g, &jb->h[jb->merged_files]);
	}
}

/* A running file holds too much: wait for its job's turn at the head of
 * the merge order, then emit what it holds (the rest follows later). */
static void flush_job(struct hits *h, void *arg)
{
	struct flush_ref *f = arg;
	struct grep_run *g = f->g;

	slots_lock(&g->ring);
	slots_wait_turn(&g->ring, f->jb->index);
	if (!g->stop) {
		merge_upto(g, f->jb, f->fi);
		merge_file(g, f->jb->paths[f->fi], h);
	}
	hits_clear(h);
	slots_unlock(&g->ring);
}

/* Open a file the walk found, for reading, without leaving the workspace
 * root when confined: the walk's root is its own descriptor; a plain file
 * is opened beneath that (openat2 RESOLVE_BENEATH, or a no-follow walk),
 * not followed if it is a link now; a symlink by its resolved path beneath
 * the workspace root. Quiet (any thread): -1 skips the file. */
static int open_entry(const struct grep_run *g, const char *path,
		      size_t rel_off, int kind)
{
	const int fl = O_RDONLY | O_NONBLOCK;
	const char *root = g->c->root;
	char why[256];

	if (kind == ENT_ROOT)
		return fcntl(g->rootfd, F_DUPFD_CLOEXEC, 0);
	if (kind == ENT_FILE)
		return root ? confine_openat(g->rootfd, path + rel_off, fl | O_NOFOLLOW, 0)
			    : fs_openat_raw(g->rootfd, path + rel_off, fl);
	if (root)
		return confine_open(root, g->croot, path, fl, why, sizeof(why));
	return fs_openat_raw(g->rootfd, path + rel_off, fl);
}

static void *worker(void *arg)
{
	struct grep_run *g = arg;
	struct re *re = re_clone(g->re);
	struct scratch sc = {NULL, 0};
	size_t j;

	slots_lock(&g->ring);
	while (!slots_take(&g->ring, &j)) {
		struct job *jb = &g->jobs[j % GREP_RING];
		int i;

		jb->index = j;
		for (i = 0; i < jb->n; i++)
			hits_take(g, &jb->h[i]);
		slots_unlock(&g->ring);
		for (i = 0; i < jb->n && !g->stop; i++) {
			if (g->o->emit) {
				jb->fl[i].g = g;
				jb->fl[i].jb = jb;
				jb->fl[i].fi = i;
				jb->h[i].flush = flush_job;
				jb->h[i].flush_arg = &jb->fl[i];
			}
			if (re)
				grep_file(&g->cfg, re,
					  open_entry(g, jb->paths[i], jb->rel_off[i], jb->kind[i]),
					  jb->paths[i], &jb->h[i], &sc);
			else
				jb->h[i].oom = 1;
		}
		slots_lock(&g->ring);
		slots_complete(&g->ring, j);
	}
	slots_unlock(&g->ring);
	free(sc.buf);
	re_free(re);
	return NULL;
}

/* Merge the oldest job if it is finished, and free its place (lock
 * held). wait: block until it is. 0: none was. */
static int merge_head(struct grep_run *g, int wait)
{
	struct job *jb;
	size_t j;
	int head = slots_head(&g->ring, wait, &j), i;

	if (head == SLOTS_NONE)
		return 0;
	jb = &g->jobs[j % GREP_RING];
	/* A job never started (the search stopped) has nothing. */
	if (head == SLOTS_DONE)
		merge_upto(g, jb, jb->n);
	for (i = 0; i < jb->n; i++) {
		hits_release(g, &jb->h[i]);
		free(jb->paths[i]);
		jb->paths[i] = NULL;
	}
	jb->n = jb->merged_files = 0;
	slots_retire(&g->ring);
	return 1;
}

/* Merge finished jobs in order (lock held). wait: every queued job. */
static void drain(struct grep_run *g, int wait)
{
	while (merge_head(g, wait))
		;
}

/* Queue the job being filled (lock held). */
static void publish(struct grep_run *g)
{
	if (g->jobs[slots_next(&g->ring) % GREP_RING].n)
		slots_publish(&g->ring);
}

static int include_ok(const struct wfs_grep_opts *o, const struct walk_ent *e)
{
	int i, any = 0;

	for (i = 0; i < o->nexclude; i++) {
		if (globmatch_entry_opts(o->exclude[i], e->rel, e->name, o->glob_flags) > 0)
			return 0;
	}
	if (e->type == WALK_DIR)
		return 1;
	for (i = 0; i < o->ninclude; i++) {
		any = 1;
		if (globmatch_entry_opts(o->include[i], e->rel, e->name, o->glob_flags) > 0)
			return 1;
	}
	return !any;
}

static int searchable(const struct grep_run *g, const struct walk_ent *e)
{
	struct stat st;

	if (e->type == WALK_DIR || e->type == WALK_OTHER)
		return 0;
	if (walk_skip_ext(e->name) && !(g->o->gz && has_suffix_gz(e->name)))
		return 0;
	if (e->type == WALK_LINK) {
		char why[256];
		/* confined: a link out of the workspace is not followed */
		if (g->c->root && confine_check(g->c->root, e->path, why, sizeof(why)))
			return 0;
		/* a filter only: the file is opened beneath the root later */
		return !fstatat(e->dirfd, e->at, &st, 0) && S_ISREG(st.st_mode);
	}
	return 1;
}

/* Single-threaded: every file is the head of the order. */
static void flush_now(struct hits *h, void *arg)
{
	struct flush_ref *f = arg;

	if (!f->g->stop)
		merge_file(f->g, f->jb->paths[0], h);
	hits_clear(h);
}

/* A directory the walk could not read; the arena is shared with the
 * merge, which workers run too. */
static void walk_failed(void *arg, const char *path, int err)
{
	struct grep_run *g = arg;

	if (g->nthreads)
		slots_lock(&g->ring);
	walk_error_add(g->c, &g->errors, path, err);
	if (g->nthreads)
		slots_unlock(&g->ring);
}

static int visit(void *arg, const struct walk_ent *e)
{
	struct grep_run *g = arg;
	int kind = !e->depth ? ENT_ROOT : e->type == WALK_LINK ? ENT_LINK
							       : ENT_FILE;
	struct job *jb;

	if (g->stop)
		return WALK_STOP;
	if (e->depth && !include_ok(g->o, e))
		return e->type == WALK_DIR ? WALK_SKIP : WALK_CONTINUE;
	if (!searchable(g, e))
		return WALK_CONTINUE;
	if (wfs_expired(g->c))
		return -1;
	if (!g->nthreads) {
		struct hits h;
		struct job one;
		memset(&h, 0, sizeof(h));
		hits_take(g, &h);
		if (g->o->emit) {
			h.flush = flush_now;
			h.flush_arg = &one.fl[0];
			one.fl[0].g = g;
			one.fl[0].jb = &one;
			one.paths[0] = (char *)e->path;
		}
		/* one thread: the file by name in its directory's descriptor */
		grep_file(&g->cfg, g->re,
			  kind == ENT_FILE
				  ? fs_openat_raw(e->dirfd, e->at, O_RDONLY | O_NONBLOCK | (g->c->root ? O_NOFOLLOW : 0))
				  : open_entry(g, e->path, (size_t)(e->rel - e->path), kind),
			  e->path, &h, &g->sc);
		merge_file(g, e->path, &h);
		hits_release(g, &h);
		return g->stop ? WALK_STOP : WALK_CONTINUE;
	}
	jb = &g->jobs[slots_next(&g->ring) % GREP_RING];
	if (!g->filling) {
		/* A new job: its place is free once the job there is merged. */
		slots_lock(&g->ring);
		while (slots_full(&g->ring) && !g->stop)
			merge_head(g, 1);
		slots_unlock(&g->ring);
		if (g->stop)
			return WALK_STOP;
		memset(jb->h, 0, sizeof(jb->h));
		jb->n = jb->merged_files = 0;
		g->filling = 1;
	}
	jb->paths[jb->n] = strdup(e->path);
	jb->rel_off[jb->n] = (size_t)(e->rel - e->path);
	jb->kind[jb->n] = (unsigned char)kind;
	if (!jb->paths[jb->n])
		jb->h[jb->n].oom = 1;
	if (++jb->n == GREP_BATCH) {
		slots_lock(&g->ring);
		g->filling = 0;
		publish(g);
		drain(g, 0);
		slots_unlock(&g->ring);
	}
	return g->stop ? WALK_STOP : WALK_CONTINUE;
}

/* Wrap for -w: the match must not touch word characters on either side. */
static char *build_pattern(struct wfs_ctx *c, const struct wfs_grep_opts *o,
			   unsigned *flags)
{
	const char *p = o->pattern;
	struct buf b;
	char *s;

	*flags = (o->multiline ? 0 : RE_LINE) | (o->ignore_case ? RE_ICASE : 0);
	if (!o->word) {
		if (o->fixed)
			*flags |= RE_LITERAL;
		return (char *)p;
	}
	buf_init(&b);
	buf_puts(&b, "(?:^|[^0-9A-Za-z_])(?:");
	if (o->fixed) {
		buf_puts(&b, "\\Q");
		for (; *p; p++) {
			if (p[0] == '\\' && p[1] == 'E')
				buf_puts(&b, "\\E\\\\E\\Q"), p++;
			else
				buf_putc(&b, *p);
		}
		buf_puts(&b, "\\E");
	} else {
		buf_puts(&b, p);
	}
	buf_puts(&b, ")(?:$|[^0-9A-Za-z_])");
	s = b.oom ? NULL : arena_strndup(c->arena, b.p, b.len);
	buf_free(&b);
	return s;
}

#define GREP_MAX_THREADS 8

/* WICKFS_THREADS, else the online cores; either way clamped to
 * 1..GREP_MAX_THREADS (the workers' table). A value that is not a number
 * is an error rather than a silent default. */
static int thread_count(struct wfs_ctx *c)
{
	long n = c->set->threads_given ? c->set->threads : wfs_cpus();

	if (c->set->threads_bad)
		return wfs_fail(c, "grep: WICKFS_THREADS=%s is not a number of threads",
				c->set->threads_bad);
	return n < 1 ? 1 : n > GREP_MAX_THREADS ? GREP_MAX_THREADS
						: (int)n;
}

int wfs_grep(struct wfs_ctx *c, const struct wfs_grep_opts *o,
	     struct wfs_grep_result *res)
{
	struct grep_run *g;
	pthread_t tid[GREP_MAX_THREADS];
	struct walk_opts wo;
	char err[512];
	unsigned flags;
	char *pat;
	int i, n = 0, rc = 0, nthreads, rootfd;
	struct stat st;

	memset(res, 0, sizeof(*res));
	nthreads = thread_count(c);
	if (nthreads < 0)
		return -1;
	pat = build_pattern(c, o, &flags);
	if (!pat)
		return wfs_fail(c, "grep: out of memory");
	if (walk_open_root(c, "grep", o->path, O_RDONLY | O_NONBLOCK, &rootfd))
		return -1;
	g = calloc(1, sizeof(*g));
	if (!g || slots_init(&g->ring, GREP_RING, &g->stop)) {
		free(g);
		if (rootfd >= 0)
			close(rootfd);
		return wfs_fail(c, "grep: out of memory");
	}
	g->rootfd = rootfd;
	g->croot = -1;
	g->re = re_compile(pat, strlen(pat), flags, err, sizeof(err));
	if (!g->re) {
		if (rootfd >= 0)
			close(rootfd);
		slots_destroy(&g->ring);
		free(g);
		return wfs_fail(c, "%s", err);
	}
	if (c->root)
		g->croot = open(c->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	g->c = c;
	g->o = o;
	g->res = res;
	g->cfg.o = o;
	g->cfg.stop = &g->stop;
	g->cfg.deadline_ms = c->deadline_ms;
	g->cfg.cancel = c->cancel;
	g->cfg.max_file = c->set->max_file;
	/* A file can contribute at most the cap; context needs no more. */
	g->cfg.per_file = o->count ? 0 : o->max;
	/* One file, or one core: no threads. */
	g->nthreads = nthreads;
	if (g->nthreads <= 1 || rootfd < 0 || fstat(rootfd, &st) || !S_ISDIR(st.st_mode))
		g->nthreads = 0;
	for (i = 0; i < g->nthreads; i++) {
		if (pthread_create(&tid[n], NULL, worker, g))
			break;
		n++;
	}
	if (!n)
		g->nthreads = 0;
	wo = o->walk;
	wo.on_error = walk_failed;
	if (rootfd >= 0 && wfs_walk(c, o->path, rootfd, &wo, visit, g))
		rc = -1;
	slots_lock(&g->ring);
	if (rc)
		g->stop = 1;
	if (g->filling)
		publish(g);
	g->filling = 0;
	slots_close(&g->ring);
	drain(g, 1);
	slots_unlock(&g->ring);
	for (i = 0; i < n; i++)
		pthread_join(tid[i], NULL);
	/* a file cut short by the deadline: the walk may have ended first */
	if (!rc && wfs_expired(c))
		rc = -1;
	if (g->oom && !rc)
		rc = wfs_fail(c, "grep %s: out of memory", o->path);
	if (g->limit_file && !rc)
		rc = wfs_fail(c, "grep %s: the regex engine hit its memory limit; simplify the pattern",
			      g->limit_file);
	if (g->errors.total && (res->errors = arena_alloc(c->arena, sizeof(*res->errors))))
		*res->errors = g->errors;
	free(g->sc.buf);
	re_free(g->re);
	if (g->rootfd >= 0)
		close(g->rootfd);
	if (g->croot >= 0)
		close(g->croot);
	while (g->nspare)
		hits_free(&g->spare[--g->nspare]);
	slots_destroy(&g->ring);
	free(g);
	return rc;
}
