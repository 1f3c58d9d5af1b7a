/* minmax.c - a flat numeric leaf's bounds (minmax.h). */
#include "format/model/minmax.h"
#include "format/model/types.h"
#include "format/model/values.h"
#include "util/cpu.h"

#include <math.h>
#include <string.h>

bool ig_minmax_kept(uint8_t type, bool nested)
{
    return !nested && type >= IG_T_INT8 && type <= IG_T_FLOAT64;
}

static double lane_double(uint8_t type, uint64_t lane)
{
    if (type == IG_T_FLOAT32) {
        float f;
        uint32_t b = (uint32_t)lane;
        memcpy(&f, &b, 4);
        return f;
    }
    double d;
    memcpy(&d, &lane, 8);
    return d;
}

static uint64_t double_lane(uint8_t type, double d)
{
    if (type == IG_T_FLOAT32) {
        float f = (float)d; /* exact: d came from a float */
        uint32_t b;
        memcpy(&b, &f, 4);
        return b;
    }
    uint64_t b;
    memcpy(&b, &d, 8);
    return b;
}

static bool is_float(uint8_t type) { return type == IG_T_FLOAT32 || type == IG_T_FLOAT64; }
static bool is_unsigned(uint8_t type) { return type >= IG_T_UINT8 && type <= IG_T_UINT64; }

/* -1, 0, 1 in the type's order (neither a nor b NaN). */
static int compare(uint8_t type, uint64_t a, uint64_t b)
{
    if (is_float(type)) {
        double x = lane_double(type, a), y = lane_double(type, b);
        return x < y ? -1 : x > y;
    }
    if (is_unsigned(type)) return a < b ? -1 : a > b;
    return (int64_t)a < (int64_t)b ? -1 : (int64_t)a > (int64_t)b;
}

static bool is_nan(uint8_t type, uint64_t lane) { return is_float(type) && isnan(lane_double(type, lane)); }

static bool skipped(const uint8_t *skip, size_t i) { return skip && ((skip[i / 8] >> (i % 8)) & 1); }

/* Loops per order, each without a branch on the type: a chunk of 262,144
 * values is one pass (the compiler vectorises the signed one where no value is
 * NULL or skipped). */
static void floats(const struct ig_values *v, const uint8_t *skip, struct ig_minmax *out)
{
    double lo = INFINITY, hi = -INFINITY;
    bool any = false; /* an infinity alone still bounds */
    for (size_t i = 0; i < v->n; i++) {
        if (ig_values_is_null(v, i) || skipped(skip, i)) continue;
        double d = lane_double(v->type, v->lanes[i]);
        if (d != d) continue;
        any = true;
        lo = d < lo ? d : lo;
        hi = d > hi ? d : hi;
    }
    if (!any) return;
    if (lo == 0) lo = -0.0;
    if (hi == 0) hi = 0.0;
    *out = (struct ig_minmax){true, double_lane(v->type, lo), double_lane(v->type, hi)};
}

/* The bounds of n signed lanes with no value left out, folded into *lo and
 * *hi: one pass without a branch. x86-64's base vectors have no 64-bit
 * compare, so the plain build runs it a value at a time (2 % of a CSV
 * import's CPU); built again for AVX-512 (util/cpu.h), the same C code,
 * the compiler runs it eight at a time. */
static inline __attribute__((always_inline)) void signed_span(const uint64_t *lanes, size_t n,
                                                              int64_t *lo, int64_t *hi)
{
    int64_t l = *lo, h = *hi;
    for (size_t i = 0; i < n; i++) {
        int64_t x = (int64_t)lanes[i];
        l = x < l ? x : l;
        h = x > h ? x : h;
    }
    *lo = l;
    *hi = h;
}

static void signed_span_plain(const uint64_t *lanes, size_t n, int64_t *lo, int64_t *hi)
{
    signed_span(lanes, n, lo, hi);
}

#if IG_HAVE_X8
IG_X8 static void signed_span_x8(const uint64_t *lanes, size_t n, int64_t *lo, int64_t *hi)
{
    signed_span(lanes, n, lo, hi);
}
#endif

static void signed_ints(const struct ig_values *v, const uint8_t *skip, struct ig_minmax *out)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    size_t present = 0;
    if (!v->has_nulls && !skip) {
#if IG_HAVE_X8
        if (ig_cpu_avx512())
            signed_span_x8(v->lanes, v->n, &lo, &hi);
        else
#endif
            signed_span_plain(v->lanes, v->n, &lo, &hi);
        present = v->n;
    } else {
        for (size_t i = 0; i < v->n; i++) {
            if (ig_values_is_null(v, i) || skipped(skip, i)) continue;
            int64_t x = (int64_t)v->lanes[i];
            lo = x < lo ? x : lo;
            hi = x > hi ? x : hi;
            present++;
        }
    }
    if (present) *out = (struct ig_minmax){true, (uint64_t)lo, (uint64_t)hi};
}

static void unsigned_ints(const struct ig_values *v, const uint8_t *skip, struct ig_minmax *out)
{
    uint64_t lo = UINT64_MAX, hi = 0;
    size_t present = 0;
    for (size_t i = 0; i < v->n; i++) {
        if ((v->has_nulls && ig_values_is_null(v, i)) || skipped(skip, i)) continue;
        uint64_t x = v->lanes[i];
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
        present++;
    }
    if (present) *out = (struct ig_minmax){true, lo, hi};
}

void ig_minmax_of(const struct ig_values *v, const uint8_t *skip, struct ig_minmax *out)
{
    *out = (struct ig_minmax){0};
    if (!ig_minmax_kept(v->type, v->levels) || v->is_bytes || !v->n) return;
    if (is_float(v->type))
        floats(v, skip, out);
    else if (is_unsigned(v->type))
        unsigned_ints(v, skip, out);
    else
        signed_ints(v, skip, out);
}

bool ig_minmax_reached(uint8_t type, const struct ig_minmax *m, uint64_t lane)
{
    if (!m->bounded || is_nan(type, lane)) return false;
    return compare(type, lane, m->min) <= 0 || compare(type, lane, m->max) >= 0;
}

bool ig_minmax_holds(uint8_t type, const struct ig_minmax *m, uint64_t lane)
{
    if (!m->bounded || is_nan(type, lane)) return true;
    return compare(type, lane, m->min) >= 0 && compare(type, lane, m->max) <= 0;
}

void ig_minmax_widen(uint8_t type, struct ig_minmax *acc, const struct ig_minmax *m)
{
    if (!m->bounded) return;
    if (!acc->bounded) {
        *acc = *m;
        return;
    }
    if (compare(type, m->min, acc->min) < 0) acc->min = m->min;
    if (compare(type, m->max, acc->max) > 0) acc->max = m->max;
}

bool ig_minmax_ordered(uint8_t type, const struct ig_minmax *m)
{
    if (!m->bounded) return !m->min && !m->max;
    if (is_nan(type, m->min) || is_nan(type, m->max)) return false;
    return compare(type, m->min, m->max) <= 0;
}
