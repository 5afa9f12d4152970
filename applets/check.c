/* check.c - run goss's gossfiles: assertions on files, users, ports, ...
 *
 * APPLET(check, "gossfile|g: vars: format|f: format-options|o* retry-timeout|r: sleep|s: max-concurrent#<1=50 sysroot: package:", 0, 0, APPLET_CLI_ONLY|APPLET_OUTSIDE_ROOT|APPLET_DAEMON_SPAWN)
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
 *
 *	  Example: wickfs check -g /goss.yaml --format junit > report.xml
 */
#define FOR_check
#include <stdlib.h>
#include "applet_opts.h"
#include "applet.h"
#include "check.h"

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

int check_main(struct req *r)
{
	struct check_opts o = {0};

	r->text_done = 1; /* goss's own formats, never the envelope */
	o.gossfile = opt_str(r, OPT_gossfile);
	o.vars = opt_str(r, OPT_vars);
	o.format = opt_str(r, OPT_format);
	o.sysroot = opt_str(r, OPT_sysroot);
	o.env = environ;
	o.sleep_ms = 1000;
	if (duration(r, OPT_retry_timeout, &o.retry_ms) || duration(r, OPT_sleep, &o.sleep_ms))
		return CHECK_BAD_FILE;
	if (o.gossfile && o.gossfile[0] == '-' && !o.gossfile[1] &&
	    req_stdin(r, &o.data, &o.len)) {
		buf_puts(r->err, "wickfs check: cannot read stdin\n");
		return CHECK_BAD_FILE;
	}
	return check_run(r->ctx, r->arena, &o, r->out, r->err);
}
