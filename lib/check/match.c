/* match.c - goss's matchers over JSON values
 *
 * An expected scalar means equality, a list means contain-elements, a
 * one-key map names a matcher. When the system's value has another type
 * than the matcher wants it is transformed first, as goss documents:
 * to a string, to a number, or to a list (a string split on newlines).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check_int.h"
#include "re.h"
#include "text.h"

static int digit(char c)
{
	return c >= '0' && c <= '9';
}

double check_strtod(const char *s, char **end)
{
	const char *p = s;
	double v = 0, scale = 1;
	int neg = 0, digits = 0, ex = 0, eneg = 0;

	if (*p == '+' || *p == '-')
		neg = *p++ == '-';
	for (; digit(*p); p++, digits++)
		v = v * 10 + (*p - '0');
	if (*p == '.')
		for (p++; digit(*p); p++, digits++)
			v += (*p - '0') * (scale /= 10);
	if (!digits) {
		*end = (char *)s;
		return 0;
	}
	if ((*p == 'e' || *p == 'E') &&
	    (digit(p[1]) || ((p[1] == '+' || p[1] == '-') && digit(p[2])))) {
		p++;
		if (*p == '+' || *p == '-')
			eneg = *p++ == '-';
		for (; digit(*p); p++)
			if (ex < 400)
				ex = ex * 10 + (*p - '0');
		while (ex-- > 0)
			v = eneg ? v / 10 : v * 10;
	}
	*end = (char *)p;
	return neg ? -v : v;
}

struct json_val *check_str(struct arena *a, const char *s)
{
	struct json_val *v = arena_alloc(a, sizeof(*v));

	if (!v)
		return NULL;
	memset(v, 0, sizeof(*v));
	v->type = JSON_STR;
	v->str = s;
	v->len = strlen(s);
	return v;
}

long long check_ms(double d)
{
	return d > 1e12 ? (long long)1e12 : (d > 0 ? (long long)d : 0);
}

static const char *number_text(struct arena *a, double d)
{
	double m = d < 0 ? -d : d;
	long long ip, fp;
	int e = 0;
	char *s, *z;

	if (d != d)
		return "NaN";
	if (m > 1.7976931348623157e308) /* beyond DBL_MAX: infinite */
		return d < 0 ? "-Inf" : "+Inf";
	if (m < 9e18 && d == (double)(long long)d)
		return arena_printf(a, "%lld", (long long)d);
	while (m >= 1e15) /* big: digits and an exponent */
		m /= 10, e++;
	ip = (long long)m;
	fp = (long long)((m - (double)ip) * 1e6 + 0.5);
	if (fp >= 1000000)
		ip++, fp -= 1000000;
	s = arena_printf(a, "%s%lld.%06lld", d < 0 ? "-" : "", ip, fp);
	for (z = s ? s + strlen(s) - 1 : NULL; z && *z == '0'; z--)
		*z = 0;
	if (z && *z == '.')
		*z = 0;
	return e && s ? arena_printf(a, "%se+%d", s, e) : s;
}

struct json_val *check_num(struct arena *a, double d)
{
	struct json_val *v = arena_alloc(a, sizeof(*v));

	if (!v)
		return NULL;
	memset(v, 0, sizeof(*v));
	v->type = JSON_NUM;
	v->num = d;
	/* integers as such, others with six significant decimals (the
	 * printf here has no floating point) */
	v->str = number_text(a, d);
	return v;
}

struct json_val *check_bool(struct arena *a, int b)
{
	struct json_val *v = arena_alloc(a, sizeof(*v));

	if (!v)
		return NULL;
	memset(v, 0, sizeof(*v));
	v->type = JSON_BOOL;
	v->boolean = !!b;
	return v;
}

int check_append(struct arena *a, struct json_val *arr, size_t *cap, const struct json_val *v)
{
	if (!v || arena_grow(a, &arr->items, cap, arr->len + 1, sizeof(*arr->items)))
		return -1;
	arr->items[arr->len++] = *v;
	return 0;
}

struct json_val *check_strs(struct arena *a, const char **s, size_t n)
{
	struct json_val *v = arena_alloc(a, sizeof(*v));
	size_t i, cap = 0;

	if (!v)
		return NULL;
	memset(v, 0, sizeof(*v));
	v->type = JSON_ARR;
	for (i = 0; i < n; i++)
		if (check_append(a, v, &cap, check_str(a, s[i])))
			return NULL;
	return v;
}

const char *check_show(struct arena *a, const struct json_val *v)
{
	struct buf b;
	const char *s;

	buf_init(&b);
	text_json(&b, v);
	s = arena_strndup(a, b.p ? b.p : "", b.len);
	buf_free(&b);
	return s ? s : "";
}

/* clang-format off */
static const char *const matchers[] = {
	"equal", "contain-element", "contain-elements", "consist-of", "have-len", "have-key",
	"contain-substring", "have-prefix", "have-suffix", "match-regexp",
	"gt", "ge", "lt", "le", "not", "and", "or", NULL,
};
/* clang-format on */

const char *check_matcher_valid(const struct json_val *e)
{
	const char *name, *why;
	size_t i;

	if (e->type == JSON_ARR) {
		for (i = 0; i < e->len; i++)
			if ((why = check_matcher_valid(&e->items[i])))
				return why;
		return NULL;
	}
	if (e->type != JSON_OBJ)
		return NULL;
	if (e->len != 1)
		return "a matcher is a map of one key";
	name = e->keys[0];
	for (i = 0; matchers[i]; i++)
		if (!strcmp(matchers[i], name))
			break;
	if (!matchers[i])
		return name;
	e = &e->items[0];
	if (!strcmp(name, "and") || !strcmp(name, "or") || !strcmp(name, "contain-elements") ||
	    !strcmp(name, "consist-of")) {
		if (e->type != JSON_ARR)
			return name;
	} else if (name[0] == 'g' || name[0] == 'l' || !strcmp(name, "have-len")) {
		if (e->type != JSON_NUM)
			return name;
	} else if (!strcmp(name, "have-key") || !strcmp(name, "match-regexp") ||
		   !strcmp(name, "have-prefix") || !strcmp(name, "have-suffix") ||
		   !strcmp(name, "contain-substring")) {
		if (e->type != JSON_STR && e->type != JSON_NUM)
			return name;
	}
	if (e->type == JSON_OBJ || e->type == JSON_ARR)
		return check_matcher_valid(e);
	return NULL;
}

/* The transforms. */
static const char *as_string(struct arena *a, const struct json_val *v, size_t *n)
{
	if (v->type == JSON_STR) {
		*n = v->len;
		return v->str;
	}
	if (v->type == JSON_NUM || v->type == JSON_BOOL || v->type == JSON_NULL) {
		const char *s = v->type == JSON_NUM ? v->str
						    : (v->type == JSON_NULL ? "" : (v->boolean ? "true" : "false"));
		*n = strlen(s);
		return s;
	}
	(void)a;
	return NULL;
}

static int as_number(const struct json_val *v, double *d)
{
	char *end;

	if (v->type == JSON_NUM) {
		*d = v->num;
		return 0;
	}
	if (v->type != JSON_STR || !v->len)
		return -1;
	*d = check_strtod(v->str, &end);
	while (*end == ' ' || *end == '\n')
		end++;
	return *end ? -1 : 0;
}

static const struct json_val *as_list(struct arena *a, const struct json_val *v)
{
	struct json_val *l;
	size_t cap = 0;

	if (v->type == JSON_ARR)
		return v;
	l = arena_alloc(a, sizeof(*l));
	if (!l)
		return NULL;
	memset(l, 0, sizeof(*l));
	l->type = JSON_ARR;
	if (v->type == JSON_STR) {
		const char *s = v->str, *e = s + v->len;
		while (s < e) {
			const char *nl = memchr(s, '\n', (size_t)(e - s));
			size_t len = nl ? (size_t)(nl - s) : (size_t)(e - s);
			if (check_append(a, l, &cap, check_str(a, arena_strndup(a, s, len))))
				return NULL;
			s += len + 1;
		}
		return l;
	}
	if (v->type != JSON_OBJ && check_append(a, l, &cap, v))
		return NULL;
	return l;
}

static int deep_equal(const struct json_val *x, const struct json_val *y)
{
	size_t i;

	if (x->type != y->type)
		return 0;
	switch (x->type) {
	case JSON_NULL:
		return 1;
	case JSON_BOOL:
		return x->boolean == y->boolean;
	case JSON_NUM:
		return x->num == y->num;
	case JSON_STR:
		return x->len == y->len && !memcmp(x->str, y->str, x->len);
	default:
		if (x->len != y->len)
			return 0;
		for (i = 0; i < x->len; i++)
			if ((x->type == JSON_OBJ && strcmp(x->keys[i], y->keys[i])) ||
			    !deep_equal(&x->items[i], &y->items[i]))
				return 0;
		return 1;
	}
}

static int equal(struct arena *a, const struct json_val *act, const struct json_val *exp,
		 const char **how)
{
	size_t n;
	const char *s;
	double d;

	*how = "equal";
	switch (exp->type) {
	case JSON_STR:
		s = as_string(a, act, &n);
		return s && n == exp->len && !memcmp(s, exp->str, n);
	case JSON_NUM:
		if (as_number(act, &d)) {
			*how = "be a number equal to";
			return 0;
		}
		return d == exp->num;
	case JSON_BOOL:
		if (act->type == JSON_STR)
			return !strcmp(act->str, exp->boolean ? "true" : "false");
		return act->type == JSON_BOOL && act->boolean == exp->boolean;
	default:
		return deep_equal(act, exp);
	}
}

static int regex(struct arena *a, const char *pat, size_t plen, const char *s, size_t n,
		 const char **how)
{
	char err[200];
	struct re *re = re_compile(pat, plen, 0, err, sizeof(err));
	size_t me;
	int rc;

	if (!re) {
		*how = arena_strdup(a, err);
		return -1;
	}
	rc = re_search(re, s, n, 0, NULL, &me);
	re_free(re);
	if (rc < 0)
		*how = "regular expression: internal limit reached";
	return rc;
}

static int elements(struct arena *a, const struct json_val *list, const struct json_val *want,
		    int consist, const char **how)
{
	size_t i, j;
	char *used = arena_alloc(a, list->len + 1);
	const char *sub;

	if (!used)
		return -1;
	memset(used, 0, list->len + 1);
	if (consist && list->len != want->len)
		return 0;
	for (i = 0; i < want->len; i++) {
		for (j = 0; j < list->len; j++) {
			int rc;
			if (used[j]) /* each element counts once, as goss 0.4 does */
				continue;
			rc = check_match(a, &list->items[j], &want->items[i], &sub);
			if (rc < 0) {
				*how = sub;
				return -1;
			}
			if (rc)
				break;
		}
		if (j == list->len)
			return 0;
		used[j] = 1;
	}
	return 1;
}

int check_match(struct arena *a, const struct json_val *act, const struct json_val *exp,
		const char **how)
{
	const struct json_val *arg, *l;
	const char *name, *s, *sub;
	size_t n, i;
	double x, y;
	int rc;

	if (exp->type == JSON_ARR) {
		*how = "contain elements";
		l = as_list(a, act);
		return l ? elements(a, l, exp, 0, how) : -1;
	}
	if (exp->type != JSON_OBJ)
		return equal(a, act, exp, how);
	if (exp->len != 1) {
		*how = "a matcher is a map of one key";
		return -1;
	}
	name = exp->keys[0];
	arg = &exp->items[0];
	*how = name;
	if (!strcmp(name, "equal"))
		return arg->type == JSON_ARR || arg->type == JSON_OBJ ? deep_equal(act, arg)
								      : equal(a, act, arg, how);
	if (!strcmp(name, "not")) {
		rc = check_match(a, act, arg, &sub);
		*how = rc < 0 ? sub : arena_printf(a, "not %s", sub);
		return rc < 0 ? rc : !rc;
	}
	if (!strcmp(name, "and") || !strcmp(name, "or")) {
		int any = name[0] == 'o';
		for (i = 0; i < arg->len; i++) {
			rc = check_match(a, act, &arg->items[i], &sub);
			if (rc < 0) {
				*how = sub;
				return rc;
			}
			if (rc == any)
				return any;
			if (!any)
				*how = arena_printf(a, "and: %s", sub);
		}
		return !any;
	}
	if (!strcmp(name, "contain-element")) {
		if (!(l = as_list(a, act)))
			return -1;
		for (i = 0; i < l->len; i++) {
			rc = check_match(a, &l->items[i], arg, &sub);
			if (rc)
				return rc;
		}
		*how = "contain element matching";
		return 0;
	}
	if (!strcmp(name, "contain-elements") || !strcmp(name, "consist-of")) {
		if (!(l = as_list(a, act)))
			return -1;
		*how = name[3] == 's' ? "consist of" : "contain elements";
		return elements(a, l, arg, name[3] == 's', how);
	}
	if (!strcmp(name, "have-len")) {
		n = act->type == JSON_STR || act->type >= JSON_ARR ? act->len : 0;
		*how = "have length";
		return (double)n == arg->num;
	}
	if (!strcmp(name, "have-key")) {
		for (i = 0; act->type == JSON_OBJ && i < act->len; i++)
			if (!strcmp(act->keys[i], arg->str))
				return 1;
		*how = "have key";
		return 0;
	}
	if (name[0] == 'g' || name[0] == 'l') {
		if (as_number(act, &x)) {
			*how = arena_printf(a, "be a number to compare (%s)", name);
			return 0;
		}
		y = arg->num;
		*how = arena_printf(a, "be %s", !strcmp(name, "gt") ? ">" : (!strcmp(name, "ge") ? ">=" : (!strcmp(name, "lt") ? "<" : "<=")));
		return !strcmp(name, "gt") ? x > y : (!strcmp(name, "ge") ? x >= y : (!strcmp(name, "lt") ? x < y : x <= y));
	}
	/* string matchers */
	s = as_string(a, act, &n);
	if (!s) {
		*how = arena_printf(a, "be a string to %s", name);
		return 0;
	}
	if (!strcmp(name, "match-regexp")) {
		*how = "match regular expression";
		return regex(a, arg->str, strlen(arg->str), s, n, how);
	}
	i = strlen(arg->str);
	if (!strcmp(name, "have-prefix")) {
		*how = "have prefix";
		return n >= i && !memcmp(s, arg->str, i);
	}
	if (!strcmp(name, "have-suffix")) {
		*how = "have suffix";
		return n >= i && !memcmp(s + n - i, arg->str, i);
	}
	if (!strcmp(name, "contain-substring")) {
		*how = "contain substring";
		return !i || (n >= i && memmem(s, n, arg->str, i) != NULL);
	}
	*how = arena_printf(a, "unknown matcher %s", name);
	return -1;
}

/* Does any line of text match pattern p (plain or /regex/)? */
static int any_line(struct arena *a, const char *text, size_t len, const char *p, size_t pl,
		    const char **how)
{
	const char *s = text, *e = text + len;
	int re = pl >= 2 && p[0] == '/' && p[pl - 1] == '/';

	while (s <= e) {
		const char *nl = memchr(s, '\n', (size_t)(e - s));
		size_t n = nl ? (size_t)(nl - s) : (size_t)(e - s);
		int rc = re ? regex(a, p + 1, pl - 2, s, n, how)
			    : (!pl || (n >= pl && memmem(s, n, p, pl) != NULL));

		if (rc)
			return rc;
		if (!nl)
			break;
		s = nl + 1;
	}
	return 0;
}

int check_patterns(struct arena *a, const char *text, size_t len, const struct json_val *exp,
		   const char **how)
{
	struct buf miss;
	size_t i, n = exp->type == JSON_ARR ? exp->len : 1;
	int ok = 1;

	buf_init(&miss);
	for (i = 0; i < n; i++) {
		const struct json_val *v = exp->type == JSON_ARR ? &exp->items[i] : exp;
		const char *p;
		size_t pl;
		int neg = 0, rc;

		if (!(p = as_string(a, v, &pl)) || v->type == JSON_NULL) {
			*how = "a pattern is a string";
			buf_free(&miss);
			return -1;
		}
		if (pl && p[0] == '!') {
			neg = 1;
			p++, pl--;
		} else if (pl > 1 && p[0] == '\\' && p[1] == '!') {
			p++, pl--;
		}
		rc = any_line(a, text, len, p, pl, how);
		if (rc < 0) {
			buf_free(&miss);
			return -1;
		}
		if (rc == neg) {
			buf_puts(&miss, miss.len ? "," : "[");
			text_json(&miss, v);
			ok = 0;
		}
	}
	if (!ok) {
		buf_putc(&miss, ']');
		*how = arena_printf(a, "have patterns (missing %.*s)", (int)miss.len, miss.p);
	}
	buf_free(&miss);
	return ok;
}
