/* settings_test.c - the settings table: variables read as they always
 * were, and what a request may change (lib/settings.c) */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include "settings.h"
#include "unit.h"

static void expect(const char *name, int cond, const char *detail)
{
	if (cond)
		unit_ok(name);
	else
		unit_fail(name, "%s", detail);
}

static const struct setting *row(const char *name)
{
	const struct setting *t;

	for (t = settings_table; t->name; t++)
		if (!strcmp(t->name, name))
			return t;
	return NULL;
}

int main(void)
{
	char *env[] = {"WICKFS_MAX_FILE=1000", "WICKFS_FSYNC=", "WICKFS_THREADS=4x",
		       "WICKFS_READONLY=Yes", "WICKFS_UNPACK_MAX=0", "OTHER=1", NULL};
	char *bad[] = {"WICKFS_READONLY=ture", NULL};
	char *none[] = {NULL};
	struct settings s, r;
	char err[256] = "";

	expect("settings.from_env", !settings_from_env(&s, env, err, sizeof(err)), err);
	expect("settings.max_file", s.max_file == 1000, "WICKFS_MAX_FILE=1000 not read");
	expect("settings.fsync_empty_is_set", s.fsync == 1, "WICKFS_FSYNC= is not on");
	expect("settings.threads_bad", s.threads_given && s.threads_bad && !strcmp(s.threads_bad, "4x"),
	       "WICKFS_THREADS=4x not kept as not a number");
	expect("settings.readonly_any_case", s.readonly == 1, "Yes is not on");
	expect("settings.unpack_zero_default", s.unpack_max == settings_defaults.unpack_max,
	       "WICKFS_UNPACK_MAX=0 does not leave the default");
	expect("settings.env_lookup", settings_env(&s, "OTHER") && !strcmp(settings_env(&s, "OTHER"), "1") && !settings_env(&s, "OTHE"),
	       "OTHER=1 not found by its exact name");
	expect("settings.bad_boolean", settings_from_env(&s, bad, err, sizeof(err)) && strstr(err, "WICKFS_READONLY=ture: not a boolean"),
	       err);
	expect("settings.defaults", !settings_from_env(&s, none, err, sizeof(err)) && s.max_file == (size_t)1 << 30 && !s.threads_given && s.timeout == SETTINGS_DEFAULT_TIMEOUT,
	       "no variable: not the defaults");

	/* Requests: lower a cap, never raise it; the base stays as it was. */
	s.max_file = 1000;
	r = s;
	expect("settings.request_lower", !settings_request(&r, &s, row("max_file"), 50, err, sizeof(err)) && r.max_file == 50 && s.max_file == 1000, err);
	r = s;
	expect("settings.request_raise_refused",
	       settings_request(&r, &s, row("max_file"), 5000, err, sizeof(err)) &&
		       !strcmp(err, "max_file: takes 1 to 1000 bytes (at most the server's own), got 5000") &&
		       r.max_file == 1000,
	       err);
	expect("settings.request_zero_refused",
	       settings_request(&r, &s, row("max_output"), 0, err, sizeof(err)) != 0, "0 accepted");
	expect("settings.request_huge_refused",
	       settings_request(&r, &s, row("max_output"), 1e300, err, sizeof(err)) != 0, "1e300 accepted");
	expect("settings.request_not_whitelisted",
	       settings_request(&r, &s, row("root"), 1, err, sizeof(err)) &&
		       strstr(err, "not a setting a request may change"),
	       err);
	settings_request(&r, &s, row("timeout"), 0, err, sizeof(err));
	expect("settings.timeout_zero_default", r.timeout == SETTINGS_DEFAULT_TIMEOUT, "0 not the default");
	settings_request(&r, &s, row("timeout"), HUGE_VAL, err, sizeof(err));
	expect("settings.timeout_century", r.timeout == 100LL * 365 * 86400, "infinity not a century");
	settings_request(&r, &s, row("timeout"), 7.9, err, sizeof(err));
	expect("settings.timeout_seconds", r.timeout == 7, "7.9 not 7");
	return unit_done();
}
