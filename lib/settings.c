/* settings.c - the settings table: what each variable sets and how it is
 * read, and which of them a request may change (include/settings.h).
 *
 * The variables keep the readings they always had: a size that is not a
 * positive number leaves the default, a boolean that is not one of the
 * usual words is an error (so WICKFS_READONLY=ture never leaves writes
 * on), WICKFS_FSYNC is on when set at all. Ranges of the daemon's own
 * variables are its options' (the applet spec's $VAR, lib/applet.c).
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "archive.h"
#include "settings.h"

enum {
	SET_STR,
	SET_BOOL,
	SET_PRESENT,
	SET_SIZE,
	SET_THREADS,
	SET_SECONDS,
	SET_OUTPUT
};

const struct settings settings_defaults = {
	.max_file = (size_t)1 << 30,
	.unpack_max = ARCHIVE_DEFAULT_MAX,
	.timeout = SETTINGS_DEFAULT_TIMEOUT,
	.max_output = 10u << 20,
};

#define AT(field) (unsigned short)offsetof(struct settings, field)
const struct setting settings_table[] = {
	{"root", "WICKFS_ROOT", SET_STR, 0, AT(root), NULL},
	{"readonly", "WICKFS_READONLY", SET_BOOL, 0, AT(readonly), NULL},
	{"readonly_exec", "WICKFS_READONLY_EXEC", SET_BOOL, 0, AT(readonly_exec), NULL},
	{"fsync", "WICKFS_FSYNC", SET_PRESENT, 0, AT(fsync), NULL},
	{"max_file", "WICKFS_MAX_FILE", SET_SIZE, SETTING_REQUEST | SETTING_LOWER,
	 AT(max_file), "bytes"},
	{"unpack_max", "WICKFS_UNPACK_MAX", SET_SIZE, 0, AT(unpack_max), NULL},
	{"threads", "WICKFS_THREADS", SET_THREADS, 0, AT(threads), NULL},
	{"output", "WICKFS_OUTPUT", SET_OUTPUT, 0, AT(text), NULL},
	/* the daemon's: set by its options, changed by a request */
	{"timeout", NULL, SET_SECONDS, SETTING_REQUEST, AT(timeout), "seconds"},
	{"max_output", NULL, SET_SIZE, SETTING_REQUEST | SETTING_LOWER,
	 AT(max_output), "bytes"},
	{NULL, NULL, 0, 0, 0, NULL},
};

const char *settings_env(const struct settings *s, const char *name)
{
	size_t n = strlen(name);
	char *const *e;

	for (e = s->env; e && *e; e++)
		if (!strncmp(*e, name, n) && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

/* A size: unsigned long long for unpack_max, size_t for the others. */
static void put_size(struct settings *s, const struct setting *t,
		     unsigned long long v)
{
	char *p = (char *)s + t->off;

	if (t->off == AT(unpack_max))
		*(unsigned long long *)p = v;
	else
		*(size_t *)p = v > SIZE_MAX ? SIZE_MAX : (size_t)v;
}

static int read_one(struct settings *s, const struct setting *t, const char *v,
		    char *err, size_t n)
{
	static const char *const words[] = {"0", "false", "no", "off",
					    "1", "true", "yes", "on"};
	char *p = (char *)s + t->off, *end;
	unsigned long long u;
	int i;

	switch (t->kind) {
	case SET_STR:
		*(const char **)p = *v ? v : NULL;
		return 0;
	case SET_PRESENT:
		*(int *)p = 1;
		return 0;
	case SET_BOOL:
		for (i = 0; *v && i < 8; i++) {
			if (!strcasecmp(v, words[i])) {
				*(int *)p = i >= 4;
				return 0;
			}
		}
		if (!*v)
			return 0;
		snprintf(err, n, "%s=%s: not a boolean; use 1, true, yes, on or 0, "
				 "false, no, off",
			 t->env, v);
		return -1;
	case SET_SIZE:
		u = *v ? strtoull(v, &end, 10) : 0;
		if (*v && !*end && u > 0)
			put_size(s, t, u);
		return 0;
	case SET_OUTPUT:
		if (!*v || !strcmp(v, "json") || !strcmp(v, "text")) {
			*(int *)p = !strcmp(v, "text");
			return 0;
		}
		snprintf(err, n, "%s=%s: not an output form (json or text)", t->env, v);
		return -1;
	case SET_THREADS:
		if (!*v)
			return 0;
		errno = 0;
		s->threads_given = 1;
		s->threads = strtol(v, &end, 10);
		if (*end || errno)
			s->threads_bad = v;
		return 0;
	}
	return 0;
}

int settings_from_env(struct settings *s, char *const *env, char *err, size_t n)
{
	const struct setting *t;
	const char *v;

	*s = settings_defaults;
	s->env = env;
	for (t = settings_table; t->name; t++)
		if (t->env && (v = settings_env(s, t->env)) && read_one(s, t, v, err, n))
			return -1;
	return 0;
}

int settings_request(struct settings *s, const struct settings *base,
		     const struct setting *t, double v, char *err, size_t n)
{
	const double century = 100.0 * 365 * 86400;
	const char *at = (const char *)base + t->off;
	double hi;

	if (!(t->flags & SETTING_REQUEST)) {
		snprintf(err, n, "%s: not a setting a request may change", t->name);
		return -1;
	}
	if (t->kind == SET_SECONDS) {
		/* compared as a double before the cast, which overflows */
		s->timeout = !(v >= 1) ? base->timeout
				       : (v > century ? (long long)century : (long long)v);
		return 0;
	}
	hi = t->off == AT(unpack_max) ? (double)*(const unsigned long long *)at
				      : (double)*(const size_t *)at;
	if (!(t->flags & SETTING_LOWER))
		hi = 9e18; /* no bound but what a long long holds */
	if (!(v >= 1 && v <= hi)) {
		/* no floats in our printf: whole numbers, v held to long long */
		snprintf(err, n, "%s: takes 1 to %llu %s (at most the server's own), "
				 "got %lld",
			 t->name, (unsigned long long)hi, t->unit,
			 v < -9e18 ? LLONG_MIN : (v > 9e18 ? LLONG_MAX : (long long)v));
		return -1;
	}
	put_size(s, t, (unsigned long long)v);
	return 0;
}
