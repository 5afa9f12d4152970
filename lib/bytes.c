/* bytes.c - byte scans for the search loop (find and count one byte),
 * and bytes_write_all.
 *
 * musl's memchr is a portable word-at-a-time loop; grep calls these on
 * every block, so they use SSE2 where the target has it (every x86_64),
 * NEON on aarch64 and a word-at-a-time loop elsewhere.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include "bytes.h"
#ifdef __SSE2__
#include <emmintrin.h>
#elif defined(__aarch64__) && defined(__ARM_NEON)
#define BYTES_NEON 1
#include <arm_neon.h>
#endif

#define ONES ((uint64_t)0x0101010101010101ull)
#define HIGHS ((uint64_t)0x8080808080808080ull)

#if !defined(__SSE2__) && !defined(BYTES_NEON)
/* High bit set in each byte of w that equals zero (exact, no carries). */
static inline uint64_t zero_bytes(uint64_t w)
{
	return ~(((w & ~HIGHS) + ~HIGHS) | w | ~HIGHS);
}
#endif

const char *bytes_find(const char *p, size_t n, char c)
{
	size_t i = 0;
#ifdef __SSE2__
	__m128i needle = _mm_set1_epi8(c);

	/* 64 bytes a step while c is absent (the usual case: a NUL, a CR),
	 * then 16 at a time to where it is */
	for (; i + 64 <= n; i += 64) {
		const __m128i *q = (const __m128i *)(p + i);
		__m128i a = _mm_or_si128(_mm_cmpeq_epi8(_mm_loadu_si128(q), needle),
					 _mm_cmpeq_epi8(_mm_loadu_si128(q + 1), needle));
		__m128i b = _mm_or_si128(_mm_cmpeq_epi8(_mm_loadu_si128(q + 2), needle),
					 _mm_cmpeq_epi8(_mm_loadu_si128(q + 3), needle));
		if (_mm_movemask_epi8(_mm_or_si128(a, b)))
			break;
	}
	for (; i + 16 <= n; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(p + i));
		int m = _mm_movemask_epi8(_mm_cmpeq_epi8(v, needle));
		if (m)
			return p + i + __builtin_ctz((unsigned)m);
	}
#elif defined(BYTES_NEON)
	uint8x16_t needle = vdupq_n_u8((uint8_t)c);

	for (; i + 16 <= n; i += 16) {
		uint8x16_t v = vld1q_u8((const uint8_t *)p + i);
		uint8x16_t eq = vceqq_u8(v, needle);
		/* 4 bits per lane: the narrowing shift keeps the middle byte
		 * of each 16-bit pair, half of each 0xff/0x00 lane */
		uint64_t m = vget_lane_u64(vreinterpret_u64_u8(
						   vshrn_n_u16(vreinterpretq_u16_u8(eq), 4)),
					   0);
		if (m)
			return p + i + (__builtin_ctzll(m) >> 2);
	}
#else
	uint64_t pat = ONES * (unsigned char)c;

	for (; i + 8 <= n; i += 8) {
		uint64_t w, z;
		memcpy(&w, p + i, 8);
		z = zero_bytes(w ^ pat);
		/* the first byte in memory is the low one on little-endian
		 * machines, the high one on big-endian (s390x) */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		if (z)
			return p + i + (__builtin_clzll(z) >> 3);
#else
		if (z)
			return p + i + (__builtin_ctzll(z) >> 3);
#endif
	}
#endif
	for (; i < n; i++)
		if (p[i] == c)
			return p + i;
	return NULL;
}

size_t bytes_count(const char *p, size_t n, char c)
{
	size_t i = 0, count = 0;
#ifdef __SSE2__
	/* Per-lane counters (cmpeq gives -1 per hit) summed with psadbw
	 * before any lane can wrap. */
	__m128i needle = _mm_set1_epi8(c), zero = _mm_setzero_si128();

	while (i + 16 <= n) {
		__m128i acc = zero, sums;
		size_t k;

		for (k = 0; k < 255 && i + 16 <= n; k++, i += 16) {
			__m128i v = _mm_loadu_si128((const __m128i *)(p + i));
			acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(v, needle));
		}
		sums = _mm_sad_epu8(acc, zero);
		count += (size_t)_mm_cvtsi128_si32(sums) +
			 (size_t)_mm_extract_epi16(sums, 4);
	}
#elif defined(BYTES_NEON)
	/* The same per-lane counters (0xff is -1), summed across lanes
	 * (at most 255 * 16, a u16) before any can wrap. */
	uint8x16_t needle = vdupq_n_u8((uint8_t)c);

	while (i + 16 <= n) {
		uint8x16_t acc = vdupq_n_u8(0);
		size_t k;

		for (k = 0; k < 255 && i + 16 <= n; k++, i += 16) {
			uint8x16_t v = vld1q_u8((const uint8_t *)p + i);
			acc = vsubq_u8(acc, vceqq_u8(v, needle));
		}
		count += vaddlvq_u8(acc);
	}
#else
	uint64_t pat = ONES * (unsigned char)c;

	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, p + i, 8);
		/* one bit per matching byte, gathered into the top byte */
		count += (size_t)(((zero_bytes(w ^ pat) >> 7) * ONES) >> 56);
	}
#endif
	for (; i < n; i++)
		count += p[i] == c;
	return count;
}

int bytes_write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t w = write(fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (!w)
				errno = EIO;
			return -1;
		}
		c += w;
		n -= (size_t)w;
	}
	return 0;
}
