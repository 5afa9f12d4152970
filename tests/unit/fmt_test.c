/* fmt_test.c - lib/fmt.c's printf: each case against a written-out
 * expectation and against the C library's snprintf. In the static build
 * snprintf is lib/fmt.c's own, so the second comparison bites in the
 * sanitizer pass, which links glibc's. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include "fmt.h"
#include "unit.h"

static char got[256], libc[256];
static int got_n, libc_n;

static void __attribute__((format(printf, 2, 3))) run(size_t cap, const char *f, ...)
{
	va_list ap;

	memset(got, 'X', sizeof(got));
	memset(libc, 'X', sizeof(libc));
	va_start(ap, f);
	got_n = fmt_vsnprintf(got, cap, f, ap);
	va_end(ap);
	va_start(ap, f);
	libc_n = vsnprintf(libc, cap, f, ap);
	va_end(ap);
}

static void same(const char *name, const char *want, size_t cap)
{
	size_t n = strlen(want);

	if (cap && (strlen(got) != (n < cap ? n : cap - 1) ||
		    strncmp(got, want, cap - 1))) {
		unit_fail(name, "want %s got %s", unit_show(want, n), unit_show(got, strlen(got)));
		return;
	}
	if (got_n != (int)n) {
		unit_fail(name, "returned %d, want %zu", got_n, n);
		return;
	}
	if (cap && (got_n != libc_n || strcmp(got, libc))) {
		unit_fail(name, "the C library says %s (%d), we say %s (%d)",
			  unit_show(libc, strlen(libc)), libc_n,
			  unit_show(got, strlen(got)), got_n);
		return;
	}
	unit_ok(name);
}

/* Size 0 with no buffer: only the length. */
static int __attribute__((format(printf, 1, 2))) measure(const char *f, ...)
{
	va_list ap;
	int n;

	va_start(ap, f);
	n = fmt_vsnprintf(NULL, 0, f, ap);
	va_end(ap);
	return n;
}

#define CASE(name, want, ...)                  \
	do {                                   \
		run(sizeof(got), __VA_ARGS__); \
		same(name, want, sizeof(got)); \
	} while (0)

int main(void)
{
	const char *volatile nothing = NULL; /* unseen by the format checker */

	CASE("fmt.plain", "no conversions", "no conversions");
	CASE("fmt.s", "a=b", "%s=%s", "a", "b");
	CASE("fmt.s_null", "(null)", "%s", nothing);
	CASE("fmt.s_prec", "abc", "%.3s", "abcdef");
	CASE("fmt.s_prec_star", "ab|", "%.*s|", 2, "abcdef");
	CASE("fmt.s_prec_short", "ab", "%.400s", "ab");
	CASE("fmt.s_width", "   ab|ab   |", "%5s|%-5s|", "ab", "ab");
	CASE("fmt.d", "0 -1 42 2147483647 -2147483648", "%d %d %i %d %d", 0, -1, 42, INT_MAX, INT_MIN);
	CASE("fmt.d_pad", "07 -07 0042 7   |", "%02d %03d %04d %-4d|", 7, -7, 42, 7);
	CASE("fmt.d_plus_space", "+5 -5  5", "%+d %+d % d", 5, -5, 5);
	CASE("fmt.d_prec", "005 -005 |", "%.3d %.3d %.0d|", 5, -5, 0);
	CASE("fmt.d_width_prec", "  005", "%5.3d", 5);
	CASE("fmt.u", "0 4294967295", "%u %u", 0u, UINT_MAX);
	/* long is 32 bits on armv7 and i386 */
	if (sizeof(long) == 8)
		CASE("fmt.ld", "-9223372036854775808 9223372036854775807", "%ld %ld", LONG_MIN, LONG_MAX);
	else
		CASE("fmt.ld", "-2147483648 2147483647", "%ld %ld", LONG_MIN, LONG_MAX);
	CASE("fmt.lld", "-9223372036854775808", "%lld", LLONG_MIN);
	CASE("fmt.llu", "18446744073709551615", "%llu", ULLONG_MAX);
	CASE("fmt.zu_zd", "12 -3", "%zu %zd", (size_t)12, (ssize_t)-3);
	CASE("fmt.zu_width", "    12|", "%6zu|", (size_t)12);
	CASE("fmt.ld_zero_width", "000000042", "%09ld", 42L);
	CASE("fmt.hh_h", "-1 65535", "%hhd %hu", (signed char)-1, (unsigned short)65535);
	CASE("fmt.j", "-7 7", "%jd %ju", (intmax_t)-7, (uintmax_t)7);
	CASE("fmt.x", "ff FF 0x1f 0", "%x %X %#x %#x", 255u, 255u, 31u, 0u);
	CASE("fmt.x_pad", "0a 00000000deadbeef", "%02x %016llx", 10u, 0xdeadbeefULL);
	CASE("fmt.lx", sizeof(long) == 8 ? "ffffffffffffffff" : "ffffffff", "%lx", ULONG_MAX);
	CASE("fmt.o", "0644 000755 17 017 0", "%04o %06o %o %#o %#o", 0644u, 0755u, 15u, 15u, 0u);
	CASE("fmt.o_star", "00000000644", "%0*llo", 11, 0644ULL);
	CASE("fmt.c", "a|  b|c  |", "%c|%3c|%-3c|", 'a', 'b', 'c');
	CASE("fmt.percent", "100%", "100%%");
	CASE("fmt.star_width_negative", "ab   |", "%*s|", -5, "ab");
	CASE("fmt.s_prec_zero", "x", "%.0s%s", "hidden", "x");

	/* truncation: the full length is returned, the buffer ends in 0 */
	run(5, "%s-%d", "abcdef", 12);
	same("fmt.truncate", "abcdef-12", 5);
	run(1, "%d", 12345);
	same("fmt.truncate_to_empty", "12345", 1);
	if (measure("%s:%05d", "name", 7) == 10)
		unit_ok("fmt.measure_only");
	else
		unit_fail("fmt.measure_only", "NULL buffer of size 0: %d, want 10",
			  measure("%s:%05d", "name", 7));
	return unit_done();
}
