/* class.c - sets of code points as sorted ranges, with case folding */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "re_int.h"

#define MAXRUNE 0x10ffffu

void class_add(struct rclass *c, uint32_t lo, uint32_t hi)
{
	uint32_t(*r)[2];
	int cap;

	if (c->oom)
		return;
	if (c->n == c->cap) {
		cap = c->cap ? c->cap * 2 : 8;
		r = realloc(c->r, (size_t)cap * sizeof(*r));
		if (!r) {
			c->oom = 1;
			return;
		}
		c->r = r;
		c->cap = cap;
	}
	c->r[c->n][0] = lo;
	c->r[c->n][1] = hi;
	c->n++;
}

static int cmp_range(const void *a, const void *b)
{
	const uint32_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

void class_norm(struct rclass *c)
{
	int i, k = 0;

	if (c->n < 2)
		return;
	qsort(c->r, (size_t)c->n, sizeof(*c->r), cmp_range);
	for (i = 1; i < c->n; i++) {
		if (c->r[i][0] <= c->r[k][1] + 1) {
			if (c->r[i][1] > c->r[k][1])
				c->r[k][1] = c->r[i][1];
		} else {
			k++;
			c->r[k][0] = c->r[i][0];
			c->r[k][1] = c->r[i][1];
		}
	}
	c->n = k + 1;
}

void class_negate(struct rclass *c)
{
	struct rclass t = {0};
	uint32_t next = 0;
	int i;

	class_norm(c);
	for (i = 0; i < c->n; i++) {
		if (c->r[i][0] > next)
			class_add(&t, next, c->r[i][0] - 1);
		next = c->r[i][1] + 1;
	}
	if (next <= MAXRUNE)
		class_add(&t, next, MAXRUNE);
	t.oom |= c->oom;
	class_free(c);
	*c = t;
}

void class_free(struct rclass *c)
{
	free(c->r);
	memset(c, 0, sizeof(*c));
}

int class_has(const struct rclass *c, uint32_t cp)
{
	int lo = 0, hi = c->n, m;

	while (lo < hi) {
		m = (lo + hi) / 2;
		if (cp < c->r[m][0])
			hi = m;
		else if (cp > c->r[m][1])
			lo = m + 1;
		else
			return 1;
	}
	return 0;
}

static struct re_foldrange *foldtab;
static pthread_once_t foldtab_once = PTHREAD_ONCE_INIT;

/* Runs of 8 bytes, little-endian: lo | span << 21 | stride2 << 29, delta. */
static void foldtab_load(void)
{
	unsigned char *z = malloc((size_t)re_nfold * 8);
	struct re_foldrange *t = malloc((size_t)re_nfold * sizeof(*t));
	uLongf n = (uLongf)re_nfold * 8;
	int i;

	if (z && t && uncompress(z, &n, re_foldtab_z, re_foldtab_zlen) == Z_OK &&
	    n == (uLongf)re_nfold * 8) {
		for (i = 0; i < re_nfold; i++) {
			const unsigned char *e = z + 8 * i;
			uint32_t a = e[0] | (uint32_t)e[1] << 8 | (uint32_t)e[2] << 16 |
				     (uint32_t)e[3] << 24;
			t[i].lo = a & 0x1fffff;
			t[i].span = (a >> 21) & 0xff;
			t[i].stride2 = (a >> 29) & 1;
			t[i].delta = (int32_t)(e[4] | (uint32_t)e[5] << 8 | (uint32_t)e[6] << 16 |
					       (uint32_t)e[7] << 24);
		}
		foldtab = t;
		t = NULL;
	}
	free(z);
	free(t);
}

const struct re_foldrange *re_foldtab(void)
{
	pthread_once(&foldtab_once, foldtab_load);
	return foldtab;
}

/* The next member of c's simple case folding orbit (c itself if none,
 * or without the table). */
uint32_t re_foldnext(uint32_t c)
{
	const struct re_foldrange *t = re_foldtab();
	int i;

	for (i = 0; t && i < re_nfold; i++) {
		const struct re_foldrange *f = &t[i];

		if (c >= f->lo && c <= FOLD_HI(f) && (c - f->lo) % FOLD_STRIDE(f) == 0)
			return (uint32_t)((int32_t)c + f->delta);
	}
	return c;
}

/* Add the image of c's ranges under one step of the fold map to out. */
static void fold_step(const struct rclass *c, struct rclass *out)
{
	const struct re_foldrange *t = re_foldtab();
	int i, k;
	uint32_t lo, hi, x;

	if (!t)
		out->oom = 1;
	for (i = 0; t && i < c->n; i++) {
		for (k = 0; k < re_nfold; k++) {
			const struct re_foldrange *f = &t[k];

			lo = c->r[i][0] > f->lo ? c->r[i][0] : f->lo;
			hi = c->r[i][1] < FOLD_HI(f) ? c->r[i][1] : FOLD_HI(f);
			if (lo > hi)
				continue;
			if (FOLD_STRIDE(f) == 1) {
				class_add(out, lo + (uint32_t)f->delta,
					  hi + (uint32_t)f->delta);
				continue;
			}
			x = lo + (FOLD_STRIDE(f) - (lo - f->lo) % FOLD_STRIDE(f)) % FOLD_STRIDE(f);
			for (; x <= hi; x += FOLD_STRIDE(f))
				class_add(out, x + (uint32_t)f->delta,
					  x + (uint32_t)f->delta);
		}
	}
}

/* Close c under simple case folding: orbits have at most 4 members. */
void class_fold(struct rclass *c)
{
	struct rclass add = {0};
	int round, i;

	class_norm(c);
	for (round = 0; round < 3; round++) {
		add.n = 0;
		fold_step(c, &add);
		for (i = 0; i < add.n; i++)
			class_add(c, add.r[i][0], add.r[i][1]);
		c->oom |= add.oom;
		class_norm(c);
	}
	class_free(&add);
}
