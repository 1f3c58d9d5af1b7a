/* view.c - a file's bytes: layouts built from the footer, pieces decoded or mapped, reads (view.h). */
#include "view.h"
#include "pieces.h"
#include "ahead.h"
#include "invalidate.h"
#include "plan.h"
#include "format/part/columns.h"
#include "blobs.h"
#include "generated.h"
#include "rows.h"
#include "format/ops/take.h"
#include "format/model/names.h"
#include "format/page/page.h"
#include "format/layout.h"
#include "format/model/assemble.h"
#include "format/ops/nested.h"
#include "format/model/quantize.h"
#include "format/model/schema.h"
#include "format/model/render.h"
#include "format/model/types.h"
#include "util/endian.h"
#include "format/part/remote.h"
#include "store/store.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/sigbus.h"
#include "util/io.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The generation a node shows: the current one for nodes that never change,
 * the one its version bits name for views and generated files; NULL when that
 * generation is gone (its files answer ESTALE). */
static const struct fs_generation *node_version(struct fs_session *s, const struct fs_node *n)
{
    return fs_node_generational(n) ? fs_generation_of(&s->gens, n->gen_bits) : &s->gens.current;
}

/* Materialised content (rows and generated files), cached. Generated files
 * exist in the current generation only (what they report has moved on). */
static int content_entry(struct fs_session *s, const struct fs_node *n, struct fs_entry **out)
{
    const struct fs_generation *ver = node_version(s, n);
    if (!ver) return -ESTALE;
    if (n->kind == FS_K_SPECIAL && n->special == FS_S_GENERATION && ver != &s->gens.current) {
        /* an older generation's number, as a thread pinned to it reads it */
        struct fs_entry *e = fs_entry_new(0, 0);
        if (!e) return -ENOMEM;
        e->refs = 1;
        e->dead = 1; /* not cached: freed on release */
        if (ig_buf_printf(&e->data, "%" PRIu64 "\n", ver->gen)) {
            fs_entry_free(e);
            return -ENOMEM;
        }
        *out = e;
        return 0;
    }
    if (n->kind == FS_K_SPECIAL && ver != &s->gens.current) return -ESTALE;
    uint64_t k1 = n->kind == FS_K_ROW ? KEY_ROW_K1(n->row) : KEY_SPECIAL_K1;
    uint64_t k2 = n->kind == FS_K_ROW ? KEY_ROW : KEY_SPECIAL(n->special);
    struct fs_entry *e = fs_cache_get(&s->cache, k1, k2);
    if (e) {
        *out = e;
        return 0;
    }
    e = fs_entry_new(k1, k2);
    if (!e) return -ENOMEM;
    int rc;
    if (n->kind == FS_K_ROW)
        rc = fs_row_render(s, n->row, &e->data);
    else if (n->special == FS_S_README)
        rc = fs_render_readme(s, &e->data);
    else if (n->special == FS_S_SCHEMA)
        rc = fs_render_schema(s, &e->data);
    else if (n->special == FS_S_GENERATION)
        rc = ig_buf_printf(&e->data, "%" PRIu64 "\n", s->gens.current.gen);
    else
        rc = -ENOENT;
    if (rc) {
        fs_entry_free(e);
        return rc;
    }
    *out = fs_cache_put(&s->cache, e);
    return 0;
}

/* Is block b of a page decoded in the daemon's cache (rows.c's key)? */
static bool block_held(void *ctx, uint32_t part, uint32_t page, uint32_t block)
{
    struct fs_session *s = ctx;
    return fs_cache_has(&s->cache, (uint64_t)part << 32 | page, KEY_DECODED_BLOCK(block));
}

void fs_prefetch_node(struct fs_session *s, const struct fs_node *n)
{
    if (n->kind == FS_K_ROW) {
        /* a row whose file is rendered already needs no block; others only
         * the blocks not decoded yet */
        if (!fs_cache_has(&s->cache, KEY_ROW_K1(n->row), KEY_ROW))
            ig_take_prefetch(&s->table, &n->row, 1, NULL, 0, block_held, s);
    } else if (n->kind == FS_K_BLOB) {
        struct ig_blob_ref r;
        unsigned kind;
        uint32_t part;
        if (fs_blob_object(s, n->blob, n->row, n->k, &r, &kind, &part) == 0)
            ig_part_advise(&s->table.parts[part], true, r.offset, r.size);
    }
}

int fs_node_size(struct fs_session *s, const struct fs_node *n, uint64_t *size)
{
    *size = 0;
    switch (n->kind) {
    case FS_K_ROOT:
    case FS_K_DIR: return 0;
    case FS_K_STAGE: return -ENOENT; /* a file being written is not read through here (staging.h) */
    case FS_K_LINK: return 0;       /* tags/NAME: a link (attr.c), no contents */
    case FS_K_SUB: return -ENOENT;  /* the glue asks a version's session (subtables.h) */
    case FS_K_BLOB_DIR: return n->blob < s->nblob_cols ? 0 : -ENOENT;
    case FS_K_BLOB_ROW: {
        const uint8_t *refs;
        uint32_t count;
        struct fs_entry *e;
        struct ig_colrec cr;
        uint32_t col = fs_blob_column(s, n->blob);
        if (col == UINT32_MAX || ig_part_column(&s->table.parts[0], col, &cr, NULL) ||
            !(cr.flags & IG_COLF_REPEATED))
            return -ENOENT;
        int rc = fs_blob_row(s, n->blob, n->row, &refs, &count, &e);
        if (!rc) fs_cache_release(&s->cache, e);
        return rc;
    }
    case FS_K_BLOB: {
        struct ig_blob_ref r;
        unsigned kind;
        uint32_t part;
        int rc = fs_blob_object(s, n->blob, n->row, n->k, &r, &kind, &part);
        *size = rc ? 0 : r.size;
        return rc;
    }
    case FS_K_VIEW: {
        struct fs_plan vp;
        const struct fs_generation *ver = node_version(s, n);
        if (!ver) return -ESTALE;
        if (n->view == FS_V_PARQUET) { /* its layout is its size */
            struct fs_entry *e;
            int rc = fs_layout_get(s, n, &e);
            if (!rc) {
                *size = ((const struct fs_file *)e->obj)->size;
                fs_cache_release(&s->cache, e);
            }
            return rc;
        }
        if (!fs_plan_view(s, n->col, n->view, &vp)) return -ENOENT;
        uint64_t len = vp.header;
        int rc = fs_walk_spans(s, n, ver, fs_add_len, &len);
        *size = len;
        return rc;
    }
    case FS_K_SPECIAL:
        if (n->special == FS_S_ERASE) return 0;
        if (n->special == FS_S_ERASURES) {
            char path[4200];
            struct stat st;
            snprintf(path, sizeof path, "%s/.ingot/erasures", s->dir);
            if (ig_store_is_remote(s->dir)) { /* an object: its size is its length */
                char *text;
                size_t len;
                *size = ig_table_file_read(s->dir, ".ingot/erasures", 64u << 20, &text, &len, NULL) ? 0 : len;
                if (!*size) return 0;
                free(text);
                return 0;
            }
            *size = stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
            return 0;
        }
        /* fall through */
    case FS_K_ROW: {
        struct fs_entry *e;
        int rc = content_entry(s, n, &e);
        if (rc) return rc;
        *size = e->data.len;
        fs_cache_release(&s->cache, e);
        return 0;
    }
    }
    return -ENOENT;
}

static void layout_free(void *obj)
{
    struct fs_file *f = obj;
    if (f) free(f->spans);
    if (f) fs_pq_free(f->pq);
    if (f) fs_arrow_free(f->arrow);
    if (f) fs_jsonl_free(f->jsonl);
    if (f) fs_ahead_free(f->ahead);
    free(f);
}

/* Build f's layout for the generation its node shows (spans, size, header). */
static int file_layout(struct fs_session *s, struct fs_file *f)
{
    const struct fs_node *n = &f->node;
    int rc = 0;
    const struct fs_generation *ver = node_version(s, n);
    if (!ver) return -ESTALE;
    f->gen = ver->gen;
    switch (n->kind) {
    case FS_K_BLOB: {
        unsigned kind;
        rc = fs_blob_object(s, n->blob, n->row, n->k, &f->blob, &kind, &f->blob_part);
        if (!rc && !ig_part_has_blob(&s->table.parts[f->blob_part])) rc = -EIO;
        f->size = rc ? 0 : f->blob.size;
        return rc;
    }
    case FS_K_VIEW: {
        struct fs_span_list l = {0};
        struct fs_plan vp;
        if (n->view == FS_V_PARQUET) { /* the current generation only */
            if (ver != &s->gens.current) return -ESTALE;
            if (!n->scope || n->scope - 1 >= s->table.num_groups) return -ENOENT;
            if (n->col == FS_GF_ARROW) {
                rc = fs_arrow_layout(s, n->scope - 1, &f->arrow);
                f->size = rc ? 0 : f->arrow->size;
                return rc;
            }
            if (n->col == FS_GF_JSONL) {
                rc = fs_jsonl_layout(s, n->scope - 1, &f->jsonl);
                f->size = rc ? 0 : f->jsonl->size;
                return rc;
            }
            if (n->col != FS_GF_PARQUET) return -ENOENT;
            rc = fs_pq_layout(s, n->scope - 1, &f->pq);
            f->size = rc ? 0 : f->pq->size;
            return rc;
        }
        if (!fs_plan_view(s, n->col, n->view, &vp)) return -ENOENT;
        uint64_t size = vp.header;
        rc = fs_walk_spans(s, n, ver, fs_push_span, &l);
        if (!rc) rc = fs_walk_spans(s, n, ver, fs_add_len, &size);
        f->spans = l.v;
        f->nspans = l.n;
        f->size = size;
        /* pages on object storage are fetched ahead of a sequential reader */
        if (!rc && f->nspans && f->spans[0].part < s->table.nparts &&
            s->table.parts[f->spans[0].part].obj)
            f->ahead = fs_ahead_new();
        if (!rc && n->view != FS_V_TEXT) {
            f->header = vp.header;
            uint64_t count = (size - vp.header) / vp.width;
            if (n->view == FS_V_OFFSETS) count++; /* the leading 0 */
            fs_npy_header(f->header_bytes, vp.descr, count, vp.dim);
            if (n->view == FS_V_OFFSETS) memset(f->header_bytes + FS_NPY_HEADER, 0, 8);
        }
        return rc;
    }
    default: /* rows and generated files: their content, whose size is the file's */
        return fs_node_size(s, n, &f->size);
    }
}

int fs_layout_get(struct fs_session *s, const struct fs_node *n, struct fs_entry **out)
{
    uint64_t ino = fs_ino(n);
    struct fs_entry *e = fs_cache_get(&s->cache, ino, KEY_LAYOUT);
    if (e) {
        *out = e;
        return 0;
    }
    struct fs_file *f = calloc(1, sizeof *f);
    e = fs_entry_new(ino, KEY_LAYOUT);
    if (!f || !e) {
        free(f);
        fs_entry_free(e);
        return -ENOMEM;
    }
    f->node = *n;
    int rc = file_layout(s, f);
    if (rc) {
        layout_free(f);
        fs_entry_free(e);
        return rc;
    }
    e->obj = f;
    e->obj_free = layout_free;
    e->bytes = sizeof *f + (size_t)f->nspans * sizeof *f->spans +
               (f->pq ? f->pq->npages * sizeof *f->pq->pages : 0) +
               (f->jsonl ? ((size_t)f->jsonl->nruns + 1) * sizeof *f->jsonl->start : 0);
    *out = fs_cache_put(&s->cache, e);
    return 0;
}

/* A copy out of a part's mapping: a file truncated under it is an error (-EIO), not SIGBUS. */
struct mapped_copy {
    uint8_t *dst;
    const uint8_t *src;
    size_t n;
};

static void mapped_copy_run(void *arg)
{
    struct mapped_copy *c = arg;
    memcpy(c->dst, c->src, c->n);
}

static int copy_mapped(uint8_t *dst, const uint8_t *src, size_t n)
{
    struct mapped_copy c = {dst, src, n};
    return ig_sigbus_guard(mapped_copy_run, &c);
}

/* Does p hold an aligned 64-byte run of zeros? An erase zero-fills its row's
 * objects in place; real media seldom has such runs, so only reads that do
 * pay for asking whether the table moved. */
static bool has_zero_run(const uint8_t *p, size_t n)
{
    size_t i = (size_t)(-(uintptr_t)p & 63);
    for (; i + 64 <= n; i += 64) {
        uint64_t w[8], acc = 0;
        memcpy(w, p + i, 64);
        for (int k = 0; k < 8; k++) acc |= w[k];
        if (!acc) return true;
    }
    return false;
}

/* A blob object's range: one pread of exactly it. The object's checksum is
 * checked the first time it is read (up to 256 MiB; verify checks the rest):
 * that read takes it whole and serves from it. A later read that meets zeros
 * while the table moved under it (an erase of its row at work: the journal is
 * durable before any byte is zeroed) is read again after the reload, which
 * answers ENOENT for the erased row instead of serving its zeros. */
static int blob_read(struct fs_session *s, const struct fs_file *f, uint64_t off, size_t size,
                     struct fs_read *rd)
{
    const struct ig_part *bp = &s->table.parts[f->blob_part];
    if (!ig_part_has_blob(bp)) return -EIO;
    bool check = !fs_blob_verified(s, f->blob_part, f->blob.offset, false) &&
                 f->blob.size <= (256u << 20);
    size_t take = check ? (size_t)f->blob.size : size;
    rd->flat = malloc(take ? take : 1);
    if (!rd->flat) return -ENOMEM;
    /* its lookup asked for the whole object (fs_prefetch_node): no store
     * readahead past it into its neighbours */
    if (take && ig_part_blob_read(bp, &f->blob, check ? 0 : off, rd->flat, take, IG_AHEAD_CALLER))
        return -EIO;
    if (check) {
        if (ig_hash(rd->flat, take) != f->blob.hash) {
            char msg[256];
            snprintf(msg, sizeof msg, "blob object at %llu (%llu bytes) of row %llu: checksum mismatch "
                                      "or truncated blob file",
                     (unsigned long long)f->blob.offset, (unsigned long long)f->blob.size,
                     (unsigned long long)f->node.row);
            /* an erase zeroing this object under the read (its row goes; the
             * retry after the reload answers ENOENT) is not damage */
            return fs_page_failed(s, f->blob_part | 0x80000000u, (uint32_t)(f->blob.offset >> 12), msg,
                                  -EIO);
        }
        fs_blob_verified(s, f->blob_part, f->blob.offset, true);
        memmove(rd->flat, rd->flat + off, size);
    } else if (has_zero_run(rd->flat, take) && fs_table_moved(s)) {
        return -EAGAIN;
    }
    rd->iov[0] = (struct iovec){rd->flat, size};
    rd->niov = 1;
    rd->bytes = size;
    return 1;
}

/* Gather what the reply holds so far into one buffer of its full size; later
 * pieces are copied in after it. */
static int gather(struct fs_session *s, struct fs_read *rd)
{
    if (rd->flat) return 0;
    rd->flat = malloc(rd->want ? rd->want : 1);
    if (!rd->flat) return -ENOMEM;
    size_t at = 0;
    for (int i = 0; i < rd->niov; i++) {
        memcpy(rd->flat + at, rd->iov[i].iov_base, rd->iov[i].iov_len);
        at += rd->iov[i].iov_len;
    }
    for (int i = 0; i < rd->nheld; i++)
        fs_cache_release(&s->cache, rd->held[i]);
    rd->nheld = 0;
    rd->niov = 1;
    rd->iov[0] = (struct iovec){rd->flat, rd->bytes};
    return 0;
}

/* Add a piece to the reply. Takes over the caller's hold on e. */
static int hold(struct fs_session *s, struct fs_read *rd, struct fs_entry *e, const void *p,
                size_t n)
{
    if (!rd->flat && rd->niov < FS_READ_MAX_IOV) {
        if (e) rd->held[rd->nheld++] = e;
        rd->iov[rd->niov].iov_base = (void *)p;
        rd->iov[rd->niov].iov_len = n;
        rd->niov++;
        rd->bytes += n;
        return 0;
    }
    int rc = gather(s, rd); /* too many small pieces */
    if (rc) {
        fs_cache_release(&s->cache, e);
        return rc;
    }
    memcpy(rd->flat + rd->bytes, p, n);
    rd->bytes += n;
    rd->iov[0].iov_len = rd->bytes;
    fs_cache_release(&s->cache, e);
    return 0;
}

/* Add [from, to) of a piece made of mapped segments; takes over the hold on e.
 * The bytes are copied out of the part's mapping now, not pointed at until the
 * reply is sent: they were checked once, and a writer (an erase in place) may
 * change them since; fs_file_read asks, after the copy, whether one was at
 * work (fs_writer_seen). The copy is within the noise of a daemon-served
 * `cat` of a plain .npy (paired 1.02x, BENCHMARKS.md mount_read): the FUSE
 * transfer dominates. */
/* The part of segment i of e that [from, to) of the piece covers, where the
 * segments before it end at *at (advanced past it): false when none. */
static bool segment_clip(const struct fs_entry *e, int i, uint64_t *at, uint64_t from, uint64_t to,
                         const uint8_t **p, size_t *n)
{
    uint64_t a = *at, b = a + e->segs[i].iov_len;
    *at = b;
    if (b <= from || a >= to) return false;
    uint64_t lo = from > a ? from : a, hi = to < b ? to : b;
    *p = (const uint8_t *)e->segs[i].iov_base + (lo - a);
    *n = (size_t)(hi - lo);
    return true;
}

static int hold_segments(struct fs_session *s, struct fs_read *rd, struct fs_entry *e,
                         uint64_t from, uint64_t to)
{
    int rc = gather(s, rd);
    uint64_t at = 0;
    const uint8_t *src;
    size_t n;
    for (int i = 0; !rc && i < e->nsegs && at < to; i++) {
        if (!segment_clip(e, i, &at, from, to, &src, &n)) continue;
        /* under the SIGBUS guard like the check: a part truncated under the mount */
        rc = copy_mapped(rd->flat + rd->bytes, src, n);
        rd->bytes += n;
    }
    rd->iov[0].iov_len = rd->bytes;
    rd->from_mapping = true;
    fs_cache_release(&s->cache, e);
    return rc;
}

/* Add [from, to) of a transient piece's segments (bytes pinned in the
 * store's cache, which nothing changes): pointed at, one iovec a segment,
 * each holding e; takes over the caller's hold. */
static int hold_pinned(struct fs_session *s, struct fs_read *rd, struct fs_entry *e, uint64_t from,
                       uint64_t to)
{
    uint64_t at = 0;
    int rc = 0;
    const uint8_t *src;
    size_t n;
    for (int i = 0; !rc && i < e->nsegs && at < to; i++) {
        if (!segment_clip(e, i, &at, from, to, &src, &n)) continue;
        fs_cache_hold(&s->cache, e);
        rc = hold(s, rd, e, src, n);
    }
    fs_cache_release(&s->cache, e);
    return rc;
}

void fs_read_release(struct fs_session *s, struct fs_read *rd)
{
    for (int i = 0; i < rd->nheld; i++)
        fs_cache_release(&s->cache, rd->held[i]);
    free(rd->flat);
    rd->flat = NULL;
    rd->nheld = rd->niov = 0;
    rd->bytes = 0;
    rd->from_mapping = false;
}

/* parquet/G.parquet: "PAR1", the pages (rendered and cached one by one), the
 * footer the layout holds. */
static int pq_read(struct fs_session *s, const struct fs_file *f, uint64_t pos, uint64_t end,
                   struct fs_read *rd)
{
    const struct ig_pqv *v = f->pq;
    if (f->gen != s->gens.current.gen) return -ESTALE;
    uint64_t tail_at = v->size - v->tail_len;
    if (pos < IG_PQV_HEAD) {
        size_t n = (size_t)((end < IG_PQV_HEAD ? end : IG_PQV_HEAD) - pos);
        hold(s, rd, NULL, &"PAR1"[pos], n);
        pos += n;
    }
    uint32_t lo = 0, hi = v->npages;
    while (hi - lo > 1) { /* last page starting at or before pos */
        uint32_t mid = lo + (hi - lo) / 2;
        if (v->pages[mid].start <= pos)
            lo = mid;
        else
            hi = mid;
    }
    for (uint32_t i = lo; i < v->npages && pos < end && pos < tail_at; i++) {
        const struct ig_pqv_page *pg = &v->pages[i];
        if (pg->start + pg->len <= pos) continue;
        struct fs_entry *e;
        int rc = fs_pq_piece(s, v, i, &e);
        if (rc) return rc;
        if (e->data.len != pg->len) {
            fs_cache_release(&s->cache, e);
            return fs_page_failed(s, v->part, pg->page, "Parquet page length differs from its layout", -EIO);
        }
        uint64_t from = pos - pg->start, to = (end < pg->start + pg->len ? end : pg->start + pg->len) - pg->start;
        rc = hold(s, rd, e, e->data.data + from, (size_t)(to - from));
        if (rc) return rc;
        pos = pg->start + to;
    }
    if (pos < end) {
        struct fs_entry *e;
        int rc = fs_pq_tail(s, v, fs_ino(&f->node), f->gen, &e);
        if (rc) return rc;
        rc = hold(s, rd, e, e->data.data + (pos - tail_at), (size_t)(end - pos));
        if (rc) return rc;
    }
    return rd->niov;
}

/* arrow/G.arrow: the head the layout holds (magic, schema, the batch's
 * metadata), the body's pieces (those that decode a page rendered and cached
 * one by one), the tail (footer) the layout holds. */
static int arrow_read(struct fs_session *s, const struct fs_file *f, uint64_t pos, uint64_t end,
                      struct fs_read *rd)
{
    const struct ig_arv *v = f->arrow;
    if (f->gen != s->gens.current.gen) return -ESTALE;
    uint64_t tail_at = v->size - v->tail.len;
    if (pos < v->head.len) {
        size_t n = (size_t)((end < v->head.len ? end : v->head.len) - pos);
        int rc = hold(s, rd, NULL, v->head.data + pos, n);
        if (rc) return rc;
        pos += n;
    }
    uint32_t lo = 0, hi = v->npieces;
    while (hi - lo > 1) { /* last piece starting at or before pos */
        uint32_t mid = lo + (hi - lo) / 2;
        if (v->pieces[mid].start <= pos)
            lo = mid;
        else
            hi = mid;
    }
    for (uint32_t i = lo; i < v->npieces && pos < end && pos < tail_at; i++) {
        const struct ig_arv_piece *pc = &v->pieces[i];
        if (pc->start + pc->len <= pos) continue;
        uint64_t from = pos - pc->start, to = (end < pc->start + pc->len ? end : pc->start + pc->len) - pc->start;
        int rc;
        if (pc->kind == IG_ARV_ZERO || pc->kind == IG_ARV_END) {
            rc = hold(s, rd, NULL, pc->bytes + from, (size_t)(to - from));
        } else {
            struct fs_entry *e;
            if ((rc = fs_arrow_piece(s, v, i, &e))) return rc;
            if (e->data.len != pc->len) {
                fs_cache_release(&s->cache, e);
                return fs_page_failed(s, v->part, pc->page, "Arrow piece length differs from its layout", -EIO);
            }
            rc = hold(s, rd, e, e->data.data + from, (size_t)(to - from));
        }
        if (rc) return rc;
        pos = pc->start + to;
    }
    if (pos < end) {
        int rc = hold(s, rd, NULL, v->tail.data + (pos - tail_at), (size_t)(end - pos));
        if (rc) return rc;
    }
    return rd->niov;
}

/* jsonl/G.jsonl: runs of rows, rendered and cached one by one. */
static int jsonl_read(struct fs_session *s, const struct fs_file *f, uint64_t pos, uint64_t end,
                      struct fs_read *rd)
{
    const struct fs_jsonl *v = f->jsonl;
    if (f->gen != s->gens.current.gen) return -ESTALE;
    uint32_t lo = 0, hi = v->nruns;
    while (hi - lo > 1) { /* last run starting at or before pos */
        uint32_t mid = lo + (hi - lo) / 2;
        if (v->start[mid] <= pos)
            lo = mid;
        else
            hi = mid;
    }
    for (uint32_t i = lo; i < v->nruns && pos < end; i++) {
        uint64_t rs = v->start[i], re = v->start[i + 1];
        if (re <= pos) continue;
        struct fs_entry *e;
        int rc = fs_jsonl_run(s, v, fs_ino(&f->node), i, &e);
        if (rc) return rc;
        uint64_t from = pos - rs, to = (end < re ? end : re) - rs;
        rc = hold(s, rd, e, e->data.data + from, (size_t)(to - from));
        if (rc) return rc;
        pos = rs + to;
    }
    return pos == end ? rd->niov : -EIO;
}

int fs_file_read(struct fs_session *s, const struct fs_file *f, uint64_t off, size_t size,
                 struct fs_read *rd)
{
    rd->niov = rd->nheld = 0;
    rd->bytes = 0;
    rd->flat = NULL;
    rd->from_mapping = false;
    if (off >= f->size || size == 0) return 0;
    if (size > f->size - off) size = (size_t)(f->size - off);
    rd->want = size;
    if (f->node.kind == FS_K_BLOB) return blob_read(s, f, off, size, rd);
    if (f->pq) return pq_read(s, f, off, off + size, rd);
    if (f->arrow) return arrow_read(s, f, off, off + size, rd);
    if (f->jsonl) return jsonl_read(s, f, off, off + size, rd);
    if (f->node.kind != FS_K_VIEW) {
        struct fs_entry *e;
        int rc = f->node.kind == FS_K_SPECIAL && f->node.special == FS_S_ERASURES
                     ? fs_erasures_entry(s, &e)
                     : content_entry(s, &f->node, &e);
        if (rc) return rc;
        if (e->data.len < off + size) { /* it changed since its size was taken */
            fs_cache_release(&s->cache, e);
            return -ESTALE;
        }
        rc = hold(s, rd, e, e->data.data + off, size);
        return rc ? rc : rd->niov;
    }
    uint64_t pos = off, end = off + size;
    if (pos < f->header) {
        size_t n = (size_t)((end < f->header ? end : f->header) - pos);
        hold(s, rd, NULL, f->header_bytes + pos, n);
        pos += n;
    }
    if (pos == end) return rd->niov;
    /* last span starting at or before pos */
    uint32_t lo = 0, hi = f->nspans;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (f->spans[mid].start <= pos)
            lo = mid;
        else
            hi = mid;
    }
    fs_ahead_read(s, f, f->ahead, lo, off, size);
    for (uint32_t i = lo; i < f->nspans && pos < end; i++) {
        const struct fs_span *sp = &f->spans[i];
        uint64_t span_end = i + 1 < f->nspans ? f->spans[i + 1].start : f->size;
        if (span_end <= pos) continue;
        struct fs_entry *e;
        int rc = fs_piece_get(s, f, sp, &e);
        if (rc) return rc;
        size_t nbytes = e->segs ? e->mapped_len : e->data.len;
        if (nbytes != span_end - sp->start) {
            /* the footer's length and the page disagree: corrupt */
            fs_cache_release(&s->cache, e);
            return fs_page_failed(s, sp->part, sp->page, "rendered length differs from the footer's",
                                  -EIO);
        }
        uint64_t from = pos - sp->start;
        uint64_t to = (end < span_end ? end : span_end) - sp->start;
        rc = e->transient ? hold_pinned(s, rd, e, from, to)
             : e->segs    ? hold_segments(s, rd, e, from, to)
                          : hold(s, rd, e, e->data.data + from, (size_t)(to - from));
        if (rc) return rc;
        pos = sp->start + to;
    }
    if (pos != end) return -EIO;
    /* bytes copied from the mapping are the checked ones unless a writer began
     * before the copy ended: it commits its journal before it touches a page,
     * and raises MANIFEST's generation before it removes the journal */
    if (rd->from_mapping && fs_writer_seen(s) && fs_table_moved(s)) return -EAGAIN;
    return rd->niov;
}
