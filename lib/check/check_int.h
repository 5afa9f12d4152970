/* check_int.h - what the files of lib/check share */
#ifndef WFS_CHECK_INT_H
#define WFS_CHECK_INT_H

#include <stddef.h>
#include "check.h"

/* Where each map key came from: errors about a key name its line. */
struct check_lines {
	const char **keys;
	int *line;
	size_t n, cap;
	const char *file;
};
int check_line_of(const struct check_lines *l, const char *key);

int check_yaml_lines(struct arena *a, const char *s, size_t n, struct json_val *out,
		     struct check_lines *lines, char *err, size_t errlen);

/* strtod for decimal numbers, without libc's (it brings in hex floats
 * and locale code): sign, digits, fraction, exponent. */
double check_strtod(const char *s, char **end);

/* A count of milliseconds from a gossfile number, clamped to 0..1e12. */
long long check_ms(double d);

/* A value made in the arena. */
struct json_val *check_str(struct arena *a, const char *s);
struct json_val *check_num(struct arena *a, double v);
struct json_val *check_bool(struct arena *a, int v);
/* A list of n strings. */
struct json_val *check_strs(struct arena *a, const char **s, size_t n);
int check_append(struct arena *a, struct json_val *arr, size_t *cap, const struct json_val *v);
/* The value rendered as JSON text into the arena. */
const char *check_show(struct arena *a, const struct json_val *v);

/* Matchers. check_matcher_valid: NULL, or what is wrong with expected.
 * check_match: 1 pass, 0 fail (*how says the matcher), -1 error (*how). */
const char *check_matcher_valid(const struct json_val *expected);
int check_match(struct arena *a, const struct json_val *actual, const struct json_val *expected,
		const char **how);
/* goss's pattern list against text, line by line: 1, 0 (*how lists what
 * is missing), -1 for a bad pattern. */
int check_patterns(struct arena *a, const char *text, size_t len, const struct json_val *expected,
		   const char **how);

/* One test: a property of a resource. */
enum {
	CHECK_OK,
	CHECK_FAILED,
	CHECK_SKIPPED
};
struct check_result {
	const char *type;  /* "File" */
	const char *rtype; /* "file" */
	const char *id, *property, *title;
	const char *meta; /* JSON text, or NULL */
	int result;
	const char *err;      /* could not be tested: why */
	const char *expected; /* JSON text */
	const char *found;    /* JSON text, or NULL */
	const char *want;     /* what the matcher compares with, JSON text */
	const char *how;      /* the matcher's words on failure */
	long long duration_ns;
};

struct check_res {
	const char *type; /* "file" */
	const char *id;
	const struct json_val *attrs; /* JSON_OBJ */
};

struct check_run {
	struct wfs_ctx *ctx;
	struct arena *a;
	const char *sysroot;
	struct check_result *res;
	size_t n, cap;
};

/* Resource types: their attributes, for loading, and running one. */
const char *check_type_title(const char *type); /* NULL: unknown type */
int check_attr_known(const char *type, const char *attr);
int check_resource(struct check_run *run, const struct check_res *r);

/* Digests as lowercase hex into out (129 bytes). */
void check_md5_hex(const void *p, size_t n, char *out);
void check_sha256_hex(const void *p, size_t n, char *out);
void check_sha512_hex(const void *p, size_t n, char *out);

/* A TCP connection to "HOST:PORT" (bound to local when given) within
 * timeout_ms: the descriptor, or -1 with err as goss words it. */
int check_connect(const char *hostport, const char *local, long long timeout_ms, char *err,
		  size_t errlen);

/* A plain HTTP request, redirects followed unless no_follow. */
struct check_http {
	const char *url, *method, *body, *username, *password;
	const struct json_val *headers; /* ["Name: value", ...] */
	long long timeout_ms;
	int no_follow;
};
struct check_http_answer {
	int status;
	const char *headers; /* "Name: value" lines */
	const char *body;
	size_t body_len;
};
int check_http_get(struct arena *a, const struct check_http *h, struct check_http_answer *ans,
		   char *err, size_t errlen);

/* Render results in a format: 0, or -1 for an unknown format. */
int check_render(struct buf *out, const char *format, const struct check_result *res, size_t n,
		 long long total_ns);
int check_format_known(const char *format);

#endif
