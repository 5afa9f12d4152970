/* re_int.h - internals shared by the regex engine's files */
#ifndef WFS_RE_INT_H
#define WFS_RE_INT_H

#include <stdint.h>
#include <stddef.h>
#include "regex.h"

#define RE_MAXREP 1000     /* largest {n,m} count, as RE2 */
#define RE_MAXDEPTH 1000   /* nesting of groups */
#define RE_MAXPROG 2000000 /* instructions + switch edges: \\pL{1000} fits,
			    * about 20 MB; past it memory is at risk */
#define RE_DFAMEM (2u << 20) /* lazy DFA cache budget */

/* ---- Unicode tables (unitab.c, generated) ---- */
struct re_unitab {
	const char *name;
	const unsigned char *data; /* n varint pairs: gap, hi - lo */
	int n;
};
struct re_foldrange {
	uint32_t lo, hi, stride;
	int32_t delta;
};
extern const struct re_unitab re_unitabs[]; /* categories, then scripts */
extern const int re_ncat; /* how many of them are (two-letter) categories */
extern const struct re_foldrange re_foldtab[];
extern const int re_nfold;

/* ---- code point sets ---- */
struct rclass {
	uint32_t (*r)[2];
	int n, cap;
	int oom;
};
void cls_add(struct rclass *c, uint32_t lo, uint32_t hi);
void cls_norm(struct rclass *c);
void cls_negate(struct rclass *c);
void cls_fold(struct rclass *c);
void cls_free(struct rclass *c);
int cls_has(const struct rclass *c, uint32_t cp);
uint32_t re_foldnext(uint32_t c);

/* ---- AST ---- */
enum { N_EMPTY, N_LIT, N_CLASS, N_CAT, N_ALT, N_REP, N_GROUP, N_ASSERT };

/* empty-width assertions, one bit each */
enum {
	A_BOL = 1,     /* at text start or after '\n' */
	A_EOL = 2,     /* at text end or before '\n' */
	A_BOT = 4,     /* at text start */
	A_EOT = 8,     /* at text end */
	A_WORDB = 16,  /* \b, ASCII word characters */
	A_NWORDB = 32, /* \B */
	A_BOUND = 64   /* a character boundary as Go decodes the text */
};

struct node {
	int type;
	struct node *kid, *next; /* first child, next sibling */
	struct node *allnext;    /* every node, for freeing */
	int32_t rune;            /* N_LIT: code point, or a byte if raw */
	uint8_t fold, raw;       /* N_LIT: case-insensitive; rune is a byte */
	uint8_t greedy;          /* N_REP */
	int min, max;            /* N_REP: max -1 for unbounded */
	unsigned akind;          /* N_ASSERT */
	struct rclass cls;       /* N_CLASS */
};

struct ast {
	struct node *root, *all;
	int ncap;
};
int re_parse(const char *pat, size_t len, unsigned flags, struct ast *a,
	     char *err, size_t errlen);
void re_ast_free(struct ast *a);
void re_errf(char *err, size_t errlen, const char *pat, size_t len,
	     size_t pos, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/* ---- program ---- */
enum { OP_FAIL, OP_MATCH, OP_BYTE, OP_SPLIT, OP_JMP, OP_ASSERT };

struct inst {
	uint8_t op;
	uint8_t arg; /* OP_ASSERT: the A_* bit */
	uint32_t x;  /* BYTE: first edge; SPLIT/JMP/ASSERT: next (preferred) */
	uint32_t y;  /* BYTE: edge count; SPLIT: the other branch */
};
struct edge {
	uint8_t lo, hi;
	uint32_t next;
};

struct prog {
	struct inst *inst;
	struct edge *edge;
	uint32_t ninst, nedge, start;
	unsigned asserts; /* A_* bits used */
	uint8_t bclass[256]; /* byte -> equivalence class for the DFA */
	int nbclass;
	int anchored;       /* every match starts at text start (\A, ^) */
	int utf8ctx;        /* invalid UTF-8 changes its matches (see dfa.c) */
};
int re_compile_prog(const struct ast *a, struct prog *p);
void re_prog_free(struct prog *p);
int re_prog_copy(struct prog *dst, const struct prog *src);

static inline int re_isword(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z') || c == '_';
}

/* Text is decoded as Go does: a valid UTF-8 sequence is one character,
 * every other byte is one character of its own (U+FFFD). The decoder's
 * state: 0 at a character boundary, else which bytes a started sequence
 * still needs (1: one of 80-bf; 2-4: two, the first 80-bf, a0-bf, 80-9f;
 * 5-7: three, the first 80-bf, 90-bf, 80-8f). */
static inline unsigned u8_lead(int c)
{
	if (c < 0xc2 || c > 0xf4)
		return 0;
	if (c <= 0xdf)
		return 1;
	if (c <= 0xef)
		return c == 0xe0 ? 3 : c == 0xed ? 4 : 2;
	return c == 0xf0 ? 6 : c == 0xf4 ? 7 : 5;
}

/* The state after byte c; *bad is set if c ends a sequence unfinished or
 * is a byte no valid character starts with. */
static inline unsigned u8_next(unsigned st, int c, int *bad)
{
	static const uint8_t lo[8] = { 0, 0x80, 0x80, 0xa0, 0x80, 0x80, 0x90,
				       0x80 };
	static const uint8_t hi[8] = { 0, 0xbf, 0xbf, 0xbf, 0x9f, 0xbf, 0xbf,
				       0x8f };

	if (st && c >= lo[st] && c <= hi[st])
		return st == 1 ? 0 : st <= 4 ? 1 : 2;
	*bad = st || (c >= 0x80 && !u8_lead(c));
	return u8_lead(c);
}

/* pos is not inside a valid multi-byte character that starts before it */
static inline int re_bound(const unsigned char *s, size_t n, size_t pos)
{
	size_t k, i;
	unsigned st;
	int bad = 0;

	if (pos < n && (s[pos] & 0xc0) != 0x80)
		return 1;
	for (k = 1; k <= 3 && k <= pos; k++) {
		if ((s[pos - k] & 0xc0) == 0x80)
			continue;
		st = u8_lead(s[pos - k]);
		for (i = pos - k + 1; st && i < n && !bad; i++)
			st = u8_next(st, s[i], &bad);
		return st || bad || i <= pos; /* invalid, or ends before */
	}
	return 1;
}

/* context flags (A_*) that hold at pos in s[0..n) */
static inline unsigned re_ctx(const unsigned char *s, size_t n, size_t pos)
{
	int prev = pos > 0 ? s[pos - 1] : -1, next = pos < n ? s[pos] : -1;
	unsigned f = 0;

	if (pos == 0)
		f |= A_BOT | A_BOL;
	else if (prev == '\n')
		f |= A_BOL;
	if (pos == n)
		f |= A_EOT | A_EOL;
	else if (next == '\n')
		f |= A_EOL;
	if (re_isword(prev) != re_isword(next))
		f |= A_WORDB;
	else
		f |= A_NWORDB;
	if (re_bound(s, n, pos))
		f |= A_BOUND;
	return f;
}

static inline uint32_t re_edge_next(const struct prog *p,
				    const struct inst *in, int c)
{
	const struct edge *e = p->edge + in->x;
	uint32_t k, lo = 0, hi = in->y;

	if (hi <= 4) {
		for (k = 0; k < hi; k++)
			if (c >= e[k].lo && c <= e[k].hi)
				return e[k].next;
		return UINT32_MAX;
	}
	while (lo < hi) {
		k = (lo + hi) / 2;
		if (c < e[k].lo)
			hi = k;
		else if (c > e[k].hi)
			lo = k + 1;
		else
			return e[k].next;
	}
	return UINT32_MAX;
}

/* ---- Pike VM ---- */
struct pike;
struct pike *pike_new(const struct prog *p);
void pike_free(struct pike *vm);
/* 1 match (*ms,*me), 0 none, -1 out of memory */
int pike_search(struct pike *vm, const struct prog *p, const unsigned char *s,
		size_t n, size_t from, size_t *ms, size_t *me);

/* ---- literal prefilter ---- */
#define RE_MAXLIT 64
#define RE_MAXSET 16 /* literals in a set, one per alternation branch */
struct lit {
	uint8_t b[RE_MAXLIT]; /* bytes; ASCII letters lower case if m is 0x20 */
	uint8_t m[RE_MAXLIT]; /* OR-ed into input bytes before comparing */
	size_t len;
	size_t i1, i2;        /* the two rarest positions */
};
/* Literals of which every match contains one (none if n is 0). */
struct litset {
	struct lit l[RE_MAXSET];
	int n;
	int pure; /* a match is exactly the first of them found at a place */
	int simd; /* x86: 1 the CPU has SSSE3, 2 also AVX2; unused on aarch64 */
	/* sets: bucket bits (literal k is in bucket k % 8) of the bytes
	 * allowed at offsets 0..2 of a literal, whole and in nibbles */
	uint8_t fp[3][256];
	uint8_t nib[3][2][16];
};
void pf_extract(const struct ast *a, struct litset *ls);
/* First place in s[from..n) where a literal occurs, or n; *len its size */
size_t pf_find(const struct litset *ls, const unsigned char *s, size_t n,
	       size_t from, size_t *len);
int re_utf8_encode(uint32_t r, uint8_t *b);

/* ---- lazy DFA ---- */
struct dfa;
struct dfa *dfa_new(const struct prog *p);
void dfa_free(struct dfa *d);
/* Earliest match end in s[from..end) with s[0..n) as context: 1 and *me,
 * 0 none, -1 gave up (cache thrashing): use the Pike VM; -2 invalid
 * UTF-8 at *me that this program is sensitive to: use the Pike VM for
 * this text (no match ends before *me). */
int dfa_search(struct dfa *d, const struct prog *p, const unsigned char *s,
	       size_t n, size_t from, size_t end, size_t *me);

#endif
