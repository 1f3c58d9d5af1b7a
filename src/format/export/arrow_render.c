/* arrow_render.c - the bytes of one piece of an Arrow view, rendered from
 * its page(s) (see arrow_view_int.h). */
#include "arrow_view_int.h"

#include "format/model/names.h"
#include "format/ops/nested.h"
#include "format/model/types.h"
#include "util/endian.h"
#include "util/error.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- rendering ------------------------------------------------------------ */

struct bits {
    uint8_t *o;
    uint64_t i, cap; /* cap: the piece's bits */
    bool over;       /* more bits than the piece holds: the layout's counts are wrong */
};

static void put_bit(struct bits *b, bool on)
{
    if (b->i >= b->cap) {
        b->over = true;
        return;
    }
    if (on) b->o[b->i / 8] |= (uint8_t)(1u << (b->i % 8));
    b->i++;
}

/* A bitmap over the whole chunk: row validity, bool values or list elements' validity. */
static int render_bits(const struct ig_table *t, const struct ig_arv *v, const struct acol *a,
                       const struct ig_arv_piece *pc, struct ig_reader *r, uint8_t *o, struct ig_error *err)
{
    const struct ig_part *p = &t->parts[v->part];
    struct bits b = {o, 0, pc->len * 8, false};
    struct page pg;
    ig_values_init(&pg.v, IG_T_INT64);
    int rc = 0;
    for (uint32_t page = pc->page; !rc && page < pc->page + pc->npages; page++) {
        struct ig_pagerec rec;
        if ((rc = ig_part_page(p, page, &rec, err))) break;
        if (rec.row_count == rec.deleted) continue;
        if (pc->kind == IG_ARV_VALID && !arv_needs_counts(a, &rec)) { /* no NULL here */
            for (uint32_t k = 0; k < rec.row_count - rec.deleted && b.i < b.cap; k++) put_bit(&b, true);
            continue;
        }
        uint32_t col = a->shape == IG_ARV_JSON ? a->leaf_col : a->col; /* JSON: its first leaf's levels */
        if ((rc = arv_load(t, v->part, v->group_first_row, col, page, r, &pg, err))) break;
        const struct ig_values *x = &pg.v;
        /* a row gives one bit, or one an element (a level's list): not one an
         * entry, since a NULL or empty list is an entry and no element */
        for (size_t row = 0; row < rec.row_count && !b.over; row++) {
            if (arv_bit_set(pg.del, row)) continue;
            if (pc->kind != IG_ARV_VALID && pc->kind != IG_ARV_STRUCT_VALID && pc->kind != IG_ARV_BOOL &&
                !x->levels) {
                b.over = true; /* elements without levels: not a layout this view makes */
                break;
            }
            if (pc->kind == IG_ARV_VALID) {
                put_bit(&b, !arv_row_null(a, x, row));
            } else if (pc->kind == IG_ARV_STRUCT_VALID) { /* the struct is there from level pc->level */
                put_bit(&b, x->defs[x->row_ent[row]] >= pc->level);
            } else if (pc->kind == IG_ARV_BOOL) {
                put_bit(&b, !arv_row_null(a, x, row) && x->lanes[arv_value_at(a, x, row)]);
            } else if (pc->kind == IG_ARV_ELEM_VALID) {
                for (uint32_t e = x->row_ent[row]; e < x->row_ent[row + 1]; e++)
                    if (x->defs[e] > arv_list_empty_def(a)) put_bit(&b, x->defs[e] == a->c.max_def);
            } else if (pc->kind == IG_ARV_SLOT_STRUCT_VALID) { /* a list of structs: each element's struct (or
                                                                  the struct in it there from pc->level) */
                uint8_t there = pc->level ? pc->level : a->slot_struct_def;
                for (uint32_t e = x->row_ent[row]; e < x->row_ent[row + 1]; e++)
                    if (a->nlists > 1 ? arv_begins(a, 1, x->reps[e], x->defs[e]) : x->defs[e] > arv_list_empty_def(a))
                        put_bit(&b, x->defs[e] >= there);
            } else if (pc->kind == IG_ARV_LEVEL_VALID) { /* level k's lists: NULL at their null_def */
                for (uint32_t e = x->row_ent[row]; e < x->row_ent[row + 1]; e++)
                    if (arv_begins(a, pc->level, x->reps[e], x->defs[e])) put_bit(&b, x->defs[e] >= a->empty_def[pc->level]);
            } else { /* a list of bools: a NULL element's bit is 0 */
                uint32_t vi = x->row_val[row];
                for (uint32_t e = x->row_ent[row]; e < x->row_ent[row + 1]; e++) {
                    if (x->defs[e] <= arv_list_empty_def(a)) continue;
                    bool on = x->defs[e] == a->c.max_def && x->lanes[vi];
                    vi += x->defs[e] == a->c.max_def;
                    put_bit(&b, on);
                }
            }
        }
        if (b.over)
            rc = ig_err(err, -EIO, "%s: column %u page %u: more values than the layout counted", p->path, a->col,
                        page);
    }
    ig_values_free(&pg.v);
    return rc;
}

static void put_lane(uint8_t *o, uint64_t lane, unsigned width)
{
    switch (width) {
    case 1: *o = (uint8_t)lane; break;
    case 2: ig_st16(o, (uint16_t)lane); break;
    case 4: ig_st32(o, (uint32_t)lane); break;
    default: ig_st64(o, lane); break;
    }
}

/* A list of strings' page: its elements' offsets or bytes into o (pc->len bytes). */
static int render_list_bytes(const struct acol *a, const struct ig_arv_piece *pc, const struct page *pg, uint8_t *o)
{
    const struct ig_values *x = &pg->v;
    uint64_t at = 0, next = pc->base;
    for (size_t row = 0; row < pg->rec.row_count; row++) {
        if (arv_bit_set(pg->del, row)) continue;
        uint32_t vi = x->row_val[row];
        for (uint32_t e = x->row_ent[row]; e < x->row_ent[row + 1]; e++) {
            if (x->defs[e] <= arv_list_empty_def(a)) continue;
            size_t len = 0;
            const uint8_t *bytes = x->defs[e] == a->c.max_def ? ig_values_bytes(x, vi++, &len) : NULL;
            if (pc->kind == IG_ARV_ELEM_OFFSETS) {
                if (at + 4 > pc->len) return -EIO;
                ig_st32(o + at, (uint32_t)next);
                at += 4;
                next += len;
            } else if (len) {
                if (at + len > pc->len) return -EIO;
                memcpy(o + at, bytes, len);
                at += len;
            }
        }
    }
    return at == pc->len ? 0 : -EIO;
}

/* One object's share of a blob piece at o + *at: its path's offset (kind
 * `offsets`; *next the running byte count), its path's bytes, or its size
 * (8 bytes). -EIO past the piece's end. */
static int put_object(const struct ig_arv_piece *pc, uint8_t offsets, uint8_t *o, uint64_t *at, uint64_t *next,
                      const char *path, size_t len, uint64_t size)
{
    uint64_t need = pc->kind == IG_ARV_BYTES ? len : pc->kind == offsets ? 4 : 8;
    if (*at + need > pc->len) return -EIO;
    if (pc->kind == offsets) {
        ig_st32(o + *at, (uint32_t)*next);
        *next += len;
    } else if (pc->kind == IG_ARV_BYTES) {
        memcpy(o + *at, path, len);
    } else {
        ig_st64(o + *at, size);
    }
    *at += need;
    return 0;
}

/* A blob column's page: its paths' offsets or bytes, or its sizes, into o (pc->len bytes, zeroed). */
static int render_blob_page(const struct acol *a, const struct ig_arv_piece *pc, const struct page *pg, uint8_t *o)
{
    const struct ig_values *x = &pg->v;
    char dir[800], path[900];
    ig_blob_dir_name(a->c.name, a->c.name_len, dir, sizeof dir);
    uint64_t at = 0, next = pc->base;
    for (size_t row = 0; row < pg->rec.row_count; row++) {
        if (arv_bit_set(pg->del, row)) continue;
        struct ig_blob_ref ref = {0};
        unsigned kind = 0;
        bool obj = arv_blob_ref(a, x, row, &ref, &kind);
        size_t len = obj ? arv_blob_path(a, path, sizeof path, dir, x->row_base + row, kind) : 0;
        if (put_object(pc, IG_ARV_OFFSETS, o, &at, &next, path, len, obj ? ref.size : 0)) return -EIO;
    }
    return at == pc->len ? 0 : -EIO;
}

/* A list of objects' page: its rows' offsets, its objects' path offsets or
 * bytes, or their sizes, into o (pc->len bytes, zeroed). */
static int render_blob_list_page(const struct acol *a, const struct ig_arv_piece *pc, const struct page *pg,
                                 uint8_t *o)
{
    const struct ig_values *x = &pg->v;
    if (x->levels != a->blob_levels) return -EIO; /* not the layout arv_shown() expects */
    char dir[800], path[900];
    ig_blob_dir_name(a->c.name, a->c.name_len, dir, sizeof dir);
    uint64_t at = 0, next = pc->base;
    for (size_t row = 0; row < pg->rec.row_count; row++) {
        if (arv_bit_set(pg->del, row)) continue;
        if (a->blob_levels) { /* an object a value: NULL elements take a slot with no path */
            if (pc->kind == IG_ARV_OFFSETS) { /* the row's first level-1 item, then its items counted (objects, or
                                                 a list's struct slots' lists of them) */
                if (at + 4 > pc->len) return -EIO;
                ig_st32(o + at, (uint32_t)next);
                at += 4;
                for (uint32_t e = x->row_ent[row]; e < x->row_ent[row + 1]; e++)
                    next += arv_begins(a, 1, x->reps[e], x->defs[e]);
                continue;
            }
            uint32_t vi = x->row_val[row];
            for (uint32_t e = x->row_ent[row]; e < x->row_ent[row + 1]; e++) {
                if (x->defs[e] <= arv_list_empty_def(a)) continue;
                struct ig_blob_ref ref = {0};
                unsigned kind = 0;
                size_t plen = 0, len = 0;
                if (x->defs[e] == a->c.max_def) {
                    const uint8_t *one = ig_values_bytes(x, vi, &len);
                    if (len == IG_BLOB_REF_BYTES) {
                        ig_blob_ref_load(one, &ref, &kind);
                        plen = arv_object_path(path, sizeof path, dir, x->row_base + row, vi - x->row_val[row], kind);
                    }
                    vi++;
                }
                if (put_object(pc, IG_ARV_ELEM_OFFSETS, o, &at, &next, path, plen, ref.size)) return -EIO;
            }
            continue;
        }
        size_t len = 0;
        const uint8_t *refs = ig_values_is_null(x, row) ? NULL : ig_values_bytes(x, row, &len);
        size_t k = len / IG_BLOB_REF_BYTES;
        if (pc->kind == IG_ARV_OFFSETS) {
            if (at + 4 > pc->len) return -EIO;
            ig_st32(o + at, (uint32_t)next);
            at += 4;
            next += k;
            continue;
        }
        for (size_t j = 0; j < k; j++) {
            struct ig_blob_ref ref;
            unsigned kind;
            ig_blob_ref_load(refs + j * IG_BLOB_REF_BYTES, &ref, &kind);
            size_t plen = arv_object_path(path, sizeof path, dir, x->row_base + row, j, kind);
            if (put_object(pc, IG_ARV_ELEM_OFFSETS, o, &at, &next, path, plen, ref.size)) return -EIO;
        }
    }
    return at == pc->len ? 0 : -EIO;
}

/* A list of lists' page: its level-k lists' offsets into level k + 1 (k >= 1). */
static int render_level_offsets(const struct acol *a, const struct ig_arv_piece *pc, const struct page *pg, uint8_t *o)
{
    const struct ig_values *x = &pg->v;
    unsigned k = pc->level;
    if (!k || k >= a->nlists) return -EIO;
    uint64_t at = 0, next = pc->base;
    for (size_t row = 0; row < pg->rec.row_count; row++) {
        if (arv_bit_set(pg->del, row)) continue;
        for (uint32_t e = x->row_ent[row]; e < x->row_ent[row + 1]; e++) {
            if (arv_begins(a, k, x->reps[e], x->defs[e])) {
                if (at + 4 > pc->len) return -EIO;
                ig_st32(o + at, (uint32_t)next);
                at += 4;
            }
            next += arv_begins(a, k + 1, x->reps[e], x->defs[e]);
        }
    }
    return at == pc->len ? 0 : -EIO;
}

/* A page's values, offsets or bytes into o (pc->len bytes, zeroed). */
static int render_page(const struct acol *a, const struct ig_arv_piece *pc, const struct page *pg, uint8_t *o)
{
    if (a->shape == IG_ARV_BLOB) return render_blob_page(a, pc, pg, o);
    if (pc->kind == IG_ARV_LEVEL_OFFSETS) return render_level_offsets(a, pc, pg, o);
    if (a->shape == IG_ARV_BLOB_LIST) return render_blob_list_page(a, pc, pg, o);
    if (a->shape == IG_ARV_LIST && (pc->kind == IG_ARV_ELEM_OFFSETS || pc->kind == IG_ARV_BYTES))
        return render_list_bytes(a, pc, pg, o);
    const struct ig_values *x = &pg->v;
    uint64_t at = 0, next = pc->base;
    uint32_t w = pc->width;
    uint32_t lanes = a->c.dimension ? a->c.dimension : 1, slot = w * lanes; /* a list's element */
    for (size_t row = 0; row < pg->rec.row_count; row++) {
        if (arv_bit_set(pg->del, row)) continue;
        bool null = arv_row_null(a, x, row);
        uint64_t need;
        size_t len = 0;
        const uint8_t *bytes = NULL;
        if (pc->kind == IG_ARV_OFFSETS) {
            need = 4;
        } else if (pc->kind == IG_ARV_BYTES) {
            if (!null) bytes = ig_values_bytes(x, arv_value_at(a, x, row), &len);
            need = len;
        } else if (a->shape == IG_ARV_VECTOR) {
            need = (uint64_t)w * a->c.dimension;
        } else if (a->shape == IG_ARV_LIST) {
            need = 0;
            for (uint32_t e = x->row_ent[row]; e < x->row_ent[row + 1]; e++) need += x->defs[e] > arv_list_empty_def(a) ? slot : 0;
        } else {
            need = w;
        }
        if (at + need > pc->len) return -EIO;
        if (pc->kind == IG_ARV_OFFSETS) {
            ig_st32(o + at, (uint32_t)next);
            if (a->shape == IG_ARV_LIST) { /* the row's level-1 items: lists, or elements */
                for (uint32_t e = x->row_ent[row]; e < x->row_ent[row + 1]; e++) next += arv_begins(a, 1, x->reps[e], x->defs[e]);
            } else if (!null) {
                ig_values_bytes(x, arv_value_at(a, x, row), &len);
                next += len;
            }
        } else if (pc->kind == IG_ARV_BYTES) {
            if (len) memcpy(o + at, bytes, len);
        } else if (a->shape == IG_ARV_VECTOR) {
            for (uint32_t k = 0; !null && k < a->c.dimension; k++) put_lane(o + at + 4 * k, x->lanes[x->row_val[row] + k], 4);
        } else if (a->shape == IG_ARV_LIST) {
            uint32_t vi = x->row_val[row], k = 0;
            for (uint32_t e = x->row_ent[row]; e < x->row_ent[row + 1]; e++) {
                if (x->defs[e] <= arv_list_empty_def(a)) continue;
                for (uint32_t j = 0; x->defs[e] == a->c.max_def && j < lanes; j++)
                    put_lane(o + at + (uint64_t)slot * k + (uint64_t)w * j, x->lanes[vi++], w);
                k++;
            }
        } else if (!null) {
            put_lane(o + at, x->lanes[arv_value_at(a, x, row)], w);
        }
        at += need;
    }
    return at == pc->len ? 0 : -EIO;
}

/* A JSON column's page (its first leaf's page pc->page): the rows
 * reassembled, one line each, as offsets (from pc->base) or bytes; a NULL
 * row ("null") holds none. */
static int render_json(const struct ig_table *t, const struct ig_arv *v, const struct acol *a,
                       const struct ig_arv_piece *pc, uint8_t *o, struct ig_error *err)
{
    const struct ig_part *p = &t->parts[v->part];
    uint32_t pi, lg, first, count;
    struct ig_colrec leaf;
    int rc = ig_table_group(t, v->group, &pi, &lg) ? ig_err(err, -EIO, "no row group %u", v->group) : 0;
    if (!rc) rc = ig_part_column(p, a->leaf_col, &leaf, err);
    if (!rc) rc = ig_part_chunk(p, lg, leaf.leaf, &first, &count, err);
    if (!rc && (pc->page < first || pc->page >= first + count))
        rc = ig_err(err, -EIO, "%s: column %u: page %u is not in row group %u", p->path, a->col, pc->page, v->group);
    if (rc) return rc;
    struct ig_nested_reader nr;
    rc = ig_nested_open(&nr, t, a->col, err);
    if (rc) return rc;
    struct ig_nested_page np = {.group = v->group, .index = pc->page - first};
    struct ig_buf lines = IG_BUF_INIT;
    rc = ig_nested_load(&nr, t, &np, err);
    if (!rc) rc = ig_assemble_lines(&nr.tree, nr.vp, np.rows, np.deleted, &lines, NULL, err);
    uint64_t at = 0, next = pc->base;
    for (size_t i = 0; !rc && i < lines.len;) {
        const uint8_t *line = lines.data + i, *nl = memchr(line, '\n', lines.len - i);
        size_t len = nl ? (size_t)(nl - line) : lines.len - i;
        i += len + 1;
        if (a->nullable && len == 4 && !memcmp(line, "null", 4)) len = 0; /* a NULL row */
        uint64_t need = pc->kind == IG_ARV_OFFSETS ? 4 : len;
        if (at + need > pc->len) {
            rc = -EIO;
        } else if (pc->kind == IG_ARV_OFFSETS) {
            ig_st32(o + at, (uint32_t)next);
            next += len;
        } else if (len) {
            memcpy(o + at, line, len);
        }
        at += need;
    }
    if (rc == -EIO || (!rc && at != pc->len))
        rc = ig_err(err, -EIO, "%s: column %u page %u: its rows' JSON does not fit its Arrow piece (the footer's "
                    "text length is wrong)", p->path, a->col, pc->page);
    ig_buf_free(&lines);
    ig_nested_close(&nr);
    return rc;
}

int ig_arv_render(const struct ig_table *t, const struct ig_arv *v, const struct ig_arv_piece *pc,
                  struct ig_reader *r, struct ig_buf *out, struct ig_error *err)
{
    uint8_t *o = ig_buf_extend(out, pc->len);
    if (!o) return ig_err(err, -ENOMEM, "out of memory");
    memset(o, 0, pc->len);
    size_t base = out->len - pc->len;
    if (pc->kind == IG_ARV_ZERO) return 0;
    if (pc->kind == IG_ARV_END) {
        if (pc->len != 4) return ig_err(err, -EIO, "Arrow view: a closing offset of %llu bytes", (unsigned long long)pc->len);
        ig_st32(o, (uint32_t)pc->base);
        return 0;
    }
    const struct ig_part *p = &t->parts[v->part];
    struct acol a = {.col = pc->col};
    int rc = ig_part_column(p, pc->col, &a.c, err);
    if (!rc && !arv_shown(p, pc->col, &a.c, &a))
        rc = ig_err(err, -EIO, "%s: column %u is not in the Arrow view", p->path, pc->col);
    if (!rc && pc->kind == IG_ARV_TREE_BUF) { /* a tree column's buffer: its arrays built again */
        struct tree *tr = malloc(sizeof *tr);
        if (!tr) rc = ig_err(err, -ENOMEM, "out of memory");
        else if (a.shape != IG_ARV_TREE || !arv_tree_build(p, pc->col, &a.c, tr))
            rc = ig_err(err, -EIO, "%s: column %u is not a tree in the Arrow view", p->path, pc->col);
        else
            rc = arv_tree_render(t, v, tr, pc->level, pc->width, r, o, pc->len, err);
        free(tr);
    } else if (!rc && pc->kind < IG_ARV_FIXED) { /* the bitmaps */
        a.count = pc->npages;
        rc = render_bits(t, v, &a, pc, r, o, err);
    } else if (!rc && a.shape == IG_ARV_JSON) {
        rc = render_json(t, v, &a, pc, o, err);
    } else if (!rc) {
        struct page pg;
        ig_values_init(&pg.v, IG_T_INT64);
        rc = arv_load(t, v->part, v->group_first_row, pc->col, pc->page, r, &pg, err);
        if (!rc && render_page(&a, pc, &pg, o))
            rc = ig_err(err, -EIO, "%s: column %u page %u: does not fit its Arrow piece (the footer's counts are wrong)",
                        p->path, pc->col, pc->page);
        ig_values_free(&pg.v);
    }
    if (rc) out->len = base;
    return rc;
}
