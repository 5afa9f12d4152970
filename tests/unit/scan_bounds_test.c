/* scan_bounds_test.c - the vector byte scans at their block boundaries
 *
 * bytes_find, bytes_count, json_str's plain-run skip and the regex literal
 * prefilters work 16 bytes a step (SSE2, NEON) with a byte loop for the
 * tail. Every length 0..80 at every alignment, the byte sought at every
 * position (and just past the end), against plain loops; the regex fast
 * path against the Pike VM, which has no prefilter.
 */
#include <stdlib.h>
#include "json.h"
#include "re.h"
#include "unit.h"
#include "bytes.h"

#define MAXN 80

static unsigned long long rng = 77;

static unsigned rnd(unsigned n)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return (unsigned)(rng >> 33) % n;
}

/* A byte that is not c, often one bit away from it (0x80, 0x01), NUL or
 * 0xff, so that a scan that compares too few bits or signed shows. */
static char other(char c)
{
	static const unsigned char near[] = {0x80, 0x01, 0x20, 0x40};
	unsigned r = rnd(8);
	char o;

	if (r < 4)
		o = (char)((unsigned char)c ^ near[r]);
	else if (r == 4)
		o = 0;
	else if (r == 5)
		o = (char)0xff;
	else
		o = (char)('a' + rnd(26));
	return o == c ? (char)((unsigned char)c ^ 0x02) : o;
}

static const char *ref_find(const char *p, size_t n, char c)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] == c)
			return p + i;
	return NULL;
}

static size_t ref_count(const char *p, size_t n, char c)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		k += p[i] == c;
	return k;
}

static int bad_find, bad_count;

/* Both scans of p[0..n) for c against the loops; the first miss shown. */
static void bytes_case(const char *p, size_t n, char c, const char *what)
{
	if (bytes_find(p, n, c) != ref_find(p, n, c) && !bad_find++)
		unit_fail("scan.bytes_find", "c=0x%02x %s n=%zu: %s",
			  (unsigned char)c, what, n, unit_show(p, n));
	if (bytes_count(p, n, c) != ref_count(p, n, c) && !bad_count++)
		unit_fail("scan.bytes_count", "c=0x%02x %s n=%zu: %s",
			  (unsigned char)c, what, n, unit_show(p, n));
}

static void test_bytes(void)
{
	static const char needles[] = {'\n', 0, (char)0x80, (char)0xff, 'a',
				       (char)0x7f};
	static const size_t lens[] = {255 * 16 - 1, 255 * 16, 255 * 16 + 1,
				      255 * 16 + 15, 255 * 16 + 16,
				      510 * 16 + 9};
	char *mem = malloc(MAXN + 64), *b;
	size_t ni, off, n, pos, pos2, i;

	for (ni = 0; ni < sizeof(needles); ni++) {
		char c = needles[ni];

		for (off = 0; off < 16; off++) {
			char *p = mem + off;

			for (n = 0; n <= MAXN; n++) {
				/* pos == n: only just past the end */
				for (pos = 0; pos <= n; pos++) {
					for (i = 0; i <= n; i++)
						p[i] = other(c);
					p[pos] = c;
					pos2 = pos + 1 + rnd(20);
					if (pos2 < n)
						p[pos2] = c;
					bytes_case(p, n, c, "one or two");
				}
				memset(p, c, n + 1);
				bytes_case(p, n, c, "all");
			}
		}
	}
	free(mem);
	/* random hits over the 255-block counter flush of the vector count */
	for (ni = 0; ni < sizeof(lens) / sizeof(lens[0]); ni++) {
		n = lens[ni];
		b = malloc(n + 1);
		for (i = 0; i < n; i++)
			b[i] = rnd(3) ? '\n' : other('\n');
		b[n] = '\n';
		bytes_case(b, n, '\n', "random");
		memset(b, '\n', n);
		bytes_case(b, n, '\n', "all");
		free(b);
	}
	if (!bad_find)
		unit_ok("scan.bytes_find");
	if (!bad_count)
		unit_ok("scan.bytes_count");
}

/* What json_str must give for the byte strings test_json makes: the only
 * valid UTF-8 beyond ASCII there is U+00E9. */
static void ref_json(struct buf *b, const unsigned char *s, size_t n)
{
	size_t i;

	buf_putc(b, '"');
	for (i = 0; i < n; i++) {
		unsigned char c = s[i];

		if (c == '"')
			buf_puts(b, "\\\"");
		else if (c == '\\')
			buf_puts(b, "\\\\");
		else if (c == '\n')
			buf_puts(b, "\\n");
		else if (c == '\r')
			buf_puts(b, "\\r");
		else if (c == '\t')
			buf_puts(b, "\\t");
		else if (c < 0x20)
			buf_printf(b, "\\u%04x", c);
		else if (c == 0xc3 && i + 1 < n && s[i + 1] == 0xa9) {
			buf_add(b, s + i, 2);
			i++;
		} else if (c >= 0x80)
			buf_puts(b, "\\ufffd");
		else
			buf_putc(b, (char)c);
	}
	buf_putc(b, '"');
}

static void test_json(void)
{
	/* one byte or sequence to plant: escapes, the edges of the plain
	 * range (0x1f, 0x20, 0x7e, 0x7f), bytes >= 0x80 valid and not */
	static const char *const plants[] = {"\"", "\\", "\n", "\t", "\x1f",
					     " ", "~", "\x7f", "\xc3\xa9",
					     "\x80", "\xff", "\xc3"};
	/* and sometimes a second one after it */
	static const char seconds[] = "\"\\\x01\xf8";
	static const char plain[] = "abcdefghijklmnopqrstuvwxyz0123456789"
				    " !#$%&'()*+,-./:;<=>?@[]^_`{|}~";
	unsigned char *mem = malloc(MAXN + 32), *s;
	struct buf got, want;
	size_t pi, pl, off, n, pos, i;
	int bad = 0;

	buf_init(&got);
	buf_init(&want);
	for (pi = 0; pi < sizeof(plants) / sizeof(plants[0]); pi++) {
		pl = strlen(plants[pi]);
		for (off = 0; off < 16; off += 5) {
			s = mem + off;
			for (n = 0; n <= MAXN; n++) {
				for (pos = 0; pos <= n; pos++) {
					for (i = 0; i < n; i++)
						s[i] = (unsigned char)plain[rnd(sizeof(plain) - 1)];
					s[n] = 0;
					if (pos + pl <= n)
						memcpy(s + pos, plants[pi], pl);
					if (pos + pl + 3 < n && rnd(2))
						s[pos + pl + rnd((unsigned)(n - pos - pl))] =
							(unsigned char)seconds[rnd(sizeof(seconds))];
					buf_reset(&got);
					buf_reset(&want);
					json_str(&got, (const char *)s, n);
					ref_json(&want, s, n);
					if ((got.len != want.len ||
					     memcmp(got.p, want.p, got.len)) &&
					    !bad++)
						unit_fail("scan.json_str", "off=%zu %s gave %s want %s",
							  off, unit_show((const char *)s, n),
							  unit_show(got.p, got.len),
							  unit_show(want.p, want.len));
				}
			}
		}
	}
	if (!bad)
		unit_ok("scan.json_str");
	buf_free(&got);
	buf_free(&want);
	free(mem);
}

/* The fast path (prefilter, then DFA) and the Pike VM on buf[0..n) from
 * several starts: 0 if they agree, else 1 (the first miss shown). */
static int regex_case(struct re *fast, struct re *pike, const char *pat,
		      const char *buf, size_t n, int quiet)
{
	size_t from, fs, fe, ps, pe;
	int rf, rp;

	for (from = 0; from <= n; from += from < 2 ? 1 : 7) {
		fs = fe = ps = pe = 9;
		rf = re_search(fast, buf, n, from, &fs, &fe);
		rp = re_search(pike, buf, n, from, &ps, &pe);
		if (rf == rp && (rf != 1 || (fs == ps && fe == pe)))
			continue;
		if (!quiet)
			unit_fail("scan.regex", "/%s/ from=%zu in %s: fast %d %zu-%zu, pike %d %zu-%zu",
				  pat, from, unit_show(buf, n), rf, fs, fe, rp,
				  ps, pe);
		return 1;
	}
	return 0;
}

static void test_regex(void)
{
#define P(s) s, sizeof(s) - 1
	static const struct {
		const char *pat;
		unsigned flags;
		const char *plant;
		size_t plen;
	} pats[] = {
		/* one literal: two rare bytes at once */
		{"Zq", 0, P("Zq")},
		{"xZqx", 0, P("xZqx")},
		{"Zq\\d", 0, P("Zq7")},
		{"jazz", RE_ICASE, P("JaZz")},
		{"caf\xc3\xa9!", 0, P("caf\xc3\xa9!")},
		{"a\xff", RE_LITERAL, P("a\xff")},
		{"Q\\x00Z", 0, P("Q\0Z")},
		/* a set: Teddy */
		{"foo|Zq|bar9", 0, P("bar9")},
		{"foo|Zq|bar9", 0, P("Zq")},
		{"kmalloc|kfree|spin_lock", RE_LINE, P("kfree")},
		{"(?i)(needle|haystack)", 0, P("NeEdLe")},
		{"\xc3\xa9t\xc3\xa9|zz", 0, P("\xc3\xa9t\xc3\xa9")},
	};
#undef P
	/* filler with near misses: pieces of the literals, bytes >= 0x80, NUL */
	static const char fill[] = "..Z.qfoba\nk\xc3\xa9\x80\xff N0";
	char err[256], buf[MAXN + 40];
	size_t pi, pl, n, pos, i;
	int fails = 0;

	for (pi = 0; pi < sizeof(pats) / sizeof(pats[0]); pi++) {
		const char *pat = pats[pi].pat;
		struct re *fast, *pike;

		pl = pats[pi].plen;
		fast = re_compile(pat, strlen(pat), pats[pi].flags, err,
				  sizeof(err));
		pike = re_compile(pat, strlen(pat),
				  pats[pi].flags | RE_DEBUG_PIKE, err,
				  sizeof(err));
		if (!fast || !pike) {
			unit_fail(unit_name("scan.regex.%zu", pi), "%s", err);
			re_free(fast);
			re_free(pike);
			continue;
		}
		for (n = 0; n <= MAXN; n++) {
			for (pos = 0; pos <= n; pos++) {
				for (i = 0; i < sizeof(buf); i++)
					buf[i] = fill[rnd(sizeof(fill) - 1)];
				if (pos + pl <= n)
					memcpy(buf + pos, pats[pi].plant, pl);
				if (rnd(3) == 0 && pos + 2 * pl + 1 <= n)
					memcpy(buf + pos + pl +
						       rnd((unsigned)(n - pos - 2 * pl + 1)),
					       pats[pi].plant, pl);
				fails += regex_case(fast, pike, pat, buf, n,
						    fails > 0);
			}
		}
		re_free(fast);
		re_free(pike);
	}
	if (!fails)
		unit_ok("scan.regex");
	else if (fails > 1)
		unit_fail("scan.regex.count", "%d haystacks differ", fails);
}

int main(void)
{
	test_bytes();
	test_json();
	test_regex();
	return unit_done();
}
