/* namespace.h - the mount's names: one table drives lookup, listing and the
 * way back from a node to its name (docs/FILESYSTEM.md).
 *
 *     /               README  schema.json  columns/  groups/  rows/  .ingot/
 *                     parquet/  arrow/  jsonl/  blobs/ (with blob columns)
 *     columns/        _rowid.npy, then each column's views: NAME, NAME.npy, ...
 *     groups/         G/ for every row group
 *     groups/G/       as columns/, restricted to row group G
 *     rows/           ID for every live row
 *     parquet/ arrow/ jsonl/
 *                     G.parquet, G.arrow, G.jsonl for every row group
 *     blobs/          COL/ for every blob column
 *     blobs/COL/      ID.ext (a blob column's object) or ID/ (list<blob>)
 *     blobs/COL/ID/   K.ext, the row's objects
 *     .ingot/         erase  erasures  generation
 *     versions/       N/ for every version kept: version N's table, the same
 *                     names as / without versions/ and tags/ (a session of
 *                     its own serves it: subtables.h)
 *     tags/           NAME, a symbolic link to ../versions/N
 *
 * Each directory is a row of the table in namespace.c: its fixed names, in
 * listing order, and for names made from the table a function that looks one
 * up and one that lists the k-th. Names and nodes map both ways, and the same
 * table answers both, so a name a listing shows is always one a lookup finds.
 *
 * What it does not do: attributes (attr.h), contents (view.h), or which
 * generation a versioned node shows (the caller stamps gen_bits). FUSE-free:
 * the glue turns its answers into replies. Caller holds the table lock. */
#ifndef IG_FS_NAMESPACE_H
#define IG_FS_NAMESPACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "inode.h"
#include "format/model/names.h"

struct fs_session;

/* Room for any name of the mount, NUL included. */
#define FS_NS_NAME_MAX (3 * FS_NAME_MAX + 32)

/* Is n a directory of the table as loaded? */
bool fs_ns_dir_exists(struct fs_session *s, const struct fs_node *n);

/* The child of directory `dir` called `name`: 0, or -ENOENT. */
int fs_ns_lookup(struct fs_session *s, const struct fs_node *dir, const char *name,
                 struct fs_node *out);

/* The idx-th entry of directory `dir` (0 ".", 1 ".."), skipping holes: the
 * index found (>= idx), or -1 past the end. Fills name and node. */
int64_t fs_ns_entry(struct fs_session *s, const struct fs_node *dir, int64_t idx, char *name,
                    size_t cap, struct fs_node *out);

/* Where node n is listed: its directory's inode and its name there. False for
 * nodes listed in no fixed place (the root, directories, blob objects). */
bool fs_ns_place(struct fs_session *s, const struct fs_node *n, uint64_t *parent, char *name,
                 size_t cap);

/* Is version `version` kept (its file in .ingot/versions)? */
bool fs_ns_version_kept(struct fs_session *s, uint64_t version);

/* A tag's link (FS_K_LINK): its target, "../versions/N", into out; the length
 * or a negative errno. */
int fs_ns_link_target(const struct fs_node *n, char *out, size_t cap);

/* A name in canonical decimal (no sign, no leading zeros). */
bool fs_ns_parse_id(const char *name, uint64_t *out);

#endif
