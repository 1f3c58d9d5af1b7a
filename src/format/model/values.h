/* values.h - a batch of one leaf column's values in memory.
 *
 * The writer fills one per column for a row group; page decoding fills one per
 * page. Fixed-width values live in `lanes` (uint64, see codec.h for the lane
 * convention), variable-length ones in offs[n+1] + data. The validity bitmap is
 * materialised only once the first NULL arrives (has_nulls). */
#ifndef IG_FORMAT_VALUES_H
#define IG_FORMAT_VALUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "format/model/types.h"
#include "util/buf.h"

struct ig_values {
    uint8_t type;      /* enum ig_type */
    bool is_bytes;
    /* what the values mean (a date's int32 days): how they render. Set by
     * whoever knows the column (the writer from the schema, a decoder from
     * the leaf); kept by ig_values_reset and ig_values_free, cleared by
     * ig_values_retype (values reused for another column). */
    struct ig_logical lt;
    size_t n;          /* values held */
    size_t cap;        /* values that fit without growing (the current kind's buffer) */
    size_t lanes_cap;  /* entries allocated in lanes */
    size_t offs_cap;   /* entries allocated in offs, minus one */
    uint64_t *lanes;
    uint64_t *offs;
    struct ig_buf data;
    uint8_t *valid;    /* bit i = 1 when value i is present; NULL until has_nulls */
    size_t valid_cap;  /* bytes */
    bool has_nulls;
    /* for rendering blob references as mount paths: the row id of value 0 and
     * the column's directory ("blobs/NAME") */
    uint64_t row_base;
    const char *blob_dir;
    bool blob_list; /* list<blob>: render an array */

    /* Nested leaves (lists, structs, vectors): one (rep, def) entry per level
     * pair; values (above) only for entries defined down to the leaf, `per_value`
     * lanes each (a vector's dimension, else 1). Rows are counted separately. */
    bool levels;
    uint32_t per_value;
    uint8_t *reps, *defs;
    size_t nent, ent_cap;
    size_t rows;
    uint32_t *row_ent, *row_val; /* entry and value index at each row start; rows + 1 */
    size_t row_cap;
};

void ig_values_init(struct ig_values *v, uint8_t type);
void ig_values_reset(struct ig_values *v); /* n = 0, keeps memory, keeps type */
/* n = 0 and a new type, keeping memory (decoders reuse one ig_values for any column). */
void ig_values_retype(struct ig_values *v, uint8_t type);
void ig_values_free(struct ig_values *v);
int ig_values_reserve(struct ig_values *v, size_t n); /* capacity for n values total */

int ig_values_push_lane(struct ig_values *v, uint64_t lane);
/* count little-endian integers of `width` bytes (1, 2, 4, 8) from p, as lanes:
 * zero- or sign-extended (float bits zero-extended). A vector row of a .npy
 * file in one call. */
int ig_values_push_le(struct ig_values *v, const uint8_t *p, unsigned width, size_t count, bool sign_extend);
/* count lanes as they are (a decoded column's values in one call). */
int ig_values_push_lanes(struct ig_values *v, const uint64_t *lanes, size_t count);
int ig_values_push_bytes(struct ig_values *v, const void *p, size_t len);
int ig_values_push_null(struct ig_values *v);
/* n rows of NULL: one level entry at the top (definition level 0) each when v
 * has levels, else n null values (a column that is absent from an input). */
int ig_values_push_null_rows(struct ig_values *v, size_t n);

/* Pushes into room made beforehand: after ig_values_reserve(v, v->n + k)
 * succeeds, up to k values may go in with these (or any other push) without
 * growth checks on lanes, offsets or validity (reserve grows the bitmap with
 * the values once it exists, and the first NULL sizes it to the capacity). An
 * importer converting many rows at a time makes room once a batch; a push
 * then costs a store or a copy, not a call. Flat values only (no levels). */
static inline void ig_values_put_lane(struct ig_values *v, uint64_t lane)
{
    size_t i = v->n++;
    v->lanes[i] = lane;
    if (v->has_nulls) v->valid[i / 8] |= (uint8_t)(1u << (i % 8));
}

/* Copy n <= 16 bytes with two moves that overlap as much as n asks (most
 * strings a row holds are this short; a call to memcpy costs more than the
 * copy). Nothing outside src[0, n) or dst[0, n) is touched. */
static inline void ig_copy_upto16(uint8_t *dst, const uint8_t *src, size_t n)
{
    if (n >= 8) {
        uint64_t a, b;
        memcpy(&a, src, 8);
        memcpy(&b, src + n - 8, 8);
        memcpy(dst, &a, 8);
        memcpy(dst + n - 8, &b, 8);
    } else if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, src, 4);
        memcpy(&b, src + n - 4, 4);
        memcpy(dst, &a, 4);
        memcpy(dst + n - 4, &b, 4);
    } else if (n) {
        uint8_t a = src[0], b = src[n / 2], c = src[n - 1];
        dst[0] = a, dst[n / 2] = b, dst[n - 1] = c;
    }
}

/* The bytes may still need room in v->data: -ENOMEM when it cannot grow. */
static inline int ig_values_put_bytes(struct ig_values *v, const void *p, size_t len)
{
    struct ig_buf *d = &v->data;
    if (len > d->cap - d->len) {
        int rc = ig_buf_reserve(d, len);
        if (rc) return rc;
    }
    if (len <= 16)
        ig_copy_upto16(d->data + d->len, p, len);
    else
        memcpy(d->data + d->len, p, len);
    d->len += len;
    size_t i = v->n++;
    v->offs[i + 1] = d->len;
    if (v->has_nulls) v->valid[i / 8] |= (uint8_t)(1u << (i % 8));
    return 0;
}
/* count strings at once: string i is base[offs[i] .. offs[i + 1]) (a decoded
 * column's values in one copy). */
int ig_values_push_bytes_run(struct ig_values *v, const uint64_t *offs, const uint8_t *base, size_t count);
/* Push dict's items codes[0..n) (each < dict->n, checked by the caller), all
 * present: a dictionary-coded page's strings in one pass, room made once. */
int ig_values_push_bytes_coded(struct ig_values *v, const struct ig_values *dict, const uint32_t *codes,
                               size_t n);
/* Value i (< n) reads as NULL from now on (flat values). */
int ig_values_set_null(struct ig_values *v, size_t i);

static inline bool ig_values_is_null(const struct ig_values *v, size_t i)
{
    return v->has_nulls && !((v->valid[i / 8] >> (i % 8)) & 1);
}

/* Bytes of value i of a bytes column (never a NULL pointer, even when empty). */
static inline const uint8_t *ig_values_bytes(const struct ig_values *v, size_t i, size_t *len)
{
    *len = (size_t)(v->offs[i + 1] - v->offs[i]);
    return v->data.data ? v->data.data + v->offs[i] : (const uint8_t *)"";
}

/* Nested leaves: one (rep, def) entry; its value, if defined, is pushed next. */
int ig_values_push_entry(struct ig_values *v, uint8_t rep, uint8_t def);
/* A whole row of a one-level list of lanes at once (decoders): the caller has
 * reserved and written lanes[n .. n + count); this adds count entries (rep 0,
 * then 1s) at definition level def, takes the lanes and ends the row. */
int ig_values_commit_list_row(struct ig_values *v, size_t count, uint8_t def);
/* Whole rows of a nested leaf at once: nent (rep, def) entries (reps NULL: all
 * 0, a row each), a row beginning at every rep 0 (reps[0] must be 0). The
 * rows' value ends count one value (per_value lanes) for each entry defined
 * to max_def: the caller pushes exactly those values next. */
int ig_values_push_level_rows(struct ig_values *v, const uint8_t *reps, const uint8_t *defs, size_t nent,
                              uint8_t max_def);
/* Close a row of a nested leaf (records where it ends). */
int ig_values_end_row(struct ig_values *v);
/* Make v a nested leaf with `per_value` lanes per defined entry; empty. */
void ig_values_set_levels(struct ig_values *v, uint32_t per_value);

/* Append src's values (and, for nested leaves, entries and rows) to dst, which
 * holds the same kind of leaf: a page decoded block by block. */
int ig_values_append(struct ig_values *dst, const struct ig_values *src);
/* Append src's values from..from+count-1 to dst, both flat (no levels): rows
 * converted apart, handed to a writer's row group a stretch at a time.
 * -EINVAL for levels or a range past src's values, -ENOMEM. */
int ig_values_append_rows(struct ig_values *dst, const struct ig_values *src, size_t from, size_t count);

/* Fill row_ent/row_val/rows of a nested leaf from its reps and defs (decoders):
 * -EIO when the levels are inconsistent (a first entry that continues a row, a
 * definition level above max_def, more or fewer values than the levels define).
 * keep: the rows wanted (SIZE_MAX: all). Past them v keeps the first `keep`
 * rows, their entries and values, and the rest is dropped unchecked (a row
 * read that decoded the levels only so far); the entries must then hold at
 * least the values they define. */
struct ig_error;
int ig_levels_index(struct ig_values *v, uint8_t max_def, size_t keep, struct ig_error *err);

/* Mark every value present (validity all ones) for the first n; used by decoders. */
int ig_values_set_validity(struct ig_values *v, const uint8_t *bits, size_t n);

#endif
