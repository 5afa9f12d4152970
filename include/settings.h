/* settings.h - every setting an operation reads, resolved once.
 *
 * A front end (main for the CLI, the daemon at its start) fills a struct
 * settings from its environment and points its context at it; lib reads
 * settings from the context only, never from the environment. A request
 * (a daemon's NDJSON line, an MCP call) may change the settings the
 * table marks SETTING_REQUEST, for itself only, through settings_request.
 */
#ifndef WFS_SETTINGS_H
#define WFS_SETTINGS_H

#include <stddef.h>

#define SETTINGS_DEFAULT_TIMEOUT 120 /* seconds, as the reference */

struct settings {
	const char *root;              /* WICKFS_ROOT as given; NULL: none */
	int readonly;                  /* WICKFS_READONLY */
	int readonly_exec;             /* WICKFS_READONLY_EXEC */
	int fsync;                     /* WICKFS_FSYNC set: sync before each rename */
	size_t max_file;               /* WICKFS_MAX_FILE: what read/edit/grep load */
	unsigned long long unpack_max; /* WICKFS_UNPACK_MAX: unpack's gzip-bomb bound */
	long threads;                  /* WICKFS_THREADS when threads_given */
	int threads_given;             /* (else the online cores) */
	/* WICKFS_THREADS when not a number: grep refuses it, pack uses the cores */
	const char *threads_bad;
	int text;          /* WICKFS_OUTPUT=text: answers for people (-t) */
	long long timeout; /* a daemon request's seconds */
	size_t max_output; /* a daemon command's bytes per stream */
	/* Where options' $VAR defaults come from (applet.c): the CLI's
	 * environment; NULL in a request, whose front end resolved them. */
	char *const *env;
};

/* What a context without a front end's settings uses: the defaults. */
extern const struct settings settings_defaults;

/* One setting: its name (a request's field), the variable it is read
 * from (NULL: none), and whether a request may change it. */
#define SETTING_REQUEST 1u /* a request may set it for itself */
#define SETTING_LOWER 2u   /* ... only below the front end's value */
struct setting {
	const char *name;
	const char *env;
	unsigned char kind, flags;
	unsigned short off; /* in struct settings */
	const char *unit;   /* "seconds", "bytes" (requests' messages) */
};
extern const struct setting settings_table[];

/* The defaults, then every variable of the table from env (an environ
 * array). 0, or -1 with err naming the variable and what it takes. */
int settings_from_env(struct settings *s, char *const *env, char *err, size_t n);
/* The value of NAME in s->env, NULL when unset. For front ends and the
 * applets only they run (the daemon's own variables); lib never. */
const char *settings_env(const struct settings *s, const char *name);
/* A request's value v for the table's setting t: into s (a copy of
 * base, the front end's). 0, or -1 with err naming the field and its
 * range. A timeout keeps the reference's leniency: under 1 is the
 * default, over a century a century. */
int settings_request(struct settings *s, const struct settings *base,
		     const struct setting *t, double v, char *err, size_t n);

#endif
