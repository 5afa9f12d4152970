/* regex_bench.c - count matching lines like `grep -c`, for timing
 *
 *   cc -O2 -Iinclude bench/regex_bench.c build/obj/libwickfs.a -o rb
 *   rb [-i] [-F] PATTERN FILE
 *
 * The file is searched in 1 MiB blocks cut at line ends, as the grep
 * applet does: one re_search per matching line, RE_LINE, no positions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "re.h"

int main(int argc, char **argv)
{
	unsigned flags = RE_LINE;
	char err[256], *buf;
	size_t n, off = 0, count = 0, me, end, pos;
	struct re *re;
	struct timespec t0, t1;
	FILE *f;

	while (argc > 3 && argv[1][0] == '-') {
		if (!strcmp(argv[1], "--")) {
			argv++, argc--;
			break;
		}
		if (!strcmp(argv[1], "-i"))
			flags |= RE_ICASE;
		else if (!strcmp(argv[1], "-F"))
			flags |= RE_LITERAL;
		argv++, argc--;
	}
	if (argc != 3)
		return fprintf(stderr, "usage: rb [-i] [-F] PATTERN FILE\n"), 2;
	re = re_compile(argv[1], strlen(argv[1]), flags, err, sizeof(err));
	if (!re)
		return fprintf(stderr, "%s\n", err), 2;
	f = fopen(argv[2], "rb");
	if (!f)
		return perror(argv[2]), 2;
	fseek(f, 0, SEEK_END);
	n = (size_t)ftell(f);
	rewind(f);
	buf = malloc(n + 1);
	if (!buf || fread(buf, 1, n, f) != n)
		return 2;
	fclose(f);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (off < n) {
		end = off + (1 << 20) < n ? off + (1 << 20) : n;
		while (end < n && buf[end - 1] != '\n')
			end++;
		pos = 0;
		while (pos < end - off &&
		       re_search(re, buf + off, end - off, pos, NULL, &me) == 1) {
			count++;
			while (me < end - off && buf[off + me] != '\n')
				me++;
			pos = me + 1;
		}
		off = end;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%zu\t%.1f ms\n", count,
	       (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
		       (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
	re_free(re);
	free(buf);
	return 0;
}
