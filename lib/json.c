/* json.c - the JSON writer every envelope goes through, and a parser */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "json.h"
#include "utf8.h"
#ifdef __SSE2__
#include <emmintrin.h>
#elif defined(__aarch64__) && defined(__ARM_NEON)
#define JSON_NEON 1
#include <arm_neon.h>
#endif

static const char hexdig[] = "0123456789abcdef";

/* Length of the run at s that needs no escaping: printable ASCII other
 * than '"' and '\\'. Sixteen bytes a step with SSE2 or NEON: the daemon
 * escapes every response's stdout, which is itself JSON. */
static size_t plain_run(const char *s, size_t n)
{
	size_t i = 0;
#ifdef __SSE2__
	const __m128i space = _mm_set1_epi8(0x20), quote = _mm_set1_epi8('"'),
		      bslash = _mm_set1_epi8('\\');

	for (; i + 16 <= n; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(s + i));
		/* signed compare: bytes >= 0x80 are negative, so below 0x20 */
		__m128i bad = _mm_or_si128(_mm_cmplt_epi8(v, space),
					   _mm_or_si128(_mm_cmpeq_epi8(v, quote),
							_mm_cmpeq_epi8(v, bslash)));
		int m = _mm_movemask_epi8(bad);
		if (m)
			return i + (size_t)__builtin_ctz((unsigned)m);
	}
#elif defined(JSON_NEON)
	const int8x16_t space = vdupq_n_s8(0x20);
	const uint8x16_t quote = vdupq_n_u8('"'), bslash = vdupq_n_u8('\\');

	for (; i + 16 <= n; i += 16) {
		uint8x16_t v = vld1q_u8((const uint8_t *)s + i), bad;

		/* signed compare: bytes >= 0x80 are negative, so below 0x20 */
		bad = vcltq_s8(vreinterpretq_s8_u8(v), space);
		bad = vorrq_u8(bad, vorrq_u8(vceqq_u8(v, quote),
					     vceqq_u8(v, bslash)));
		/* 4 bits per lane, the first bad lane at the lowest bits */
		uint64_t m = vget_lane_u64(vreinterpret_u64_u8(
						   vshrn_n_u16(vreinterpretq_u16_u8(bad), 4)),
					   0);
		if (m)
			return i + (size_t)(__builtin_ctzll(m) >> 2);
	}
#endif
	for (; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\')
			break;
	}
	return i;
}

/* Output is written straight into the buffer, room reserved a chunk of
 * input at a time (6 bytes out per byte in at most): source code is full
 * of tabs, and a call per escape was most of the cost. */
#define STR_CHUNK 4096

void json_str(struct buf *b, const char *s, size_t n)
{
	size_t i = 0;
	char *o;

	if (buf_reserve(b, 2))
		return;
	b->p[b->len++] = '"';
	while (i < n) {
		size_t end = i + (n - i > STR_CHUNK ? STR_CHUNK : n - i);

		if (buf_reserve(b, (end - i) * 6 + 8))
			return;
		o = b->p + b->len;
		while (i < end) {
			unsigned char c = (unsigned char)s[i];
			const char *esc;
			int cp, len;

			if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
				size_t run = plain_run(s + i, end - i);
				memcpy(o, s + i, run);
				o += run;
				i += run;
				continue;
			}
			if (c >= 0x80) {
				/* a sequence may run past the chunk: it still
				 * writes at most 6 bytes */
				len = utf8_decode(s + i, n - i, &cp);
				if (cp < 0 || cp == 0x2028 || cp == 0x2029) {
					esc = cp < 0 ? "\\ufffd" : cp == 0x2028 ? "\\u2028"
										: "\\u2029";
					memcpy(o, esc, 6);
					o += 6;
				} else {
					memcpy(o, s + i, (size_t)len);
					o += len;
				}
				i += (size_t)len;
				continue;
			}
			*o++ = '\\';
			switch (c) {
			case '"': *o++ = '"'; break;
			case '\\': *o++ = '\\'; break;
			case '\n': *o++ = 'n'; break;
			case '\r': *o++ = 'r'; break;
			case '\t': *o++ = 't'; break;
			default:
				memcpy(o, "u00", 3);
				o[3] = hexdig[c >> 4];
				o[4] = hexdig[c & 15];
				o += 5;
			}
			i++;
		}
		b->len = (size_t)(o - b->p);
	}
	if (buf_reserve(b, 1))
		return;
	b->p[b->len++] = '"';
	b->p[b->len] = 0;
}

size_t json_str_size(const char *s, size_t n, size_t budget, size_t *fit)
{
	size_t i = 0, size = 0;

	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		size_t in = 1, w = 6;

		if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
			in = w = plain_run(s + i, n - i);
			if (size + w > budget)
				in = w = budget - size; /* ASCII: cut anywhere */
		} else if (c >= 0x80) {
			int cp, len = utf8_decode(s + i, n - i, &cp);
			in = (size_t)len;
			if (cp >= 0 && cp != 0x2028 && cp != 0x2029)
				w = in;
		} else if (c == '"' || c == '\\' || c == '\n' || c == '\r' ||
			   c == '\t') {
			w = 2;
		}
		if (!in || size + w > budget)
			break;
		size += w;
		i += in;
	}
	if (fit)
		*fit = i;
	return size;
}

void json_cstr(struct buf *b, const char *s)
{
	json_str(b, s, strlen(s));
}

/* By hand: printf is a real cost when grep prints millions of lines. */
void json_int(struct buf *b, long long v)
{
	char tmp[24], *p = tmp + sizeof(tmp);
	unsigned long long u = v < 0 ? 0 - (unsigned long long)v : (unsigned long long)v;

	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--p = '-';
	buf_add(b, p, (size_t)(tmp + sizeof(tmp) - p));
}

void json_bool(struct buf *b, int v)
{
	buf_puts(b, v ? "true" : "false");
}

/* ---- parser ---- */

struct parser {
	struct arena *a;
	const char *s;
	size_t n, i;
	int depth;
	char *err;
	size_t errlen;
};

#define JSON_MAX_DEPTH 512

static int perr(struct parser *p, const char *what)
{
	if (p->i >= p->n)
		snprintf(p->err, p->errlen, "unexpected end of input at offset %zu",
			 p->i);
	else if (isprint((unsigned char)p->s[p->i]))
		snprintf(p->err, p->errlen, "%s: found '%c' at offset %zu", what,
			 p->s[p->i], p->i);
	else
		snprintf(p->err, p->errlen, "%s: found byte 0x%02x at offset %zu",
			 what, (unsigned char)p->s[p->i], p->i);
	return -1;
}

static void skip_ws(struct parser *p)
{
	while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' ||
			       p->s[p->i] == '\n' || p->s[p->i] == '\r'))
		p->i++;
}

static int hex4(const char *s, unsigned *v)
{
	unsigned x = 0;
	int k;

	for (k = 0; k < 4; k++) {
		char c = s[k];
		x <<= 4;
		if (c >= '0' && c <= '9')
			x |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			x |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			x |= (unsigned)(c - 'A' + 10);
		else
			return -1;
	}
	*v = x;
	return 0;
}

/* Strings decode into the arena; invalid UTF-8 inside becomes U+FFFD, as
 * Go's decoder does. */
static int parse_str(struct parser *p, const char **out, size_t *outlen)
{
	size_t start = ++p->i, j, o = 0;
	char *d;

	for (j = start; j < p->n && p->s[j] != '"'; j++)
		if (p->s[j] == '\\')
			j++;
	if (j >= p->n) {
		p->i = p->n;
		return perr(p, "unterminated string");
	}
	/* Worst case growth: an invalid byte (1) becomes U+FFFD (3). */
	d = arena_alloc(p->a, (j - start) * 3 + 1);
	if (!d)
		return perr(p, "out of memory");
	while (p->i < p->n) {
		unsigned char c = (unsigned char)p->s[p->i];
		unsigned cp, lo;
		int dcp, len;

		if (c == '"') {
			p->i++;
			d[o] = 0;
			*out = d;
			*outlen = o;
			return 0;
		}
		if (c < 0x20)
			return perr(p, "invalid control character in string");
		if (c >= 0x80) {
			len = utf8_decode(p->s + p->i, p->n - p->i, &dcp);
			if (dcp < 0)
				o += utf8_encode(d + o, 0xfffd);
			else {
				memcpy(d + o, p->s + p->i, (size_t)len);
				o += (size_t)len;
			}
			p->i += (size_t)len;
			continue;
		}
		if (c != '\\') {
			d[o++] = (char)c;
			p->i++;
			continue;
		}
		if (++p->i >= p->n)
			return perr(p, "unterminated escape");
		switch (p->s[p->i]) {
		case '"': d[o++] = '"'; break;
		case '\\': d[o++] = '\\'; break;
		case '/': d[o++] = '/'; break;
		case 'b': d[o++] = '\b'; break;
		case 'f': d[o++] = '\f'; break;
		case 'n': d[o++] = '\n'; break;
		case 'r': d[o++] = '\r'; break;
		case 't': d[o++] = '\t'; break;
		case 'u':
			if (p->n - p->i < 5 || hex4(p->s + p->i + 1, &cp))
				return perr(p, "invalid \\u escape");
			p->i += 4;
			if (cp >= 0xd800 && cp < 0xdc00 && p->n - p->i >= 7 &&
			    p->s[p->i + 1] == '\\' && p->s[p->i + 2] == 'u' &&
			    !hex4(p->s + p->i + 3, &lo) && lo >= 0xdc00 &&
			    lo < 0xe000) {
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				p->i += 6;
			} else if (cp >= 0xd800 && cp < 0xe000) {
				cp = 0xfffd;
			}
			o += utf8_encode(d + o, cp);
			break;
		default:
			return perr(p, "invalid escape character");
		}
		p->i++;
	}
	return perr(p, "unterminated string");
}

/* The value of a validated JSON number. Plain arithmetic instead of
 * strtod, whose float scanner would be most of this file's code size;
 * the callers use integers (timeouts, exit codes), which come out exact. */
static double num_value(const char *s)
{
	double v = 0, scale = 1;
	int neg = *s == '-', eneg = 0;
	long e = 0;

	s += neg;
	while (*s >= '0' && *s <= '9')
		v = v * 10 + (*s++ - '0');
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9'; s++)
			v += (*s - '0') * (scale /= 10);
	if (*s == 'e' || *s == 'E') {
		s++;
		eneg = *s == '-';
		s += *s == '-' || *s == '+';
		while (*s >= '0' && *s <= '9' && e < 400)
			e = e * 10 + (*s++ - '0');
	}
	while (e-- > 0)
		v = eneg ? v / 10 : v * 10;
	return neg ? -v : v;
}

static int parse_num(struct parser *p, struct json_val *v)
{
	size_t st = p->i;

	if (p->i < p->n && p->s[p->i] == '-')
		p->i++;
	if (p->i >= p->n || !isdigit((unsigned char)p->s[p->i]))
		return perr(p, "invalid number");
	if (p->s[p->i] == '0')
		p->i++;
	else
		while (p->i < p->n && isdigit((unsigned char)p->s[p->i]))
			p->i++;
	if (p->i < p->n && p->s[p->i] == '.') {
		p->i++;
		if (p->i >= p->n || !isdigit((unsigned char)p->s[p->i]))
			return perr(p, "invalid number");
		while (p->i < p->n && isdigit((unsigned char)p->s[p->i]))
			p->i++;
	}
	if (p->i < p->n && (p->s[p->i] == 'e' || p->s[p->i] == 'E')) {
		p->i++;
		if (p->i < p->n && (p->s[p->i] == '+' || p->s[p->i] == '-'))
			p->i++;
		if (p->i >= p->n || !isdigit((unsigned char)p->s[p->i]))
			return perr(p, "invalid number");
		while (p->i < p->n && isdigit((unsigned char)p->s[p->i]))
			p->i++;
	}
	v->type = JSON_NUM;
	v->str = arena_strndup(p->a, p->s + st, p->i - st);
	if (!v->str)
		return perr(p, "out of memory");
	v->len = p->i - st;
	v->num = num_value(v->str);
	return 0;
}

static int parse_val(struct parser *p, struct json_val *v);

/* Arrays and objects collect members in a growing arena array. */
static int grow(struct parser *p, struct json_val *v, size_t *cap, int obj)
{
	size_t c1 = *cap, c2 = *cap, c3 = *cap;

	if (arena_grow(p->a, &v->items, &c1, v->len + 1, sizeof(*v->items)) ||
	    (obj && (arena_grow(p->a, &v->keys, &c2, v->len + 1, sizeof(*v->keys)) ||
		     arena_grow(p->a, &v->key_lens, &c3, v->len + 1,
				sizeof(*v->key_lens)))))
		return perr(p, "out of memory");
	*cap = c1;
	return 0;
}

static int parse_container(struct parser *p, struct json_val *v, int obj)
{
	char close = obj ? '}' : ']';
	size_t cap = 0;

	if (++p->depth > JSON_MAX_DEPTH)
		return perr(p, "nesting too deep");
	v->type = obj ? JSON_OBJ : JSON_ARR;
	p->i++;
	skip_ws(p);
	if (p->i < p->n && p->s[p->i] == close) {
		p->i++;
		p->depth--;
		return 0;
	}
	for (;;) {
		if (v->len == cap && grow(p, v, &cap, obj))
			return -1;
		if (obj) {
			skip_ws(p);
			if (p->i >= p->n || p->s[p->i] != '"')
				return perr(p, "expected a string for an object key");
			if (parse_str(p, &v->keys[v->len], &v->key_lens[v->len]))
				return -1;
			skip_ws(p);
			if (p->i >= p->n || p->s[p->i] != ':')
				return perr(p, "expected ':' after object key");
			p->i++;
		}
		if (parse_val(p, &v->items[v->len]))
			return -1;
		v->len++;
		skip_ws(p);
		if (p->i < p->n && p->s[p->i] == ',') {
			p->i++;
			continue;
		}
		if (p->i < p->n && p->s[p->i] == close) {
			p->i++;
			p->depth--;
			return 0;
		}
		return perr(p, obj ? "expected ',' or '}' in object"
				   : "expected ',' or ']' in array");
	}
}

static int lit(struct parser *p, const char *word)
{
	size_t n = strlen(word);

	if (p->n - p->i < n || memcmp(p->s + p->i, word, n))
		return perr(p, "invalid literal");
	p->i += n;
	return 0;
}

static int parse_val(struct parser *p, struct json_val *v)
{
	memset(v, 0, sizeof(*v));
	skip_ws(p);
	if (p->i >= p->n)
		return perr(p, "expected a value");
	switch (p->s[p->i]) {
	case '{':
		return parse_container(p, v, 1);
	case '[':
		return parse_container(p, v, 0);
	case '"':
		v->type = JSON_STR;
		return parse_str(p, &v->str, &v->len);
	case 't':
		v->type = JSON_BOOL;
		v->boolean = 1;
		return lit(p, "true");
	case 'f':
		v->type = JSON_BOOL;
		return lit(p, "false");
	case 'n':
		v->type = JSON_NULL;
		return lit(p, "null");
	default:
		if (p->s[p->i] == '-' || isdigit((unsigned char)p->s[p->i]))
			return parse_num(p, v);
		return perr(p, "expected a value");
	}
}

int json_parse(struct arena *a, const char *s, size_t n, struct json_val *out,
	       char *err, size_t errlen)
{
	struct parser p = {a, s, n, 0, 0, err, errlen};

	if (parse_val(&p, out))
		return -1;
	skip_ws(&p);
	if (p.i != p.n)
		return perr(&p, "unexpected data after the value");
	return 0;
}

const struct json_val *json_get(const struct json_val *obj, const char *key)
{
	size_t i, kl = strlen(key);

	if (!obj || obj->type != JSON_OBJ)
		return NULL;
	/* Go fills the field once per matching key, in order: the last
	 * member whose name matches case-insensitively wins. */
	for (i = obj->len; i-- > 0;)
		if (obj->key_lens[i] == kl && !strncasecmp(obj->keys[i], key, kl))
			return &obj->items[i];
	return NULL;
}

int json_get_str(const struct json_val *obj, const char *key, const char **s,
		 size_t *len)
{
	const struct json_val *m = json_get(obj, key);

	if (!m || m->type == JSON_NULL)
		return 0;
	if (m->type != JSON_STR)
		return -1;
	*s = m->str;
	if (len)
		*len = m->len;
	return 0;
}
