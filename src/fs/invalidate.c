#include "invalidate.h"
#include "fill.h"
#include "blobs.h"
#include "inode.h"
#include "format/model/names.h"
#include "format/part/columns.h"
#include "session.h"
#include "format/part/journal.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/io.h"

#include <errno.h>
#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

/* ---- known inodes: open addressing, linear probing, backward-shift delete ---- */

static size_t slot_of(uint64_t ino, size_t cap)
{
    /* inode numbers are structured (kind, column, view in separate bit fields):
     * mix every bit into the low ones before masking, or they cluster */
    return (size_t)ig_mix64(ino) & (cap - 1);
}

static void known_grow(struct fs_session *s)
{
    size_t cap = s->known_cap ? s->known_cap * 2 : 1024;
    struct fs_known *t = calloc(cap, sizeof *t);
    if (!t) return;
    for (size_t i = 0; i < s->known_cap; i++) {
        if (!s->known[i].ino) continue;
        size_t k = slot_of(s->known[i].ino, cap);
        while (t[k].ino)
            k = (k + 1) & (cap - 1);
        t[k] = s->known[i];
    }
    free(s->known);
    s->known = t;
    s->known_cap = cap;
}

/* The kernel's references to a view or generated file count for its generation. */
static void version_ref(struct fs_session *s, uint64_t ino, int64_t n)
{
    struct fs_node node;
    if (!n || !fs_node_of(ino, &node) || !fs_node_versioned(&node)) return;
    pthread_mutex_lock(&s->versions_mu);
    fs_version_ref(s, node.version, n);
    pthread_mutex_unlock(&s->versions_mu);
}

/* Rows are not counted: a listing of a million rows would put a million inodes
 * here (a tenth of the daemon's time in `ls -l rows/`, a cache miss each), and a
 * row only ever goes stale by being erased, which the reload finds in the
 * deletion bitmaps instead (rows_erased_between). A row the kernel was given
 * sets a bit (row_seen, never cleared: a superset of what it holds), so that
 * an erase of millions of rows tells the kernel only of those it may hold. */
static bool row_of(uint64_t ino, uint64_t *row)
{
    struct fs_node node;
    if (!fs_node_of(ino, &node) || node.kind != FS_K_ROW) return false;
    *row = node.row;
    return true;
}

#define SEEN_CHUNK_ROWS ((uint64_t)1 << 20) /* 128 KiB of bits, made on first use */

static void row_seen_set(struct fs_session *s, uint64_t row)
{
    uint64_t c = row / SEEN_CHUNK_ROWS, bit = row % SEEN_CHUNK_ROWS;
    pthread_mutex_lock(&s->known_mu);
    if (c >= s->nrow_seen) {
        size_t n = (size_t)c + 1;
        uint64_t **t = realloc(s->row_seen, n * sizeof *t);
        if (t) {
            memset(t + s->nrow_seen, 0, (n - s->nrow_seen) * sizeof *t);
            s->row_seen = t;
            s->nrow_seen = n;
        }
    }
    if (c < s->nrow_seen && !s->row_seen[c])
        s->row_seen[c] = calloc(SEEN_CHUNK_ROWS / 64, sizeof(uint64_t));
    /* out of memory: the bit is lost and an erase of this row tells the kernel
     * nothing; its name and pages then last until their timeout */
    if (c < s->nrow_seen && s->row_seen[c]) s->row_seen[c][bit / 64] |= 1ULL << (bit % 64);
    pthread_mutex_unlock(&s->known_mu);
}

/* Caller holds known_mu. */
static bool row_seen(const struct fs_session *s, uint64_t row)
{
    uint64_t c = row / SEEN_CHUNK_ROWS, bit = row % SEEN_CHUNK_ROWS;
    return c < s->nrow_seen && s->row_seen[c] && (s->row_seen[c][bit / 64] >> (bit % 64)) & 1;
}

void fs_known_add(struct fs_session *s, uint64_t ino, uint64_t n)
{
    uint64_t row;
    if (!n || !ino) return;
    if (row_of(ino, &row)) {
        row_seen_set(s, row);
        return;
    }
    pthread_mutex_lock(&s->known_mu);
    if ((s->known_count + 1) * 2 > s->known_cap) known_grow(s);
    if (s->known_cap) {
        size_t k = slot_of(ino, s->known_cap);
        while (s->known[k].ino && s->known[k].ino != ino)
            k = (k + 1) & (s->known_cap - 1);
        if (!s->known[k].ino) {
            s->known[k].ino = ino;
            s->known_count++;
        }
        s->known[k].n += n;
    }
    pthread_mutex_unlock(&s->known_mu);
    version_ref(s, ino, (int64_t)n);
}

void fs_known_forget(struct fs_session *s, uint64_t ino, uint64_t n)
{
    uint64_t had = 0, row;
    if (row_of(ino, &row)) return;
    pthread_mutex_lock(&s->known_mu);
    if (s->known_cap) {
        size_t mask = s->known_cap - 1, k = slot_of(ino, s->known_cap);
        while (s->known[k].ino && s->known[k].ino != ino)
            k = (k + 1) & mask;
        if (s->known[k].ino == ino) {
            had = n < s->known[k].n ? n : s->known[k].n;
            s->known[k].n -= had;
        }
        if (s->known[k].ino == ino && s->known[k].n == 0) {
            /* remove, shifting back entries that probed past this slot */
            size_t hole = k;
            s->known[hole] = (struct fs_known){0};
            s->known_count--;
            for (size_t j = (hole + 1) & mask; s->known[j].ino; j = (j + 1) & mask) {
                size_t home = slot_of(s->known[j].ino, s->known_cap);
                if (((j - home) & mask) >= ((j - hole) & mask)) {
                    s->known[hole] = s->known[j];
                    s->known[j] = (struct fs_known){0};
                    hole = j;
                }
            }
        }
    }
    pthread_mutex_unlock(&s->known_mu);
    version_ref(s, ino, -(int64_t)had);
}

/* ---- rows erased between two generations ---------------------------------- */

static void queue_row(struct fs_session *s, uint64_t row)
{
    /* out of memory: the kernel keeps a name until its timeout; reads see ENOENT */
    (void)ig_u64vec_push(&s->inval_rows, row);
}

/* The part of t holding the same rows as p, if any. */
static const struct ig_part *same_rows(const struct ig_table *t, const struct ig_part *p)
{
    for (uint32_t i = 0; i < t->nparts; i++)
        if (t->parts[i].first_row_id == p->first_row_id && t->parts[i].num_rows == p->num_rows)
            return &t->parts[i];
    return NULL;
}

/* Queue (caller holds inval_mu) every row live in old and erased or gone in
 * nt. Erasure only ever sets deletion bits, so a part whose count of deleted
 * rows did not move is skipped, and the others cost a pass over their bitmap.
 * Old footers are the daemon's private copies (fs_map_parts), so they still
 * show the old bits; a part still mapped in place may already show the new
 * ones, and is then compared with nothing (more rows told, none missed). */
static void rows_erased_between(struct fs_session *s, const struct ig_table *old,
                                const struct ig_table *nt)
{
    for (uint32_t i = 0; i < nt->nparts; i++) {
        const struct ig_part *np = &nt->parts[i], *op = same_rows(old, np);
        if (op && !op->map_copied) op = NULL;
        if (np->deleted_rows == 0 || (op && op->deleted_rows == np->deleted_rows)) continue;
        const uint8_t *nb = ig_part_section(np, IG_SEC_DELETION);
        const uint8_t *ob = op ? ig_part_section(op, IG_SEC_DELETION) : NULL;
        for (uint64_t byte = 0; byte < (np->num_rows + 7) / 8; byte++) {
            uint8_t fresh = nb[byte] & (uint8_t)~(ob ? ob[byte] : 0);
            for (unsigned bit = 0; fresh; bit++, fresh >>= 1)
                if ((fresh & 1) && byte * 8 + bit < np->num_rows)
                    queue_row(s, np->first_row_id + byte * 8 + bit);
        }
    }
    /* rows whose part was replaced: told if the new table lacks or erased them */
    for (uint32_t i = 0; i < old->nparts; i++) {
        const struct ig_part *op = &old->parts[i];
        if (same_rows(nt, op)) continue;
        for (uint64_t local = 0; local < op->num_rows; local++) {
            uint32_t pi;
            uint64_t nl, row = op->first_row_id + local;
            if (ig_part_row_deleted(op, local)) continue;
            if (ig_table_row(nt, row, &pi, &nl) || ig_part_row_deleted(&nt->parts[pi], nl))
                queue_row(s, row);
        }
    }
}

/* ---- reloading ----------------------------------------------------------- */

static void queue_invalidation(struct fs_session *s)
{
    pthread_mutex_lock(&s->inval_mu);
    s->inval_pending = true;
    pthread_cond_signal(&s->inval_cv);
    pthread_mutex_unlock(&s->inval_mu);
}

static void drop_view_names(struct fs_session *s);
static void view_names_block(struct fs_session *s);
static void view_names_unblock(struct fs_session *s);

bool fs_reload(struct fs_session *s, bool force, bool names_now)
{
    pthread_rwlock_rdlock(&s->table_lock);
    bool changed = force || fs_table_moved(s);
    pthread_rwlock_unlock(&s->table_lock);
    if (!changed) return false;
    struct ig_table nt;
    struct ig_error err = {0};
    if (ig_table_open_shared(&nt, s->dir, &err)) {
        if (s->foreground)
            fprintf(stderr, "ingot: reloading: %s\n", err.msg);
        else
            syslog(LOG_ERR, "ingot: reloading: %s", err.msg);
        return false;
    }
    if (s->test_reload_pause_ms) /* a writer may come and go meanwhile: the copies hold */
        usleep(s->test_reload_pause_ms * 1000u);
    /* before the new generation shows: an engine that opens a view after this
     * reload returns finds the new one (a lookup racing with this is as a file
     * opened before the erase, and is dropped by the pass queued below) */
    if (names_now) {
        view_names_block(s);
        drop_view_names(s);
    }
    fs_map_parts(&nt);
    pthread_rwlock_wrlock(&s->table_lock);
    struct ig_table old = s->table;
    /* keep what the old generation looked like while the kernel holds its files */
    fs_version_advance(s, &old, nt.manifest.generation);
    s->table = nt;
    s->generation++;
    fs_blob_columns(s); /* same schema, but keep the ordinals in step with the table */
    clock_gettime(CLOCK_REALTIME, &s->mtime);
    fs_cache_clear(&s->cache);
    pthread_mutex_lock(&s->inval_mu); /* only ever taken inside the table lock */
    rows_erased_between(s, &old, &s->table);
    pthread_mutex_unlock(&s->inval_mu);
    pthread_rwlock_unlock(&s->table_lock);
    if (names_now) view_names_unblock(s);
    ig_table_close(&old);
    queue_invalidation(s);
    return true;
}

/* ---- view names in the kernel's cache (invalidate.h) ---------------------- */

uint64_t fs_view_names_epoch(struct fs_session *s)
{
    pthread_mutex_lock(&s->vnames_mu);
    uint64_t e = s->vnames_epoch;
    pthread_mutex_unlock(&s->vnames_mu);
    return e;
}

bool fs_view_names_send(struct fs_session *s, uint64_t epoch)
{
    if (!atomic_load(&s->view_names_cached)) return false;
    pthread_mutex_lock(&s->vnames_mu);
    bool ok = !s->vnames_blocked && s->vnames_epoch == epoch;
    if (ok) s->vnames_inflight++;
    pthread_mutex_unlock(&s->vnames_mu);
    return ok;
}

void fs_view_names_sent(struct fs_session *s)
{
    pthread_mutex_lock(&s->vnames_mu);
    if (--s->vnames_inflight == 0) pthread_cond_broadcast(&s->vnames_cv);
    pthread_mutex_unlock(&s->vnames_mu);
}

/* New entries uncached from now on; those already on their way arrive first. */
static void view_names_block(struct fs_session *s)
{
    pthread_mutex_lock(&s->vnames_mu);
    s->vnames_blocked++;
    s->vnames_epoch++;
    while (s->vnames_inflight)
        pthread_cond_wait(&s->vnames_cv, &s->vnames_mu);
    pthread_mutex_unlock(&s->vnames_mu);
}

static void view_names_unblock(struct fs_session *s)
{
    pthread_mutex_lock(&s->vnames_mu);
    s->vnames_blocked--;
    pthread_mutex_unlock(&s->vnames_mu);
}

void fs_reload_for_handler(struct fs_session *s, bool last)
{
    if (atomic_load(&s->view_names_cached)) {
        pthread_rwlock_rdlock(&s->table_lock);
        uint64_t seen = s->generation;
        pthread_rwlock_unlock(&s->table_lock);
        for (int i = 0; i < 100; i++) { /* the watcher's reload: names dropped first */
            usleep(1000);
            pthread_rwlock_rdlock(&s->table_lock);
            bool moved = s->generation != seen;
            pthread_rwlock_unlock(&s->table_lock);
            if (moved) return;
        }
        /* not yet: wait again on the next try; the last one reloads here
         * (its names go with the queued pass) */
        if (!last) return;
    }
    fs_reload(s, false, false); /* names go with the queued pass */
}

/* ---- the invalidation thread --------------------------------------------- */

/* Where node n is listed: its directory's inode and its name there. False for
 * nodes with no fixed place (the root, directories). */
static bool node_place(struct fs_session *s, const struct fs_node *n, uint64_t *parent, char *name,
                       size_t cap)
{
    switch (n->kind) {
    case FS_K_VIEW: {
        if (n->view == FS_V_PARQUET) {
            if (n->col > FS_GF_JSONL) return false;
            *parent = fs_ino_dir(group_file_dir(n->col), 0);
            return snprintf(name, cap, "%u.%s", n->scope - 1, group_file_ext(n->col)) > 0;
        }
        *parent = n->scope == FS_SCOPE_ALL ? fs_ino_dir(FS_D_COLUMNS, 0) : fs_ino_dir(FS_D_GROUP, n->scope);
        if (n->view == FS_V_ROWID) return snprintf(name, cap, "_rowid.npy") > 0;
        struct ig_colrec cr;
        char esc[3 * FS_NAME_MAX + 1];
        if (ig_part_column(&s->table.parts[0], n->col, &cr, NULL) ||
            !fs_escape_name(cr.name, cr.name_len, esc, sizeof esc))
            return false;
        return (size_t)snprintf(name, cap, "%s%s", esc, fs_view_suffix((enum fs_view)n->view)) < cap;
    }
    case FS_K_SPECIAL: {
        static const char *const names[] = {NULL, "README", "schema.json", "erase", "erasures",
                                            "generation"};
        *parent = n->special <= FS_S_SCHEMA ? 1 : fs_ino_dir(FS_D_CONTROL, 0);
        return snprintf(name, cap, "%s", names[n->special]) > 0;
    }
    case FS_K_ROW:
        *parent = fs_ino_dir(FS_D_ROWS, 0);
        return snprintf(name, cap, "%" PRIu64, n->row) > 0;
    default: return false;
    }
}

/* What the kernel must drop after the table changed, for one inode it knows:
 * a view or generated file of an older generation keeps its inode but loses its
 * cached pages (they may hold erased bytes; reads come back and get the
 * erased form or ESTALE) and its name (which leads to the new generation now),
 * so that it is forgotten once closed; a row or blob object that was erased
 * loses its name and pages. Rows, objects and directories that did not change
 * keep everything: they never change. Caller holds the table lock (read). */
static bool is_stale(struct fs_session *s, const struct fs_node *n)
{
    if (fs_node_versioned(n)) return n->version != fs_version_bits(s->current.gen);
    if (n->kind != FS_K_ROW && n->kind != FS_K_BLOB && n->kind != FS_K_BLOB_ROW) return false;
    uint32_t pi;
    uint64_t local;
    return ig_table_row(&s->table, n->row, &pi, &local) != 0 ||
           ig_part_row_deleted(&s->table.parts[pi], local);
}

struct stale {
    uint64_t ino, parent;
    bool placed, versioned;
    char name[3 * FS_NAME_MAX + 32];
};

static void notify_stale(struct fs_session *s, const struct stale *st)
{
    fuse_lowlevel_notify_inval_inode(s->se, st->ino, 0, 0);
    if (!st->placed) return;
    if (st->versioned)
        fuse_lowlevel_notify_delete(s->se, st->parent, st->ino, st->name, strlen(st->name));
    else
        fuse_lowlevel_notify_inval_entry(s->se, st->parent, st->name, strlen(st->name));
}

/* The inodes the kernel holds (only views whose names it caches, with
 * cached_views), a copy taken under known_mu; NULL without memory. */
static uint64_t *known_inodes(struct fs_session *s, bool cached_views, size_t *n)
{
    pthread_mutex_lock(&s->known_mu);
    *n = 0;
    uint64_t *inos = malloc((s->known_count + 1) * sizeof *inos);
    for (size_t i = 0; inos && i < s->known_cap; i++) {
        struct fs_node node;
        if (s->known[i].ino &&
            (!cached_views ||
             (fs_node_of(s->known[i].ino, &node) &&
              (fs_node_is_group_file(&node) || (atomic_load(&s->view_names_cached) && node.kind == FS_K_VIEW)))))
            inos[(*n)++] = s->known[i].ino;
    }
    pthread_mutex_unlock(&s->known_mu);
    return inos;
}

/* The names of views the kernel caches (row-group files always; every view
 * with view_names_cached), dropped. Caller holds no kernel lock on their
 * directories and not the table lock. */
#define DROP_BATCH 4096
static void drop_view_names(struct fs_session *s)
{
    size_t n;
    uint64_t *inos = known_inodes(s, true, &n);
    /* a batch's names from the table under its lock (a column view's name is
     * its column's: another reload may be replacing the table), then told to
     * the kernel without it; one at a time without memory for a batch */
    struct stale one, *st = malloc(DROP_BATCH * sizeof *st);
    size_t batch = st ? DROP_BATCH : 1;
    if (!st) st = &one;
    for (size_t a = 0; inos && a < n; a += batch) {
        size_t b = a + batch < n ? a + batch : n, ns = 0;
        pthread_rwlock_rdlock(&s->table_lock);
        for (size_t i = a; i < b; i++) {
            struct fs_node node;
            struct stale *x = &st[ns];
            *x = (struct stale){.ino = inos[i], .versioned = true};
            if (fs_node_of(inos[i], &node) && node_place(s, &node, &x->parent, x->name, sizeof x->name)) ns++;
        }
        pthread_rwlock_unlock(&s->table_lock);
        for (size_t i = 0; i < ns; i++)
            fuse_lowlevel_notify_delete(s->se, st[i].parent, st[i].ino, st[i].name, strlen(st[i].name));
    }
    if (st != &one) free(st);
    free(inos);
}

/* The rows of a queue taken off the session (caller holds inval_mu). */
static struct ig_u64vec take_rows(struct ig_u64vec *q)
{
    struct ig_u64vec r = *q;
    *q = (struct ig_u64vec){0};
    return r;
}

/* Keep the rows the kernel may hold (row_seen): rows are not among the known
 * inodes, and an erase of millions of rows tells the kernel only of these. */
static void keep_held_rows(struct fs_session *s, struct ig_u64vec *r)
{
    size_t held = 0;
    pthread_mutex_lock(&s->known_mu);
    for (size_t i = 0; i < r->n; i++)
        if (row_seen(s, r->v[i])) r->v[held++] = r->v[i];
    pthread_mutex_unlock(&s->known_mu);
    r->n = held;
}

/* Tell the kernel of erased rows: their pages and attributes (inodes: no
 * directory lock, so safe while an unlink in rows/ waits for its answer) and/or
 * their names (rows/ itself: only from a thread no erase waits for). */
static void notify_rows(struct fs_session *s, const struct ig_u64vec *r, bool inodes, bool names)
{
    for (size_t i = 0; i < r->n; i++) {
        struct fs_node node = {.kind = FS_K_ROW, .row = r->v[i]};
        uint64_t ino = fs_ino(&node), parent;
        char name[32];
        if (inodes) fuse_lowlevel_notify_inval_inode(s->se, ino, 0, 0);
        if (names && node_place(s, &node, &parent, name, sizeof name))
            fuse_lowlevel_notify_inval_entry(s->se, parent, name, strlen(name));
    }
}

/* Before erases through the mount are answered (the names thread): the pages
 * and attributes of the rows erased so far that the kernel may hold, dropped,
 * so that once `rm rows/ID` or a write to .ingot/erase returns, a stat, open or
 * read of an erased row (through a file opened before, too) asks the daemon and
 * gets ENOENT. Their names are left to the invalidation thread (an unlink holds
 * rows/ until it is answered). */
static void drop_erased_row_inodes(struct fs_session *s)
{
    pthread_mutex_lock(&s->inval_mu);
    struct ig_u64vec r = take_rows(&s->inval_rows);
    pthread_mutex_unlock(&s->inval_mu);
    keep_held_rows(s, &r);
    if (r.n) {
        fs_fill_barrier(s);
        notify_rows(s, &r, true, false);
    }
    pthread_mutex_lock(&s->inval_mu);
    if (!s->row_names.n) {
        ig_u64vec_free(&s->row_names);
        s->row_names = r;
    } else {
        for (size_t i = 0; i < r.n; i++) /* out of memory: the name lasts until its timeout */
            (void)ig_u64vec_push(&s->row_names, r.v[i]);
        ig_u64vec_free(&r);
    }
    s->inval_pending = s->inval_pending || s->row_names.n;
    pthread_cond_signal(&s->inval_cv);
    pthread_mutex_unlock(&s->inval_mu);
}

/* The rows erased since the last call: the pages, attributes and name of each
 * one the kernel may hold dropped, or the names alone of those whose inodes
 * drop_erased_row_inodes did. */
static void invalidate_rows(struct fs_session *s)
{
    pthread_mutex_lock(&s->inval_mu);
    struct ig_u64vec full = take_rows(&s->inval_rows), names = take_rows(&s->row_names);
    pthread_mutex_unlock(&s->inval_mu);
    keep_held_rows(s, &full);
    if (full.n) fs_fill_barrier(s);
    notify_rows(s, &full, true, true);
    notify_rows(s, &names, false, true);
    ig_u64vec_free(&full);
    ig_u64vec_free(&names);
}

/* The known inodes in batches: each batch checked under one hold of the table
 * lock (a loader may have a million rows' inodes known, and an erase finds
 * the few stale ones among them), then the stale ones notified without it
 * (the kernel may call back into the daemon). */
#define INVAL_BATCH 4096
/* The stale ones among the known inodes, notified: their pages and names
 * (invalidate_known), or with pages_only their pages alone, rows/ and the
 * control files left out (drop_stale_pages). */
static void notify_stale_known(struct fs_session *s, bool pages_only)
{
    fs_fill_barrier(s);
    size_t n;
    uint64_t *inos = known_inodes(s, false, &n);
    struct stale *st = malloc(INVAL_BATCH * sizeof *st);
    for (size_t a = 0; inos && st && a < n; a += INVAL_BATCH) {
        size_t b = a + INVAL_BATCH < n ? a + INVAL_BATCH : n, ns = 0;
        pthread_rwlock_rdlock(&s->table_lock);
        for (size_t i = a; i < b; i++) {
            struct fs_node node;
            if (!fs_node_of(inos[i], &node) || !is_stale(s, &node) ||
                (pages_only && (node.kind == FS_K_ROW || node.kind == FS_K_SPECIAL)))
                continue;
            struct stale *x = &st[ns++];
            x->ino = inos[i];
            x->versioned = fs_node_versioned(&node);
            x->placed = !pages_only && node_place(s, &node, &x->parent, x->name, sizeof x->name);
        }
        pthread_rwlock_unlock(&s->table_lock);
        for (size_t i = 0; i < ns; i++)
            notify_stale(s, &st[i]); /* unplaced: the pages alone */
    }
    free(st);
    free(inos);
}

static void invalidate_known(struct fs_session *s)
{
    notify_stale_known(s, false);
}

/* Before an erase through the mount is answered: the cached pages of every
 * file of an older generation the kernel holds (column views, arrays mapped
 * before the erase) and of the erased rows' objects, dropped, so that no
 * reader sees an erased value once `rm rows/ID` returns (a page cached before
 * the erase is read again: the erased form). Pages only: the names are the
 * invalidation thread's, and rows (drop_erased_row_inodes) and .ingot/erase
 * are left out (the request waiting for this holds them). */
static void drop_stale_pages(struct fs_session *s)
{
    notify_stale_known(s, true);
}

void fs_invalidate_if_moved(struct fs_session *s, uint64_t gen)
{
    pthread_rwlock_rdlock(&s->table_lock);
    bool moved = s->current.gen != gen;
    pthread_rwlock_unlock(&s->table_lock);
    if (moved) queue_invalidation(s);
}

static void invalidate_all(struct fs_session *s)
{
    invalidate_known(s);
    invalidate_rows(s);
}

/* ---- erases through the mount, answered once the names are dropped -------- */

/* A thread of its own: it only ever tells the kernel of parquet/ and arrow/
 * entries and of stale files' pages (drop_stale_pages), which no erase
 * request holds, so it can wait for the kernel while the erases wait for it.
 * (The invalidation thread also tells of rows/ and .ingot/erase, which an
 * unlink or a write holds until it is answered: were it to answer them, it
 * could wait on its own answer.) */
struct fs_deferred_reply {
    fuse_req_t req;
    bool write;
    size_t size;
};

/* unlink: done (0); write: the bytes written */
static void answer(const struct fs_deferred_reply *d)
{
    if (d->write) fuse_reply_write(d->req, d->size);
    else fuse_reply_err(d->req, 0);
}

void fs_reply_after_names(struct fs_session *s, struct fuse_req *req, bool write, size_t size)
{
    pthread_mutex_lock(&s->inval_mu);
    bool queued = false;
    if (s->ndeferred == s->deferred_cap) {
        size_t cap = s->deferred_cap ? s->deferred_cap * 2 : 16;
        struct fs_deferred_reply *d = realloc(s->deferred, cap * sizeof *d);
        if (d) s->deferred = d, s->deferred_cap = cap;
    }
    if (s->ndeferred < s->deferred_cap && s->threads_started && !s->stopping) {
        s->deferred[s->ndeferred++] = (struct fs_deferred_reply){req, write, size};
        queued = true;
        pthread_cond_signal(&s->names_cv);
    }
    pthread_mutex_unlock(&s->inval_mu);
    if (queued) return;
    /* out of memory or unmounting: answer now; the queued pass drops the names
     * (with view names cached the erase has not been reloaded yet: here, then) */
    if (atomic_load(&s->view_names_cached)) fs_reload(s, true, false);
    answer(&(struct fs_deferred_reply){req, write, size});
}

static void *names_main(void *arg)
{
    struct fs_session *s = arg;
    for (;;) {
        pthread_mutex_lock(&s->inval_mu);
        while (!s->ndeferred && !s->stopping)
            pthread_cond_wait(&s->names_cv, &s->inval_mu);
        bool stop = s->stopping;
        struct fs_deferred_reply *d = s->deferred;
        size_t n = s->ndeferred;
        s->deferred = NULL;
        s->ndeferred = s->deferred_cap = 0;
        pthread_mutex_unlock(&s->inval_mu);
        if (n && !stop) {
            /* an erase through the mount: with view names cached, the reload
             * is made here (control.c), names dropped before it shows */
            if (atomic_load(&s->view_names_cached))
                fs_reload(s, true, true);
            else
                drop_view_names(s);
            drop_stale_pages(s);
            drop_erased_row_inodes(s);
        }
        for (size_t i = 0; i < n; i++)
            answer(&d[i]);
        free(d);
        if (stop) break;
    }
    return NULL;
}

static void *inval_main(void *arg)
{
    struct fs_session *s = arg;
    for (;;) {
        pthread_mutex_lock(&s->inval_mu);
        while (!s->inval_pending && !s->stopping)
            pthread_cond_wait(&s->inval_cv, &s->inval_mu);
        bool stop = s->stopping;
        s->inval_pending = false;
        pthread_mutex_unlock(&s->inval_mu);
        if (stop) break;
        invalidate_all(s);
    }
    return NULL;
}

/* ---- watching for changes by other processes ------------------------------ */

/* Changes made on this host arrive through inotify at once; changes made by
 * another host sharing the table (a network file system: inotify sees only
 * local writes) are found by checking the table's generation every poll_ms
 * (fs_table_moved reads MANIFEST and each part's tail). */
static void *watch_main(void *arg)
{
    struct fs_session *s = arg;
    char buf[4096] __attribute__((aligned(8)));
    for (;;) {
        struct pollfd pf[2] = {{s->inotify_fd, POLLIN, 0}, {s->stop_pipe[0], POLLIN, 0}};
        int n = poll(pf, 2, s->poll_ms ? (int)s->poll_ms : -1);
        if (n < 0) continue;
        if (pf[1].revents) break;
        if (n == 0) { /* the timer: another host may have erased or appended */
            if (fs_manifest_moved(s)) {
                /* from another host: this host's cached part pages may be old */
                ig_table_forget_cache(s->dir);
                fs_reload(s, false, true);
            }
            continue;
        }
        if (!(pf[0].revents & POLLIN)) continue;
        /* let a burst of events (journal, parts, audit log) settle */
        usleep(20000);
        /* from the moment the events leave the queue until the reload is done,
         * fs_writer_seen learns of them from this flag instead */
        atomic_store(&s->watcher_busy, true);
        while (read(s->inotify_fd, buf, sizeof buf) > 0) {
        }
        fs_reload(s, false, true);
        atomic_store(&s->watcher_busy, false);
    }
    return NULL;
}

bool fs_writer_seen(struct fs_session *s)
{
    int fd = atomic_load(&s->watch_fd);
    if (fd < 0 || atomic_load(&s->erasing) || atomic_load(&s->watcher_busy)) return true;
    int queued = 0;
    return ioctl(fd, FIONREAD, &queued) != 0 || queued > 0;
}

int fs_invalidate_start(struct fs_session *s)
{
    char sub[4200];
    snprintf(sub, sizeof sub, "%s/.ingot", s->dir);
    mkdir(sub, 0755); /* may fail on a read-only table: then only MANIFEST is watched */
    s->inotify_fd = s->use_inotify ? inotify_init1(IN_NONBLOCK | IN_CLOEXEC) : -1;
    if (s->inotify_fd >= 0) {
        inotify_add_watch(s->inotify_fd, s->dir, IN_MOVED_TO | IN_CLOSE_WRITE);
        inotify_add_watch(s->inotify_fd, sub, IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO);
    }
    if (pipe2(s->stop_pipe, O_CLOEXEC)) return -errno;
    if (pthread_create(&s->inval_thread, NULL, inval_main, s)) return -EAGAIN;
    if (pthread_create(&s->names_thread, NULL, names_main, s)) {
        pthread_mutex_lock(&s->inval_mu);
        s->stopping = true;
        pthread_cond_signal(&s->inval_cv);
        pthread_mutex_unlock(&s->inval_mu);
        pthread_join(s->inval_thread, NULL);
        return -EAGAIN;
    }
    s->watching = (s->inotify_fd >= 0 || s->poll_ms) &&
                  pthread_create(&s->watch_thread, NULL, watch_main, s) == 0;
    if (!s->watching && s->inotify_fd >= 0) {
        close(s->inotify_fd);
        s->inotify_fd = -1;
    }
    atomic_store(&s->watch_fd, s->watching ? s->inotify_fd : -1);
    pthread_mutex_lock(&s->inval_mu); /* fs_reply_after_names reads it */
    s->threads_started = true;
    pthread_mutex_unlock(&s->inval_mu);
    return 0;
}

void fs_invalidate_stop(struct fs_session *s)
{
    if (!s->threads_started) return;
    pthread_mutex_lock(&s->inval_mu);
    s->stopping = true;
    pthread_cond_signal(&s->inval_cv);
    pthread_cond_signal(&s->names_cv);
    pthread_mutex_unlock(&s->inval_mu);
    atomic_store(&s->watch_fd, -1);
    if (write(s->stop_pipe[1], "x", 1) < 0) { /* the watcher also stops on poll errors */
    }
    pthread_join(s->inval_thread, NULL);
    pthread_join(s->names_thread, NULL);
    if (s->watching) pthread_join(s->watch_thread, NULL);
    if (s->inotify_fd >= 0) {
        close(s->inotify_fd);
    }
    close(s->stop_pipe[0]);
    close(s->stop_pipe[1]);
    s->threads_started = false;
}
