/* path_test.c - path_clean, path_base against Go's path/filepath */
#include "unit.h"
#include "path.h"

/* filepath.Clean on Unix: Go's documented results. */
static const char *clean_cases[][2] = {
	/* already clean */
	{"abc", "abc"},
	{"abc/def", "abc/def"},
	{"a/b/c", "a/b/c"},
	{".", "."},
	{"..", ".."},
	{"../..", "../.."},
	{"../../abc", "../../abc"},
	{"/abc", "/abc"},
	{"/", "/"},
	/* empty is the current directory */
	{"", "."},
	/* trailing slashes */
	{"abc/", "abc"},
	{"abc/def/", "abc/def"},
	{"a/b/c/", "a/b/c"},
	{"./", "."},
	{"../", ".."},
	{"../../", "../.."},
	{"/abc/", "/abc"},
	/* doubled slashes */
	{"abc//def//ghi", "abc/def/ghi"},
	{"abc//", "abc"},
	{"//abc", "/abc"},
	{"///abc", "/abc"},
	{"//abc//", "/abc"},
	{"//", "/"},
	/* . elements */
	{"abc/./def", "abc/def"},
	{"/./abc/def", "/abc/def"},
	{"abc/.", "abc"},
	{"./abc", "abc"},
	{"./.", "."},
	/* .. elements */
	{"abc/def/ghi/../jkl", "abc/def/jkl"},
	{"abc/def/../ghi/../jkl", "abc/jkl"},
	{"abc/def/..", "abc"},
	{"abc/def/../..", "."},
	{"/abc/def/../..", "/"},
	{"abc/def/../../..", ".."},
	{"/abc/def/../../..", "/"},
	{"abc/def/../../../ghi/jkl/../../../mno", "../../mno"},
	{"/../abc", "/abc"},
	{"/..", "/"},
	{"/../..", "/"},
	{"../../..", "../../.."},
	{"a/../b:/../../c", "../c"},
	/* combinations */
	{"abc/./../def", "def"},
	{"abc//./../def", "def"},
	{"abc/../../././../def", "../../def"},
	/* names that only look special */
	{"...", "..."},
	{"a/.../b", "a/.../b"},
	{"..a/b", "..a/b"},
	{"a/..b", "a/..b"},
	{".hidden/./x", ".hidden/x"},
	/* the grep root forms of PROTOCOL.md */
	{"./sub/", "sub"},
	{"/tmp//w/./sub/", "/tmp/w/sub"},
};

/* filepath.Join of two elements. */
/* path_base: the last element, trailing slashes ignored, "" for "/". */
static const char *base_cases[][2] = {
	{"a", "a"},
	{"a/b", "b"},
	{"/a/b/", "b"},
	{"a//", "a"},
	{"/x", "x"},
	{".", "."},
	{"", ""},
};

int main(void)
{
	struct arena a;
	size_t i;

	arena_init(&a);
	for (i = 0; i < sizeof(clean_cases) / sizeof(clean_cases[0]); i++) {
		const char *in = clean_cases[i][0], *want = clean_cases[i][1];
		char *got = path_clean(&a, in);
		unit_check_str(unit_name("path.clean[%s]", in), want, got);
		/* Clean is idempotent. */
		got = path_clean(&a, want);
		unit_check_str(unit_name("path.clean.idempotent[%s]", want), want, got);
	}
	for (i = 0; i < sizeof(base_cases) / sizeof(base_cases[0]); i++) {
		const char *in = base_cases[i][0];
		const char *got = path_base(in);
		size_t n = strlen(got);
		/* path_base points into its argument; compare up to a slash */
		const char *slash = strchr(got, '/');
		if (slash)
			n = (size_t)(slash - got);
		unit_check_mem(unit_name("path.base[%s]", in), base_cases[i][1],
			       strlen(base_cases[i][1]), got, n);
	}
	/* A long path with many elements. */
	{
		char in[4200], want[2200];
		size_t w = 0, k;
		for (k = 0; k < 1000; k++) {
			memcpy(in + 4 * k, "x/./", 4);
			want[w++] = 'x';
			want[w++] = '/';
		}
		in[4000] = 0;
		want[w - 1] = 0;
		unit_check_str("path.clean.long", want, path_clean(&a, in));
	}
	arena_free(&a);
	return unit_done();
}
