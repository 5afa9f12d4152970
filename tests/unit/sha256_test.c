/* sha256_test.c - lib/sha256.c against FIPS 180-4's examples, and the
 * same digest whatever the pieces the input arrives in. */
#include <stdlib.h>
#include "sha256.h"
#include "unit.h"

static const char *digest(const void *p, size_t n, size_t piece)
{
	static char hex[65];
	unsigned char out[32];
	struct sha256 s;
	size_t i;

	sha256_init(&s);
	for (i = 0; i < n; i += piece)
		sha256_add(&s, (const char *)p + i, n - i < piece ? n - i : piece);
	sha256_end(&s, out);
	for (i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", out[i]);
	return hex;
}

static const char *hmac_hex(const char *key, size_t klen, const char *a, const char *b)
{
	static char hex[65];
	unsigned char out[32];
	size_t i;

	sha256_hmac((const unsigned char *)key, klen, a, strlen(a), b, strlen(b), out);
	for (i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", out[i]);
	return hex;
}

int main(void)
{
	static const char two[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	size_t pieces[] = {1, 3, 63, 64, 65, 1000, 1000000};
	char *million = malloc(1000000);
	size_t i;

	unit_check_str("sha256.empty", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		       digest("", 0, 1));
	unit_check_str("sha256.abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
		       digest("abc", 3, 3));
	unit_check_str("sha256.two_blocks", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
		       digest(two, sizeof(two) - 1, 64));
	if (!million)
		return 1;
	memset(million, 'a', 1000000);
	for (i = 0; i < sizeof(pieces) / sizeof(*pieces); i++)
		unit_check_str(unit_name("sha256.million_a.pieces_%zu", pieces[i]),
			       "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
			       digest(million, 1000000, pieces[i]));
	free(million);
	/* RFC 4231's test cases 1 and 2, the message split anywhere */
	unit_check_str("hmac.rfc4231.1", "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
		       hmac_hex("\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b",
				20, "Hi There", ""));
	unit_check_str("hmac.rfc4231.2", "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
		       hmac_hex("Jefe", 4, "what do ya ", "want for nothing?"));
	return unit_done();
}
