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

/* Lookup-count bookkeeping for inodes the kernel knows. */
void fs_known_add(struct fs_session *s, uint64_t ino, uint64_t n);
void fs_known_forget(struct fs_session *s, uint64_t ino, uint64_t n);

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
struct fuse_req;
void fs_reply_after_names(struct fs_session *s, struct fuse_req *req, bool write, size_t size);

/* After an entry of generation gen was given to the kernel (lookup,
 * readdirplus): if a reload has replaced gen since, queue invalidation, so a
 * name handed out while the table moved does not outlive its generation. The
 * kernel links the name while it holds the directory, and the invalidation
 * waits for the directory, so it always comes after the name. */
void fs_invalidate_if_moved(struct fs_session *s, uint64_t gen);

/* Might a writer on this host have begun changing part files in place since
 * the table was loaded? True while inotify has events queued for the watcher,
 * while the watcher reloads after taking them, while this daemon erases, and
 * always when the watcher is not running (no inotify: the caller then asks
 * fs_table_moved every time). Cheap (one ioctl): view.c asks it after each
 * copy from a part's mapping. A writer on another host is not seen here; its
 * changes reach this mount within poll_ms (docs/DEPLOY.md). */
bool fs_writer_seen(struct fs_session *s);

/* Reopen the table if it changed on disk (or always, with force), drop the
 * daemon's caches and queue kernel invalidation. names_now (the watcher and
 * names threads only: they hold nothing in the kernel and are not workers):
 * the names of views the kernel caches are dropped before the new generation
 * shows; request handlers pass false (a lookup holds its directory, which may
 * be parquet/ or columns/; and a worker waiting on the kernel can starve the
 * lookups it waits for), and those names go with the queued pass. Returns true
 * if a reload happened. */
bool fs_reload(struct fs_session *s, bool force, bool names_now);

/* View names. With view_names_cached (a watcher reloads and at least two
 * workers serve), the kernel keeps the names of views that answer ESTALE in an
 * older generation (text, JSON, nested arrays under columns/ and groups/G/,
 * parquet/G.parquet, arrow/G.arrow; not arrays that keep their shape, whose
 * older generation is still served: ops.c view_name_cacheable) as it keeps
 * every other name, so `ls -l` of a wide table's columns/ costs few lookups
 * (52,413 entries: 6.1 -> 0.38 s). What keeps a path on the
 * current generation then is that no name of an older one is cached once a
 * newer shows: a reload with names_now blocks new cached entries, waits for
 * those on their way, drops every view name the kernel holds, shows the new
 * generation and unblocks; an entry computed across the start of such a reload
 * goes uncached (entry timeout 0). An erase through the mount reloads on the
 * names thread and answers after it; a handler that meets a writer at work
 * waits for the watcher's reload rather than reloading itself (100 ms a try;
 * its last try reloads itself, as before). Without view_names_cached, view names are
 * looked up at every open (entry timeout 0), group files' excepted. */
/* Before computing entries: the epoch they are computed in. */
uint64_t fs_view_names_epoch(struct fs_session *s);
/* Just before the reply: may view entries computed since epoch be cached? If
 * so, the reply is on its way: call fs_view_names_sent after it. */
bool fs_view_names_send(struct fs_session *s, uint64_t epoch);
void fs_view_names_sent(struct fs_session *s);
/* For a handler that met a writer at work: the table reloaded, by the watcher
 * when view names are cached (waiting up to 100 ms for it; on the last try,
 * here after that), else here. */
void fs_reload_for_handler(struct fs_session *s, bool last);

#endif
