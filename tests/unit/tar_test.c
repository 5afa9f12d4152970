/* tar_test.c - the ustar/pax writer and the streaming reader */
#include <errno.h>
#include <stdlib.h>
#include "tar.h"
#include "unit.h"

struct mem {
	unsigned char *p;
	size_t len, cap, pos;
};

static int mem_sink(void *arg, const void *p, size_t n)
{
	struct mem *m = arg;

	if (m->len + n > m->cap) {
		m->cap = (m->len + n) * 2 + 512;
		m->p = realloc(m->p, m->cap);
	}
	memcpy(m->p + m->len, p, n);
	m->len += n;
	return 0;
}

/* At most 700 bytes a call: headers straddle reads. */
static ssize_t mem_source(void *arg, void *p, size_t n)
{
	struct mem *m = arg;

	if (n > 700)
		n = 700;
	if (n > m->len - m->pos)
		n = m->len - m->pos;
	memcpy(p, m->p + m->pos, n);
	m->pos += n;
	return (ssize_t)n;
}

static char long_name[400], long_link[300], split_name[200];

static const struct tar_entry entries[] = {
	{TAR_DIR, "dir", "", 0755, 0, 1700000000, 0, 1000, 1000},
	{TAR_FILE, "dir/a file", "", 0640, 5, 1700000001, 500000000, 0, 0},
	{TAR_SYMLINK, "dir/link", "a file", 0777, 0, 1700000002, 0, 0, 0},
	{TAR_FILE, long_name, "", 0600, 1000, 1700000003, 123456789, 0, 0},
	{TAR_SYMLINK, "dir/longlink", long_link, 0777, 0, 1, 0, 0, 0},
	{TAR_FILE, split_name, "", 0644, 512, 1700000004, 0, 1u << 22, 7},
	{TAR_FILE, "empty", "", 0644, 0, 0, 0, 0, 0},
	{TAR_FILE, "ünï cödé\nnewline", "", 0644, 3, -5, 0, 0, 0},
};
#define NENT (sizeof(entries) / sizeof(entries[0]))

static void write_archive(struct mem *m)
{
	struct tar_writer w;
	size_t i, k;
	char data[1000];

	memset(data, 'x', sizeof(data));
	tar_writer_init(&w, mem_sink, m);
	for (i = 0; i < NENT; i++) {
		if (tar_write_header(&w, &entries[i]))
			unit_fail("tar/write", "%s", w.err);
		for (k = 0; k < entries[i].size; k += 7) {
			size_t n = entries[i].size - k < 7 ? entries[i].size - k : 7;
			tar_write_data(&w, data, n);
		}
	}
	tar_write_end(&w);
}

static void round_trip(void)
{
	struct mem m = {0};
	struct tar_reader *r;
	struct tar_entry e;
	size_t i, bad = 0;
	char buf[2000];

	write_archive(&m);
	if (m.len % 512)
		unit_fail("tar/blocks", "%zu bytes", m.len);
	else
		unit_ok("tar/blocks");
	r = tar_reader_open(mem_source, NULL, &m);
	for (i = 0; i < NENT; i++) {
		const struct tar_entry *w = &entries[i];
		char want[512];
		ssize_t n, total = 0;

		snprintf(want, sizeof(want), "%s%s", w->name, w->type == TAR_DIR ? "/" : "");
		if (tar_next(r, &e) != 1) {
			unit_fail("tar/round_trip", "entry %zu: %s", i, tar_error(r));
			bad++;
			break;
		}
		while ((n = tar_read(r, buf, 333)) > 0)
			total += n;
		if (e.type != w->type || strcmp(e.name, want) ||
		    strcmp(e.linkname, w->linkname) || e.mode != w->mode ||
		    e.size != w->size || (size_t)total != w->size ||
		    e.mtime != w->mtime || e.mtime_nsec != w->mtime_nsec ||
		    e.uid != w->uid || e.gid != w->gid) {
			unit_fail("tar/round_trip", "entry %zu %s: type %c size %llu/%zd mtime %lld.%ld uid %llu link %s",
				  i, unit_show(e.name, strlen(e.name)), e.type, e.size, total,
				  e.mtime, e.mtime_nsec, e.uid, e.linkname);
			bad++;
		}
	}
	if (!bad && tar_next(r, &e) == 0)
		unit_ok("tar/round_trip");
	else if (!bad)
		unit_fail("tar/round_trip", "no end marker: %s", tar_error(r));
	tar_reader_free(r);
	free(m.p);
}

/* A 9 GiB entry: only its header is written; the reader must take the
 * size from the pax record and then report the data missing, naming it. */
static void huge_size(void)
{
	struct mem m = {0};
	struct tar_writer w;
	struct tar_entry e = {TAR_FILE, "big", "", 0644, 9ULL << 30, 1, 0, 0, 0};
	struct tar_reader *r;
	char buf[512];

	tar_writer_init(&w, mem_sink, &m);
	tar_write_header(&w, &e);
	tar_write_data(&w, "abc", 3);
	r = tar_reader_open(mem_source, NULL, &m);
	if (tar_next(r, &e) == 1 && e.size == 9ULL << 30)
		unit_ok("tar/pax_size");
	else
		unit_fail("tar/pax_size", "%llu %s", e.size, tar_error(r));
	while (tar_read(r, buf, sizeof(buf)) > 0)
		;
	if (strstr(tar_error(r), "big: truncated archive (3 of 9663676416 bytes"))
		unit_ok("tar/truncated_data_names_entry");
	else
		unit_fail("tar/truncated_data_names_entry", "%s", tar_error(r));
	tar_reader_free(r);
	free(m.p);
}

static int read_all(struct mem *m, char *err, size_t errlen, int *count)
{
	struct tar_reader *r = tar_reader_open(mem_source, NULL, m);
	struct tar_entry e;
	int s;

	m->pos = 0;
	*count = 0;
	while ((s = tar_next(r, &e)) == 1)
		(*count)++;
	snprintf(err, errlen, "%s", tar_error(r));
	tar_reader_free(r);
	return s;
}

static void expect_error(const char *name, struct mem *m, const char *needle)
{
	char err[800];
	int n;

	if (read_all(m, err, sizeof(err), &n) != -1)
		unit_fail(name, "accepted (%d entries)", n);
	else if (!strstr(err, needle))
		unit_fail(name, "error %s lacks %s", err, needle);
	else
		unit_ok(name);
}

static void corruption(void)
{
	struct mem m = {0}, t;
	size_t i;

	write_archive(&m);
	t = m;
	t.p = malloc(m.len);
	memcpy(t.p, m.p, m.len);
	t.p[512 + 10] ^= 1; /* the second header's name */
	expect_error("tar/bad_checksum", &t, "header checksum mismatch at offset 512 (after dir/)");
	memcpy(t.p, m.p, m.len);
	t.len = m.len - 1024; /* no end marker */
	expect_error("tar/no_end_marker", &t, "without an end-of-archive marker");
	t.len = 512 + 300; /* inside the second header */
	expect_error("tar/cut_header", &t, "header after dir/ is cut short");
	t.len = 2048 + 2; /* inside "dir/a file"'s data (after its pax header) */
	expect_error("tar/cut_data", &t, "dir/a file: truncated archive (0 of 5 bytes");
	/* the pax header of the long name: its first record's length */
	for (i = 0; i + 512 < m.len; i += 512)
		if (t.p[i + 156] == 'x')
			break;
	memcpy(t.p + i + 512, "99999", 5);
	t.len = m.len;
	expect_error("tar/bad_pax", &t, "bad pax record");
	free(t.p);
	free(m.p);
}

/* A header as GNU tar writes one (magic "ustar  "). */
static void gnu_header(unsigned char *h, const char *name, char type,
		       size_t size)
{
	unsigned sum = 0;
	int i;

	memset(h, 0, 512);
	memcpy(h, name, strlen(name));
	sprintf((char *)h + 100, "%07o", 0644);
	sprintf((char *)h + 108, "%07o", 0);
	sprintf((char *)h + 116, "%07o", 0);
	sprintf((char *)h + 124, "%011zo", size);
	sprintf((char *)h + 136, "%011o", 1234567);
	h[156] = (unsigned char)type;
	memcpy(h + 257, "ustar  ", 8);
	memset(h + 148, ' ', 8);
	for (i = 0; i < 512; i++)
		sum += h[i];
	sprintf((char *)h + 148, "%06o", sum);
}

static void gnu_long_names(void)
{
	unsigned char blk[512 * 8];
	struct mem m = {blk, 0, sizeof(blk), 0};
	struct tar_reader *r;
	struct tar_entry e;
	char name[300];

	memset(name, 'n', 299);
	name[299] = 0;
	memset(blk, 0, sizeof(blk));
	gnu_header(blk, "././@LongLink", 'L', 300);
	memcpy(blk + 512, name, 300); /* with its NUL */
	gnu_header(blk + 1024, "././@LongLink", 'K', 5);
	memcpy(blk + 1536, "tgt/", 5);
	gnu_header(blk + 2048, "nnnn", '2', 0);
	m.len = 512 * 8;
	r = tar_reader_open(mem_source, NULL, &m);
	if (tar_next(r, &e) == 1 && !strcmp(e.name, name) &&
	    !strcmp(e.linkname, "tgt/") && e.type == TAR_SYMLINK &&
	    e.mtime == 1234567 && tar_next(r, &e) == 0)
		unit_ok("tar/gnu_long_name_and_link");
	else
		unit_fail("tar/gnu_long_name_and_link", "%s", tar_error(r));
	tar_reader_free(r);
}

int main(void)
{
	size_t i;

	for (i = 0; i < sizeof(long_name) - 1; i++)
		long_name[i] = i % 50 == 49 ? '/' : (char)('a' + i % 26);
	for (i = 0; i < sizeof(long_link) - 1; i++)
		long_link[i] = (char)('A' + i % 26);
	/* 150 bytes that fit ustar's prefix + name */
	for (i = 0; i < 150; i++)
		split_name[i] = i == 70 ? '/' : 'p';
	round_trip();
	huge_size();
	corruption();
	gnu_long_names();
	return unit_done();
}
