/* sha256.c - SHA-256 (FIPS 180-4), for snapshot's content addresses
 *
 * Built -O2 (Makefile HOT_SRCS): it runs over every byte a snapshot
 * stores. The eight working variables stay in registers; whole blocks are
 * hashed straight from the caller's buffer.
 */
#include <string.h>
#include "sha256.h"

/* clang-format off */
static const unsigned K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};
/* clang-format on */

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void sha_block(struct sha256 *s, const unsigned char *p)
{
	unsigned w[64], a, b, c, d, e, f, g, h, i;

	for (i = 0; i < 16; i++)
		w[i] = (unsigned)p[4 * i] << 24 | (unsigned)p[4 * i + 1] << 16 |
		       (unsigned)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (; i < 64; i++)
		w[i] = w[i - 16] + w[i - 7] +
		       (ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3)) +
		       (ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10));
	a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3];
	e = s->h[4], f = s->h[5], g = s->h[6], h = s->h[7];
	for (i = 0; i < 64; i++) {
		unsigned t1 = h + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) +
			      ((e & f) ^ (~e & g)) + K[i] + w[i];
		unsigned t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) +
			      ((a & b) ^ (a & c) ^ (b & c));
		h = g, g = f, f = e, e = d + t1;
		d = c, c = b, b = a, a = t1 + t2;
	}
	s->h[0] += a, s->h[1] += b, s->h[2] += c, s->h[3] += d;
	s->h[4] += e, s->h[5] += f, s->h[6] += g, s->h[7] += h;
}

void sha256_init(struct sha256 *s)
{
	static const unsigned h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
				       0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
	memcpy(s->h, h0, sizeof(h0));
	s->len = 0;
}

void sha256_add(struct sha256 *s, const void *data, size_t n)
{
	const unsigned char *p = data;

	while (n) {
		size_t at = s->len % 64, k = 64 - at < n ? 64 - at : n;

		if (!at && n >= 64) { /* a whole block: no copy */
			sha_block(s, p);
			k = 64;
		} else {
			memcpy(s->blk + at, p, k);
			if (at + k == 64)
				sha_block(s, s->blk);
		}
		s->len += k;
		p += k;
		n -= k;
	}
}

void sha256_end(struct sha256 *s, unsigned char out[32])
{
	unsigned long long bits = s->len * 8;
	unsigned char pad[8];
	int i;

	sha256_add(s, "\x80", 1);
	while (s->len % 64 != 56)
		sha256_add(s, "", 1);
	for (i = 0; i < 8; i++)
		pad[i] = (unsigned char)(bits >> (56 - 8 * i));
	sha256_add(s, pad, 8);
	for (i = 0; i < 32; i++)
		out[i] = (unsigned char)(s->h[i / 4] >> (24 - 8 * (i % 4)));
}

/* HMAC (RFC 2104) over SHA-256, the message in two parts (a header the
 * caller builds and a body it already holds). Keys longer than a block
 * are never used here: the journal's key is 32 bytes. */
void sha256_hmac(const unsigned char *key, size_t klen, const void *a, size_t alen,
		 const void *b, size_t blen, unsigned char out[32])
{
	unsigned char pad[64], inner[32];
	struct sha256 s;
	size_t i;

	memset(pad, 0, sizeof(pad));
	memcpy(pad, key, klen < sizeof(pad) ? klen : sizeof(pad));
	for (i = 0; i < sizeof(pad); i++)
		pad[i] ^= 0x36;
	sha256_init(&s);
	sha256_add(&s, pad, sizeof(pad));
	sha256_add(&s, a, alen);
	sha256_add(&s, b, blen);
	sha256_end(&s, inner);
	for (i = 0; i < sizeof(pad); i++)
		pad[i] ^= 0x36 ^ 0x5c;
	sha256_init(&s);
	sha256_add(&s, pad, sizeof(pad));
	sha256_add(&s, inner, sizeof(inner));
	sha256_end(&s, out);
}
