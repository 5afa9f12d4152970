/* snapshot.h - content-addressed snapshots of a tree, and their restore.
 *
 * The store (default DIR/.wickfs/snapshots) holds objects/XX/REST, one
 * gzip member per distinct content named by its SHA-256 (file data, or a
 * symlink's target), and snaps/ID, each snapshot's manifest (gzip). A file
 * unchanged since an earlier snapshot costs one manifest line. DIR/.wickfs
 * is never part of a snapshot, nor touched by a restore.
 */
#ifndef WFS_SNAPSHOT_H
#define WFS_SNAPSHOT_H

#include "wickfs.h"

struct wfs_snap_opts {
	const char *dir;   /* NULL: the confinement root, else "." */
	const char *store; /* NULL: DIR/.wickfs/snapshots */
	const char *tag;   /* snapshot: "" when NULL */
};

struct wfs_snap_info {
	const char *id, *tag;
	long long time; /* seconds since the epoch */
	unsigned long long files, dirs, symlinks, bytes;
	unsigned long long new_objects, new_bytes; /* snapshot: stored now */
	long long stored_ns;                       /* when its manifest was written: orders two
				 snapshots of one second */
	const char *previous;                      /* snapshot: the one its tag named until now
				 (reachable by its id still), or NULL */
};

/* One manifest entry. */
struct snap_ent {
	char *path;    /* relative, clean: no "", ".", ".." component */
	char type;     /* 'f' file, 'd' directory, 'l' symlink */
	unsigned mode; /* 07777 */
	long long sec;
	long nsec;
	unsigned long long size;
	unsigned char hash[32]; /* files and symlinks */
};

struct snap_manifest {
	struct wfs_snap_info info;
	struct snap_ent *v;
	size_t n, cap;
};

/* What differs between a snapshot and the tree, relative to the snapshot:
 * added (in the tree only), removed (in the snapshot only), modified
 * (type, content, mode or link target). */
struct wfs_snap_diff {
	const char *id;
	const char **added, **removed, **modified;
	size_t nadded, nremoved, nmodified;
	size_t cadded, cremoved, cmodified;
};

int wfs_snapshot(struct wfs_ctx *c, const struct wfs_snap_opts *o,
		 struct wfs_snap_info *info);
int wfs_snapshots(struct wfs_ctx *c, const struct wfs_snap_opts *o,
		  struct wfs_snap_info **list, size_t *n);
/* REF: an id (or a unique prefix of one), or a tag (its newest snapshot). */
int wfs_snap_diff(struct wfs_ctx *c, const struct wfs_snap_opts *o,
		  const char *ref, struct wfs_snap_diff *d);
/* Make DIR match the snapshot; d gets what was undone (as wfs_snap_diff
 * before the restore). Journalled: see lib/snapshot.c. */
int wfs_restore(struct wfs_ctx *c, const struct wfs_snap_opts *o,
		const char *ref, struct wfs_snap_diff *d);

void wfs_snap_info_json(struct buf *b, const struct wfs_snap_info *i);
void wfs_snap_diff_json(struct buf *b, const struct wfs_snap_diff *d);
/* What a restore did, in its own words: {"id","deleted" (in the tree
 * only), "recreated" (in the snapshot only), "reverted" (changed)}. */
void wfs_restore_json(struct buf *b, const struct wfs_snap_diff *d);

/* Parse manifest text (the store's, decompressed) into m, in arena a:
 * 0, or -1 with the reason in err. Every path is checked (no absolute
 * name, no "." or ".." component), so a hostile manifest cannot lead a
 * restore out of its directory. */
int snapshot_manifest_parse(struct arena *a, const char *text, size_t len,
			    struct snap_manifest *m, char *err, size_t errlen);

#endif
