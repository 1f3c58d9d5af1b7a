/* fill.h - a small object's bytes put into the kernel's page cache before it
 * asks for them.
 *
 * Python's open() asks isatty() of every file it opens (TCGETS), and the kernel
 * forwards every ioctl on a FUSE file to the daemon: one round trip between the
 * open and the first read that a plain file does not pay. The daemon uses it:
 * for a blob object or a row of at most FS_FILL_MAX bytes it reads the whole
 * file, as a read from offset 0 would, and stores it in the kernel's page cache
 * (notify_store, in ops.c) before it answers the ioctl (ENOTTY), so the read
 * that follows is served by the kernel: a shuffled Python loader pays two round
 * trips per object instead of three. Other callers (cat, C programs) never ask
 * an ioctl and read as before.
 *
 * What it does not do: fill a file the kernel was already given (a lossy set
 * of inodes read from offset 0 or filled, an inode leaving it when the kernel
 * forgets it: a collision costs one redundant fill, pages the kernel evicted on
 * its own are read as before; neither a wrong byte), or a file of any other
 * kind (column views are read in ranges, some only mapped).
 *
 * Two rules keep it safe:
 * - Erasure: a fill notes the fill epoch before it reads (a read like any
 *   other, under the table lock, checked against writers at work) and stores
 *   only if the epoch has not moved, holding the fill lock shared. Every pass
 *   that drops pages after a reload first moves the epoch and takes the fill
 *   lock exclusively (fs_fill_barrier): a fill that read before an erase is
 *   either stored before the pass, which then drops it, or not stored at all.
 *   The table lock is not held while storing (a reload on a worker would wait
 *   for it, and that worker might be the one a stuck store needs).
 * - No deadlock: storing locks the file's page-cache pages; a page may be locked
 *   by another thread's read of the same file, whose READ request needs a free
 *   worker to be answered. At most threads - 1 workers fill at once, so one
 *   always can (and with one worker nothing is filled). */
#ifndef IG_FS_FILL_H
#define IG_FS_FILL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "inode.h"

/* Which inodes the kernel was given, and the workers filling now. */
struct fs_fill {
    unsigned workers;            /* the request loop's workers */
    atomic_uint filling;         /* workers storing a fill now (at most workers - 1) */
    _Atomic uint64_t *filled;    /* lossy set: inodes whose bytes the kernel was given */
    _Atomic uint64_t epoch;      /* moved by every pass that drops pages (fs_fill_barrier) */
    pthread_rwlock_t lock;       /* stores shared, the barrier exclusive */
    unsigned test_pause_ms;      /* test hook INGOT_TEST_FILL_PAUSE_MS: a fill sleeps this
                                    long between reading its bytes and storing them */
};

#define FS_FILL_MAX (256u << 10) /* bigger files are read in ranges, not filled */

int fs_fill_init(struct fs_fill *f, unsigned workers);
void fs_fill_destroy(struct fs_fill *f);

/* Is n a file a fill may hold (a blob object or a row), and has the kernel not
 * been given its bytes since it last dropped them? */
bool fs_fill_wanted(struct fs_fill *f, const struct fs_node *n, uint64_t ino);
/* Take a filling worker's place (false: all but one are filling already). */
bool fs_fill_begin(struct fs_fill *f);
void fs_fill_end(struct fs_fill *f);

/* The epoch to note before reading a fill; store between fs_fill_store_begin
 * (false: an invalidation pass began since the epoch was noted: do not store)
 * and fs_fill_store_end. */
uint64_t fs_fill_epoch(struct fs_fill *f);
bool fs_fill_store_begin(struct fs_fill *f, uint64_t epoch);
void fs_fill_store_end(struct fs_fill *f);
/* Before a pass drops pages after a reload: no fill read before it is stored
 * after it. */
void fs_fill_barrier(struct fs_fill *f);

/* The kernel now holds ino's bytes (a read answered, a fill stored) or dropped
 * them (it forgot the inode, its pages were invalidated). */
void fs_fill_done(struct fs_fill *f, const struct fs_node *n, uint64_t ino);
void fs_fill_dropped(struct fs_fill *f, uint64_t ino);

#endif
