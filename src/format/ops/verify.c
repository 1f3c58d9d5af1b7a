/* verify.c - `ingot verify` over a table (verify.h): each part's footer
 * sections, row groups and their Merkle hashes, blob files, nested columns'
 * text, page extents, deletion bitmap and root, with row groups' chunks
 * checked on several threads; failures reported in order. The pages and
 * blocks of one chunk are verify_chunk.c's; a remote table's objects and
 * versions are verify_remote.c's; failures and blob references are kept by
 * verify_report.c. */
#include "format/ops/verify.h"
#include "format/part/columns.h"
#include "format/part/footer.h"
#include "format/layout.h"
#include "format/part/merkle.h"
#include "format/model/assemble.h"
#include "format/ops/nested.h"
#include "blob/blob.h"
#include "format/page/page.h"
#include "format/ops/reader.h"
#include "format/model/render.h"
#include "format/part/table.h"
#include "format/part/versions.h"
#include "format/model/types.h"
#include "util/cpu.h"
#include "util/endian.h"
#include "format/ops/verify_int.h"
#include "format/part/commit.h"
#include "format/part/lock.h"
#include "format/part/remote.h"
#include "store/store.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/io.h"
#include "util/strset.h"

#include <errno.h>
#include <unistd.h>
#include <stdatomic.h>
#include <pthread.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>


static void fail_msg(void *ctx, const char *msg)
{
    ig_verify_fail(ctx, "%s", msg);
}

static void check_sections(struct vctx *x, const struct ig_part *p)
{
    uint8_t magic[IG_PART_MAGIC_LEN];
    if (ig_part_read(p, magic, sizeof magic, 0, NULL) || memcmp(magic, IG_PART_MAGIC, sizeof magic))
        ig_verify_fail(x, "%s: bad file magic", p->name);
    const uint8_t *parts[4] = {ig_part_section(p, IG_SEC_COLUMNS), ig_part_section(p, IG_SEC_NAMES),
                               ig_part_section(p, IG_SEC_NAME_INDEX),
                               ig_part_section(p, IG_SEC_LEAVES)};
    size_t sizes[4] = {p->sec_size[IG_SEC_COLUMNS], p->sec_size[IG_SEC_NAMES],
                       p->sec_size[IG_SEC_NAME_INDEX], p->sec_size[IG_SEC_LEAVES]};
    if (ig_merkle_concat(parts, sizes, 4) != p->schema_hash)
        ig_verify_fail(x, "%s: footer: schema hash mismatch (columns, names or name index damaged)", p->name);
    if (ig_hash(ig_part_section(p, IG_SEC_CHUNKS), p->sec_size[IG_SEC_CHUNKS]) != p->chunks_hash)
        ig_verify_fail(x, "%s: footer: chunk table hash mismatch", p->name);
    struct ig_error e = {0};
    struct ig_colrec prev = {0}, cur;
    uint32_t prev_id = 0;
    bool have_prev = false;
    const uint8_t *idx = ig_part_section(p, IG_SEC_NAME_INDEX);
    for (uint32_t i = 0; i < p->num_columns; i++) {
        if (ig_part_column_stored(p, i, &cur, &e)) {
            ig_verify_fail(x, "%s", e.msg);
            continue;
        }
        uint32_t c = ig_ld32(idx + 4 * (uint64_t)i);
        if (ig_part_column_stored(p, c, &cur, &e)) { /* the index orders the footer's names */
            ig_verify_fail(x, "%s: footer: name index entry %u: %s", p->name, i, e.msg);
            return;
        }
        if (have_prev) {
            size_t n = prev.name_len < cur.name_len ? prev.name_len : cur.name_len;
            int cmp = memcmp(prev.name, cur.name, n);
            if (!cmp) cmp = prev.name_len < cur.name_len ? -1 : prev.name_len > cur.name_len;
            /* from version 10 a name repeats (a replaced column), in id order */
            bool repeat_ok = p->version >= IG_FORMAT_VERSIONED && prev_id < c;
            if (cmp > 0 || (cmp == 0 && !repeat_ok)) {
                ig_verify_fail(x, "%s: footer: name index is not sorted at entry %u", p->name, i);
                return;
            }
        }
        prev = cur;
        prev_id = c;
        have_prev = true;
    }
}

struct extent {
    uint64_t off, cap;
    uint32_t page;
};

static int extent_cmp(const void *a, const void *b)
{
    const struct extent *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}


static int objref_cmp(const void *a, const void *b)
{
    const struct objref *x = a, *y = b;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* One object's bytes against its hash (ig_blob_verify, for a blob file that
 * is an object on object storage too). */
static int blob_object_check(const struct ig_part *p, const struct ig_blob_ref *r, struct ig_error *err)
{
    if (!p->blob_obj) return ig_blob_verify(p->blob_fd, r, err);
    struct ig_hasher h;
    ig_hasher_init(&h);
    size_t cap = 1 << 20;
    uint8_t *buf = malloc(cap);
    if (!buf) return ig_err(err, -ENOMEM, "out of memory");
    int rc = 0;
    for (uint64_t at = 0; at < r->size && !rc; at += cap) {
        size_t n = r->size - at < cap ? (size_t)(r->size - at) : cap;
        rc = ig_part_blob_read(p, r, at, buf, n, IG_AHEAD_STORE);
        if (!rc) ig_hasher_update(&h, buf, n);
    }
    free(buf);
    if (rc) return ig_err(err, -EIO, "unreadable (%s)", strerror(-rc));
    return ig_hasher_final(&h) == r->hash ? 0 : ig_err(err, -EIO, "checksum mismatch");
}

/* Every referenced object's checksum; no overlaps; every other byte zero (what
 * level-2 erasure leaves where an erased row's objects were). */
static void check_blobs(struct vctx *x, const struct ig_part *p, const struct ig_table *t)
{
    char blob_name[IG_PART_NAME_MAX];
    if (!ig_blob_file_of_part(p->name, blob_name)) blob_name[0] = '\0';
    uint64_t size = ig_part_blob_size(p);
    /* no reference at all (a blob column gc released): objs is NULL */
    if (x->nobjs > 1) qsort(x->objs, x->nobjs, sizeof *x->objs, objref_cmp);
    uint64_t pos = IG_BLOB_HEADER;
    uint8_t magic[IG_BLOB_HEADER];
    if (size < IG_BLOB_HEADER || ig_part_blob_raw(p, magic, sizeof magic, 0) ||
        memcmp(magic, IG_BLOB_MAGIC, IG_BLOB_HEADER))
        ig_verify_fail(x, "%s: bad blob file magic", blob_name);
    size_t cap = 1 << 20;
    uint8_t *buf = malloc(cap);
    for (size_t i = 0; buf && i <= x->nobjs; i++) {
        uint64_t next = i < x->nobjs ? x->objs[i].offset : size;
        if (next < pos && i < x->nobjs) {
            ig_verify_fail(x, "%s: objects overlap at offset %" PRIu64, blob_name, next);
        } else {
            /* the gap before the next object must be zero */
            uint64_t end = next < size ? next : size;
            for (uint64_t g = pos; g < end;) {
                size_t n = end - g < cap ? (size_t)(end - g) : cap;
                if (ig_part_blob_raw(p, buf, n, g)) break;
                for (size_t b = 0; b < n; b++)
                    if (buf[b]) {
                        ig_verify_fail(x, "%s: unreferenced bytes at offset %" PRIu64 " are not zero (data of "
                                "an erased or lost object?)", blob_name, g + b);
                        g = end;
                        break;
                    }
                g += n;
            }
        }
        if (i == x->nobjs) break;
        struct objref *o = &x->objs[i];
        struct ig_blob_ref r = {o->offset, o->size, o->hash};
        struct ig_error e = {0};
        struct ig_colrec cr;
        if (blob_object_check(p, &r, &e)) {
            if (ig_part_column(&t->parts[0], o->col, &cr, NULL)) cr = (struct ig_colrec){.name = "?", .name_len = 1};
            ig_verify_fail(x, "%s: column '%.*s' row %" PRIu64 " object %u: %s", blob_name, (int)cr.name_len,
                 cr.name, o->row, o->k, e.msg);
        }
        x->rep->blob_objects++;
        x->rep->blob_bytes += o->size;
        if (o->offset + o->size > pos) pos = o->offset + o->size;
    }
    free(buf);
}

/* groups: contiguous rows and pages, Merkle hashes */
static void check_groups(struct vctx *x, const struct ig_part *p)
{
    struct ig_error e = {0};
    uint64_t row = 0;
    uint32_t page = 0;
    bool groups_ok = true;
    for (uint32_t g = 0; g < p->num_groups; g++) {
        struct ig_grouprec gr;
        if (ig_part_group(p, g, &gr, &e)) {
            ig_verify_fail(x, "%s", e.msg);
            groups_ok = false;
            continue;
        }
        if (gr.first_row != row || gr.first_page != page) {
            ig_verify_fail(x, "%s: row group %u does not continue the previous one", p->name, g);
            groups_ok = false;
        }
        row = gr.first_row + gr.row_count;
        page = gr.first_page + gr.page_count;
        if (ig_footer_group_hash(p, p->footer, gr.first_page, gr.page_count) != gr.hash)
            ig_verify_fail(x, "%s: row group %u: Merkle hash mismatch (page records changed)", p->name, g);
    }
    if (groups_ok && (row != p->num_rows || page != p->num_pages))
        ig_verify_fail(x, "%s: row groups cover %" PRIu64 " rows and %u pages, footer says %" PRIu64
                " and %u", p->name, row, page, p->num_rows, p->num_pages);
    x->rep->groups += p->num_groups;
    x->rep->erased_rows += p->deleted_rows;
    x->rep->rows += p->num_rows;
}


/* Row groups shared between threads, one per core: each takes the next group
 * not taken, with its own reader and buffers. */
#define VERIFY_THREADS 8
struct group_share {
    const struct ig_table *t;
    uint32_t pi, ngroups;
    atomic_uint next;
};

struct group_worker {
    struct group_share *sh;
    struct vctx x;
    struct ig_verify_report rep;
};

static void *group_work(void *arg)
{
    struct group_worker *w = arg;
    for (;;) {
        unsigned g = atomic_fetch_add(&w->sh->next, 1);
        if (g >= w->sh->ngroups) break;
        w->x.group = g;
        ig_verify_group_chunks(&w->x, w->sh->t, w->sh->pi, g);
    }
    return NULL;
}

static void merge_worker(struct vctx *x, struct group_worker *w)
{
    x->rep->released_pages += w->rep.released_pages;
    x->rep->released_bytes += w->rep.released_bytes;
    x->rep->pages += w->rep.pages;
    x->rep->page_bytes += w->rep.page_bytes;
    x->rep->unscrubbed += w->rep.unscrubbed;
    for (size_t i = 0; i < w->x.nobjs; i++) { /* blob references, checked per blob file */
        if (ig_verify_add_obj(x, &w->x.objs[i])) break;
    }
    free(w->x.objs);
    ig_values_free(&w->x.v);
    ig_buf_free(&w->x.text);
    ig_reader_free(&w->x.r);
}

static void check_chunks(struct vctx *x, const struct ig_table *t, uint32_t pi)
{
    const struct ig_part *p = &t->parts[pi];
    unsigned nt = ig_cpu_cores();
    if (nt > VERIFY_THREADS) nt = VERIFY_THREADS;
    if (nt > p->num_groups) nt = p->num_groups;
    struct ig_buf *msgs = nt > 1 ? calloc(p->num_groups, sizeof *msgs) : NULL;
    if (!msgs) { /* one thread (or no memory for more) */
        for (uint32_t g = 0; g < p->num_groups; g++)
            ig_verify_group_chunks(x, t, pi, g);
        return;
    }
    struct group_share sh = {.t = t, .pi = pi, .ngroups = p->num_groups};
    atomic_uint_fast64_t done = x->bytes_done;
    struct group_worker w[VERIFY_THREADS];
    pthread_t tid[VERIFY_THREADS];
    bool started[VERIFY_THREADS] = {false};
    for (unsigned i = 0; i < nt; i++) {
        w[i] = (struct group_worker){.sh = &sh};
        w[i].x = (struct vctx){.h = x->h,
                               .rep = &w[i].rep,
                               .bytes_total = x->bytes_total,
                               .deep = x->deep,
                               .group_msgs = msgs,
                               .done = &done,
                               .quiet = i > 0,
                               .kept = x->kept,
                               .kept_every = x->kept_every,
                               .unreadable = x->unreadable};
        ig_values_init(&w[i].x.v, IG_T_INT64);
    }
    for (unsigned i = 1; i < nt; i++)
        started[i] = pthread_create(&tid[i], NULL, group_work, &w[i]) == 0;
    group_work(&w[0]); /* this thread takes its share too */
    for (unsigned i = 1; i < nt; i++)
        if (started[i]) pthread_join(tid[i], NULL);
    x->bytes_done = atomic_load(&done);
    for (uint32_t g = 0; g < p->num_groups; g++) { /* failures in group order */
        for (size_t at = 0; at < msgs[g].len; at += strlen((const char *)msgs[g].data + at) + 1)
            ig_verify_fail(x, "%s", (const char *)msgs[g].data + at);
        ig_buf_free(&msgs[g]);
    }
    free(msgs);
    for (unsigned i = 0; i < nt; i++)
        merge_worker(x, &w[i]);
}

/* Page index i of group g (part-local) of some leaf of nr's column was found
 * unreadable by its chunk's check. */
static bool leaf_page_unreadable(const struct vctx *x, const struct ig_part *p,
                                 const struct ig_nested_reader *nr, uint32_t g, uint32_t i)
{
    for (uint32_t l = 0; x->unreadable && l < nr->tree.nleaves; l++) {
        uint32_t first, count;
        if (ig_part_chunk(p, g, nr->refs[l].rec.leaf, &first, &count, NULL) == 0 && i < count &&
            x->unreadable[first + i])
            return true;
    }
    return false;
}

/* nested columns: each page index's whole-column text, as the extras say
 * (rendered, as the leaves' are) */
static void check_nested_text(struct vctx *x, const struct ig_table *t, uint32_t pi)
{
    if (!x->deep) return;
    const struct ig_part *p = &t->parts[pi];
    struct ig_error e = {0};
    struct ig_buf text = IG_BUF_INIT;
    for (uint32_t c = 0; c < p->num_columns; c++) {
        struct ig_column_ref ref;
        if (ig_table_column_at(t, c, &ref, NULL) || ref.top != c || !ref.nested) continue;
        if (ig_part_column_released(p, c)) continue; /* its chunks were checked as released */
        struct ig_nested_reader nr;
        if (ig_nested_open(&nr, t, c, &e)) {
            ig_verify_fail(x, "%s: %s", p->name, e.msg);
            continue;
        }
        for (uint32_t g = 0; g < p->num_groups; g++) {
            uint32_t gg = g + t->part_first_group[pi], count = 0;
            if (ig_nested_pages(&nr, t, gg, &count, &e)) continue;
            for (uint32_t i = 0; i < count; i++) {
                struct ig_nested_page np = {.group = gg, .index = i};
                uint64_t tl = 0;
                struct ig_pagex px;
                uint32_t first, cnt;
                ig_buf_reset(&text);
                if (leaf_page_unreadable(x, p, &nr, g, i)) continue; /* reported by the chunk's check */
                if (ig_nested_load(&nr, t, &np, &e) ||
                    ig_assemble_lines(&nr.tree, nr.vp, np.rows, np.deleted, &text, &tl, &e) ||
                    ig_part_chunk(p, g, nr.refs[0].rec.leaf, &first, &cnt, &e) ||
                    ig_part_page_extra(p, first + i, &px, &e)) {
                    ig_verify_fail(x, "%s: column '%.*s' row group %u page index %u: %s", p->name,
                         (int)ref.rec.name_len, ref.rec.name, gg, i, e.msg);
                    continue;
                }
                if (tl != px.node_text_len)
                    ig_verify_fail(x, "%s: column '%.*s' row group %u page %u: text length %" PRIu64
                            " != extras' %" PRIu64, p->name, (int)ref.rec.name_len, ref.rec.name,
                         gg, first + i, tl, px.node_text_len);
            }
        }
        ig_nested_close(&nr);
    }
    ig_buf_free(&text);
}

/* extents must not overlap (an erase rewriting one page must not touch another) */
static void check_extents(struct vctx *x, const struct ig_part *p)
{
    struct extent *ex = malloc(((size_t)p->num_pages + 1) * sizeof *ex);
    if (ex) {
        uint32_t n = 0;
        for (uint32_t pg = 0; pg < p->num_pages; pg++) {
            struct ig_pagerec rec;
            if (ig_part_page(p, pg, &rec, NULL) == 0)
                ex[n++] = (struct extent){rec.offset, rec.capacity, pg};
        }
        /* a deletion bitmap past the footer (format 17), which an erase writes too */
        if (p->deletion_at)
            ex[n++] = (struct extent){p->deletion_at, ig_part_deletion_bytes(p), UINT32_MAX};
        qsort(ex, n, sizeof *ex, extent_cmp);
        for (uint32_t i = 1; i < n; i++)
            if (ex[i - 1].off + ex[i - 1].cap > ex[i].off) {
                if (ex[i - 1].page == UINT32_MAX || ex[i].page == UINT32_MAX)
                    ig_verify_fail(x, "%s: page %u and the deletion bitmap overlap on disk", p->name,
                                   ex[i - 1].page == UINT32_MAX ? ex[i].page : ex[i - 1].page);
                else
                    ig_verify_fail(x, "%s: pages %u and %u overlap on disk", p->name, ex[i - 1].page,
                                   ex[i].page);
                break;
            }
        free(ex);
    }
}

/* deletion bitmap: count and no bits past the last row */
static void check_deletion_and_root(struct vctx *x, const struct ig_part *p)
{
    const uint8_t *bm = ig_part_deletion(p);
    uint64_t bits = 0;
    for (uint64_t i = 0; bm && i < ig_part_deletion_bytes(p); i++)
        bits += (uint64_t)__builtin_popcount(bm[i]);
    uint64_t in_range = 0;
    for (uint64_t r = 0; r < p->num_rows; r++)
        in_range += ig_part_row_deleted(p, r);
    if (bits != in_range) ig_verify_fail(x, "%s: deletion bitmap has bits past the last row", p->name);
    if (in_range != p->deleted_rows)
        ig_verify_fail(x, "%s: footer says %" PRIu64 " deleted rows, bitmap has %" PRIu64, p->name,
             p->deleted_rows, in_range);
    if (ig_part_root(p, p->footer, bm) != p->root)
        ig_verify_fail(x, "%s: root hash mismatch (footer header, row groups or deletion bitmap changed)",
                       p->name);
}

/* Everything about one part: its footer sections, row groups and their Merkle
 * hashes, every page, nested columns' text lengths, extents, the deletion bitmap
 * and root, and its blob file. */
static void check_part(struct vctx *x, const struct ig_table *t, uint32_t pi)
{
    x->nobjs = 0;
    const struct ig_part *p = &t->parts[pi];
    check_sections(x, p);
    check_groups(x, p);
    x->unreadable = calloc(p->num_pages ? p->num_pages : 1, 1); /* NULL: every check reports */
    check_chunks(x, t, pi);
    check_nested_text(x, t, pi);
    free(x->unreadable);
    x->unreadable = NULL;
    check_extents(x, p);
    check_deletion_and_root(x, p);
    if (ig_part_has_blob(p)) check_blobs(x, p, t);
}

int ig_part_check_footer(const struct ig_part *p, struct ig_error *err)
{
    const uint8_t *parts[4] = {ig_part_section(p, IG_SEC_COLUMNS), ig_part_section(p, IG_SEC_NAMES),
                               ig_part_section(p, IG_SEC_NAME_INDEX),
                               ig_part_section(p, IG_SEC_LEAVES)};
    size_t sizes[4] = {p->sec_size[IG_SEC_COLUMNS], p->sec_size[IG_SEC_NAMES],
                       p->sec_size[IG_SEC_NAME_INDEX], p->sec_size[IG_SEC_LEAVES]};
    if (ig_merkle_concat(parts, sizes, 4) != p->schema_hash)
        return ig_err(err, -EIO, "%s: corrupt footer: schema hash mismatch", p->path);
    if (ig_hash(ig_part_section(p, IG_SEC_CHUNKS), p->sec_size[IG_SEC_CHUNKS]) != p->chunks_hash)
        return ig_err(err, -EIO, "%s: corrupt footer: chunk table hash mismatch", p->path);
    for (uint32_t g = 0; g < p->num_groups; g++) {
        struct ig_grouprec gr;
        int rc = ig_part_group(p, g, &gr, err);
        if (rc) return rc;
        if (ig_footer_group_hash(p, p->footer, gr.first_page, gr.page_count) != gr.hash)
            return ig_err(err, -EIO, "%s: corrupt footer: row group %u hash mismatch", p->path, g);
    }
    if (ig_part_root(p, p->footer, ig_part_deletion(p)) != p->root) return ig_err(err, -EIO, "%s: corrupt footer: root hash mismatch", p->path);
    return 0;
}

int ig_verify_table(const char *dir, const struct ig_verify_hooks *h,
                    struct ig_verify_report *rep, struct ig_error *err)
{
    memset(rep, 0, sizeof *rep);
    struct vctx x = {.h = h, .rep = rep, .deep = h && h->deep};
    struct ig_table t;
    /* On a shared file system this host's cached copy can be older than what
     * another host wrote (docs/DEPLOY.md): verify what storage holds. Locally
     * the cache is what every reader here reads; --cold reads the disk. */
    if ((h && h->cold) || ig_fs_is_shared(dir)) ig_table_forget_cache(dir);
    /* an interrupted erase or change of columns on object storage: settled
     * first, unless its writer is still at work (its journal or record is
     * then reported) */
    bool replayed;
    struct ig_error re = {0};
    if (ig_store_is_remote(dir) && ig_remote_settle(dir, 0, &replayed, &re)) ig_verify_fail(&x, "%s", re.msg);
    int rc = ig_table_open(&t, dir, false, err);
    if (rc) {
        ig_verify_fail(&x, "%s", err ? err->msg : "cannot open the table");
        return rc;
    }
    /* a change of columns the open could not settle (a reader reads on as
     * MANIFEST says): its record damaged, or this user may not write; not
     * one a writer began since (it holds the lock) */
    uint64_t pending_version;
    struct ig_commitlog_part *pending;
    size_t npending;
    struct ig_error pe = {0};
    int lock = !ig_store_is_remote(dir) && ig_commit_pending(dir) ? ig_table_lock(dir, false, NULL) : -EWOULDBLOCK;
    if (lock >= 0) ig_table_unlock(lock);
    if (lock != -EWOULDBLOCK && ig_commit_pending(dir)) {
        if (ig_commitlog_read(dir, &pending_version, &pending, &npending, &pe) == 0) {
            free(pending);
            ig_verify_fail(&x, "%s/%s: a change of columns (version %" PRIu64 ") a writer did not finish, "
                               "to be settled by the next writer (this user may not write)",
                           dir, IG_COMMIT_FILE, pending_version);
        } else {
            ig_verify_fail(&x, "%s", pe.msg);
        }
    }
    rep->parts = t.nparts;
    for (uint32_t i = 0; i < t.nparts; i++)
        x.bytes_total += t.parts[i].footer_offset;
    /* what the versions kept show, where gc released pages: none of theirs
     * may be (read only then: a table erased often keeps many versions) */
    bool any_released = false;
    for (uint32_t i = 0; i < t.nparts && !any_released; i++)
        for (uint32_t leaf = 0; leaf < t.parts[i].num_leaves && !any_released; leaf++)
            any_released = ig_part_leaf_released(&t.parts[i], leaf);
    struct ig_idset *kept = any_released ? calloc(t.manifest.n, sizeof *kept) : NULL;
    bool *kept_every = any_released ? calloc(t.manifest.n, sizeof *kept_every) : NULL;
    struct ig_error verr = {0};
    if (any_released && (!kept || !kept_every))
        ig_verify_fail(&x, "out of memory");
    else if (any_released && ig_versions_shown(dir, &t.manifest, kept, kept_every, &verr))
        ig_verify_fail(&x, "%s", verr.msg);
    else if (any_released)
        x.kept = kept, x.kept_every = kept_every;
    ig_values_init(&x.v, IG_T_INT64);
    for (uint32_t i = 0; i < t.nparts; i++)
        check_part(&x, &t, i);
    if (ig_store_is_remote(dir)) {
        struct ig_error e = {0};
        if (ig_verify_objects(dir, &t, fail_msg, &x, &rep->objects, &rep->object_versions, &e))
            ig_verify_fail(&x, "%s", e.msg);
    }
    ig_values_free(&x.v);
    for (uint32_t i = 0; x.kept && i < t.manifest.n; i++) ig_idset_free(&kept[i]);
    free(kept);
    free(kept_every);
    free(x.objs);
    ig_buf_free(&x.text);
    ig_reader_free(&x.r);
    ig_table_close(&t);
    return 0;
}
