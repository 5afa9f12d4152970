/* compile.c - AST to a byte-level program over UTF-8
 *
 * Compiled backwards: each node is compiled knowing the pc of what follows
 * it, so no patch lists are needed. Character classes become a trie of
 * byte-range switches; identical switch instructions are shared (suffix
 * sharing), which keeps \pL or (?i) classes small.
 */
#include <stdlib.h>
#include <string.h>
#include "re_int.h"

#define BAD UINT32_MAX

struct comp {
	struct prog *p;
	uint32_t capi, cape;
	int failed;
	uint32_t *hash; /* pc of BYTE instructions by content, 0 = empty */
	uint32_t hcap, hused;
};

struct tnode {
	struct tedge {
		uint8_t lo, hi;
		int child; /* -1: the sequence ends here */
	} * e;
	int n, cap;
};

struct trie {
	struct tnode *node;
	int n, cap;
	int oom;
};

static int grow(void **v, uint32_t *cap, uint32_t need, size_t size)
{
	uint32_t nc;
	void *q;

	if (need <= *cap)
		return 0;
	nc = *cap ? *cap * 2 : 64;
	while (nc < need)
		nc *= 2;
	q = realloc(*v, (size_t)nc * size);
	if (!q)
		return -1;
	*v = q;
	*cap = nc;
	return 0;
}

static int too_big(struct comp *c, uint32_t more)
{
	if (c->failed)
		return 1;
	if (c->p->ninst + c->p->nedge + more > RE_MAXPROG) {
		c->failed = 1;
		return 1;
	}
	return 0;
}

static uint32_t emit(struct comp *c, int op, unsigned arg, uint32_t x,
		     uint32_t y)
{
	struct prog *p = c->p;
	struct inst *in;

	if (too_big(c, 1))
		return BAD;
	if (grow((void **)&p->inst, &c->capi, p->ninst + 1, sizeof(*in))) {
		c->failed = 2;
		return BAD;
	}
	in = &p->inst[p->ninst];
	in->op = (uint8_t)op;
	in->arg = (uint8_t)arg;
	in->x = x;
	in->y = y;
	return p->ninst++;
}

static uint32_t hash_byte(const struct edge *e, uint32_t n)
{
	uint32_t h = 2166136261u, k;

	for (k = 0; k < n; k++) {
		h = (h ^ e[k].lo) * 16777619u;
		h = (h ^ e[k].hi) * 16777619u;
		h = (h ^ e[k].next) * 16777619u;
	}
	return h ^ n;
}

static int same_byte(const struct prog *p, uint32_t pc, const struct edge *e,
		     uint32_t n)
{
	const struct inst *in = &p->inst[pc];
	uint32_t k;

	if (in->op != OP_BYTE || in->y != n)
		return 0;
	for (k = 0; k < n; k++) {
		const struct edge *f = &p->edge[in->x + k];

		if (f->lo != e[k].lo || f->hi != e[k].hi ||
		    f->next != e[k].next)
			return 0;
	}
	return 1;
}

static int rehash(struct comp *c)
{
	uint32_t ncap = c->hcap ? c->hcap * 2 : 1024, i, h, pc;
	uint32_t *nh = calloc(ncap, sizeof(*nh));
	const struct prog *p = c->p;

	if (!nh)
		return -1;
	for (i = 0; i < c->hcap; i++) {
		if (!c->hash[i])
			continue;
		pc = c->hash[i] - 1;
		h = hash_byte(p->edge + p->inst[pc].x, p->inst[pc].y);
		while (nh[h & (ncap - 1)])
			h++;
		nh[h & (ncap - 1)] = pc + 1;
	}
	free(c->hash);
	c->hash = nh;
	c->hcap = ncap;
	return 0;
}

/* A switch over byte ranges; shared with an identical earlier one. */
static uint32_t emit_byte(struct comp *c, const struct edge *e, uint32_t n)
{
	struct prog *p = c->p;
	uint32_t h, pc, slot;

	if (!n)
		return emit(c, OP_FAIL, 0, 0, 0);
	if (too_big(c, n + 1))
		return BAD;
	if (c->hused * 2 >= c->hcap && rehash(c)) {
		c->failed = 2;
		return BAD;
	}
	h = hash_byte(e, n);
	for (slot = h;; slot++) {
		pc = c->hash[slot & (c->hcap - 1)];
		if (!pc)
			break;
		if (same_byte(p, pc - 1, e, n))
			return pc - 1;
	}
	if (grow((void **)&p->edge, &c->cape, p->nedge + n, sizeof(*e))) {
		c->failed = 2;
		return BAD;
	}
	memcpy(p->edge + p->nedge, e, n * sizeof(*e));
	pc = emit(c, OP_BYTE, 0, p->nedge, n);
	if (pc == BAD)
		return BAD;
	p->nedge += n;
	c->hash[slot & (c->hcap - 1)] = pc + 1;
	c->hused++;
	return pc;
}

static uint32_t emit_range(struct comp *c, int lo, int hi, uint32_t next)
{
	struct edge e = {(uint8_t)lo, (uint8_t)hi, next};

	return emit_byte(c, &e, 1);
}

/* ---- UTF-8 tries ---- */

static int trie_newnode(struct trie *t)
{
	struct tnode *nn;

	if (t->n == t->cap) {
		int cap = t->cap ? t->cap * 2 : 16;

		nn = realloc(t->node, (size_t)cap * sizeof(*nn));
		if (!nn) {
			t->oom = 1;
			return -1;
		}
		t->node = nn;
		t->cap = cap;
	}
	memset(&t->node[t->n], 0, sizeof(t->node[0]));
	return t->n++;
}

static int trie_addedge(struct trie *t, int ni, int lo, int hi, int child)
{
	struct tnode *nd = &t->node[ni];
	struct tedge *e;

	if (nd->n == nd->cap) {
		int cap = nd->cap ? nd->cap * 2 : 4;

		e = realloc(nd->e, (size_t)cap * sizeof(*e));
		if (!e) {
			t->oom = 1;
			return -1;
		}
		nd->e = e;
		nd->cap = cap;
	}
	e = &nd->e[nd->n++];
	e->lo = (uint8_t)lo;
	e->hi = (uint8_t)hi;
	e->child = child;
	return 0;
}

/* Sequences arrive in increasing order, so only the last edge of a node
 * can share a prefix with a new one. */
static void trie_insert(struct trie *t, const uint8_t (*seq)[2], int len)
{
	int ni = 0, d, child;

	for (d = 0; d < len && !t->oom; d++) {
		struct tnode *nd = &t->node[ni];
		struct tedge *last = nd->n ? &nd->e[nd->n - 1] : NULL;

		if (last && last->lo == seq[d][0] && last->hi == seq[d][1] &&
		    last->child >= 0 && d + 1 < len) {
			ni = last->child;
			continue;
		}
		child = d + 1 < len ? trie_newnode(t) : -1;
		if (d + 1 < len && child < 0)
			return;
		if (trie_addedge(t, ni, seq[d][0], seq[d][1], child))
			return;
		ni = child;
	}
}

/* Split [lo,hi] into ranges whose UTF-8 forms are byte-range products. */
static void utf8_range(struct trie *t, uint32_t lo, uint32_t hi)
{
	static const uint32_t maxv[3] = {0x7f, 0x7ff, 0xffff};
	uint8_t a[4], b[4], seq[4][2];
	uint32_t m;
	int i, n;

	if (lo > hi)
		return;
	if (lo <= 0xdfff && hi >= 0xd800) {
		if (lo < 0xd800)
			utf8_range(t, lo, 0xd7ff);
		if (hi > 0xdfff)
			utf8_range(t, 0xe000, hi);
		return;
	}
	for (i = 0; i < 3; i++) {
		if (lo <= maxv[i] && hi > maxv[i]) {
			utf8_range(t, lo, maxv[i]);
			utf8_range(t, maxv[i] + 1, hi);
			return;
		}
	}
	n = (int)utf8_encode((char *)a, lo);
	for (i = 1; i < n; i++) {
		m = (1u << (6 * i)) - 1;
		if ((lo & ~m) == (hi & ~m))
			continue;
		if (lo & m) {
			utf8_range(t, lo, lo | m);
			utf8_range(t, (lo | m) + 1, hi);
			return;
		}
		if ((hi & m) != m) {
			utf8_range(t, lo, (hi & ~m) - 1);
			utf8_range(t, hi & ~m, hi);
			return;
		}
	}
	utf8_encode((char *)b, hi);
	for (i = 0; i < n; i++) {
		seq[i][0] = a[i];
		seq[i][1] = b[i];
	}
	trie_insert(t, (const uint8_t(*)[2])seq, n);
}

static uint32_t trie_emit(struct comp *c, struct trie *t, int ni,
			  uint32_t next)
{
	struct tnode *nd = &t->node[ni];
	struct edge *e;
	uint32_t pc;
	int k;

	e = malloc((size_t)(nd->n ? nd->n : 1) * sizeof(*e));
	if (!e) {
		c->failed = 2;
		return BAD;
	}
	for (k = 0; k < nd->n; k++) {
		e[k].lo = nd->e[k].lo;
		e[k].hi = nd->e[k].hi;
		e[k].next = nd->e[k].child < 0 ? next
					       : trie_emit(c, t, nd->e[k].child, next);
		if (e[k].next == BAD) {
			free(e);
			return BAD;
		}
	}
	pc = emit_byte(c, e, (uint32_t)nd->n);
	free(e);
	return pc;
}

/* One byte of invalid UTF-8, which Go reads as U+FFFD: any byte from 80
 * to ff after which a character boundary follows (a lead byte whose
 * sequence is complete and valid is not followed by one). */
static uint32_t emit_invalid(struct comp *c, uint32_t next)
{
	uint32_t b = emit(c, OP_ASSERT, A_BOUND, next, 0);

	c->p->asserts |= A_BOUND;
	return c->failed ? BAD : emit_range(c, 0x80, 0xff, b);
}

static uint32_t comp_class(struct comp *c, const struct rclass *cls,
			   uint32_t next)
{
	struct trie t = {0};
	uint32_t pc = BAD;
	int i;

	if (!cls->n)
		return emit(c, OP_FAIL, 0, 0, 0);
	if (trie_newnode(&t) < 0) {
		c->failed = 2;
		return BAD;
	}
	for (i = 0; i < cls->n && !t.oom; i++)
		utf8_range(&t, cls->r[i][0], cls->r[i][1]);
	if (t.oom)
		c->failed = 2;
	else
		pc = trie_emit(c, &t, 0, next);
	for (i = 0; i < t.n; i++)
		free(t.node[i].e);
	free(t.node);
	if (pc != BAD && class_has(cls, 0xfffd))
		pc = emit(c, OP_SPLIT, 0, pc, emit_invalid(c, next));
	return c->failed ? BAD : pc;
}

static uint32_t comp_node(struct comp *c, const struct node *n,
			  uint32_t next);

static uint32_t comp_lit(struct comp *c, const struct node *n, uint32_t next)
{
	uint8_t b[4];
	int k;

	if (n->raw) {
		/* A byte from 80 may sit inside a character of the text,
		 * where no match starts: the DFA must track decoding to
		 * restart only where the Pike VM does (found by fuzzing). */
		if (n->rune >= 0x80)
			c->p->asserts |= A_BOUND;
		return emit_range(c, n->rune, n->rune, next);
	}
	if (n->fold) {
		struct rclass cls = {0};
		uint32_t r = (uint32_t)n->rune, x = r, pc;

		do {
			class_add(&cls, x, x);
			x = re_foldnext(x);
		} while (x != r && cls.n < 8);
		class_norm(&cls);
		pc = cls.oom ? BAD : comp_class(c, &cls, next);
		class_free(&cls);
		return pc;
	}
	k = (int)utf8_encode((char *)b, (unsigned)n->rune);
	while (k-- > 0 && next != BAD)
		next = emit_range(c, b[k], b[k], next);
	return next;
}

static uint32_t comp_rep(struct comp *c, const struct node *n, uint32_t next)
{
	const struct node *x = n->kid;
	uint32_t t = next, body, l;
	int i, copies = n->min;

	if (n->max < 0) {
		l = emit(c, OP_SPLIT, 0, 0, 0);
		if (l == BAD)
			return BAD;
		body = comp_node(c, x, l);
		if (body == BAD)
			return BAD;
		c->p->inst[l].x = n->greedy ? body : next;
		c->p->inst[l].y = n->greedy ? next : body;
		/* x+ is x then the loop: enter the body directly */
		t = copies > 0 ? body : l;
		if (copies > 0)
			copies--;
	} else {
		for (i = n->min; i < n->max && t != BAD; i++) {
			body = comp_node(c, x, t);
			t = n->greedy ? emit(c, OP_SPLIT, 0, body, next)
				      : emit(c, OP_SPLIT, 0, next, body);
		}
	}
	for (i = 0; i < copies && t != BAD; i++)
		t = comp_node(c, x, t);
	return t;
}

static uint32_t comp_list(struct comp *c, const struct node *n, uint32_t next,
			  int alt)
{
	const struct node *k, **v;
	uint32_t *starts, t = next;
	int cnt = 0, i;

	for (k = n->kid; k; k = k->next)
		cnt++;
	if (!cnt)
		return next;
	v = malloc((size_t)cnt * sizeof(*v));
	starts = malloc((size_t)cnt * sizeof(*starts));
	if (!v || !starts) {
		free(v);
		free(starts);
		c->failed = 2;
		return BAD;
	}
	for (i = 0, k = n->kid; k; k = k->next)
		v[i++] = k;
	if (!alt) {
		for (i = cnt - 1; i >= 0 && t != BAD; i--)
			t = comp_node(c, v[i], t);
	} else {
		for (i = 0; i < cnt && !c->failed; i++)
			starts[i] = comp_node(c, v[i], next);
		t = starts[cnt - 1];
		for (i = cnt - 2; i >= 0 && !c->failed; i--)
			t = emit(c, OP_SPLIT, 0, starts[i], t);
		if (c->failed)
			t = BAD;
	}
	free(v);
	free(starts);
	return t;
}

static uint32_t comp_node(struct comp *c, const struct node *n, uint32_t next)
{
	if (c->failed || next == BAD)
		return BAD;
	switch (n->type) {
	case N_EMPTY:
		return next;
	case N_LIT:
		return comp_lit(c, n, next);
	case N_CLASS:
		return comp_class(c, &n->cls, next);
	case N_CAT:
		return comp_list(c, n, next, 0);
	case N_ALT:
		return comp_list(c, n, next, 1);
	case N_REP:
		return comp_rep(c, n, next);
	case N_GROUP:
		return comp_node(c, n->kid, next);
	case N_ASSERT:
		c->p->asserts |= n->akind;
		return emit(c, OP_ASSERT, n->akind, next, 0);
	}
	return BAD;
}

static void mark(uint8_t *b, int lo, int hi)
{
	b[lo] = 1;
	if (hi + 1 < 256)
		b[hi + 1] = 1;
}

/* Bytes that no instruction tells apart share a DFA column. */
static void byte_classes(struct prog *p)
{
	uint8_t b[256] = {0};
	uint32_t i;
	int c, k = 0;

	for (i = 0; i < p->nedge; i++)
		mark(b, p->edge[i].lo, p->edge[i].hi);
	if (p->asserts & (A_BOL | A_EOL))
		mark(b, '\n', '\n');
	if (p->asserts & (A_WORDB | A_NWORDB)) {
		mark(b, '0', '9');
		mark(b, 'A', 'Z');
		mark(b, 'a', 'z');
		mark(b, '_', '_');
	}
	if (p->utf8ctx) { /* what the UTF-8 decoder of dfa.c tells apart */
		mark(b, 0x80, 0x8f);
		mark(b, 0x90, 0x9f);
		mark(b, 0xa0, 0xbf);
		mark(b, 0xc0, 0xc1);
		mark(b, 0xc2, 0xdf);
		mark(b, 0xe0, 0xe0);
		mark(b, 0xe1, 0xec);
		mark(b, 0xed, 0xed);
		mark(b, 0xee, 0xef);
		mark(b, 0xf0, 0xf0);
		mark(b, 0xf1, 0xf3);
		mark(b, 0xf4, 0xf4);
	}
	for (c = 0; c < 256; c++) {
		if (c && b[c])
			k++;
		p->bclass[c] = (uint8_t)k;
	}
	p->nbclass = k + 1;
}

int re_compile_prog(const struct ast *a, struct prog *p)
{
	struct comp c = {0};
	uint32_t m;

	memset(p, 0, sizeof(*p));
	c.p = p;
	m = emit(&c, OP_MATCH, 0, 0, 0);
	p->start = comp_node(&c, a->root, m);
	free(c.hash);
	if (c.failed || p->start == BAD) {
		int r = c.failed == 2 ? -2 : -1;

		re_prog_free(p);
		return r;
	}
	/* Only a byte of invalid UTF-8 (U+FFFD in a class) or \B can see
	 * character positions inside invalid sequences; for other programs
	 * the DFA may read invalid text loosely. */
	p->utf8ctx = (p->asserts & (A_BOUND | A_NWORDB)) != 0;
	byte_classes(p);
	return 0;
}

void re_prog_free(struct prog *p)
{
	free(p->inst);
	free(p->edge);
	memset(p, 0, sizeof(*p));
}

int re_prog_copy(struct prog *dst, const struct prog *src)
{
	*dst = *src;
	dst->inst = malloc((src->ninst ? src->ninst : 1) * sizeof(*src->inst));
	dst->edge = malloc((src->nedge ? src->nedge : 1) * sizeof(*src->edge));
	if (!dst->inst || !dst->edge) {
		free(dst->inst);
		free(dst->edge);
		memset(dst, 0, sizeof(*dst));
		return -1;
	}
	/* a program may have no edges ('^'): no memcpy from NULL */
	if (src->ninst)
		memcpy(dst->inst, src->inst, src->ninst * sizeof(*src->inst));
	if (src->nedge)
		memcpy(dst->edge, src->edge, src->nedge * sizeof(*src->edge));
	return 0;
}
