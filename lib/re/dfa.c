/* dfa.c - the lazy DFA: states built on demand from sets of pcs
 *
 * A state is the set of instructions waiting for the next byte (its
 * kernel) plus what the previous byte said about ^, \b and UTF-8 position.
 * Empty-width assertions that look at the next byte are resolved while
 * computing a transition, when that byte is known, so a match is seen
 * one byte late: a state is a "match" state when a match ended just
 * before the byte that led into it. The search re-enters the program's
 * start at every position (unanchored) and stops at the earliest match
 * end. States live in a bounded cache that is flushed when full; if it
 * keeps filling up, the search gives up and the caller uses the Pike VM.
 *
 * Character positions: Go reads a byte of invalid UTF-8 as a character of
 * its own. For a program that can see that (prog.utf8ctx) the state holds
 * a UTF-8 decoder; with it, positions inside a valid character are known
 * from the bytes before them, which is exact as long as the text is valid.
 * At the first invalid byte the search stops (-2) and the caller asks
 * the Pike VM, which looks ahead as far as it needs.
 */
#include <stdlib.h>
#include <string.h>
#include "re_int.h"

/* state flags: what the bytes before the state's position were */
enum {
	F_BOL = 1,
	F_BOT = 2,
	F_WORD = 4,
	F_DEC = 8 /* 3 bits: u8_next */
};
#define DEC(f) (((f) >> 3) & 7)
#define BAIL INT32_MIN /* transition(): invalid UTF-8, ask the Pike VM */
/* In the table, IDLE + offset is a state with no thread under way (none
 * but the next start) when the pattern has a run to skip to; below
 * IDLE / 2, where no match (-offset) goes. The search stops there as
 * it does on a match. */
#define IDLE INT32_MIN
#define MATCH(t) ((t) < 0 && (t) >= IDLE / 2)

struct dstate {
	uint32_t pcoff, npc, hash;
	uint8_t flags, match;
};

struct dfa {
	int stride;     /* byte classes + 1 column for end of text */
	unsigned fmask; /* flags this program can tell apart */
	struct dstate *st;
	uint32_t nst, capst;
	uint32_t *pcs;
	size_t npcs, cappcs;
	int32_t *tab;
	size_t captab;
	uint32_t *ht, hcap;
	uint32_t start[64];
	size_t mem;
	uint8_t rep[256];
	const struct litset *ls; /* its run, if any */
	/* scratch */
	uint32_t *mark1, *mark2, gen;
	uint32_t *stack, *kern, nkern;
	/* thrash detection */
	size_t pos, lastflush;
	int bad;
};

static void dfa_reset(struct dfa *d)
{
	d->nst = 1; /* state 0 is a dummy: offset 0 means "unknown" */
	d->npcs = 0;
	memset(d->ht, 0, d->hcap * sizeof(*d->ht));
	memset(d->start, 0, sizeof(d->start));
	memset(d->tab, 0, (size_t)d->stride * sizeof(*d->tab));
	d->mem = 0;
}

RE_COLD struct dfa *dfa_new(const struct prog *p, const struct litset *ls)
{
	struct dfa *d = calloc(1, sizeof(*d));
	int c;

	if (!d)
		return NULL;
	d->stride = p->nbclass + 1;
	d->ls = ls->runlen ? ls : NULL;
	if (p->asserts & A_BOL)
		d->fmask |= F_BOL;
	if (p->asserts & A_BOT)
		d->fmask |= F_BOT;
	if (p->asserts & (A_WORDB | A_NWORDB))
		d->fmask |= F_WORD;
	if (p->utf8ctx)
		d->fmask |= 7 * F_DEC;
	for (c = 255; c >= 0; c--)
		d->rep[p->bclass[c]] = (uint8_t)c;
	d->hcap = 1024;
	d->ht = calloc(d->hcap, sizeof(*d->ht));
	d->capst = 64;
	d->st = malloc(d->capst * sizeof(*d->st));
	d->cappcs = 1024;
	d->pcs = malloc(d->cappcs * sizeof(*d->pcs));
	d->captab = (size_t)d->stride * 64;
	d->tab = malloc(d->captab * sizeof(*d->tab));
	d->mark1 = calloc(p->ninst, sizeof(*d->mark1));
	d->mark2 = calloc(p->ninst, sizeof(*d->mark2));
	d->stack = malloc((2 * (size_t)p->ninst + 2) * sizeof(*d->stack));
	d->kern = malloc(((size_t)p->ninst + 1) * sizeof(*d->kern));
	if (!d->ht || !d->st || !d->pcs || !d->tab || !d->mark1 ||
	    !d->mark2 || !d->stack || !d->kern) {
		dfa_free(d);
		return NULL;
	}
	dfa_reset(d);
	return d;
}

void dfa_free(struct dfa *d)
{
	if (!d)
		return;
	free(d->ht);
	free(d->st);
	free(d->pcs);
	free(d->tab);
	free(d->mark1);
	free(d->mark2);
	free(d->stack);
	free(d->kern);
	free(d);
}

static uint32_t hash_state(const uint32_t *pc, uint32_t n, unsigned flags,
			   int match)
{
	uint32_t h = 2166136261u ^ flags ^ (uint32_t)match << 8, i;

	for (i = 0; i < n; i++)
		h = (h ^ pc[i]) * 16777619u;
	return h;
}

RE_COLD static int grow_ht(struct dfa *d)
{
	uint32_t ncap = d->hcap * 2, i, h;
	uint32_t *nh = calloc(ncap, sizeof(*nh));

	if (!nh)
		return -1;
	for (i = 1; i < d->nst; i++) {
		h = d->st[i].hash;
		while (nh[h & (ncap - 1)])
			h++;
		nh[h & (ncap - 1)] = i;
	}
	free(d->ht);
	d->ht = nh;
	d->hcap = ncap;
	return 0;
}

RE_COLD static int reserve(void **v, size_t *cap, size_t need, size_t size)
{
	size_t nc = *cap;
	void *q;

	if (need <= nc)
		return 0;
	while (nc < need)
		nc *= 2;
	q = realloc(*v, nc * size);
	if (!q)
		return -1;
	*v = q;
	*cap = nc;
	return 0;
}

/* Find or add the state (kern, flags, match). 0 on out of memory;
 * *flushed is set if the cache was emptied to make room. */
static uint32_t find_state(struct dfa *d, unsigned flags, int match,
			   int *flushed)
{
	uint32_t h = hash_state(d->kern, d->nkern, flags, match), slot, si;
	size_t need, cst;
	struct dstate *s;

	for (slot = h;; slot++) {
		si = d->ht[slot & (d->hcap - 1)];
		if (!si)
			break;
		s = &d->st[si];
		if (s->hash == h && s->flags == flags && s->match == match &&
		    s->npc == d->nkern &&
		    !memcmp(d->pcs + s->pcoff, d->kern,
			    d->nkern * sizeof(*d->kern)))
			return si;
	}
	need = sizeof(struct dstate) + d->nkern * 4 + (size_t)d->stride * 4 +
	       8;
	if (d->mem + need > RE_DFAMEM && d->nst > 1) {
		if (d->pos - d->lastflush < 16 * (size_t)d->nst)
			d->bad++;
		d->lastflush = d->pos;
		dfa_reset(d);
		*flushed = 1;
		return find_state(d, flags, match, flushed);
	}
	if ((d->nst + 1) * 2 > d->hcap && grow_ht(d))
		return 0;
	cst = d->capst;
	if (reserve((void **)&d->st, &cst, d->nst + 1, sizeof(*d->st)))
		return 0;
	d->capst = (uint32_t)cst;
	if (reserve((void **)&d->pcs, &d->cappcs, d->npcs + d->nkern,
		    sizeof(*d->pcs)) ||
	    reserve((void **)&d->tab, &d->captab,
		    (size_t)(d->nst + 1) * (size_t)d->stride, sizeof(*d->tab)))
		return 0;
	si = d->nst++;
	s = &d->st[si];
	s->pcoff = (uint32_t)d->npcs;
	s->npc = d->nkern;
	s->hash = h;
	s->flags = (uint8_t)flags;
	s->match = (uint8_t)match;
	memcpy(d->pcs + d->npcs, d->kern, d->nkern * sizeof(*d->kern));
	d->npcs += d->nkern;
	memset(d->tab + (size_t)si * d->stride, 0,
	       (size_t)d->stride * sizeof(*d->tab));
	for (slot = h; d->ht[slot & (d->hcap - 1)]; slot++)
		;
	d->ht[slot & (d->hcap - 1)] = si;
	d->mem += need;
	return si;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static void next_gen(struct dfa *d, uint32_t n)
{
	if (++d->gen == 0) {
		memset(d->mark1, 0, n * sizeof(*d->mark1));
		memset(d->mark2, 0, n * sizeof(*d->mark2));
		d->gen = 1;
	}
}

/* Follow the empty transitions of state si when the next byte is c (-1 for
 * end of text); collect the targets of c into d->kern. Returns whether a
 * match ends here. */
static int step(struct dfa *d, const struct prog *p, uint32_t si, int c)
{
	const struct dstate *s = &d->st[si];
	unsigned f = s->flags, ctx = 0;
	uint32_t sp = 0, pc, nx, i;
	const struct inst *in;
	int match = 0, bad = 0;

	if (f & F_BOL)
		ctx |= A_BOL;
	if (f & F_BOT)
		ctx |= A_BOT;
	if (c < 0)
		ctx |= A_EOT | A_EOL;
	else if (c == '\n')
		ctx |= A_EOL;
	ctx |= (!!(f & F_WORD) != re_isword(c)) ? A_WORDB : A_NWORDB;
	/* inside a character unless c breaks the sequence (then the
	 * transition bails out, this state's answer is never used) */
	if (!DEC(f) || c < 0 || (u8_next(DEC(f), c, &bad), bad))
		ctx |= A_BOUND;
	next_gen(d, p->ninst);
	d->nkern = 0;
	/* restart at every character boundary (unanchored search) */
	if (ctx & A_BOUND)
		d->stack[sp++] = p->start;
	for (i = s->npc; i > 0; i--)
		d->stack[sp++] = d->pcs[s->pcoff + i - 1];
	while (sp) {
		pc = d->stack[--sp];
		if (d->mark1[pc] == d->gen)
			continue;
		d->mark1[pc] = d->gen;
		in = &p->inst[pc];
		switch (in->op) {
		case OP_MATCH:
			match = 1;
			break;
		case OP_BYTE:
			if (c < 0)
				break;
			nx = re_edge_next(p, in, c);
			if (nx != UINT32_MAX && d->mark2[nx] != d->gen) {
				d->mark2[nx] = d->gen;
				d->kern[d->nkern++] = nx;
			}
			break;
		case OP_JMP:
			d->stack[sp++] = in->x;
			break;
		case OP_SPLIT:
			d->stack[sp++] = in->y;
			d->stack[sp++] = in->x;
			break;
		case OP_ASSERT:
			if (ctx & in->arg)
				d->stack[sp++] = in->x;
			break;
		}
	}
	return match;
}

/* The transition of state si on byte class k; 0 on out of memory, BAIL
 * if the byte is invalid UTF-8 and the program cares. */
static int32_t transition(struct dfa *d, const struct prog *p, uint32_t si,
			  int k)
{
	int c = d->rep[k], match, flushed = 0, bad = 0;
	unsigned f = d->st[si].flags, nf = 0, dec;
	uint32_t ti;
	int32_t t;

	dec = u8_next(DEC(f), c, &bad);
	if (bad && p->utf8ctx)
		return BAIL;
	match = step(d, p, si, c);
	qsort(d->kern, d->nkern, sizeof(*d->kern), cmp_u32);
	if (c == '\n')
		nf |= F_BOL;
	if (re_isword(c))
		nf |= F_WORD;
	nf |= dec * F_DEC;
	nf &= d->fmask;
	ti = find_state(d, nf, match, &flushed);
	if (!ti)
		return 0;
	t = (int32_t)(ti * d->stride);
	if (match)
		t = -t;
	else if (d->ls && !d->nkern)
		t += IDLE;
	if (!flushed)
		d->tab[(size_t)si * d->stride + k] = t;
	return t;
}

static uint32_t start_state(struct dfa *d, const unsigned char *s, size_t from)
{
	unsigned f = 0, dec = 0;
	int flushed = 0, bad;
	size_t k;

	if (from == 0)
		f |= F_BOL | F_BOT;
	else if (s[from - 1] == '\n')
		f |= F_BOL;
	if (from > 0 && re_isword(s[from - 1]))
		f |= F_WORD;
	for (k = from > 3 ? from - 3 : 0; k < from; k++)
		dec = u8_next(dec, s[k], &bad);
	f |= dec * F_DEC;
	f &= d->fmask;
	if (!d->start[f]) {
		d->nkern = 0;
		d->start[f] = find_state(d, f, 0, &flushed);
	}
	return d->start[f];
}

/* Where the first ls->runlen bytes in a row of ls->run in s[from..n)
 * start, or n. The window s[j - len..j) is tested from its end: a byte
 * outside the set moves it past that byte. Bytes from the window's start
 * to done are known to be in the set, and so is the last window found,
 * which ends at *known (from is past its start): that keeps the search
 * linear when the DFA idles at every byte of a long run ([bc]\w{999} on
 * aaa...). */
static size_t run_next(const struct litset *ls, const unsigned char *s,
		       size_t n, size_t from, size_t *known)
{
	size_t len = ls->runlen, j = from + len, k, stop, done = from;

	if (from < *known)
		done = *known;
	if (done >= j)
		return from;
	while (j <= n) {
		stop = j - len > done ? j - len : done;
		for (k = j; k > stop && ls->run[s[k - 1]]; k--)
			;
		if (k == stop) {
			*known = j;
			return j - len;
		}
		done = j;
		j = k + len;
	}
	return n;
}

int dfa_search(struct dfa *d, const struct prog *p, const unsigned char *s,
	       size_t n, size_t from, size_t end, size_t *me)
{
	const uint8_t *cls = p->bclass;
	const int32_t *tab;
	size_t i = from, j, cur, known = 0;
	int32_t t;
	uint32_t si;

	d->bad = 0;
	d->lastflush = d->pos = from;
restart:
	si = start_state(d, s, i);
	if (!si)
		return -1;
	cur = (size_t)si * d->stride;
	for (;;) {
		tab = d->tab;
		while (i + 4 <= end) {
			int32_t t1, t2, t3;

			t = tab[cur + cls[s[i]]];
			if (t <= 0)
				break;
			t1 = tab[(size_t)t + cls[s[i + 1]]];
			if (t1 <= 0) {
				cur = (size_t)t, i += 1;
				break;
			}
			t2 = tab[(size_t)t1 + cls[s[i + 2]]];
			if (t2 <= 0) {
				cur = (size_t)t1, i += 2;
				break;
			}
			t3 = tab[(size_t)t2 + cls[s[i + 3]]];
			if (t3 <= 0) {
				cur = (size_t)t2, i += 3;
				break;
			}
			cur = (size_t)t3;
			i += 4;
		}
		while (i < end) {
			t = tab[cur + cls[s[i]]];
			if (t <= 0)
				break;
			cur = (size_t)t;
			i++;
		}
		if (i >= end)
			break;
		if (t == 0) {
			d->pos = i;
			t = transition(d, p, (uint32_t)(cur / d->stride),
				       cls[s[i]]);
			if (t == BAIL) {
				*me = i;
				return -2;
			}
			if (!t || d->bad > 3)
				return -1;
		}
		if (MATCH(t)) {
			*me = i;
			return 1;
		}
		i++;
		if (t < 0) {
			/* no match under way: the next starts with a run */
			j = run_next(d->ls, s, end, i, &known);
			if (j >= end)
				return 0;
			t -= IDLE;
			if (j > i) {
				d->pos = i = j;
				/* there, ^ \b or UTF-8 may say another state */
				if (d->fmask)
					goto restart;
			}
		}
		cur = (size_t)t;
	}
	/* a match ending at end: look at the byte after it, or end of text */
	if (end < n) {
		t = d->tab[cur + cls[s[end]]];
		if (t == 0)
			t = transition(d, p, (uint32_t)(cur / d->stride),
				       cls[s[end]]);
		if (!t)
			return -1;
	} else if (p->utf8ctx && DEC(d->st[cur / d->stride].flags)) {
		t = BAIL; /* text ends inside a character */
	} else {
		t = step(d, p, (uint32_t)(cur / d->stride), -1) ? -1 : 1;
	}
	if (t == BAIL) {
		*me = end;
		return -2;
	}
	if (MATCH(t)) {
		*me = end;
		return 1;
	}
	return 0;
}
