/* render_fixed.c - values of a fixed-width column as little-endian elements of
 * its type's width, the bytes of a .npy file's data (render.h): NULL as 0 or a
 * quiet NaN, bools as 0/1 bytes, or one validity byte per value; the values'
 * own lanes handed over without a copy where they already are those bytes.
 * Text is render.c's. */
#include "format/model/render.h"
#include "format/model/logical.h"
#include "format/model/types.h"
#include "util/buf.h"
#include "util/endian.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void ig_render_fixed_at(uint8_t *o, const struct ig_values *v, size_t i)
{
    const struct ig_type_info *ti = ig_type_info(v->type);
    uint32_t w = ti->width;
    uint64_t lane = v->lanes[i];
    if (ig_values_is_null(v, i))
        lane = ti->is_float ? (w == 4 ? 0x7FC00000u : 0x7FF8000000000000ULL) : 0;
    if (v->type == IG_T_BOOL) lane = lane != 0;
    switch (w) {
    case 1:
        o[0] = (uint8_t)lane;
        break;
    case 2:
        ig_st16(o, (uint16_t)lane);
        break;
    case 4:
        ig_st32(o, (uint32_t)lane);
        break;
    default:
        ig_st64(o, lane);
    }
}

void ig_lanes_put32(uint8_t *o, const uint64_t *lanes, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ig_st32(o + 4 * i, (uint32_t)lanes[i]);
}

/* Lanes [a, b) of v as elements at o, NULL as ig_render_fixed_at writes
 * it: one loop per width, which the compiler vectorises (a call a value had
 * cost a scan of a float32 column more than decoding it). */
static void render_run(uint8_t *o, const struct ig_values *v, uint32_t w, size_t a, size_t b)
{
    const uint64_t *l = v->lanes + a;
    size_t n = b - a;
    if (v->type == IG_T_BOOL) {
        for (size_t i = 0; i < n; i++)
            o[i] = l[i] != 0;
    } else if (w == 1) {
        for (size_t i = 0; i < n; i++)
            o[i] = (uint8_t)l[i];
    } else if (w == 2) {
        for (size_t i = 0; i < n; i++)
            ig_st16(o + 2 * i, (uint16_t)l[i]);
    } else if (w == 4) {
        ig_lanes_put32(o, l, n);
    } else {
        for (size_t i = 0; i < n; i++) /* (a copy on little-endian hosts: endian.h) */
            ig_st64(o + 8 * i, l[i]);
    }
    for (size_t i = a; v->has_nulls && i < b; i++)
        if (ig_values_is_null(v, i)) ig_render_fixed_at(o + (i - a) * w, v, i);
}

/* The first position from i on whose bit in bm is not `set` (n if none):
 * whole bytes of `set` bits are stepped over at once. */
static size_t bit_run_end(const uint8_t *bm, size_t i, size_t n, bool set)
{
    uint8_t all = set ? 0xFF : 0;
    while (i < n) {
        if (i % 8 == 0 && n - i >= 8 && bm[i / 8] == all) {
            i += 8;
            continue;
        }
        if (((bm[i / 8] >> (i % 8)) & 1) != set) break;
        i++;
    }
    return i;
}

int ig_render_fixed(struct ig_buf *out, const struct ig_values *v, const uint8_t *deleted,
                    bool as_validity)
{
    const struct ig_type_info *ti = ig_type_info(v->type);
    /* validity needs no lanes: a 16-byte decimal's bytes have their NULLs too */
    if (!ti || (ti->phys != IG_PHYS_LANES && !as_validity)) return -EINVAL;
    uint32_t w = as_validity ? 1 : ti->width;
    uint8_t *o = ig_buf_extend(out, v->n * w);
    if (!o && v->n) return -ENOMEM;
    size_t k = 0;
    if (as_validity) {
        for (size_t i = 0; i < v->n; i++)
            if (!deleted || !(deleted[i / 8] >> (i % 8) & 1)) o[k++] = !ig_values_is_null(v, i);
    } else {
        /* the runs of live values between deleted ones */
        for (size_t a = 0, b; a < v->n; a = b) {
            b = deleted ? bit_run_end(deleted, a, v->n, false) : v->n;
            render_run(o + k, v, w, a, b);
            k += (b - a) * w;
            if (deleted) b = bit_run_end(deleted, b, v->n, true);
        }
    }
    out->len -= v->n * w - k;
    return 0;
}

int ig_render_fixed_move(struct ig_buf *out, struct ig_values *v, const uint8_t *deleted)
{
    const struct ig_type_info *ti = ig_type_info(v->type);
    bool same = ti && ti->phys == IG_PHYS_LANES && ti->width == 8 && !deleted && !v->has_nulls &&
                out->len == 0 && v->lanes && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
    if (!same) return ig_render_fixed(out, v, deleted, false);
    free(out->data);
    *out = (struct ig_buf){(uint8_t *)v->lanes, v->n * 8, v->lanes_cap * 8};
    v->lanes = NULL;
    v->lanes_cap = 0;
    v->cap = 0;
    v->n = 0;
    return 0;
}

int ig_render_npy(struct ig_buf *out, struct ig_values *v, const uint8_t *deleted, bool move)
{
    const char *descr;
    uint32_t w;
    if (!ig_logical_npy(&v->lt, &descr, &w))
        return move ? ig_render_fixed_move(out, v, deleted) : ig_render_fixed(out, v, deleted, false);
    /* datetime64 and timedelta64 counts are the lanes themselves (integers
     * sign-extended): without NULLs they are int64s, handed over or (with
     * rows deleted: an erased table's) copied run by run */
    if (v->lt.kind != IG_LT_DECIMAL && !v->is_bytes && !v->has_nulls) {
        struct ig_values as64 = *v;
        as64.type = IG_T_INT64;
        int rc = move ? ig_render_fixed_move(out, &as64, deleted) : ig_render_fixed(out, &as64, deleted, false);
        if (move && !as64.lanes) v->lanes = NULL, v->lanes_cap = 0, v->cap = 0, v->n = 0; /* moved */
        return rc;
    }
    uint8_t *o = ig_buf_extend(out, v->n * w);
    if (!o && v->n) return -ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < v->n; i++) {
        if (deleted && (deleted[i / 8] >> (i % 8) & 1)) continue;
        ig_logical_npy_at(o + k, v, i);
        k += w;
    }
    out->len -= v->n * w - k;
    return 0;
}
