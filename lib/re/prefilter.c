/* prefilter.c - required literals: extraction and a fast scan
 *
 * Every match of, say, [A-Z]+_SUSPEND contains "_SUSPEND": we look for
 * that string first and run an automaton only around what we find. A
 * literal is a byte string plus a per-byte mask: mask 0x20 makes an ASCII
 * letter match both cases, which covers (?i) for letters whose case
 * folding stays in ASCII (not k and s: K and ſ are multi-byte). The scan
 * tests the two rarest bytes of the literal at once, 16 positions at a
 * time with SSE2 or NEON, then verifies the whole literal.
 *
 * An alternation like kmalloc|kfree|spin_lock gives a set of literals,
 * one per branch, and every match contains one of them. The set is
 * scanned with Teddy: each literal gets one of 8 buckets, and tables say
 * which buckets allow each byte at offsets 0, 1 and 2; pshufb looks them
 * up by nibble for 16 (AVX2: 32) places at once (NEON: tbl, 16 places),
 * and places where a bucket survives all three offsets are verified.
 * Without SSSE3 or NEON, the same tables are read a byte at a time.
 */
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <cpuid.h>
#include <immintrin.h>
#elif defined(__aarch64__) && defined(__ARM_NEON)
#define PF_NEON 1
#include <arm_neon.h>
#endif
#include "re_int.h"

/* Rough byte frequency rank in source code and prose: 255 most common. */
/* clang-format off */
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
/* clang-format on */

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
		w = utf8_encode((char *)tmp, (unsigned)r);
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
		/* a raw byte from 80 matches only as invalid UTF-8, not
		 * inside a character: required, but not the whole match
		 * (found by fuzzing: -F with a lone continuation byte) */
		if (n->raw && n->rune >= 0x80)
			w->pure = 0;
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

/* The best literal of n's top-level sequence (len 0: none); *pure is
 * cleared unless n is exactly that literal. */
static void best_lit(const struct node *n, struct litbuf *out, int *pure)
{
	struct walk w;

	memset(&w, 0, sizeof(w));
	w.pure = 1;
	walk(&w, n);
	keep(&w);
	*out = w.best;
	/* a truncated literal is still required, but not the whole match */
	if (!w.pure || w.best.len >= RE_MAXLIT)
		*pure = 0;
}

static int add_lit(struct litset *ls, const struct litbuf *b)
{
	struct lit *l;
	size_t k;

	if (ls->n == RE_MAXSET)
		return -1;
	l = &ls->l[ls->n++];
	l->len = b->len;
	memcpy(l->b, b->b, b->len);
	memcpy(l->m, b->m, b->len);
	l->i1 = 0;
	for (k = 0; k < l->len; k++) {
		int rk = byte_rank[l->b[k]] + (l->m[k] ? 8 : 0);

		if (rk < byte_rank[l->b[l->i1]] + (l->m[l->i1] ? 8 : 0))
			l->i1 = k;
	}
	l->i2 = l->i1 ? 0 : (l->len > 1 ? 1 : 0);
	for (k = 0; k < l->len; k++) {
		int rk = byte_rank[l->b[k]] + (l->m[k] ? 8 : 0);

		if (k != l->i1 &&
		    rk < byte_rank[l->b[l->i2]] + (l->m[l->i2] ? 8 : 0))
			l->i2 = k;
	}
	return 0;
}

/* One literal of at least 2 bytes per branch of an alternation in n (in
 * groups, or one item of a sequence); -1 if some branch has none. */
static int set_of(const struct node *n, struct litset *ls, int *pure)
{
	const struct node *k;
	struct litbuf b;
	int n0 = ls->n;

	switch (n->type) {
	case N_GROUP:
		return set_of(n->kid, ls, pure);
	case N_CAT:
		*pure = 0;
		for (k = n->kid; k; k = k->next)
			if (!set_of(k, ls, pure))
				return 0;
		return -1;
	case N_ALT:
		for (k = n->kid; k; k = k->next) {
			best_lit(k, &b, pure);
			if (b.len < 2 ? set_of(k, ls, pure) : add_lit(ls, &b)) {
				ls->n = n0;
				return -1;
			}
		}
		return 0;
	}
	return -1;
}

/* Runs: \w{20}\d has no literal, but every match starts with 21 bytes
 * of \w. Text of short words has few such runs, and the DFA's scan for
 * them (dfa.c), testing every 21st byte first, skips most of it. A
 * literal must be ASCII; a class may hold other characters, which take
 * 1 to 4 bytes, all of 80-ff. */
#define RUN_MIN 4 /* shorter runs are everywhere */

/* Add n to the run at the start of the pattern: classes, ASCII literals
 * and repeats of them (assertions take no room); -1 where it stops. */
static int run_walk(const struct node *n, struct litset *ls)
{
	const struct rclass *c = &n->cls;
	const struct node *k;
	size_t len = ls->runlen;
	uint32_t lo, hi;
	int j;

	switch (n->type) {
	case N_CAT:
		for (k = n->kid; k; k = k->next)
			if (run_walk(k, ls))
				return -1;
		return 0;
	case N_GROUP:
		return run_walk(n->kid, ls);
	case N_EMPTY:
	case N_ASSERT:
		return 0;
	case N_REP:
		if (n->min < 1 || run_walk(n->kid, ls))
			return -1;
		ls->runlen = len + (ls->runlen - len) * (size_t)n->min;
		return 0;
	case N_LIT:
		if (n->rune >= 0x80 || n->fold)
			return -1;
		ls->run[n->rune] = 1;
		break;
	case N_CLASS:
		/* the bytes of any other character (or invalid byte) are
		 * 80-ff: (?i)\w holds K (U+212A) */
		for (j = 0; j < c->n; j++) {
			lo = c->r[j][0] < 0x80 ? c->r[j][0] : 0x80;
			hi = c->r[j][1] < 0x80 ? c->r[j][1] : 0xff;
			memset(ls->run + lo, 1, hi - lo + 1);
		}
		break;
	default:
		return -1;
	}
	ls->runlen++;
	return 0;
}

#ifdef __SSE2__
/* 1 with SSSE3, 2 with AVX2 too. cpuid directly: __builtin_cpu_supports
 * costs 4 KB of libgcc in a static binary. */
static int simd_level(void)
{
	unsigned eax, ebx = 0, ecx = 0, edx, level;

	__get_cpuid(1, &eax, &ebx, &ecx, &edx);
	level = !!(ecx & bit_SSSE3);
	/* AVX2 also needs the OS to save ymm registers (XCR0) */
	if ((ecx & bit_OSXSAVE) && __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) &&
	    (ebx & bit_AVX2)) {
		__asm__("xgetbv"
			: "=a"(eax), "=d"(edx)
			: "c"(0));
		level += (eax & 6) == 6;
	}
	return (int)level;
}
#endif

void prefilter_extract(const struct ast *a, struct litset *ls)
{
	struct litbuf b;
	int pure = 1, setpure = 1, j, k, x;

	memset(ls, 0, sizeof(*ls));
	best_lit(a->root, &b, &pure);
	if (b.len < 3 && !set_of(a->root, ls, &setpure)) {
		ls->pure = setpure;
	} else if (b.len) {
		add_lit(ls, &b);
		ls->pure = pure;
	}
	/* Runs of a larger set are more common: \w (63 bytes) gains from 11
	 * on, [a-z] from 5. With ' ' or '\n' they are everywhere. */
	run_walk(a->root, ls);
	for (x = k = 0; x < 128; x++)
		k += ls->run[x];
	if (ls->runlen < RUN_MIN || ls->runlen * 6 < (size_t)k ||
	    ls->run[' '] || ls->run['\n'])
		ls->runlen = 0;
	/* fingerprints; past a literal's end any byte will do */
	for (k = 0; k < ls->n; k++)
		for (j = 0; j < 3; j++)
			for (x = 0; x < 256; x++)
				if ((size_t)j >= ls->l[k].len ||
				    (x | ls->l[k].m[j]) == ls->l[k].b[j])
					ls->fp[j][x] |= (uint8_t)(1 << (k & 7));
	for (j = 0; j < 3; j++)
		for (x = 0; x < 256; x++) {
			ls->nib[j][0][x & 15] |= ls->fp[j][x];
			ls->nib[j][1][x >> 4] |= ls->fp[j][x];
		}
#ifdef __SSE2__
	ls->simd = simd_level();
#endif
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
static size_t lit_find(const struct lit *l, const unsigned char *s, size_t n,
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
#elif defined(PF_NEON)
	{
		size_t hi = i1 > i2 ? i1 : i2;
		uint8x16_t v1 = vdupq_n_u8(c1), k1 = vdupq_n_u8(m1);
		uint8x16_t v2 = vdupq_n_u8(c2), k2 = vdupq_n_u8(m2);

		while (pos + hi + 16 <= n) {
			uint8x16_t a = vld1q_u8(s + pos + i1);
			uint8x16_t b = vld1q_u8(s + pos + i2);
			uint64_t bits;

			a = vceqq_u8(vorrq_u8(a, k1), v1);
			b = vceqq_u8(vorrq_u8(b, k2), v2);
			/* 4 bits per place, one kept: place = ctz / 4 */
			bits = vget_lane_u64(vreinterpret_u64_u8(vshrn_n_u16(
						     vreinterpretq_u16_u8(vandq_u8(a, b)), 4)),
					     0);
			bits &= 0x1111111111111111ull;
			while (bits) {
				size_t c = pos +
					   (size_t)(__builtin_ctzll(bits) >> 2);

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

/* The first literal in the buckets bits that occurs at s[c..n), or -1. */
static int set_at(const struct litset *ls, unsigned bits,
		  const unsigned char *s, size_t n, size_t c)
{
	int k;

	for (k = 0; k < ls->n; k++)
		if ((bits >> (k & 7) & 1) && ls->l[k].len <= n - c &&
		    verify(&ls->l[k], s + c))
			return k;
	return -1;
}

#if defined(__SSE2__) || defined(PF_NEON)
/* Verify the places in bits of s[p..), hit[i] the buckets of place p + i. */
static int candidates(const struct litset *ls, const unsigned char *s,
		      size_t n, size_t p, uint32_t bits, const uint8_t *hit,
		      size_t *pos, int *lit)
{
	unsigned i;

	for (; bits; bits &= bits - 1) {
		i = (unsigned)__builtin_ctz(bits);
		*lit = set_at(ls, hit[i], s, n, p + i);
		if (*lit >= 0) {
			*pos = p + i;
			return 1;
		}
	}
	return 0;
}
#endif

#ifdef __SSE2__
#define SSSE3 __attribute__((target("ssse3")))
#define AVX2 __attribute__((target("avx2")))
#define NIB(j, k) _mm_loadu_si128((const void *)ls->nib[j][k])

/* Bucket bits allowed by both nibbles of each byte of v. */
SSSE3 static inline __m128i nibbles(__m128i v, __m128i lo, __m128i hi)
{
	const __m128i low = _mm_set1_epi8(15);

	lo = _mm_shuffle_epi8(lo, _mm_and_si128(v, low));
	hi = _mm_shuffle_epi8(hi, _mm_and_si128(_mm_srli_epi16(v, 4), low));
	return _mm_and_si128(lo, hi);
}

/* Teddy: for 16 places at once, AND the bucket bits allowed by the bytes
 * at offsets 0, 1 and 2, looked up by nibble with pshufb; places left
 * with a bit are verified. 1 and *pos on a find, else 0 and *pos where
 * there are fewer than 18 bytes left. */
SSSE3 static int teddy(const struct litset *ls, const unsigned char *s,
		       size_t n, size_t *pos, int *lit)
{
	const __m128i lo0 = NIB(0, 0), hi0 = NIB(0, 1), lo1 = NIB(1, 0),
		      hi1 = NIB(1, 1), lo2 = NIB(2, 0), hi2 = NIB(2, 1);
	__m128i acc;
	uint8_t hit[16];
	uint32_t bits;
	size_t p;

	for (p = *pos; p + 18 <= n; p += 16) {
		const void *q = s + p;

		acc = nibbles(_mm_loadu_si128(q), lo0, hi0);
		acc = _mm_and_si128(acc, nibbles(_mm_loadu_si128(q + 1),
						 lo1, hi1));
		acc = _mm_and_si128(acc, nibbles(_mm_loadu_si128(q + 2),
						 lo2, hi2));
		bits = (uint32_t)_mm_movemask_epi8(
			       _mm_cmpeq_epi8(acc, _mm_setzero_si128())) ^
		       0xffff;
		if (!bits)
			continue;
		_mm_storeu_si128((void *)hit, acc);
		if (candidates(ls, s, n, p, bits, hit, pos, lit))
			return 1;
	}
	*pos = p;
	return 0;
}

/* The same, 32 places at once: pshufb works in each 16-byte half. */
AVX2 static inline __m256i nibbles2(__m256i v, __m256i lo, __m256i hi)
{
	const __m256i low = _mm256_set1_epi8(15);

	lo = _mm256_shuffle_epi8(lo, _mm256_and_si256(v, low));
	hi = _mm256_shuffle_epi8(hi, _mm256_and_si256(
					     _mm256_srli_epi16(v, 4), low));
	return _mm256_and_si256(lo, hi);
}

AVX2 static int teddy2(const struct litset *ls, const unsigned char *s,
		       size_t n, size_t *pos, int *lit)
{
#define NIB2(j, k) _mm256_broadcastsi128_si256(NIB(j, k))
	const __m256i lo0 = NIB2(0, 0), hi0 = NIB2(0, 1), lo1 = NIB2(1, 0),
		      hi1 = NIB2(1, 1), lo2 = NIB2(2, 0), hi2 = NIB2(2, 1);
	__m256i acc;
	uint8_t hit[32];
	uint32_t bits;
	size_t p;

	for (p = *pos; p + 34 <= n; p += 32) {
		const void *q = s + p;

		acc = nibbles2(_mm256_loadu_si256(q), lo0, hi0);
		acc = _mm256_and_si256(acc, nibbles2(_mm256_loadu_si256(q + 1),
						     lo1, hi1));
		acc = _mm256_and_si256(acc, nibbles2(_mm256_loadu_si256(q + 2),
						     lo2, hi2));
		bits = ~(uint32_t)_mm256_movemask_epi8(
			_mm256_cmpeq_epi8(acc, _mm256_setzero_si256()));
		if (!bits)
			continue;
		_mm256_storeu_si256((void *)hit, acc);
		if (candidates(ls, s, n, p, bits, hit, pos, lit))
			return 1;
	}
	*pos = p;
	return 0;
}
#elif defined(PF_NEON)
/* Bucket bits allowed by both nibbles of each byte of v (tbl: pshufb). */
static inline uint8x16_t nibbles(uint8x16_t v, uint8x16_t lo, uint8x16_t hi)
{
	return vandq_u8(vqtbl1q_u8(lo, vandq_u8(v, vdupq_n_u8(15))),
			vqtbl1q_u8(hi, vshrq_n_u8(v, 4)));
}

/* Teddy as with SSSE3 above: 16 places a step, 1 and *pos on a find,
 * else 0 and *pos where there are fewer than 18 bytes left. */
static int teddy(const struct litset *ls, const unsigned char *s, size_t n,
		 size_t *pos, int *lit)
{
	static const uint8_t lane_bit[16] = {1, 2, 4, 8, 16, 32, 64, 128,
					     1, 2, 4, 8, 16, 32, 64, 128};
#define NIB(j, k) vld1q_u8(ls->nib[j][k])
	const uint8x16_t lo0 = NIB(0, 0), hi0 = NIB(0, 1), lo1 = NIB(1, 0),
			 hi1 = NIB(1, 1), lo2 = NIB(2, 0), hi2 = NIB(2, 1),
			 lanes = vld1q_u8(lane_bit);
#undef NIB
	uint8x16_t acc, t;
	uint8_t hit[16];
	uint32_t bits;
	size_t p;

	for (p = *pos; p + 18 <= n; p += 16) {
		const uint8_t *q = s + p;

		acc = nibbles(vld1q_u8(q), lo0, hi0);
		acc = vandq_u8(acc, nibbles(vld1q_u8(q + 1), lo1, hi1));
		acc = vandq_u8(acc, nibbles(vld1q_u8(q + 2), lo2, hi2));
		if (!vmaxvq_u8(acc))
			continue;
		/* one bit per place with a bucket left */
		t = vandq_u8(vtstq_u8(acc, acc), lanes);
		bits = (uint32_t)vaddv_u8(vget_low_u8(t)) |
		       (uint32_t)vaddv_u8(vget_high_u8(t)) << 8;
		vst1q_u8(hit, acc);
		if (candidates(ls, s, n, p, bits, hit, pos, lit))
			return 1;
	}
	*pos = p;
	return 0;
}
#endif

/* First place in s[from..n) where a literal occurs, or n. */
size_t prefilter_find(const struct litset *ls, const unsigned char *s, size_t n,
		      size_t from, size_t *len)
{
	size_t c = from;
	unsigned bits;
	int k = -1;

	*len = ls->l[0].len;
	if (ls->n == 1)
		return lit_find(&ls->l[0], s, n, from);
#ifdef __SSE2__
	if ((ls->simd > 1 && teddy2(ls, s, n, &c, &k)) ||
	    (ls->simd && teddy(ls, s, n, &c, &k))) {
		*len = ls->l[k].len;
		return c;
	}
#elif defined(PF_NEON)
	if (teddy(ls, s, n, &c, &k)) {
		*len = ls->l[k].len;
		return c;
	}
#endif
	for (; c + 1 < n; c++) {
		bits = ls->fp[0][s[c]];
		if (!bits)
			continue;
		bits &= ls->fp[1][s[c + 1]];
		if (c + 2 < n)
			bits &= ls->fp[2][s[c + 2]];
		if (bits && (k = set_at(ls, bits, s, n, c)) >= 0) {
			*len = ls->l[k].len;
			return c;
		}
	}
	return n;
}
