/* render_len.c - the length of a column's text or of its values' JSON
 * without rendering them (render.h): what the writer stores as text lengths
 * and the mount serves as file sizes. Integers by their digit counts
 * (int_len.h), float32s eight at a time (float_len_x8.h) or through a
 * per-thread memo, float64s with their decimal places carried from value to
 * value, strings by their escapes counted in bulk (text_escape.h); what has no
 * shortcut (binary, blobs) is rendered into scratch and measured. */
#include "format/model/render.h"
#include "format/model/float_len_x8.h"
#include "format/model/float_text.h"
#include "format/model/int_len.h"
#include "format/model/logical.h"
#include "format/model/text_escape.h"
#include "format/model/types.h"
#include "util/buf.h"
#include "util/endian.h"
#include "util/floatbits.h"
#include "util/shortest.h"

#include <math.h>
#include <string.h>

/* format_lane's length without the text: what the writer stores as text
 * lengths, at the cost of the digits alone. */
static size_t lane_len(uint8_t type, uint64_t lane, bool json)
{
    int64_t i;
    switch (type) {
    case IG_T_BOOL: return json ? (lane ? 4 : 5) : 1;
    case IG_T_INT8: i = (int8_t)lane; break;
    case IG_T_INT16: i = (int16_t)lane; break;
    case IG_T_INT32: i = (int32_t)lane; break;
    case IG_T_INT64: i = (int64_t)lane; break;
    case IG_T_UINT8: return (size_t)ig_u64_digit_count((uint8_t)lane);
    case IG_T_UINT16: return (size_t)ig_u64_digit_count((uint16_t)lane);
    case IG_T_UINT32: return (size_t)ig_u64_digit_count((uint32_t)lane);
    case IG_T_UINT64: return (size_t)ig_u64_digit_count(lane);
    case IG_T_FLOAT32:
    case IG_T_FLOAT64: {
        double d = type == IG_T_FLOAT32 ? (double)ig_lane_f32(lane) : ig_lane_f64(lane);
        size_t n = type == IG_T_FLOAT32 ? ig_format_f32_len(ig_lane_f32(lane)) : ig_format_f64_len(ig_lane_f64(lane));
        return n + (json && (isnan(d) || isinf(d)) ? 2 : 0); /* "NaN" is a JSON string */
    }
    default: return 1;
    }
    return i < 0 ? 1 + (size_t)ig_u64_digit_count(0 - (uint64_t)i) : (size_t)ig_u64_digit_count((uint64_t)i);
}

bool ig_render_json_len(const struct ig_values *v, size_t i, size_t *len)
{
    if (v->type == IG_T_BLOB || ig_values_is_null(v, i)) return false;
    if (v->is_bytes) { /* a string as it is escaped, binary as \x and two hex digits a byte */
        if (ig_logical_renders(&v->lt)) return false;
        size_t n;
        const uint8_t *p = ig_values_bytes(v, i, &n);
        *len = v->type == IG_T_STRING ? ig_render_json_string_len(p, n) : 5 + 2 * n;
        return true;
    }
    *len = ig_logical_renders(&v->lt) ? ig_logical_lane_len(&v->lt, v->lanes[i], true)
                                      : lane_len(v->type, v->lanes[i], true);
    return true;
}

/* Float32 text lengths, a run at a time, two ways: eight at a time
 * (float_len_x8.h) where the CPU can, and a per-thread memo of bits -> length,
 * which beats any computing for floats that repeat (rounded, quantised,
 * categorical values). The memo's hit rate over its last 256 lookups picks
 * the way; while the eight-at-a-time way runs, one block in 16 still goes
 * through the memo to keep that rate (and the memo) current, one in 32, 64,
 * then 128 after each rate that kept it out (floats that do not repeat:
 * Gaussian vectors, where the sampled blocks' one-by-one lengths were a
 * fifth of the time the lengths took). */
/* 4,096 slots (32 KiB): with 1,024, the ~600 values of floats rounded to 1/64
 * of a normal spread missed one lookup in 13 (slots shared), each miss a
 * shortest-digits search; with 4,096, one in 3,500. */
#define F32_MEMO_BITS 12
#define F32_MEMO_SLOTS (1u << F32_MEMO_BITS)
struct f32_len_state {
    uint64_t memo[F32_MEMO_SLOTS]; /* direct mapped: bits << 8 | length; bits 0 never asks */
    uint32_t blocks, tries, hits;
    bool memo_mode;
    uint8_t declined; /* rates running that kept the memo out, at most 3 */
};
static _Thread_local struct f32_len_state f32_len_state;

static inline size_t f32_memo_len(struct f32_len_state *st, uint64_t lane, bool json)
{
    uint32_t bits = (uint32_t)lane;
    float f;
    memcpy(&f, &bits, 4);
    /* zero, NaN, infinities and the search-form powers of two: the long way */
    if (!(bits & 0x7fffffffu) || ((bits >> 23) & 0xff) == 0xff || ig_format_f32_keeps_search_form(f))
        return lane_len(IG_T_FLOAT32, lane, json);
    uint64_t *slot = &st->memo[(uint32_t)(bits * 0x9E3779B1u) >> (32 - F32_MEMO_BITS)];
    st->tries++;
    if (*slot >> 8 == bits) {
        st->hits++;
        return *slot & 0xff;
    }
    size_t measured = ig_format_f32_plain_len(bits);
    *slot = (uint64_t)bits << 8 | measured;
    return measured;
}

static uint64_t f32_len_run(const uint64_t *lanes, size_t n, bool json)
{
    struct f32_len_state *st = &f32_len_state;
    bool x8 = ig_f32_len_x8_usable();
    uint64_t sum = 0;
    for (size_t k = 0; k < n;) {
        size_t m = n - k < 8 ? n - k : 8;
        if (m == 8 && !(lanes[k] | lanes[k + 1] | lanes[k + 2] | lanes[k + 3] | lanes[k + 4] | lanes[k + 5] |
                        lanes[k + 6] | lanes[k + 7])) { /* eight zeros ("0.0"): padding, sparse features */
            sum += 8 * 3;
            k += 8;
            continue;
        }
        if (x8 && m == 8 && !st->memo_mode && (++st->blocks & ((16u << st->declined) - 1))) {
            uint8_t l8[8];
            unsigned theirs = ig_f32_len_x8(lanes + k, l8);
            sum += (ig_ld64(l8) * 0x0101010101010101ull) >> 56; /* eight lengths of at most 16 */
            for (; theirs; theirs &= theirs - 1)
                sum += lane_len(IG_T_FLOAT32, lanes[k + (size_t)__builtin_ctz(theirs)], json);
            k += 8;
            continue;
        }
        for (size_t j = 0; j < m; j++) sum += f32_memo_len(st, lanes[k + j], json);
        k += m;
        if (st->tries >= 256) {
            st->memo_mode = st->hits * 2 >= st->tries;
            st->declined = st->memo_mode ? 0 : st->declined < 3 ? st->declined + 1 : 3;
            st->tries = st->hits = 0;
        }
    }
    return sum;
}

/* Float64 text (or JSON) lengths of a run, each count[j] times (counts NULL:
 * once each), the decimal places guessed from the value before. */
static uint64_t f64_len_run(const uint64_t *lanes, const uint32_t *counts, size_t n, bool json)
{
    uint64_t sum = 0;
    int places = -1;
    for (size_t j = 0; j < n; j++) {
        double d = ig_lane_f64(lanes[j]);
        size_t len = ig_format_f64_len_guided(d, &places) + (json && (isnan(d) || isinf(d)) ? 2 : 0);
        sum += counts ? (uint64_t)counts[j] * len : len;
    }
    return sum;
}

uint64_t ig_render_lanes_len_counted(uint8_t type, const struct ig_logical *lt, const uint64_t *lanes,
                                     const uint32_t *counts, size_t k, bool json)
{
    uint64_t sum = 0;
    if (lt && ig_logical_renders(lt)) {
        for (size_t j = 0; j < k; j++)
            sum += (uint64_t)counts[j] * ig_logical_lane_len(lt, lanes[j], json);
        return sum;
    }
    if (type == IG_T_FLOAT32) {
        struct f32_len_state *st = &f32_len_state;
        for (size_t j = 0; j < k; j++)
            sum += (uint64_t)counts[j] * f32_memo_len(st, lanes[j], json);
        return sum;
    }
    if (type == IG_T_FLOAT64) return f64_len_run(lanes, counts, k, json);
    for (size_t j = 0; j < k; j++)
        sum += (uint64_t)counts[j] * lane_len(type, lanes[j], json);
    return sum;
}

/* Are values [i, i + n) numbers (or values of a logical type stored in
 * lanes), none of them NULL (measured from their lanes)? */
static inline bool numbers_run(const struct ig_values *v, size_t i, size_t n)
{
    if (v->is_bytes || v->type == IG_T_BLOB) return false;
    if (v->has_nulls)
        for (size_t k = i; k < i + n; k++)
            if (ig_values_is_null(v, k)) return false;
    return true;
}

bool ig_render_json_lens_add(const struct ig_values *v, size_t i, size_t n, uint64_t *acc)
{
    if (!numbers_run(v, i, n)) return false;
    const uint64_t *lanes = v->lanes + i;
    size_t k = 0;
    if (ig_logical_renders(&v->lt)) {
        for (; k < n; k++) acc[k] += ig_logical_lane_len(&v->lt, lanes[k], true);
        return true;
    }
    if (v->type == IG_T_FLOAT32 && ig_f32_len_x8_usable()) {
        for (; k + 8 <= n; k += 8) {
            uint8_t l8[8];
            unsigned theirs = ig_f32_len_x8(lanes + k, l8);
            for (unsigned j = 0; j < 8; j++)
                acc[k + j] += (theirs >> j) & 1 ? lane_len(IG_T_FLOAT32, lanes[k + j], true) : l8[j];
        }
    }
    for (; k < n; k++)
        acc[k] += v->type == IG_T_FLOAT32 ? f32_memo_len(&f32_len_state, lanes[k], true)
                                           : lane_len(v->type, lanes[k], true);
    return true;
}

bool ig_render_json_len_run(const struct ig_values *v, size_t i, size_t n, uint64_t *len)
{
    if (!numbers_run(v, i, n)) return false;
    uint64_t sum = 0;
    const uint64_t *lanes = v->lanes + i;
    if (ig_logical_renders(&v->lt)) {
        for (size_t k = 0; k < n; k++) sum += ig_logical_lane_len(&v->lt, lanes[k], true);
    } else if (v->type == IG_T_FLOAT32) {
        sum = f32_len_run(lanes, n, true);
    } else if (v->type == IG_T_FLOAT64) {
        sum = f64_len_run(lanes, NULL, n, true);
    } else if (v->type > IG_T_BOOL) { /* integers: JSON writes them as text does */
        const struct ig_type_info *ti = ig_type_info(v->type);
        sum = ig_int_len_run(lanes, n, ti->width, ti->is_signed);
    } else {
        for (size_t k = 0; k < n; k++)
            sum += lane_len(v->type, lanes[k], true);
    }
    *len = sum;
    return true;
}

/* The text lengths of a fixed-width v's values as if none were NULL, a run
 * at a time: integers by int_len.h, floats by their runs above. */
static uint64_t lanes_text_len(const struct ig_values *v)
{
    const struct ig_type_info *ti = ig_type_info(v->type);
    switch (v->type) {
    case IG_T_BOOL: return v->n; /* t or f */
    case IG_T_FLOAT32: return f32_len_run(v->lanes, v->n, false);
    case IG_T_FLOAT64: return f64_len_run(v->lanes, NULL, v->n, false);
    default: return ig_int_len_run(v->lanes, v->n, ti->width, ti->is_signed);
    }
}

/* lanes_text_len's sum made v's: each NULL's lane (whatever it holds) taken
 * out and its \N put in, found a validity byte at a time (NULLs are few). */
static uint64_t with_nulls(const struct ig_values *v, uint64_t sum)
{
    for (size_t b = 0; b < (v->n + 7) / 8; b++) {
        unsigned missing = (uint8_t)~v->valid[b];
        if (b == v->n / 8) missing &= (1u << (v->n % 8)) - 1; /* the bits past the last value */
        for (; missing; missing &= missing - 1) {
            size_t i = b * 8 + (size_t)__builtin_ctz(missing);
            sum = sum - lane_len(v->type, v->lanes[i], false) + 2;
        }
    }
    return sum;
}

int ig_render_text_len(const struct ig_values *v, const uint8_t *deleted, struct ig_buf *scratch,
                       uint64_t *len)
{
    bool logical = ig_logical_renders(&v->lt);
    if (!deleted && !v->is_bytes && !logical && v->type >= IG_T_BOOL && v->type <= IG_T_FLOAT64) {
        uint64_t sum = lanes_text_len(v);
        *len = (v->has_nulls ? with_nulls(v, sum) : sum) + v->n; /* and the newlines */
        return 0;
    }
    if (v->type == IG_T_STRING && !logical && !deleted && v->n) {
        /* escapes are counted a byte at a time: over all the strings at once,
         * many bytes a step without a tail per string. A NULL (\N) is two
         * bytes more than an empty string, and holds no bytes unless a value
         * was made NULL after it was pushed (then value by value, below). */
        uint64_t nulls = 0;
        bool empty_nulls = true;
        for (size_t i = 0; v->has_nulls && i < v->n && empty_nulls; i++)
            if (ig_values_is_null(v, i)) {
                nulls++;
                empty_nulls = v->offs[i + 1] == v->offs[i];
            }
        if (empty_nulls) {
            uint64_t bytes = v->offs[v->n] - v->offs[0];
            const uint8_t *p = v->data.data ? v->data.data + v->offs[0] : (const uint8_t *)"";
            *len = bytes + ig_text_escapes_bulk(p, (size_t)bytes) + v->n + 2 * nulls;
            return 0;
        }
    }
    uint64_t total = 0;
    /* counted where the count is cheap; the rest rendered one value at a time */
    for (size_t i = 0; i < v->n; i++) {
        if (deleted && ((deleted[i / 8] >> (i % 8)) & 1)) continue;
        if (ig_values_is_null(v, i)) {
            total += 3; /* \N */
            continue;
        }
        if (!v->is_bytes) {
            total += (logical ? ig_logical_lane_len(&v->lt, v->lanes[i], false) : lane_len(v->type, v->lanes[i], false)) + 1;
            continue;
        }
        if (v->type == IG_T_STRING) { /* append_copy_string doubles \ and controls */
            size_t n;
            const uint8_t *p = ig_values_bytes(v, i, &n);
            total += n + ig_text_escapes(p, n) + 1;
            continue;
        }
        ig_buf_reset(scratch);
        int rc = ig_render_text_value(scratch, v, i);
        if (rc) return rc;
        total += scratch->len + 1;
    }
    *len = total;
    return 0;
}
