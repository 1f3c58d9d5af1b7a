#include "format/model/render.h"
#include "format/model/float_len_x8.h"
#include "format/model/int_len.h"
#include "format/model/types.h"
#include "blob/blob.h"
#include "util/buf.h"
#include "util/cpu.h"
#include "util/endian.h"
#include "util/floatbits.h"
#include "util/shortest.h"

#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if IG_HAVE_X8
#include <immintrin.h>
#endif
#if defined(__SSE2__) && defined(__x86_64__)
#define IG_HAVE_SSE2 1
#include <emmintrin.h>
#else
#define IG_HAVE_SSE2 0
#endif

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

/* NaN, the infinities and zeros (a float's too: it widens exactly); 0 for
 * every other value. */
static size_t special(char *out, double d)
{
    if (isnan(d)) return (size_t)sprintf(out, "NaN");
    if (isinf(d)) return (size_t)sprintf(out, d < 0 ? "-Infinity" : "Infinity");
    if (d == 0) return (size_t)sprintf(out, signbit(d) ? "-0.0" : "0.0");
    return 0;
}

/* The powers of two (by biased exponent) whose printf-search form is longer
 * than the shortest: 46 doubles and 3 floats. Footers written since format
 * version 2 store text lengths of the search's form, so these keep it
 * (tests/unit/test_shortest.c checks every power of two against the search). */
static const uint16_t pow2_search_f64[] = {
    6,    16,   66,   102,  215,  232,  235,  245,  318,  328,  361,  371,  474,  514,  527,  534,
    640,  657,  727,  883,  926,  946,  979,  999,  1112, 1145, 1155, 1195, 1205, 1298, 1328, 1368,
    1401, 1421, 1428, 1504, 1557, 1567, 1577, 1597, 1617, 1733, 1826, 1886, 1919, 1999};
static const uint8_t pow2_search_f32[] = {31, 214, 217};

static bool keeps_search_form_f64(double d)
{
    uint64_t bits;
    memcpy(&bits, &d, 8);
    if (bits & ((1ull << 52) - 1)) return false;
    unsigned bq = (unsigned)((bits >> 52) & 0x7ff);
    for (size_t i = 0; i < sizeof pow2_search_f64 / sizeof pow2_search_f64[0]; i++)
        if (pow2_search_f64[i] == bq) return true;
    return false;
}

static bool keeps_search_form_f32(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, 4);
    if (bits & ((1u << 23) - 1)) return false;
    unsigned bq = (bits >> 23) & 0xff;
    return bq == pow2_search_f32[0] || bq == pow2_search_f32[1] || bq == pow2_search_f32[2];
}

/* The shortest digits (util/shortest.c) in repr's layout. */
static size_t layout_shortest(char *out, bool neg, uint64_t digits, int exp10)
{
    char d[24];
    int nd = (int)ig_u64_digits(d, digits);
    return layout_repr(out, neg, d, nd, exp10 + nd - 1);
}

size_t ig_format_f64(char *out, double d)
{
    size_t sp = special(out, d);
    if (sp) return sp;
    if (keeps_search_form_f64(d)) return ig_format_f64_exact(out, d);
    uint64_t digits;
    int e;
    ig_shortest_f64(fabs(d), &digits, &e);
    return layout_shortest(out, d < 0, digits, e);
}

size_t ig_format_f64_exact(char *out, double d)
{
    size_t sp = special(out, d);
    if (sp) return sp;
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

size_t ig_format_f32(char *out, float f)
{
    size_t sp = special(out, f);
    if (sp) return sp;
    if (keeps_search_form_f32(f)) return ig_format_f32_exact(out, f);
    uint64_t digits;
    int e;
    ig_shortest_f32(fabsf(f), &digits, &e);
    return layout_shortest(out, f < 0, digits, e);
}

size_t ig_format_f32_exact(char *out, float f)
{
    size_t sp = special(out, f);
    if (sp) return sp;
    char tmp[40], digits[24];
    for (int prec = fabsf(f) < FLT_MIN ? 1 : 6; prec <= 9; prec++) {
        snprintf(tmp, sizeof tmp, "%.*e", prec - 1, (double)f);
        if (prec == 9 || strtof(tmp, NULL) == f) break;
    }
    int nd = 0, e = 0;
    split_sci(tmp, digits, &nd, &e);
    return layout_repr(out, f < 0, digits, nd, e);
}

/* Length of layout_repr's output for these digits, without writing it. */
static size_t layout_len(bool neg, int nd, int exp10)
{
    size_t n = neg;
    if (exp10 >= -4 && exp10 < 16) {
        if (exp10 < 0) return n + 2 + (size_t)(-exp10 - 1) + (size_t)nd;
        int intdigits = exp10 + 1;
        return n + (size_t)intdigits + 1 + (size_t)(nd > intdigits ? nd - intdigits : 1);
    }
    int ae = exp10 < 0 ? -exp10 : exp10;
    return n + 1 + (nd > 1 ? (size_t)nd : 0) + 2 + (ae >= 100 ? 3 : 2);
}

/* ig_format_f64_len with a guess of the decimal places, carried from value
 * to value through a run (ig_shortest_f64_shape_guided). */
static size_t f64_len_guided(double d, int *places)
{
    uint64_t bits;
    memcpy(&bits, &d, 8);
    /* one test for the rare ones: NaN and the infinities have every exponent
     * bit set, zeros and powers of two no fraction bits */
    if (((bits >> 52) & 0x7ff) == 0x7ff || !(bits << 12)) {
        char tmp[IG_FLOAT_TEXT_MAX];
        size_t sp = special(tmp, d);
        if (sp) return sp;
        if (keeps_search_form_f64(d)) return ig_format_f64_exact(tmp, d);
    }
    int nd, first;
    ig_shortest_f64_shape_guided(fabs(d), places, &nd, &first);
    return layout_len(d < 0, nd, first);
}

size_t ig_format_f64_len(double d)
{
    int places = -1;
    return f64_len_guided(d, &places);
}

size_t ig_format_f32_len(float f)
{
    char tmp[IG_FLOAT_TEXT_MAX];
    size_t sp = special(tmp, f);
    if (sp) return sp;
    if (keeps_search_form_f32(f)) return ig_format_f32_exact(tmp, f);
    int nd, first;
    ig_shortest_f32_shape(fabsf(f), &nd, &first);
    return layout_len(f < 0, nd, first);
}

static size_t fmt_u64(char *out, uint64_t v)
{
    return ig_u64_digits(out, v);
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
        size_t n = type == IG_T_FLOAT32 ? ig_format_f32(tmp, ig_lane_f32(lane))
                                        : ig_format_f64(tmp, ig_lane_f64(lane));
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
    if (v->is_bytes || v->type == IG_T_BLOB || ig_values_is_null(v, i)) return false;
    *len = lane_len(v->type, v->lanes[i], true);
    return true;
}

/* ig_format_f32_len of a finite, non-zero float that is not one of the powers
 * of two kept in the search's form, from its bits. */
static inline size_t f32_plain_len(uint32_t bits)
{
    float f;
    uint32_t mag = bits & 0x7fffffffu;
    memcpy(&f, &mag, 4);
    int nd, first;
    ig_shortest_f32_shape(f, &nd, &first);
    return layout_len(bits >> 31, nd, first);
}

/* Float32 text lengths, a run at a time, two ways: eight at a time
 * (float_len_x8.h) where the CPU can, and a per-thread memo of bits -> length,
 * which beats any computing for floats that repeat (rounded, quantised,
 * categorical values). The memo's hit rate over its last 256 lookups picks
 * the way; while the eight-at-a-time way runs, one block in 16 still goes
 * through the memo to keep that rate (and the memo) current. */
/* 4,096 slots (32 KiB): with 1,024, the ~600 values of floats rounded to 1/64
 * of a normal spread missed one lookup in 13 (slots shared), each miss a
 * shortest-digits search; with 4,096, one in 3,500. */
#define F32_MEMO_BITS 12
#define F32_MEMO_SLOTS (1u << F32_MEMO_BITS)
struct f32_len_state {
    uint64_t memo[F32_MEMO_SLOTS]; /* direct mapped: bits << 8 | length; bits 0 never asks */
    uint32_t blocks, tries, hits;
    bool memo_mode;
};
static _Thread_local struct f32_len_state f32_len_state;

static inline size_t f32_memo_len(struct f32_len_state *st, uint64_t lane, bool json)
{
    uint32_t bits = (uint32_t)lane;
    float f;
    memcpy(&f, &bits, 4);
    /* zero, NaN, infinities and the search-form powers of two: the long way */
    if (!(bits & 0x7fffffffu) || ((bits >> 23) & 0xff) == 0xff || keeps_search_form_f32(f))
        return lane_len(IG_T_FLOAT32, lane, json);
    uint64_t *slot = &st->memo[(uint32_t)(bits * 0x9E3779B1u) >> (32 - F32_MEMO_BITS)];
    st->tries++;
    if (*slot >> 8 == bits) {
        st->hits++;
        return *slot & 0xff;
    }
    size_t measured = f32_plain_len(bits);
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
        if (x8 && m == 8 && !st->memo_mode && (++st->blocks & 15)) {
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
        size_t len = f64_len_guided(d, &places) + (json && (isnan(d) || isinf(d)) ? 2 : 0);
        sum += counts ? (uint64_t)counts[j] * len : len;
    }
    return sum;
}

uint64_t ig_render_lanes_len_counted(uint8_t type, const uint64_t *lanes, const uint32_t *counts,
                                     size_t k, bool json)
{
    uint64_t sum = 0;
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

/* Are values [i, i + n) numbers, none of them NULL (measured from their lanes)? */
static bool numbers_run(const struct ig_values *v, size_t i, size_t n)
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
    if (v->type == IG_T_FLOAT32) {
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

/* ---- strings in text: a backslash before \, newline, CR and tab -----------
 * Eight bytes at a time: a text column is mostly bytes that need nothing. */

#define BYTES8(b) (0x0101010101010101ull * (uint8_t)(b))

/* 0x80 in each byte of w that is zero, exactly (no borrow crosses bytes). */
static inline uint64_t zero_bytes(uint64_t w)
{
    const uint64_t lo7 = 0x7f7f7f7f7f7f7f7full;
    return ~(((w & lo7) + lo7) | w | lo7);
}

/* 0x80 in each byte of w that text escapes. */
static inline uint64_t escaped_bytes(uint64_t w)
{
    return zero_bytes(w ^ BYTES8('\\')) | zero_bytes(w ^ BYTES8('\n')) | zero_bytes(w ^ BYTES8('\r')) |
           zero_bytes(w ^ BYTES8('\t'));
}

static inline unsigned count_marks(uint64_t marks) { return (unsigned)(((marks >> 7) * BYTES8(1)) >> 56); }

static const char escape_letter[256] = {['\\'] = '\\', ['\n'] = 'n', ['\r'] = 'r', ['\t'] = 't'};

/* Bytes a string's text form adds: one per escaped byte (short strings, and
 * the last few bytes, a byte at a time). */
static size_t string_escapes(const uint8_t *p, size_t n)
{
    size_t esc = 0, k = 0;
    for (; k + 8 <= n; k += 8) esc += count_marks(escaped_bytes(ig_ld64(p + k)));
    for (; k < n; k++) esc += escape_letter[p[k]] != 0;
    return esc;
}

#if IG_HAVE_X8
/* The escaped bytes of p[0, *n) 64 at a time; *n becomes what is left. */
static IG_X8 size_t escapes_x8(const uint8_t *p, size_t *n)
{
    const __m512i bs = _mm512_set1_epi8('\\'), nl = _mm512_set1_epi8('\n'), cr = _mm512_set1_epi8('\r'),
                  tab = _mm512_set1_epi8('\t');
    size_t esc = 0, k = 0;
    for (; k + 64 <= *n; k += 64) {
        __m512i w = _mm512_loadu_si512(p + k);
        __mmask64 m = _mm512_cmpeq_epi8_mask(w, bs) | _mm512_cmpeq_epi8_mask(w, nl) |
                      _mm512_cmpeq_epi8_mask(w, cr) | _mm512_cmpeq_epi8_mask(w, tab);
        esc += (size_t)__builtin_popcountll(m);
    }
    *n -= k;
    return esc;
}
#endif

#if IG_HAVE_SSE2
/* The escaped bytes of p[0, *n) 16 at a time with SSE2, which every x86-64
 * has: where AVX-512 is not, under half of string_escapes' instructions. Each
 * byte lane counts its matches (a match compares to -1) up to 255, then the
 * lanes are added up. *n becomes what is left. */
static size_t escapes_x2(const uint8_t *p, size_t *n)
{
    const __m128i bs = _mm_set1_epi8('\\'), nl = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r'),
                  tab = _mm_set1_epi8('\t');
    size_t esc = 0, k = 0, steps = *n / 16;
    while (steps) {
        size_t now = steps < 255 ? steps : 255;
        steps -= now;
        __m128i counts = _mm_setzero_si128();
        for (; now; now--, k += 16) {
            __m128i w = _mm_loadu_si128((const __m128i *)(p + k));
            __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(w, bs), _mm_cmpeq_epi8(w, nl)),
                                     _mm_or_si128(_mm_cmpeq_epi8(w, cr), _mm_cmpeq_epi8(w, tab)));
            counts = _mm_sub_epi8(counts, m);
        }
        __m128i sums = _mm_sad_epu8(counts, _mm_setzero_si128()); /* two 64-bit halves, each < 2,048 */
        esc += (size_t)_mm_cvtsi128_si64(sums) + (size_t)_mm_extract_epi16(sums, 4);
    }
    *n -= k;
    return esc;
}
#endif

/* string_escapes over many strings' bytes at once: 64 bytes a step where
 * the CPU has AVX-512, else 16 with SSE2 on x86-64 (the same count;
 * test_format and test_shortest run each path). */
static size_t bulk_escapes(const uint8_t *p, size_t n)
{
    size_t esc = 0;
#if IG_HAVE_X8
    if (n >= 64 && ig_cpu_avx512()) {
        size_t left = n;
        esc = escapes_x8(p, &left);
        p += n - left;
        n = left;
    }
#endif
#if IG_HAVE_SSE2
    size_t left = n;
    esc += escapes_x2(p, &left);
    p += n - left;
    n = left;
#endif
    return esc + string_escapes(p, n);
}

static inline uint8_t *put_escaped(uint8_t *o, uint8_t c)
{
    char e = escape_letter[c];
    if (!e) {
        *o++ = c;
        return o;
    }
    *o++ = '\\';
    *o++ = (uint8_t)e;
    return o;
}

/* A string's text form at o, which has room for 2n bytes. */
static uint8_t *copy_escaped(uint8_t *o, const uint8_t *p, size_t n)
{
    size_t k = 0;
    for (; k + 8 <= n; k += 8) {
        if (!escaped_bytes(ig_ld64(p + k))) {
            memcpy(o, p + k, 8);
            o += 8;
            continue;
        }
        for (size_t j = k; j < k + 8; j++) o = put_escaped(o, p[j]);
    }
    for (; k < n; k++) o = put_escaped(o, p[k]);
    return o;
}

/* ig_render_text_lines of a string page: room for the worst case once, then
 * value after value. */
static int string_lines(struct ig_buf *out, const struct ig_values *v, const uint8_t *deleted)
{
    size_t bytes = v->n ? (size_t)(v->offs[v->n] - v->offs[0]) : 0;
    int rc = ig_buf_reserve(out, 2 * bytes + 3 * v->n); /* a NULL's "\N\n" is 3 */
    if (rc) return rc;
    uint8_t *o = out->data + out->len;
    for (size_t i = 0; i < v->n; i++) {
        if (deleted && ((deleted[i / 8] >> (i % 8)) & 1)) continue;
        if (ig_values_is_null(v, i)) {
            memcpy(o, "\\N", 2);
            o += 2;
        } else {
            size_t n;
            const uint8_t *p = ig_values_bytes(v, i, &n);
            o = copy_escaped(o, p, n);
        }
        *o++ = '\n';
    }
    out->len = (size_t)(o - out->data);
    return 0;
}

static int append_copy_string(struct ig_buf *out, const uint8_t *p, size_t n)
{
    /* Worst case every byte doubles. */
    int rc = ig_buf_reserve(out, 2 * n);
    if (rc) return rc;
    out->len = (size_t)(copy_escaped(out->data + out->len, p, n) - out->data);
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
    if (v->is_bytes && v->type == IG_T_STRING) return string_lines(out, v, deleted);
    for (size_t i = 0; i < v->n; i++) {
        if (deleted && ((deleted[i / 8] >> (i % 8)) & 1)) continue;
        int rc = ig_render_text_value(out, v, i);
        if (!rc) rc = ig_buf_append_byte(out, '\n');
        if (rc) return rc;
    }
    return 0;
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
    if (!deleted && !v->is_bytes && v->type >= IG_T_BOOL && v->type <= IG_T_FLOAT64) {
        uint64_t sum = lanes_text_len(v);
        *len = (v->has_nulls ? with_nulls(v, sum) : sum) + v->n; /* and the newlines */
        return 0;
    }
    if (v->type == IG_T_STRING && !deleted && v->n) {
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
            *len = bytes + bulk_escapes(p, (size_t)bytes) + v->n + 2 * nulls;
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
            total += lane_len(v->type, v->lanes[i], false) + 1;
            continue;
        }
        if (v->type == IG_T_STRING) { /* append_copy_string doubles \ and controls */
            size_t n;
            const uint8_t *p = ig_values_bytes(v, i, &n);
            total += n + string_escapes(p, n) + 1;
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

/* The end of the run from i of bytes JSON copies as they are (printable ASCII
 * but '"' and '\\'): eight bytes a step while a whole word is such bytes (a
 * byte-at-a-time scan was most of rendering rows of captions). */
static size_t plain_json_run(const uint8_t *p, size_t i, size_t n)
{
    const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
    for (; i + 8 <= n; i += 8) {
        uint64_t w, q, b;
        memcpy(&w, p + i, 8);
        q = w ^ (ones * '"');
        b = w ^ (ones * '\\');
        /* any byte >= 0x80, < 0x20, == '"' or == '\\' (exact as a test of the word) */
        if ((w & high) | ((w - ones * 0x20) & ~w & high) | ((q - ones) & ~q & high) | ((b - ones) & ~b & high))
            break;
    }
    while (i < n && p[i] >= 0x20 && p[i] < 0x80 && p[i] != '"' && p[i] != '\\')
        i++;
    return i;
}

int ig_render_json_string(struct ig_buf *out, const uint8_t *p, size_t n)
{
    int rc = ig_buf_reserve(out, n + 2);
    if (rc) return rc;
    rc = ig_buf_append_byte(out, '"');
    size_t i = 0;
    while (i < n && !rc) {
        /* a run of printable ASCII needing no escape is copied at once: captions
         * are mostly such runs, and byte-by-byte appends were a tenth of a listing */
        size_t run = plain_json_run(p, i, n);
        if (run > i) {
            rc = ig_buf_append(out, p + i, run - i);
            i = run;
            continue;
        }
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
