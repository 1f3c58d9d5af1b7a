/* session.h - one mounted table: the open table, caches, per-thread scratch.
 * The only mutable state of the daemon lives here. */
#ifndef IG_FS_SESSION_H
#define IG_FS_SESSION_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "cache.h"
#include "format/ops/reader.h"
#include "format/part/table.h"
#include "inode.h"
#include "util/u64vec.h"
#include "versions.h"

struct fuse_session;

/* Per worker thread. */
struct fs_scratch {
    struct ig_reader r;
    struct ig_buf tmp;
};

struct fs_known {
    uint64_t ino, n; /* n = kernel lookup count; ino 0 = empty slot */
};

struct fs_session {
    char *dir;
    struct ig_table table;
    pthread_rwlock_t table_lock; /* readers share; reopening after a change is exclusive */
    struct fs_cache cache;
    pthread_key_t scratch_key;
    uid_t uid;                   /* the mount's owner: files show it; it may erase */
    gid_t gid;
    gid_t erase_gid;             /* -o erase_group: may erase too; (gid_t)-1 if none */
    struct timespec mtime;
    double timeout;              /* attr/entry cache lifetime, seconds */
    bool foreground;
    unsigned poll_ms;   /* check the table for changes this often (0: only inotify) */
    bool use_inotify;   /* learn of this host's changes at once (false: polling only) */
    struct fuse_session *se;
    pthread_mutex_t log_mu;      /* pages already reported as damaged */
    uint64_t *logged;
    size_t nlogged, logged_cap;
    uint64_t generation;         /* bumped by every reload; open files compare */
    pthread_mutex_t versions_mu; /* the versions' reference counts (versions.h) */
    struct fs_version current;   /* the table as it is */
    struct fs_version *old[FS_MAX_OLD_VERSIONS]; /* generations the kernel still holds */
    uint32_t nold;
    struct fs_pin pins[FS_PINS]; /* threads' pinned generations (versions.h) */
    pthread_mutex_t erase_mu;    /* one erase at a time from this daemon */

    /* invalidate.c */
    pthread_mutex_t known_mu;    /* inodes the kernel holds references to */
    struct fs_known *known;
    size_t known_cap, known_count;
    uint64_t **row_seen;         /* rows given to the kernel: bits in 2^20-row chunks */
    size_t nrow_seen;
    pthread_mutex_t inval_mu;
    pthread_cond_t inval_cv;
    struct ig_u64vec inval_rows; /* rows erased since the kernel was last told (inval_mu) */
    struct ig_u64vec row_names;  /* erased rows whose pages and attributes the names thread
                                    dropped; their names are left to tell (inval_mu) */
    struct fs_deferred_reply *deferred; /* erases answered once names are dropped (inval_mu) */
    size_t ndeferred, deferred_cap;
    pthread_cond_t names_cv;     /* deferred waits (the names thread) */
    bool inval_pending, stopping, threads_started, watching;
    pthread_t inval_thread, watch_thread, names_thread;
    int inotify_fd;
    int stop_pipe[2];
    atomic_int watch_fd;         /* inotify_fd while the watcher runs, else -1 (fs_writer_seen) */
    atomic_bool watcher_busy;    /* the watcher took events and has not reloaded yet */
    atomic_int erasing;          /* erases of this daemon at work (control.c) */
    /* views' names in the kernel's cache (invalidate.h, "view names") */
    atomic_bool view_names_cached; /* set at mount: a watcher runs and there are 2+ workers */
    pthread_mutex_t vnames_mu;
    pthread_cond_t vnames_cv;
    uint64_t vnames_epoch;       /* moved by every reload that drops the names (vnames_mu) */
    unsigned vnames_blocked;     /* such reloads at work (the watcher's and the names
                                    thread's may overlap): entries go uncached */
    unsigned vnames_inflight;    /* replies with cached view entries on their way */
    unsigned test_reload_pause_ms; /* test hook INGOT_TEST_RELOAD_PAUSE_MS: fs_reload sleeps
                                      this long between opening the table and showing it */

    /* blobs.c */
    uint32_t blob_cols[256];     /* column ids of blob columns, by ordinal */
    uint32_t nblob_cols;
    pthread_mutex_t verified_mu; /* objects whose checksum has been checked */
    uint64_t *verified;
    size_t nverified, verified_cap;

    /* fill.c */
    unsigned fill_workers;       /* the request loop's workers */
    atomic_uint filling;         /* workers storing a fill now (at most fill_workers - 1) */
    _Atomic uint64_t *filled;    /* lossy set: inodes whose bytes the kernel was given */
    _Atomic uint64_t fill_epoch; /* moved by every pass that drops pages (fs_fill_barrier) */
    pthread_rwlock_t fill_lock;  /* stores shared, the barrier exclusive */
    unsigned test_fill_pause_ms; /* test hook INGOT_TEST_FILL_PAUSE_MS: a fill sleeps this
                                    long between reading its bytes and storing them */
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
int fs_session_init(struct fs_session *s, const char *dir, size_t cache_bytes,
                    struct ig_error *err);
void fs_session_destroy(struct fs_session *s);
struct fs_scratch *fs_scratch(struct fs_session *s);

/* The blob columns in column order (their ordinals name them in inodes):
 * -EFBIG past FS_MAX_BLOB_COLUMNS. */
int fs_blob_columns(struct fs_session *s);
/* Column id -> reference (false if out of range or unreadable). */
bool fs_column_ref(struct fs_session *s, uint32_t col, struct ig_column_ref *ref);

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

/* Report a damaged page once (stderr in the foreground, syslog otherwise). */
void fs_log_page_error(struct fs_session *s, uint32_t part, uint32_t page, const char *msg);

#endif
