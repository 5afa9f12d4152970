/* resource.c - goss's resource types: what the system says, matched
 *
 * Each type reads the system the way a container allows without helpers:
 * stat and read for files, /etc/passwd and /etc/group for users, /proc
 * for ports, processes, mounts and kernel parameters, the dpkg or apk
 * database for packages. A sysroot prefixes /etc, /proc and /var reads,
 * so a test (or a host looking into an image) can point them elsewhere.
 * Types a container cannot answer (service) or that are not built yet
 * are skipped with the reason, never passed.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>
#include "check_int.h"
#include "settings.h"
#include "exec.h"
#include "fs.h"
#include "netaddr.h"
#include "wfs_features.h"

#ifdef CONFIG_FEATURE_CHECK_NET
#define NET_SKIP NULL
#else
#define NET_SKIP "built without CONFIG_FEATURE_CHECK_NET"
#endif

struct rtype {
	const char *name, *title;
	const char *tests; /* attributes that are tests, in goss's order */
	const char *other; /* attributes that configure the test */
	const char *skip;  /* non-NULL: every test skipped, for this reason */
};

#define ALL " skip title meta "
/* clang-format off */
static const struct rtype types[] = {
	{"file", "File", " exists mode size owner uid group gid filetype linked-to linkedto contents md5 sha256 sha512 ", " path", NULL},
	{"command", "Command", " exit-status stdout stderr ", " exec timeout", NULL},
	{"user", "User", " exists uid gid groups home shell ", " username", NULL},
	{"group", "Group", " exists gid ", " groupname", NULL},
	{"port", "Port", " listening ip ", " port", NULL},
	{"process", "Process", " running ", " comm", NULL},
	{"package", "Package", " installed versions ", " name", NULL},
	{"kernel-param", "KernelParam", " value ", " name", NULL},
	{"mount", "Mount", " exists opts vfs-opts source filesystem usage ", " mountpoint timeout", NULL},
	{"matching", "Matching", " matches ", " content", NULL},
	{"service", "Service", " enabled running runlevels ", " name", "no init system"},
	{"addr", "Addr", " reachable ", " address timeout local-address", NET_SKIP},
	{"dns", "DNS", " resolvable addrs ", " resolve server timeout", NET_SKIP},
	{"http", "HTTP", " status headers body ", " url allow-insecure no-follow-redirects timeout request-headers request-body username password ca-file cert-file key-file proxy method", NET_SKIP},
	{"interface", "Interface", " exists addrs mtu ", " name", NET_SKIP},
};
/* clang-format on */
#define NTYPES (sizeof(types) / sizeof(types[0]))

static const struct rtype *type_of(const char *name)
{
	size_t i;

	for (i = 0; i < NTYPES; i++)
		if (!strcmp(types[i].name, name))
			return &types[i];
	return NULL;
}

const char *check_type_title(const char *type)
{
	const struct rtype *t = type_of(type);

	return t ? t->title : NULL;
}

static int in_list(const char *list, const char *word)
{
	const char *p = list;
	size_t n = strlen(word);

	while ((p = strstr(p, word)))
		if (p > list && p[-1] == ' ' && (p[n] == ' ' || !p[n]))
			return 1;
		else
			p += n;
	return 0;
}

int check_attr_known(const char *type, const char *attr)
{
	const struct rtype *t = type_of(type);

	return t && (in_list(t->tests, attr) || in_list(t->other, attr) || in_list(ALL, attr));
}

/* An attribute by its exact name (the last one given wins). */
static const struct json_val *attr(const struct check_res *r, const char *name)
{
	size_t i;

	for (i = r->attrs->len; r->attrs->type == JSON_OBJ && i-- > 0;)
		if (!strcmp(r->attrs->keys[i], name))
			return &r->attrs->items[i];
	return NULL;
}

static const char *attr_str(const struct check_res *r, const char *name, const char *dflt)
{
	const struct json_val *v = attr(r, name);

	return v && (v->type == JSON_STR || v->type == JSON_NUM) ? v->str : dflt;
}

static int skipped(const struct check_res *r)
{
	const struct json_val *v = attr(r, "skip");

	return v && v->type == JSON_BOOL && v->boolean;
}

struct rctx;
static void run_skipped(struct rctx *x);

struct rctx {
	struct check_run *run;
	const struct check_res *r;
	const struct rtype *t;
	long long t0;
	const char *skip; /* every test skipped: why */
};

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static struct check_result *add(struct rctx *x, const char *prop)
{
	struct check_run *run = x->run;
	struct check_result *o;

	if (arena_grow(run->a, &run->res, &run->cap, run->n + 1, sizeof(*run->res)))
		return NULL;
	o = &run->res[run->n++];
	memset(o, 0, sizeof(*o));
	o->type = x->t->title;
	o->rtype = x->t->name;
	o->id = x->r->id;
	o->property = prop;
	o->title = attr_str(x->r, "title", "");
	o->meta = attr(x->r, "meta") ? check_show(run->a, attr(x->r, "meta")) : NULL;
	o->expected = check_show(run->a, attr(x->r, prop));
	o->want = o->expected;
	if (attr(x->r, prop)->type == JSON_OBJ && attr(x->r, prop)->len == 1)
		o->want = check_show(run->a, &attr(x->r, prop)->items[0]);
	o->duration_ns = now_ns() - x->t0;
	return o;
}

/* The test of property prop when the gossfile asks for it: actual is the
 * system's value, or NULL with err saying why it could not be had.
 * text: the value is an output read line by line (patterns apply). */
static void test(struct rctx *x, const char *prop, const struct json_val *actual, const char *err,
		 int text)
{
	const struct json_val *want = attr(x->r, prop);
	struct check_result *o;
	int rc;

	if (!want || !(o = add(x, prop)))
		return;
	if (x->skip) {
		o->result = CHECK_SKIPPED;
		o->how = x->skip;
		return;
	}
	if (!actual) {
		o->result = CHECK_FAILED;
		o->err = err ? err : "no value";
		return;
	}
	if (text && want->type == JSON_ARR)
		rc = check_patterns(x->run->a, actual->str, actual->len, want, &o->how);
	else
		rc = check_match(x->run->a, actual, want, &o->how);
	o->found = text && want->type == JSON_ARR ? NULL : check_show(x->run->a, actual);
	if (rc < 0) {
		o->result = CHECK_FAILED;
		o->err = o->how;
	} else {
		o->result = rc ? CHECK_OK : CHECK_FAILED;
	}
}

static const char *sys(struct rctx *x, const char *path)
{
	const char *root = x->run->sysroot;

	return root && *root ? arena_printf(x->run->a, "%s%s", root, path) : path;
}

/* A system file whole (proc files have no size), NUL-terminated. */
static char *slurp(struct arena *a, const char *path, size_t *len)
{
	struct buf b;
	char chunk[8192], *s;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return NULL;
	buf_init(&b);
	while ((n = read(fd, chunk, sizeof(chunk))) > 0 && b.len < (64u << 20))
		buf_add(&b, chunk, (size_t)n);
	close(fd);
	if (n < 0 || b.oom) {
		buf_free(&b);
		return NULL;
	}
	s = arena_strndup(a, b.p ? b.p : "", b.len);
	if (len)
		*len = b.len;
	buf_free(&b);
	return s;
}

/* Field f (0-based) of a colon-separated line of /etc/passwd or group. */
static const char *field(struct arena *a, const char *line, int f)
{
	const char *e;

	while (f-- > 0) {
		line = strchr(line, ':');
		if (!line)
			return "";
		line++;
	}
	e = line + strcspn(line, ":\n");
	return arena_strndup(a, line, (size_t)(e - line));
}

/* The line of db whose field f is val, or NULL. */
static const char *db_find(const char *db, int f, const char *val, struct arena *a)
{
	const char *l = db;

	while (l && *l) {
		if (*l != '#' && !strcmp(field(a, l, f), val))
			return l;
		l = strchr(l, '\n');
		l = l ? l + 1 : NULL;
	}
	return NULL;
}

static const char *name_of(struct rctx *x, const char *db, unsigned id)
{
	char num[24];
	const char *f = slurp(x->run->a, sys(x, db), NULL), *l;

	snprintf(num, sizeof(num), "%u", id);
	l = f ? db_find(f, 2, num, x->run->a) : NULL;
	return l ? field(x->run->a, l, 0) : NULL;
}

static const char *filetype(mode_t m)
{
	return S_ISREG(m)    ? "file"
	       : S_ISDIR(m)  ? "directory"
	       : S_ISLNK(m)  ? "symlink"
	       : S_ISSOCK(m) ? "socket"
	       : S_ISFIFO(m) ? "pipe"
	       : S_ISCHR(m)  ? "character-device"
			     : "block-device";
}

static void run_file(struct rctx *x)
{
	struct arena *a = x->run->a;
	const char *path = attr_str(x->r, "path", x->r->id), *why = NULL;
	struct stat st;
	int exists;

	if (path[0] == '~') {
		const char *u = path + 1, *sl = strchr(u, '/');
		const char *pw = slurp(a, sys(x, "/etc/passwd"), NULL), *l;
		char *name = arena_strndup(a, u, sl ? (size_t)(sl - u) : strlen(u));
		l = pw && *name ? db_find(pw, 0, name, a) : NULL;
		if (l)
			path = arena_printf(a, "%s%s", field(a, l, 5), sl ? sl : "");
		else if (!*name && settings_env(x->run->ctx->set, "HOME"))
			path = arena_printf(a, "%s%s", settings_env(x->run->ctx->set, "HOME"),
					    sl ? sl : "");
	}
	exists = lstat(path, &st) == 0;
	if (!exists)
		why = arena_printf(a, "stat %s: %s", path, strerror(errno));
	test(x, "exists", check_bool(a, exists), NULL, 0);
	if (!exists) {
		const char *p[] = {"mode", "size", "owner", "uid", "group", "gid", "filetype",
				   "linked-to", "linkedto", "contents", "md5", "sha256", "sha512"};
		size_t i;
		for (i = 0; i < sizeof(p) / sizeof(*p); i++)
			test(x, p[i], NULL, why, 0);
		return;
	}
	test(x, "mode", check_str(a, arena_printf(a, "%04o", (unsigned)st.st_mode & 07777)), NULL, 0);
	test(x, "size", check_num(a, (double)st.st_size), NULL, 0);
	if (attr(x->r, "owner")) {
		const char *o = name_of(x, "/etc/passwd", st.st_uid);
		test(x, "owner", o ? check_str(a, o) : NULL,
		     arena_printf(a, "user: unknown userid %u", (unsigned)st.st_uid), 0);
	}
	test(x, "uid", check_num(a, st.st_uid), NULL, 0);
	if (attr(x->r, "group")) {
		const char *g = name_of(x, "/etc/group", st.st_gid);
		test(x, "group", g ? check_str(a, g) : NULL,
		     arena_printf(a, "group: unknown groupid %u", (unsigned)st.st_gid), 0);
	}
	test(x, "gid", check_num(a, st.st_gid), NULL, 0);
	test(x, "filetype", check_str(a, filetype(st.st_mode)), NULL, 0);
	if (attr(x->r, "linked-to") || attr(x->r, "linkedto")) {
		char t[4096];
		ssize_t n = readlink(path, t, sizeof(t) - 1);
		const struct json_val *v = n >= 0 ? check_str(a, arena_strndup(a, t, (size_t)n)) : NULL;
		why = arena_printf(a, "readlink %s: %s", path, strerror(errno));
		test(x, "linked-to", v, why, 0);
		test(x, "linkedto", v, why, 0);
	}
	if (attr(x->r, "contents") || attr(x->r, "md5") || attr(x->r, "sha256") ||
	    attr(x->r, "sha512")) {
		char *data = NULL, hex[129];
		size_t len = 0;
		struct json_val *v = NULL;
		if (wfs_read(x->run->ctx, path, &data, &len) == 0) {
			v = check_str(a, data);
			v->len = len;
		}
		why = arena_strdup(a, x->run->ctx->err);
		test(x, "contents", v, why, 1);
		if (v && attr(x->r, "md5"))
			check_md5_hex(data, len, hex), test(x, "md5", check_str(a, arena_strdup(a, hex)), NULL, 0);
		else
			test(x, "md5", NULL, why, 0);
		if (v && attr(x->r, "sha256"))
			check_sha256_hex(data, len, hex), test(x, "sha256", check_str(a, arena_strdup(a, hex)), NULL, 0);
		else
			test(x, "sha256", NULL, why, 0);
		if (v && attr(x->r, "sha512"))
			check_sha512_hex(data, len, hex), test(x, "sha512", check_str(a, arena_strdup(a, hex)), NULL, 0);
		else
			test(x, "sha512", NULL, why, 0);
	}
}

/* The argv form: each word single-quoted, the program found in PATH, so
 * the executor runs it without a shell even when its name is a builtin.
 * path_var: the front end's PATH (its settings' environment), or NULL. */
static const char *argv_command(struct arena *a, const struct json_val *l, const char *path_var)
{
	struct buf b;
	size_t i;
	const char *s;

	buf_init(&b);
	for (i = 0; i < l->len; i++) {
		const char *w = l->items[i].str ? l->items[i].str : "", *p;
		if (!i && !strchr(w, '/')) {
			const char *path = path_var, *e;
			for (p = path ? path : "/usr/bin:/bin"; p && *p; p = *e ? e + 1 : e) {
				const char *c;
				e = p + strcspn(p, ":");
				c = arena_printf(a, "%.*s/%s", (int)(e - p), p, w);
				if (*p == '/' && access(c, X_OK) == 0) {
					w = c;
					break;
				}
			}
		}
		if (i)
			buf_putc(&b, ' ');
		buf_putc(&b, '\'');
		for (p = w; *p; p++)
			if (*p == '\'')
				buf_puts(&b, "'\\''");
			else
				buf_putc(&b, *p);
		buf_putc(&b, '\'');
	}
	s = arena_strndup(a, b.p ? b.p : "", b.len);
	buf_free(&b);
	return s;
}

static void run_command(struct rctx *x)
{
	struct arena *a = x->run->a;
	const struct json_val *e = attr(x->r, "exec"), *tm = attr(x->r, "timeout");
	struct wfs_exec_opts o = {0};
	struct wfs_exec_result res;
	struct json_val *out, *err;

	if (x->skip) {
		test(x, "exit-status", NULL, NULL, 0);
		test(x, "stdout", NULL, NULL, 1);
		test(x, "stderr", NULL, NULL, 1);
		return;
	}
	o.command = e && e->type == JSON_ARR ? argv_command(a, e, settings_env(x->run->ctx->set, "PATH")) : (e && e->str ? e->str : x->r->id);
	o.timeout_ms = tm && tm->type == JSON_NUM ? check_ms(tm->num) : 10000;
	memset(&res, 0, sizeof(res));
	if (wfs_exec(x->run->ctx, &o, &res) || res.spawn_failed) {
		const char *why = arena_strdup(a, x->run->ctx->err);
		buf_free(&res.out);
		buf_free(&res.err);
		test(x, "exit-status", NULL, why, 0);
		test(x, "stdout", NULL, why, 1);
		test(x, "stderr", NULL, why, 1);
		return;
	}
	out = check_str(a, arena_strndup(a, res.out.p ? res.out.p : "", res.out.len));
	err = check_str(a, arena_strndup(a, res.err.p ? res.err.p : "", res.err.len));
	out->len = res.out.len;
	err->len = res.err.len;
	buf_free(&res.out);
	buf_free(&res.err);
	if (res.timed_out) {
		const char *why = arena_printf(a, "Command execution timed out (%lld ms)", o.timeout_ms);
		test(x, "exit-status", NULL, why, 0);
		test(x, "stdout", NULL, why, 1);
		test(x, "stderr", NULL, why, 1);
		return;
	}
	test(x, "exit-status", check_num(a, res.exit_code), NULL, 0);
	test(x, "stdout", out, NULL, 1);
	test(x, "stderr", err, NULL, 1);
}

static void run_user(struct rctx *x, int group)
{
	struct arena *a = x->run->a;
	const char *name = attr_str(x->r, group ? "groupname" : "username", x->r->id);
	const char *db = slurp(a, sys(x, group ? "/etc/group" : "/etc/passwd"), NULL);
	const char *l = db ? db_find(db, 0, name, a) : NULL, *why, *primary;
	struct json_val *gl;
	size_t cap = 0;

	why = arena_printf(a, "%s: unknown %s %s", group ? "group" : "user",
			   group ? "group" : "user", name);
	test(x, "exists", check_bool(a, l != NULL), NULL, 0);
	if (!l) {
		test(x, "uid", NULL, why, 0), test(x, "gid", NULL, why, 0);
		test(x, "groups", NULL, why, 0), test(x, "home", NULL, why, 0);
		test(x, "shell", NULL, why, 0);
		return;
	}
	if (!group)
		test(x, "uid", check_num(a, (double)strtoul(field(a, l, 2), NULL, 10)), NULL, 0);
	test(x, "gid", check_num(a, (double)strtoul(field(a, l, group ? 2 : 3), NULL, 10)), NULL, 0);
	if (group)
		return;
	test(x, "home", check_str(a, field(a, l, 5)), NULL, 0);
	test(x, "shell", check_str(a, field(a, l, 6)), NULL, 0);
	if (!attr(x->r, "groups"))
		return;
	/* the primary group and every group that lists the user */
	gl = check_strs(a, NULL, 0);
	primary = field(a, l, 3);
	db = slurp(a, sys(x, "/etc/group"), NULL);
	for (l = db ? db : ""; *l;) {
		const char *gid = field(a, l, 2), *members = field(a, l, 3), *m = members;
		int in = !strcmp(gid, primary);
		size_t n = strlen(name);
		while (!in && (m = strstr(m, name)))
			in = (m == members || m[-1] == ',') && (m[n] == ',' || !m[n]), m += n;
		if (*l != '#' && in)
			check_append(a, gl, &cap, check_str(a, field(a, l, 0)));
		l = strchr(l, '\n');
		l = l ? l + 1 : "";
	}
	test(x, "groups", gl, NULL, 0);
}

/* Word i (0-based, blank-separated) of a line, copied to out. */
static int word(const char *l, int i, char *out, size_t max)
{
	size_t n;

	for (;;) {
		while (*l == ' ' || *l == '\t')
			l++;
		n = strcspn(l, " \t\n");
		if (!n)
			return -1;
		if (!i--)
			break;
		l += n;
	}
	if (n >= max)
		return -1;
	memcpy(out, l, n);
	out[n] = 0;
	return 0;
}

/* A /proc/net address: hex, 32-bit words in host order. */
static const char *net_ip(struct arena *a, const char *hex, size_t n)
{
	unsigned char b[16];
	char out[INET6_ADDRSTRLEN];
	size_t w;

	if (n != 8 && n != 32)
		return "";
	for (w = 0; w < n / 8; w++) {
		unsigned long v = strtoul(arena_strndup(a, hex + 8 * w, 8), NULL, 16);
		uint32_t v32 = (uint32_t)v;
		memcpy(b + 4 * w, &v32, 4);
	}
	inet_ntop(n == 8 ? AF_INET : AF_INET6, b, out, sizeof(out));
	return arena_strdup(a, out);
}

static void run_port(struct rctx *x)
{
	struct arena *a = x->run->a;
	const char *id = attr_str(x->r, "port", x->r->id), *colon = strrchr(id, ':');
	char proto[8] = "tcp";
	const char *db, *l;
	long port = strtol(colon ? colon + 1 : id, NULL, 10);
	struct json_val *ips = check_strs(a, NULL, 0);
	size_t cap = 0;
	int listening = 0, udp;

	if (colon && (size_t)(colon - id) < sizeof(proto))
		snprintf(proto, sizeof(proto), "%.*s", (int)(colon - id), id);
	udp = proto[0] == 'u';
	db = slurp(a, sys(x, arena_printf(a, "/proc/net/%s", proto)), NULL);
	for (l = db ? strchr(db, '\n') : NULL; l && *++l;) {
		char local[64], st[8];
		unsigned p;
		const char *c;
		if (!word(l, 1, local, sizeof(local)) && !word(l, 3, st, sizeof(st)) &&
		    (c = strchr(local, ':')) && (p = (unsigned)strtoul(c + 1, NULL, 16), (long)p == port) &&
		    !strcmp(st, udp ? "07" : "0A")) {
			listening = 1;
			check_append(a, ips, &cap, check_str(a, net_ip(a, local, (size_t)(c - local))));
		}
		l = strchr(l, '\n');
	}
	test(x, "listening", check_bool(a, listening), NULL, 0);
	test(x, "ip", ips, NULL, 0);
}

static void run_process(struct rctx *x)
{
	struct arena *a = x->run->a;
	const char *comm = attr_str(x->r, "comm", x->r->id);
	DIR *d = opendir(sys(x, "/proc"));
	struct dirent *e;
	int running = 0;

	while (d && !running && (e = readdir(d))) {
		char *c;
		size_t n;
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		c = slurp(a, sys(x, arena_printf(a, "/proc/%s/comm", e->d_name)), &n);
		if (c && n && c[n - 1] == '\n')
			c[n - 1] = 0;
		running = c && !strcmp(c, comm);
	}
	if (d)
		closedir(d);
	test(x, "running", check_bool(a, running), NULL, 0);
}

static void run_package(struct rctx *x)
{
	struct arena *a = x->run->a;
	const char *name = attr_str(x->r, "name", x->r->id), *db, *p;
	struct json_val *vers = check_strs(a, NULL, 0);
	size_t cap = 0;
	int apk = 0, installed = 0;
	struct stat st;

	db = slurp(a, sys(x, "/var/lib/dpkg/status"), NULL);
	if (!db && (db = slurp(a, sys(x, "/lib/apk/db/installed"), NULL)))
		apk = 1;
	if (!db && stat(sys(x, "/var/lib/rpm"), &st) == 0) {
		x->skip = "rpm's database is not read";
		test(x, "installed", NULL, NULL, 0);
		test(x, "versions", NULL, NULL, 0);
		return;
	}
	/* paragraphs: Package/Status/Version (dpkg), P:/V: (apk) */
	for (p = db ? db : ""; *p;) {
		const char *end = strstr(p, "\n\n"), *q;
		const char *stop = end ? end + 1 : p + strlen(p);
		const char *pkg = NULL, *ver = NULL;
		int ok = apk;
		for (q = p; q < stop;) {
			const char *nl = memchr(q, '\n', (size_t)(stop - q));
			size_t n = nl ? (size_t)(nl - q) : (size_t)(stop - q);
			if (apk && n > 2 && q[1] == ':' && (q[0] == 'P' || q[0] == 'V'))
				*(q[0] == 'P' ? &pkg : &ver) = arena_strndup(a, q + 2, n - 2);
			else if (!apk && n > 9 && !memcmp(q, "Package: ", 9))
				pkg = arena_strndup(a, q + 9, n - 9);
			else if (!apk && n > 9 && !memcmp(q, "Version: ", 9))
				ver = arena_strndup(a, q + 9, n - 9);
			else if (!apk && n > 8 && !memcmp(q, "Status: ", 8))
				ok = n >= 10 && !memcmp(q + n - 10, " installed", 10);
			q += n + 1;
		}
		if (ok && pkg && !strcmp(pkg, name)) {
			installed = 1;
			if (ver)
				check_append(a, vers, &cap, check_str(a, ver));
		}
		p = end ? end + 2 : stop;
	}
	test(x, "installed", check_bool(a, installed), NULL, 0);
	test(x, "versions", installed ? vers : NULL,
	     arena_printf(a, "package %s is not installed", name), 0);
}

static void run_kernel_param(struct rctx *x)
{
	struct arena *a = x->run->a;
	char *name = arena_strdup(a, attr_str(x->r, "name", x->r->id)), *p, *v;
	size_t n;

	for (p = name; *p; p++)
		if (*p == '.')
			*p = '/';
	v = slurp(a, sys(x, arena_printf(a, "/proc/sys/%s", name)), &n);
	while (v && n && (v[n - 1] == '\n' || v[n - 1] == ' '))
		v[--n] = 0;
	test(x, "value", v ? check_str(a, v) : NULL,
	     arena_printf(a, "kernel-param %s: %s", x->r->id, strerror(errno)), 0);
}

/* mountinfo's octal escapes (\040 for a blank). */
static char *unescape(char *s)
{
	char *r = s, *w = s;

	while (*r) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] && r[3]) {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 4;
		} else {
			*w++ = *r++;
		}
	}
	*w = 0;
	return s;
}

static struct json_val *split_commas(struct arena *a, const char *s)
{
	struct json_val *l = check_strs(a, NULL, 0);
	size_t cap = 0;

	while (l && *s) {
		size_t n = strcspn(s, ",");
		check_append(a, l, &cap, check_str(a, arena_strndup(a, s, n)));
		s += n + (s[n] == ',');
	}
	return l;
}

static void run_mount(struct rctx *x)
{
	struct arena *a = x->run->a;
	const char *mp = attr_str(x->r, "mountpoint", x->r->id), *l, *why;
	char *db = slurp(a, sys(x, "/proc/self/mountinfo"), NULL);
	char *opts = NULL, *vfs = NULL, *src = NULL, *fs = NULL;
	struct statvfs sv;

	for (l = db; l && *l;) {
		char m[4096], o[1024], t[256], s[4096], so[1024];
		const char *dash = strstr(l, " - ");
		const char *nl = strchr(l, '\n');
		if (dash && (!nl || dash < nl) &&
		    !word(l, 4, m, sizeof(m)) && !word(l, 5, o, sizeof(o)) &&
		    !word(dash + 3, 0, t, sizeof(t)) && !word(dash + 3, 1, s, sizeof(s)) &&
		    !word(dash + 3, 2, so, sizeof(so)) && !strcmp(unescape(m), mp)) {
			opts = arena_strdup(a, o), vfs = arena_strdup(a, so);
			src = arena_strdup(a, unescape(s)), fs = arena_strdup(a, t);
		}
		l = nl ? nl + 1 : NULL;
	}
	why = arena_printf(a, "mountpoint %s: not mounted", mp);
	test(x, "exists", check_bool(a, fs != NULL), NULL, 0);
	test(x, "opts", fs ? split_commas(a, opts) : NULL, why, 0);
	test(x, "vfs-opts", fs ? split_commas(a, vfs) : NULL, why, 0);
	test(x, "source", fs ? check_str(a, src) : NULL, why, 0);
	test(x, "filesystem", fs ? check_str(a, fs) : NULL, why, 0);
	if (attr(x->r, "usage")) {
		/* the percentage of blocks used, rounded as goss rounds it */
		int ok = fs && statvfs(mp, &sv) == 0 && sv.f_blocks;
		test(x, "usage",
		     ok ? check_num(a, (double)(int)((double)(sv.f_blocks - sv.f_bfree) * 100 / (double)sv.f_blocks + 0.5))
			: NULL,
		     why, 0);
	}
}

static void run_matching(struct rctx *x)
{
	const struct json_val *c = attr(x->r, "content");
	static const struct json_val null = {0};

	test(x, "matches", c ? c : &null, NULL, 0);
}

#ifdef CONFIG_FEATURE_CHECK_NET
static long long attr_ms(const struct check_res *r, const char *name, long long dflt)
{
	const struct json_val *v = attr(r, name);

	return v && v->type == JSON_NUM ? check_ms(v->num) : dflt;
}

static void run_addr(struct rctx *x)
{
	const char *a = attr_str(x->r, "address", x->r->id);
	char err[300] = "";
	int fd;

	if (!strncmp(a, "udp://", 6)) {
		x->skip = "udp addresses are not tested (no answer to wait for)";
		test(x, "reachable", NULL, NULL, 0);
		return;
	}
	if (!strncmp(a, "tcp://", 6))
		a += 6;
	fd = check_connect(a, attr_str(x->r, "local-address", NULL), attr_ms(x->r, "timeout", 500),
			   err, sizeof(err));
	if (fd >= 0)
		close(fd);
	test(x, "reachable", check_bool(x->run->a, fd >= 0), NULL, 0);
}

/* dns: resolvable, and the address lib/dns.c (or /etc/hosts) gives. */
static void run_dns(struct rctx *x)
{
	struct arena *a = x->run->a;
	const char *name = attr_str(x->r, "resolve", x->r->id);
	struct sockaddr_storage ss;
	socklen_t len;
	char err[300], ip[64];
	const char *addrs[1];
	int ok;

	if (strchr(name, ':') || attr(x->r, "server")) {
		x->skip = "record types and servers are not supported yet (A/AAAA by resolv.conf only)";
		test(x, "resolvable", NULL, NULL, 0);
		test(x, "addrs", NULL, NULL, 0);
		return;
	}
	ok = !netaddr_parse(arena_printf(a, "%s:0", name), 0, &ss, &len, err, sizeof(err));
	if (ok) {
		netaddr_format((struct sockaddr *)&ss, ip, sizeof(ip));
		*strrchr(ip, ':') = 0; /* the port */
		addrs[0] = ip[0] == '[' ? arena_strndup(a, ip + 1, strlen(ip) - 2) : arena_strdup(a, ip);
	}
	test(x, "resolvable", check_bool(a, ok), NULL, 0);
	test(x, "addrs", ok ? check_strs(a, addrs, 1) : NULL, arena_strdup(a, err), 0);
}

static void run_http(struct rctx *x)
{
	struct arena *a = x->run->a;
	struct check_http h = {0};
	struct check_http_answer ans = {0};
	const struct json_val *f = attr(x->r, "no-follow-redirects");
	char err[400] = "";
	struct json_val *body = NULL, *hd = NULL;
	const char *why;

	h.url = attr_str(x->r, "url", x->r->id);
	h.method = attr_str(x->r, "method", NULL);
	h.body = attr_str(x->r, "request-body", NULL);
	h.username = attr_str(x->r, "username", NULL);
	h.password = attr_str(x->r, "password", NULL);
	h.headers = attr(x->r, "request-headers");
	h.timeout_ms = attr_ms(x->r, "timeout", 5000);
	h.no_follow = f && f->type == JSON_BOOL && f->boolean;
	if (h.headers && h.headers->type != JSON_ARR)
		h.headers = NULL;
	if (!strncmp(h.url, "https://", 8)) {
		x->skip = "https: TLS is not supported";
		run_skipped(x);
		return;
	}
	if (*attr_str(x->r, "proxy", "")) {
		x->skip = "proxy is not supported";
		run_skipped(x);
		return;
	}
	if (!check_http_get(a, &h, &ans, err, sizeof(err))) {
		body = check_str(a, ans.body);
		body->len = ans.body_len;
		hd = check_str(a, ans.headers);
	}
	why = arena_strdup(a, err); /* results outlive this frame */
	test(x, "status", body ? check_num(a, ans.status) : NULL, why, 0);
	test(x, "headers", hd, why, 1);
	test(x, "body", body, why, 1);
}

static void run_interface(struct rctx *x)
{
	struct arena *a = x->run->a;
	const char *name = attr_str(x->r, "name", x->r->id), *why;
	char *mtu = slurp(a, sys(x, arena_printf(a, "/sys/class/net/%s/mtu", name)), NULL);
	struct json_val *l = check_strs(a, NULL, 0);
	struct ifaddrs *ifs = NULL, *i;
	size_t cap = 0;

	why = arena_printf(a, "interface %s: no such network interface", name);
	test(x, "exists", check_bool(a, mtu != NULL), NULL, 0);
	test(x, "mtu", mtu ? check_num(a, (double)strtoul(mtu, NULL, 10)) : NULL, why, 0);
	if (!attr(x->r, "addrs"))
		return;
	if (mtu && getifaddrs(&ifs) == 0) {
		for (i = ifs; i; i = i->ifa_next) {
			char ip[INET6_ADDRSTRLEN];
			const unsigned char *m;
			int fam = i->ifa_addr ? i->ifa_addr->sa_family : 0, bits = 0;
			size_t k, n = fam == AF_INET ? 4 : 16;
			const void *p;
			if (strcmp(i->ifa_name, name) || (fam != AF_INET && fam != AF_INET6))
				continue;
			p = fam == AF_INET ? (const void *)&((struct sockaddr_in *)i->ifa_addr)->sin_addr
					   : (const void *)&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr;
			m = i->ifa_netmask ? (fam == AF_INET ? (const unsigned char *)&((struct sockaddr_in *)i->ifa_netmask)->sin_addr
							     : (const unsigned char *)&((struct sockaddr_in6 *)i->ifa_netmask)->sin6_addr)
					   : NULL;
			for (k = 0; m && k < n; k++)
				bits += __builtin_popcount(m[k]);
			inet_ntop(fam, p, ip, sizeof(ip));
			check_append(a, l, &cap, check_str(a, arena_printf(a, "%s/%d", ip, bits)));
		}
		freeifaddrs(ifs);
	}
	test(x, "addrs", mtu ? l : NULL, why, 0);
}

static void run_net(struct rctx *x)
{
	if (!strcmp(x->r->type, "addr"))
		run_addr(x);
	else if (!strcmp(x->r->type, "dns"))
		run_dns(x);
	else if (!strcmp(x->r->type, "http"))
		run_http(x);
	else if (!strcmp(x->r->type, "interface"))
		run_interface(x);
}
#else
static void run_net(struct rctx *x)
{
	(void)x; /* skipped by the type table */
}
#endif

static void run_skipped(struct rctx *x)
{
	const char *p = x->t->tests;

	while (*p) {
		size_t n;
		p += strspn(p, " ");
		n = strcspn(p, " ");
		if (n)
			test(x, arena_strndup(x->run->a, p, n), NULL, NULL, 0);
		p += n;
	}
}

int check_resource(struct check_run *run, const struct check_res *r)
{
	struct rctx x = {0};

	x.run = run;
	x.r = r;
	x.t = type_of(r->type);
	x.t0 = now_ns();
	if (!x.t)
		return -1;
	x.skip = skipped(r) ? "skip: true" : x.t->skip;
	if (x.skip && strcmp(x.t->name, "command")) {
		run_skipped(&x);
		return 0;
	}
	if (!strcmp(r->type, "file"))
		run_file(&x);
	else if (!strcmp(r->type, "command"))
		run_command(&x);
	else if (!strcmp(r->type, "user") || !strcmp(r->type, "group"))
		run_user(&x, r->type[0] == 'g');
	else if (!strcmp(r->type, "port"))
		run_port(&x);
	else if (!strcmp(r->type, "process"))
		run_process(&x);
	else if (!strcmp(r->type, "package"))
		run_package(&x);
	else if (!strcmp(r->type, "kernel-param"))
		run_kernel_param(&x);
	else if (!strcmp(r->type, "mount"))
		run_mount(&x);
	else if (!strcmp(r->type, "matching"))
		run_matching(&x);
	else
		run_net(&x);
	return 0;
}
