/* decimal.c - the decimal scheme: float lanes that are decimals of a few
 * places (prices, rounded measures and scores) stored as the integers they
 * become when scaled by a power of ten (format version 8).
 *
 * Layout: [11] [p: u8] [varint len][child: n signed int64 lanes m]
 *   The stream's lane width says the float: 8, float64 (p <= 15): lane i is
 *   the bits of (double)m_i / 10^p, |m_i| < 10^15 < 2^53; 4, float32 (p <= 10):
 *   the bits of (float)m_i / (float)10^p, |m_i| < 2^24. Both operands are exact
 *   in the float's own precision, so the quotient is m_i * 10^-p correctly
 *   rounded, the same bits on every IEEE host. The child is any scheme but
 *   decimal, rle or dict (a leaf: a dictionary of the floats is weighed at the
 *   top), so the stream covers the same positions as its parent and never
 *   drops elements. get(i) is the child's get(i), scaled.
 *
 * Chosen only when every lane reads back bit for bit: NaN, infinities, -0.0
 *   and values with more digits or places than the limits make a stream that
 *   is not decimal; a 0 lane (+0.0, and NULL slots) is m = 0. The writer weighs
 *   it only for float leaves of parts of version 8 or later
 *   (ig_enc_opts.decimal): an erase never re-encodes into it, so an older part
 *   keeps only the schemes its version knows.
 *
 * Erase: the child's rule (the slot's m becomes 0, which is the lane 0).
 * Check: the child's check.
 *
 * Not here: exceptions (one value that is not a decimal keeps the whole
 * stream in another scheme); quantised float32 leaves (their own formats).
 */
#include <stdlib.h>
#include <string.h>

#include "enc_internal.h"
#include "util/floatbits.h"
#include "util/shortest.h"

#define DECIMAL_MAX_PLACES 15  /* float64 */
#define DECIMAL_MAX_PLACES32 10 /* float32: 10^10 is the largest power of ten a float holds exactly */

static const double pow10_exact[DECIMAL_MAX_PLACES + 1] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                                           1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
static const float pow10_exact32[DECIMAL_MAX_PLACES32 + 1] = {1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f,
                                                              1e6f, 1e7f, 1e8f, 1e9f, 1e10f};

static const struct ig_int_desc decimal_child_desc = {8, true};

/* float64 or float32 lanes: the places and the integers' bound */
static unsigned max_places(unsigned width)
{
    return width == 4 ? DECIMAL_MAX_PLACES32 : DECIMAL_MAX_PLACES;
}

/* m with m / 10^p == the lane bit for bit and |m| below the float's bound,
 * or false. */
static inline bool scaled(uint64_t lane, unsigned p, unsigned width, int64_t *m)
{
    if (lane == 0) { /* +0.0 */
        *m = 0;
        return true;
    }
    bool f32 = width == 4;
    double v = f32 ? (double)ig_lane_f32(lane) : ig_lane_f64(lane), a = v < 0 ? -v : v;
    double s = a * pow10_exact[p];
    if (!(s < (f32 ? 16777216.0 : 1e15))) return false; /* also NaN and infinities */
    int64_t k = (int64_t)(s + 0.5);
    int64_t signed_k = v < 0 ? -k : k;
    uint64_t back = f32 ? ig_f32_lane((float)signed_k / pow10_exact32[p])
                        : ig_f64_lane((double)signed_k / pow10_exact[p]);
    if (back != lane) return false; /* -0.0 too */
    *m = signed_k;
    return true;
}

/* The lanes as integers m at the places p they need: the most that any
 * lane's shortest form shows (a decimal at p places is one at more places too,
 * m times ten for each, while m stays within the bound). One pass: when a lane
 * needs more places, the m before it are scaled up. false when a lane is no
 * such decimal. */
static bool decimal_scale(const uint64_t *v, size_t n, unsigned width, unsigned *places, uint64_t *m)
{
    unsigned p = 0, most = max_places(width);
    const int64_t bound = width == 4 ? 16777216 : 1000000000000000;
    int guess = -1;
    for (size_t i = 0; i < n; i++) {
        int64_t k;
        if (scaled(v[i], p, width, &k)) {
            m[i] = (uint64_t)k;
            continue;
        }
        int nd, first;
        if (width == 4) {
            float a = ig_lane_f32(v[i]);
            a = a < 0 ? -a : a;
            if (!(a > 0 && a < 16777216.0f)) return false; /* -0.0, NaN, infinities, too large */
            ig_shortest_f32_shape(a, &nd, &first);
        } else {
            double a = ig_lane_f64(v[i]);
            a = a < 0 ? -a : a;
            if (!(a > 0 && a < 1e15)) return false;
            ig_shortest_f64_shape_guided(a, &guess, &nd, &first);
            if (nd > 15) return false; /* two such decimals are never the same double */
        }
        int shown = nd - 1 - first; /* places after the point, when positive */
        if (shown > (int)most || shown <= (int)p) return false;
        int64_t up = (int64_t)pow10_exact[shown - (int)p];
        for (size_t j = 0; j < i; j++) { /* the lanes before, at the new places */
            int64_t x = (int64_t)m[j], ax = x < 0 ? -x : x;
            if (ax >= (bound + up - 1) / up) return false;
            m[j] = (uint64_t)(x * up);
        }
        p = (unsigned)shown;
        if (!scaled(v[i], p, width, &k)) return false;
        m[i] = (uint64_t)k;
    }
    *places = p;
    return true;
}

/* The scaled lanes for v, from the memo when it holds them (the memo's m is
 * then taken: the caller frees *owned). */
static bool scaled_lanes(const uint64_t *v, size_t n, unsigned width, struct enc_decimal_memo *memo,
                         unsigned *p, uint64_t **m, uint64_t **owned)
{
    *owned = NULL;
    if (memo && memo->m && memo->v == v && memo->n == n && memo->width == width) {
        *p = memo->p;
        *m = memo->m;
        return memo->ok;
    }
    uint64_t *buf = malloc((n ? n : 1) * sizeof *buf);
    if (!buf) return false;
    bool ok = decimal_scale(v, n, width, p, buf);
    if (memo) {
        free(memo->m);
        *memo = (struct enc_decimal_memo){v, n, width, ok ? *p : 0, ok, buf};
    } else {
        *owned = buf;
    }
    *m = buf;
    return ok;
}

/* The decimal scheme's size for float lanes v (d: 8 bytes float64, 4 float32),
 * SIZE_MAX when they are not decimals it can hold. */
static size_t decimal_estimate_values(const uint64_t *v, size_t n, const struct ig_int_desc *d,
                                      const struct enc_ectx *c)
{
    unsigned p;
    uint64_t *m, *owned;
    if (d->width != 4 && d->width != 8) return SIZE_MAX;
    bool ok = scaled_lanes(v, n, d->width, c->decimal_memo, &p, &m, &owned);
    size_t est = SIZE_MAX;
    if (ok) {
        size_t child = enc_int_leaf_estimate(m, n, &decimal_child_desc, c);
        if (child != SIZE_MAX) est = 2 + ig_varint_size(child) + child;
    }
    free(owned);
    return est;
}

/* The selection weighs decimal from the lanes themselves
 * (decimal_estimate_values); a forced decimal finds out in encode. */
static size_t decimal_estimate(const struct int_stats *st, const struct ig_int_desc *d,
                               const struct enc_ectx *c)
{
    (void)st;
    (void)d;
    (void)c;
    return 0;
}

static int decimal_encode(const uint64_t *v, size_t n, const struct ig_int_desc *d,
                          const struct int_stats *st, struct enc_ectx *c, struct ig_buf *out)
{
    (void)st;
    if (d->width != 4 && d->width != 8)
        return ig_err(c->err, -EINVAL, "encoding decimal needs float32 or float64 lanes");
    unsigned p;
    uint64_t *m, *owned;
    bool ok = scaled_lanes(v, n, d->width, c->decimal_memo, &p, &m, &owned);
    int rc = 0;
    if (!ok) {
        rc = ig_err(c->err, -EINVAL,
                    "encoding decimal cannot represent these values (each must be a decimal of at "
                    "most %s, not NaN, infinite or -0)",
                    d->width == 4 ? "10 places whose digits stay below 2^24"
                                  : "15 digits and 15 places");
    } else if (ig_buf_append_byte(out, IG_ENC_DECIMAL) || ig_buf_append_byte(out, (uint8_t)p)) {
        rc = enc_nomem(c->err);
    } else {
        /* a leaf scheme: a dictionary of the floats is weighed at the top
         * (from the census), and one of their integers would hold no fewer
         * entries */
        rc = enc_int_encode_child(m, n, &decimal_child_desc, c, ENC_BIT(IG_ENC_DICT),
                                  ENC_CHILD_NO_DROP, out);
    }
    free(owned);
    return rc;
}

struct decimal_view {
    unsigned p;
    const uint8_t *child;
    size_t child_len, used;
};

static int decimal_parse(const uint8_t *p, size_t len, unsigned width, struct decimal_view *dv,
                         struct ig_error *err)
{
    if (len < 2) return ig_err(err, -EIO, "decimal stream: truncated header");
    if (width != 4 && width != 8)
        return ig_err(err, -EIO, "decimal stream: lanes of %u bytes are no floats", width);
    if (p[1] > max_places(width))
        return ig_err(err, -EIO, "decimal stream: %u places (at most %u)", p[1], max_places(width));
    dv->p = p[1];
    size_t pos = 2;
    int rc = enc_sub(p, len, &pos, &dv->child, &dv->child_len, "decimal", "scaled values", err);
    dv->used = pos;
    return rc;
}

static inline uint64_t unscale(uint64_t m, unsigned p, unsigned width)
{
    return width == 4 ? ig_f32_lane((float)(int64_t)m / pow10_exact32[p])
                      : ig_f64_lane((double)(int64_t)m / pow10_exact[p]);
}

static int decimal_decode(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                          const uint8_t *absent, uint64_t *out, size_t *used, struct enc_dctx *c)
{
    struct decimal_view dv;
    int rc = decimal_parse(p, len, d->width, &dv, c->err);
    size_t child_used;
    if (!rc) rc = enc_int_decode(dv.child, dv.child_len, n, &decimal_child_desc, absent, out, &child_used, c);
    if (rc) return rc;
    for (size_t i = 0; i < n; i++)
        out[i] = unscale(out[i], dv.p, d->width); /* m = 0 (absent, erased) is the lane 0 */
    *used = dv.used;
    return 0;
}

static int decimal_get(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                       const uint8_t *absent, size_t i, uint64_t *out, struct enc_dctx *c)
{
    struct decimal_view dv;
    int rc = decimal_parse(p, len, d->width, &dv, c->err);
    uint64_t m = 0;
    if (!rc) rc = enc_int_get(dv.child, dv.child_len, n, &decimal_child_desc, absent, i, &m, c);
    if (!rc) *out = unscale(m, dv.p, d->width);
    return rc;
}

static int decimal_erase(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                         const uint8_t *absent, const uint8_t *kill, bool may_drop, struct enc_dctx *c,
                         struct ig_buf *out)
{
    (void)may_drop; /* the child never drops */
    struct decimal_view dv;
    int rc = decimal_parse(p, len, d->width, &dv, c->err);
    if (rc) return rc;
    struct ig_buf child = IG_BUF_INIT;
    rc = enc_int_erase(dv.child, dv.child_len, n, &decimal_child_desc, absent, kill, false, c, &child);
    if (!rc && (ig_buf_append_byte(out, IG_ENC_DECIMAL) || ig_buf_append_byte(out, (uint8_t)dv.p) ||
                enc_put_sub(out, child.data, child.len)))
        rc = enc_nomem(c->err);
    ig_buf_free(&child);
    return rc;
}

static int decimal_check(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                         const uint8_t *absent, const uint8_t *erased, size_t *used, struct enc_dctx *c)
{
    struct decimal_view dv;
    int rc = decimal_parse(p, len, d->width, &dv, c->err);
    if (!rc) rc = enc_int_check(dv.child, dv.child_len, n, &decimal_child_desc, absent, erased, c);
    if (!rc) *used = dv.used;
    return rc;
}

const struct int_scheme enc_decimal_int = {
    .id = IG_ENC_DECIMAL,
    .name = "decimal",
    .composite = true,
    .estimate = decimal_estimate,
    .estimate_values = decimal_estimate_values,
    .encode = decimal_encode,
    .decode = decimal_decode,
    .get = decimal_get,
    .erase = decimal_erase,
    .check = decimal_check,
};
