#include "format/model/render.h"
#include "format/model/types.h"
#include "blob/blob.h"
#include "util/buf.h"
#include "util/endian.h"

#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Lay out a digit string d[0..nd) with decimal exponent e (value = 0.d * 10^e ...
 * here: value = d[0].d[1..] x 10^exp10) the way Python's repr does: positional
 * when -4 <= exp10 < 16, else scientific with a sign and at least two exponent
 * digits; positional integers get ".0". */
static size_t layout_repr(char *out, bool neg, const char *d, int nd, int exp10)
{
    char *o = out;
    if (neg) *o++ = '-';
    if (exp10 >= -4 && exp10 < 16) {
        if (exp10 < 0) {
            *o++ = '0';
            *o++ = '.';
            for (int i = 0; i < -exp10 - 1; i++)
                *o++ = '0';
            memcpy(o, d, (size_t)nd);
            o += nd;
        } else {
            int intdigits = exp10 + 1;
            for (int i = 0; i < intdigits; i++)
                *o++ = i < nd ? d[i] : '0';
            *o++ = '.';
            if (nd > intdigits) {
                memcpy(o, d + intdigits, (size_t)(nd - intdigits));
                o += nd - intdigits;
            } else {
                *o++ = '0';
            }
        }
    } else {
        *o++ = d[0];
        if (nd > 1) {
            *o++ = '.';
            memcpy(o, d + 1, (size_t)(nd - 1));
            o += nd - 1;
        }
        o += sprintf(o, "e%c%02d", exp10 < 0 ? '-' : '+', abs(exp10));
    }
    *o = '\0';
    return (size_t)(o - out);
}

/* From "%.*e" output ("-d.ddde+XX") extract digits without trailing zeros and the
 * exponent. */
static int split_sci(const char *s, char *digits, int *nd, int *exp10)
{
    const char *p = s;
    if (*p == '-') p++;
    int n = 0;
    for (; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9') digits[n++] = *p;
    if (*p != 'e') return -1;
    *exp10 = atoi(p + 1);
    while (n > 1 && digits[n - 1] == '0')
        n--;
    *nd = n;
    return 0;
}

static size_t special(char *out, double d)
{
    if (isnan(d)) return (size_t)sprintf(out, "NaN");
    if (isinf(d)) return (size_t)sprintf(out, d < 0 ? "-Infinity" : "Infinity");
    return 0;
}

size_t ig_format_f64(char *out, double d)
{
    size_t sp = special(out, d);
    if (sp) return sp;
    if (d == 0) return (size_t)sprintf(out, signbit(d) ? "-0.0" : "0.0");
    /* The correctly rounded p-digit form round-trips for some p in 15..17, and when
     * it does for p it is the shortest one: any shorter round-tripping string would
     * itself be what rounding to p digits yields (DBL_DIG = 15). */
    char tmp[40], digits[24];
    /* subnormals carry fewer significant digits: search from one */
    for (int prec = fabs(d) < DBL_MIN ? 1 : 15; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*e", prec - 1, d);
        if (prec == 17 || strtod(tmp, NULL) == d) break;
    }
    int nd = 0, e = 0;
    split_sci(tmp, digits, &nd, &e);
    return layout_repr(out, d < 0, digits, nd, e);
}

/* Exact powers of ten in double (10^22 is the last). */
static const double pow10_exact[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* 10^k for |k| <= 22, correctly rounded (the exact 1e22 / 10^-k): the same
 * value scale10(1.0, k) computes, without the division. */
static const double pow10_rounded[45] = {
    1e-22, 1e-21, 1e-20, 1e-19, 1e-18, 1e-17, 1e-16, 1e-15, 1e-14, 1e-13, 1e-12, 1e-11,
    1e-10, 1e-9,  1e-8,  1e-7,  1e-6,  1e-5,  1e-4,  1e-3,  1e-2,  1e-1,  1e0,   1e1,
    1e2,   1e3,   1e4,   1e5,   1e6,   1e7,   1e8,   1e9,   1e10,  1e11,  1e12,  1e13,
    1e14,  1e15,  1e16,  1e17,  1e18,  1e19,  1e20,  1e21,  1e22};
static bool pow10_of(int k, double *out)
{
    if (k > 22 || k < -22) return false;
    *out = pow10_rounded[k + 22];
    return true;
}

/* x * 10^k with one rounding, or false when 10^|k| is not exact in double. */
static bool scale10(double x, int k, double *out)
{
    if (k > 22 || k < -22) return false;
    *out = k >= 0 ? x * pow10_exact[k] : x / pow10_exact[-k];
    return true;
}

/* The decimals that read back as |f| lie strictly between lo and hi (the
 * midpoints to the neighbouring floats, exact in double). */
struct f32_window {
    double v, lo, hi, tol;
    int e; /* floor(log10 v) */
    /* for 1e-4 <= v < 1e9: v, lo and hi x 10^(8 - e), all exact in double (24
     * or 25 significant bits times 5^m, m <= 12: 28 bits), v's as integer and
     * fraction: every candidate is then decided in exact arithmetic */
    bool exact, even; /* even: f's significand is (midpoints read back as f) */
    uint64_t si;
    double sf, sl, sh;
};

enum { CAND_OUT = 0, CAND_IN = 1, CAND_UNSURE = -1 };

/* The n-digit decimal nearest v, d x 10^(e - n + 1) with 10^(n-1) <= d <= 10^n
 * (d = 10^n when v rounds up to the next power of ten): does it read back as
 * the float? CAND_UNSURE when double rounding could have decided it. */
static int f32_candidate(const struct f32_window *w, int n, double *d_out)
{
    if (w->exact) { /* in units of 10^(e - 8): the candidate is d x 10^(9 - n) */
        uint64_t unit = (uint64_t)pow10_exact[9 - n], q = w->si / unit;
        double rem = (double)(w->si % unit) + w->sf, half = (double)unit / 2; /* both exact */
        if (rem > half || (rem == half && q % 2)) q++; /* nearest, ties to even as printf */
        double c = (double)(q * unit);
        *d_out = (double)q;
        /* a decimal on a midpoint reads back as the float with the even significand */
        bool in = (c > w->sl && c < w->sh) || (w->even && (c == w->sl || c == w->sh));
        return in ? CAND_IN : CAND_OUT;
    }
    int k = w->e - n + 1; /* the candidate is d x 10^k */
    double scaled;
    if (!scale10(w->v, -k, &scaled)) return CAND_UNSURE;
    double fl = floor(scaled), frac = scaled - fl, d;
    /* v (24 significant bits) x 10^m for m <= 12 (5^m: 28 bits) is exact in
     * double, so a tie there is a true one, which printf rounds to even:
     * values with few significant bits (quantised ones) tie often */
    bool exact = k <= 0 && k >= -12;
    if (exact && frac == 0.5)
        d = fmod(fl, 2) == 0 ? fl : fl + 1;
    else if (!exact && fabs(frac - 0.5) < scaled * 0x1p-45)
        return CAND_UNSURE; /* a near tie that double rounding may have made */
    else
        d = frac > 0.5 ? fl + 1 : fl;
    double back;
    if (!scale10(d, k, &back)) return CAND_UNSURE;
    if (fabs(back - w->lo) <= w->tol || fabs(back - w->hi) <= w->tol) return CAND_UNSURE;
    *d_out = d;
    return back > w->lo && back < w->hi ? CAND_IN : CAND_OUT;
}

/* The same digits as ig_format_f32_exact in double arithmetic: the fewest
 * digits n (1..9) whose nearest decimal reads back as f. Every step whose
 * double rounding could matter (a nearest-digit tie, a value by a float
 * midpoint, a power of ten not exact in double) is refused, and the caller
 * falls back to the printf/strtof search. When f's neighbours are equally far
 * (every float but a power of two), a decimal that reads back as f implies
 * that every nearer one does, so n need not be searched from 1: 2 or 3
 * candidates, not up to 9. */
static bool format_f32_fast(char *out, float f, size_t *len)
{
    double v = fabs((double)f);
    if (v < FLT_MIN || v >= FLT_MAX) return false; /* subnormals, the top: keep them exact */
    float af = fabsf(f), fb, fa;
    uint32_t bits, nb, na;
    memcpy(&bits, &af, 4);
    nb = bits - 1; /* the neighbours of a positive normal float */
    na = bits + 1;
    memcpy(&fb, &nb, 4);
    memcpy(&fa, &na, 4);
    double below = fb, above = fa;
    struct f32_window w = {
        v, (v + below) / 2, (v + above) / 2, v * 0x1p-48, 0, false, false, 0, 0, 0, 0};
    int b2 = (int)(bits >> 23) - 126; /* v in [2^(b2-1), 2^b2): log10 v to within one */
    w.e = (int)floor((b2 - 1) * 0.30102999566398119521);
    double p;
    if (!pow10_of(w.e + 1, &p)) return false;
    if (v >= p)
        w.e++;
    else if (!pow10_of(w.e, &p))
        return false;
    else if (v < p)
        w.e--;
    double d, pe; /* check the fixed-up exponent: 10^e <= v < 10^(e+1) */
    if (!pow10_of(w.e, &pe) || !pow10_of(w.e + 1, &p) || v < pe || v >= p) return false;
    bool symmetric = v - below == above - v; /* every float but a power of two */
    int n_lo = 1, r;
    if (w.e >= -4 && w.e <= 8) {
        double scale = pow10_exact[8 - w.e], sv = v * scale;
        w.exact = true;
        w.even = (bits & 1) == 0;
        w.si = (uint64_t)sv;
        w.sf = sv - (double)w.si;
        w.sl = w.lo * scale;
        w.sh = w.hi * scale;
        if (symmetric) {
            /* a window wider than the digit's unit holds a multiple of it, so the
             * nearest is inside: start at the fewest digits where that holds
             * and only try fewer (a decimal that reads back as f implies that
             * every nearer one does) */
            int n = 9;
            while (n > 1 && pow10_exact[9 - (n - 1)] < w.sh - w.sl)
                n--;
            while (n > 1 && f32_candidate(&w, n - 1, &d) == CAND_IN)
                n--;
            n_lo = n;
        }
    } else if (symmetric) { /* bisection over 1..9 digits, by the same argument */
        int n_hi = 9;
        while (n_lo < n_hi) {
            int mid = (n_lo + n_hi) / 2;
            if ((r = f32_candidate(&w, mid, &d)) == CAND_UNSURE) return false;
            if (r == CAND_IN)
                n_hi = mid;
            else
                n_lo = mid + 1;
        }
    }
    for (int n = n_lo; n <= 9; n++) {
        if ((r = f32_candidate(&w, n, &d)) == CAND_UNSURE) return false;
        if (r == CAND_OUT) continue;
        int e10 = w.e;
        if (d >= pow10_exact[n]) { /* rounded up to 10^(e+1): one digit */
            d = pow10_exact[n - 1];
            e10++;
        }
        char digits[16];
        uint64_t di = (uint64_t)d;
        for (int i = n - 1; i >= 0; i--, di /= 10)
            digits[i] = (char)('0' + di % 10);
        int nd = n;
        while (nd > 1 && digits[nd - 1] == '0')
            nd--;
        *len = layout_repr(out, f < 0, digits, nd, e10);
        return true;
    }
    return false;
}

size_t ig_format_f32(char *out, float f)
{
    size_t sp = special(out, f);
    if (sp) return sp;
    if (f == 0) return (size_t)sprintf(out, signbit(f) ? "-0.0" : "0.0");
    size_t len;
    if (format_f32_fast(out, f, &len)) return len;
    return ig_format_f32_exact(out, f);
}

size_t ig_format_f32_exact(char *out, float f)
{
    size_t sp = special(out, f);
    if (sp) return sp;
    if (f == 0) return (size_t)sprintf(out, signbit(f) ? "-0.0" : "0.0");
    char tmp[40], digits[24];
    for (int prec = fabsf(f) < FLT_MIN ? 1 : 6; prec <= 9; prec++) {
        snprintf(tmp, sizeof tmp, "%.*e", prec - 1, (double)f);
        if (prec == 9 || strtof(tmp, NULL) == f) break;
    }
    int nd = 0, e = 0;
    split_sci(tmp, digits, &nd, &e);
    return layout_repr(out, f < 0, digits, nd, e);
}

static inline double lane_f64(uint64_t lane)
{
    double d;
    memcpy(&d, &lane, 8);
    return d;
}

static inline float lane_f32(uint64_t lane)
{
    uint32_t b = (uint32_t)lane;
    float f;
    memcpy(&f, &b, 4);
    return f;
}

static size_t fmt_u64(char *out, uint64_t v)
{
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (int i = 0; i < n; i++)
        out[i] = tmp[n - 1 - i];
    return (size_t)n;
}

static size_t fmt_i64(char *out, int64_t v)
{
    if (v < 0) {
        out[0] = '-';
        return 1 + fmt_u64(out + 1, (uint64_t)0 - (uint64_t)v);
    }
    return fmt_u64(out, (uint64_t)v);
}

/* Scalars shared by text and JSON: numbers and bool. Returns length written into
 * out (>= 40 bytes). */
static size_t format_lane(char *out, uint8_t type, uint64_t lane, bool json)
{
    switch (type) {
    case IG_T_BOOL:
        if (json) return (size_t)sprintf(out, lane ? "true" : "false");
        out[0] = lane ? 't' : 'f';
        return 1;
    case IG_T_INT8:
        return fmt_i64(out, (int8_t)lane);
    case IG_T_INT16:
        return fmt_i64(out, (int16_t)lane);
    case IG_T_INT32:
        return fmt_i64(out, (int32_t)lane);
    case IG_T_INT64:
        return fmt_i64(out, (int64_t)lane);
    case IG_T_UINT8:
        return fmt_u64(out, (uint8_t)lane);
    case IG_T_UINT16:
        return fmt_u64(out, (uint16_t)lane);
    case IG_T_UINT32:
        return fmt_u64(out, (uint32_t)lane);
    case IG_T_UINT64:
        return fmt_u64(out, lane);
    case IG_T_FLOAT32:
    case IG_T_FLOAT64: {
        char tmp[IG_FLOAT_TEXT_MAX];
        size_t n = type == IG_T_FLOAT32 ? ig_format_f32(tmp, lane_f32(lane))
                                        : ig_format_f64(tmp, lane_f64(lane));
        if (json && (tmp[0] == 'N' || tmp[0] == 'I' || tmp[1] == 'I')) {
            out[0] = '"';
            memcpy(out + 1, tmp, n);
            out[n + 1] = '"';
            return n + 2;
        }
        memcpy(out, tmp, n);
        return n;
    }
    default:
        out[0] = '?';
        return 1;
    }
}

static const char hexdig[] = "0123456789abcdef";

static int append_hex(struct ig_buf *out, const uint8_t *p, size_t n)
{
    uint8_t *o = ig_buf_extend(out, 2 + 2 * n);
    if (!o) return -ENOMEM;
    *o++ = '\\';
    *o++ = 'x';
    for (size_t i = 0; i < n; i++) {
        *o++ = (uint8_t)hexdig[p[i] >> 4];
        *o++ = (uint8_t)hexdig[p[i] & 15];
    }
    return 0;
}

static int append_copy_string(struct ig_buf *out, const uint8_t *p, size_t n)
{
    /* Worst case every byte doubles. */
    int rc = ig_buf_reserve(out, 2 * n);
    if (rc) return rc;
    uint8_t *o = out->data + out->len;
    for (size_t i = 0; i < n; i++) {
        uint8_t c = p[i];
        switch (c) {
        case '\\':
            *o++ = '\\';
            *o++ = '\\';
            break;
        case '\n':
            *o++ = '\\';
            *o++ = 'n';
            break;
        case '\r':
            *o++ = '\\';
            *o++ = 'r';
            break;
        case '\t':
            *o++ = '\\';
            *o++ = 't';
            break;
        default:
            *o++ = c;
        }
    }
    out->len = (size_t)(o - out->data);
    return 0;
}

/* A blob value as JSON: {"path": "blobs/COL/ID.ext", "size": N}, or for a
 * list<blob> an array of them (paths blobs/COL/ID/K.ext). */
static int render_blob(struct ig_buf *out, const struct ig_values *v, size_t i, bool list)
{
    size_t len;
    const uint8_t *p = ig_values_bytes(v, i, &len);
    size_t k = len / IG_BLOB_REF_BYTES, first = 0;
    uint64_t row = v->row_base + i;
    bool in_row = false;
    if (v->levels && v->rows && v->row_val) {
        /* a blob leaf of a nested column: value i is object K of its row, named
         * ROW/K (K counts the row's objects), the name the mount serves */
        size_t lo = 0, hi = v->rows;
        while (hi - lo > 1) {
            size_t mid = lo + (hi - lo) / 2;
            if (v->row_val[mid] <= i)
                lo = mid;
            else
                hi = mid;
        }
        row = v->row_base + lo;
        first = i - v->row_val[lo];
        in_row = true;
        list = false;
    }
    const char *dir = v->blob_dir ? v->blob_dir : "blobs/?";
    int rc = list ? ig_buf_append_byte(out, '[') : 0;
    for (size_t j = 0; j < k && !rc; j++) {
        struct ig_blob_ref r;
        unsigned kind;
        ig_blob_ref_load(p + j * IG_BLOB_REF_BYTES, &r, &kind);
        const char *ext = ig_blob_kind_ext(kind);
        char path[64];
        if (list || in_row)
            snprintf(path, sizeof path, "/%" PRIu64 "/%zu%s%s", row, first + j, *ext ? "." : "",
                     ext);
        else
            snprintf(path, sizeof path, "/%" PRIu64 "%s%s", row, *ext ? "." : "", ext);
        rc = ig_buf_printf(out, "%s{\"path\":", j ? "," : "");
        struct ig_buf full = IG_BUF_INIT;
        if (!rc) rc = ig_buf_printf(&full, "%s%s", dir, path);
        if (!rc) rc = ig_render_json_string(out, full.data, full.len);
        ig_buf_free(&full);
        if (!rc) rc = ig_buf_printf(out, ",\"size\":%" PRIu64 "}", r.size);
    }
    if (!rc && list) rc = ig_buf_append_byte(out, ']');
    if (!rc && !list && k != 1) rc = ig_buf_printf(out, "null");
    return rc;
}

int ig_render_text_value(struct ig_buf *out, const struct ig_values *v, size_t i)
{
    if (ig_values_is_null(v, i)) return ig_buf_append(out, "\\N", 2);
    if (v->type == IG_T_BLOB) return render_blob(out, v, i, v->blob_list);
    if (v->is_bytes) {
        size_t n;
        const uint8_t *p = ig_values_bytes(v, i, &n);
        return v->type == IG_T_BINARY ? append_hex(out, p, n) : append_copy_string(out, p, n);
    }
    char tmp[48];
    size_t n = format_lane(tmp, v->type, v->lanes[i], false);
    return ig_buf_append(out, tmp, n);
}

int ig_render_text_lines(struct ig_buf *out, const struct ig_values *v, const uint8_t *deleted)
{
    for (size_t i = 0; i < v->n; i++) {
        if (deleted && ((deleted[i / 8] >> (i % 8)) & 1)) continue;
        int rc = ig_render_text_value(out, v, i);
        if (!rc) rc = ig_buf_append_byte(out, '\n');
        if (rc) return rc;
    }
    return 0;
}

int ig_render_text_len(const struct ig_values *v, const uint8_t *deleted, struct ig_buf *scratch,
                       uint64_t *len)
{
    uint64_t total = 0;
    /* Render in slices so the scratch stays small on huge pages. */
    for (size_t i = 0; i < v->n; i++) {
        if (deleted && ((deleted[i / 8] >> (i % 8)) & 1)) continue;
        if (!v->is_bytes && !ig_values_is_null(v, i)) {
            char tmp[48];
            total += format_lane(tmp, v->type, v->lanes[i], false) + 1;
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

int ig_render_fixed(struct ig_buf *out, const struct ig_values *v, const uint8_t *deleted,
                    bool as_validity)
{
    const struct ig_type_info *ti = ig_type_info(v->type);
    if (!ti || ti->phys != IG_PHYS_LANES) return -EINVAL;
    uint32_t w = as_validity ? 1 : ti->width;
    uint8_t *o = ig_buf_extend(out, v->n * w);
    if (!o && v->n) return -ENOMEM;
    size_t k = 0;
    bool fast = !deleted && !v->has_nulls && !as_validity && w == 8 &&
                __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
    if (fast) { /* the common case for int64/float64: one copy */
        memcpy(o, v->lanes, v->n * 8);
        k = v->n * 8;
    }
    for (size_t i = 0; i < v->n && !fast; i++) {
        if (deleted && (deleted[i / 8] >> (i % 8) & 1)) continue;
        bool null = ig_values_is_null(v, i);
        if (as_validity) {
            o[k++] = !null;
            continue;
        }
        ig_render_fixed_at(o + k, v, i);
        k += w;
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

/* Length of a valid UTF-8 sequence starting at p (1..4), or 0 if invalid. */
static size_t utf8_seq(const uint8_t *p, size_t n)
{
    uint8_t c = p[0];
    if (c < 0x80) return 1;
    size_t len;
    uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (n < len) return 0;
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xC0) != 0x80) return 0;
        cp = cp << 6 | (p[i] & 0x3F);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
        (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
        return 0;
    return len;
}

int ig_render_json_string(struct ig_buf *out, const uint8_t *p, size_t n)
{
    int rc = ig_buf_reserve(out, n + 2);
    if (rc) return rc;
    rc = ig_buf_append_byte(out, '"');
    size_t i = 0;
    while (i < n && !rc) {
        uint8_t c = p[i];
        if (c == '"' || c == '\\') {
            uint8_t e[2] = {'\\', c};
            rc = ig_buf_append(out, e, 2);
            i++;
        } else if (c < 0x20) {
            char e[8];
            const char *s = c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\r' ? "\\r" : NULL;
            if (!s) {
                snprintf(e, sizeof e, "\\u%04x", c);
                s = e;
            }
            rc = ig_buf_append(out, s, strlen(s));
            i++;
        } else if (c < 0x80) {
            rc = ig_buf_append_byte(out, c);
            i++;
        } else {
            size_t l = utf8_seq(p + i, n - i);
            if (l == 0) {
                rc = ig_buf_append(out, "\\ufffd", 6);
                i++;
            } else {
                rc = ig_buf_append(out, p + i, l);
                i += l;
            }
        }
    }
    if (!rc) rc = ig_buf_append_byte(out, '"');
    return rc;
}

int ig_render_json_value(struct ig_buf *out, const struct ig_values *v, size_t i)
{
    if (ig_values_is_null(v, i)) return ig_buf_append(out, "null", 4);
    if (v->type == IG_T_BLOB) return render_blob(out, v, i, v->blob_list);
    if (v->is_bytes) {
        size_t n;
        const uint8_t *p = ig_values_bytes(v, i, &n);
        if (v->type == IG_T_STRING) return ig_render_json_string(out, p, n);
        /* binary: the same \x hex form as the text rendering, as a JSON string */
        int rc = ig_buf_append(out, "\"\\\\x", 4);
        for (size_t k = 0; k < n && !rc; k++) {
            uint8_t h[2] = {(uint8_t)hexdig[p[k] >> 4], (uint8_t)hexdig[p[k] & 15]};
            rc = ig_buf_append(out, h, 2);
        }
        if (!rc) rc = ig_buf_append_byte(out, '"');
        return rc;
    }
    char tmp[48];
    size_t n = format_lane(tmp, v->type, v->lanes[i], true);
    return ig_buf_append(out, tmp, n);
}
