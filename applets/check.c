/* check.c - run goss's gossfiles: assertions on files, users, ports, ...
 *
 * APPLET(check, "gossfile|g: vars: format|f: format-options|o* retry-timeout|r: sleep|s: max-concurrent#<1=50 sysroot: package: serve: endpoint: cache:", 0, 0, APPLET_CLI_ONLY|APPLET_OUTSIDE_ROOT|APPLET_DAEMON_SPAWN)
 *
 * config APPLET_CHECK
 *	bool "check: validate the system against a gossfile (goss validate)"
 *	default y
 *	help
 *	  usage: wickfs check [-g FILE|-] [--vars FILE] [-f FORMAT] [-r D -s D]
 *
 *	  Read a gossfile (YAML or JSON, goss's format; default ./goss.yaml)
 *	  and test the system: file, command, user, group, port, process,
 *	  package, kernel-param, mount and matching resources with goss's
 *	  matchers. addr (tcp), http (plain HTTP, no TLS), dns (A/AAAA
 *	  through resolv.conf) and interface. service is skipped (no init
 *	  system). Templates: {{.Env.X}}, {{.Vars.x}},
 *	  if/else/range/end, eq, ne, not, and, or, toLower, toUpper, mkSlice,
 *	  index, len, getEnv. Exit 0 when every test passes, 1 when one
 *	  fails, 78 when the gossfile cannot be loaded (the error names the
 *	  file, the line and the key).
 *
 *	  -g, --gossfile FILE    the gossfile; - reads stdin
 *	  --vars FILE            values for {{.Vars}} (YAML or JSON)
 *	  -f, --format F         documentation (default), rspecish, json,
 *	                         junit, tap, silent
 *	  -o, --format-options O accepted for goss's command lines, ignored
 *	  -r, --retry-timeout D  retry failing runs until D has passed (10s,
 *	                         500ms, 1m)
 *	  -s, --sleep D          between retries (default 1s)
 *	  --max-concurrent N     accepted; tests run one after another
 *	  --sysroot DIR          read /etc, /proc and package databases
 *	                         under DIR
 *	  --package F            accepted; the database found is read
 *	  --serve HOST:PORT      as goss serve: answer GET ENDPOINT with 200
 *	                         when every test passes, else 503, the
 *	                         report as the body; until killed
 *	  --endpoint PATH        (default /healthz)
 *	  --cache D              a report serves this long (default 5s)
 *
 *	  Example: wickfs check -g /goss.yaml --format junit > report.xml
 */
#define FOR_check
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include "applet_opts.h"
#include "applet.h"
#include "bytes.h"
#include "check.h"
#include "netaddr.h"

extern char **environ;

static int duration(struct req *r, int opt, long long *ms)
{
	const char *s = opt_str(r, opt);

	if (!s)
		return 0;
	*ms = check_duration_ms(s);
	if (*ms >= 0)
		return 0;
	buf_printf(r->err, "wickfs check: %s: not a duration (10s, 500ms, 1m)\n", s);
	return -1;
}

/* One request on fd: read its head, answer from the report (run again
 * when older than cache_ms). */
static void serve_one(struct req *r, const struct check_opts *o, int fd, long long cache_ms,
		      struct buf *rep, int *rc, long long *at)
{
	const char *ep = opt_str(r, OPT_endpoint) ? opt_str(r, OPT_endpoint) : "/healthz";
	char head[4096], *sp;
	size_t n = 0, el = strlen(ep);
	ssize_t k;
	int code;
	struct buf h;

	while (n < sizeof(head) - 1 && (k = read(fd, head + n, sizeof(head) - 1 - n)) > 0) {
		n += (size_t)k;
		head[n] = 0;
		if (strstr(head, "\r\n\r\n") || strstr(head, "\n\n"))
			break;
	}
	head[n] = 0;
	sp = strchr(head, ' ');
	if (!sp || (strncmp(head, "GET ", 4) && strncmp(head, "HEAD ", 5))) {
		code = 405;
	} else if (strncmp(sp + 1, ep, el) || (sp[1 + el] != ' ' && sp[1 + el] != '?')) {
		code = 404;
	} else {
		if (!*at || wfs_now_ms() - *at >= cache_ms) {
			buf_reset(rep);
			buf_reset(r->err);
			arena_reset(r->arena);
			*rc = check_run(r->ctx, r->arena, o, rep, r->err);
			if (r->err->len)
				buf_add(rep, r->err->p, r->err->len);
			*at = wfs_now_ms();
		}
		code = *rc ? 503 : 200;
	}
	buf_init(&h);
	buf_printf(&h, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
		       "Connection: close\r\n\r\n",
		   code, code == 200 ? "OK" : code == 503 ? "Service Unavailable"
				      : code == 404       ? "Not Found"
							  : "Method Not Allowed",
		   o->format && !strcmp(o->format, "json") ? "application/json" : "text/plain",
		   code == 200 || code == 503 ? rep->len : 0);
	if ((code == 200 || code == 503) && head[0] == 'G')
		buf_add(&h, rep->p, rep->len);
	if (!h.oom)
		bytes_write_all(fd, h.p, h.len);
	buf_free(&h);
}

/* --serve: goss serve's health endpoint. Returns only when it cannot
 * listen or accept. */
static int serve(struct req *r, const struct check_opts *o, long long cache_ms)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char e[200];
	struct timeval tv = {5, 0};
	struct buf rep;
	long long at = 0;
	int fd, c, rc = 0, one = 1;

	if (netaddr_parse(opt_str(r, OPT_serve), 1, &ss, &len, e, sizeof(e)))
		return buf_printf(r->err, "wickfs check: --serve %s: %s\n", opt_str(r, OPT_serve), e),
		       CHECK_BAD_FILE;
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&ss, len) || listen(fd, 64) ||
	    getsockname(fd, (struct sockaddr *)&ss, &len)) {
		buf_printf(r->err, "wickfs check: --serve %s: %s\n", opt_str(r, OPT_serve),
			   strerror(errno));
		return CHECK_BAD_FILE;
	}
	netaddr_format((struct sockaddr *)&ss, e, sizeof(e));
	buf_init(&rep);
	buf_printf(&rep, "wickfs check: serving on http://%s%s\n", e,
		   opt_str(r, OPT_endpoint) ? opt_str(r, OPT_endpoint) : "/healthz");
	bytes_write_all(2, rep.p, rep.len);
	while ((c = accept4(fd, NULL, NULL, SOCK_CLOEXEC)) >= 0 || errno == EINTR ||
	       errno == ECONNABORTED) {
		if (c < 0)
			continue;
		setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		serve_one(r, o, c, cache_ms, &rep, &rc, &at);
		close(c);
	}
	buf_printf(r->err, "wickfs check: accept: %s\n", strerror(errno));
	buf_free(&rep);
	close(fd);
	return 1;
}

int check_main(struct req *r)
{
	long long cache_ms = 5000;
	struct check_opts o = {0};

	r->text_done = 1; /* goss's own formats, never the envelope */
	o.gossfile = opt_str(r, OPT_gossfile);
	o.vars = opt_str(r, OPT_vars);
	o.format = opt_str(r, OPT_format);
	o.sysroot = opt_str(r, OPT_sysroot);
	o.env = environ;
	o.sleep_ms = 1000;
	if (duration(r, OPT_retry_timeout, &o.retry_ms) || duration(r, OPT_sleep, &o.sleep_ms) ||
	    duration(r, OPT_cache, &cache_ms))
		return CHECK_BAD_FILE;
	if (o.gossfile && o.gossfile[0] == '-' && !o.gossfile[1] &&
	    req_stdin(r, &o.data, &o.len)) {
		buf_puts(r->err, "wickfs check: cannot read stdin\n");
		return CHECK_BAD_FILE;
	}
	if (opt_str(r, OPT_serve))
		return serve(r, &o, cache_ms);
	return check_run(r->ctx, r->arena, &o, r->out, r->err);
}
