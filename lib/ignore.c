/* ignore.c - .gitignore rules, for the walks of grep and glob and for pack
 *
 * One set per directory that has a .gitignore, chained to the set of the
 * directory above it; a lookup asks the deepest set first and its last
 * rule first, so the first rule that matches decides, as git does.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fs.h"
#include "globmatch.h"
#include "ignore.h"

struct ignore_rule {
	char *pat;
	int negate, dir_only, anchored;
};

struct ignore_set {
	struct ignore_set *parent;
	size_t rel_len; /* length of its directory's path relative to the root */
	struct ignore_rule *rules;
	size_t n;
	char *text;
};

void ignore_free(struct ignore_set *s)
{
	if (!s)
		return;
	free(s->rules);
	free(s->text);
	free(s);
}

/* Parse the .gitignore in the directory open at dirfd; NULL when there is
 * none (or it is empty). Confined, a .gitignore that is a symlink is not
 * followed: it could lead out of the root. */
struct ignore_set *ignore_load(int dirfd, int confined, const char *rel,
			       struct ignore_set *parent)
{
	struct ignore_set *s;
	char *line, *next;
	struct stat st;
	size_t cap = 0, got = 0;
	ssize_t k = 1;
	int fd;

	fd = fs_openat_raw(dirfd, ".gitignore",
			   O_RDONLY | O_NONBLOCK | (confined ? O_NOFOLLOW : 0));
	if (fd < 0)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (s && !fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size <= (1 << 20) &&
	    (s->text = calloc(1, (size_t)st.st_size + 1)))
		while (got < (size_t)st.st_size &&
		       ((k = read(fd, s->text + got, (size_t)st.st_size - got)) > 0 ||
			(k < 0 && errno == EINTR)))
			got += k > 0 ? (size_t)k : 0;
	close(fd);
	if (!s || !s->text || got != (size_t)st.st_size) {
		ignore_free(s);
		return NULL;
	}
	s->parent = parent;
	s->rel_len = strlen(rel);
	for (line = s->text; line && *line; line = next) {
		struct ignore_rule r = {0};
		size_t len;

		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		len = strlen(line);
		if (len && line[len - 1] == '\r')
			line[--len] = 0;
		while (len && line[len - 1] == ' ' && (len < 2 || line[len - 2] != '\\'))
			line[--len] = 0;
		if (!len || line[0] == '#')
			continue;
		if (line[0] == '!') {
			r.negate = 1;
			line++;
			len--;
		} else if (line[0] == '\\' && (line[1] == '!' || line[1] == '#')) {
			line++;
			len--;
		}
		if (len && line[len - 1] == '/') {
			r.dir_only = 1;
			line[--len] = 0;
		}
		if (!len)
			continue;
		r.anchored = strchr(line, '/') != NULL;
		if (line[0] == '/')
			line++;
		r.pat = line;
		if (s->n == cap) {
			struct ignore_rule *nr;
			cap = cap ? cap * 2 : 16;
			nr = realloc(s->rules, cap * sizeof(*nr));
			if (!nr) {
				ignore_free(s);
				return NULL;
			}
			s->rules = nr;
		}
		s->rules[s->n++] = r;
	}
	if (!s->n) {
		ignore_free(s);
		return NULL;
	}
	return s;
}

/* Deepest .gitignore first, last rule first: the first hit decides. */
int ignore_match(const struct ignore_set *s, const char *rel, const char *name,
		 int is_dir)
{
	for (; s; s = s->parent) {
		size_t dl = s->rel_len;
		const char *sub = rel + (dl ? dl + 1 : 0);
		size_t i;

		for (i = s->n; i-- > 0;) {
			const struct ignore_rule *r = &s->rules[i];
			int m;

			if (r->dir_only && !is_dir)
				continue;
			m = r->anchored ? globmatch_path(r->pat, sub)
					: globmatch(r->pat, name);
			if (m > 0)
				return !r->negate;
		}
	}
	return 0;
}
