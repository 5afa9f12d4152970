/* tar.c - ustar + pax writer, and a streaming ustar/pax/GNU reader.
 *
 * Writer: plain ustar when everything fits its fields; otherwise a pax 'x'
 * header before the entry carries what does not (path, linkpath, size of
 * 8 GiB and more, sub-second or out-of-range mtime, large ids), the form
 * GNU tar, bsdtar and Python's tarfile all read.
 *
 * Reader: checks every header's checksum, applies pax and GNU long-name
 * records to the entry that follows, and names the entry in every error.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tar.h"

/* ustar field offsets and widths */
#define F_NAME 0, 100
#define F_MODE 100, 8
#define F_UID 108, 8
#define F_GID 116, 8
#define F_SIZE 124, 12
#define F_MTIME 136, 12
#define F_CHKSUM 148, 8
#define O_TYPE 156
#define F_LINK 157, 100
#define O_MAGIC 257
#define F_UNAME 265, 32
#define F_GNAME 297, 32
#define F_PREFIX 345, 155

static const unsigned char zero_block[TAR_BLOCK];

static int tw_fail(struct tar_writer *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int tw_fail(struct tar_writer *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->err, sizeof(w->err), fmt, ap);
	va_end(ap);
	return -1;
}

void tar_writer_init(struct tar_writer *w, tar_sink_fn sink, void *arg)
{
	memset(w, 0, sizeof(*w));
	w->sink = sink;
	w->arg = arg;
}

static int tw_out(struct tar_writer *w, const void *p, size_t n)
{
	if (w->sink(w->arg, p, n))
		return tw_fail(w, "%s: writing the archive: %s", w->name,
			       strerror(errno));
	w->bytes += n;
	return 0;
}

static int tw_pad(struct tar_writer *w, unsigned long long size)
{
	size_t r = (size_t)(size % TAR_BLOCK);

	return r ? tw_out(w, zero_block, TAR_BLOCK - r) : 0;
}

/* Octal, zero-padded, NUL-terminated. 0 when it fits, -1 when it does not
 * (the field gets 0 and a pax record carries the value). */
static int put_octal(unsigned char *h, int off, int width,
		     unsigned long long v)
{
	char tmp[32];
	int digits = width - 1;

	if (digits < 22 && v >> (3 * digits)) {
		memset(h + off, '0', (size_t)digits);
		h[off + digits] = 0;
		return -1;
	}
	snprintf(tmp, sizeof(tmp), "%0*llo", digits, v);
	memcpy(h + off, tmp, (size_t)digits + 1);
	return 0;
}

static void put_str(unsigned char *h, int off, int width, const char *s,
		    size_t len)
{
	memcpy(h + off, s, len < (size_t)width ? len : (size_t)width);
}

static unsigned checksum(const unsigned char *h)
{
	unsigned sum = 0;
	int i;

	for (i = 0; i < TAR_BLOCK; i++)
		sum += (i >= 148 && i < 156) ? ' ' : h[i];
	return sum;
}

static void seal(unsigned char *h)
{
	char tmp[16];

	snprintf(tmp, sizeof(tmp), "%06o", checksum(h));
	memcpy(h + 148, tmp, 6);
	h[154] = 0;
	h[155] = ' ';
}

/* Split a name over prefix/name: the index of the '/' to split at, or -1
 * when it does not fit ustar. 0 means no split needed (len <= 100). */
static long ustar_split(const char *name, size_t len)
{
	size_t i;

	if (len <= 100)
		return 0;
	for (i = len - 1; i > 0; i--) {
		if (name[i] != '/')
			continue;
		if (len - i - 1 > 100)
			return -1; /* the rest only grows from here */
		if (i <= 155 && len - i - 1 > 0)
			return (long)i;
	}
	return -1;
}

/* Append one "LEN key=value\n" record (LEN counts its own digits). */
static int pax_add(char **buf, size_t *len, const char *key, const char *val,
		   size_t vlen)
{
	size_t base = strlen(key) + vlen + 3, total = base, d;
	char *p;

	for (;;) {
		char tmp[24];
		d = (size_t)snprintf(tmp, sizeof(tmp), "%zu", total);
		if (base + d == total)
			break;
		total = base + d;
	}
	p = realloc(*buf, *len + total + 1);
	if (!p)
		return -1;
	*buf = p;
	p += *len;
	p += sprintf(p, "%zu %s=", total, key);
	memcpy(p, val, vlen);
	p[vlen] = '\n';
	*len += total;
	return 0;
}

static int pax_num(char **buf, size_t *len, const char *key,
		   unsigned long long v)
{
	char tmp[32];

	snprintf(tmp, sizeof(tmp), "%llu", v);
	return pax_add(buf, len, key, tmp, strlen(tmp));
}

static int pax_mtime(char **buf, size_t *len, long long sec, long nsec)
{
	char tmp[48];
	int n = snprintf(tmp, sizeof(tmp), "%lld", sec);

	if (nsec > 0) {
		n += snprintf(tmp + n, sizeof(tmp) - (size_t)n, ".%09ld", nsec);
		while (tmp[n - 1] == '0')
			tmp[--n] = 0;
	}
	return pax_add(buf, len, "mtime", tmp, (size_t)n);
}

/* The pax records an entry needs: 0 (maybe none), -1 out of memory. */
static int pax_records(const struct tar_entry *e, const char *name,
		       size_t nlen, char **pax, size_t *plen)
{
	size_t llen = strlen(e->linkname ? e->linkname : "");
	int r = 0;

	if (ustar_split(name, nlen) < 0)
		r |= pax_add(pax, plen, "path", name, nlen);
	if (llen > 100)
		r |= pax_add(pax, plen, "linkpath", e->linkname, llen);
	if (e->size >= 1ULL << 33)
		r |= pax_num(pax, plen, "size", e->size);
	if (e->mtime_nsec || e->mtime < 0 || e->mtime >= 1LL << 33)
		r |= pax_mtime(pax, plen, e->mtime, e->mtime_nsec);
	if (e->uid >= 1u << 21)
		r |= pax_num(pax, plen, "uid", e->uid);
	if (e->gid >= 1u << 21)
		r |= pax_num(pax, plen, "gid", e->gid);
	return r ? -1 : 0;
}

static int write_pax(struct tar_writer *w, const struct tar_entry *e,
		     const char *name, size_t nlen, const char *pax,
		     size_t plen)
{
	unsigned char h[TAR_BLOCK];
	const char *base = name + nlen;
	char pname[128];

	/* "PaxHeader/BASE", as other writers name it; readers ignore it. */
	while (base > name && base[-1] == '/')
		base--;
	while (base > name && base[-1] != '/')
		base--;
	snprintf(pname, sizeof(pname), "PaxHeader/%.*s",
		 (int)(strcspn(base, "/") > 80 ? 80 : strcspn(base, "/")), base);
	memset(h, 0, sizeof(h));
	put_str(h, F_NAME, pname, strlen(pname));
	put_octal(h, F_MODE, 0644);
	put_octal(h, F_UID, 0);
	put_octal(h, F_GID, 0);
	put_octal(h, F_SIZE, plen);
	put_octal(h, F_MTIME, e->mtime > 0 && e->mtime < 1LL << 33 ? (unsigned long long)e->mtime : 0);
	h[O_TYPE] = 'x';
	memcpy(h + O_MAGIC, "ustar\0"
			    "00",
	       8);
	seal(h);
	if (tw_out(w, h, sizeof(h)) || tw_out(w, pax, plen))
		return -1;
	return tw_pad(w, plen);
}

static int write_ustar(struct tar_writer *w, const struct tar_entry *e,
		       const char *name, size_t nlen)
{
	unsigned char h[TAR_BLOCK];
	long split = ustar_split(name, nlen);
	const char *link = e->linkname ? e->linkname : "";
	unsigned long long mtime = e->mtime > 0 ? (unsigned long long)e->mtime : 0;

	memset(h, 0, sizeof(h));
	if (split > 0) {
		put_str(h, F_PREFIX, name, (size_t)split);
		put_str(h, F_NAME, name + split + 1, nlen - (size_t)split - 1);
	} else {
		/* split < 0: the pax path rules; keep a readable stub. */
		put_str(h, F_NAME, name, nlen);
	}
	put_octal(h, F_MODE, e->mode & 07777);
	put_octal(h, F_UID, e->uid);
	put_octal(h, F_GID, e->gid);
	put_octal(h, F_SIZE, e->size);
	put_octal(h, F_MTIME, mtime);
	h[O_TYPE] = (unsigned char)e->type;
	put_str(h, F_LINK, link, strlen(link));
	memcpy(h + O_MAGIC, "ustar\0"
			    "00",
	       8);
	seal(h);
	return tw_out(w, h, sizeof(h));
}

int tar_write_header(struct tar_writer *w, const struct tar_entry *e)
{
	size_t nlen = strlen(e->name), plen = 0;
	char *name = NULL, *pax = NULL;
	int r = -1;

	snprintf(w->name, sizeof(w->name), "%s", e->name);
	if (w->left)
		return tw_fail(w, "%s: the previous entry's data is incomplete", e->name);
	if (!nlen)
		return tw_fail(w, "tar: an entry has an empty name");
	name = malloc(nlen + 2);
	if (!name)
		return tw_fail(w, "%s: out of memory", e->name);
	memcpy(name, e->name, nlen + 1);
	if (e->type == TAR_DIR && name[nlen - 1] != '/') {
		name[nlen++] = '/';
		name[nlen] = 0;
	}
	if (pax_records(e, name, nlen, &pax, &plen)) {
		tw_fail(w, "%s: out of memory", e->name);
		goto out;
	}
	if (plen && write_pax(w, e, name, nlen, pax, plen))
		goto out;
	if (write_ustar(w, e, name, nlen))
		goto out;
	w->left = e->type == TAR_FILE ? e->size : 0;
	r = 0;
out:
	free(name);
	free(pax);
	return r;
}

int tar_write_data(struct tar_writer *w, const void *p, size_t n)
{
	if (n > w->left)
		return tw_fail(w, "%s: more data than the declared size", w->name);
	if (tw_out(w, p, n))
		return -1;
	w->left -= n;
	/* The padding follows the last byte; bytes() tells the total. */
	return w->left ? 0 : tw_pad(w, w->bytes);
}

int tar_write_fill(struct tar_writer *w)
{
	while (w->left) {
		size_t k = w->left < TAR_BLOCK ? (size_t)w->left : TAR_BLOCK;
		if (tar_write_data(w, zero_block, k))
			return -1;
	}
	return 0;
}

int tar_write_end(struct tar_writer *w)
{
	if (w->left)
		return tw_fail(w, "%s: the entry's data is incomplete", w->name);
	if (tw_out(w, zero_block, TAR_BLOCK) || tw_out(w, zero_block, TAR_BLOCK))
		return -1;
	return 0;
}

/* ---- reader ---- */

struct pax_vals {
	char *path, *link;
	int has_size, has_mtime, has_uid, has_gid;
	unsigned long long size, uid, gid;
	long long mtime;
	long mtime_nsec;
};

struct tar_reader {
	tar_source_fn src;
	tar_source_error_fn src_error;
	void *arg;
	unsigned long long offset; /* bytes consumed */
	unsigned long long remain; /* data bytes of the current entry */
	unsigned long long pad;    /* its padding */
	unsigned long long size;   /* its declared size */
	struct pax_vals local, global;
	char *gnu_name, *gnu_link; /* 'L' and 'K' */
	char *name, *link;         /* the current entry */
	int ended;
	char err[768];
	unsigned char hdr[TAR_BLOCK];
	unsigned char skip[16384];
};

static int tr_fail(struct tar_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int tr_fail(struct tar_reader *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, sizeof(r->err), fmt, ap);
	va_end(ap);
	return -1;
}

/* The entry to name in a message: the current one, else "the archive". */
static const char *who(const struct tar_reader *r)
{
	return r->name ? r->name : "(start of archive)";
}

struct tar_reader *tar_reader_open(tar_source_fn src,
				   tar_source_error_fn src_error, void *arg)
{
	struct tar_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->src = src;
	r->src_error = src_error;
	r->arg = arg;
	return r;
}

static void pax_clear(struct pax_vals *v)
{
	free(v->path);
	free(v->link);
	memset(v, 0, sizeof(*v));
}

void tar_reader_free(struct tar_reader *r)
{
	if (!r)
		return;
	pax_clear(&r->local);
	pax_clear(&r->global);
	free(r->gnu_name);
	free(r->gnu_link);
	free(r->name);
	free(r->link);
	free(r);
}

const char *tar_error(const struct tar_reader *r)
{
	return r->err;
}

/* Read up to n bytes, short only at the end. -1 with r->err set. */
static ssize_t tr_in(struct tar_reader *r, void *p, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t k = r->src(r->arg, (char *)p + got, n - got);
		if (k < 0) {
			const char *m = r->src_error ? r->src_error(r->arg) : NULL;
			return tr_fail(r, "%s: %s", who(r), m && *m ? m : strerror(errno));
		}
		if (k == 0)
			break;
		got += (size_t)k;
	}
	r->offset += got;
	return (ssize_t)got;
}

/* Skip n bytes; 1 when the input ends first. */
static int tr_skip(struct tar_reader *r, unsigned long long n)
{
	while (n) {
		size_t k = n < sizeof(r->skip) ? (size_t)n : sizeof(r->skip);
		ssize_t got = tr_in(r, r->skip, k);
		if (got < 0)
			return -1;
		if ((size_t)got < k)
			return 1;
		n -= k;
	}
	return 0;
}

/* A numeric field: octal (spaces and NULs around it) or GNU base-256. */
static int get_num(const unsigned char *h, int off, int width,
		   unsigned long long *v)
{
	const unsigned char *p = h + off, *end = h + off + width;

	*v = 0;
	if (*p & 0x80) {
		if (*p != 0x80)
			return -1; /* negative base-256: not for sizes */
		for (p++; p < end; p++) {
			if (*v >> 55)
				return -1;
			*v = *v << 8 | *p;
		}
		return 0;
	}
	while (p < end && *p == ' ')
		p++;
	for (; p < end && *p >= '0' && *p <= '7'; p++) {
		if (*v >> 60)
			return -1;
		*v = *v << 3 | (unsigned)(*p - '0');
	}
	while (p < end && (*p == ' ' || *p == 0))
		p++;
	return p == end ? 0 : -1;
}

static int all_zero(const unsigned char *h)
{
	return !memcmp(h, zero_block, TAR_BLOCK);
}

static int verify_checksum(const unsigned char *h)
{
	unsigned long long want;
	unsigned sum = 0;
	int ssum = 0, i;

	if (get_num(h, F_CHKSUM, &want))
		return -1;
	for (i = 0; i < TAR_BLOCK; i++) {
		unsigned char c = (i >= 148 && i < 156) ? ' ' : h[i];
		sum += c;
		ssum += (signed char)c; /* some old writers summed signed */
	}
	return want == sum || (long long)want == ssum ? 0 : -1;
}

static int parse_decimal(const char *s, size_t n, unsigned long long *v)
{
	size_t i;

	*v = 0;
	if (!n)
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9' || *v > (~0ULL - 9) / 10)
			return -1;
		*v = *v * 10 + (unsigned)(s[i] - '0');
	}
	return 0;
}

static int parse_mtime(const char *s, size_t n, long long *sec, long *nsec)
{
	const char *dot = memchr(s, '.', n);
	size_t ilen = dot ? (size_t)(dot - s) : n, i;
	unsigned long long v;
	int neg = ilen && s[0] == '-';
	long frac = 0;

	if (parse_decimal(s + neg, ilen - (size_t)neg, &v) || v >> 62)
		return -1;
	*sec = neg ? -(long long)v : (long long)v;
	if (dot) {
		for (i = 1; i < n - ilen; i++) {
			if (dot[i] < '0' || dot[i] > '9')
				return -1;
			if (i <= 9)
				frac = frac * 10 + (dot[i] - '0');
		}
		for (; i <= 9; i++)
			frac *= 10;
	}
	*nsec = frac;
	return 0;
}

static int dup_value(char **dst, const char *s, size_t n)
{
	char *p;

	if (memchr(s, 0, n))
		return -1;
	p = malloc(n + 1);
	if (!p)
		return -1;
	memcpy(p, s, n);
	p[n] = 0;
	free(*dst);
	*dst = p;
	return 0;
}

static int pax_apply(struct pax_vals *v, const char *key, size_t klen,
		     const char *val, size_t vlen)
{
#define KEY(k) (klen == sizeof(k) - 1 && !memcmp(key, k, klen))
	if (KEY("path"))
		return dup_value(&v->path, val, vlen);
	if (KEY("linkpath"))
		return dup_value(&v->link, val, vlen);
	if (KEY("size"))
		return v->has_size = 1, parse_decimal(val, vlen, &v->size);
	if (KEY("uid"))
		return v->has_uid = 1, parse_decimal(val, vlen, &v->uid);
	if (KEY("gid"))
		return v->has_gid = 1, parse_decimal(val, vlen, &v->gid);
	if (KEY("mtime"))
		return v->has_mtime = 1, parse_mtime(val, vlen, &v->mtime, &v->mtime_nsec);
#undef KEY
	return 0; /* atime, ctime, uname, xattrs...: not kept */
}

/* Parse "LEN key=value\n" records into v. */
static int pax_parse(struct pax_vals *v, const char *p, size_t n)
{
	while (n) {
		size_t i = 0, len = 0;
		const char *eq;

		while (i < n && p[i] >= '0' && p[i] <= '9' && len < TAR_MAX_META)
			len = len * 10 + (size_t)(p[i++] - '0');
		if (!i || i >= n || p[i] != ' ' || len <= i + 1 || len > n ||
		    p[len - 1] != '\n')
			return -1;
		eq = memchr(p + i + 1, '=', len - i - 2);
		if (!eq || eq == p + i + 1)
			return -1;
		if (pax_apply(v, p + i + 1, (size_t)(eq - p - i - 1), eq + 1,
			      (size_t)(p + len - 1 - eq - 1)))
			return -1;
		p += len;
		n -= len;
	}
	return 0;
}

/* Read a metadata entry's data (pax records or a GNU long name). */
static int read_meta(struct tar_reader *r, unsigned long long size,
		     char **out)
{
	char *buf;
	ssize_t got;

	if (size > TAR_MAX_META)
		return tr_fail(r, "corrupt archive: a %llu-byte extended header after %s (limit %d)",
			       size, who(r), TAR_MAX_META);
	buf = malloc((size_t)size + 1);
	if (!buf)
		return tr_fail(r, "out of memory");
	got = tr_in(r, buf, (size_t)size);
	if (got < 0 || (size_t)got < size || tr_skip(r, (TAR_BLOCK - size % TAR_BLOCK) % TAR_BLOCK)) {
		free(buf);
		return got < 0 ? -1 : tr_fail(r, "truncated archive: an extended header after %s is cut short", who(r));
	}
	buf[size] = 0;
	*out = buf;
	return 0;
}

/* A GNU 'L'/'K' record: a NUL-terminated name. */
static int read_gnu_long(struct tar_reader *r, unsigned long long size,
			 char **dst)
{
	char *buf;

	if (read_meta(r, size, &buf))
		return -1;
	free(*dst);
	*dst = buf; /* NUL-terminated at size at the latest */
	return 0;
}

static int read_pax(struct tar_reader *r, unsigned long long size,
		    struct pax_vals *v)
{
	char *buf;
	int bad;

	if (read_meta(r, size, &buf))
		return -1;
	bad = pax_parse(v, buf, (size_t)size);
	free(buf);
	if (bad)
		return tr_fail(r, "corrupt archive: a bad pax record after %s", who(r));
	return 0;
}

static char *field_str(const unsigned char *h, int off, int width)
{
	size_t n = strnlen((const char *)h + off, (size_t)width);
	char *s = malloc(n + 1);

	if (s) {
		memcpy(s, h + off, n);
		s[n] = 0;
	}
	return s;
}

/* The name from the header: prefix/name for POSIX ustar. */
static char *header_name(const unsigned char *h)
{
	char *name = field_str(h, F_NAME), *prefix, *full;

	if (!name || memcmp(h + O_MAGIC, "ustar\0", 6) || !h[345])
		return name;
	prefix = field_str(h, F_PREFIX);
	full = prefix ? malloc(strlen(prefix) + strlen(name) + 2) : NULL;
	if (full)
		sprintf(full, "%s/%s", prefix, name);
	free(prefix);
	free(name);
	return full;
}

/* Take a string: the first non-NULL of a and b (freed), else c. */
static char *take(char **a, char **b, char *c)
{
	char *s = *a ? *a : *b ? *b
			       : c;

	if (s != c)
		free(c);
	if (s == *a)
		*a = NULL;
	else if (s == *b)
		*b = NULL;
	return s;
}

static int fill_entry(struct tar_reader *r, struct tar_entry *e,
		      unsigned long long size)
{
	const unsigned char *h = r->hdr;
	struct pax_vals *l = &r->local, *g = &r->global;
	unsigned long long v;
	char *name = header_name(h), *link = field_str(h, F_LINK), *named;

	named = take(&r->gnu_name, &l->path, name);
	if (!named || !*named) { /* GNU tar would make an empty one "." */
		int oom = !named;
		free(named);
		free(link);
		return oom ? tr_fail(r, "out of memory")
			   : tr_fail(r, "corrupt archive: an entry with no name after %s", who(r));
	}
	free(r->name);
	free(r->link);
	r->name = named;
	r->link = take(&r->gnu_link, &l->link, link);
	if (!r->name || !r->link)
		return tr_fail(r, "out of memory");
	memset(e, 0, sizeof(*e));
	e->type = (char)h[O_TYPE];
	if (e->type == 0 || e->type == '7')
		e->type = TAR_FILE;
	e->name = r->name;
	e->linkname = r->link;
	get_num(h, F_MODE, &v);
	e->mode = (unsigned)(v & 07777);
	e->size = l->has_size ? l->size : g->has_size ? g->size
						      : size;
	get_num(h, F_MTIME, &v);
	e->mtime = (long long)v;
	if (l->has_mtime || g->has_mtime) {
		e->mtime = l->has_mtime ? l->mtime : g->mtime;
		e->mtime_nsec = l->has_mtime ? l->mtime_nsec : g->mtime_nsec;
	}
	get_num(h, F_UID, &e->uid);
	get_num(h, F_GID, &e->gid);
	if (l->has_uid || g->has_uid)
		e->uid = l->has_uid ? l->uid : g->uid;
	if (l->has_gid || g->has_gid)
		e->gid = l->has_gid ? l->gid : g->gid;
	pax_clear(l);
	/* Links and device nodes carry no data whatever the field says. */
	if (e->type == TAR_HARDLINK || e->type == TAR_SYMLINK ||
	    e->type == TAR_CHAR || e->type == TAR_BLOCKDEV || e->type == TAR_FIFO)
		e->size = 0;
	r->size = r->remain = e->size;
	r->pad = (TAR_BLOCK - e->size % TAR_BLOCK) % TAR_BLOCK;
	return 1;
}

/* Read one header block: 1 read, 0 end marker, -1 error. */
static int read_header(struct tar_reader *r)
{
	ssize_t got = tr_in(r, r->hdr, TAR_BLOCK);

	if (got < 0)
		return -1;
	if (got == 0)
		return tr_fail(r, "truncated archive: it ends after %s without an end-of-archive marker",
			       who(r));
	if (got < TAR_BLOCK)
		return tr_fail(r, "truncated archive: the header after %s is cut short", who(r));
	if (all_zero(r->hdr))
		return 0;
	if (verify_checksum(r->hdr))
		return tr_fail(r, "corrupt archive: header checksum mismatch at offset %llu (after %s)",
			       r->offset - TAR_BLOCK, who(r));
	return 1;
}

int tar_next(struct tar_reader *r, struct tar_entry *e)
{
	int s;

	if (r->ended)
		return 0;
	s = tr_skip(r, r->remain + r->pad);
	if (s)
		return s < 0 ? -1 : tr_fail(r, "%s: truncated archive (%llu of %llu bytes of data)", who(r), r->size - r->remain, r->size);
	r->remain = r->pad = 0;
	for (;;) {
		unsigned long long size;
		char type;

		s = read_header(r);
		if (s <= 0) {
			r->ended = !s;
			return s;
		}
		type = (char)r->hdr[O_TYPE];
		if (get_num(r->hdr, F_SIZE, &size))
			return tr_fail(r, "corrupt archive: bad size field in the header after %s", who(r));
		if (type == 'x')
			s = read_pax(r, size, &r->local);
		else if (type == 'g')
			s = read_pax(r, size, &r->global);
		else if (type == 'L')
			s = read_gnu_long(r, size, &r->gnu_name);
		else if (type == 'K')
			s = read_gnu_long(r, size, &r->gnu_link);
		else
			return fill_entry(r, e, size);
		if (s)
			return -1;
	}
}

ssize_t tar_read(struct tar_reader *r, void *p, size_t n)
{
	ssize_t got;

	if (n > r->remain)
		n = (size_t)r->remain;
	if (!n)
		return 0;
	got = tr_in(r, p, n);
	if (got < 0)
		return -1;
	if (got == 0)
		return tr_fail(r, "%s: truncated archive (%llu of %llu bytes of data)",
			       who(r), r->size - r->remain, r->size);
	r->remain -= (size_t)got;
	return got;
}
