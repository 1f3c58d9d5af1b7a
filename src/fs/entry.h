/* entry.h - what the kernel is told about a name: which node (and, for a
 * versioned node, which generation), and how long it may keep the name and
 * the attributes.
 *
 * Names are cached but those of column views and generated files (inode.h
 * fs_node_name_cached), which are looked up afresh every time (entry timeout
 * 0): a path always reaches the current generation, while a file opened before
 * a change keeps its own inode; the entry's generation is the whole table
 * generation, so an inode number whose generation bits wrap never stands for
 * two generations. With view names cached (viewnames.h), views that answer
 * ESTALE in an older generation keep their names too.
 *
 * FUSE-free: the glue copies the answer into its reply. Caller holds the table
 * lock. */
#ifndef IG_FS_ENTRY_H
#define IG_FS_ENTRY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "inode.h"

struct fs_session;

/* The cache lifetimes and generation of an entry for node n of generation gen
 * (views_cached: this reply may keep view names). */
struct fs_entry_times {
    double entry_timeout, attr_timeout;
    uint64_t generation;
};
/* Seconds the kernel keeps a name that may go without a reload: an absence
 * (a column may be added, rows appended), a version (gc), a tag. */
#define FS_NAME_SHORT_TIMEOUT 1.0
struct fs_entry_times fs_entry_times(struct fs_session *s, const struct fs_node *n, uint64_t gen,
                                     bool views_cached);
/* Seconds the kernel may keep the absence of a name in directory `dir`:
 * FS_NAME_SHORT_TIMEOUT, but none in columns/, where a rename through the
 * mount makes names appear that no reload can drop first (the kernel moves
 * the renamed file's name itself, not its sibling views': NEW.npy after
 * `mv NAME NEW`; and it holds the directory while the rename is answered). */
double fs_entry_absence_timeout(const struct fs_node *dir);

/* The child of `parent` called name, as the generation thread `tid` sees
 * (generations.h) when it is a view or generated file; *gen gets that
 * generation (the current one for every other node). 0 or -ENOENT. */
int fs_entry_lookup(struct fs_session *s, const struct fs_node *parent, const char *name,
                    uint32_t tid, struct fs_node *child, uint64_t *gen);

/* May the kernel keep this view's name (with view names cached)? Not an array
 * that keeps its shape (.npy of a flat column, .valid.npy, _rowid.npy): its
 * older generation is still served, so a name cached from it could lead a new
 * open there, and np.load's opens of it must each be looked up for its burst
 * to stay on one generation (generations.h). Other views answer ESTALE in an
 * older generation. */
bool fs_entry_view_name_cacheable(struct fs_session *s, const struct fs_node *n);

/* May this caller change the table through the mount (erase)? The mount's
 * owner and root, and with -o erase_group that group's members (its primary
 * group or one of `groups`). The kernel checks the modes shown too
 * (default_permissions); this holds even if it did not. */
bool fs_may_change(const struct fs_session *s, uid_t uid, gid_t gid, const gid_t *groups,
                   int ngroups);

#endif
