/* decimal.c - the decimal scheme: float64 lanes that are decimals of a few
 * places (prices, rounded measures) stored as the integers they become when
 * scaled by a power of ten (format version 8).
 *
 * Layout: [11] [p: u8, 0..15] [varint len][child: n signed int64 lanes m]
 *   Lane i is the bits of (double)m_i / 10^p: m_i and 10^p are exact doubles
 *   (|m_i| < 10^15 < 2^53, p <= 15), so the quotient is m_i * 10^-p correctly
 *   rounded, the same double on every IEEE host. The child is any scheme but
 *   decimal and never drops elements (no rle on top, no dict over rle codes),
 *   so the stream covers the same positions as its parent. get(i) is the
 *   child's get(i), scaled.
 *
 * Chosen only when every lane reads back bit for bit: NaN, infinities, -0.0
 *   and values of more than 15 significant digits (or 15 places) make a stream
 *   that is not decimal; a 0 lane (+0.0, and NULL slots) is m = 0. The writer
 *   weighs it only for float64 leaves of parts of version 8 or later
 *   (ig_enc_opts.decimal): an erase never re-encodes into it, so an older part
 *   keeps only the schemes its version knows.
 *
 * Erase: the child's rule (the slot's m becomes 0, which is the lane 0).
 * Check: the child's check.
 *
 * Not here: float32 (its text is the float's own shortest form; quantised
 * float32 leaves have their own formats), exceptions (one value that is not a
 * decimal keeps the whole stream in another scheme).
 */
#include <stdlib.h>
#include <string.h>

#include "enc_internal.h"
#include "util/shortest.h"

#define DECIMAL_MAX_PLACES 15

static const double pow10_exact[DECIMAL_MAX_PLACES + 1] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                                           1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};

static const struct ig_int_desc decimal_child_desc = {8, true};

static inline double lane_double(uint64_t lane)
{
    double d;
    memcpy(&d, &lane, 8);
    return d;
}

static inline uint64_t double_lane(double d)
{
    uint64_t b;
    memcpy(&b, &d, 8);
    return b;
}

/* m with m / 10^p == v bit for bit and |m| < 10^15, or false. */
static inline bool scaled(uint64_t lane, unsigned p, int64_t *m)
{
    if (lane == 0) { /* +0.0 */
        *m = 0;
        return true;
    }
    double v = lane_double(lane), a = v < 0 ? -v : v;
    double s = a * pow10_exact[p];
    if (!(s < 1e15)) return false; /* also NaN and infinities */
    int64_t k = (int64_t)(s + 0.5);
    int64_t signed_k = v < 0 ? -k : k;
    if (double_lane((double)signed_k / pow10_exact[p]) != lane) return false; /* -0.0 too */
    *m = signed_k;
    return true;
}

/* The places the lanes need: the most that any lane's shortest form shows (a
 * decimal at p places is one at more places too, while its m stays below
 * 10^15). false when a lane is no decimal of at most 15 digits and places. */
static bool decimal_places(const uint64_t *v, size_t n, unsigned *places)
{
    unsigned p = 0;
    int guess = -1;
    for (size_t i = 0; i < n; i++) {
        int64_t m;
        if (scaled(v[i], p, &m)) continue;
        double a = lane_double(v[i]);
        a = a < 0 ? -a : a;
        if (!(a > 0 && a < 1e15)) return false; /* -0.0, NaN, infinities, too large */
        int nd, first;
        ig_shortest_f64_shape_guided(a, &guess, &nd, &first);
        int shown = nd - 1 - first;
        if (nd > 15 || shown > DECIMAL_MAX_PLACES) return false; /* digits, places */
        if (shown > (int)p) p = (unsigned)shown;
        if (!scaled(v[i], p, &m)) return false;
    }
    *places = p;
    return true;
}

/* The lanes scaled to m at p places, all of them (decimal_places said so, but
 * a lane before the places grew may now need an m of 10^15 or more). */
static bool decimal_scale_all(const uint64_t *v, size_t n, unsigned p, uint64_t *m)
{
    for (size_t i = 0; i < n; i++) {
        int64_t k;
        if (!scaled(v[i], p, &k)) return false;
        m[i] = (uint64_t)k;
    }
    return true;
}

size_t enc_decimal_estimate(const uint64_t *v, size_t n, const struct enc_ectx *c)
{
    unsigned p;
    if (!decimal_places(v, n, &p)) return SIZE_MAX;
    uint64_t *m = malloc((n ? n : 1) * sizeof *m);
    if (!m) return SIZE_MAX;
    size_t est = SIZE_MAX;
    if (decimal_scale_all(v, n, p, m)) {
        size_t child = enc_int_leaf_estimate(m, n, &decimal_child_desc, c);
        if (child != SIZE_MAX) est = 2 + ig_varint_size(child) + child;
    }
    free(m);
    return est;
}

/* The selection weighs decimal from the lanes themselves
 * (enc_decimal_estimate); a forced decimal finds out in encode. */
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
    if (d->width != 8) return ig_err(c->err, -EINVAL, "encoding decimal needs float64 lanes");
    unsigned p;
    uint64_t *m = malloc((n ? n : 1) * sizeof *m);
    if (!m) return enc_nomem(c->err);
    int rc = 0;
    if (!decimal_places(v, n, &p) || !decimal_scale_all(v, n, p, m)) {
        rc = ig_err(c->err, -EINVAL,
                    "encoding decimal cannot represent these values (each must be a decimal of at "
                    "most 15 digits and 15 places, not NaN, infinite or -0)");
    } else if (ig_buf_append_byte(out, IG_ENC_DECIMAL) || ig_buf_append_byte(out, (uint8_t)p)) {
        rc = enc_nomem(c->err);
    } else {
        rc = enc_int_encode_child(m, n, &decimal_child_desc, c, 0, ENC_CHILD_NO_DROP, out);
    }
    free(m);
    return rc;
}

struct decimal_view {
    unsigned p;
    const uint8_t *child;
    size_t child_len, used;
};

static int decimal_parse(const uint8_t *p, size_t len, struct decimal_view *dv, struct ig_error *err)
{
    if (len < 2) return ig_err(err, -EIO, "decimal stream: truncated header");
    if (p[1] > DECIMAL_MAX_PLACES)
        return ig_err(err, -EIO, "decimal stream: %u places (at most %d)", p[1], DECIMAL_MAX_PLACES);
    dv->p = p[1];
    size_t pos = 2;
    int rc = enc_sub(p, len, &pos, &dv->child, &dv->child_len, "decimal", "scaled values", err);
    dv->used = pos;
    return rc;
}

static inline uint64_t unscale(uint64_t m, unsigned p)
{
    return double_lane((double)(int64_t)m / pow10_exact[p]);
}

static int decimal_decode(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                          const uint8_t *absent, uint64_t *out, size_t *used, struct enc_dctx *c)
{
    (void)d;
    struct decimal_view dv;
    int rc = decimal_parse(p, len, &dv, c->err);
    size_t child_used;
    if (!rc) rc = enc_int_decode(dv.child, dv.child_len, n, &decimal_child_desc, absent, out, &child_used, c);
    if (rc) return rc;
    for (size_t i = 0; i < n; i++)
        out[i] = unscale(out[i], dv.p); /* m = 0 (absent, erased) is the lane 0 */
    *used = dv.used;
    return 0;
}

static int decimal_get(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                       const uint8_t *absent, size_t i, uint64_t *out, struct enc_dctx *c)
{
    (void)d;
    struct decimal_view dv;
    int rc = decimal_parse(p, len, &dv, c->err);
    uint64_t m = 0;
    if (!rc) rc = enc_int_get(dv.child, dv.child_len, n, &decimal_child_desc, absent, i, &m, c);
    if (!rc) *out = unscale(m, dv.p);
    return rc;
}

static int decimal_erase(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                         const uint8_t *absent, const uint8_t *kill, bool may_drop, struct enc_dctx *c,
                         struct ig_buf *out)
{
    (void)d;
    (void)may_drop; /* the child never drops */
    struct decimal_view dv;
    int rc = decimal_parse(p, len, &dv, c->err);
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
    (void)d;
    struct decimal_view dv;
    int rc = decimal_parse(p, len, &dv, c->err);
    if (!rc) rc = enc_int_check(dv.child, dv.child_len, n, &decimal_child_desc, absent, erased, c);
    if (!rc) *used = dv.used;
    return rc;
}

const struct int_scheme enc_decimal_int = {
    .id = IG_ENC_DECIMAL,
    .name = "decimal",
    .composite = true,
    .estimate = decimal_estimate,
    .encode = decimal_encode,
    .decode = decimal_decode,
    .get = decimal_get,
    .erase = decimal_erase,
    .check = decimal_check,
};
