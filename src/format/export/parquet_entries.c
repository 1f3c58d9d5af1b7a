/* parquet_entries.c - a decoded ingot page's live rows as Parquet shows them:
 * repetition and definition levels, and for each defined entry the value (in
 * a top-level list<blob>, the object within it) and its row. A vector is D
 * entries; deleted rows are left out. Used by the layout for the pages whose
 * entries the footer does not count, and by the renderer for every page. */
#include "parquet_view_int.h"

#include "blob/blob.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Room for `more` entries (levels) and, with values, as many values. */
static int reserve(struct pq_entries *e, size_t more, bool values)
{
    if (e->cap - e->n < more) {
        size_t c = e->cap ? e->cap * 2 : 1024;
        while (c - e->n < more)
            c *= 2;
        uint8_t *r = realloc(e->rep, c), *d = r ? realloc(e->def, c) : NULL;
        if (r) e->rep = r;
        if (d) e->def = d;
        if (!r || !d) return -ENOMEM;
        e->cap = c;
    }
    if (values && e->vcap - e->nval < more) {
        size_t c = e->vcap ? e->vcap * 2 : 1024;
        while (c - e->nval < more)
            c *= 2;
        uint32_t *v = realloc(e->val, c * sizeof *v), *o = v ? realloc(e->obj, c * sizeof *o) : NULL;
        uint64_t *r = o ? realloc(e->row, c * sizeof *r) : NULL;
        if (v) e->val = v;
        if (o) e->obj = o;
        if (r) e->row = r;
        if (!v || !o || !r) return -ENOMEM;
        e->vcap = c;
    }
    return 0;
}

static int entry(struct pq_entries *e, uint8_t rep, uint8_t def)
{
    if (reserve(e, 1, false)) return -ENOMEM;
    e->rep[e->n] = rep;
    e->def[e->n++] = def;
    return 0;
}

static int value(struct pq_entries *e, uint32_t val, uint32_t obj, uint64_t row)
{
    if (reserve(e, 1, true)) return -ENOMEM;
    e->val[e->nval] = val;
    e->obj[e->nval] = obj;
    e->row[e->nval++] = row;
    return 0;
}

/* A present vector of dim values from value vi, in row `row`: its first
 * entry's repetition level rep, the rest max_rep; all defined. At once, not
 * an entry at a time (a view of embeddings is 768 of them a row). */
static int vector(struct pq_entries *e, const struct pq_leaf *l, uint8_t rep, uint32_t vi, uint64_t row)
{
    uint32_t dim = l->dim;
    if (reserve(e, dim, true)) return -ENOMEM;
    e->rep[e->n] = rep;
    memset(e->rep + e->n + 1, l->max_rep, dim - 1);
    memset(e->def + e->n, l->max_def, dim);
    e->n += dim;
    for (uint32_t j = 0; j < dim; j++) {
        e->val[e->nval + j] = vi + j;
        e->obj[e->nval + j] = 0;
        e->row[e->nval + j] = row;
    }
    e->nval += dim;
    return 0;
}

void pqv_entries_free(struct pq_entries *e)
{
    free(e->rep), free(e->def), free(e->val), free(e->obj), free(e->row);
}

static bool bit_set(const uint8_t *bits, size_t i) { return bits && (bits[i / 8] >> (i % 8)) & 1; }

int pqv_live_entries(const struct pq_leaf *l, const struct ig_values *v, const uint8_t *del,
                     struct pq_entries *e)
{
    /* room for every entry at once (a vector's values and its rows' absent
     * entries; a flat page's values): growing by doubling copied them */
    int rc = reserve(e, v->levels ? v->nent + v->n : v->n, true);
    if (rc) return rc;
    if (l->dim && v->levels) { /* a present vector is D Parquet entries, the rest one each */
        for (size_t r = 0; r < v->rows && !rc; r++) {
            if (bit_set(del, r)) continue;
            uint32_t vi = v->row_val[r];
            for (uint32_t k = v->row_ent[r]; k < v->row_ent[r + 1] && !rc; k++) {
                uint8_t rp = v->reps ? v->reps[k] : 0, d = v->defs[k];
                if (d + 1 != l->max_def) { /* NULL or empty here or above */
                    rc = entry(e, rp, d);
                    continue;
                }
                rc = vector(e, l, rp, vi, v->row_base + r);
                vi += l->dim;
            }
        }
    } else if (v->levels) {
        for (size_t r = 0; r < v->rows && !rc; r++) {
            if (bit_set(del, r)) continue;
            uint32_t vi = v->row_val[r];
            for (uint32_t k = v->row_ent[r]; k < v->row_ent[r + 1] && !rc; k++) {
                rc = entry(e, v->reps[k], v->defs[k]);
                if (!rc && v->defs[k] == l->max_def) rc = value(e, vi++, 0, v->row_base + r);
            }
        }
    } else if (l->blob_list) {
        bool nullable = l->max_def == 2;
        for (size_t i = 0; i < v->n && !rc; i++) {
            if (bit_set(del, i)) continue;
            size_t len;
            ig_values_bytes(v, i, &len);
            size_t k = ig_values_is_null(v, i) ? 0 : len / IG_BLOB_REF_BYTES;
            if (ig_values_is_null(v, i)) rc = entry(e, 0, 0);
            else if (!k) rc = entry(e, 0, nullable);
            for (size_t j = 0; j < k && !rc; j++) {
                rc = entry(e, j ? 1 : 0, l->max_def);
                if (!rc) rc = value(e, (uint32_t)i, (uint32_t)j, v->row_base + i);
            }
        }
    } else {
        for (size_t i = 0; i < v->n && !rc; i++) {
            if (bit_set(del, i)) continue;
            bool null = ig_values_is_null(v, i);
            rc = entry(e, 0, null ? 0 : l->max_def);
            if (!rc && !null) rc = value(e, (uint32_t)i, 0, v->row_base + i);
        }
    }
    return rc;
}
