/* prefilter.c - required literals: extraction and a fast scan
 *
 * Every match of, say, [A-Z]+_SUSPEND contains "_SUSPEND": we look for
 * that string first and run an automaton only around what we find. A
 * literal is a byte string plus a per-byte mask: mask 0x20 makes an ASCII
 * letter match both cases, which covers (?i) for letters whose case
 * folding stays in ASCII (not k and s: K and ſ are multi-byte). The scan
 * tests the two rarest bytes of the literal at once, 16 positions at a
 * time with SSE2, then verifies the whole literal.
 */
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include "re_int.h"

/* Rough byte frequency rank in source code and prose: 255 most common. */
static const uint8_t byte_rank[256] = {
	  0,   1,   2,   3,   4,   5,   6,   7,   8, 191, 245,   9,  91,  10,  11,  12,
	 13,  14,  15,  16,  17,  18,  19,  20,  21,  22,  23,  24,  25,  26,  27,  28,
	255, 160, 218, 209, 159, 166, 168, 240, 232, 233, 227, 177, 241, 216, 214, 208,
	213, 207, 197, 187, 178, 194, 180, 172, 181, 193, 203, 196, 183, 198, 184, 171,
	163, 217, 195, 223, 206, 231, 202, 201, 186, 224, 164, 192, 222, 205, 228, 226,
	215, 165, 219, 236, 229, 199, 185, 173, 200, 182, 167, 189, 204, 188, 161, 252,
	162, 246, 220, 244, 242, 254, 238, 230, 234, 249, 170, 221, 243, 235, 250, 247,
	239, 176, 248, 251, 253, 237, 211, 210, 212, 225, 179, 175, 190, 174, 169,  29,
	 60,  60,  60,  60,  60,  60,  60,  60,  60,  60,  60,  60,  60,  60,  60,  60,
	 60,  60,  60,  60,  60,  60,  60,  60,  60,  60,  60,  60,  60,  60,  60,  60,
	 60,  60,  60,  60,  60,  60,  60,  60,  60,  60,  60,  60,  60,  60,  60,  60,
	 60,  60,  60,  60,  60,  60,  60,  60,  60,  60,  60,  60,  60,  60,  60,  60,
	 30,  31,  60,  60,  60,  60,  60,  32,  60,  33,  34,  35,  36,  37,  60,  60,
	 60,  60,  38,  39,  40,  41,  42,  60,  60,  60,  43,  44,  45,  46,  47,  48,
	 60,  60,  60,  60,  60,  60,  60,  60,  60,  60,  60,  60,  60,  60,  49,  60,
	 50,  51,  52,  53,  54,  55,  56,  57,  58,  59,  60,  60,  60,  60,  60,  60,
};

struct litbuf {
	uint8_t b[RE_MAXLIT], m[RE_MAXLIT];
	size_t len;
};

/* Append node n's bytes to l; -1 if n is not a plain literal. */
static int lit_bytes(const struct node *n, struct litbuf *l)
{
	uint8_t tmp[4];
	int32_t r = n->rune, lo;
	size_t k, w;

	if (n->type != N_LIT)
		return -1;
	if (n->raw) {
		tmp[0] = (uint8_t)r;
		w = 1;
	} else if (n->fold) {
		lo = r | 0x20;
		if (r >= 0x80 || lo < 'a' || lo > 'z' || lo == 'k' ||
		    lo == 's')
			return -1;
		if (l->len >= RE_MAXLIT)
			return 0;
		l->b[l->len] = (uint8_t)lo;
		l->m[l->len++] = 0x20;
		return 0;
	} else {
		w = (size_t)re_utf8_encode((uint32_t)r, tmp);
	}
	if (l->len + w > RE_MAXLIT)
		return 0;
	for (k = 0; k < w; k++) {
		l->b[l->len] = tmp[k];
		l->m[l->len++] = 0;
	}
	return 0;
}

static int score(const struct litbuf *l)
{
	size_t k;
	int s = 0;

	for (k = 0; k < l->len; k++)
		s += 256 - byte_rank[l->b[k]] / (l->m[k] ? 2 : 1);
	return s;
}

struct walk {
	struct litbuf cur, best;
	int pure; /* everything so far was literal */
};

static void keep(struct walk *w)
{
	if (w->cur.len && score(&w->cur) > score(&w->best))
		w->best = w->cur;
	w->cur.len = 0;
}

/* Walk the top-level sequence of the pattern collecting literal runs. */
static void walk(struct walk *w, const struct node *n)
{
	const struct node *k;

	switch (n->type) {
	case N_LIT:
		if (lit_bytes(n, &w->cur) < 0) {
			keep(w);
			w->pure = 0;
		}
		return;
	case N_CAT:
		for (k = n->kid; k; k = k->next)
			walk(w, k);
		return;
	case N_GROUP:
		walk(w, n->kid);
		return;
	case N_EMPTY:
		return;
	case N_REP:
		w->pure = 0;
		if (n->min >= 1)
			walk(w, n->kid);
		keep(w);
		return;
	default:
		w->pure = 0;
		keep(w);
	}
}

void pf_extract(const struct ast *a, struct lit *lit)
{
	struct walk w;
	size_t k;

	memset(lit, 0, sizeof(*lit));
	memset(&w, 0, sizeof(w));
	w.pure = 1;
	walk(&w, a->root);
	keep(&w);
	if (!w.best.len)
		return;
	/* a truncated literal is still required, but not the whole match */
	lit->pure = w.pure && w.best.len < RE_MAXLIT;
	lit->len = w.best.len;
	memcpy(lit->b, w.best.b, lit->len);
	memcpy(lit->m, w.best.m, lit->len);
	lit->i1 = lit->i2 = 0;
	for (k = 0; k < lit->len; k++) {
		int rk = byte_rank[lit->b[k]] + (lit->m[k] ? 8 : 0);

		if (rk < byte_rank[lit->b[lit->i1]] + (lit->m[lit->i1] ? 8 : 0))
			lit->i1 = k;
	}
	lit->i2 = lit->i1 ? 0 : (lit->len > 1 ? 1 : 0);
	for (k = 0; k < lit->len; k++) {
		int rk = byte_rank[lit->b[k]] + (lit->m[k] ? 8 : 0);

		if (k != lit->i1 &&
		    rk < byte_rank[lit->b[lit->i2]] + (lit->m[lit->i2] ? 8 : 0))
			lit->i2 = k;
	}
}

static int verify(const struct lit *l, const unsigned char *p)
{
	size_t k;

	for (k = 0; k < l->len; k++)
		if ((p[k] | l->m[k]) != l->b[k])
			return 0;
	return 1;
}

/* First occurrence of the literal in s[from..n), or n. */
size_t pf_find(const struct lit *l, const unsigned char *s, size_t n,
	       size_t from)
{
	size_t pos = from, last, i1 = l->i1, i2 = l->i2;
	uint8_t c1 = l->b[i1], m1 = l->m[i1], c2 = l->b[i2], m2 = l->m[i2];

	if (n < l->len || from > n - l->len)
		return n;
	last = n - l->len; /* last possible start */
#ifdef __SSE2__
	{
		size_t hi = i1 > i2 ? i1 : i2;
		__m128i v1 = _mm_set1_epi8((char)c1), k1 = _mm_set1_epi8((char)m1);
		__m128i v2 = _mm_set1_epi8((char)c2), k2 = _mm_set1_epi8((char)m2);

		while (pos + hi + 16 <= n) {
			__m128i a = _mm_loadu_si128((const void *)(s + pos + i1));
			__m128i b = _mm_loadu_si128((const void *)(s + pos + i2));
			unsigned bits;

			a = _mm_cmpeq_epi8(_mm_or_si128(a, k1), v1);
			b = _mm_cmpeq_epi8(_mm_or_si128(b, k2), v2);
			bits = (unsigned)_mm_movemask_epi8(_mm_and_si128(a, b));
			while (bits) {
				size_t c = pos + (size_t)__builtin_ctz(bits);

				if (c > last)
					return n;
				if (verify(l, s + c))
					return c;
				bits &= bits - 1;
			}
			pos += 16;
		}
	}
#endif
	if (!m1) {
		/* memchr on the rarest byte, then check */
		while (pos <= last) {
			const unsigned char *q = memchr(s + pos + i1, c1,
							last - pos + 1);

			if (!q)
				return n;
			pos = (size_t)(q - s) - i1;
			if ((s[pos + i2] | m2) == c2 && verify(l, s + pos))
				return pos;
			pos++;
		}
		return n;
	}
	for (; pos <= last; pos++)
		if ((s[pos + i1] | m1) == c1 && (s[pos + i2] | m2) == c2 &&
		    verify(l, s + pos))
			return pos;
	return n;
}
