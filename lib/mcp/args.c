/* args.c - what every tool needs first: its arguments by name and type,
 * and its paths placed in an allowed directory. Below the tools and the
 * protocol, calling neither. */
#include <stdlib.h>
#include <string.h>
#include "ctx.h"
#include "path.h"
#include "mcp_int.h"

const struct json_val *mcp_get(const struct json_val *obj, const char *key)
{
	size_t i, n = strlen(key);

	if (!obj || obj->type != JSON_OBJ)
		return NULL;
	for (i = obj->len; i-- > 0;)
		if (obj->key_lens[i] == n && !memcmp(obj->keys[i], key, n))
			return &obj->items[i];
	return NULL;
}

/* ---- arguments ---- */

int mcp_bad_arg(struct mcp_call *c, const char *key, const char *need)
{
	return wfs_fail(c->ctx, "Input validation error: Invalid arguments for tool %s: "
				"field \"%s\" %s",
			c->tool, key, need);
}

int mcp_arg_str(struct mcp_call *c, const char *key, int required, const char **v,
		size_t *len)
{
	const struct json_val *j = mcp_get(c->args, key);

	if (!j || j->type == JSON_NULL)
		return required ? mcp_bad_arg(c, key, "is required (a string)") : 0;
	if (j->type != JSON_STR)
		return mcp_bad_arg(c, key, "must be a string");
	*v = j->str;
	if (len)
		*len = j->len;
	return 0;
}

int mcp_arg_int(struct mcp_call *c, const char *key, long long *v, int *given)
{
	const struct json_val *j = mcp_get(c->args, key);

	*given = 0;
	if (!j || j->type == JSON_NULL)
		return 0;
	if (j->type != JSON_NUM || j->num != j->num || j->num > 9e15 || j->num < -9e15)
		return mcp_bad_arg(c, key, "must be a number");
	*v = (long long)j->num;
	*given = 1;
	return 0;
}

int mcp_arg_bool(struct mcp_call *c, const char *key, int *v)
{
	const struct json_val *j = mcp_get(c->args, key);

	if (!j || j->type == JSON_NULL)
		return 0;
	if (j->type != JSON_BOOL)
		return mcp_bad_arg(c, key, "must be a boolean");
	*v = j->boolean;
	return 0;
}

int mcp_arg_strs(struct mcp_call *c, const char *key, int required, const char ***v,
		 size_t *n)
{
	const struct json_val *j = mcp_get(c->args, key);
	const char **out;
	size_t i;

	*n = 0;
	if (!j || j->type == JSON_NULL)
		return required ? mcp_bad_arg(c, key, "is required (an array of strings)") : 0;
	if (j->type != JSON_ARR)
		return mcp_bad_arg(c, key, "must be an array of strings");
	out = arena_alloc(c->a, (j->len + 1) * sizeof(*out));
	if (!out)
		return wfs_fail(c->ctx, "%s: out of memory", c->tool);
	for (i = 0; i < j->len; i++) {
		if (j->items[i].type != JSON_STR || strlen(j->items[i].str) != j->items[i].len)
			return mcp_bad_arg(c, key, "must hold only strings (without NUL bytes)");
		out[i] = j->items[i].str;
	}
	*v = out;
	*n = j->len;
	return 0;
}

/* ---- paths ---- */

/* dir (no trailing slash but "/") holds p: its length, else 0. */
static size_t holds(const char *dir, const char *p)
{
	size_t n = strlen(dir);

	if (n == 1)
		return 1;
	return !strncmp(p, dir, n) && (!p[n] || p[n] == '/') ? n : 0;
}

const char *mcp_path(struct mcp_call *c, const char *path)
{
	struct mcp_server *s = c->s;
	const char *abs, *best = NULL;
	size_t i, bi = 0, bestlen = 0, cut = 0;
	struct buf list;

	abs = path[0] == '/' ? path : arena_printf(c->a, "%s/%s", s->dirs[0], path);
	abs = abs ? path_clean(c->a, abs) : NULL;
	if (!abs) {
		wfs_fail(c->ctx, "%s: out of memory", c->tool);
		return NULL;
	}
	/* the innermost allowed directory holding it, as resolved or given */
	for (i = 0; i < s->ndirs; i++) {
		size_t n = holds(s->dirs[i], abs), g = holds(s->given[i], abs);
		if (n > bestlen || g > bestlen) {
			best = s->dirs[i];
			bi = i;
			bestlen = cut = n > g ? n : g;
		}
	}
	if (!best) {
		buf_init(&list);
		for (i = 0; i < s->ndirs; i++)
			buf_printf(&list, "%s%s", i ? ", " : "", s->dirs[i]);
		wfs_fail(c->ctx, "Access denied - path outside allowed directories: %s not in %s", abs,
			 list.p ? list.p : "");
		buf_free(&list);
		return NULL;
	}
	c->ctx->root = best;
	c->ctx->root_errno = 0;
	/* under a read-only mount only the tools that write nothing */
	if (s->ro && s->ro[bi] && !(c->flags & MCP_RO)) {
		wfs_fail(c->ctx, "%s %s: refused, %s is a read-only mount (--mount)", c->tool, path,
			 s->given[bi]);
		return NULL;
	}
	if (strcmp(best, "/") && (cut != strlen(best) || strncmp(abs, best, cut)))
		abs = arena_printf(c->a, "%s%s", best, abs + cut); /* given -> resolved */
	if (!abs)
		wfs_fail(c->ctx, "%s: out of memory", c->tool);
	return abs;
}

/* A path argument checked and placed; NULL with ctx->err set. */
const char *mcp_path_arg(struct mcp_call *c, const char *key)
{
	const char *p = NULL;
	size_t n;

	if (mcp_arg_str(c, key, 1, &p, &n))
		return NULL;
	if (strlen(p) != n) {
		mcp_bad_arg(c, key, "holds a NUL byte");
		return NULL;
	}
	return mcp_path(c, p);
}

/* (not sscanf: its float scanner would cost 15 KB) */
static int hex(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	ch |= 0x20;
	return ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
}

/* "file:///a%20b" -> "/a b" in a; NULL for another scheme. */
char *mcp_uri_path(struct arena *a, const char *uri)
{
	char *out, *o;

	if (strncmp(uri, "file://", 7))
		return uri[0] == '/' ? arena_strdup(a, uri) : NULL;
	uri += 7;
	if (*uri != '/')
		return NULL; /* a host part: not ours */
	out = o = arena_alloc(a, strlen(uri) + 1);
	if (!out)
		return NULL;
	for (; *uri; uri++) {
		int hi = *uri == '%' ? hex(uri[1]) : -1, lo = hi >= 0 ? hex(uri[2]) : -1;
		if (lo >= 0) {
			*o++ = (char)(hi << 4 | lo);
			uri += 2;
		} else {
			*o++ = *uri;
		}
	}
	*o = 0;
	return out;
}
