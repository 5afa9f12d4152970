/* ctx.c - the context every operation gets (include/wickfs.h): the
 * workspace root, read-only mode, deadline and cancel flag, the clock,
 * and the error message with its cause. */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include "ctx.h"
#include "fs.h"
#include "mounts.h"
#include "path.h"
#include "settings.h"
#include "wickfs.h"

void wfs_ctx_init_root(struct wfs_ctx *c, struct arena *a, const char *root)
{
	memset(c, 0, sizeof(*c));
	c->arena = a;
	c->root = root;
	c->set = &settings_defaults;
}

int wfs_writable(struct wfs_ctx *c, const char *op, const char *path)
{
	char cwd[PATH_MAX];
	const char *abs, *m;
	size_t vl;

	/* the kernel refuses it too (EROFS); this names the mount */
	if (c->mounts && path &&
	    (abs = path[0] == '/' ? path
				  : arena_printf(c->arena, "%s/%s", getcwd(cwd, sizeof(cwd)) ? cwd : "", path)) &&
	    (abs = path_clean(c->arena, abs)) && (m = mounts_ro_of(c->mounts, abs, &vl)))
		return wfs_fail(c, "%s %s: refused, %.*s is a read-only mount (--mount)", op, path,
				(int)vl, m);
	if (!c->readonly)
		return 0;
	if (!path)
		return wfs_fail(c, "%s: " WFS_READONLY_REFUSED, op);
	return wfs_fail(c, "%s %s: " WFS_READONLY_REFUSED, op, path);
}

/* The start of a UTF-8 character at or before p (never before s). */
static size_t char_start(const char *s, size_t p)
{
	while (p && ((unsigned char)s[p] & 0xc0) == 0x80)
		p--;
	return p;
}

void wfs_vformat(char *dst, size_t n, const char *fmt, va_list ap)
{
	size_t head, tail, len;
	va_list again;
	char *full;
	int need;

	va_copy(again, ap);
	need = vsnprintf(dst, n, fmt, ap);
	if (need < 0 || (size_t)need < n || n < 64) {
		va_end(again);
		return;
	}
	/* Too long: a path of 4 KiB. Keep the start and the end, where the
	 * cause is ("file name too long"), and cut the middle. */
	len = (size_t)need;
	full = malloc(len + 1);
	if (full)
		vsnprintf(full, len + 1, fmt, again);
	va_end(again);
	if (!full)
		return;
	head = char_start(full, (n - 5) / 2);
	tail = len - (n - 5 - head);
	while (tail < len && ((unsigned char)full[tail] & 0xc0) == 0x80)
		tail++;
	snprintf(dst, n, "%.*s...%s", (int)head, full, full + tail);
	free(full);
}

int wfs_fail(struct wfs_ctx *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	wfs_vformat(c->err, sizeof(c->err), fmt, ap);
	va_end(ap);
	return -1;
}

const char *wfs_strerror(int err, char *b, size_t n)
{
	snprintf(b, n, "%s", strerror(err));
	if (b[0] >= 'A' && b[0] <= 'Z')
		b[0] = (char)(b[0] - 'A' + 'a');
	return b;
}

int wfs_fail_errno(struct wfs_ctx *c, const char *op, const char *path, int err)
{
	char msg[128];

	wfs_fail(c, "%s %s: %s", op, path, wfs_strerror(err, msg, sizeof(msg)));
	errno = err; /* callers may still look at the cause */
	return -1;
}

long long wfs_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

long long wfs_now_ms(void)
{
	return wfs_now_ns() / 1000000;
}

void wfs_gmtime(long long t, struct tm *tm)
{
	long long days = t / 86400, secs = t % 86400, era, doe, yoe, doy, mp;

	if (secs < 0) {
		secs += 86400;
		days--;
	}
	tm->tm_hour = (int)(secs / 3600);
	tm->tm_min = (int)(secs / 60 % 60);
	tm->tm_sec = (int)(secs % 60);
	tm->tm_wday = (int)((days % 7 + 11) % 7); /* 1970-01-01 was a Thursday */
	/* days to the civil calendar, in eras of 400 years from 0000-03-01 */
	days += 719468;
	era = (days >= 0 ? days : days - 146096) / 146097;
	doe = days - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	tm->tm_mday = (int)(doy - (153 * mp + 2) / 5 + 1);
	tm->tm_mon = (int)(mp < 10 ? mp + 2 : mp - 10);
	tm->tm_year = (int)(yoe + era * 400 + (tm->tm_mon < 2) - 1900);
}

int wfs_rlimit(int res, struct rlimit *get, const struct rlimit *set)
{
	return (int)syscall(SYS_prlimit64, 0, res, set, get);
}

int wfs_cpus(void)
{
	cpu_set_t set;
	int n;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 1;
	n = CPU_COUNT(&set);
	return n > 0 ? n : 1;
}

int wfs_budget_take(struct wfs_ctx *c, const char *op, const char *path,
		    unsigned long long size)
{
	struct wfs_budget *b = c->budget;
	size_t need, used, cap;

	if (!b || (c->read_max && size > c->read_max))
		return 0;
	need = size < b->bulk / 3 ? 3 * (size_t)size + 4096 : SIZE_MAX;
	/* a small file is always let through: at most one per thread */
	cap = need <= WFS_BUDGET_SMALL ? SIZE_MAX : b->bulk;
	used = wfs_budget_used(b);
	if (need > b->bulk)
		return wfs_fail(c, "%s %s: this %llu-byte file is more than the "
				   "daemon's memory budget lets one answer hold (about "
				   "three times its size, of %zu bytes for files and "
				   "answers; --max-memory %zu): read it in parts (read "
				   "--bytes --offset N --limit N, download --limit N)",
				op, path, size, b->bulk, b->limit);
	do {
		if (used > cap || need > cap - used)
			return wfs_fail(c, "%s %s: this %llu-byte file does not fit "
					   "the daemon's memory budget now: answering it "
					   "holds about three times its size, and %zu of "
					   "the %zu bytes for files and answers are in use "
					   "(--max-memory %zu): retry later, or read it in "
					   "parts (read --bytes --offset N --limit N, "
					   "download --limit N)",
					op, path, size, used > cap ? cap : used,
					cap, b->limit);
	} while (!__atomic_compare_exchange_n(&b->used, &used, used + need, 1,
					      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	c->budget_held += need;
	return 0;
}

int wfs_expired(struct wfs_ctx *c)
{
	if (c->cancel && *c->cancel) {
		wfs_fail(c, "operation cancelled");
		return 1;
	}
	if (c->deadline_ms && wfs_now_ms() >= c->deadline_ms) {
		wfs_fail(c, "operation timed out");
		return 1;
	}
	return 0;
}
