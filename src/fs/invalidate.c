/* invalidate.c - reloading a changed table and telling the kernel what went stale (invalidate.h). */
#include "invalidate.h"
#include "kernel.h"
#include "namespace.h"
#include "watch.h"
#include "fill.h"
#include "blobs.h"
#include "inode.h"
#include "format/model/names.h"
#include "format/part/columns.h"
#include "session.h"
#include "format/part/journal.h"
#include "util/clock.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/io.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>


/* What the invalidation and names threads share (all under mu). */
struct fs_invalidator {
    pthread_mutex_t mu;
    pthread_mutex_t rows_mu;     /* held from taking erased rows until the kernel was told of
                                    their pages and attributes (both threads): once the names
                                    thread holds it, no row taken before is still untold */
    pthread_cond_t cv;           /* a pass is pending (the invalidation thread) */
    pthread_cond_t names_cv;     /* deferred replies wait (the names thread) */
    struct ig_u64vec rows;       /* rows erased since the kernel was last told */
    struct ig_u64vec row_names;  /* erased rows whose pages and attributes the names
                                    thread dropped; their names are left to tell */
    struct fs_deferred_reply *deferred; /* erases answered once names are dropped */
    size_t ndeferred, deferred_cap;
    bool pending, stopping;
    bool reshaped; /* the columns shown changed: every row and object file is stale */
    uint64_t told_gen;       /* the newest generation whose older files' pages the kernel
                                was told to drop (fs_invalidate_wait_told) */
    pthread_cond_t told_cv;  /* told_gen moved */
    pthread_t inval_thread, names_thread;
};

/* Tell the kernel (kernel.h): the glue's calls. */
static void tell_inval_inode(struct fs_session *s, uint64_t ino) { s->kernel.inval_inode(s->kernel.ctx, ino); }
static void tell_inval_entry(struct fs_session *s, uint64_t parent, const char *name)
{
    s->kernel.inval_entry(s->kernel.ctx, parent, name, strlen(name));
}
static void tell_delete(struct fs_session *s, uint64_t parent, uint64_t ino, const char *name)
{
    s->kernel.delete_entry(s->kernel.ctx, parent, ino, name, strlen(name));
}

/* ---- rows erased between two generations ---------------------------------- */

static void queue_row(struct fs_session *s, uint64_t row)
{
    /* out of memory: the kernel keeps a name until its timeout; reads see ENOENT */
    (void)ig_u64vec_push(&s->inval->rows, row);
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
        /* np has deleted rows: it has a bitmap (ig_part_deletion); op may not */
        const uint8_t *nb = ig_part_deletion(np), *ob = op ? ig_part_deletion(op) : NULL;
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

/* Do two versions show the same columns under the same names, in the same
 * order? A column added, replaced, dropped, renamed or moved changes what
 * every rows/ID holds, and what blobs/COL/ID is. */
static bool shows_same_columns(const struct ig_table *a, const struct ig_table *b)
{
    const struct ig_manifest *ma = &a->manifest, *mb = &b->manifest;
    if (ma->nnames != mb->nnames) return false;
    for (uint32_t i = 0; i < ma->nnames; i++)
        if (ma->names[i].col != mb->names[i].col || ma->names[i].len != mb->names[i].len ||
            memcmp(ma->names[i].name, mb->names[i].name, ma->names[i].len))
            return false;
    if (a->manifest.listed != b->manifest.listed || !ig_idseq_equal(&ma->order, &mb->order)) return false;
    if (a->manifest.listed) return ig_idset_equal(&a->manifest.columns, &b->manifest.columns);
    return (a->nparts ? a->parts[0].num_columns : 0) == (b->nparts ? b->parts[0].num_columns : 0);
}

static void queue_invalidation(struct fs_session *s)
{
    if (!s->inval) return; /* not serving yet */
    pthread_mutex_lock(&s->inval->mu);
    s->inval->pending = true;
    pthread_cond_signal(&s->inval->cv);
    pthread_mutex_unlock(&s->inval->mu);
}

static void drop_view_names(struct fs_session *s);

bool fs_reload(struct fs_session *s, bool force, bool names_now)
{
    pthread_rwlock_rdlock(&s->table_lock);
    bool changed = force || fs_table_moved(s);
    pthread_rwlock_unlock(&s->table_lock);
    if (!changed) return false;
    struct ig_table nt;
    struct ig_error err = {0};
    uint64_t ticket = atomic_fetch_add(&s->reloads_begun, 1) + 1;
    uint64_t seen = s->version ? fs_manifest_generation(s->dir) : 0;
    if (ig_table_open_shared_version(&nt, s->dir, s->version, &err)) {
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
        fs_view_names_block(&s->vnames);
        drop_view_names(s);
    }
    fs_map_parts(&nt);
    pthread_rwlock_wrlock(&s->table_lock);
    /* two reloads may run at once (the watcher's and the names thread's, for
     * an erase by the CLI and one through the mount): one that began opening
     * the table before the one shown must not replace it, or the table would
     * go back a generation (a reader would meet a file of the older one after
     * the generation file showed the newer) */
    if (ticket < s->table_opened_at) {
        pthread_rwlock_unlock(&s->table_lock);
        if (names_now) fs_view_names_unblock(&s->vnames);
        ig_table_close(&nt);
        return false;
    }
    s->table_opened_at = ticket;
    struct ig_table old = s->table;
    /* keep what the old generation looked like while the kernel holds its files */
    fs_generation_advance(&s->gens, &old, s->version ? seen : nt.manifest.generation);
    s->table = nt;
    s->seen_generation = seen;
    s->generation++;
    fs_blob_columns(s); /* same schema, but keep the ordinals in step with the table */
    fs_list_order(s);
    clock_gettime(CLOCK_REALTIME, &s->mtime);
    fs_cache_clear(&s->cache);
    if (s->inval) {
        pthread_mutex_lock(&s->inval->mu); /* only ever taken inside the table lock */
        rows_erased_between(s, &old, &s->table);
        s->inval->reshaped |= !shows_same_columns(&old, &s->table);
        pthread_mutex_unlock(&s->inval->mu);
    }
    pthread_rwlock_unlock(&s->table_lock);
    if (names_now) fs_view_names_unblock(&s->vnames);
    ig_table_close(&old);
    queue_invalidation(s);
    if (s->after_reload) s->after_reload(s->after_reload_ctx, names_now);
    return true;
}

static uint64_t reloads_done(struct fs_session *s)
{
    pthread_rwlock_rdlock(&s->table_lock);
    uint64_t n = s->generation;
    pthread_rwlock_unlock(&s->table_lock);
    return n;
}

static void reload_for_handler(struct fs_session *s, bool last)
{
    if (fs_view_names_cached(&s->vnames)) {
        uint64_t seen = reloads_done(s);
        for (int i = 0; i < 100; i++) { /* the watcher's reload: names dropped first */
            usleep(1000);
            if (reloads_done(s) != seen) return;
        }
        /* not yet: wait again on the next try; the last one reloads here
         * (its names go with the queued pass) */
        if (!last) return;
    }
    fs_reload(s, false, false); /* names go with the queued pass */
}

bool fs_wait_for_writer(struct fs_session *s, struct fs_writer_wait *w)
{
    uint64_t now = ig_now_ns();
    if (!w->tries) w->since_ns = now;
    else if (now - w->since_ns > FS_WRITER_WAIT_MS * 1000000ull) return false;
    /* its own reload changed nothing, and it failed again: not a writer (a
     * part damaged or cut short under the mount, which reloading cannot open) */
    if (w->tries >= 4 && !w->moved) return false;
    uint64_t before = reloads_done(s);
    reload_for_handler(s, ++w->tries >= 4);
    w->moved = reloads_done(s) != before;
    return true;
}

/* ---- the invalidation thread --------------------------------------------- */

/* What the kernel must drop after the table changed, for one inode it knows:
 * a view or generated file of an older generation keeps its inode but loses its
 * cached pages (they may hold erased bytes; reads come back and get the
 * erased form or ESTALE) and its name (which leads to the new generation now),
 * so that it is forgotten once closed; a row or blob object that was erased
 * loses its name and pages. Rows, objects and directories that did not change
 * keep everything: they never change. Caller holds the table lock (read). */
/* reshaped: the columns shown changed since the kernel was last told */
static bool is_stale(struct fs_session *s, const struct fs_node *n, bool reshaped)
{
    if (fs_node_generational(n)) return n->gen_bits != fs_gen_bits(s->gens.current.gen);
    if (n->kind != FS_K_ROW && n->kind != FS_K_BLOB && n->kind != FS_K_BLOB_ROW) return false;
    if (reshaped) return true;
    uint32_t pi;
    uint64_t local;
    return ig_table_row(&s->table, n->row, &pi, &local) != 0 ||
           ig_part_row_deleted(&s->table.parts[pi], local);
}

struct stale {
    uint64_t ino, parent;
    bool pages, placed, versioned;
    char name[3 * FS_NAME_MAX + 32];
};

static void notify_stale(struct fs_session *s, const struct stale *st)
{
    if (st->pages) tell_inval_inode(s, st->ino);
    if (!st->placed) return;
    if (st->versioned)
        tell_delete(s, st->parent, st->ino, st->name);
    else
        tell_inval_entry(s, st->parent, st->name);
}

/* Views whose names the kernel caches: row-group files always, every view
 * with view names cached. */
static bool view_name_held(void *ctx, uint64_t ino)
{
    struct fs_session *s = ctx;
    struct fs_node node;
    return fs_node_of(ino, &node) &&
           (fs_node_is_group_file(&node) || (fs_view_names_cached(&s->vnames) && node.kind == FS_K_VIEW));
}

/* The inodes the kernel holds (only views whose names it caches, with
 * cached_views); NULL without memory. */
static uint64_t *known_inodes(struct fs_session *s, bool cached_views, size_t *n)
{
    return fs_known_inodes(&s->known, cached_views ? view_name_held : NULL, s, n);
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
            if (fs_node_of(inos[i], &node) && fs_ns_place(s, &node, &x->parent, x->name, sizeof x->name)) ns++;
        }
        pthread_rwlock_unlock(&s->table_lock);
        for (size_t i = 0; i < ns; i++)
            tell_delete(s, st[i].parent, st[i].ino, st[i].name);
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

/* Keep the rows the kernel may hold: rows are not among the known inodes, and
 * an erase of millions of rows tells the kernel only of these. */
static void keep_held_rows(struct fs_session *s, struct ig_u64vec *r)
{
    fs_known_keep_given_rows(&s->known, r);
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
        if (inodes) tell_inval_inode(s, ino);
        if (names && fs_ns_place(s, &node, &parent, name, sizeof name))
            tell_inval_entry(s, parent, name);
    }
}

/* The erased rows queued so far taken, and the kernel told of the pages and
 * attributes of those it may hold, all under rows_mu: a thread that takes
 * rows has told the kernel of them before another may find the queue empty
 * and answer an erase. The invalidation pass (names given) takes the queued
 * row names too, and is where the test hook widens the window. */
static struct ig_u64vec take_rows_telling_pages(struct fs_session *s, struct ig_u64vec *names)
{
    pthread_mutex_lock(&s->inval->rows_mu);
    pthread_mutex_lock(&s->inval->mu);
    struct ig_u64vec r = take_rows(&s->inval->rows);
    if (names) *names = take_rows(&s->inval->row_names);
    pthread_mutex_unlock(&s->inval->mu);
    if (names && r.n && s->test_rows_pause_ms) /* tests: the window before they are told, widened */
        usleep(s->test_rows_pause_ms * 1000u);
    keep_held_rows(s, &r);
    if (r.n) {
        fs_fill_barrier(&s->fill);
        notify_rows(s, &r, true, false);
    }
    pthread_mutex_unlock(&s->inval->rows_mu);
    return r;
}

/* Before erases through the mount are answered (the names thread): the pages
 * and attributes of the rows erased so far that the kernel may hold, dropped,
 * so that once `rm rows/ID` or a write to .ingot/erase returns, a stat, open or
 * read of an erased row (through a file opened before, too) asks the daemon and
 * gets ENOENT. Their names are left to the invalidation thread (an unlink holds
 * rows/ until it is answered). */
static void drop_erased_row_inodes(struct fs_session *s)
{
    struct ig_u64vec r = take_rows_telling_pages(s, NULL);
    pthread_mutex_lock(&s->inval->mu);
    if (!s->inval->row_names.n) {
        ig_u64vec_free(&s->inval->row_names);
        s->inval->row_names = r;
    } else {
        for (size_t i = 0; i < r.n; i++) /* out of memory: the name lasts until its timeout */
            (void)ig_u64vec_push(&s->inval->row_names, r.v[i]);
        ig_u64vec_free(&r);
    }
    s->inval->pending = s->inval->pending || s->inval->row_names.n;
    pthread_cond_signal(&s->inval->cv);
    pthread_mutex_unlock(&s->inval->mu);
}

/* The rows erased since the last call: the pages, attributes and name of each
 * one the kernel may hold dropped, or the names alone of those whose inodes
 * drop_erased_row_inodes did. */
static void invalidate_rows(struct fs_session *s)
{
    /* the rows this pass takes may be those of an erase the names thread is
     * about to answer (its reload queued this pass): their pages and
     * attributes are dropped before it may answer, their names after (an
     * unlink holds rows/ until it is answered) */
    struct ig_u64vec names, full = take_rows_telling_pages(s, &names);
    notify_rows(s, &full, false, true);
    notify_rows(s, &names, false, true);
    ig_u64vec_free(&full);
    ig_u64vec_free(&names);
}

/* The known inodes in batches: each batch checked under one hold of the table
 * lock (a loader may have a million rows' inodes known, and an erase finds
 * the few stale ones among them), then the stale ones notified without it
 * (the kernel may call back into the daemon). */
#define INVAL_BATCH 4096
/* The stale ones among the known inodes, notified: with STALE_PAGES their
 * pages alone, rows/ and the control files left out (drop_stale_pages); with
 * STALE_NAMES, which follows it in the invalidation thread's pass, their names,
 * and the pages of what STALE_PAGES left out. */
enum stale_what { STALE_PAGES, STALE_NAMES };
static void notify_stale_known(struct fs_session *s, enum stale_what what)
{
    bool reshaped = false, pages_only = what == STALE_PAGES;
    if (!pages_only) { /* the invalidation thread's pass tells of every row */
        pthread_mutex_lock(&s->inval->mu);
        reshaped = s->inval->reshaped;
        s->inval->reshaped = false;
        pthread_mutex_unlock(&s->inval->mu);
    }
    fs_fill_barrier(&s->fill);
    if (reshaped) { /* rows are not known inodes: every one given, its pages and size */
        struct ig_u64vec rows = {0};
        fs_known_given_rows(&s->known, &rows);
        notify_rows(s, &rows, true, false);
        ig_u64vec_free(&rows);
    }
    size_t n;
    uint64_t *inos = known_inodes(s, false, &n);
    struct stale *st = malloc(INVAL_BATCH * sizeof *st);
    for (size_t a = 0; inos && st && a < n; a += INVAL_BATCH) {
        size_t b = a + INVAL_BATCH < n ? a + INVAL_BATCH : n, ns = 0;
        pthread_rwlock_rdlock(&s->table_lock);
        for (size_t i = a; i < b; i++) {
            struct fs_node node;
            if (!fs_node_of(inos[i], &node) || !is_stale(s, &node, reshaped) ||
                (pages_only && (node.kind == FS_K_ROW || node.kind == FS_K_SPECIAL)))
                continue;
            struct stale *x = &st[ns++];
            x->ino = inos[i];
            x->pages = pages_only || node.kind == FS_K_ROW || node.kind == FS_K_SPECIAL;
            x->versioned = fs_node_generational(&node);
            x->placed = !pages_only && fs_ns_place(s, &node, &x->parent, x->name, sizeof x->name);
        }
        pthread_rwlock_unlock(&s->table_lock);
        for (size_t i = 0; i < ns; i++)
            notify_stale(s, &st[i]);
    }
    free(st);
    free(inos);
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
    notify_stale_known(s, STALE_PAGES);
}

void fs_invalidate_if_moved(struct fs_session *s, uint64_t gen)
{
    pthread_rwlock_rdlock(&s->table_lock);
    bool moved = s->gens.current.gen != gen;
    pthread_rwlock_unlock(&s->table_lock);
    if (moved) queue_invalidation(s);
}

void fs_invalidate_erased_now(struct fs_session *s)
{
    if (!s->inval) return;
    drop_stale_pages(s);
    drop_erased_row_inodes(s);
}

/* The invalidation thread's pass: the pages of older files first (never the
 * generation file's, whose reads wait for this), then the generation file may
 * show gen (fs_invalidate_wait_told), then the names and the rows. */
static void invalidate_all(struct fs_session *s, uint64_t gen)
{
    drop_stale_pages(s);
    pthread_mutex_lock(&s->inval->mu);
    if (gen > s->inval->told_gen) s->inval->told_gen = gen;
    pthread_cond_broadcast(&s->inval->told_cv);
    pthread_mutex_unlock(&s->inval->mu);
    notify_stale_known(s, STALE_NAMES);
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
    void *req;
    bool write;
    size_t size;
};

/* unlink: done (0); write: the bytes written */
static void answer(struct fs_session *s, const struct fs_deferred_reply *d)
{
    s->kernel.answer(d->req, d->write, d->size);
}

void fs_reply_after_names(struct fs_session *s, void *req, bool write, size_t size)
{
    struct fs_invalidator *iv = s->inval;
    bool queued = false;
    if (iv) pthread_mutex_lock(&iv->mu);
    if (iv && iv->ndeferred == iv->deferred_cap) {
        size_t cap = iv->deferred_cap ? iv->deferred_cap * 2 : 16;
        struct fs_deferred_reply *d = realloc(iv->deferred, cap * sizeof *d);
        if (d) iv->deferred = d, iv->deferred_cap = cap;
    }
    if (iv && iv->ndeferred < iv->deferred_cap && !iv->stopping) {
        iv->deferred[iv->ndeferred++] = (struct fs_deferred_reply){req, write, size};
        queued = true;
        pthread_cond_signal(&iv->names_cv);
    }
    if (iv) pthread_mutex_unlock(&iv->mu);
    if (queued) return;
    /* out of memory or unmounting: answer now; the queued pass drops the names
     * (with view names cached the erase has not been reloaded yet: here, then) */
    if (fs_view_names_cached(&s->vnames)) fs_reload(s, true, false);
    answer(s, &(struct fs_deferred_reply){req, write, size});
}

static void *names_main(void *arg)
{
    struct fs_session *s = arg;
    for (;;) {
        struct fs_invalidator *iv = s->inval;
        pthread_mutex_lock(&iv->mu);
        while (!iv->ndeferred && !iv->stopping)
            pthread_cond_wait(&iv->names_cv, &iv->mu);
        bool stop = iv->stopping;
        struct fs_deferred_reply *d = iv->deferred;
        size_t n = iv->ndeferred;
        iv->deferred = NULL;
        iv->ndeferred = iv->deferred_cap = 0;
        pthread_mutex_unlock(&iv->mu);
        if (n && !stop) {
            /* an erase through the mount: with view names cached, the reload
             * is made here (control.c), names dropped before it shows */
            if (fs_view_names_cached(&s->vnames))
                fs_reload(s, true, true);
            else
                drop_view_names(s);
            drop_stale_pages(s);
            drop_erased_row_inodes(s);
        }
        for (size_t i = 0; i < n; i++)
            answer(s, &d[i]);
        free(d);
        if (stop) break;
    }
    return NULL;
}

static uint64_t current_gen(struct fs_session *s)
{
    pthread_rwlock_rdlock(&s->table_lock);
    uint64_t gen = s->gens.current.gen;
    pthread_rwlock_unlock(&s->table_lock);
    return gen;
}

static void *inval_main(void *arg)
{
    struct fs_session *s = arg;
    struct fs_invalidator *iv = s->inval;
    for (;;) {
        pthread_mutex_lock(&iv->mu);
        while (!iv->pending && !iv->stopping)
            pthread_cond_wait(&iv->cv, &iv->mu);
        bool stop = iv->stopping;
        iv->pending = false;
        pthread_mutex_unlock(&iv->mu);
        if (stop) break;
        if (s->test_inval_pause_ms) /* tests: the window before the kernel is told, widened */
            usleep(s->test_inval_pause_ms * 1000u);
        invalidate_all(s, current_gen(s));
    }
    /* stopping: nobody waits any longer */
    pthread_mutex_lock(&iv->mu);
    iv->told_gen = UINT64_MAX;
    pthread_cond_broadcast(&iv->told_cv);
    pthread_mutex_unlock(&iv->mu);
    return NULL;
}

void fs_invalidate_wait_told(struct fs_session *s, const struct fs_node *n)
{
    struct fs_invalidator *iv = s->inval;
    /* one worker, or no watcher: the drop may wait for a read only a waiting
     * worker would answer (viewnames.h: the same condition) */
    if (!iv || !fs_view_names_cached(&s->vnames) || n->kind != FS_K_SPECIAL ||
        n->special != FS_S_GENERATION)
        return;
    /* an older generation's number (a pinned burst, an old handle): its
     * generation file may be among the pages being dropped, which waits for
     * this read */
    uint64_t gen = current_gen(s);
    if (n->gen_bits != fs_gen_bits(gen)) return;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += FS_TOLD_WAIT_MS / 1000;
    until.tv_nsec += (long)(FS_TOLD_WAIT_MS % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
    pthread_mutex_lock(&iv->mu);
    while (iv->told_gen < gen && !iv->stopping)
        if (pthread_cond_timedwait(&iv->told_cv, &iv->mu, &until) == ETIMEDOUT) break;
    pthread_mutex_unlock(&iv->mu);
}

/* ---- starting and stopping ------------------------------------------------ */

/* This host changed the table (inotify): reload, names dropped first. */
static void table_changed(void *arg)
{
    fs_reload(arg, false, true);
}

/* The timer: another host may have erased or appended. */
static void timer_tick(void *arg)
{
    struct fs_session *s = arg;
    if (fs_manifest_moved(s)) {
        /* from another host: this host's cached part pages may be old */
        ig_table_forget_cache(s->dir);
        fs_reload(s, false, true);
    }
}

static void stop_threads(struct fs_invalidator *iv, bool names)
{
    pthread_mutex_lock(&iv->mu);
    iv->stopping = true;
    pthread_cond_signal(&iv->cv);
    pthread_cond_signal(&iv->names_cv);
    pthread_mutex_unlock(&iv->mu);
    pthread_join(iv->inval_thread, NULL);
    if (names) pthread_join(iv->names_thread, NULL);
}

static void invalidator_free(struct fs_invalidator *iv)
{
    pthread_mutex_destroy(&iv->mu);
    pthread_mutex_destroy(&iv->rows_mu);
    pthread_cond_destroy(&iv->cv);
    pthread_cond_destroy(&iv->names_cv);
    pthread_cond_destroy(&iv->told_cv);
    free(iv->deferred);
    ig_u64vec_free(&iv->rows);
    ig_u64vec_free(&iv->row_names);
    free(iv);
}

int fs_invalidate_start(struct fs_session *s)
{
    struct fs_invalidator *iv = calloc(1, sizeof *iv);
    if (!iv) return -ENOMEM;
    pthread_mutex_init(&iv->mu, NULL);
    pthread_mutex_init(&iv->rows_mu, NULL);
    pthread_cond_init(&iv->cv, NULL);
    pthread_cond_init(&iv->names_cv, NULL);
    pthread_cond_init(&iv->told_cv, NULL);
    iv->told_gen = s->gens.current.gen;
    s->inval = iv;
    if (pthread_create(&iv->inval_thread, NULL, inval_main, s)) {
        s->inval = NULL;
        invalidator_free(iv);
        return -EAGAIN;
    }
    if (pthread_create(&iv->names_thread, NULL, names_main, s)) {
        stop_threads(iv, false);
        s->inval = NULL;
        invalidator_free(iv);
        return -EAGAIN;
    }
    int rc = fs_watch_start(&s->watch, s->dir, table_changed, timer_tick, s);
    if (rc) {
        stop_threads(iv, true);
        s->inval = NULL;
        invalidator_free(iv);
    }
    return rc;
}

void fs_invalidate_stop(struct fs_session *s)
{
    struct fs_invalidator *iv = s->inval;
    if (!iv) return;
    fs_watch_stop(&s->watch);
    stop_threads(iv, true);
    s->inval = NULL;
    invalidator_free(iv);
}
