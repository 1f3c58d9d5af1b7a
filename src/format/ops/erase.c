#include "format/ops/erase.h"
#include "format/part/columns.h"
#include "format/part/journal.h"
#include "format/layout.h"
#include "format/part/lock.h"
#include "format/part/merkle.h"
#include "format/model/assemble.h"
#include "format/ops/nested.h"
#include "format/page/page.h"
#include "format/ops/reader.h"
#include "format/model/render.h"
#include "format/model/types.h"
#include "blob/blob.h"
#include "format/model/parse_value.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/u64vec.h"
#include "util/hash.h"
#include "util/io.h"

#include <errno.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- resolving the request ---------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static bool row_live(const struct ig_table *t, uint64_t id)
{
    uint32_t pi;
    uint64_t local;
    return ig_table_row(t, id, &pi, &local) == 0 && !ig_part_row_deleted(&t->parts[pi], local);
}

/* Does value i of v equal the target (a one-value ig_values)? */
/* Does value i of v equal value j of the targets? (SQL-ish: NULL matches NULL
 * here because `--where col=\N` asks for the NULL rows; -0.0 equals 0.0; NaN
 * equals nothing.) */
static bool value_matches(const struct ig_values *v, size_t i, const struct ig_values *t, size_t j)
{
    bool tnull = ig_values_is_null(t, j), vnull = ig_values_is_null(v, i);
    if (tnull || vnull) return tnull && vnull;
    if (v->is_bytes) {
        size_t a, b;
        const uint8_t *pa = ig_values_bytes(v, i, &a), *pb = ig_values_bytes(t, j, &b);
        return a == b && memcmp(pa, pb, a) == 0;
    }
    if (v->type == IG_T_FLOAT64) {
        double x, y;
        memcpy(&x, &v->lanes[i], 8);
        memcpy(&y, &t->lanes[j], 8);
        return x == y;
    }
    if (v->type == IG_T_FLOAT32) {
        uint32_t bx = (uint32_t)v->lanes[i], by = (uint32_t)t->lanes[j];
        float x, y;
        memcpy(&x, &bx, 4);
        memcpy(&y, &by, 4);
        return x == y;
    }
    if (v->type == IG_T_BOOL) return (v->lanes[i] != 0) == (t->lanes[j] != 0);
    return v->lanes[i] == t->lanes[j];
}

/* A hash of value i consistent with value_matches (equal values, equal hashes). */
static uint64_t value_hash(const struct ig_values *v, size_t i)
{
    if (ig_values_is_null(v, i)) return 0x9E3779B97F4A7C15ull;
    if (v->is_bytes) {
        size_t n;
        const uint8_t *p = ig_values_bytes(v, i, &n);
        return ig_hash(p, n);
    }
    uint64_t x = v->lanes[i];
    if (v->type == IG_T_FLOAT64 && x == 0x8000000000000000ull) x = 0; /* -0.0 == 0.0 */
    if (v->type == IG_T_FLOAT32 && (uint32_t)x == 0x80000000u) x = 0;
    if (v->type == IG_T_BOOL) x = x != 0;
    return ig_mix64(x);
}

/* The values one column is matched against, in an open-addressing set. */
struct value_set {
    struct ig_values t;
    uint32_t *slot; /* target index + 1, 0 = empty */
    size_t mask;
};

static bool set_has(const struct value_set *s, const struct ig_values *v, size_t i)
{
    for (size_t h = value_hash(v, i) & s->mask;; h = (h + 1) & s->mask) {
        if (!s->slot[h]) return false;
        if (value_matches(v, i, &s->t, s->slot[h] - 1)) return true;
    }
}

/* The values the clauses w[k] naming `column` match, parsed by the column's type
 * into t (which the caller initialises with the column's type): the column must
 * exist and hold comparable values. */
static int where_targets(const struct ig_table *t, const char *column,
                         const struct ig_erase_where *w, size_t nw, struct ig_column_ref *c,
                         struct ig_values *targets, struct ig_error *err)
{
    if (ig_table_column(t, column, strlen(column), c, NULL))
        return ig_err(err, -EINVAL, "no column '%s'", column);
    ig_values_retype(targets, c->rec.type);
    struct ig_buf scratch = IG_BUF_INIT;
    struct ig_error sub = {0};
    int rc = 0;
    for (size_t k = 0; k < nw && !rc; k++) {
        if (strcmp(w[k].column, column)) continue;
        if (c->rec.type == IG_T_BLOB || c->nested)
            rc = ig_err(&sub, -EINVAL, "%s columns cannot be matched by value",
                        c->rec.type == IG_T_BLOB ? "blob" : "nested (list, struct, vector)");
        else if (!strcmp(w[k].value, "\\N"))
            rc = ig_values_push_null(targets);
        else
            rc = ig_parse_value(c->rec.type, w[k].value, strlen(w[k].value), targets, &scratch, &sub);
    }
    ig_buf_free(&scratch);
    if (rc == -ENOMEM) return ig_err(err, rc, "out of memory");
    return rc ? ig_err(err, -EINVAL, "column '%s': %s", column, sub.msg) : 0;
}

int ig_erase_check_where(const struct ig_table *t, const char *column, const char *value,
                         struct ig_error *err)
{
    struct ig_erase_where w = {column, value};
    struct ig_column_ref c;
    struct ig_values targets;
    ig_values_init(&targets, IG_T_INT64);
    int rc = where_targets(t, column, &w, 1, &c, &targets, err);
    ig_values_free(&targets);
    return rc;
}

/* Every live row whose column equals one of the values of the clauses w[k] for
 * which w[k].column is `column`: one scan of the column for all of them. */
static int scan_where(const struct ig_table *t, const char *column, const struct ig_erase_where *w,
                      size_t nw, struct ig_u64vec *out, struct ig_error *err)
{
    struct ig_column_ref c;
    struct value_set set = {0};
    struct ig_values v;
    ig_values_init(&set.t, IG_T_INT64);
    int rc = where_targets(t, column, w, nw, &c, &set.t, err);
    if (rc) {
        ig_values_free(&set.t);
        return rc;
    }
    ig_values_init(&v, c.rec.type);
    size_t cap = 16;
    while (cap < 2 * set.t.n) cap *= 2;
    set.mask = cap - 1;
    set.slot = calloc(cap, sizeof *set.slot);
    rc = set.slot ? 0 : -ENOMEM;
    for (size_t j = 0; j < set.t.n && !rc; j++) {
        size_t h = value_hash(&set.t, j) & set.mask;
        while (set.slot[h]) h = (h + 1) & set.mask;
        set.slot[h] = (uint32_t)(j + 1);
    }
    struct ig_reader r = {0};
    for (uint32_t g = 0; g < t->num_groups && !rc; g++) {
        uint32_t pi, lg, first = 0, count = 0;
        struct ig_grouprec gr;
        ig_table_group(t, g, &pi, &lg);
        const struct ig_part *p = &t->parts[pi];
        rc = ig_part_group(p, lg, &gr, err);
        if (!rc) rc = ig_part_chunk(p, lg, c.rec.leaf, &first, &count, err);
        for (uint32_t pg = first; !rc && pg < first + count; pg++) {
            struct ig_pagerec rec;
            const uint8_t *del;
            rc = ig_reader_load(&r, p, &c, pg, gr.first_row, &rec, &v, &del, err);
            for (size_t i = 0; !rc && i < v.n; i++) {
                if (del && (del[i / 8] >> (i % 8) & 1)) continue;
                if (set_has(&set, &v, i))
                    rc = ig_u64vec_push(out, p->first_row_id + gr.first_row + rec.first_row + i);
            }
        }
    }
    ig_reader_free(&r);
    ig_values_free(&v);
    ig_values_free(&set.t);
    free(set.slot);
    return rc;
}

int ig_erase_resolve(const struct ig_table *t, const struct ig_erase_request *req, uint64_t **ids,
                     size_t *n, struct ig_error *err)
{
    struct ig_u64vec l = {0};
    int rc = 0;
    for (size_t i = 0; i < req->nrows && !rc; i++) {
        if (req->rows[i] >= t->num_rows)
            rc = ig_err(err, -ENOENT, "row %" PRIu64 " does not exist (the table has %" PRIu64
                                      " rows)", req->rows[i], t->num_rows);
        else if (!row_live(t, req->rows[i]))
            rc = ig_err(err, -ENOENT, "row %" PRIu64 " is already erased", req->rows[i]);
        else
            rc = ig_u64vec_push(&l, req->rows[i]);
    }
    for (size_t i = 0; i < req->nwhere && !rc; i++) { /* one scan per distinct column */
        bool seen = false;
        for (size_t k = 0; k < i && !seen; k++) seen = !strcmp(req->where[k].column, req->where[i].column);
        if (!seen) rc = scan_where(t, req->where[i].column, req->where, req->nwhere, &l, err);
    }
    if (rc) {
        free(l.v);
        return rc == -ENOMEM ? ig_err(err, rc, "out of memory") : rc;
    }
    qsort(l.v, l.n, sizeof *l.v, cmp_u64);
    size_t k = 0;
    for (size_t i = 0; i < l.n; i++)
        if (k == 0 || l.v[k - 1] != l.v[i]) l.v[k++] = l.v[i];
    *ids = l.v;
    *n = k;
    return 0;
}

/* ---- planning one part ---------------------------------------------------- */

struct moved {
    uint32_t page;
    struct ig_buf bytes;
};

struct part_plan {
    const struct ig_part *p;
    uint32_t pi;
    uint8_t *nf; /* the new footer, a copy being edited */
    struct moved *moved;
    size_t nmoved;
    uint8_t *touched_groups; /* one byte per group */
};

static uint8_t *page_rec(struct part_plan *pp, uint32_t page)
{
    return pp->nf + pp->p->sec_off[IG_SEC_PAGES] + (uint64_t)page * IG_PG_SIZE;
}

static uint8_t *page_extra(struct part_plan *pp, uint32_t page)
{
    return pp->nf + pp->p->sec_off[IG_SEC_EXTRA] + (uint64_t)page * IG_PX_SIZE;
}

static uint8_t *block_rec(struct part_plan *pp, const struct ig_pagerec *rec, uint32_t b)
{
    return pp->nf + pp->p->sec_off[IG_SEC_BLOCKS] + (uint64_t)(rec->first_block + b) * IG_BLK_SIZE;
}

/* Render killed rows to know how much text they took. */
static uint64_t killed_text(const struct ig_values *v, const uint8_t *kill, struct ig_buf *tmp)
{
    uint64_t total = 0;
    for (size_t i = 0; i < v->n; i++) {
        if (!((kill[i / 8] >> (i % 8)) & 1)) continue;
        ig_buf_reset(tmp);
        if (ig_render_text_value(tmp, v, i) == 0) total += tmp->len + 1;
    }
    return total;
}

/* A block rewritten by this erase: its old record and bytes, its new ones. */
struct block_edit {
    uint32_t b;
    struct ig_pagerec old;
    struct ig_buf old_bytes;
    struct ig_page_built built;
};

/* The rewritten blocks of one page, in block order. */
struct page_edit {
    uint32_t page;
    struct ig_pagerec rec;
    struct block_edit *e;
    size_t n, cap;
};

struct erase_ctx {
    const char *dir;
    struct ig_journal j;
    struct ig_reader r;
    struct ig_values v;
    struct ig_page_built built;
    struct ig_buf tmp, kill_b, del_b;
    struct ig_erase_report *rep;
};

static void page_edit_free(struct page_edit *pe)
{
    for (size_t i = 0; i < pe->n; i++) {
        ig_buf_free(&pe->e[i].old_bytes);
        ig_page_built_free(&pe->e[i].built);
    }
    free(pe->e);
    memset(pe, 0, sizeof *pe);
}

/* Keep x->built as the new form of block b (old record blk, old bytes). */
static int add_edit(struct erase_ctx *x, struct page_edit *pe, uint32_t b, const struct ig_pagerec *blk,
                    const uint8_t *old_bytes)
{
    if (pe->n == pe->cap) {
        size_t cap = pe->cap ? pe->cap * 2 : 4;
        struct block_edit *e = realloc(pe->e, cap * sizeof *e);
        if (!e) return -ENOMEM;
        pe->e = e;
        pe->cap = cap;
    }
    struct block_edit *be = &pe->e[pe->n];
    *be = (struct block_edit){.b = b, .old = *blk, .old_bytes = IG_BUF_INIT, .built = x->built};
    x->built = (struct ig_page_built){0}; /* taken */
    if (ig_buf_append(&be->old_bytes, old_bytes, blk->stored)) {
        ig_page_built_free(&be->built);
        return -ENOMEM;
    }
    pe->n++;
    return 0;
}

/* Journal the bytes where new differs from old over [0, len) (new shorter than
 * old reads as zeros past its end), merged across small gaps. */
static int journal_changes(struct erase_ctx *x, const struct ig_part *p, uint64_t base,
                           const uint8_t *old, size_t old_len, const uint8_t *new, size_t new_len)
{
    size_t len = old_len > new_len ? old_len : new_len;
#define NEW(i) ((i) < new_len ? new[i] : 0)
#define OLD(i) ((i) < old_len ? old[i] : 0)
    for (size_t i = 0; i < len;) {
        if (OLD(i) == NEW(i)) {
            i++;
            continue;
        }
        size_t start = i, last = i;
        for (; i < len; i++)
            if (OLD(i) != NEW(i))
                last = i;
            else if (i - last > 32)
                break;
        size_t n = last - start + 1;
        /* what is past the new end is zeros: journaled as a range, not bytes */
        size_t data = start < new_len ? (last < new_len ? n : new_len - start) : 0;
        if (data && ig_journal_add(&x->j, p->name, base + start, new + start, data)) return -ENOMEM;
        if (n > data && ig_journal_zero(&x->j, p->name, base + start + data, n - data)) return -ENOMEM;
        x->rep->bytes_written += n;
    }
#undef NEW
#undef OLD
    return 0;
}

/* A page whose rewritten blocks no longer all fit: its blocks (new ones where
 * rewritten, the others as they are) laid out afresh, each compressed one with
 * its slack, queued to go after the data; the old extent is zero-filled. */
static int move_page(struct erase_ctx *x, struct part_plan *pp, struct page_edit *pe,
                     struct ig_error *err)
{
    const struct ig_part *p = pp->p;
    const struct ig_pagerec *rec = &pe->rec;
    struct ig_buf whole = IG_BUF_INIT, page_bytes = IG_BUF_INIT;
    int rc = ig_buf_reserve(&page_bytes, rec->stored) ? -ENOMEM : 0;
    if (!rc) rc = ig_pread_full(p->fd, page_bytes.data, rec->stored, rec->offset);
    if (rc) return ig_err(err, rc == -ENOMEM ? rc : -EIO, "%s: page %u: cannot read it to move it", p->path, pe->page);
    uint32_t nb = ig_page_nblocks(rec);
    size_t k = 0;
    for (uint32_t b = 0; b < nb && !rc; b++) {
        struct ig_pagerec blk;
        rc = ig_part_block(p, pe->page, rec, b, &blk, err);
        if (rc) break;
        const uint8_t *bytes = page_bytes.data + (blk.offset - rec->offset);
        size_t len = blk.stored;
        uint8_t comp = blk.compression;
        if (k < pe->n && pe->e[k].b == b) {
            bytes = pe->e[k].built.stored.data;
            len = pe->e[k].built.stored.len;
            comp = pe->e[k].built.compression;
            k++;
        }
        size_t slack = comp == IG_PC_ZSTD ? (len / 128 > 32 ? len / 128 : 32) : 0;
        if (rec->nblocks) ig_st32(block_rec(pp, rec, b) + IG_BLK_OFFSET, (uint32_t)whole.len);
        if (ig_buf_append(&whole, bytes, len) || ig_buf_append_zeros(&whole, rec->nblocks ? slack : 0))
            rc = -ENOMEM;
    }
    ig_buf_free(&page_bytes);
    if (rc) {
        ig_buf_free(&whole);
        return rc == -ENOMEM ? ig_err(err, rc, "out of memory") : rc;
    }
    struct moved *m = realloc(pp->moved, (pp->nmoved + 1) * sizeof *m);
    if (!m) {
        ig_buf_free(&whole);
        return ig_err(err, -ENOMEM, "out of memory");
    }
    pp->moved = m;
    pp->moved[pp->nmoved++] = (struct moved){.page = pe->page, .bytes = whole};
    uint8_t *r = page_rec(pp, pe->page);
    ig_st32(r + IG_PG_STORED, (uint32_t)whole.len);
    r[IG_PG_FLAGS] |= IG_PGF_MOVED;
    x->rep->pages_moved++;
    /* the old extent: zeros, as a range */
    if (ig_journal_zero(&x->j, p->name, rec->offset, rec->capacity)) return ig_err(err, -ENOMEM, "out of memory");
    x->rep->bytes_written += rec->capacity;
    return 0;
}

/* Write a page's rewritten blocks: each into its own extent, journaling only
 * the bytes that changed, unless one no longer fits, then the page moves. The
 * block records (or, for an older part's page, the page record) get the new
 * sizes and checksums, and a page of format 4 the hash of its records. */
static int commit_page_edit(struct erase_ctx *x, struct part_plan *pp, struct page_edit *pe,
                            struct ig_error *err)
{
    if (pe->n == 0) return 0;
    const struct ig_part *p = pp->p;
    const struct ig_pagerec *rec = &pe->rec;
    uint8_t *r = page_rec(pp, pe->page);
    bool fits = true;
    int64_t dent = 0, dval = 0;
    for (size_t i = 0; i < pe->n; i++) {
        struct block_edit *be = &pe->e[i];
        const struct ig_page_built *nb = &be->built;
        fits &= nb->stored.len <= be->old.capacity;
        dent += (int64_t)nb->entry_count - be->old.entry_count;
        dval += (int64_t)nb->value_count - be->old.value_count;
        x->rep->pages_rewritten++;
        if (!rec->nblocks) { /* an older part's page is its one block */
            ig_st32(r + IG_PG_BODY_SIZE, nb->body_size);
            ig_st64(r + IG_PG_CHECKSUM, nb->checksum);
            r[IG_PG_ENCODING] = nb->encoding;
            continue;
        }
        uint8_t *br = block_rec(pp, rec, be->b);
        ig_st32(br + IG_BLK_STORED, (uint32_t)nb->stored.len);
        ig_st32(br + IG_BLK_BODY_SIZE, nb->body_size);
        ig_st32(br + IG_BLK_ENTRY_COUNT, nb->entry_count);
        ig_st32(br + IG_BLK_VALUE_COUNT, nb->value_count);
        br[IG_BLK_ENCODING] = nb->encoding;
        ig_st64(br + IG_BLK_CHECKSUM, nb->checksum);
    }
    ig_st32(r + IG_PG_ENTRY_COUNT, (uint32_t)((int64_t)rec->entry_count + dent));
    ig_st32(r + IG_PG_VALUE_COUNT, (uint32_t)((int64_t)rec->value_count + dval));
    int rc = 0;
    if (!rec->nblocks) {
        ig_st32(r + IG_PG_STORED, (uint32_t)pe->e[0].built.stored.len);
        if (fits) {
            rc = journal_changes(x, p, rec->offset, pe->e[0].old_bytes.data, pe->e[0].old_bytes.len,
                                 pe->e[0].built.stored.data, pe->e[0].built.stored.len);
        } else {
            struct moved *m = realloc(pp->moved, (pp->nmoved + 1) * sizeof *m);
            if (!m) return ig_err(err, -ENOMEM, "out of memory");
            pp->moved = m;
            pp->moved[pp->nmoved++] = (struct moved){.page = pe->page, .bytes = pe->e[0].built.stored};
            pe->e[0].built.stored = (struct ig_buf)IG_BUF_INIT;
            r[IG_PG_FLAGS] |= IG_PGF_MOVED;
            x->rep->pages_moved++;
            rc = ig_journal_zero(&x->j, p->name, rec->offset, rec->capacity) ? -ENOMEM : 0;
            x->rep->bytes_written += rec->capacity;
        }
        return rc ? ig_err(err, rc, "out of memory") : 0;
    }
    if (fits) {
        for (size_t i = 0; i < pe->n && !rc; i++) {
            struct block_edit *be = &pe->e[i];
            rc = journal_changes(x, p, be->old.offset, be->old_bytes.data, be->old_bytes.len,
                                 be->built.stored.data, be->built.stored.len);
        }
        if (rc) return ig_err(err, rc, "out of memory");
    } else {
        rc = move_page(x, pp, pe, err);
        if (rc) return rc;
    }
    const uint8_t *records = block_rec(pp, rec, 0);
    ig_st64(r + IG_PG_CHECKSUM, ig_hash(records, (size_t)rec->nblocks * IG_BLK_SIZE));
    return 0;
}

/* Bits [first, first + n) of src (may be NULL: none) into buf; NULL if none set. */
static const uint8_t *slice(struct ig_buf *buf, const uint8_t *src, size_t first, size_t n)
{
    if (!src) return NULL;
    ig_buf_reset(buf);
    uint8_t *d = ig_buf_extend(buf, (n + 7) / 8 + 1);
    if (!d) return NULL;
    memset(d, 0, (n + 7) / 8 + 1);
    bool any = false;
    for (size_t i = 0; i < n; i++)
        if ((src[(first + i) / 8] >> ((first + i) % 8)) & 1) {
            d[i / 8] |= (uint8_t)(1u << (i % 8));
            any = true;
        }
    return any ? d : NULL;
}

/* Zero-fill the objects referenced by values [v0, v1) of a blob leaf. */
static int zero_objects(struct erase_ctx *x, const struct ig_part *p, const struct ig_values *v,
                        size_t v0, size_t v1, struct ig_error *err)
{
    char blob_name[IG_PART_NAME_MAX];
    snprintf(blob_name, sizeof blob_name, "%.*s.blob", (int)(strlen(p->name) - 6), p->name);
    for (size_t i = v0; i < v1; i++) {
        size_t len;
        const uint8_t *refs = ig_values_bytes(v, i, &len);
        for (size_t k = 0; k < len / IG_BLOB_REF_BYTES; k++) {
            struct ig_blob_ref r;
            ig_blob_ref_load(refs + k * IG_BLOB_REF_BYTES, &r, NULL);
            if (ig_journal_zero(&x->j, blob_name, r.offset, r.size))
                return ig_err(err, -ENOMEM, "out of memory");
            x->rep->bytes_written += r.size;
            x->rep->blob_objects++;
        }
    }
    return 0;
}

/* The rows of `kill` (page-relative) of a flat leaf's page: block by block, only
 * the blocks that hold one are read and rewritten. */
static int erase_page(struct erase_ctx *x, struct part_plan *pp, const struct ig_column_ref *c,
                      uint32_t page, uint64_t group_first_row, const uint8_t *kill,
                      uint32_t nkill, struct ig_error *err)
{
    const struct ig_part *p = pp->p;
    struct page_edit pe = {.page = page};
    int rc = ig_part_page(p, page, &pe.rec, err);
    if (rc) return rc;
    const struct ig_pagerec *rec = &pe.rec;
    uint64_t gone_text = 0;
    uint32_t nb = ig_page_nblocks(rec);
    for (uint32_t b = 0; b < nb && !rc; b++) {
        struct ig_pagerec blk;
        rc = ig_part_block(p, page, rec, b, &blk, err);
        if (rc) break;
        const uint8_t *kb = slice(&x->kill_b, kill, blk.first_row, blk.row_count);
        if (!kb) continue; /* no erased row here: untouched */
        const uint8_t *old_del;
        rc = ig_reader_load_block(&x->r, p, c, page, rec, b, group_first_row, &blk, &x->v, &old_del, err);
        if (rc) break;
        gone_text += killed_text(&x->v, kb, &x->tmp);
        if (c->erase_level == 2 && c->rec.type == IG_T_BLOB) /* objects are zero-filled too */
            for (size_t i = 0; i < x->v.n && !rc; i++)
                if ((kb[i / 8] >> (i % 8)) & 1) rc = zero_objects(x, p, &x->v, i, i + 1, err);
        if (rc || c->erase_level != 2) continue;
        /* level 2: every earlier deleted row of the block was erased */
        rc = ig_page_erase(x->r.stored.data, &blk, c->rec.type, old_del, kb, 3, &x->r.s, &x->built, err);
        if (rc)
            rc = ig_err_prefix(err, rc, "%s: column '%.*s' page %u block %u", p->path,
                               (int)c->rec.name_len, c->rec.name, page, b);
        else if (add_edit(x, &pe, b, &blk, x->r.stored.data))
            rc = ig_err(err, -ENOMEM, "out of memory");
    }
    if (!rc) {
        uint8_t *r = page_rec(pp, page);
        ig_st32(r + IG_PG_DELETED, rec->deleted + nkill);
        ig_st64(r + IG_PG_TEXT_LEN, rec->text_len - gone_text);
        uint8_t *px = page_extra(pp, page);
        uint32_t per = c->rec.dimension ? c->rec.dimension : 1;
        ig_st32(px + IG_PX_LIVE_VALUES, ig_ld32(px + IG_PX_LIVE_VALUES) - nkill * per);
        x->rep->records++;
        rc = commit_page_edit(x, pp, &pe, err);
    }
    page_edit_free(&pe);
    return rc;
}

/* The rows of `kill` of a nested leaf's page (its stored bytes already read and
 * checked: `bytes`), block by block; `deleted` are the page's rows deleted before. */
static int erase_leaf_page(struct erase_ctx *x, struct part_plan *pp, const struct ig_column_ref *c,
                           uint32_t page, const struct ig_pagerec *rec, const uint8_t *bytes,
                           const uint8_t *kill, const uint8_t *deleted, struct ig_error *err)
{
    const struct ig_part *p = pp->p;
    struct page_edit pe = {.page = page, .rec = *rec};
    uint32_t nb = ig_page_nblocks(rec);
    int rc = 0;
    for (uint32_t b = 0; b < nb && !rc; b++) {
        struct ig_pagerec blk;
        rc = ig_part_block(p, page, rec, b, &blk, err);
        if (rc) break;
        const uint8_t *kb = slice(&x->kill_b, kill, blk.first_row, blk.row_count);
        if (!kb) continue;
        const uint8_t *db = slice(&x->del_b, deleted, blk.first_row, blk.row_count);
        const uint8_t *src = bytes + (blk.offset - rec->offset);
        rc = ig_page_erase_leaf(src, &blk, &c->li, kb, db, 3, &x->r.s, &x->built, err);
        if (rc)
            rc = ig_err_prefix(err, rc, "%s: column '%.*s' page %u block %u", p->path,
                               (int)c->rec.name_len, c->rec.name, page, b);
        else if (add_edit(x, &pe, b, &blk, src))
            rc = ig_err(err, -ENOMEM, "out of memory");
    }
    if (!rc) rc = commit_page_edit(x, pp, &pe, err);
    page_edit_free(&pe);
    return rc;
}

/* Bits of rows NOT in kill (to render only the killed rows). */
static uint8_t *complement(const uint8_t *kill, size_t n)
{
    uint8_t *c = malloc((n + 7) / 8 + 1);
    if (!c) return NULL;
    for (size_t i = 0; i < (n + 7) / 8; i++)
        c[i] = (uint8_t)~kill[i];
    return c;
}

/* A nested column: page index by page index, every leaf in lockstep. */
static int erase_nested(struct erase_ctx *x, const struct ig_table *t, struct part_plan *pp,
                        uint32_t pi, uint32_t g, uint32_t col, const uint64_t *rows, size_t nrows,
                        struct ig_error *err)
{
    const struct ig_part *p = pp->p;
    uint32_t gg = g + t->part_first_group[pi];
    struct ig_grouprec gr;
    struct ig_nested_reader nr;
    int rc = ig_part_group(p, g, &gr, err);
    if (!rc) rc = ig_nested_open(&nr, t, col, err);
    if (rc) return rc;
    uint32_t count = 0;
    rc = ig_nested_pages(&nr, t, gg, &count, err);
    struct ig_tree *proj = calloc(nr.tree.nleaves, sizeof *proj);
    if (!proj) rc = ig_err(err, -ENOMEM, "out of memory");
    for (uint32_t l = 0; l < nr.tree.nleaves && !rc; l++)
        rc = ig_tree_from_part(p, col, nr.refs[l].col, &proj[l], err);
    uint8_t *kill = NULL, *keep = NULL;
    size_t k = 0;
    for (uint32_t i = 0; i < count && !rc && k < nrows; i++) {
        uint32_t first0, cnt0;
        struct ig_pagerec r0;
        rc = ig_part_chunk(p, g, nr.refs[0].rec.leaf, &first0, &cnt0, err);
        if (!rc) rc = ig_part_page(p, first0 + i, &r0, err);
        if (rc) break;
        uint64_t lo = gr.first_row + r0.first_row, hi = lo + r0.row_count;
        while (k < nrows && rows[k] < lo) k++;
        if (k == nrows || rows[k] >= hi) continue;
        free(kill);
        free(keep);
        kill = calloc((r0.row_count + 7) / 8 + 1, 1);
        if (!kill) return ig_err(err, -ENOMEM, "out of memory");
        uint32_t nkill = 0;
        for (; k < nrows && rows[k] < hi; k++, nkill++)
            kill[(rows[k] - lo) / 8] |= (uint8_t)(1u << ((rows[k] - lo) % 8));
        keep = complement(kill, r0.row_count);
        struct ig_pagerec rec;
        size_t nr_rows;
        const uint8_t *old_del;
        rc = ig_nested_load(&nr, t, gg, i, &rec, &nr_rows, &old_del, err);
        if (!rc && old_del)
            for (size_t b = 0; b < (nr_rows + 7) / 8; b++) keep[b] |= old_del[b];
        uint64_t gone = 0;
        if (!rc) rc = ig_assemble_lines(&nr.tree, nr.vp, nr_rows, keep, NULL, &gone, err);
        if (!rc) {
            uint8_t *px = page_extra(pp, first0 + i);
            ig_st64(px + IG_PX_NODE_TEXT, ig_ld64(px + IG_PX_NODE_TEXT) - gone);
        }
        for (uint32_t l = 0; l < nr.tree.nleaves && !rc; l++) {
            const struct ig_column_ref *c = &nr.refs[l];
            uint32_t first, cnt;
            struct ig_pagerec rl;
            rc = ig_part_chunk(p, g, c->rec.leaf, &first, &cnt, err);
            if (!rc) rc = ig_part_page(p, first + i, &rl, err);
            uint64_t proj_gone = 0;
            struct ig_values *vp = &nr.vals[l];
            if (!rc) rc = ig_assemble_lines(&proj[l], &vp, nr_rows, keep, NULL, &proj_gone, err);
            if (rc) break;
            uint32_t values_gone = 0;
            for (size_t r = 0; r < nr_rows; r++)
                if ((kill[r / 8] >> (r % 8)) & 1) values_gone += vp->row_val[r + 1] - vp->row_val[r];
            uint8_t *rr = page_rec(pp, first + i), *px = page_extra(pp, first + i);
            ig_st32(rr + IG_PG_DELETED, rl.deleted + nkill);
            ig_st64(rr + IG_PG_TEXT_LEN, rl.text_len - proj_gone);
            ig_st32(px + IG_PX_LIVE_VALUES, ig_ld32(px + IG_PX_LIVE_VALUES) - values_gone);
            x->rep->records++;
            if (c->erase_level != 2) continue;
            if (c->rec.type == IG_T_BLOB)
                for (size_t r = 0; r < nr_rows && !rc; r++)
                    if ((kill[r / 8] >> (r % 8)) & 1)
                        rc = zero_objects(x, p, vp, vp->row_val[r], vp->row_val[r + 1], err);
            if (!rc)
                rc = erase_leaf_page(x, pp, c, first + i, &rl, nr.readers[l].stored.data, kill,
                                     old_del, err);
        }
    }
    free(kill);
    free(keep);
    for (uint32_t l = 0; proj && l < nr.tree.nleaves; l++)
        ig_tree_free(&proj[l]);
    free(proj);
    ig_nested_close(&nr);
    return rc;
}

/* All erased rows of one row group, every leaf column. */
/* Ask the kernel for every page of group g that holds an erased row before
 * reading any: from a cold cache the reads then overlap instead of queueing one
 * behind the other (one page per column: a hundred random reads). Advice only:
 * errors are for the reads themselves to report. */
static void prefetch_group(const struct ig_part *p, uint32_t g, const struct ig_grouprec *gr,
                           const uint64_t *rows, size_t nrows)
{
    for (uint32_t leaf = 0; leaf < p->num_leaves; leaf++) {
        uint32_t first = 0, count = 0;
        if (ig_part_chunk(p, g, leaf, &first, &count, NULL)) continue;
        size_t k = 0;
        for (uint32_t pg = first; pg < first + count && k < nrows; pg++) {
            struct ig_pagerec rec;
            if (ig_part_page(p, pg, &rec, NULL)) break;
            uint64_t lo = gr->first_row + rec.first_row, hi = lo + rec.row_count;
            while (k < nrows && rows[k] < lo)
                k++;
            if (k < nrows && rows[k] < hi)
                (void)posix_fadvise(p->fd, (off_t)rec.offset, (off_t)rec.stored, POSIX_FADV_WILLNEED);
        }
    }
}

static int erase_group(struct erase_ctx *x, const struct ig_table *t, struct part_plan *pp,
                       uint32_t g, const uint64_t *rows, size_t nrows, struct ig_error *err)
{
    const struct ig_part *p = pp->p;
    struct ig_grouprec gr;
    int rc = ig_part_group(p, g, &gr, err);
    if (rc) return rc;
    prefetch_group(p, g, &gr, rows, nrows);
    pp->touched_groups[g] = 1;
    uint8_t *kill = NULL;
    for (uint32_t leaf = 0; leaf < p->num_leaves && !rc; leaf++) {
        uint32_t col = 0, first = 0, count = 0;
        struct ig_column_ref c;
        rc = ig_part_leaf_column(p, leaf, &col, err);
        if (!rc) rc = ig_table_column_at(t, col, &c, err);
        if (!rc && c.nested) {
            /* the whole nested column at its first leaf; skip its other leaves */
            struct ig_column_ref top;
            rc = ig_table_column_at(t, c.top, &top, err);
            if (rc) break;
            uint32_t first_leaf_col;
            rc = ig_part_leaf_column(p, leaf > 0 ? leaf - 1 : 0, &first_leaf_col, err);
            struct ig_column_ref prev;
            bool first_of_column = leaf == 0 || rc ||
                                   ig_table_column_at(t, first_leaf_col, &prev, NULL) || prev.top != c.top;
            rc = 0;
            if (first_of_column) rc = erase_nested(x, t, pp, pp->pi, g, c.top, rows, nrows, err);
            continue;
        }
        if (!rc) rc = ig_part_chunk(p, g, leaf, &first, &count, err);
        size_t k = 0; /* next erased row (rows are part-local, sorted) */
        for (uint32_t pg = first; !rc && pg < first + count && k < nrows; pg++) {
            struct ig_pagerec rec;
            rc = ig_part_page(p, pg, &rec, err);
            if (rc) break;
            uint64_t lo = gr.first_row + rec.first_row, hi = lo + rec.row_count;
            while (k < nrows && rows[k] < lo)
                k++;
            if (k == nrows || rows[k] >= hi) continue;
            free(kill);
            kill = calloc((rec.row_count + 7) / 8, 1);
            if (!kill) return ig_err(err, -ENOMEM, "out of memory");
            uint32_t nkill = 0;
            for (; k < nrows && rows[k] < hi; k++, nkill++) {
                uint64_t i = rows[k] - lo;
                kill[i / 8] |= (uint8_t)(1u << (i % 8));
            }
            rc = erase_page(x, pp, &c, pg, gr.first_row, kill, nkill, err);
        }
    }
    free(kill);
    return rc;
}

/* Byte ranges where two buffers differ, merged across small gaps. */
static int journal_diff(struct erase_ctx *x, const struct ig_part *p, uint64_t base,
                        const uint8_t *old, const uint8_t *new, size_t len)
{
    size_t i = 0;
    while (i < len) {
        if (old[i] == new[i]) {
            i++;
            continue;
        }
        size_t start = i, last = i;
        for (; i < len; i++)
            if (old[i] != new[i])
                last = i;
            else if (i - last > 32)
                break;
        size_t n = last - start + 1;
        if (ig_journal_add(&x->j, p->name, base + start, new + start, n)) return -ENOMEM;
        x->rep->bytes_written += n;
    }
    return 0;
}

static int finish_part(struct erase_ctx *x, struct part_plan *pp, const uint64_t *rows,
                       size_t nrows)
{
    const struct ig_part *p = pp->p;
    uint8_t *nf = pp->nf;
    uint8_t *bm = nf + p->sec_off[IG_SEC_DELETION];
    for (size_t i = 0; i < nrows; i++)
        bm[rows[i] / 8] |= (uint8_t)(1u << (rows[i] % 8));
    ig_st64(nf + IG_HDR_DELETED_ROWS, p->deleted_rows + nrows);
    /* re-hash the touched groups, then the root */
    for (uint32_t g = 0; g < p->num_groups; g++) {
        if (!pp->touched_groups[g]) continue;
        uint8_t *gr = nf + p->sec_off[IG_SEC_GROUPS] + (uint64_t)g * IG_GRP_SIZE;
        uint32_t fp = ig_ld32(gr + IG_GRP_FIRST_PAGE), pc = ig_ld32(gr + IG_GRP_PAGE_COUNT);
        ig_st64(gr + IG_GRP_HASH, ig_footer_group_hash(p, nf, fp, pc));
    }
    uint64_t footer_off = p->footer_offset;
    if (pp->nmoved) {
        /* moved pages go where the footer was; the footer follows them */
        uint64_t at = p->footer_offset;
        for (size_t i = 0; i < pp->nmoved; i++) {
            struct moved *m = &pp->moved[i];
            uint8_t *r = page_rec(pp, m->page);
            ig_st64(r + IG_PG_OFFSET, at);
            ig_st32(r + IG_PG_CAPACITY, (uint32_t)m->bytes.len);
            if (ig_journal_add(&x->j, p->name, at, m->bytes.data, m->bytes.len)) return -ENOMEM;
            x->rep->bytes_written += m->bytes.len;
            at += m->bytes.len;
        }
        footer_off = (at + 7) / 8 * 8;
        /* the moved records changed: hash their groups again */
        for (uint32_t g = 0; g < p->num_groups; g++) {
            uint8_t *gr = nf + p->sec_off[IG_SEC_GROUPS] + (uint64_t)g * IG_GRP_SIZE;
            uint32_t fp = ig_ld32(gr + IG_GRP_FIRST_PAGE), pc = ig_ld32(gr + IG_GRP_PAGE_COUNT);
            ig_st64(gr + IG_GRP_HASH, ig_footer_group_hash(p, nf, fp, pc));
        }
        if (footer_off > at) {
            static const uint8_t pad[8];
            if (ig_journal_add(&x->j, p->name, at, pad, footer_off - at)) return -ENOMEM;
        }
    }
    uint64_t root = ig_merkle_root(nf, nf + p->sec_off[IG_SEC_GROUPS], p->sec_size[IG_SEC_GROUPS], bm,
                                   p->sec_size[IG_SEC_DELETION]);
    uint8_t tail[IG_TAIL_SIZE] = {0};
    ig_st64(tail + IG_TAIL_FOOTER_OFFSET, footer_off);
    ig_st64(tail + IG_TAIL_FOOTER_SIZE, p->footer_size);
    ig_st64(tail + IG_TAIL_ROOT, root);
    ig_st32(tail + IG_TAIL_VERSION, p->version); /* an erase changes no part's version */
    ig_st64(tail + IG_TAIL_GENERATION, p->generation + 1);
    ig_st64(tail + IG_TAIL_HASH, ig_hash(tail, IG_TAIL_HASH));
    memcpy(tail + IG_TAIL_MAGIC, IG_TAIL_MAGIC_STR, 8);
    int rc;
    if (pp->nmoved) {
        rc = ig_journal_add(&x->j, p->name, footer_off, nf, p->footer_size);
        x->rep->bytes_written += p->footer_size;
    } else {
        rc = journal_diff(x, p, footer_off, p->footer, nf, p->footer_size);
    }
    if (!rc) rc = ig_journal_add(&x->j, p->name, footer_off + p->footer_size, tail, sizeof tail);
    x->rep->bytes_written += sizeof tail;
    return rc ? -ENOMEM : 0;
}

static void free_plan(struct part_plan *pp)
{
    free(pp->nf);
    for (size_t i = 0; i < pp->nmoved; i++)
        ig_buf_free(&pp->moved[i].bytes);
    free(pp->moved);
    free(pp->touched_groups);
}

/* Journal every change for the rows of part pi (ids[a..b), global). */
static int plan_part(struct erase_ctx *x, const struct ig_table *t, uint32_t pi,
                     const uint64_t *ids, size_t n, struct ig_error *err)
{
    const struct ig_part *p = &t->parts[pi];
    struct part_plan pp = {.p = p, .pi = pi};
    pp.nf = malloc(p->footer_size);
    pp.touched_groups = calloc(p->num_groups ? p->num_groups : 1, 1);
    uint64_t *local = malloc(n * sizeof *local);
    int rc = pp.nf && pp.touched_groups && local ? 0 : ig_err(err, -ENOMEM, "out of memory");
    if (!rc) {
        /* the whole footer is copied: one request for it, not a fault per page
         * (readers map it MADV_RANDOM for their few lookups) */
        (void)posix_fadvise(p->fd, (off_t)p->footer_offset, (off_t)p->footer_size,
                            POSIX_FADV_WILLNEED);
        memcpy(pp.nf, p->footer, p->footer_size);
        for (size_t i = 0; i < n; i++)
            local[i] = ids[i] - p->first_row_id;
    }
    /* rows are sorted: walk the groups once */
    size_t i = 0;
    for (uint32_t g = 0; !rc && g < p->num_groups && i < n; g++) {
        struct ig_grouprec gr;
        rc = ig_part_group(p, g, &gr, err);
        size_t j = i;
        while (!rc && j < n && local[j] < gr.first_row + gr.row_count)
            j++;
        if (!rc && j > i) rc = erase_group(x, t, &pp, g, local + i, j - i, err);
        i = j;
    }
    if (!rc) rc = finish_part(x, &pp, local, n);
    if (rc == -ENOMEM) ig_err(err, rc, "out of memory");
    free(local);
    free_plan(&pp);
    return rc;
}

/* ---- the audit log ------------------------------------------------------- */

static void audit(const char *dir, const struct ig_erase_request *req,
                  const struct ig_erase_report *rep)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/.ingot/erasures", dir);
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return;
    char when[32];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    /* the request as text, then as one JSON string (column names may hold quotes) */
    struct ig_buf r = IG_BUF_INIT, b = IG_BUF_INIT;
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
    ig_buf_printf(&b, "%s origin=%s host=", when, req->origin ? req->origin : "api");
    ig_render_json_string(&b, (const uint8_t *)host, strlen(host));
    if (req->uid >= 0) ig_buf_printf(&b, " uid=%" PRId64, req->uid);
    if (req->pid > 0) ig_buf_printf(&b, " pid=%" PRId64, req->pid);
    ig_buf_printf(&b, " request=");
    ig_render_json_string(&b, r.data ? r.data : (const uint8_t *)"", r.len);
    ig_buf_free(&r);
    ig_buf_printf(&b, " rows=%" PRIu64 " pages_rewritten=%" PRIu64 " pages_moved=%" PRIu64
                      " page_records=%" PRIu64 " blob_objects_zeroed=%" PRIu64 " bytes_written=%" PRIu64
                      " journal_bytes=%" PRIu64 "\n",
                  rep->rows, rep->pages_rewritten, rep->pages_moved, rep->records, rep->blob_objects,
                  rep->bytes_written, rep->journal_bytes);
    if (ig_write_full(fd, b.data, b.len) == 0) fsync(fd);
    close(fd);
    ig_buf_free(&b);
}

/* Erasing writes the table's files in place: say so plainly when we may not. */
static int check_writable(const char *dir, struct ig_error *err)
{
    if (access(dir, W_OK) == 0) {
        struct ig_manifest m;
        if (ig_manifest_read(dir, &m, NULL)) return 0; /* the open will say what is wrong */
        int rc = 0;
        for (uint32_t i = 0; i < m.n && !rc; i++) {
            char path[4200];
            snprintf(path, sizeof path, "%s/%s", dir, m.parts[i].name);
            if (access(path, W_OK) && errno == EACCES)
                rc = ig_err(err, -EACCES, "%s: no write permission on %s: erasing overwrites the "
                                          "table's part files in place (run as their owner)",
                            dir, m.parts[i].name);
        }
        ig_manifest_free(&m);
        return rc;
    }
    if (errno != EACCES && errno != EROFS) return 0; /* the open will say what is wrong */
    struct stat st;
    uid_t owner = stat(dir, &st) == 0 ? st.st_uid : (uid_t)-1;
    return ig_err(err, errno == EROFS ? -EROFS : -EACCES,
                  "%s: %s: erasing rewrites the table's files in place and needs write "
                  "permission on its directory (owner uid %d)",
                  dir, errno == EROFS ? "read-only file system" : "no write permission",
                  (int)owner);
}

int ig_erase(const char *dir, const struct ig_erase_request *req, struct ig_erase_report *rep,
             struct ig_error *err)
{
    memset(rep, 0, sizeof *rep);
    int wrc = check_writable(dir, err);
    if (wrc) return wrc;
    int lock = ig_table_lock(dir, true, err);
    if (lock < 0) return lock;
    struct erase_ctx x = {.dir = dir, .rep = rep};
    struct ig_table t;
    bool open_ok = false, replayed;
    uint64_t *ids = NULL;
    size_t n = 0;
    struct ig_fault fault;
    ig_fault_init(&fault);
    int rc = ig_journal_recover(dir, &replayed, err);
    if (!rc) rc = ig_table_open(&t, dir, false, err);
    open_ok = rc == 0;
    if (!rc) rc = ig_erase_resolve(&t, req, &ids, &n, err);
    ig_journal_init(&x.j);
    if (!rc) rc = ig_journal_stream(&x.j, dir, err);
    ig_values_init(&x.v, IG_T_INT64);
    size_t a = 0;
    for (uint32_t pi = 0; !rc && pi < t.nparts && a < n; pi++) {
        const struct ig_part *p = &t.parts[pi];
        size_t b = a;
        while (b < n && ids[b] < p->first_row_id + p->num_rows)
            b++;
        if (b > a) rc = plan_part(&x, &t, pi, ids + a, b - a, err);
        a = b;
    }
    if (!rc && n) {
        rep->rows = n;
        rc = ig_journal_generation(&x.j, t.manifest.generation + 1);
        rep->generation = t.manifest.generation + 1;
        rep->journal_bytes = x.j.spilled + x.j.buf.len;
        rc = ig_journal_commit(&x.j, dir, &fault, err);
        if (!rc) rc = ig_journal_apply(dir, &fault, err);
    }
    if (!rc) {
        audit(dir, req, rep);
        ig_fault_step(&fault);
        rep->ids = ids;
        ids = NULL;
    }
    free(ids);
    ig_journal_free(&x.j);
    ig_reader_free(&x.r);
    ig_values_free(&x.v);
    ig_page_built_free(&x.built);
    ig_buf_free(&x.tmp);
    ig_buf_free(&x.kill_b);
    ig_buf_free(&x.del_b);
    if (open_ok) ig_table_close(&t);
    ig_table_unlock(lock);
    return rc;
}
