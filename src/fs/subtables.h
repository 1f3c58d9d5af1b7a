/* subtables.h - the versions shown under versions/N/ of a mount: a session of
 * their own for each, and the inode numbers that name their nodes.
 *
 * versions/N/ shows version N's table with the layout of the mount's root
 * (columns/, rows/, parquet/, ...), read-only. It is served by a session
 * opened on version N when a lookup first enters it, kept until unmount (at
 * most FS_SUBTABLES_MAX at once), and reloaded after every reload of the
 * mount's own table (an erasure reaches every version: docs/ERASURE.md).
 *
 * A version's session numbers its nodes as the mount's root does (inode.h),
 * so the numbers the kernel is given must say which session they belong to.
 * There is no room in 64 bits for a version beside a node, so nodes under
 * versions/ get numbers handed out in order (FS_K_SUB) and counted as the
 * kernel counts them: an entry goes when the kernel forgets the number. The
 * daemon's memory for versions is thus what the kernel holds of them; the
 * current table's nodes keep their computed numbers and cost nothing.
 *
 * What it does not do: decide names, contents or attributes (the session it
 * hands out does, as for the root) or talk to FUSE (the glue calls it and
 * tells the kernel). Thread-safe. */
#ifndef IG_FS_SUBTABLES_H
#define IG_FS_SUBTABLES_H

#include <stdbool.h>
#include <stdint.h>

struct fs_session;
struct fs_subtables;

#define FS_SUBTABLES_MAX 64 /* versions served at once by one mount */

/* Which session serves a kernel inode number, and the node's number there.
 * slot: -1 for the mount's own table, else the version's place. */
struct fs_target {
    struct fs_session *s;
    uint64_t ino;
    int slot;
};

/* Versions for root's mount (a mount of the current table): 0, or -ENOMEM.
 * Sets root->subs and root's after_reload. Call once root's kernel calls are
 * set (kernel.h); sessions opened later tell the kernel through them. */
int fs_subtables_start(struct fs_session *root);
/* Close every version's session (their threads stopped): before the FUSE
 * session goes. */
void fs_subtables_stop(struct fs_session *root);

/* The session serving kernel inode ino: false for a number never handed out
 * (or forgotten). Without versions, always the root. */
bool fs_target_of(struct fs_session *root, uint64_t ino, struct fs_target *t);

/* Enter version `version` (a lookup of versions/N): its session, opened
 * if need be, with t->ino its root. 0, -ENOENT (no such version), -EMFILE
 * (FS_SUBTABLES_MAX open), or the error that opening it met (logged). */
int fs_subtables_enter(struct fs_session *root, uint64_t version, struct fs_target *t);

/* The kernel takes n references to node `inner` of t's session: the number it
 * is given (counted, and the session told: session.h fs_kernel_holds), or 0
 * without memory (then nothing is counted: answer ENOMEM). */
uint64_t fs_target_hold(struct fs_session *root, const struct fs_target *t, uint64_t inner, uint64_t n);
/* The kernel let go of n references to ino (FORGET, or a reply that failed). */
void fs_target_release(struct fs_session *root, uint64_t ino, uint64_t n);
/* The number node `inner` of t's session has now, without counting: for
 * listings that give no reference (d_ino). 0 if the kernel holds none. */
uint64_t fs_target_peek(struct fs_session *root, const struct fs_target *t, uint64_t inner);

#endif
