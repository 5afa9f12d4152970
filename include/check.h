/* check.h - goss-style system checks: gossfiles in, verdicts out (lib/check/) */
#ifndef WFS_CHECK_H
#define WFS_CHECK_H

#include <stddef.h>
#include "arena.h"
#include "buf.h"
#include "ctx.h"
#include "json.h"

/* Exit statuses as goss gives them. */
#define CHECK_PASS 0
#define CHECK_FAIL 1
#define CHECK_BAD_FILE 78

struct check_opts {
	const char *gossfile; /* "-": data below */
	const char *data;     /* the gossfile when gossfile is "-" */
	size_t len;
	const char *vars;    /* --vars FILE, or NULL */
	const char *format;  /* documentation (NULL), rspecish, json, junit, tap, silent */
	const char *sysroot; /* prefix for /etc, /proc and package databases */
	long long retry_ms;  /* retry failing runs this long (0: once) */
	long long sleep_ms;  /* between retries (default 1 s) */
	char **env;          /* what {{.Env}} sees */
};

/* Load, run and render: the exit status (CHECK_*). Output into out,
 * loading errors into err. */
int check_run(struct wfs_ctx *c, struct arena *a, const struct check_opts *o,
	      struct buf *out, struct buf *err);

/* A goss duration ("10s", "500ms", "1m30s", "2h") in ms; -1 if malformed. */
long long check_duration_ms(const char *s);

/* The YAML subset gossfiles use, as a JSON tree: block and flow maps and
 * lists, plain and quoted scalars, block scalars, comments. 0, or -1
 * with err naming the line. */
int check_yaml_parse(struct arena *a, const char *s, size_t n,
		     struct json_val *out, char *err, size_t errlen);

/* A gossfile's template expansion ({{.Env.X}}, {{.Vars.x}}, if/range/...)
 * of s[0..n), NUL-terminated, into out: 0, or -1 with err naming the line
 * and what is not supported. vars may be NULL; env is "K=V" strings. */
int check_template(struct arena *a, const char *s, size_t n, const struct json_val *vars,
		   char **env, struct buf *out, char *err, size_t errlen);

#endif
