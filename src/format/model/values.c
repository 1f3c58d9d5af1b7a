#include "format/model/values.h"
#include "format/model/types.h"
#include "util/endian.h"
#include "util/error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void ig_values_init(struct ig_values *v, uint8_t type)
{
    memset(v, 0, sizeof *v);
    v->type = type;
    const struct ig_type_info *ti = ig_type_info(type);
    v->is_bytes = ti && ti->phys == IG_PHYS_BYTES;
}

void ig_values_reset(struct ig_values *v)
{
    v->n = 0;
    v->has_nulls = false;
    ig_buf_reset(&v->data);
    if (v->offs) v->offs[0] = 0;
    v->nent = 0;
    v->rows = 0;
    if (v->row_ent) v->row_ent[0] = v->row_val[0] = 0;
}

void ig_values_set_levels(struct ig_values *v, uint32_t per_value)
{
    v->levels = true;
    v->per_value = per_value ? per_value : 1;
    ig_values_reset(v);
}

/* Room for n more level entries (reps and defs grow together, doubling). */
static int reserve_entries(struct ig_values *v, size_t n)
{
    if (v->nent + n <= v->ent_cap) return 0;
    size_t cap = v->ent_cap ? v->ent_cap : 256;
    while (cap < v->nent + n)
        cap *= 2;
    uint8_t *r = realloc(v->reps, cap), *d = realloc(v->defs, cap);
    if (r) v->reps = r;
    if (d) v->defs = d;
    if (!r || !d) return -ENOMEM;
    v->ent_cap = cap;
    return 0;
}

int ig_values_push_entry(struct ig_values *v, uint8_t rep, uint8_t def)
{
    if (reserve_entries(v, 1)) return -ENOMEM;
    v->reps[v->nent] = rep;
    v->defs[v->nent] = def;
    v->nent++;
    return 0;
}

/* Room in the row index for `need` entries (doubling; the first row starts at 0). */
static int reserve_rows(struct ig_values *v, size_t need)
{
    if (need <= v->row_cap) return 0;
    size_t cap = v->row_cap ? v->row_cap : 256;
    while (cap < need)
        cap *= 2;
    uint32_t *e = realloc(v->row_ent, cap * sizeof *e), *x = realloc(v->row_val, cap * sizeof *x);
    if (e) v->row_ent = e;
    if (x) v->row_val = x;
    if (!e || !x) return -ENOMEM;
    if (v->row_cap == 0) v->row_ent[0] = v->row_val[0] = 0;
    v->row_cap = cap;
    return 0;
}

int ig_values_end_row(struct ig_values *v)
{
    if (reserve_rows(v, v->rows + 2)) return -ENOMEM;
    v->rows++;
    v->row_ent[v->rows] = (uint32_t)v->nent;
    v->row_val[v->rows] = (uint32_t)v->n;
    return 0;
}

void ig_values_free(struct ig_values *v)
{
    free(v->lanes);
    free(v->offs);
    free(v->valid);
    free(v->reps);
    free(v->defs);
    free(v->row_ent);
    free(v->row_val);
    ig_buf_free(&v->data);
    uint8_t t = v->type;
    const char *dir = v->blob_dir;
    bool list = v->blob_list, levels = v->levels;
    uint32_t per = v->per_value;
    struct ig_logical lt = v->lt;
    ig_values_init(v, t);
    v->lt = lt;
    v->blob_dir = dir;
    v->blob_list = list;
    v->levels = levels;
    v->per_value = per;
}

static int grow_valid(struct ig_values *v, size_t nbits)
{
    size_t need = (nbits + 7) / 8;
    if (need <= v->valid_cap) return 0;
    size_t cap = v->valid_cap ? v->valid_cap : 64;
    while (cap < need)
        cap *= 2;
    uint8_t *p = realloc(v->valid, cap);
    if (!p) return -ENOMEM;
    memset(p + v->valid_cap, 0, cap - v->valid_cap);
    v->valid = p;
    v->valid_cap = cap;
    return 0;
}

void ig_values_retype(struct ig_values *v, uint8_t type)
{
    v->type = type;
    v->lt = (struct ig_logical){0};
    const struct ig_type_info *ti = ig_type_info(type);
    v->is_bytes = ti && ti->phys == IG_PHYS_BYTES;
    v->cap = v->is_bytes ? v->offs_cap : v->lanes_cap;
    ig_values_reset(v);
}

int ig_values_reserve(struct ig_values *v, size_t n)
{
    size_t have = v->is_bytes ? v->offs_cap : v->lanes_cap;
    if (n <= have && have) {
        v->cap = have;
        return 0;
    }
    size_t cap = have ? have : 256;
    while (cap < n)
        cap *= 2;
    if (v->is_bytes) {
        uint64_t *o = realloc(v->offs, (cap + 1) * sizeof *o);
        if (!o) return -ENOMEM;
        if (!v->offs) o[0] = 0;
        v->offs = o;
        v->offs_cap = cap;
    } else {
        uint64_t *l = realloc(v->lanes, cap * sizeof *l);
        if (!l) return -ENOMEM;
        v->lanes = l;
        v->lanes_cap = cap;
    }
    v->cap = cap;
    if (v->has_nulls) return grow_valid(v, cap);
    return 0;
}

static inline void set_valid(struct ig_values *v, size_t i, bool present)
{
    if (present)
        v->valid[i / 8] |= (uint8_t)(1u << (i % 8));
    else
        v->valid[i / 8] &= (uint8_t)~(1u << (i % 8));
}

int ig_values_push_lane(struct ig_values *v, uint64_t lane)
{
    if (v->n >= v->lanes_cap) {
        int rc = ig_values_reserve(v, v->n + 1);
        if (rc) return rc;
    }
    v->lanes[v->n] = lane;
    if (v->has_nulls) set_valid(v, v->n, true);
    v->n++;
    return 0;
}

int ig_values_push_le(struct ig_values *v, const uint8_t *p, unsigned width, size_t count, bool sign_extend)
{
    if (v->n + count > v->lanes_cap && ig_values_reserve(v, v->n + count)) return -ENOMEM;
    uint64_t *o = v->lanes + v->n;
    for (size_t i = 0; i < count; i++, p += width) {
        uint64_t lane = width == 1 ? p[0] : width == 2 ? ig_ld16(p) : width == 4 ? ig_ld32(p) : ig_ld64(p);
        if (sign_extend && width < 8 && (lane >> (8 * width - 1)) & 1) lane |= ~0ull << (8 * width);
        o[i] = lane;
    }
    if (v->has_nulls)
        for (size_t i = 0; i < count; i++) set_valid(v, v->n + i, true);
    v->n += count;
    return 0;
}

int ig_values_push_lanes(struct ig_values *v, const uint64_t *lanes, size_t count)
{
    if (v->n + count > v->lanes_cap && ig_values_reserve(v, v->n + count)) return -ENOMEM;
    if (count) memcpy(v->lanes + v->n, lanes, count * sizeof *lanes);
    if (v->has_nulls)
        for (size_t i = 0; i < count; i++) set_valid(v, v->n + i, true);
    v->n += count;
    return 0;
}

int ig_values_commit_list_row(struct ig_values *v, size_t n, uint8_t def)
{
    if (n == 0 || v->n + n > v->lanes_cap) return -EINVAL;
    if (reserve_entries(v, n)) return -ENOMEM;
    v->reps[v->nent] = 0;
    memset(v->reps + v->nent + 1, 1, n - 1);
    memset(v->defs + v->nent, def, n);
    v->nent += n;
    if (v->has_nulls)
        for (size_t i = 0; i < n; i++) set_valid(v, v->n + i, true);
    v->n += n;
    return ig_values_end_row(v);
}

int ig_values_push_bytes_run(struct ig_values *v, const uint64_t *offs, const uint8_t *base, size_t count)
{
    if (!count) return 0;
    if (v->n + count > v->offs_cap && ig_values_reserve(v, v->n + count)) return -ENOMEM;
    uint64_t at = v->data.len, first = offs[0];
    if (ig_buf_append(&v->data, base + first, offs[count] - first)) return -ENOMEM;
    for (size_t i = 1; i <= count; i++)
        v->offs[v->n + i] = at + (offs[i] - first);
    if (v->has_nulls)
        for (size_t i = 0; i < count; i++) set_valid(v, v->n + i, true);
    v->n += count;
    return 0;
}

int ig_values_push_bytes_coded(struct ig_values *v, const struct ig_values *dict, const uint32_t *codes,
                               size_t n)
{
    if (!n) return 0;
    const uint64_t *doffs = dict->offs;
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += doffs[codes[i] + 1] - doffs[codes[i]];
    if (v->n + n > v->offs_cap && ig_values_reserve(v, v->n + n)) return -ENOMEM;
    if (ig_buf_reserve(&v->data, total)) return -ENOMEM;
    const uint8_t *src = dict->data.data;
    uint8_t *dst = v->data.data;
    uint64_t at = v->data.len, *offs = v->offs + v->n;
    for (size_t i = 0; i < n; i++) {
        uint64_t a = doffs[codes[i]], l = doffs[codes[i] + 1] - a;
        if (l) memcpy(dst + at, src + a, l);
        at += l;
        offs[i + 1] = at;
    }
    v->data.len = at;
    if (v->has_nulls)
        for (size_t i = 0; i < n; i++) set_valid(v, v->n + i, true);
    v->n += n;
    return 0;
}

int ig_values_push_level_rows(struct ig_values *v, const uint8_t *reps, const uint8_t *defs, size_t nent,
                              uint8_t max_def)
{
    if (!nent) return 0;
    if ((reps && reps[0] != 0) || reserve_entries(v, nent)) return reps && reps[0] ? -EINVAL : -ENOMEM;
    if (reps)
        memcpy(v->reps + v->nent, reps, nent);
    else
        memset(v->reps + v->nent, 0, nent);
    memcpy(v->defs + v->nent, defs, nent);
    /* room for every row these entries end first (a row starts at each
     * repetition level 0), then one pass over locals: the entries are bytes,
     * which may alias anything, so fields updated in the loop were stored and
     * reloaded for every entry */
    size_t more = 0;
    for (size_t i = 0; i < nent; i++)
        more += !reps || reps[i] == 0;
    if (reserve_rows(v, v->rows + more + 2)) return -ENOMEM;
    size_t per = v->per_value ? v->per_value : 1, n = v->n, ent = v->nent, rows = v->rows;
    uint32_t *row_ent = v->row_ent, *row_val = v->row_val;
    for (size_t i = 0; i < nent; i++) {
        n += defs[i] == max_def ? per : 0;
        ent++;
        if (i + 1 == nent || !reps || reps[i + 1] == 0) { /* the row ends here */
            rows++;
            row_ent[rows] = (uint32_t)ent;
            row_val[rows] = (uint32_t)n;
        }
    }
    v->nent = ent;
    v->rows = rows;
    return 0;
}

int ig_values_push_bytes(struct ig_values *v, const void *p, size_t len)
{
    if (v->n >= v->offs_cap) {
        int rc = ig_values_reserve(v, v->n + 1);
        if (rc) return rc;
    }
    /* room already there (nearly always: the buffer is kept from group to
     * group): copied here, not through ig_buf_append and ig_buf_reserve, two
     * calls a value that cost an import of strings more than the copy */
    struct ig_buf *d = &v->data;
    if (len && d->data && len <= d->cap - d->len) {
        memcpy(d->data + d->len, p, len);
        d->len += len;
    } else if (len) {
        int rc = ig_buf_append(d, p, len);
        if (rc) return rc;
    }
    v->offs[v->n + 1] = d->len;
    if (v->has_nulls) set_valid(v, v->n, true);
    v->n++;
    return 0;
}

/* The first NULL: materialise the bitmap with everything so far present. */
static int materialise_validity(struct ig_values *v)
{
    if (v->has_nulls) return 0;
    int rc = grow_valid(v, v->cap > v->n ? v->cap : v->n + 1);
    if (rc) return rc;
    memset(v->valid, 0, v->valid_cap);
    memset(v->valid, 0xFF, v->n / 8);
    for (size_t i = v->n / 8 * 8; i < v->n; i++)
        set_valid(v, i, true);
    v->has_nulls = true;
    return 0;
}

int ig_values_set_null(struct ig_values *v, size_t i)
{
    int rc = materialise_validity(v);
    if (rc) return rc;
    if (i < v->n) set_valid(v, i, false);
    return 0;
}

int ig_values_push_null(struct ig_values *v)
{
    int rc = materialise_validity(v);
    if (rc) return rc;
    rc = v->is_bytes ? ig_values_push_bytes(v, NULL, 0) : ig_values_push_lane(v, 0);
    if (rc) return rc;
    set_valid(v, v->n - 1, false);
    return 0;
}

int ig_values_set_validity(struct ig_values *v, const uint8_t *bits, size_t n)
{
    if (!bits) {
        v->has_nulls = false;
        return 0;
    }
    int rc = grow_valid(v, n);
    if (rc) return rc;
    memcpy(v->valid, bits, (n + 7) / 8);
    v->has_nulls = true;
    return 0;
}

/* src's values from..from+count after dst's (flat part: lanes or bytes, validity). */
static int append_values(struct ig_values *dst, const struct ig_values *src, size_t from, size_t count)
{
    size_t n0 = dst->n;
    if (ig_values_reserve(dst, n0 + count)) return -ENOMEM;
    if (src->is_bytes) {
        size_t base = dst->data.len;
        uint64_t first = count ? src->offs[from] : 0;
        if (count && ig_buf_append(&dst->data, src->data.data + first,
                                   (size_t)(src->offs[from + count] - first)))
            return -ENOMEM;
        for (size_t i = 0; i < count; i++)
            dst->offs[n0 + i + 1] = base + (src->offs[from + i + 1] - first);
    } else if (count) {
        memcpy(dst->lanes + n0, src->lanes + from, count * sizeof *src->lanes);
    }
    if (src->has_nulls || dst->has_nulls) {
        if (materialise_validity(dst) || grow_valid(dst, n0 + count)) return -ENOMEM;
        for (size_t i = 0; i < count; i++)
            set_valid(dst, n0 + i, !ig_values_is_null(src, from + i));
    }
    dst->n = n0 + count;
    return 0;
}

int ig_values_push_null_rows(struct ig_values *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (v->levels ? ig_values_push_entry(v, 0, 0) || ig_values_end_row(v) : ig_values_push_null(v)) return -ENOMEM;
    return 0;
}

int ig_values_append_rows(struct ig_values *dst, const struct ig_values *src, size_t from, size_t count)
{
    if (src->levels || dst->levels || from > src->n || count > src->n - from) return -EINVAL;
    return append_values(dst, src, from, count);
}

int ig_values_append(struct ig_values *dst, const struct ig_values *src)
{
    size_t n0 = dst->n;
    if (append_values(dst, src, 0, src->n)) return -ENOMEM;
    if (!src->levels) return 0;
    /* levels: entries, then the row index shifted by what dst held */
    size_t e0 = dst->nent, r0 = dst->rows;
    if (reserve_entries(dst, src->nent)) return -ENOMEM;
    memcpy(dst->reps + e0, src->reps, src->nent);
    memcpy(dst->defs + e0, src->defs, src->nent);
    dst->nent = e0 + src->nent;
    if (reserve_rows(dst, r0 + src->rows + 1)) return -ENOMEM;
    for (size_t r = 1; r <= src->rows; r++) {
        dst->row_ent[r0 + r] = (uint32_t)(e0 + src->row_ent[r]);
        dst->row_val[r0 + r] = (uint32_t)(n0 + src->row_val[r]);
    }
    dst->rows = r0 + src->rows;
    return 0;
}

/* ---- levels ---------------------------------------------------------------- */

int ig_levels_index(struct ig_values *v, uint8_t max_def, size_t keep, struct ig_error *err)
{
    uint32_t per = v->per_value ? v->per_value : 1;
    v->rows = 0;
    if (v->nent && v->reps[0] != 0) return ig_err(err, -EIO, "levels: the first entry continues a row");
    /* one pass, room for a row an entry: every entry writes the slot of the
     * row it would begin and a row begins only where rep is 0, so the slot
     * is overwritten until one does (no branch on the levels, which in a
     * block of short lists go either way at random); this runs for every
     * block a row read decodes */
    if (reserve_rows(v, v->nent + 1)) return ig_err(err, -ENOMEM, "out of memory");
    const uint8_t *reps = v->reps, *defs = v->defs;
    uint32_t *row_ent = v->row_ent, *row_val = v->row_val;
    size_t rows = 0, vals = 0, nent = v->nent;
    uint8_t above = 0;
    for (size_t e = 0; e < nent; e++) {
        bool begins = reps[e] == 0;
        if (begins && rows == keep) { /* a row past the ones wanted: the rest are dropped */
            nent = e;
            break;
        }
        row_ent[rows] = (uint32_t)e;
        row_val[rows] = (uint32_t)vals;
        rows += begins;
        above |= defs[e] > max_def;
        vals += defs[e] == max_def ? per : 0;
    }
    v->rows = rows;
    if (above) return ig_err(err, -EIO, "levels: definition level above the maximum");
    row_ent[rows] = (uint32_t)nent;
    row_val[rows] = (uint32_t)vals;
    if (nent < v->nent) { /* rows dropped: the values they defined too */
        if (vals > v->n) return ig_err(err, -EIO, "levels: %zu values defined, %zu stored", vals, v->n);
        v->nent = nent;
        v->n = vals;
        return 0;
    }
    if (vals != v->n) return ig_err(err, -EIO, "levels: %zu values defined, %zu stored", vals, v->n);
    return 0;
}
