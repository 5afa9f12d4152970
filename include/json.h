/* json.h - the one JSON writer and a small parser */
#ifndef WFS_JSON_H
#define WFS_JSON_H

#include <stddef.h>
#include "buf.h"
#include "arena.h"

/* Writer: appends to a buf. Strings are always emitted as valid UTF-8:
 * invalid sequences become U+FFFD, as Go's encoder does. */
void json_str(struct buf *b, const char *s, size_t n);
void json_cstr(struct buf *b, const char *s);
/* What json_str writes for s[0..n), quotes excluded, counting no further
 * than budget bytes: *fit (when not NULL) gets the length of the longest
 * prefix, whole characters only, whose escaped form fits. */
size_t json_str_size(const char *s, size_t n, size_t budget, size_t *fit);
void json_int(struct buf *b, long long v);
void json_bool(struct buf *b, int v);

/* Parser: a tree in an arena. */
enum json_type {
	JSON_NULL,
	JSON_BOOL,
	JSON_NUM,
	JSON_STR,
	JSON_ARR,
	JSON_OBJ
};

struct json_val {
	enum json_type type;
	int boolean;
	double num;
	const char *str;        /* JSON_STR (NUL-terminated, may hold NULs) and
			    JSON_NUM (the literal text) */
	size_t len;             /* string length, or number of items/members */
	struct json_val *items; /* JSON_ARR items, JSON_OBJ member values */
	const char **keys;      /* JSON_OBJ member names */
	size_t *key_lens;
};

/* Parse exactly one value (surrounding whitespace allowed). Returns 0, or
 * -1 with a message such as "unexpected end of input at offset 12". */
int json_parse(struct arena *a, const char *s, size_t n,
	       struct json_val *out, char *err, size_t errlen);
/* Object member lookup as Go's encoding/json fills a struct field: the
 * last member whose name matches case-insensitively. NULL when absent. */
const struct json_val *json_get(const struct json_val *obj, const char *key);
/* A string member into *s (and *len when not NULL): absent or null leave
 * them as they were; -1 when the member has another type. */
int json_get_str(const struct json_val *obj, const char *key, const char **s,
		 size_t *len);

#endif
