/* erase.c - an erasure planned: every page of every leaf that holds an erased
 * row rewritten into the journal (docs/ERASURE.md); the audit line. ig_erase
 * (erase_run.c) runs it on a file system, erase_remote.c on object storage. */
#include "erase_int.h"
#include "format/ops/erase.h"
#include "format/part/columns.h"
#include "format/part/journal.h"
#include "format/layout.h"
#include "format/part/lock.h"
#include "format/part/merkle.h"
#include "format/part/versions.h"
#include "format/model/assemble.h"
#include "format/ops/nested.h"
#include "format/page/page.h"
#include "format/ops/reader.h"
#include "format/model/render.h"
#include "format/model/types.h"
#include "blob/blob.h"
#include "format/model/parse_value.h"
#include "util/buf.h"
#include "util/cpu.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/u64vec.h"
#include "util/hash.h"
#include "util/io.h"
#include "store/store.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Ask the kernel for every page of group g that holds an erased row before
 * reading any: from a cold cache the reads then overlap instead of queueing one
 * behind the other (one page per column: a hundred random reads). Advice only:
 * errors are for the reads themselves to report. */
static void prefetch_group(const struct ig_part *p, uint32_t g, const struct ig_grouprec *gr,
                           const uint64_t *rows, size_t nrows)
{
    /* on object storage: one batch of parallel range GETs for them all */
    struct ig_range *want = NULL;
    size_t nwant = 0, cap = 0;
    for (uint32_t leaf = 0; leaf < p->num_leaves; leaf++) {
        uint32_t first = 0, count = 0;
        if (ig_part_leaf_released(p, leaf) || ig_part_chunk(p, g, leaf, &first, &count, NULL))
            continue;
        size_t k = 0;
        for (uint32_t pg = first; pg < first + count && k < nrows; pg++) {
            struct ig_pagerec rec;
            if (ig_part_page(p, pg, &rec, NULL)) break;
            uint64_t lo = gr->first_row + rec.first_row, hi = lo + rec.row_count;
            while (k < nrows && rows[k] < lo)
                k++;
            if (k < nrows && rows[k] < hi && !p->obj)
                (void)posix_fadvise(p->fd, (off_t)rec.offset, (off_t)rec.stored, POSIX_FADV_WILLNEED);
            if (k < nrows && rows[k] < hi && p->obj) {
                struct ig_range *w = ig_array_room(want, nwant, &cap, sizeof *w, 64);
                if (!w) break;
                want = w;
                want[nwant++] = (struct ig_range){rec.offset, rec.stored};
            }
        }
    }
    if (nwant) ig_obj_prefetch(p->obj, want, nwant, true);
    free(want);
}

/* The erased rows of one flat leaf column in group g: the pages holding one. */
static int erase_flat_leaf(struct erase_ctx *x, struct part_plan *pp, const struct ig_column_ref *c,
                           uint32_t g, const struct ig_grouprec *gr, const uint64_t *rows,
                           size_t nrows, struct ig_error *err)
{
    const struct ig_part *p = pp->p;
    uint32_t first = 0, count = 0;
    int rc = ig_part_chunk(p, g, c->rec.leaf, &first, &count, err);
    uint8_t *kill = NULL;
    size_t k = 0; /* next erased row (rows are part-local, sorted) */
    if (!rc) rc = erase_dict_prepare(x, pp, c, g, gr->first_row, rows, nrows, err);
    /* a dictionary zeroed in part: every page may hold a frame that used it */
    bool every = !rc && erase_dict_changed(x, g, c->rec.leaf);
    for (uint32_t pg = first; !rc && pg < first + count && (k < nrows || every); pg++) {
        struct ig_pagerec rec;
        rc = ig_part_page(p, pg, &rec, err);
        if (rc) break;
        uint64_t lo = gr->first_row + rec.first_row, hi = lo + rec.row_count;
        while (k < nrows && rows[k] < lo)
            k++;
        if ((k == nrows || rows[k] >= hi) && !every) continue;
        free(kill);
        kill = calloc((rec.row_count + 7) / 8 + 1, 1);
        if (!kill) {
            erase_loaded_forget(x);
            return ig_err(err, -ENOMEM, "out of memory");
        }
        uint32_t nkill = 0;
        for (; k < nrows && rows[k] < hi; k++, nkill++) {
            uint64_t i = rows[k] - lo;
            kill[i / 8] |= (uint8_t)(1u << (i % 8));
        }
        rc = erase_page(x, pp, c, g, pg, gr->first_row, kill, nkill, err);
    }
    free(kill);
    erase_loaded_forget(x); /* (page numbers are the part's: none outlives its chunk) */
    if (!rc) rc = erase_rebound(x, pp, c, g, gr->first_row, rows, nrows, err);
    if (!rc) rc = erase_contexts_write(x, pp, err);
    return rc;
}

/* The columns of a part's touched groups, one unit a (group, flat leaf) or a
 * (group, nested column: every leaf of it), shared between threads: each
 * takes the next one not taken. Their pages and chunks are disjoint, so their
 * edits of the footer copy are too; each thread journals into its own
 * records. Units of every group are shared at once, so one heavy leaf
 * (captions beside a few numbers) keeps every core busy, not one core a
 * group; and a nested column's groups are erased side by side (rows of token
 * ids, whose pages an erase compresses again at zstd level 6, erased 2 % of
 * their rows in 0.6x the time on two cores). */
struct leaf_unit {
    uint32_t g, col; /* col: a nested column's top */
    bool nested;
    bool contexts;             /* a nested column: a leaf's chunk has a context */
    uint32_t leaf;             /* a nested column: its first leaf */
    uint32_t page_lo, page_hi; /* a nested column: its pages erased (chunk page numbers) */
    struct ig_grouprec gr;
    const uint64_t *rows; /* the group's erased rows, part-local, sorted */
    size_t nrows;
    uint64_t bytes;       /* the chunk's stored bytes, for the progress */
};

struct leaf_share {
    const struct ig_table *t;
    struct part_plan *pp;
    struct erase_progress *prog; /* NULL: none */
    struct leaf_unit *units;
    size_t nunits, cap;
    atomic_size_t next;
    atomic_bool failed;
    /* with a progress: the helpers still working, and a unit finished by
     * one of them, for the calling thread waiting to tell it */
    pthread_mutex_t mu;
    pthread_cond_t finished;
    unsigned helpers_running;
};

struct leaf_worker {
    struct leaf_share *sh;
    struct erase_ctx x;
    struct ig_erase_report rep;
    struct ig_error err;
    int rc;
};

/* The stored bytes of the chunk of leaf `leaf` in group g (0 if its records
 * cannot be read: the erase itself then says why). */
static uint64_t chunk_bytes(const struct ig_part *p, uint32_t g, uint32_t leaf)
{
    uint32_t first = 0, count = 0;
    uint64_t bytes = 0;
    if (ig_part_chunk(p, g, leaf, &first, &count, NULL)) return 0;
    for (uint32_t pg = first; pg < first + count; pg++) {
        struct ig_pagerec rec;
        if (ig_part_page(p, pg, &rec, NULL)) return bytes;
        bytes += rec.stored;
    }
    return bytes;
}

/* `bytes` more of the chunks done; told to the caller's callback when this is
 * the thread that called ig_erase (`caller`) and the count moved since it
 * was last told. */
static void progress_add(struct erase_progress *prog, uint64_t bytes, bool caller)
{
    if (!prog) return;
    uint64_t done = atomic_fetch_add(&prog->done, bytes) + bytes;
    if (caller && done != prog->told) {
        prog->told = done;
        prog->fn(prog->ctx, done, prog->total);
    }
}

/* A helper thread finished a unit (or its share): wake the calling thread,
 * which tells the progress. */
static void helper_signal(struct leaf_share *sh, bool leaving)
{
    pthread_mutex_lock(&sh->mu);
    if (leaving) sh->helpers_running--;
    pthread_cond_signal(&sh->finished);
    pthread_mutex_unlock(&sh->mu);
}

/* The calling thread, its own share done: tells the progress each time a
 * helper finishes a unit, until none is working (a heavy chunk on a helper
 * would otherwise hold the line still until the join), and once more then:
 * a helper may have finished its last unit and left before this thread
 * looked, with nobody waiting for its signal. */
static void tell_helpers_progress(struct leaf_share *sh)
{
    pthread_mutex_lock(&sh->mu);
    while (sh->helpers_running) {
        pthread_cond_wait(&sh->finished, &sh->mu);
        pthread_mutex_unlock(&sh->mu);
        progress_add(sh->prog, 0, true);
        pthread_mutex_lock(&sh->mu);
    }
    pthread_mutex_unlock(&sh->mu);
    progress_add(sh->prog, 0, true);
}

static void leaf_work(struct leaf_worker *w, bool caller)
{
    struct leaf_share *sh = w->sh;
    while (!w->rc && !atomic_load(&sh->failed)) {
        size_t i = atomic_fetch_add(&sh->next, 1);
        if (i >= sh->nunits) break;
        const struct leaf_unit *u = &sh->units[i];
        struct ig_column_ref c;
        if (u->nested) {
            w->rc = erase_nested(&w->x, sh->t, sh->pp, sh->pp->pi, u->g, u->col, u->page_lo, u->page_hi, u->rows,
                                 u->nrows, &w->err);
            if (!w->rc) w->rc = erase_contexts_write(&w->x, sh->pp, &w->err);
        } else {
            w->rc = ig_table_column_at(sh->t, u->col, &c, &w->err);
            if (!w->rc) w->rc = erase_flat_leaf(&w->x, sh->pp, &c, u->g, &u->gr, u->rows, u->nrows, &w->err);
        }
        if (w->rc) atomic_store(&sh->failed, true);
        else progress_add(sh->prog, u->bytes, caller);
        if (!caller && sh->prog) helper_signal(sh, false);
    }
}

static void *leaf_thread(void *arg)
{
    struct leaf_worker *w = arg;
    leaf_work(w, false);
    if (w->sh->prog) helper_signal(w->sh, true);
    return NULL;
}

static void report_add(struct ig_erase_report *to, const struct ig_erase_report *r)
{
    to->pages_rewritten += r->pages_rewritten;
    to->pages_moved += r->pages_moved;
    to->records += r->records;
    to->bytes_written += r->bytes_written;
    to->blob_objects += r->blob_objects;
    to->dict_segments += r->dict_segments;
    to->dict_blocks += r->dict_blocks;
    to->vdict_entries += r->vdict_entries;
    to->contexts_moved += r->contexts_moved;
}

/* Threads for a part's flat leaf units: the cores, at most ERASE_THREADS,
 * never more than there are units to share. */
#define ERASE_THREADS 8
static unsigned leaf_threads(size_t nunits)
{
    unsigned n = ig_cpu_cores();
    if (n > ERASE_THREADS) n = ERASE_THREADS;
    return n < nunits ? n : nunits ? (unsigned)nunits : 1;
}

static int erase_flat_leaves(struct erase_ctx *x, struct leaf_share *sh, struct ig_error *err)
{
    unsigned nt = leaf_threads(sh->nunits);
    struct leaf_worker w[ERASE_THREADS];
    pthread_t tid[ERASE_THREADS];
    bool started[ERASE_THREADS] = {false};
    for (unsigned i = 0; i < nt; i++) {
        w[i] = (struct leaf_worker){.sh = sh};
        w[i].x = (struct erase_ctx){.dir = x->dir, .rep = &w[i].rep};
        /* worker 0 is this thread: its journal is the erase's own */
        if (i == 0)
            w[i].x.j = x->j;
        else
            ig_journal_init(&w[i].x.j);
        ig_values_init(&w[i].x.v, IG_T_INT64);
    }
    sh->helpers_running = 0;
    for (unsigned i = 1; i < nt; i++) {
        pthread_mutex_lock(&sh->mu);
        started[i] = pthread_create(&tid[i], NULL, leaf_thread, &w[i]) == 0;
        sh->helpers_running += started[i];
        pthread_mutex_unlock(&sh->mu);
    }
    leaf_work(&w[0], true);
    if (sh->prog) tell_helpers_progress(sh);
    x->j = w[0].x.j;
    ig_journal_init(&w[0].x.j);
    int rc = w[0].rc;
    if (rc) *err = w[0].err;
    for (unsigned i = 1; i < nt; i++) {
        if (started[i]) pthread_join(tid[i], NULL);
        if (!rc && w[i].rc) {
            rc = w[i].rc;
            *err = w[i].err;
        }
        if (!rc && ig_journal_take(&x->j, &w[i].x.j)) rc = ig_err(err, -ENOMEM, "out of memory");
    }
    for (unsigned i = 0; i < nt; i++) {
        report_add(x->rep, &w[i].rep);
        erase_ctx_free(&w[i].x);
    }
    return rc;
}

/* The units queued in sh, erased by the threads; sh is then empty again. */
static int erase_queued_leaves(struct erase_ctx *x, struct leaf_share *sh, struct ig_error *err)
{
    int rc = erase_flat_leaves(x, sh, err);
    sh->nunits = 0;
    atomic_store(&sh->next, 0);
    return rc;
}

static int add_unit(struct leaf_share *sh, const struct leaf_unit *u)
{
    struct leaf_unit *g = ig_array_room(sh->units, sh->nunits, &sh->cap, sizeof *g, 16);
    if (!g) return -ENOMEM;
    sh->units = g;
    sh->units[sh->nunits++] = *u;
    return 0;
}

/* A nested column's chunk of more than this many pages, none of its leaves
 * with a chunk context, is erased in ranges of about as many pages, by any
 * thread: rows of text's bytes in one row group (994 pages, each compressed
 * again at zstd level 6) erased 2 % of their rows in 0.6x the time on two
 * cores; a range costs its reader's open and the column's trees. */
#define ERASE_RANGE_PAGES 64

/* Units [u0, sh->nunits) of one group: its nested columns without contexts
 * cut into page ranges. */
static int cut_nested_units(struct leaf_share *sh, size_t u0, struct ig_error *err)
{
    const struct ig_part *p = sh->pp->p;
    size_t end = sh->nunits;
    for (size_t i = u0; i < end; i++) {
        struct leaf_unit u = sh->units[i];
        if (!u.nested || u.contexts) continue;
        uint32_t first = 0, count = 0;
        int rc = ig_part_chunk(p, u.g, u.leaf, &first, &count, err);
        if (rc) return rc;
        if (count <= ERASE_RANGE_PAGES) continue;
        uint32_t ranges = (count + ERASE_RANGE_PAGES - 1) / ERASE_RANGE_PAGES;
        for (uint32_t r = 0; r < ranges; r++) {
            struct leaf_unit part = u;
            part.page_lo = (uint32_t)((uint64_t)count * r / ranges);
            part.page_hi = (uint32_t)((uint64_t)count * (r + 1) / ranges);
            part.bytes = u.bytes * (part.page_hi - part.page_lo) / count;
            if (r == 0)
                sh->units[i] = part;
            else if (add_unit(sh, &part))
                return ig_err(err, -ENOMEM, "out of memory");
        }
    }
    return 0;
}

/* All erased rows of one row group: its columns queued in sh for the threads
 * (a nested column as one unit at its first leaf, or as ranges of its pages). */
static int erase_group(struct leaf_share *sh, uint32_t g, const uint64_t *rows,
                       size_t nrows, struct ig_error *err)
{
    struct part_plan *pp = sh->pp;
    const struct ig_part *p = pp->p;
    const struct ig_table *t = sh->t;
    struct ig_grouprec gr;
    int rc = ig_part_group(p, g, &gr, err);
    if (rc) return rc;
    prefetch_group(p, g, &gr, rows, nrows);
    pp->touched_groups[g] = 1;
    uint32_t last_top = UINT32_MAX;
    size_t u0 = sh->nunits;
    for (uint32_t leaf = 0; leaf < p->num_leaves && !rc; leaf++) {
        uint32_t col = 0;
        struct ig_column_ref c;
        /* gc released its pages: they hold no value to erase */
        if (ig_part_leaf_released(p, leaf)) continue;
        rc = ig_part_leaf_column(p, leaf, &col, err);
        if (!rc) rc = ig_table_column_at(t, col, &c, err);
        if (rc) break;
        struct ig_ctxrec cr = {0};
        if (c.nested) rc = ig_part_chunk_ctx(p, g, leaf, &cr, err);
        if (rc) break;
        if (c.nested && c.top == last_top) { /* the unit at its first leaf erases it */
            struct leaf_unit *u = &sh->units[sh->nunits - 1];
            if (sh->prog) u->bytes += chunk_bytes(p, g, leaf);
            u->contexts |= cr.size != 0;
        } else if (add_unit(sh, &(struct leaf_unit){.g = g, .col = c.nested ? c.top : col, .nested = c.nested,
                                                    .contexts = cr.size != 0, .leaf = leaf, .page_hi = UINT32_MAX,
                                                    .gr = gr, .rows = rows, .nrows = nrows,
                                                    .bytes = sh->prog ? chunk_bytes(p, g, leaf) : 0})) {
            return ig_err(err, -ENOMEM, "out of memory");
        }
        last_top = c.nested ? c.top : UINT32_MAX;
    }
    if (!rc) rc = cut_nested_units(sh, u0, err);
    return rc;
}

static int by_page(const void *a, const void *b)
{
    uint32_t x = ((const struct moved *)a)->page, y = ((const struct moved *)b)->page;
    return x < y ? -1 : x > y;
}

static int by_chunk(const void *a, const void *b)
{
    const struct moved_ctx *x = a, *y = b;
    if (x->g != y->g) return x->g < y->g ? -1 : 1;
    return x->leaf < y->leaf ? -1 : x->leaf > y->leaf;
}

/* The footer's changed bytes into the journal (the footer stays where it is).
 * Of a private mapping, only the pages the erase wrote are compared
 * (ig_pages_written): comparing all of it read the whole footer, 18.7 MB for a
 * million rows of 100 columns, which a cold one-row erase then read from disk.
 * A footer copy, or a mapping whose pages cannot be told: all of it. */
static int journal_footer_changes(struct erase_ctx *x, struct part_plan *pp)
{
    const struct ig_part *p = pp->p;
    size_t ps = (size_t)sysconf(_SC_PAGESIZE);
    size_t lead = (uintptr_t)pp->nf % ps; /* nf's offset in its first page */
    size_t npages = pp->nf_map ? (lead + p->footer_size + ps - 1) / ps : 0;
    uint8_t *written = npages ? malloc(npages) : NULL;
    if (!written || ig_pages_written(pp->nf, p->footer_size, ps, written)) {
        free(written);
        return ig_journal_diff(&x->j, p->name, p->footer_offset, p->footer, pp->nf, p->footer_size,
                               &x->rep->bytes_written);
    }
    int rc = 0;
    for (size_t k = 0; !rc && k < npages; k++) {
        if (!written[k]) continue;
        size_t run = k;
        while (run + 1 < npages && written[run + 1])
            run++;
        /* pages [k, run] as footer offsets, cut to the footer */
        size_t from = k * ps > lead ? k * ps - lead : 0;
        size_t to = (run + 1) * ps - lead < p->footer_size ? (run + 1) * ps - lead : p->footer_size;
        rc = ig_journal_diff(&x->j, p->name, p->footer_offset + from, p->footer + from, pp->nf + from, to - from,
                             &x->rep->bytes_written);
        k = run;
    }
    free(written);
    return rc;
}

/* Bytes that moved (a page's, a context's) journaled at *at, past them after. */
static int place_after(struct erase_ctx *x, const struct ig_part *p, uint64_t *at,
                       const struct ig_buf *b)
{
    if (ig_journal_add(&x->j, p->name, *at, b->data, b->len)) return -ENOMEM;
    x->rep->bytes_written += b->len;
    *at += b->len;
    return 0;
}

/* The footer image with its new bitmap bm into the journal: moved pages, the
 * bitmap's changes where it is past the footer (all of it where a first erase
 * puts it there), the footer's changes (or all of it where it moves) and its
 * tail. */
static int finish_part_write(struct erase_ctx *x, struct part_plan *pp, const uint8_t *bm)
{
    const struct ig_part *p = pp->p;
    uint8_t *nf = pp->nf;
    uint64_t bm_size = ig_part_deletion_bytes(p);
    bool new_bitmap = !ig_part_deletion(p); /* format 17: a first erase */
    /* re-hash the touched groups, then the root */
    for (uint32_t g = 0; g < p->num_groups; g++) {
        if (!pp->touched_groups[g]) continue;
        uint8_t *gr = nf + p->sec_off[IG_SEC_GROUPS] + (uint64_t)g * IG_GRP_SIZE;
        uint32_t fp = ig_ld32(gr + IG_GRP_FIRST_PAGE), pc = ig_ld32(gr + IG_GRP_PAGE_COUNT);
        ig_st64(gr + IG_GRP_HASH, ig_footer_group_hash(p, nf, fp, pc));
    }
    uint64_t footer_off = p->footer_offset;
    /* Where MANIFEST records the footer's end (version 10), the footer stays
     * and moved pages go past everything the file holds; else they go where
     * the footer was, and the footer follows them (its tail stays the file's
     * last bytes). */
    bool footer_stays = p->end_recorded;
    bool footer_moves = !footer_stays && (pp->nmoved || pp->nmoved_ctx || new_bitmap);
    uint64_t end = p->file_size > p->tail_end ? p->file_size : p->tail_end;
    uint64_t at = footer_stays ? (end + 7) / 8 * 8 : p->footer_offset;
    if (pp->nmoved) {
        /* in page order (threads queued them in any order) */
        qsort(pp->moved, pp->nmoved, sizeof *pp->moved, by_page);
        for (size_t i = 0; i < pp->nmoved; i++) {
            struct moved *m = &pp->moved[i];
            uint8_t *r = page_rec(pp, m->page);
            ig_st64(r + IG_PG_OFFSET, at);
            ig_st32(r + IG_PG_CAPACITY, (uint32_t)m->bytes.len);
            if (place_after(x, p, &at, &m->bytes)) return -ENOMEM;
        }
        /* the moved records changed: hash their groups again */
        for (uint32_t g = 0; g < p->num_groups; g++) {
            uint8_t *gr = nf + p->sec_off[IG_SEC_GROUPS] + (uint64_t)g * IG_GRP_SIZE;
            uint32_t fp = ig_ld32(gr + IG_GRP_FIRST_PAGE), pc = ig_ld32(gr + IG_GRP_PAGE_COUNT);
            ig_st64(gr + IG_GRP_HASH, ig_footer_group_hash(p, nf, fp, pc));
        }
    }
    if (pp->nmoved_ctx) {
        /* after the pages, by group and leaf; their chunk records say where */
        qsort(pp->moved_ctx, pp->nmoved_ctx, sizeof *pp->moved_ctx, by_chunk);
        for (size_t i = 0; i < pp->nmoved_ctx; i++) {
            struct moved_ctx *m = &pp->moved_ctx[i];
            uint8_t *r = ig_chunk_record(p, nf, m->g, m->leaf);
            ig_st64(r + IG_CHK_CTX_OFFSET, at);
            ig_st32(r + IG_CHK_CTX_SIZE, (uint32_t)m->bytes.len);
            ig_st64(r + IG_CHK_CTX_HASH, ig_hash(m->bytes.data, m->bytes.len));
            if (place_after(x, p, &at, &m->bytes)) return -ENOMEM;
        }
        atomic_store(&pp->chunks_changed, true);
    }
    static const uint8_t pad[8];
    if (!p->sec_size[IG_SEC_DELETION]) { /* the bitmap past the footer: its changed words */
        const uint8_t *had = ig_part_deletion(p);
        uint64_t bm_at = p->deletion_at, counted = 0;
        uint8_t *zeros = NULL;
        if (new_bitmap) {
            bm_at = (at + 7) / 8 * 8;
            if (bm_at > at && ig_journal_add(&x->j, p->name, at, pad, bm_at - at)) return -ENOMEM;
            ig_st64(nf + IG_HDR_DELETION_AT, bm_at);
            /* mostly zeros: the journal holds a zero-fill and the words with
             * bits (a first erase of one row of 1,000,000 journaled 125 KB) */
            if (!(zeros = calloc(1, (size_t)bm_size)) || ig_journal_zero(&x->j, p->name, bm_at, bm_size)) {
                free(zeros);
                return -ENOMEM;
            }
            had = zeros;
            x->rep->bytes_written += bm_size;
            at = bm_at + bm_size;
        }
        int rc = ig_journal_diff(&x->j, p->name, bm_at, had, bm, (size_t)bm_size,
                                 new_bitmap ? &counted : &x->rep->bytes_written);
        free(zeros);
        if (rc) return -ENOMEM;
    }
    if (footer_moves) {
        footer_off = (at + 7) / 8 * 8;
        if (footer_off > at && ig_journal_add(&x->j, p->name, at, pad, footer_off - at)) return -ENOMEM;
    }
    if (atomic_load(&pp->chunks_changed))
        ig_st64(nf + IG_HDR_CHUNKS_HASH, ig_hash(nf + p->sec_off[IG_SEC_CHUNKS], p->sec_size[IG_SEC_CHUNKS]));
    uint64_t root = ig_part_root(p, nf, bm);
    uint8_t tail[IG_TAIL_SIZE] = {0};
    ig_st64(tail + IG_TAIL_FOOTER_OFFSET, footer_off);
    ig_st64(tail + IG_TAIL_FOOTER_SIZE, p->footer_size);
    ig_st64(tail + IG_TAIL_ROOT, root);
    ig_st32(tail + IG_TAIL_VERSION, p->version); /* an erase changes no part's version */
    ig_st64(tail + IG_TAIL_GENERATION, p->generation + 1);
    ig_st64(tail + IG_TAIL_HASH, ig_hash(tail, IG_TAIL_HASH));
    memcpy(tail + IG_TAIL_MAGIC, IG_TAIL_MAGIC_STR, 8);
    int rc;
    if (footer_moves) {
        rc = ig_journal_add(&x->j, p->name, footer_off, nf, p->footer_size);
        x->rep->bytes_written += p->footer_size;
    } else {
        rc = journal_footer_changes(x, pp);
    }
    if (!rc) rc = ig_journal_add(&x->j, p->name, footer_off + p->footer_size, tail, sizeof tail);
    x->rep->bytes_written += sizeof tail;
    return rc ? -ENOMEM : 0;
}

static int finish_part(struct erase_ctx *x, struct part_plan *pp, const uint64_t *rows,
                       size_t nrows)
{
    const struct ig_part *p = pp->p;
    uint8_t *nf = pp->nf;
    /* The bitmap in the footer image (written with it), or a copy of the one
     * past it (format 17: a part is written without one; its first erase puts
     * it past the footer, as a moved page, and the header says where) */
    uint8_t *bm = p->sec_size[IG_SEC_DELETION] ? nf + p->sec_off[IG_SEC_DELETION] : NULL, *bm_own = NULL;
    if (!bm) {
        const uint8_t *had = ig_part_deletion(p);
        size_t size = (size_t)ig_part_deletion_bytes(p);
        bm = bm_own = had ? malloc(size) : calloc(1, size);
        if (!bm) return -ENOMEM;
        if (had) memcpy(bm, had, size);
    }
    for (size_t i = 0; i < nrows; i++)
        bm[rows[i] / 8] |= (uint8_t)(1u << (rows[i] % 8));
    ig_st64(nf + IG_HDR_DELETED_ROWS, p->deleted_rows + nrows);
    int rc = finish_part_write(x, pp, bm);
    free(bm_own);
    return rc;
}

static void free_plan(struct part_plan *pp)
{
    if (pp->nf_map)
        munmap(pp->nf_map, pp->nf_map_len);
    else
        free(pp->nf);
    for (size_t i = 0; i < pp->nmoved; i++)
        ig_buf_free(&pp->moved[i].bytes);
    free(pp->moved);
    for (size_t i = 0; i < pp->nmoved_ctx; i++)
        ig_buf_free(&pp->moved_ctx[i].bytes);
    free(pp->moved_ctx);
    free(pp->touched_groups);
    pthread_mutex_destroy(&pp->moved_mu);
}

/* The footer image an erase edits (pp->nf). Of a part mapped from a local
 * file, a private mapping of its footer: copy on write, so only the pages of
 * the records the erase changes are copied. A copy of the whole footer (18.7 MB
 * for a million rows of 100 columns) was a page fault a 4 KiB and most of a
 * one-row erase; the pages it wrote are what the journal then compares
 * (journal_footer_changes). Elsewhere (object storage, a footer already
 * copied, shared storage, whose cached pages another host may have made
 * stale) a copy. */
static int footer_image(struct part_plan *pp)
{
    const struct ig_part *p = pp->p;
    if (p->fd >= 0 && p->map && !p->map_copied && !p->obj && !p->shared) {
        void *m = mmap(NULL, p->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE, p->fd, (off_t)p->map_offset);
        if (m != MAP_FAILED) {
            pp->nf_map = m;
            pp->nf_map_len = p->map_len;
            pp->nf = (uint8_t *)m + (p->footer - p->map);
            /* pages are read as the records on them are: a lookup's few */
            (void)madvise(m, p->map_len, MADV_RANDOM);
            return 0;
        }
    }
    pp->nf = malloc(p->footer_size);
    if (!pp->nf) return -ENOMEM;
    /* the whole footer is copied: one request for it, not a fault per page
     * (readers map it MADV_RANDOM for their few lookups) */
    if (p->fd >= 0)
        (void)posix_fadvise(p->fd, (off_t)p->footer_offset, (off_t)p->footer_size, POSIX_FADV_WILLNEED);
    memcpy(pp->nf, p->footer, p->footer_size);
    return 0;
}

/* Journal every change for the rows of part pi (ids[a..b), global). */
static int plan_part(struct erase_ctx *x, const struct ig_table *t, uint32_t pi,
                     const uint64_t *ids, size_t n, struct ig_error *err)
{
    const struct ig_part *p = &t->parts[pi];
    struct part_plan pp = {.p = p, .pi = pi};
    pthread_mutex_init(&pp.moved_mu, NULL);
    pp.touched_groups = calloc(p->num_groups ? p->num_groups : 1, 1);
    uint64_t *local = malloc(n * sizeof *local);
    int rc = pp.touched_groups && local && !footer_image(&pp) ? 0 : ig_err(err, -ENOMEM, "out of memory");
    if (!rc) {
        for (size_t i = 0; i < n; i++)
            local[i] = ids[i] - p->first_row_id;
    }
    /* rows are sorted: walk the groups once, then their flat leaves together */
    struct leaf_share sh = {.t = t, .pp = &pp, .prog = x->prog};
    pthread_mutex_init(&sh.mu, NULL);
    pthread_cond_init(&sh.finished, NULL);
    size_t i = 0;
    for (uint32_t g = 0; !rc && g < p->num_groups && i < n; g++) {
        struct ig_grouprec gr;
        rc = ig_part_group(p, g, &gr, err);
        size_t j = i;
        while (!rc && j < n && local[j] < gr.first_row + gr.row_count)
            j++;
        if (!rc && j > i) rc = erase_group(&sh, g, local + i, j - i, err);
        i = j;
        /* on object storage a group's pages are fetched ahead into a bounded
         * cache (prefetch_group): erase them before the next group's come */
        if (!rc && p->obj && sh.nunits) rc = erase_queued_leaves(x, &sh, err);
    }
    if (!rc && sh.nunits) rc = erase_queued_leaves(x, &sh, err);
    free(sh.units);
    pthread_cond_destroy(&sh.finished);
    pthread_mutex_destroy(&sh.mu);
    if (!rc) rc = finish_part(x, &pp, local, n);
    if (rc == -ENOMEM) ig_err(err, rc, "out of memory");
    free(local);
    free_plan(&pp);
    return rc;
}

/* The stored bytes of the chunks an erase of part p's rows ids (global,
 * sorted) goes through: every leaf's in each group holding one, but those gc
 * released (erase_group's walk). */
static uint64_t part_touched_bytes(const struct ig_part *p, const uint64_t *ids, size_t n)
{
    uint64_t bytes = 0;
    size_t i = 0;
    for (uint32_t g = 0; g < p->num_groups && i < n; g++) {
        struct ig_grouprec gr;
        if (ig_part_group(p, g, &gr, NULL)) break;
        uint64_t end = p->first_row_id + gr.first_row + gr.row_count;
        if (ids[i] >= end) continue;
        while (i < n && ids[i] < end)
            i++;
        for (uint32_t leaf = 0; leaf < p->num_leaves; leaf++)
            if (!ig_part_leaf_released(p, leaf)) bytes += chunk_bytes(p, g, leaf);
    }
    return bytes;
}

int erase_plan_parts(struct erase_ctx *x, const struct ig_table *t, const uint64_t *ids, size_t n,
                     struct ig_error *err)
{
    int rc = 0;
    size_t a = 0;
    if (x->prog) { /* the whole, before any of it is done */
        for (uint32_t pi = 0; pi < t->nparts && a < n; pi++) {
            const struct ig_part *p = &t->parts[pi];
            size_t b = a;
            while (b < n && ids[b] < p->first_row_id + p->num_rows)
                b++;
            x->prog->total += part_touched_bytes(p, ids + a, b - a);
            a = b;
        }
        a = 0;
    }
    for (uint32_t pi = 0; !rc && pi < t->nparts && a < n; pi++) {
        const struct ig_part *p = &t->parts[pi];
        size_t b = a;
        while (b < n && ids[b] < p->first_row_id + p->num_rows)
            b++;
        if (b > a) rc = plan_part(x, t, pi, ids + a, b - a, err);
        a = b;
    }
    return rc;
}

/* ---- the audit log ------------------------------------------------------- */

void erase_audit_line(const char *dir, const struct ig_erase_request *req, const struct ig_erase_report *rep, struct ig_buf *b)
{
    char when[32];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    /* the request as text, then as one JSON string (column names may hold quotes) */
    struct ig_buf r = IG_BUF_INIT;
    for (size_t i = 0; i < req->nrows && i < 1000; i++)
        ig_buf_printf(&r, "%srow %" PRIu64, r.len ? ", " : "", req->rows[i]);
    if (req->nrows > 1000) ig_buf_printf(&r, ", ... %zu row ids in all", req->nrows);
    for (size_t i = 0; i < req->nwhere; i++) {
        /* the column, never the value: the value identifies the person */
        ig_buf_printf(&r, "%swhere ", r.len ? ", " : "");
        ig_render_json_string(&r, (const uint8_t *)req->where[i].column, strlen(req->where[i].column));
        ig_buf_printf(&r, " = <redacted>");
    }
    char host[256] = "?";
    gethostname(host, sizeof host - 1);
    host[sizeof host - 1] = '\0';
    ig_buf_printf(b, "%s origin=%s host=", when, req->origin ? req->origin : "api");
    ig_render_json_string(b, (const uint8_t *)host, strlen(host));
    if (req->uid >= 0) ig_buf_printf(b, " uid=%" PRId64, req->uid);
    if (req->pid > 0) ig_buf_printf(b, " pid=%" PRId64, req->pid);
    ig_buf_printf(b, " request=");
    ig_render_json_string(b, r.data ? r.data : (const uint8_t *)"", r.len);
    ig_buf_free(&r);
    ig_buf_printf(b,
                  " rows=%" PRIu64 " pages_rewritten=%" PRIu64 " pages_moved=%" PRIu64
                  " contexts_moved=%" PRIu64 " page_records=%" PRIu64
                  " blob_objects_zeroed=%" PRIu64 " bytes_written=%" PRIu64
                  " journal_bytes=%" PRIu64,
                  rep->rows, rep->pages_rewritten, rep->pages_moved, rep->contexts_moved,
                  rep->records, rep->blob_objects, rep->bytes_written, rep->journal_bytes);
    /* the versions it reached: every version kept (each is read with the
     * footers it rewrote), the one it made included */
    struct ig_manifest m;
    uint64_t *vs = NULL;
    size_t nv = 0;
    if (ig_manifest_read(dir, &m, NULL) == 0) {
        if (ig_versions_kept(dir, m.version, &vs, &nv, NULL) == 0) {
            ig_buf_printf(b, " versions=");
            ig_versions_format(vs, nv, b);
        }
        ig_manifest_free(&m);
    }
    free(vs);
}
