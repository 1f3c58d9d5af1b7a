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
 * reload by the watcher drops them before it makes the new generation current,
 * and an erase through the mount answers once they are dropped
 * (fs_reply_after_names), so that an engine that opens one after the reload
 * (after `rm rows/ID` returned) finds the new generation, as it would were
 * every open a lookup.
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
struct fs_node;

/* Start/stop the invalidation and watcher threads (after mounting). */
int fs_invalidate_start(struct fs_session *s);
void fs_invalidate_stop(struct fs_session *s);

/* An erase through the mount answers its request here (unlink: 0; write: the
 * bytes written) instead of in the handler: the names thread drops the names
 * of row-group files, the pages of older generations' files and the pages and
 * attributes of the erased rows and objects first, then answers, so `rm
 * rows/ID` returns once no path leads to an older parquet/G.parquet and an
 * erased row answers ENOENT to stat and read (its name goes a moment later). A handler must not wait for the
 * kernel itself: the drop waits for lookups in parquet/, which need a free
 * worker, and all of them may be erasing. */
void fs_reply_after_names(struct fs_session *s, void *req, bool write, size_t size);

/* After an entry of generation gen was given to the kernel (lookup,
 * readdirplus): if a reload has replaced gen since, queue invalidation, so a
 * name handed out while the table moved does not outlive its generation. The
 * kernel links the name while it holds the directory, and the invalidation
 * waits for the directory, so it always comes after the name. */
void fs_invalidate_if_moved(struct fs_session *s, uint64_t gen);


/* A read of the current generation's .ingot/generation (node n; other nodes
 * return at once) waits here, at most FS_TOLD_WAIT_MS, until the kernel was
 * told to drop the cached pages of every older file: a reader that sees the
 * generation then meets no page of an older generation's text or Parquet view
 * through a handle or a cached name (it reads again: ESTALE), so "read the
 * generation, the files, the generation; equal means one" holds while a
 * reload's drop is still on its way. Without a watcher or with one worker
 * (the drop may wait for a read only that worker would answer) it returns at
 * once. Call with no lock held. */
#define FS_TOLD_WAIT_MS 1000
void fs_invalidate_wait_told(struct fs_session *s, const struct fs_node *n);

/* Reopen the table if it changed on disk (or always, with force), drop the
 * daemon's caches and queue kernel invalidation. names_now (the watcher and
 * names threads only: they hold nothing in the kernel and are not workers):
 * the names of views the kernel caches are dropped before the new generation
 * shows; request handlers pass false (a lookup holds its directory, which may
 * be parquet/ or columns/; and a worker waiting on the kernel can starve the
 * lookups it waits for), and those names go with the queued pass. Returns true
 * if a reload happened. */
bool fs_reload(struct fs_session *s, bool force, bool names_now);

/* After a reload, from a thread that is no request handler and holds nothing
 * in the kernel (the watcher, the names thread): what the kernel holds of s
 * that went stale dropped now, as an erase through the mount drops it before
 * it answers (pages of older files, erased rows' pages and attributes; the
 * rows' names follow on the invalidation thread). The
 * versions under versions/N/ follow the mount's table so (subtables.h). */
void fs_invalidate_erased_now(struct fs_session *s);

/* For a request that met a writer at work (-EAGAIN: a page changing under it,
 * fs_page_failed, fs_file_read): wait for the writer, and run again. The table
 * is reloaded (which waits for the writer's lock), by the watcher when view
 * names are cached (up to 100 ms a try; from the fourth try on, here after
 * that), else here. Writers that follow one another (erases back to back; on
 * another host, noticed by polling) may meet a request again and again: while
 * each of its own reloads finds the table moved, it keeps waiting until
 * FS_WRITER_WAIT_MS have passed since its first try; then, or once one of its
 * reloads changed nothing, this answers false (the request fails: -EIO).
 * Damage does not wait that long: a page that fails while no writer is at work
 * is -EIO at once (fs_page_failed), and a part cut short under the mount after
 * four tries, as before. */
#define FS_WRITER_WAIT_MS 10000
struct fs_writer_wait {
    unsigned tries;
    bool moved;        /* the last try's reload moved the table */
    uint64_t since_ns; /* CLOCK_MONOTONIC: the first try */
};
bool fs_wait_for_writer(struct fs_session *s, struct fs_writer_wait *w);

#endif
