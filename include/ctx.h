/* ctx.h - the context every operation takes: arena, error, deadline, root,
 * modes and budget (lib/ctx.c). Every operation returns 0, or -1 with
 * c->err naming the operation, the path and the cause */
#ifndef WFS_CTX_H
#define WFS_CTX_H

#include <stdarg.h>
#include <stddef.h>
#include "arena.h"
#include "buf.h"

#define WFS_VERSION "0.1.0"

/* wickfs's own state in a directory (snapshot store, restore journal and
 * its key, transfer spools) lives in a subdirectory of this name. No
 * archive unpacks into one, pack leaves it out, and confined applets
 * neither reach one by a path nor walk into one. */
#define WFS_STATE_DIR ".wickfs"

/* A memory budget shared by the threads of a daemon: the bytes it holds
 * (requests being read, answers waiting to be sent, files loaded for an
 * answer), changed with atomic operations. Files loaded for an answer and
 * answers over WFS_BUDGET_SMALL may take it up to bulk; the rest of it
 * stays for requests and small answers. */
#define WFS_BUDGET_SMALL (64u << 10)
struct wfs_budget {
	size_t used;
	size_t limit, bulk;
};

static inline void wfs_budget_add(struct wfs_budget *b, size_t n)
{
	__atomic_add_fetch(&b->used, n, __ATOMIC_RELAXED);
}
static inline void wfs_budget_sub(struct wfs_budget *b, size_t n)
{
	__atomic_sub_fetch(&b->used, n, __ATOMIC_RELAXED);
}
static inline size_t wfs_budget_used(struct wfs_budget *b)
{
	return __atomic_load_n(&b->used, __ATOMIC_RELAXED);
}

struct wfs_ctx {
	struct arena *arena;
	char err[1024];
	long long deadline_ms;      /* CLOCK_MONOTONIC ms; 0 = none */
	const volatile int *cancel; /* non-zero: stop as soon as possible */
	int readonly;               /* refuse every write, and commands */
	int readonly_exec;          /* ... but let commands run */
	const char *root;           /* WICKFS_ROOT, resolved; NULL: anywhere */
	int root_errno;             /* the root itself cannot be resolved */
	const char *rel_base;       /* apply-patch's relative paths are under
					it (MCP); NULL: the working directory */
	size_t read_max;            /* a file over this: fail with too_big set */
	int too_big;                /* (so the caller can run it elsewhere) */
	int own_state;              /* non-zero while wickfs opens its own
					state under a .wickfs directory, which
					confinement refuses to any path */
	struct wfs_budget *budget;  /* the daemon's memory budget; NULL: none */
	size_t budget_held;         /* taken from it by this operation */
	const struct settings *set; /* never NULL (settings.h) */
	const char *const *mounts;  /* the daemon's --mount list, for the
					error that names a read-only one */
};

/* The context (lib/ctx.c) of a front end's settings s (kept, not
 * copied): their root resolved, their read-only modes. */
struct settings;
void wfs_ctx_init(struct wfs_ctx *c, struct arena *a, const struct settings *s);
/* A bare context with the root already resolved (NULL: none), as the
 * daemon does once at its start; modes off, default settings. */
void wfs_ctx_init_root(struct wfs_ctx *c, struct arena *a, const char *root);
/* The workspace root, resolved (realpath) once: NULL or "" for none. When
 * it cannot be resolved, c->root is root as given and c->root_errno says
 * why, so every confined operation fails naming it. */
void wfs_ctx_set_root(struct wfs_ctx *c, const char *root);
/* The one wording of a read-only refusal, "OP PATH: " before it; a
 * command's adds why and what allows it. */
#define WFS_READONLY_REFUSED "refused, WICKFS_READONLY is set"
#define WFS_READONLY_SPAWN_REFUSED \
	WFS_READONLY_REFUSED       \
	" (commands could write; WICKFS_READONLY_EXEC=1 allows them)"
/* 0 when c allows writes, else -1 with "OP PATH: refused, WICKFS_READONLY
 * is set" in c->err (no PATH when NULL). applet_run refuses an applet
 * declared APPLET_WRITES by itself; this is for the writes that depend
 * on an option (download --remove, pack --output). */
int wfs_writable(struct wfs_ctx *c, const char *op, const char *path);
/* Format into c->err; always returns -1. A message too long for it (a
 * 4 KiB path) loses its middle, never its end: the cause stays. */
int wfs_fail(struct wfs_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* vsnprintf into dst[n], cutting the middle of what does not fit. */
void wfs_vformat(char *dst, size_t n, const char *fmt, va_list ap);
/* strerror(err) with a lower-case first letter, as Go's errors read. */
const char *wfs_strerror(int err, char *b, size_t n);
/* With a budget: take what answering a file of size bytes costs (three
 * times its size: the data, its envelope, the response line) until the
 * daemon has answered, or -1 with "OP PATH: ..." naming the budget. 0
 * without a budget, or for a file over read_max (refused elsewhere). */
int wfs_budget_take(struct wfs_ctx *c, const char *op, const char *path,
		    unsigned long long size);
/* Non-zero once the deadline passed or cancel was set (message set). */
int wfs_expired(struct wfs_ctx *c);
/* The one clock: CLOCK_MONOTONIC in ms and ns. */
long long wfs_now_ms(void);
/* The CPUs this process may run on (its affinity mask), at least 1:
 * sysconf(_SC_NPROCESSORS_ONLN) without the 1 KB of sysconf. */
int wfs_cpus(void);
/* This process's limit res: the old one into get and the new one from
 * set (either NULL), by prlimit64: 0, or -1 with errno. Limits are the
 * process's; musl's setrlimit calls every thread for it (1 KB). */
struct rlimit;
int wfs_rlimit(int res, struct rlimit *get, const struct rlimit *set);
/* UTC's calendar for t (seconds since 1970): year, month, day, hour,
 * minute, second and weekday, as gmtime_r (without musl's 800 bytes). */
struct tm;
void wfs_gmtime(long long t, struct tm *tm);
long long wfs_now_ns(void);

/* Go-style error text: "op path: no such file or directory". */
int wfs_fail_errno(struct wfs_ctx *c, const char *op, const char *path, int err);

#endif
