/* session.h - one mounted table: the table as mounted, who may do what, what
 * reads share, and the rooms that keep the rest of the daemon's state, each
 * behind its own header (generations, known, viewnames, fill, rowsizes,
 * watch, invalidate, kernel). No mutable state of the daemon lives anywhere else.
 * Nothing here knows FUSE: the glue (glue/) fills `kernel` at mount. */
#ifndef IG_FS_SESSION_H
#define IG_FS_SESSION_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "cache.h"
#include "fill.h"
#include "keyset.h"
#include "rowsizes.h"
#include "kernel.h"
#include "known.h"
#include "viewnames.h"
#include "watch.h"
#include "format/ops/reader.h"
#include "format/part/table.h"
#include "inode.h"
#include "fs.h"
#include "util/u64vec.h"
#include "generations.h"

struct fs_invalidator;
struct fs_staging;
struct fs_subtables;

/* Per worker thread. */
struct fs_scratch {
    struct ig_reader r;
    struct ig_buf tmp;
};

struct fs_session {
    /* the table, as mounted */
    char *dir;
    uint64_t version;            /* the version served (0: the current one, as it changes) */
    bool read_only;              /* nothing changes through it (a version under versions/N/) */
    uint64_t seen_generation;    /* MANIFEST's generation when the table was last opened */
    struct ig_table table;
    pthread_rwlock_t table_lock; /* readers share; reopening after a change is exclusive */
    uint64_t generation;         /* bumped by every reload; open files compare */
    atomic_uint_fast64_t reloads_begun; /* reloads that began opening the table */
    uint64_t table_opened_at;    /* which of them opened the table shown (table lock) */
    struct timespec mtime;       /* of the last reload: directories show it */
    uint32_t blob_cols[FS_MAX_BLOB_COLUMNS]; /* column ids of blob columns, by ordinal */
    /* the shown column records in the order the version shows them, where
     * MANIFEST gives one (columns/ lists in it); NULL: by id (fs_list_order) */
    uint32_t *listed;
    uint32_t nlisted;
    uint32_t nblob_cols;

    /* who may do what, and how long the kernel keeps what it is told */
    uid_t uid;                   /* the mount's owner: files show it; it may erase */
    gid_t gid;
    gid_t erase_gid;             /* -o erase_group: may erase too; (gid_t)-1 if none */
    double timeout;              /* attr/entry cache lifetime, seconds */
    bool foreground;             /* messages to stderr, else syslog */

    /* this daemon's own writes */
    pthread_mutex_t erase_mu;    /* one erase at a time from this daemon */
    atomic_int erasing;          /* erases of this daemon at work (control.c) */

    /* what reads share */
    struct fs_cache cache;       /* decoded blocks and rendered pieces (cache.h) */
    pthread_key_t scratch_key;   /* per worker: struct fs_scratch */
    struct fs_keyset damaged;    /* pages already reported as damaged (part << 32 | page) */
    struct fs_keyset verified;   /* blob objects whose checksum was checked (blobs.h) */

    /* the rooms: each keeps its own state behind its own header */
    struct fs_generations gens;  /* the generation shown and those the kernel still holds */
    struct fs_known known;       /* inodes the kernel holds, rows it was given (known.h) */
    struct fs_view_names vnames; /* which view names the kernel may cache (viewnames.h) */
    struct fs_fill fill;         /* small objects put into the kernel's cache (fill.h) */
    struct fs_rowsizes rowsizes; /* rows/ sizes measured ahead of a lister (rowsizes.h) */
    struct fs_watch watch;       /* inotify and the timer (watch.h) */
    struct fs_invalidator *inval; /* the invalidation and names threads (invalidate.h) */
    struct fs_staging *staging;  /* columns being written through the mount (staging.h) */
    struct fs_column_io column_io; /* how they are read and committed (fs.h) */
    struct fs_kernel kernel;     /* how the kernel is told (kernel.h), set by the glue */
    struct fs_subtables *subs;   /* the versions shown under versions/N/ (subtables.h) */
    /* after every reload of this table (invalidate.h fs_reload), with its
     * names_now: the versions under versions/N/ follow it (subtables.c) */
    void (*after_reload)(void *ctx, bool names_now);
    void *after_reload_ctx;
    unsigned test_reload_pause_ms; /* test hook INGOT_TEST_RELOAD_PAUSE_MS: fs_reload sleeps
                                      this long between opening the table and showing it */
    unsigned test_inval_pause_ms;  /* test hook INGOT_TEST_INVAL_PAUSE_MS: each invalidation
                                      pass starts this much later */
    unsigned test_rows_pause_ms;   /* test hook INGOT_TEST_ROWS_PAUSE_MS: the invalidation
                                      pass sleeps between taking erased rows and telling the
                                      kernel of them */
};


/* Map every part's page extents so plain pages can be served from the mapping
 * (view.c copies them out and checks no writer was at work). The footers are
 * the private copies ig_table_open_shared took under the table's lock:
 * truncation-proof, and one generation whatever writers do later. */
void fs_map_parts(struct ig_table *t);
/* The decoded-block cache's budget when the mount names none: 16 KiB a leaf
 * column (a decoded block of each), at least 32 MiB, at most 1 GiB or a
 * sixteenth of the machine's memory. */
#define FS_CACHE_PER_LEAF (16u << 10)
#define FS_CACHE_MIN ((size_t)32 << 20)
#define FS_CACHE_MAX ((uint64_t)1 << 30)
size_t fs_cache_default_bytes(const struct ig_table *t);
/* cache_bytes 0: fs_cache_default_bytes of the table. */
int fs_session_init(struct fs_session *s, const char *dir, uint64_t version, size_t cache_bytes,
                    struct ig_error *err);
void fs_session_destroy(struct fs_session *s);
struct fs_scratch *fs_scratch(struct fs_session *s);

/* The blob columns in column order (their ordinals name them in inodes):
 * -EFBIG past FS_MAX_BLOB_COLUMNS. */
int fs_blob_columns(struct fs_session *s);
/* s->listed for the table shown (the table lock held to write, or not yet
 * shared); out of memory: NULL, and columns/ lists by id. */
void fs_list_order(struct fs_session *s);
/* Column id -> reference (false if out of range or unreadable). */
bool fs_column_ref(struct fs_session *s, uint32_t col, struct ig_column_ref *ref);

/* MANIFEST's generation now (0 if it cannot be read). */
uint64_t fs_manifest_generation(const char *dir);

/* The timer's cheaper check (another host's change): MANIFEST's generation or
 * part count moved, or a journal waits. Every erase and append raises the
 * generation once durable; the part files are not read. */
bool fs_manifest_moved(struct fs_session *s);
/* Did the table change on disk since it was opened (an erase at work or done,
 * an append, by any process)? Reads a few bytes (MANIFEST, each part's tail). */
bool fs_table_moved(struct fs_session *s);
/* A page failed its checksum or would not decode (rc): -EAGAIN when the table
 * moved under the read (the caller reloads and reads again), else the damage is
 * reported once and the result is -EIO. */
int fs_page_failed(struct fs_session *s, uint32_t part, uint32_t page, const char *msg, int rc);

/* The kernel took (holds) or let go of (lets_go) n references to inode ino:
 * counted for the invalidation passes (known.h) and the generation it shows
 * (generations.h); a row is only marked as given. */
void fs_kernel_holds(struct fs_session *s, uint64_t ino, uint64_t n);
void fs_kernel_lets_go(struct fs_session *s, uint64_t ino, uint64_t n);

/* Might a writer on this host have begun changing part files in place since
 * the table was loaded? True while inotify has events queued for the watcher,
 * while the watcher reloads after taking them, while this daemon erases, and
 * always when the watcher is not running (no inotify: the caller then asks
 * fs_table_moved every time). Cheap (one ioctl): view.c asks it after each
 * copy from a part's mapping. A writer on another host is not seen here; its
 * changes reach this mount within poll_ms (docs/DEPLOY.md). */
bool fs_writer_seen(struct fs_session *s);

/* Report a damaged page once (stderr in the foreground, syslog otherwise). */
void fs_log_page_error(struct fs_session *s, uint32_t part, uint32_t page, const char *msg);

#endif
