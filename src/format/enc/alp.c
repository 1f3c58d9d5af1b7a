/* alp.c - floats as integers with exceptions (ALP: Afroozeh, Kuffo, Boncz,
 * SIGMOD 2024), format version 12.
 *
 * Most float columns hold decimals: prices, measures, scores printed with a
 * few places, which a float keeps as the nearest binary fraction. ALP finds
 * for a block an exponent e or a factor f such that most values v are
 * d * 10^f / 10^e for an integer d, stores the integers d (a nested int
 * stream: bit-packed, frame of reference, delta ... as the selector finds
 * best) and keeps the values that are not (NaN, -0.0, a value with more
 * digits) as exceptions: their positions and their bits.
 *
 * Layout: [13] [e: u8] [f: u8] [x: varint] [pw: u8]
 *         [positions: packed(x, pw), ascending] [x exception lanes, w bytes each, LE]
 *         [varint len][child: n signed int64 lanes d]
 *   w is the stream's lane width (8: float64, e <= 18, f <= 18; 4: float32,
 *   e, f <= 10). Lane i is the bits of (double)d_i * 10^f / 10^e (float32:
 *   the float operations alike), except at the positions, where it is the
 *   exception lane; the child holds 0 there. At most one of e and f is not 0.
 *   Unlike the paper's decoder, which multiplies by 10^-e (inexact), this one
 *   divides by 10^e (exact for these e), so the result is the decimal d /
 *   10^e correctly rounded: the same bits on every IEEE host, and 0.3 is d =
 *   3, e = 1 rather than an exception. With an exact division the paper's
 *   pairs of e and f that differ by the same amount decode alike, so only
 *   their difference is chosen here; the factor instead keeps large round
 *   values small (1.5e9: d = 15, f = 8).
 *
 * Choosing e and f: every exponent and every factor is tried on a sample of
 * the block's values (at most ALP_SAMPLE, spread evenly), and the one whose
 * integers' range and exceptions cost the fewest bits taken (the paper
 * samples per row group first, then per vector; blocks are a few KiB here,
 * so once).
 *
 * Random access: the child's get(i), scaled, unless i is a position (a binary
 * search of x of them). Erase: the block decoded, every killed value 0 (the
 * lane 0, +0.0: d = 0, never an exception), and encoded afresh, e and f
 * chosen again: the result depends on the live values only (a killed
 * exception leaves the list; the child's 0 lanes are markers where its
 * scheme has them, frame of reference and delta, so they widen no range).
 * Where that would be longer (rare), e and f are kept and the child erased
 * by its own rule instead.
 * Check: no killed position among the exceptions, the child's own check,
 * nothing after the stream. A position width other than the block's
 * (bit width of n - 1) is corrupt wherever the stream is read.
 */
#include <stdlib.h>
#include <string.h>

#include "enc_internal.h"
#include "util/floatbits.h"

#define ALP_MAX_E64 18
#define ALP_MAX_E32 10
#define ALP_SAMPLE 64
/* |d| below this: exact as a double (float: 2^24), and d * 10^f too for the
 * values that round trip */
#define ALP_D_LIMIT64 4503599627370496.0 /* 2^52 */
#define ALP_D_LIMIT32 16777216.0f

static const double p10[ALP_MAX_E64 + 1] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8, 1e9,
                                            1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18};
static const float p10f[ALP_MAX_E32 + 1] = {1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f,
                                            1e6f, 1e7f, 1e8f, 1e9f, 1e10f};
static const struct ig_int_desc alp_child_desc = {8, true};

static inline unsigned max_e(unsigned width)
{
    return width == 4 ? ALP_MAX_E32 : ALP_MAX_E64;
}

/* The lane of integer d at (e, f). */
static inline uint64_t alp_decode_one(int64_t d, unsigned e, unsigned f, unsigned width)
{
    if (width == 4) return ig_f32_lane((float)d * p10f[f] / p10f[e]);
    return ig_f64_lane((double)d * p10[f] / p10[e]);
}

/* d with alp_decode_one(d) == lane, or false (an exception). */
static inline bool alp_encode_one(uint64_t lane, unsigned e, unsigned f, unsigned width, int64_t *d)
{
    if (width == 4) {
        float v = ig_lane_f32(lane), s = f ? v / p10f[f] : v * p10f[e];
        if (!(s > -ALP_D_LIMIT32 && s < ALP_D_LIMIT32)) return false; /* NaN, infinities too */
        float r = s < 0 ? -(float)(int64_t)(-s + 0.5f) : (float)(int64_t)(s + 0.5f);
        *d = (int64_t)r;
    } else {
        double v = ig_lane_f64(lane), s = f ? v / p10[f] : v * p10[e];
        if (!(s > -ALP_D_LIMIT64 && s < ALP_D_LIMIT64)) return false;
        *d = s < 0 ? -(int64_t)(-s + 0.5) : (int64_t)(s + 0.5);
    }
    return alp_decode_one(*d, e, f, width) == lane; /* -0.0 reads back as +0.0: an exception */
}

/* What (e, f) costs on a sample (a value of every step, enc_sample_at):
 * bits of the integers' range per value and of each exception. */
static uint64_t alp_cost(const uint64_t *v, size_t n, size_t step, unsigned e, unsigned f, unsigned width,
                         uint64_t *exceptions, uint64_t *sampled)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    uint64_t exc = 0, m = 0;
    for (size_t k = 0, i; (i = enc_sample_at(k, step)) < n; k++, m++) {
        int64_t d;
        if (!alp_encode_one(v[i], e, f, width, &d)) {
            exc++;
            continue;
        }
        if (d < lo) lo = d;
        if (d > hi) hi = d;
    }
    unsigned bits = lo <= hi ? ig_bit_width((uint64_t)hi - (uint64_t)lo) : 0;
    *exceptions = exc;
    *sampled = m;
    return (m - exc) * bits + exc * (8u * width + 16u);
}

/* The (e, f) of the block v[0..n): the cheapest on a sample, trying every
 * exponent (f = 0) and every factor (e = 0). Ties go to the smallest.
 * Returns whether the sample at (e, f) shows at most five eighths
 * exceptions (else the block is surely not alp's: see alp_estimate_values). */
static bool alp_choose(const uint64_t *v, size_t n, unsigned width, unsigned *be, unsigned *bf)
{
    size_t step = n > ALP_SAMPLE ? n / ALP_SAMPLE : 1;
    uint64_t best = UINT64_MAX, best_exc = 0, best_m = 0;
    *be = *bf = 0;
    for (unsigned k = 0; k <= 2 * max_e(width); k++) {
        unsigned e = k <= max_e(width) ? k : 0, f = k <= max_e(width) ? 0 : k - max_e(width);
        uint64_t exc, m, c = alp_cost(v, n, step, e, f, width, &exc, &m);
        if (c < best) {
            best = c;
            best_exc = exc;
            best_m = m;
            *be = e;
            *bf = f;
        }
    }
    return best_exc * 8 <= best_m * 5;
}

/* The integers and exceptions of v at (e, f): d[0..n) (0 at exceptions),
 * their positions pos[0..*x). */
static void alp_split(const uint64_t *v, size_t n, unsigned e, unsigned f, unsigned width, uint64_t *d,
                      uint64_t *pos, size_t *x)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t di;
        if (alp_encode_one(v[i], e, f, width, &di)) {
            d[i] = (uint64_t)di;
        } else {
            d[i] = 0;
            pos[k++] = i;
        }
    }
    *x = k;
}

static size_t alp_head_size(size_t n, size_t x, unsigned width)
{
    unsigned pw = n ? ig_bit_width(n - 1) : 0;
    return 3 + ig_varint_size(x) + 1 + ig_bitpack_size(x, pw) + x * width;
}

static size_t alp_estimate_values(const uint64_t *v, size_t n, const struct ig_int_desc *d,
                                  const struct enc_ectx *c)
{
    if ((d->width != 4 && d->width != 8) || d->is_signed) return SIZE_MAX;
    unsigned e, f;
    /* a sample of mostly exceptions foretells a block of them (random
     * floats: every value is one), and splitting the whole block to find
     * out was most of the CPU of adding a column of Gaussian vectors */
    if (!alp_choose(v, n, d->width, &e, &f)) return SIZE_MAX;
    uint64_t *ints = calloc(n ? n : 1, sizeof *ints), *pos = malloc((n ? n : 1) * sizeof *pos);
    size_t est = SIZE_MAX, x = 0;
    if (ints && pos) {
        alp_split(v, n, e, f, d->width, ints, pos, &x);
        /* mostly exceptions: plain holds them better */
        size_t child = x * 2 <= n ? enc_int_leaf_estimate(ints, n, &alp_child_desc, c) : SIZE_MAX;
        if (child != SIZE_MAX) est = alp_head_size(n, x, d->width) + ig_varint_size(child) + child;
    }
    free(ints);
    free(pos);
    return est;
}

static size_t alp_estimate(const struct int_stats *st, const struct ig_int_desc *d, const struct enc_ectx *c)
{
    (void)st;
    (void)d;
    (void)c;
    return 0; /* weighed from the values (alp_estimate_values); a forced alp finds out in encode */
}

/* [13] e f x pw positions lanes, then the child of d (its 0 lanes are
 * markers where the scheme has them, so exceptions and erased slots cost
 * nothing in a frame of reference's range). */
static int alp_put(const uint64_t *v, const uint64_t *d, size_t n, unsigned e, unsigned f,
                   const uint64_t *pos, size_t x, unsigned width, const struct enc_ectx *c,
                   struct ig_buf *out)
{
    unsigned pw = n ? ig_bit_width(n - 1) : 0;
    size_t head = alp_head_size(n, x, width);
    uint8_t *h = ig_buf_extend(out, head);
    if (!h) return enc_nomem(c->err);
    size_t at = 0;
    h[at++] = IG_ENC_ALP;
    h[at++] = (uint8_t)e;
    h[at++] = (uint8_t)f;
    at += ig_varint_put(h + at, x);
    h[at++] = (uint8_t)pw;
    ig_bitpack_pack(h + at, pos, x, pw);
    at += ig_bitpack_size(x, pw);
    for (size_t k = 0; k < x; k++, at += width) {
        uint64_t lane = v[pos[k]];
        for (unsigned b = 0; b < width; b++)
            h[at + b] = (uint8_t)(lane >> (8 * b));
    }
    return enc_int_encode_child(d, n, &alp_child_desc, c, ENC_BIT(IG_ENC_DICT),
                                ENC_CHILD_NO_DROP | ENC_CHILD_ZERO_MARKS, out);
}

static int alp_encode(const uint64_t *v, size_t n, const struct ig_int_desc *d, const struct int_stats *st,
                      struct enc_ectx *c, struct ig_buf *out)
{
    (void)st;
    if ((d->width != 4 && d->width != 8) || d->is_signed)
        return ig_err(c->err, -EINVAL, "encoding alp needs float32 or float64 lanes");
    uint64_t *ints = calloc(n ? n : 1, sizeof *ints), *pos = malloc((n ? n : 1) * sizeof *pos);
    int rc = ints && pos ? 0 : enc_nomem(c->err);
    if (!rc) {
        unsigned e, f;
        size_t x;
        (void)alp_choose(v, n, d->width, &e, &f);
        alp_split(v, n, e, f, d->width, ints, pos, &x);
        rc = alp_put(v, ints, n, e, f, pos, x, d->width, c, out);
    }
    free(ints);
    free(pos);
    return rc;
}

struct alp_view {
    unsigned e, f, pw;
    size_t x;
    const uint8_t *pos, *lanes, *child;
    size_t pos_len, child_len, used;
};

static int alp_parse(const uint8_t *p, size_t len, size_t n, unsigned width, struct alp_view *av,
                     struct ig_error *err)
{
    if (width != 4 && width != 8)
        return ig_err(err, -EIO, "alp stream: lanes of %u bytes are no floats", width);
    if (len < 4) return ig_err(err, -EIO, "alp stream: truncated header");
    av->e = p[1];
    av->f = p[2];
    if (av->e > max_e(width) || av->f > max_e(width) || (av->e && av->f))
        return ig_err(err, -EIO, "alp stream: exponent %u, factor %u (at most %u, one of them)", av->e, av->f,
                      max_e(width));
    size_t pos = 3;
    uint64_t x;
    int rc = enc_field(p, len, &pos, &x, "alp", "exception count", err);
    if (rc) return rc;
    if (x > n) return ig_err(err, -EIO, "alp stream: %llu exceptions among %zu values", (unsigned long long)x, n);
    av->x = (size_t)x;
    if (pos >= len) return ig_err(err, -EIO, "alp stream: truncated header");
    av->pw = p[pos++];
    /* the block's width, as every writer writes it: an erase that keeps e
     * and f writes the positions back at it, in room sized for it */
    if (av->pw != (n ? ig_bit_width(n - 1) : 0))
        return ig_err(err, -EIO, "alp stream: position width %u is not the block's", av->pw);
    av->pos_len = ig_bitpack_size(av->x, av->pw);
    size_t lanes = av->x * width;
    if (av->pos_len > len - pos || lanes > len - pos - av->pos_len)
        return ig_err(err, -EIO, "alp stream: exceptions past the end");
    av->pos = p + pos;
    av->lanes = p + pos + av->pos_len;
    pos += av->pos_len + lanes;
    rc = enc_sub(p, len, &pos, &av->child, &av->child_len, "alp", "integers", err);
    av->used = pos;
    return rc;
}

static inline uint64_t lane_at(const struct alp_view *av, size_t k, unsigned width)
{
    uint64_t v = 0;
    for (unsigned b = 0; b < width; b++)
        v |= (uint64_t)av->lanes[k * width + b] << (8 * b);
    return v;
}

/* The exception positions, checked ascending and below n. */
static int alp_positions(const struct alp_view *av, size_t n, uint64_t *pos, struct ig_error *err)
{
    ig_bitpack_unpack(pos, av->pos, av->x, av->pw);
    for (size_t k = 0; k < av->x; k++)
        if (pos[k] >= n || (k && pos[k] <= pos[k - 1]))
            return ig_err(err, -EIO, "alp stream: exception position %llu out of order",
                          (unsigned long long)pos[k]);
    return 0;
}

static int alp_decode(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                      const uint8_t *absent, uint64_t *out, size_t *used, struct enc_dctx *c)
{
    struct alp_view av;
    int rc = alp_parse(p, len, n, d->width, &av, c->err);
    size_t child_used;
    if (!rc) rc = enc_int_decode(av.child, av.child_len, n, &alp_child_desc, absent, out, &child_used, c);
    if (rc) return rc;
    if (d->width == 4) {
        for (size_t i = 0; i < n; i++)
            out[i] = ig_f32_lane((float)(int64_t)out[i] * p10f[av.f] / p10f[av.e]);
    } else {
        const double mul = p10[av.f], div = p10[av.e];
        for (size_t i = 0; i < n; i++)
            out[i] = ig_f64_lane((double)(int64_t)out[i] * mul / div);
    }
    uint64_t *pos = malloc((av.x ? av.x : 1) * sizeof *pos);
    if (!pos) return enc_nomem(c->err);
    rc = alp_positions(&av, n, pos, c->err);
    for (size_t k = 0; !rc && k < av.x; k++)
        out[pos[k]] = lane_at(&av, k, d->width);
    free(pos);
    if (!rc) *used = av.used;
    return rc;
}

static int alp_get(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                   const uint8_t *absent, size_t i, uint64_t *out, struct enc_dctx *c)
{
    struct alp_view av;
    int rc = alp_parse(p, len, n, d->width, &av, c->err);
    if (rc) return rc;
    size_t lo = 0, hi = av.x; /* the first position >= i */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ig_bitpack_get(av.pos, av.pos_len, mid, av.pw) < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < av.x && ig_bitpack_get(av.pos, av.pos_len, lo, av.pw) == i) {
        *out = lane_at(&av, lo, d->width);
        return 0;
    }
    uint64_t m = 0;
    rc = enc_int_get(av.child, av.child_len, n, &alp_child_desc, absent, i, &m, c);
    if (!rc) *out = alp_decode_one((int64_t)m, av.e, av.f, d->width);
    return rc;
}

/* The nested stream erased by its own rule (a killed d is 0: the lane 0,
 * +0.0), the killed exceptions out of the list; e and f kept: what
 * alp_erase falls back to where choosing them again from the live values
 * made the integers wider (a stream of 7.7 KB grew to 12.8). */
static int alp_erase_kept(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                          const uint8_t *absent, const uint8_t *kill, struct enc_dctx *c,
                          struct ig_buf *out)
{
    struct alp_view av;
    int rc = alp_parse(p, len, n, d->width, &av, c->err);
    if (rc) return rc;
    uint64_t *pos = malloc((av.x ? av.x : 1) * sizeof *pos);
    struct ig_buf child = IG_BUF_INIT;
    rc = pos ? alp_positions(&av, n, pos, c->err) : enc_nomem(c->err);
    if (!rc)
        rc = enc_int_erase(av.child, av.child_len, n, &alp_child_desc, absent, kill, false, c, &child);
    /* the exceptions kept: their positions moved down over the killed ones,
     * and in from[] where their lanes are */
    size_t x = 0, *from = rc ? NULL : malloc((av.x ? av.x : 1) * sizeof *from);
    if (!rc && !from) rc = enc_nomem(c->err);
    for (size_t k = 0; !rc && k < av.x; k++)
        if (!bm_get(kill, pos[k])) {
            from[x] = k;
            pos[x++] = pos[k];
        }
    if (!rc) {
        size_t head = alp_head_size(n, x, d->width);
        uint8_t *h = ig_buf_extend(out, head);
        if (!h) {
            rc = enc_nomem(c->err);
        } else {
            size_t at = 0;
            h[at++] = IG_ENC_ALP;
            h[at++] = (uint8_t)av.e;
            h[at++] = (uint8_t)av.f;
            at += ig_varint_put(h + at, x);
            h[at++] = (uint8_t)av.pw;
            ig_bitpack_pack(h + at, pos, x, av.pw);
            at += ig_bitpack_size(x, av.pw);
            for (size_t k = 0; k < x; k++)
                memcpy(h + at + k * d->width, av.lanes + from[k] * d->width, d->width);
            if (enc_put_sub(out, child.data, child.len)) rc = enc_nomem(c->err);
        }
    }
    ig_buf_free(&child);
    free(from);
    free(pos);
    return rc;
}

static int alp_check(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                     const uint8_t *absent, const uint8_t *erased, size_t *used, struct enc_dctx *c)
{
    struct alp_view av;
    int rc = alp_parse(p, len, n, d->width, &av, c->err);
    uint64_t *pos = rc ? NULL : malloc((av.x ? av.x : 1) * sizeof *pos);
    if (!rc && !pos) rc = enc_nomem(c->err);
    if (!rc) rc = alp_positions(&av, n, pos, c->err);
    for (size_t k = 0; !rc && k < av.x; k++)
        if (bm_get(erased, pos[k]))
            rc = ig_err(c->err, -EIO, "alp stream: erased value %llu is still an exception",
                        (unsigned long long)pos[k]);
    if (!rc) rc = enc_int_check(av.child, av.child_len, n, &alp_child_desc, absent, erased, c);
    if (!rc) *used = av.used;
    free(pos);
    return rc;
}

/* Decoded, the killed values 0, encoded afresh with e and f chosen again:
 * the result depends on the live values only (no exponent chosen for an
 * erased value's digits). Where that comes out longer than the stream,
 * alp_erase_kept instead (rare: the live values alone chose a wider e). */
static int alp_erase(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                     const uint8_t *absent, const uint8_t *kill, bool may_drop, struct enc_dctx *c,
                     struct ig_buf *out)
{
    (void)may_drop; /* the child never drops */
    size_t start = out->len;
    uint64_t *v = malloc((n ? n : 1) * sizeof *v);
    size_t used;
    int rc = v ? alp_decode(p, len, n, d, absent, v, &used, c) : enc_nomem(c->err);
    if (!rc) {
        for (size_t i = 0; i < n; i++)
            if (bm_get(kill, i)) v[i] = 0;
        struct enc_ectx ec;
        enc_ectx_from_dctx(c, &ec);
        ec.used |= ENC_BIT(IG_ENC_ALP);
        rc = alp_encode(v, n, d, NULL, &ec, out);
    }
    free(v);
    if (!rc && out->len - start > len) {
        out->len = start;
        rc = alp_erase_kept(p, len, n, d, absent, kill, c, out);
    }
    return rc;
}

const struct int_scheme enc_alp_int = {
    .id = IG_ENC_ALP,
    .name = "alp",
    .composite = true,
    .estimate = alp_estimate,
    .estimate_values = alp_estimate_values,
    .encode = alp_encode,
    .decode = alp_decode,
    .get = alp_get,
    .erase = alp_erase,
    .check = alp_check,
};
