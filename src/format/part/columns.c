#include "format/part/columns.h"
#include "format/model/logical.h"
#include "format/model/types.h"
#include "util/endian.h"
#include "util/error.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ig_colrec_store(uint8_t r[IG_COL_SIZE], const struct ig_column_def *cd, uint32_t name_off,
                     uint32_t page_size)
{
    memset(r, 0, IG_COL_SIZE);
    ig_st32(r + IG_COL_NAME_OFF, name_off);
    ig_st32(r + IG_COL_NAME_LEN, (uint32_t)cd->name_len);
    ig_st32(r + IG_COL_PARENT, cd->parent == IG_SCHEMA_NONE ? IG_NONE : cd->parent);
    ig_st32(r + IG_COL_LEAF, cd->leaf == IG_SCHEMA_NONE ? IG_NONE : cd->leaf);
    r[IG_COL_TYPE] = cd->type;
    r[IG_COL_FLAGS] = (uint8_t)((cd->null_mask & 1 ? IG_COLF_NULLABLE : 0) |
                                (cd->lists ? IG_COLF_REPEATED : 0));
    r[IG_COL_MAX_REP] = cd->max_rep;
    r[IG_COL_MAX_DEF] = cd->max_def;
    r[IG_COL_ENCODING] = cd->encoding;
    r[IG_COL_COMPRESSION] = cd->compression;
    r[IG_COL_ERASE_LEVEL] = cd->erase_level;
    r[IG_COL_QUANTIZE] = cd->quantize;
    ig_st32(r + IG_COL_PAGE_SIZE, page_size);
    ig_st32(r + IG_COL_DIMENSION, cd->dimension);
    ig_st32(r + IG_COL_NUM_CHILDREN, cd->num_children);
    r[IG_COL_LISTS] = cd->lists;
    r[IG_COL_NULL_MASK] = cd->null_mask;
    ig_st32(r + IG_COL_BLOCK_SIZE, cd->block_size);
    r[IG_COL_LOGICAL] = cd->lt.kind;
    r[IG_COL_UNIT] = cd->lt.unit;
    r[IG_COL_LFLAGS] = cd->lt.utc ? IG_COLL_UTC : 0;
    r[IG_COL_PRECISION] = cd->lt.precision;
    r[IG_COL_SCALE] = cd->lt.scale;
    ig_st32(r + IG_COL_WIDTH, cd->lt.width);
}

/* The version's name for record col, or NULL (p->names: a few renamed records). */
static const struct ig_part_names *renamed(const struct ig_part *p, uint32_t col, uint32_t *at)
{
    const struct ig_part_names *nm = p->names;
    if (!nm) return NULL;
    uint32_t lo = 0, hi = nm->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (nm->col[mid] == col) {
            *at = mid;
            return nm;
        }
        if (nm->col[mid] < col)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

int ig_part_column(const struct ig_part *p, uint32_t col, struct ig_colrec *c,
                   struct ig_error *err)
{
    int rc = ig_part_column_stored(p, col, c, err);
    uint32_t at;
    const struct ig_part_names *nm = rc ? NULL : renamed(p, col, &at);
    if (nm) {
        c->name = nm->name[at];
        c->name_len = nm->len[at];
    }
    return rc;
}

int ig_part_column_stored(const struct ig_part *p, uint32_t col, struct ig_colrec *c,
                          struct ig_error *err)
{
    if (col >= p->num_columns)
        return ig_err(err, -EIO, "%s: column %u out of range", p->path, col);
    const uint8_t *r = ig_part_section(p, IG_SEC_COLUMNS) + (uint64_t)col * IG_COL_SIZE;
    uint32_t off = ig_ld32(r + IG_COL_NAME_OFF), len = ig_ld32(r + IG_COL_NAME_LEN);
    if (len == 0 || len > IG_MAX_NAME_LEN || off > p->sec_size[IG_SEC_NAMES] ||
        len > p->sec_size[IG_SEC_NAMES] - off)
        return ig_err(err, -EIO, "%s: corrupt footer: column %u name out of bounds", p->path, col);
    c->name = (const char *)ig_part_section(p, IG_SEC_NAMES) + off;
    c->name_len = len;
    c->parent = ig_ld32(r + IG_COL_PARENT);
    c->leaf = ig_ld32(r + IG_COL_LEAF);
    c->type = r[IG_COL_TYPE];
    c->flags = r[IG_COL_FLAGS];
    c->max_rep = r[IG_COL_MAX_REP];
    c->max_def = r[IG_COL_MAX_DEF];
    c->encoding = r[IG_COL_ENCODING];
    c->compression = r[IG_COL_COMPRESSION];
    c->erase_level = r[IG_COL_ERASE_LEVEL];
    c->quantize = r[IG_COL_QUANTIZE];
    c->page_size = ig_ld32(r + IG_COL_PAGE_SIZE);
    c->dimension = ig_ld32(r + IG_COL_DIMENSION);
    c->num_children = ig_ld32(r + IG_COL_NUM_CHILDREN);
    c->lists = r[IG_COL_LISTS];
    c->null_mask = r[IG_COL_NULL_MASK];
    c->block_size = ig_ld32(r + IG_COL_BLOCK_SIZE);
    c->lt = (struct ig_logical){0};
    if (p->version >= IG_FORMAT_LOGICAL) { /* reserved bytes, zero, before */
        uint8_t lflags = r[IG_COL_LFLAGS];
        c->lt = (struct ig_logical){.kind = r[IG_COL_LOGICAL], .unit = r[IG_COL_UNIT],
                                    .utc = lflags & IG_COLL_UTC, .precision = r[IG_COL_PRECISION],
                                    .scale = r[IG_COL_SCALE], .width = ig_ld32(r + IG_COL_WIDTH)};
        const char *bad = lflags & ~IG_COLL_UTC ? "unknown flags" : ig_logical_check(&c->lt, c->type, c->quantize);
        if (bad)
            return ig_err(err, -EIO, "%s: corrupt footer: column %u's logical type: %s", p->path, col, bad);
    }
    if ((c->parent != IG_NONE && c->parent >= p->num_columns) ||
        (c->leaf != IG_NONE && c->leaf >= p->num_leaves) || c->erase_level > 2)
        return ig_err(err, -EIO, "%s: corrupt footer: column %u record", p->path, col);
    if (c->lists > IG_MAX_LISTS || (c->leaf == IG_NONE) != (c->type == IG_T_STRUCT) ||
        c->dimension > IG_MAX_DIMENSION)
        return ig_err(err, -EIO, "%s: corrupt footer: column %u record", p->path, col);
    if (c->leaf != IG_NONE && !ig_type_is_leaf(c->type))
        return ig_err(err, -EIO, "%s: corrupt footer: column %u has unknown type %u", p->path,
                      col, c->type);
    return 0;
}

int ig_part_find_where(const struct ig_part *p, const char *name, size_t len, bool (*ok)(void *ctx, uint32_t col),
                       void *ctx, uint32_t *col, struct ig_error *err)
{
    /* a record the version renamed answers to its new name only: the first
     * of its names' entries not below name, then those equal to it */
    const struct ig_part_names *nm = p->names;
    uint32_t lo_n = 0, hi_n = nm ? nm->n : 0;
    while (lo_n < hi_n) {
        uint32_t mid = lo_n + (hi_n - lo_n) / 2, e = nm->by_name[mid];
        if (ig_name_cmp(nm->name[e], nm->len[e], name, len) < 0)
            lo_n = mid + 1;
        else
            hi_n = mid;
    }
    for (uint32_t i = lo_n; nm && i < nm->n; i++) {
        uint32_t e = nm->by_name[i];
        if (ig_name_cmp(nm->name[e], nm->len[e], name, len)) break;
        if (!ok || ok(ctx, nm->col[e])) {
            *col = nm->col[e];
            return 0;
        }
    }
    /* the first index entry not below name; from version 10 equal names
     * follow one another in column id order */
    const uint8_t *idx = ig_part_section(p, IG_SEC_NAME_INDEX);
    size_t lo = 0, hi = p->num_columns;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        struct ig_colrec rec;
        int rc = ig_part_column_stored(p, ig_ld32(idx + 4 * mid), &rec, err);
        if (rc) return rc;
        if (ig_name_cmp(rec.name, rec.name_len, name, len) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < p->num_columns; lo++) {
        uint32_t c = ig_ld32(idx + 4 * lo), at;
        struct ig_colrec rec;
        int rc = ig_part_column_stored(p, c, &rec, err);
        if (rc) return rc;
        if (ig_name_cmp(rec.name, rec.name_len, name, len)) break;
        if (!renamed(p, c, &at) && (!ok || ok(ctx, c))) {
            *col = c;
            return 0;
        }
    }
    return -ENOENT;
}

int ig_part_find(const struct ig_part *p, const char *name, size_t len, uint32_t *col,
                 struct ig_error *err)
{
    return ig_part_find_where(p, name, len, NULL, NULL, col, err);
}

uint32_t ig_part_column_span_end(const struct ig_part *p, uint32_t top)
{
    uint32_t end = top + 1;
    struct ig_colrec cr;
    while (end < p->num_columns && ig_part_column(p, end, &cr, NULL) == 0 && cr.parent != IG_NONE)
        end++;
    return end;
}

/* How schema_from names records: as the opened version names them, or as
 * the footer stores them; and what becomes of those `keep` rejects: left
 * out, or kept under a name no input can give (an append's NULLs). */
enum schema_names { NAMES_VERSION, NAMES_STORED };
enum schema_rejects { REJECTS_LEFT_OUT, REJECTS_HIDDEN };
struct records {
    const struct ig_part *p;
    bool (*next_top)(void *ctx, uint32_t *top); /* NULL: every record by id */
    void *ctx;
    uint32_t next, end; /* the next record, the end of the subtree it is in */
};
static int schema_from(const struct ig_part *p, bool (*keep)(void *ctx, uint32_t col), struct records *walk,
                       enum schema_names names, enum schema_rejects rejects, struct ig_schema *s,
                       struct ig_error *err);

/* The next record schema_from takes: by id, or each top next_top gives with
 * its subtree (so parents always come before their fields). */
static bool next_record(struct records *w, uint32_t *c)
{
    if (!w->next_top) {
        if (w->next >= w->p->num_columns) return false;
        *c = w->next++;
        return true;
    }
    while (w->next >= w->end) {
        uint32_t top;
        if (!w->next_top(w->ctx, &top)) return false;
        if (top >= w->p->num_columns) continue;
        w->next = top;
        w->end = ig_part_column_span_end(w->p, top);
    }
    *c = w->next++;
    return true;
}

int ig_schema_from_part(const struct ig_part *p, struct ig_schema *s, struct ig_error *err)
{
    return schema_from(p, NULL, &(struct records){.p = p}, NAMES_VERSION, REJECTS_LEFT_OUT, s, err);
}

int ig_schema_from_part_stored(const struct ig_part *p, struct ig_schema *s, struct ig_error *err)
{
    return schema_from(p, NULL, &(struct records){.p = p}, NAMES_STORED, REJECTS_LEFT_OUT, s, err);
}

int ig_schema_from_part_hiding(const struct ig_part *p, bool (*shows)(void *ctx, uint32_t col), void *ctx,
                               struct ig_schema *s, struct ig_error *err)
{
    return schema_from(p, shows, &(struct records){.p = p, .ctx = ctx}, NAMES_VERSION, REJECTS_HIDDEN, s, err);
}

int ig_schema_from_part_where(const struct ig_part *p, bool (*keep)(void *ctx, uint32_t col),
                              bool (*next_top)(void *ctx, uint32_t *top), void *ctx, struct ig_schema *s,
                              struct ig_error *err)
{
    return schema_from(p, keep, &(struct records){.p = p, .next_top = next_top, .ctx = ctx}, NAMES_VERSION,
                       REJECTS_LEFT_OUT, s, err);
}

static int schema_from(const struct ig_part *p, bool (*keep)(void *ctx, uint32_t col), struct records *walk,
                       enum schema_names names, enum schema_rejects rejects, struct ig_schema *s,
                       struct ig_error *err)
{
    memset(s, 0, sizeof *s);
    void *ctx = walk->ctx;
    /* a kept record's node index (parents are renumbered when records are left out) */
    uint32_t *node = malloc((p->num_columns ? p->num_columns : 1) * sizeof *node);
    int rc = node ? 0 : ig_err(err, -ENOMEM, "out of memory");
    if (node) memset(node, 0xff, (p->num_columns ? p->num_columns : 1) * sizeof *node); /* IG_SCHEMA_NONE */
    uint32_t top = 0, top_len = 0; /* the current top-level record, its name's length */
    char hidden[IG_MAX_NAME_LEN + 16];
    for (uint32_t c; !rc && next_record(walk, &c);) {
        struct ig_colrec r;
        rc = names == NAMES_STORED ? ig_part_column_stored(p, c, &r, err) : ig_part_column(p, c, &r, err);
        if (rc) break;
        if (r.parent != IG_NONE && r.parent >= c) {
            rc = ig_err(err, -EIO, "%s: corrupt footer: column %u's parent follows it", p->path, c);
            break;
        }
        if (r.parent == IG_NONE) top = c, top_len = r.name_len;
        bool hide = keep && !keep(ctx, c);
        if (hide) {
            if (rejects == REJECTS_LEFT_OUT) continue;
            /* DEL and the top record's id, then the field's own path: a name
             * no CSV header or JSON key of an append gives */
            int n = snprintf(hidden, sizeof hidden, "\x7f%u", top);
            size_t field = c == top || r.name_len < top_len ? 0 : r.name_len - top_len;
            memcpy(hidden + n, r.name + top_len, field);
            r.name = hidden;
            r.name_len = (uint32_t)(n + field);
        }
        if (r.parent != IG_NONE && node[r.parent] == IG_SCHEMA_NONE) continue; /* under a record left out */
        node[c] = s->n;
        /* nodes are added raw (type already checked by ig_part_column) */
        struct ig_error sub = {0};
        unsigned type = r.type == IG_T_STRUCT ? IG_T_BOOL : r.type; /* placeholder for add */
        rc = ig_schema_add(s, r.name, r.name_len, type, r.flags & IG_COLF_NULLABLE, &sub);
        if (rc) {
            rc = ig_err(err, -EIO, "%s: column %u: %s", p->path, c, sub.msg);
            break;
        }
        struct ig_column_def *cd = &s->cols[s->n - 1];
        cd->type = r.type;
        cd->hidden = hide;
        cd->parent = r.parent == IG_NONE ? IG_SCHEMA_NONE : node[r.parent];
        cd->num_children = r.num_children;
        cd->lists = r.lists;
        cd->null_mask = r.null_mask;
        cd->nullable = r.null_mask & 1;
        cd->page_size = r.page_size;
        cd->block_size = r.block_size;
        cd->encoding = r.encoding;
        cd->compression = r.compression;
        cd->erase_level = r.erase_level;
        cd->quantize = r.quantize;
        cd->dimension = r.dimension;
        cd->lt = r.lt;
    }
    free(node);
    if (!rc) {
        struct ig_error sub = {0};
        /* stored names may repeat (a renamed column's old name taken by a new
         * one); so may a hidden record's made-up name and a shown one */
        s->names_repeat = names == NAMES_STORED || rejects == REJECTS_HIDDEN;
        rc = ig_schema_finish(s, &sub);
        if (rc) rc = ig_err(err, -EIO, "%s: %s", p->path, sub.msg);
    }
    if (rc) ig_schema_free(s);
    return rc;
}

int ig_tree_from_part(const struct ig_part *p, uint32_t top_col, uint32_t only,
                      struct ig_tree *t, struct ig_error *err)
{
    /* the column's nodes follow it in pre-order until the next top-level node */
    uint32_t end = top_col + 1;
    struct ig_colrec cr;
    while (end < p->num_columns && ig_part_column(p, end, &cr, NULL) == 0 && cr.parent != IG_NONE)
        end++;
    if (ig_tree_init(t, end - top_col)) return ig_err(err, -ENOMEM, "out of memory");
    uint32_t *local = calloc(end - top_col, sizeof *local);
    if (!local) {
        ig_tree_free(t);
        return ig_err(err, -ENOMEM, "out of memory");
    }
    int rc = 0;
    uint32_t only_col = only;
    for (uint32_t i = top_col; i < end && !rc; i++) {
        local[i - top_col] = UINT32_MAX;
        rc = ig_part_column(p, i, &cr, err);
        if (rc) break;
        if (i != top_col && (cr.parent < top_col || cr.parent >= i)) {
            rc = ig_err(err, -EIO, "%s: corrupt footer: column %u's parent is not before it", p->path, i);
            break;
        }
        if (only_col != UINT32_MAX) {
            /* keep the path to `only` and everything below it */
            bool keep = false;
            struct ig_colrec k = {0};
            for (uint32_t kk = only_col, guard = 0; kk != IG_NONE && guard < 64 && !keep; guard++) {
                keep = kk == i;
                if (ig_part_column(p, kk, &k, NULL)) break;
                kk = k.parent;
            }
            for (uint32_t kk = i, guard = 0; kk != IG_NONE && guard < 64 && !keep; guard++) {
                keep = kk == only_col;
                if (ig_part_column(p, kk, &k, NULL)) break;
                kk = k.parent;
            }
            if (!keep) continue;
        }
        struct ig_tree_node *nd = &t->nodes[t->n];
        /* field name: after the parent's path and a dot */
        nd->field = cr.name;
        nd->field_len = cr.name_len;
        if (i != top_col) {
            struct ig_colrec pr;
            if (ig_part_column(p, cr.parent, &pr, NULL) == 0 && pr.name_len + 1 < cr.name_len) {
                nd->field = cr.name + pr.name_len + 1;
                nd->field_len = cr.name_len - pr.name_len - 1;
            }
        }
        nd->type = cr.type;
        nd->lists = cr.lists;
        nd->null_mask = cr.null_mask;
        nd->max_def = cr.max_def;
        nd->quantize = cr.quantize;
        nd->dimension = cr.dimension;
        nd->parent = i == top_col ? UINT32_MAX : local[cr.parent - top_col];
        if (i != top_col && nd->parent == UINT32_MAX) continue; /* parent pruned: cannot happen */
        if (cr.type != IG_T_STRUCT) t->leaf_global[t->nleaves++] = cr.leaf;
        local[i - top_col] = t->n++;
    }
    free(local);
    if (rc) {
        ig_tree_free(t);
        return rc;
    }
    ig_tree_finish(t);
    return 0;
}

bool ig_part_column_released(const struct ig_part *p, uint32_t col)
{
    uint32_t end = ig_part_column_span_end(p, col);
    for (uint32_t c = col; c < end; c++) {
        struct ig_colrec cr;
        if (ig_part_column(p, c, &cr, NULL)) return false;
        if (cr.leaf != IG_NONE) return ig_part_leaf_released(p, cr.leaf);
    }
    return false;
}
