/* base64_test.c - standard padded base64 (RFC 4648) */
#include <stdlib.h>
#include "unit.h"
#include "base64.h"

static const char *rfc[][2] = {
	{"", ""},
	{"f", "Zg=="},
	{"fo", "Zm8="},
	{"foo", "Zm9v"},
	{"foob", "Zm9vYg=="},
	{"fooba", "Zm9vYmE="},
	{"foobar", "Zm9vYmFy"},
};

/* clang-format off */
static const char *bad[] = {
	"Z", "Zg", "Zg=", "Zm9vY", "Zg==Zg==", "Z===", "====", "=Zg=", "Zg=a",
	"Zm9\n", "Zm 9v", "Zm-v", "Zm_v", "Zm9v\0\0\0\0", "Zm9v====",
};
/* clang-format on */

static void check_encode(const char *name, const unsigned char *p, size_t n,
			 const char *want)
{
	struct buf b;

	buf_init(&b);
	buf_puts(&b, "x:"); /* appends, does not overwrite */
	base64_encode(&b, p, n);
	if (b.len == strlen(want) + 2 && !memcmp(b.p, "x:", 2) &&
	    !memcmp(b.p + 2, want, b.len - 2) && b.p[b.len] == 0)
		unit_ok(name);
	else
		unit_fail(name, "expected x:%s got %s", want, unit_show(b.p, b.len));
	buf_free(&b);
}

int main(void)
{
	unsigned char out[1024], data[600];
	size_t i, n;
	long got;

	for (i = 0; i < sizeof(rfc) / sizeof(rfc[0]); i++) {
		const char *plain = rfc[i][0], *enc = rfc[i][1];
		check_encode(unit_name("base64.encode.rfc4648[%s]", plain),
			     (const unsigned char *)plain, strlen(plain), enc);
		got = base64_decode(enc, strlen(enc), out);
		unit_check_mem(unit_name("base64.decode.rfc4648[%s]", enc), plain,
			       strlen(plain), (const char *)out, got < 0 ? 0 : (size_t)got);
		if (got < 0)
			unit_fail(unit_name("base64.decode.rfc4648.ok[%s]", enc), "returned %ld", got);
	}
	/* The two last letters of the alphabet and the high bits. */
	check_encode("base64.encode.alphabet_end", (const unsigned char *)"\xfb\xff", 2, "+/8=");
	check_encode("base64.encode.ff", (const unsigned char *)"\xff\xff\xff", 3, "////");
	check_encode("base64.encode.nul", (const unsigned char *)"\0\0\0", 3, "AAAA");
	check_encode("base64.encode.nul_pad", (const unsigned char *)"\0", 1, "AA==");
	check_encode("base64.encode.invalid_utf8", (const unsigned char *)"a\xffz", 3, "Yf96");

	/* Round trips of every length up to 600 bytes over all byte values. */
	srand(7);
	for (n = 0; n <= sizeof(data); n++) {
		struct buf b;
		int ok;

		for (i = 0; i < n; i++)
			data[i] = (unsigned char)(n < 256 ? (i + n) & 255 : rand() & 255);
		buf_init(&b);
		base64_encode(&b, data, n);
		ok = b.len == (n + 2) / 3 * 4;
		got = base64_decode(b.p ? b.p : "", b.len, out);
		ok = ok && got == (long)n && !memcmp(out, data, n);
		if (!ok) {
			unit_fail(unit_name("base64.roundtrip[%zu]", n), "encoded %zu chars, decoded %ld",
				  b.len, got);
			buf_free(&b);
			break;
		}
		buf_free(&b);
	}
	if (n > sizeof(data))
		unit_ok("base64.roundtrip.0-600");

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t len = strlen(bad[i]);
		if (!strcmp(bad[i], "Zm9v"))
			len = 8; /* with the NULs */
		got = base64_decode(bad[i], len, out);
		if (got < 0)
			unit_ok(unit_name("base64.decode.bad[%s]", unit_show(bad[i], len)));
		else
			unit_fail(unit_name("base64.decode.bad[%s]", unit_show(bad[i], len)),
				  "decoded %ld bytes, want an error", got);
	}
	return unit_done();
}
