/* known.h - the inodes the kernel holds references to (its lookup counts), and
 * the rows it was ever given.
 *
 * After the table changes the daemon tells the kernel to drop what went stale;
 * it can only tell of inodes it knows the kernel holds. Every LOOKUP and
 * READDIRPLUS entry adds a reference, every FORGET takes some away; an inode
 * leaves the set when its count reaches zero. Rows are not counted: a listing
 * of a million rows would put a million inodes here (a tenth of the daemon's
 * time in `ls -l rows/`, a cache miss each), and a row only ever goes stale by
 * being erased. A row the kernel was given sets a bit instead (never cleared: a
 * superset of what it holds), so an erase of millions of rows tells the kernel
 * only of those it may hold.
 *
 * What it does not know: what an inode is (callers decide which inodes are
 * rows) or which generation it shows (session.c counts those). Thread-safe. */
#ifndef IG_FS_KNOWN_H
#define IG_FS_KNOWN_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/u64vec.h"

struct fs_known_slot {
    uint64_t ino, n; /* n = kernel lookup count; ino 0 = empty slot */
};

struct fs_known {
    pthread_mutex_t mu;
    struct fs_known_slot *slots; /* open addressing, linear probing */
    size_t cap, count;
    uint64_t **row_given; /* rows given to the kernel: bits in 2^20-row chunks */
    size_t nrow_chunks;
};

void fs_known_init(struct fs_known *k);
void fs_known_free(struct fs_known *k);

/* The kernel took n more references to inode ino (not a row). */
void fs_known_add(struct fs_known *k, uint64_t ino, uint64_t n);
/* The kernel let go of n references: how many it held of them (0 if none). */
uint64_t fs_known_forget(struct fs_known *k, uint64_t ino, uint64_t n);

/* Row `row` was given to the kernel (its name or attributes). */
void fs_known_row_given(struct fs_known *k, uint64_t row);
/* Keep, in place, the rows of r the kernel may hold. */
void fs_known_keep_given_rows(struct fs_known *k, struct ig_u64vec *r);
/* Every row the kernel may hold, ascending, appended to r (out of memory: as
 * many as fit). */
void fs_known_given_rows(struct fs_known *k, struct ig_u64vec *r);

/* A copy of the inodes held (those `keep` accepts, all when it is NULL), taken
 * under the lock; NULL without memory. */
uint64_t *fs_known_inodes(struct fs_known *k, bool (*keep)(void *ctx, uint64_t ino), void *ctx,
                          size_t *n);

#endif
