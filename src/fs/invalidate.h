/* invalidate.h - keeping the kernel's view true after the table changes.
 *
 * The kernel caches attributes, directory entries and file pages of the mount
 * (long timeouts, keep_cache). When rows are erased (through the mount or by
 * another process) the daemon reloads the table and then tells the kernel to
 * drop what it cached: every inode the kernel holds a reference to is checked
 * and the stale ones invalidated, except rows, which are not counted (a listing
 * of rows/ would count millions): the rows erased between the two generations
 * are read off the deletion bitmaps and the pages and names of those the kernel
 * was ever given (one bit per row) dropped. libfuse's
 * notify calls must not run inside a request handler (the kernel may be waiting
 * on that very request), so they run on a dedicated thread; the one exception
 * is the names of row-group files (parquet/G.parquet, arrow/G.arrow), which the
 * kernel caches (inode.h fs_node_name_cached: DuckDB opens each view three
 * times a query, a FUSE round trip each were they looked up every time): a
 * reload drops them before it makes the new generation current, so that an
 * engine that opens one after the reload (after an erase through the mount
 * returned) finds the new generation, as it would were every open a lookup.
 *
 * Another process's erase (the CLI) is noticed through inotify on the table's
 * .ingot/ directory and MANIFEST; the table is reloaded when a part's generation
 * or the manifest changed. */
#ifndef IG_FS_INVALIDATE_H
#define IG_FS_INVALIDATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fs_session;

/* Lookup-count bookkeeping for inodes the kernel knows. */
void fs_known_add(struct fs_session *s, uint64_t ino, uint64_t n);
void fs_known_forget(struct fs_session *s, uint64_t ino, uint64_t n);

/* Start/stop the invalidation and watcher threads (after mounting). */
int fs_invalidate_start(struct fs_session *s);
void fs_invalidate_stop(struct fs_session *s);

/* After an entry of generation gen was given to the kernel (lookup,
 * readdirplus): if a reload has replaced gen since, queue invalidation, so a
 * name handed out while the table moved does not outlive its generation. The
 * kernel links the name while it holds the directory, and the invalidation
 * waits for the directory, so it always comes after the name. */
void fs_invalidate_if_moved(struct fs_session *s, uint64_t gen);

/* Reopen the table if it changed on disk (or always, with force), drop the
 * daemon's caches and queue kernel invalidation. names_now: the caller holds no
 * kernel lock on parquet/ or arrow/ (the watcher thread, an erase: unlink in
 * rows/, a write to .ingot/erase), so the row-group files' names are dropped
 * before the new generation shows; a lookup's or read's retry passes false
 * (its directory may be parquet/) and those names go with the queued pass.
 * Returns true if a reload happened. */
bool fs_reload(struct fs_session *s, bool force, bool names_now);

#endif
