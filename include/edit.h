/* edit.h - every change to a file's content in one place (lib/edit/):
 * write, edit, patch, insert-line and apply-patch, on the lock and the
 * atomic replace they share */
#ifndef WFS_EDIT_H
#define WFS_EDIT_H

#include <stddef.h>
#include <sys/stat.h>
#include "arena.h"
#include "buf.h"
#include "ctx.h"

/* write: atomic replace, parents created, mode (and owner as root) kept,
 * a symlink written through to its target. no_clobber (--no-clobber):
 * fails when PATH exists (EEXIST), also when it appears during the write
 * (RENAME_NOREPLACE). */
int wfs_write(struct wfs_ctx *c, const char *path, const char *data,
	      size_t len, int no_clobber);

/* edit */
enum wfs_edit_which {
	EDIT_FIRST,  /* the first occurrence */
	EDIT_ALL,    /* every occurrence (--all) */
	EDIT_UNIQUE, /* the only one: several are an error (--unique) */
};
struct wfs_edit {
	const char *old_text;
	size_t old_len;
	const char *new_text;
	size_t new_len;
	enum wfs_edit_which which;
};
int wfs_edit(struct wfs_ctx *c, const char *path, const struct wfs_edit *e,
	     int *replacements);

/* filelock.h - a file locked for a read-modify-write that loses nothing
 *
 * The lock is the one write and edit take (lib/write.c): flock() of the
 * inode currently at the path, re-checked after locking. New content is
 * staged in a temp file in the target's directory, then renamed over it,
 * so a kill at any instant leaves the old or the new content.
 */
struct wfs_locked {
	char *target;     /* the path with links resolved (checked beneath
			     the root when confined) */
	int dirfd;        /* its directory, O_PATH (confined: opened beneath) */
	const char *name; /* its last component */
	int fd;           /* the locked file, -1 when it does not exist */
	struct stat st;   /* its metadata when fd >= 0 */
};

/* Resolve and lock path. create: a missing file (and missing parents) is
 * fine, fd is then -1; else a missing file is an error. 0 or -1. */
int wfs_lock_file(struct wfs_ctx *c, const char *op, const char *path,
		  int create, struct wfs_locked *l);
void wfs_unlock(struct wfs_locked *l);
/* Write data to a new temp file in dirfd (mode and owner of old when
 * given); *tmp is its name. Then wfs_commit renames it over name. */
int wfs_stage(struct wfs_ctx *c, const char *op, int dirfd, const char *target,
	      const char *data, size_t len, const struct stat *old, char **tmp);
int wfs_commit(struct wfs_ctx *c, const char *op, int dirfd, const char *tmp,
	       const char *name, const char *target);

/* patch.h - find-and-replace edits over a buffer, and their helpers
 *
 * Pure functions: text in, text out (a buf), no file I/O.
 *
 * Line endings, BOM and final newline (the conventions every edit keeps):
 * - A text is CRLF when most of its line ends are "\r\n" (patch_crlf).
 *   In a CRLF text, old_text may be given with plain "\n" line ends: it
 *   matches the text's "\r\n" ones. Every plain "\n" of new_text is then
 *   written as "\r\n", so an edit never mixes the endings of a CRLF file.
 *   An LF text takes new_text as it is.
 * - A text that starts with a UTF-8 BOM keeps it, whatever the edits.
 * - A text without a final newline keeps none: an old_text ending in a
 *   newline that matches the text's last line without one matches there,
 *   and new_text loses its final newline in the same way.
 */
struct patch_edit {
	const char *old_text, *new_text;
	size_t old_len, new_len;
};

enum patch_status {
	PATCH_OK,
	PATCH_EMPTY,     /* old_text is empty */
	PATCH_SAME,      /* old_text equals new_text */
	PATCH_NOT_FOUND, /* old_text does not occur */
	PATCH_AMBIGUOUS, /* old_text occurs more than once */
	PATCH_BAD_LINE,  /* insert: line number past the end */
	PATCH_NO_TEXT,   /* insert: new_text is empty */
	PATCH_NOMEM,
};

/* Why an edit failed: which one, and what helps an agent retry. */
struct patch_error {
	enum patch_status status;
	size_t edit;                  /* 1-based index of the edit that failed */
	size_t count;                 /* AMBIGUOUS: occurrences; BAD_LINE: lines */
	size_t line, line2;           /* AMBIGUOUS: lines of the first two occurrences */
	size_t near_first, near_last; /* NOT_FOUND: closest match ignoring
					 whitespace (1-based lines), 0 if none */
	int crlf;                     /* the text has CRLF line ends */
};

/* Apply edits in order, each to the result of the ones before; each
 * old_text must occur exactly once. All or nothing: on failure `out` is
 * left as it was and err says why. Returns 0 or -1. */
int patch_apply(const char *text, size_t len, const struct patch_edit *edits,
		size_t n, struct buf *out, struct patch_error *err);

/* Insert new_text after line `after` (0 = the top, after a BOM). The text
 * around is kept; new_text ends up a whole line or lines. 0 or -1. */
int patch_insert(const char *text, size_t len, size_t after,
		 const char *new_text, size_t new_len, struct buf *out,
		 struct patch_error *err);

/* "hunk 2: old_text not found; closest match ignoring whitespace: lines
 * 10-12; the file has CRLF line endings" and the like (a hunk is one
 * {old_text,new_text} edit). */
void patch_error_text(const struct patch_error *err, char *msg, size_t len);

/* The text's line ends are mostly "\r\n". */
int patch_crlf(const char *text, size_t len);

/* The lines (1-based, inclusive) of the place in text most like old_text
 * when whitespace and indentation are ignored: all its lines if they occur
 * so, else the window where most of them do (at least half). 0 when
 * nothing is close. */
int patch_closest(const char *text, size_t len, const char *old_text,
		  size_t old_len, size_t *first, size_t *last);

/* applypatch.h - the "*** Begin Patch" format agents are trained on
 *
 *   *** Begin Patch
 *   *** Add File: PATH         then the new file's lines, each after "+"
 *   *** Delete File: PATH
 *   *** Update File: PATH
 *   *** Move to: NEWPATH       (optional, right after Update File)
 *   @@ [ANCHOR]                starts a hunk; the first may omit it;
 *                              more "@@ ANCHOR" lines narrow the place down
 *    context / -removed / +added lines (an empty line is empty context)
 *   *** End of File            (optional) the hunk ends at the file's end
 *   *** End Patch
 *
 * The parser makes a plan and touches no file; applypatch_update turns a
 * file's old content into the new one. Context and removed lines match
 * exactly first, then ignoring trailing whitespace, then ignoring the
 * whitespace around them. Anchors are lines found first, in order, from
 * the end of the previous hunk; the hunk is looked for after the last. A hunk that only
 * adds lines goes right after its anchor, or at the end of the file.
 *
 * The result keeps the old content's BOM, its line ends (a file whose
 * every line ends in CRLF gets CRLF lines) and its lack of a final newline.
 */
enum applypatch_op {
	APPLYPATCH_ADD,
	APPLYPATCH_DELETE,
	APPLYPATCH_UPDATE
};

struct applypatch_line {
	char kind;     /* ' ', '-' or '+' */
	const char *p; /* the text after the mark, without its line end */
	size_t len;
};

struct applypatch_hunk {
	struct applypatch_line *anchors; /* "@@ text" lines, kind '@' */
	size_t nanchors;
	struct applypatch_line *lines;
	size_t nlines;
	int at_eof;        /* "*** End of File" closed it */
	size_t patch_line; /* its first line in the patch (1-based) */
};

struct applypatch_file {
	enum applypatch_op op;
	const char *path, *move_to; /* NUL-terminated; move_to may be NULL */
	const char *content;        /* ADD: the new file, each line + "\n" */
	size_t content_len;
	struct applypatch_hunk *hunks; /* UPDATE */
	size_t nhunks;
	size_t patch_line; /* the "*** ... File:" line */
};

struct applypatch_plan {
	struct applypatch_file *files;
	size_t nfiles;
};

/* Parse text into plan; everything lives in arena a (and points into
 * text, which must outlive the plan). Returns 0, or -1 with a message
 * such as "patch line 7: expected '@@' or a line starting with ' ', '-'
 * or '+', got \"foo\"". */
int applypatch_parse(struct arena *a, const char *text, size_t len,
		     struct applypatch_plan *plan, char *err, size_t errlen);

/* The new content of an updated file, from its old content, appended to
 * out. Returns 0, or -1 naming the hunk and its patch line. */
int applypatch_update(const struct applypatch_file *f, const char *old,
		      size_t len, struct buf *out, char *err, size_t errlen);

/* textops.h - patch, insert-line and apply-patch on files (lib/textops.c,
 * lib/applypatch_fs.c). Errors name the path; WICKFS_READONLY refuses. */
/* Stage data and rename it over the locked file (mode kept). */
int wfs_commit_new(struct wfs_ctx *c, const char *op, struct wfs_locked *l,
		   const char *data, size_t len);

/* Apply edits to path all or nothing, in one atomic replace. */
int wfs_patch(struct wfs_ctx *c, const char *path,
	      const struct patch_edit *edits, size_t n);

/* Insert text after line `after` (0 = top). */
int wfs_insert_line(struct wfs_ctx *c, const char *path, size_t after,
		    const char *text, size_t len);

/* One file apply-patch changed, for the answer. */
struct wfs_patched {
	const char *op;   /* "add", "delete", "update" */
	const char *path; /* as in the patch */
	const char *move_to;
};

/* Parse and apply an "*** Begin Patch" text: every file changes or none
 * does. *files / *n list what changed. */
int wfs_apply_patch(struct wfs_ctx *c, const char *text, size_t len,
		    struct wfs_patched **files, size_t *n);

#endif
