/* bytes_test.c - bytes_find and bytes_count against plain loops; the
 * line reader (lib/linefile.c) against stdio's fgets */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "unit.h"
#include "bytes.h"
#include "linefile.h"

int main(void)
{
	unsigned seed = 12345;
	int t, bad_find = 0, bad_count = 0;
	struct linefile l0;

	for (t = 0; t < 3000; t++) {
		size_t n, i, off, want = 0;
		const char *f;
		char *b;

		seed = seed * 1103515245u + 12345u;
		n = (seed >> 8) % 9000;
		b = malloc(n + 1);
		for (i = 0; i < n; i++) {
			seed = seed * 1103515245u + 12345u;
			b[i] = "ab\n\r\0"[(seed >> 16) % 5];
			want += b[i] == '\n';
		}
		off = n ? (seed >> 4) % n : 0;
		f = memchr(b + off, '\r', n - off);
		if (bytes_find(b + off, n - off, '\r') != f)
			bad_find++;
		if (bytes_find(b + off, n - off, 'z'))
			bad_find++;
		if (bytes_count(b, n, '\n') != want)
			bad_count++;
		free(b);
	}
	if (bad_find)
		unit_fail("bytes.find.random", "%d of 3000 differ from memchr", bad_find);
	else
		unit_ok("bytes.find.random");
	if (bad_count)
		unit_fail("bytes.count.random", "%d of 3000 differ from a loop", bad_count);
	else
		unit_ok("bytes.count.random");
	/* a count past the 255-iteration accumulator limit */
	{
		size_t n = 16 * 1000 + 7, i;
		char *b = malloc(n);
		for (i = 0; i < n; i++)
			b[i] = '\n';
		if (bytes_count(b, n, '\n') == n)
			unit_ok("bytes.count.all_hits");
		else
			unit_fail("bytes.count.all_hits", "got %zu want %zu",
				  bytes_count(b, n, '\n'), n);
		free(b);
	}
	{
		/* random files: short, long (past the 4 KiB buffer), exactly
		 * the buffer's size, empty lines, with or without a last newline */
		char path[] = "/tmp/bytes_test.XXXXXX", want[4096], why[200] = "";
		int bad = 0;

		for (t = 0; t < 200 && !bad; t++) {
			int fd = mkstemp(path);
			struct linefile l;
			size_t n = 0, k;
			FILE *f;
			char *got;

			for (k = (size_t)(t % 7); k > 0 || n == 0; k--, n++) {
				size_t len;
				seed = seed * 1103515245u + 12345u;
				len = (seed >> 8) % 5 == 0 ? 4095 + (seed >> 20) % 3 - 1 : (seed >> 12) % 9000;
				len = (seed >> 16) % 6 == 0 ? 0 : len;
				while (len--)
					if (write(fd, &"abc \t#x"[len % 7], 1) != 1)
						bad = 1;
				if ((k > 1 || t % 2) && write(fd, "\n", 1) != 1)
					bad = 1;
				if (k <= 1)
					break;
			}
			close(fd);
			f = fopen(path, "r");
			if (!f || linefile_open(&l, path)) {
				bad = 1;
				snprintf(why, sizeof(why), "cannot open %s", path);
			}
			while (!bad && f) {
				char *w = fgets(want, sizeof(want), f);
				got = linefile_next(&l);
				if (w)
					w[strcspn(w, "\n")] = 0;
				if (!w != !got || (w && strcmp(w, got))) {
					bad = 1;
					snprintf(why, sizeof(why), "file %d: fgets gave %.40s (%zu), we %.40s (%zu)",
						 t, w ? w : "the end", w ? strlen(w) : 0,
						 got ? got : "the end", got ? strlen(got) : 0);
				}
				if (!w)
					break;
			}
			if (f)
				fclose(f);
			unlink(path);
			memcpy(path + strlen(path) - 6, "XXXXXX", 6);
		}
		if (bad)
			unit_fail("bytes.lines.as_fgets", "%s", why);
		else
			unit_ok("bytes.lines.as_fgets");
		if (!linefile_open(&l0, "/nonexistent/x") || linefile_first("/nonexistent/x", want, 8) != -1)
			unit_fail("bytes.lines.missing", "a missing file opened");
		else
			unit_ok("bytes.lines.missing");
	}
	return unit_failed;
}
