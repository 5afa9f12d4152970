/* sha256.h - SHA-256 (lib/sha256.c) */
#ifndef WFS_SHA256_H
#define WFS_SHA256_H

#include <stddef.h>

struct sha256 {
	unsigned h[8];
	unsigned char blk[64];
	unsigned long long len;
};

void sha256_init(struct sha256 *s);
void sha256_add(struct sha256 *s, const void *data, size_t n);
/* The digest; s is spent. */
void sha256_end(struct sha256 *s, unsigned char out[32]);
/* HMAC-SHA-256 of a then b with key (at most 64 bytes). */
void sha256_hmac(const unsigned char *key, size_t klen, const void *a, size_t alen,
		 const void *b, size_t blen, unsigned char out[32]);

#endif
