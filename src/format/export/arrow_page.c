/* arrow_page.c - one decoded page of a column the Arrow view shows, read row
 * by row (arrow_view_int.h): loaded and checked against its record, its
 * rows' NULLs, items, objects and their mount paths, and its counts for the
 * layout (live rows, NULLs, elements, bytes, levels seen). */
#include "arrow_view_int.h"

#include "format/model/names.h"
#include "util/error.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

int arv_load(const struct ig_table *t, uint32_t part, uint64_t group_first_row, uint32_t col, uint32_t page,
                struct ig_reader *r, struct page *pg, struct ig_error *err)
{
    struct ig_column_ref ref;
    int rc = ig_table_column_at(t, col, &ref, err);
    if (!rc) rc = ig_reader_load(r, &(struct ig_page_at){&t->parts[part], &ref, page, group_first_row}, &pg->rec, &pg->v, &pg->del, err);
    if (rc) return rc;
    pg->v.blob_dir = NULL; /* ref's copy dies here */
    uint64_t rows = pg->v.levels ? pg->v.rows : pg->v.n;
    if (rows != pg->rec.row_count)
        return ig_err(err, -EIO, "%s: column %u page %u: %llu rows decoded, the footer says %u", t->parts[part].path, col,
                      page, (unsigned long long)rows, pg->rec.row_count);
    return 0;
}


/* Does the entry (rep, d) begin an item at level m of a list column: a list
 * of level m (1 <= m < nlists), or an element (m == nlists)? Level 0's items
 * are the rows. */
bool arv_begins(const struct acol *a, unsigned m, uint8_t rep, uint8_t d)
{
    if (m == a->nlists) return d > a->empty_def[m - 1];
    return rep <= m && d >= a->null_def[m];
}

/* Row r's object of a blob column (a struct's member: its value where the
 * levels say it is there): false for a NULL (or a reference list that is not
 * one object, which rows/ID shows as null too). */
bool arv_blob_ref(const struct acol *a, const struct ig_values *v, size_t r, struct ig_blob_ref *ref,
                     unsigned *kind)
{
    size_t i = r;
    if (a->member) {
        if (!v->levels || v->defs[v->row_ent[r]] < a->c.max_def) return false;
        i = v->row_val[r];
    } else if (ig_values_is_null(v, r)) {
        return false;
    }
    size_t len;
    const uint8_t *p = ig_values_bytes(v, i, &len);
    if (len != IG_BLOB_REF_BYTES) return false;
    ig_blob_ref_load(p, ref, kind);
    return true;
}

/* The object's path as rows/ID shows it: DIR/ROW.EXT (a struct's member, a
 * value of a nested column: DIR/ROW/0.EXT); its length. */
size_t arv_blob_path(const struct acol *a, char *out, size_t cap, const char *dir, uint64_t row, unsigned kind)
{
    if (a->member) return arv_object_path(out, cap, dir, row, 0, kind);
    const char *ext = ig_blob_kind_ext(kind);
    int n = snprintf(out, cap, "%s/%" PRIu64 "%s%s", dir, row, *ext ? "." : "", ext);
    return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}

/* Object k of a row of a list of objects, as rows/ID shows it: DIR/ROW/K.EXT. */
size_t arv_object_path(char *out, size_t cap, const char *dir, uint64_t row, size_t k, unsigned kind)
{
    const char *ext = ig_blob_kind_ext(kind);
    int n = snprintf(out, cap, "%s/%" PRIu64 "/%zu%s%s", dir, row, k, *ext ? "." : "", ext);
    return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}

bool arv_row_null(const struct acol *a, const struct ig_values *v, size_t r)
{
    if (a->shape == IG_ARV_JSON) return a->nullable && v->levels && v->defs[v->row_ent[r]] == 0;
    struct ig_blob_ref ref;
    unsigned kind;
    if (a->shape == IG_ARV_BLOB) return !arv_blob_ref(a, v, r, &ref, &kind);
    if (a->shape == IG_ARV_BLOB_LIST && a->blob_levels) return v->defs[v->row_ent[r]] < a->empty_def[0];
    if (a->shape == IG_ARV_FLAT || a->shape == IG_ARV_BLOB_LIST) return ig_values_is_null(v, r);
    uint8_t d = v->defs[v->row_ent[r]];
    return a->shape == IG_ARV_VECTOR || a->shape == IG_ARV_MEMBER ? d < a->c.max_def : d < a->empty_def[0];
}

/* Where row r's value is in v: a flat leaf's row, a member's value index. */
size_t arv_value_at(const struct acol *a, const struct ig_values *v, size_t r)
{
    return a->shape == IG_ARV_MEMBER ? v->row_val[r] : r;
}

/* A struct's first leaf, whose levels say where the struct is NULL. */
const struct acol *arv_first_leaf(const struct acol *a)
{
    while ((a->shape == IG_ARV_STRUCT || a->shape == IG_ARV_LIST_STRUCT) && a->nkids) a = &a->kids[0];
    return a;
}

/* A list of structs' member: one struct slot at level d (its struct NULL
 * below slot_struct_def; the level kept for structs inside it). */
static void count_slot(const struct acol *a, uint8_t d, struct pstat *s)
{
    s->struct_nulls += d < a->slot_struct_def;
    s->slot_defs[d < AV_DEFS ? d : AV_DEFS - 1]++;
}

/* The lists of levels 1 .. nlists - 1 the entry (rep, d) begins, counted
 * (with their NULLs; level 1 of a list's struct member: its struct slots). */
static void arv_level_counts(const struct acol *a, uint8_t rep, uint8_t d, struct pstat *s)
{
    for (unsigned k = 1; k < a->nlists; k++)
        if (arv_begins(a, k, rep, d)) {
            s->slots[k]++;
            s->slot_nulls[k] += d < a->empty_def[k];
            if (k == 1 && a->in_list) count_slot(a, d, s);
        }
}

void arv_page_counts(const struct acol *a, const struct page *pg, struct pstat *s)
{
    const struct ig_values *v = &pg->v;
    *s = (struct pstat){0};
    char dir[800] = "", path[900];
    if (a->shape == IG_ARV_BLOB || a->shape == IG_ARV_BLOB_LIST) ig_blob_dir_name(a->c.name, a->c.name_len, dir, sizeof dir);
    for (size_t r = 0; r < pg->rec.row_count; r++) {
        if (arv_bit_set(pg->del, r)) continue;
        s->live++;
        bool null = arv_row_null(a, v, r);
        s->nulls += null;
        if (a->shape == IG_ARV_LIST) {
            uint32_t vi = v->row_val[r];
            for (uint32_t e = v->row_ent[r]; e < v->row_ent[r + 1]; e++) {
                arv_level_counts(a, v->reps[e], v->defs[e], s);
                if (v->defs[e] <= arv_list_empty_def(a)) continue;
                if (a->in_list && a->nlists == 1) count_slot(a, v->defs[e], s);
                s->elems++;
                s->elem_nulls += v->defs[e] != a->c.max_def;
                if (v->defs[e] == a->c.max_def && v->is_bytes) {
                    size_t len;
                    ig_values_bytes(v, vi, &len);
                    s->bytes += len;
                }
                vi += v->defs[e] == a->c.max_def;
            }
        } else if ((a->shape == IG_ARV_FLAT || a->shape == IG_ARV_MEMBER) && !a->width && a->tt != AT_BOOL &&
                   !null) {
            size_t len;
            ig_values_bytes(v, arv_value_at(a, v, r), &len);
            s->bytes += len;
        }
        if (a->member) { /* where the structs around it are NULL (count_struct) */
            uint8_t d = v->defs[v->row_ent[r]];
            s->row_defs[d < AV_DEFS ? d : AV_DEFS - 1]++;
        }
        struct ig_blob_ref ref;
        unsigned kind;
        if (a->shape == IG_ARV_BLOB && !null && arv_blob_ref(a, v, r, &ref, &kind))
            s->bytes += arv_blob_path(a, path, sizeof path, dir, v->row_base + r, kind);
        if (a->shape == IG_ARV_BLOB_LIST && !null && !v->levels) {
            size_t len;
            const uint8_t *refs = ig_values_bytes(v, r, &len);
            for (size_t k = 0; k < len / IG_BLOB_REF_BYTES; k++, s->elems++) {
                ig_blob_ref_load(refs + k * IG_BLOB_REF_BYTES, &ref, &kind);
                s->bytes += arv_object_path(path, sizeof path, dir, v->row_base + r, k, kind);
            }
        } else if (a->shape == IG_ARV_BLOB_LIST && !null) { /* elements as entries; K counts the row's objects */
            uint32_t vi = v->row_val[r];
            for (uint32_t e = v->row_ent[r]; e < v->row_ent[r + 1]; e++) {
                arv_level_counts(a, v->reps[e], v->defs[e], s); /* a list's struct slots' lists of objects */
                if (v->defs[e] <= arv_list_empty_def(a)) continue;
                if (a->in_list && a->nlists == 1) count_slot(a, v->defs[e], s);
                s->elems++;
                if (v->defs[e] != a->c.max_def) {
                    s->elem_nulls++;
                    continue;
                }
                size_t len;
                const uint8_t *one = ig_values_bytes(v, vi, &len);
                if (len == IG_BLOB_REF_BYTES) {
                    ig_blob_ref_load(one, &ref, &kind);
                    s->bytes += arv_object_path(path, sizeof path, dir, v->row_base + r, vi - v->row_val[r], kind);
                }
                vi++;
            }
        }
    }
    if (a->shape == IG_ARV_VECTOR) s->elems = s->live * a->c.dimension;
}
