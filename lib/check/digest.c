/* digest.c - MD5 (RFC 1321) and SHA-512 (FIPS 180-4) for file checks
 *
 * Whole buffers only: a gossfile's file is read once, then hashed. Kept
 * small rather than fast; SHA-256 is lib/sha256.c's.
 */
#include <stdint.h>
#include <string.h>
#include "check_int.h"
#include "sha256.h"

static void hex(const unsigned char *d, size_t n, char *out)
{
	static const char h[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = h[d[i] >> 4];
		out[2 * i + 1] = h[d[i] & 15];
	}
	out[2 * n] = 0;
}

static uint32_t rol(uint32_t x, int c)
{
	return x << c | x >> (32 - c);
}

/* clang-format off */
static const uint8_t md5_s[16] = {7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21};
/* clang-format on */

static void md5_block(uint32_t h[4], const unsigned char *p)
{
	uint32_t m[16], a = h[0], b = h[1], c = h[2], d = h[3];
	int i;

	for (i = 0; i < 16; i++)
		m[i] = (uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 |
		       (uint32_t)p[4 * i + 2] << 16 | (uint32_t)p[4 * i + 3] << 24;
	for (i = 0; i < 64; i++) {
		uint32_t f, k;
		int g, r = i >> 4;

		/* K[i] = floor(abs(sin(i + 1)) * 2^32), written out: no libm */
		static const uint32_t K[64] = {
			0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a,
			0xa8304613, 0xfd469501, 0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be,
			0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821, 0xf61e2562, 0xc040b340,
			0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
			0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8,
			0x676f02d9, 0x8d2a4c8a, 0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c,
			0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70, 0x289b7ec6, 0xeaa127fa,
			0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
			0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92,
			0xffeff47d, 0x85845dd1, 0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1,
			0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391};

		if (r == 0) {
			f = (b & c) | (~b & d);
			g = i;
		} else if (r == 1) {
			f = (d & b) | (~d & c);
			g = (5 * i + 1) & 15;
		} else if (r == 2) {
			f = b ^ c ^ d;
			g = (3 * i + 5) & 15;
		} else {
			f = c ^ (b | ~d);
			g = (7 * i) & 15;
		}
		k = K[i];
		f += a + k + m[g];
		a = d;
		d = c;
		c = b;
		b += rol(f, md5_s[r * 4 + (i & 3)]);
	}
	h[0] += a;
	h[1] += b;
	h[2] += c;
	h[3] += d;
}

void check_md5_hex(const void *data, size_t n, char *out)
{
	uint32_t h[4] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};
	const unsigned char *p = data;
	unsigned char tail[128] = {0}, d[16];
	size_t i, rest = n & 63, tl = rest < 56 ? 64 : 128;
	uint64_t bits = (uint64_t)n * 8;

	for (i = 0; i + 64 <= n; i += 64)
		md5_block(h, p + i);
	memcpy(tail, p + i, rest);
	tail[rest] = 0x80;
	for (i = 0; i < 8; i++)
		tail[tl - 8 + i] = (unsigned char)(bits >> (8 * i));
	for (i = 0; i < tl; i += 64)
		md5_block(h, tail + i);
	for (i = 0; i < 16; i++)
		d[i] = (unsigned char)(h[i / 4] >> (8 * (i % 4)));
	hex(d, 16, out);
}

void check_sha256_hex(const void *data, size_t n, char *out)
{
	struct sha256 s;
	unsigned char d[32];

	sha256_init(&s);
	sha256_add(&s, data, n);
	sha256_end(&s, d);
	hex(d, 32, out);
}

static uint64_t ror(uint64_t x, int c)
{
	return x >> c | x << (64 - c);
}

/* clang-format off */
static const uint64_t K512[80] = {
	0x428a2f98d728ae22, 0x7137449123ef65cd, 0xb5c0fbcfec4d3b2f, 0xe9b5dba58189dbbc,
	0x3956c25bf348b538, 0x59f111f1b605d019, 0x923f82a4af194f9b, 0xab1c5ed5da6d8118,
	0xd807aa98a3030242, 0x12835b0145706fbe, 0x243185be4ee4b28c, 0x550c7dc3d5ffb4e2,
	0x72be5d74f27b896f, 0x80deb1fe3b1696b1, 0x9bdc06a725c71235, 0xc19bf174cf692694,
	0xe49b69c19ef14ad2, 0xefbe4786384f25e3, 0x0fc19dc68b8cd5b5, 0x240ca1cc77ac9c65,
	0x2de92c6f592b0275, 0x4a7484aa6ea6e483, 0x5cb0a9dcbd41fbd4, 0x76f988da831153b5,
	0x983e5152ee66dfab, 0xa831c66d2db43210, 0xb00327c898fb213f, 0xbf597fc7beef0ee4,
	0xc6e00bf33da88fc2, 0xd5a79147930aa725, 0x06ca6351e003826f, 0x142929670a0e6e70,
	0x27b70a8546d22ffc, 0x2e1b21385c26c926, 0x4d2c6dfc5ac42aed, 0x53380d139d95b3df,
	0x650a73548baf63de, 0x766a0abb3c77b2a8, 0x81c2c92e47edaee6, 0x92722c851482353b,
	0xa2bfe8a14cf10364, 0xa81a664bbc423001, 0xc24b8b70d0f89791, 0xc76c51a30654be30,
	0xd192e819d6ef5218, 0xd69906245565a910, 0xf40e35855771202a, 0x106aa07032bbd1b8,
	0x19a4c116b8d2d0c8, 0x1e376c085141ab53, 0x2748774cdf8eeb99, 0x34b0bcb5e19b48a8,
	0x391c0cb3c5c95a63, 0x4ed8aa4ae3418acb, 0x5b9cca4f7763e373, 0x682e6ff3d6b2b8a3,
	0x748f82ee5defb2fc, 0x78a5636f43172f60, 0x84c87814a1f0ab72, 0x8cc702081a6439ec,
	0x90befffa23631e28, 0xa4506cebde82bde9, 0xbef9a3f7b2c67915, 0xc67178f2e372532b,
	0xca273eceea26619c, 0xd186b8c721c0c207, 0xeada7dd6cde0eb1e, 0xf57d4f7fee6ed178,
	0x06f067aa72176fba, 0x0a637dc5a2c898a6, 0x113f9804bef90dae, 0x1b710b35131c471b,
	0x28db77f523047d84, 0x32caab7b40c72493, 0x3c9ebe0a15c9bebc, 0x431d67c49c100d4c,
	0x4cc5d4becb3e42b6, 0x597f299cfc657e2a, 0x5fcb6fab3ad6faec, 0x6c44198c4a475817,
};
/* clang-format on */

static void sha512_block(uint64_t h[8], const unsigned char *p)
{
	uint64_t w[80], v[8];
	int i, j;

	for (i = 0; i < 16; i++)
		for (w[i] = 0, j = 0; j < 8; j++)
			w[i] = w[i] << 8 | p[8 * i + j];
	for (i = 16; i < 80; i++)
		w[i] = w[i - 16] + (ror(w[i - 15], 1) ^ ror(w[i - 15], 8) ^ (w[i - 15] >> 7)) +
		       w[i - 7] + (ror(w[i - 2], 19) ^ ror(w[i - 2], 61) ^ (w[i - 2] >> 6));
	memcpy(v, h, sizeof(v));
	for (i = 0; i < 80; i++) {
		uint64_t t1 = v[7] + (ror(v[4], 14) ^ ror(v[4], 18) ^ ror(v[4], 41)) +
			      ((v[4] & v[5]) ^ (~v[4] & v[6])) + K512[i] + w[i];
		uint64_t t2 = (ror(v[0], 28) ^ ror(v[0], 34) ^ ror(v[0], 39)) +
			      ((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));
		memmove(v + 1, v, 7 * sizeof(*v));
		v[4] += t1;
		v[0] = t1 + t2;
	}
	for (i = 0; i < 8; i++)
		h[i] += v[i];
}

void check_sha512_hex(const void *data, size_t n, char *out)
{
	uint64_t h[8] = {0x6a09e667f3bcc908, 0xbb67ae8584caa73b, 0x3c6ef372fe94f82b,
			 0xa54ff53a5f1d36f1, 0x510e527fade682d1, 0x9b05688c2b3e6c1f,
			 0x1f83d9abfb41bd6b, 0x5be0cd19137e2179};
	const unsigned char *p = data;
	unsigned char tail[256] = {0}, d[64];
	size_t i, rest = n & 127, tl = rest < 112 ? 128 : 256;
	uint64_t bits = (uint64_t)n * 8;

	for (i = 0; i + 128 <= n; i += 128)
		sha512_block(h, p + i);
	memcpy(tail, p + i, rest);
	tail[rest] = 0x80;
	for (i = 0; i < 8; i++)
		tail[tl - 1 - i] = (unsigned char)(bits >> (8 * i));
	for (i = 0; i < tl; i += 128)
		sha512_block(h, tail + i);
	for (i = 0; i < 64; i++)
		d[i] = (unsigned char)(h[i / 8] >> (56 - 8 * (i % 8)));
	hex(d, 64, out);
}
