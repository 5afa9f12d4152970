/* libc_test.c - what stands in for the C library's: wfs_gmtime against
 * gmtime_r for random times from 1600 to 2600 and the edges, wfs_cpus
 * against the affinity mask's count; strtoll and strtoull (and strtol,
 * strtoul on small numbers) against what glibc gives; qsort and qsort_r (lib/libc_own.c in the static build, the C
 * library's in the sanitizer pass) on random arrays: sizes around the
 * insertion runs and merge widths, many equal keys, elements of 1, 4, 12
 * and 40 bytes; each result in order and a permutation of the input;
 * wfs_realpath against the C library's realpath on a tree of symlinks
 * (relative, absolute, chained, a loop, dangling), "..", missing paths
 * and a file taken for a directory: the same path, or the same errno. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "confine.h"
#include "ctx.h"
#include "unit.h"

struct rec {
	unsigned key, seq;
	char pad[32];
};

static unsigned seed = 777;

static unsigned next(void)
{
	seed = seed * 1103515245u + 12345u;
	return seed >> 8;
}

static int by_key(const void *a, const void *b)
{
	unsigned x = ((const struct rec *)a)->key, y = ((const struct rec *)b)->key;
	return x < y ? -1 : x > y;
}

static int by_seq(const void *a, const void *b)
{
	unsigned x = ((const struct rec *)a)->seq, y = ((const struct rec *)b)->seq;
	return x < y ? -1 : x > y;
}

static int by_byte_r(const void *a, const void *b, void *dir)
{
	return (*(const unsigned char *)a - *(const unsigned char *)b) * *(int *)dir;
}

static int by_u32(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	return x < y ? -1 : x > y;
}

/* wfs_realpath and realpath on the same path: the same path, or the
 * same errno. */
static void realpath_check(const char *name, const char *path)
{
	char a[PATH_MAX + 1], b[PATH_MAX + 1], mine[PATH_MAX + 32], libc[PATH_MAX + 32];

	errno = 0;
	if (wfs_realpath(path, a))
		snprintf(mine, sizeof(mine), "ok %s", a);
	else
		snprintf(mine, sizeof(mine), "errno %d", errno);
	errno = 0;
	if (realpath(path, b))
		snprintf(libc, sizeof(libc), "ok %s", b);
	else
		snprintf(libc, sizeof(libc), "errno %d", errno);
	unit_check_str(unit_name("libc.realpath.%s", name), libc, mine);
}

static void realpath_cases(void)
{
	static const char *const links[][2] = {
		{"rel", "dir"},
		{"chain", "rel"},
		{"loop1", "loop2"},
		{"loop2", "loop1"},
		{"dangle", "nowhere"},
		{"dir/up", "../rel"},
		{"dir/self", "."},
	};
	static const char *const cases[][2] = {
		{"top", ""},
		{"rel", "/rel"},
		{"rel_file", "/rel/file"},
		{"abs_file", "/abs/file"},
		{"chain_file", "/chain/file"},
		{"loop", "/loop1"},
		{"dangling", "/dangle"},
		{"up_file", "/dir/up/file"},
		{"dotdot", "/dir/../rel/file"},
		{"not_dir", "/dir/file/x"},
		{"missing", "/missing"},
		{"missing_dotdot", "/missing/.."},
		{"self_self", "/dir/self/self/file"},
		{"slashes", "//dir///file/"},
	};
	char d[] = "/tmp/wfs-realpath.XXXXXX", p[PATH_MAX], q[PATH_MAX], cwd[PATH_MAX];
	size_t i;

	if (!mkdtemp(d) || !getcwd(cwd, sizeof(cwd))) {
		unit_fail("libc.realpath", "no temporary directory: %s", strerror(errno));
		return;
	}
	snprintf(p, sizeof(p), "%s/dir", d);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/dir/file", d);
	close(open(p, O_CREAT | O_WRONLY, 0644));
	for (i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", d, links[i][0]);
		symlink(links[i][1], p);
	}
	snprintf(p, sizeof(p), "%s/abs", d);
	snprintf(q, sizeof(q), "%s/dir", d);
	symlink(q, p);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(p, sizeof(p), "%s%s", d, cases[i][1]);
		realpath_check(cases[i][0], p);
	}
	realpath_check("root", "/");
	realpath_check("root_dotdot", "/..");
	if (!chdir(d)) {
		realpath_check("relative", "rel/file");
		realpath_check("dot", ".");
		realpath_check("dotdot_relative", "..");
		if (chdir(cwd))
			unit_fail("libc.realpath", "cannot go back to %s", cwd);
	}
	for (i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", d, links[i][0]);
		unlink(p);
	}
	snprintf(p, sizeof(p), "%s/abs", d);
	unlink(p);
	snprintf(p, sizeof(p), "%s/dir/file", d);
	unlink(p);
	snprintf(p, sizeof(p), "%s/dir", d);
	rmdir(p);
	rmdir(d);
}

int main(void)
{
	static const size_t sizes[] = {0, 1, 2, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1000, 4097, 30000};
	int bad_rec = 0, bad_byte = 0, bad_u32 = 0;
	size_t s, i;

	for (s = 0; s < sizeof(sizes) / sizeof(*sizes); s++) {
		size_t n = sizes[s];
		struct rec *r = malloc((n + 1) * sizeof(*r));
		unsigned char *b = malloc(n + 1);
		unsigned *u = malloc((n + 1) * sizeof(*u)), *u2 = malloc((n + 1) * sizeof(*u));
		unsigned mod = s % 2 ? 5 : 1000000; /* many ties, or few */
		int down = -1;

		for (i = 0; i < n; i++) {
			r[i].key = next() % mod;
			r[i].seq = (unsigned)i;
			memset(r[i].pad, (int)i, sizeof(r[i].pad));
			b[i] = (unsigned char)next();
			u[i] = u2[i] = next() % mod;
		}
		qsort(r, n, sizeof(*r), by_key);
		for (i = 1; i < n; i++)
			bad_rec += r[i - 1].key > r[i].key;
		qsort(r, n, sizeof(*r), by_seq); /* back: every seq once, its pad intact */
		for (i = 0; i < n; i++)
			bad_rec += r[i].seq != i || r[i].pad[31] != (char)i;
		qsort_r(b, n, 1, by_byte_r, &down);
		for (i = 1; i < n; i++)
			bad_byte += b[i - 1] < b[i];
		qsort(u, n, sizeof(*u), by_u32);
		for (i = 1; i < n; i++) /* in order, and the same multiset: */
			bad_u32 += u[i - 1] > u[i];
		for (i = 0; i < n; i++) /* each original value is found */
			bad_u32 += !bsearch(&u2[i], u, n, sizeof(*u), by_u32);
		free(r);
		free(b);
		free(u);
		free(u2);
	}
	{
		static const long long edges[] = {0, -1, 86399, 86400, -86400, 951782400, 951868800,
						  4107542399LL, -11644473600LL, 253402300799LL};
		int bad = 0, k;
		char why[160] = "";
		cpu_set_t set;

		for (k = 0; k < 200010; k++) {
			long long t = k < 10 ? edges[k]
					     : (long long)(next() % 31556952u) * 1000 +
						       (long long)(next() % 1000) - 11644473600LL;
			time_t tt = (time_t)t;
			struct tm want, got;

			memset(&got, 0, sizeof(got));
			gmtime_r(&tt, &want);
			wfs_gmtime(t, &got);
			if (want.tm_year != got.tm_year || want.tm_mon != got.tm_mon ||
			    want.tm_mday != got.tm_mday || want.tm_hour != got.tm_hour ||
			    want.tm_min != got.tm_min || want.tm_sec != got.tm_sec ||
			    want.tm_wday != got.tm_wday) {
				if (!bad++)
					snprintf(why, sizeof(why), "t=%lld: want %d-%d-%d %d:%d:%d wd %d, got %d-%d-%d %d:%d:%d wd %d",
						 t, want.tm_year, want.tm_mon, want.tm_mday, want.tm_hour, want.tm_min,
						 want.tm_sec, want.tm_wday, got.tm_year, got.tm_mon, got.tm_mday,
						 got.tm_hour, got.tm_min, got.tm_sec, got.tm_wday);
			}
		}
		if (bad)
			unit_fail("libc.gmtime", "%d differ; first %s", bad, why);
		else
			unit_ok("libc.gmtime");
		if (!sched_getaffinity(0, sizeof(set), &set))
			unit_check_int("libc.cpus", CPU_COUNT(&set), wfs_cpus());
	}
	{
		/* text, then what inet_pton gives (hex bytes, or "-" when it
		 * refuses), then inet_ntop of those bytes */
		static const char *const v6[][3] = {
			{"::", "00000000000000000000000000000000", "::"},
			{"::1", "00000000000000000000000000000001", "::1"},
			{"1::", "00010000000000000000000000000000", "1::"},
			{"2001:DB8::8a2e:370:7334", "20010db80000000000008a2e03707334", "2001:db8::8a2e:370:7334"},
			{"::ffff:192.0.2.1", "00000000000000000000ffffc0000201", "::ffff:192.0.2.1"},
			{"1:2:3:4:5:6:7:8", "00010002000300040005000600070008", "1:2:3:4:5:6:7:8"},
			{"1:0:0:1:0:0:0:1", "00010000000000010000000000000001", "1:0:0:1::1"},
			{"1:0:0:1:0:0:1:1", "00010000000000010000000000010001", "1::1:0:0:1:1"},
			{"1:0:1:1:1:1:1:1", "00010000000100010001000100010001", "1:0:1:1:1:1:1:1"},
			{"1:2:3:4:5:6:1.2.3.4", "00010002000300040005000601020304", "1:2:3:4:5:6:102:304"},
			{"fe80::1:2", "fe800000000000000000000000010002", "fe80::1:2"},
			{":1", "-", ""},
			{"1:", "-", ""},
			{"1:::2", "-", ""},
			{"1::2::3", "-", ""},
			{"12345::", "-", ""},
			{"1:2:3:4:5:6:7:8:9", "-", ""},
			{"1:2:3:4:5:6:7", "-", ""},
			{"::g", "-", ""},
			{"::1.2.3", "-", ""},
			{"::1.2.3.4.5", "-", ""},
			{"", "-", ""},
		};
		static const char *const v4[][2] = {
			{"1.2.3.4", "01020304"},
			{"255.255.255.255", "ffffffff"},
			{"0.0.0.0", "00000000"},
			{"01.2.3.4", "-"},
			{"256.1.1.1", "-"},
			{"1.2.3", "-"},
			{"1.2.3.4.5", "-"},
			{"1.2.3.4 ", "-"},
			{"", "-"},
			{"1..2.3", "-"},
		};
		unsigned char b[16];
		char hex[40], txt[64];
		size_t k;
		int j;

		for (k = 0; k < sizeof(v6) / sizeof(*v6); k++) {
			int ok = inet_pton(AF_INET6, v6[k][0], b) == 1;
			for (j = 0; j < 16; j++)
				snprintf(hex + 2 * j, 3, "%02x", b[j]);
			unit_check_str(unit_name("libc.inet_pton6.%s", v6[k][0]), v6[k][1], ok ? hex : "-");
			if (ok)
				unit_check_str(unit_name("libc.inet_ntop6.%s", v6[k][0]), v6[k][2],
					       inet_ntop(AF_INET6, b, txt, sizeof(txt)));
		}
		for (k = 0; k < sizeof(v4) / sizeof(*v4); k++) {
			int ok = inet_pton(AF_INET, v4[k][0], b) == 1;
			for (j = 0; j < 4; j++)
				snprintf(hex + 2 * j, 3, "%02x", b[j]);
			unit_check_str(unit_name("libc.inet_pton4.%s", v4[k][0]), v4[k][1], ok ? hex : "-");
			if (ok)
				unit_check_str(unit_name("libc.inet_ntop4.%s", v4[k][0]), v4[k][0],
					       inet_ntop(AF_INET, b, txt, sizeof(txt)));
		}
		unit_check_int("libc.inet_ntop.no_room", 0,
			       inet_ntop(AF_INET6, b, txt, 2) != NULL);
	}
	{
		/* kind ('s' strtoll, 'u' strtoull), text, base, then the value,
		 * where the scan ended, and whether errno became ERANGE; the
		 * expectations are glibc's */
		static const struct {
			char kind;
			const char *s;
			int base;
			const char *want;
			int end, range;
		} t[] = {
			{'s', "42", 10, "42", 2, 0},
			{'s', "  -17xyz", 10, "-17", 5, 0},
			{'s', "+0x1F", 16, "31", 5, 0},
			{'s', "0x1F", 0, "31", 4, 0},
			{'s', "0x", 0, "0", 1, 0},
			{'s', "0xg", 16, "0", 1, 0},
			{'s', "017", 0, "15", 3, 0},
			{'s', "08", 0, "0", 1, 0},
			{'s', "z", 36, "35", 1, 0},
			{'s', "Zz", 36, "1295", 2, 0},
			{'s', "", 10, "0", 0, 0},
			{'s', "  ", 10, "0", 0, 0},
			{'s', "-", 10, "0", 0, 0},
			{'s', "+-3", 10, "0", 0, 0},
			{'s', "9223372036854775807", 10, "9223372036854775807", 19, 0},
			{'s', "9223372036854775808", 10, "9223372036854775807", 19, 1},
			{'s', "-9223372036854775808", 10, "-9223372036854775808", 20, 0},
			{'s', "-9223372036854775809", 10, "-9223372036854775808", 20, 1},
			{'s', "18446744073709551615", 10, "9223372036854775807", 20, 1},
			{'s', "18446744073709551616", 10, "9223372036854775807", 20, 1},
			{'s', "-1", 10, "-1", 2, 0},
			{'s', "-18446744073709551616", 10, "-9223372036854775808", 21, 1},
			{'s', "101", 2, "5", 3, 0},
			{'s', "12", 3, "5", 2, 0},
			{'s', "\t\n 5", 10, "5", 4, 0},
			{'s', "0X10", 16, "16", 4, 0},
			{'s', "1_000", 10, "1", 1, 0},
			{'s', "ff", 16, "255", 2, 0},
			{'s', "FFFFFFFFFFFFFFFFF", 16, "9223372036854775807", 17, 1},
			{'u', "42", 10, "42", 2, 0},
			{'u', "  -17xyz", 10, "18446744073709551599", 5, 0},
			{'u', "+0x1F", 16, "31", 5, 0},
			{'u', "0x1F", 0, "31", 4, 0},
			{'u', "0x", 0, "0", 1, 0},
			{'u', "0xg", 16, "0", 1, 0},
			{'u', "017", 0, "15", 3, 0},
			{'u', "08", 0, "0", 1, 0},
			{'u', "z", 36, "35", 1, 0},
			{'u', "Zz", 36, "1295", 2, 0},
			{'u', "", 10, "0", 0, 0},
			{'u', "  ", 10, "0", 0, 0},
			{'u', "-", 10, "0", 0, 0},
			{'u', "+-3", 10, "0", 0, 0},
			{'u', "9223372036854775807", 10, "9223372036854775807", 19, 0},
			{'u', "9223372036854775808", 10, "9223372036854775808", 19, 0},
			{'u', "-9223372036854775808", 10, "9223372036854775808", 20, 0},
			{'u', "-9223372036854775809", 10, "9223372036854775807", 20, 0},
			{'u', "18446744073709551615", 10, "18446744073709551615", 20, 0},
			{'u', "18446744073709551616", 10, "18446744073709551615", 20, 1},
			{'u', "-1", 10, "18446744073709551615", 2, 0},
			{'u', "-18446744073709551616", 10, "18446744073709551615", 21, 1},
			{'u', "101", 2, "5", 3, 0},
			{'u', "12", 3, "5", 2, 0},
			{'u', "\t\n 5", 10, "5", 4, 0},
			{'u', "0X10", 16, "16", 4, 0},
			{'u', "1_000", 10, "1", 1, 0},
			{'u', "ff", 16, "255", 2, 0},
			{'u', "FFFFFFFFFFFFFFFFF", 16, "18446744073709551615", 17, 1},
		};
		char got[64], *end;
		size_t k;

		for (k = 0; k < sizeof(t) / sizeof(*t); k++) {
			errno = 0;
			if (t[k].kind == 's')
				snprintf(got, sizeof(got), "%lld", strtoll(t[k].s, &end, t[k].base));
			else
				snprintf(got, sizeof(got), "%llu", strtoull(t[k].s, &end, t[k].base));
			snprintf(got + strlen(got), 24, " %d %d", (int)(end - t[k].s), errno == ERANGE);
			unit_check_str(unit_name("libc.strto%cll.%zu", t[k].kind == 's' ? 'l' : 'u', k),
				       unit_name("%s %d %d", t[k].want, t[k].end, t[k].range), got);
		}
		unit_check_int("libc.strtol.small", -17, strtol(" -17", NULL, 0));
		unit_check_int("libc.strtoul.hex", 255, (long long)strtoul("0xff", NULL, 0));
		unit_check_int("libc.strtol.bad_base", 0, strtol("7", NULL, 1));
	}
	unit_check_int("sort.records", 0, bad_rec);
	unit_check_int("sort.bytes_r_descending", 0, bad_byte);
	unit_check_int("sort.u32", 0, bad_u32);
	realpath_cases();
	return unit_failed;
}
