/* bytes_test.c - bytes_find and bytes_count against plain loops */
#include <stdlib.h>
#include "unit.h"
#include "bytes.h"

int main(void)
{
	unsigned seed = 12345;
	int t, bad_find = 0, bad_count = 0;

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
	return unit_failed;
}
