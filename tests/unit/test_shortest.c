/* The shortest float formatter (util/shortest.c, Schubfach) against the
 * printf/strtod search it replaced: the same text for random bit patterns,
 * data-like values (uniform, prices, embeddings, quantised), every power of two
 * and its neighbours, the smallest subnormals, the neighbours of every power of
 * ten and short decimals (ties). The exhaustive float32 check is
 * tests/unit/exhaustive_f32.c. */
#include "check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "format/model/int_len.h"
#include "format/model/float_text.h"
#include "format/model/render.h"
#include "format/model/types.h"
#include "format/model/values.h"
#include "util/buf.h"
#include "util/shortest.h"

static double from_bits(uint64_t b)
{
    double d;
    memcpy(&d, &b, 8);
    return d;
}

static uint64_t bits_of(double d)
{
    uint64_t b;
    memcpy(&b, &d, 8);
    return b;
}

static int f64_mismatches;

static void same_f64(double d)
{
    char a[IG_FLOAT_TEXT_MAX], b[IG_FLOAT_TEXT_MAX];
    size_t na = ig_format_f64(a, d), nb = ig_format_f64_exact(b, d);
    if (na != nb || strcmp(a, b) || ig_format_f64_len(d) != nb) {
        if (f64_mismatches++ < 5)
            fprintf(stderr, "  %016llx: shortest %s, search %s\n", (unsigned long long)bits_of(d), a, b);
    }
}

static void test_f64_equals_search(void)
{
    uint64_t s = check_seed;
    f64_mismatches = 0;
    for (int i = 0; i < 200000; i++) {
        double d = from_bits(test_rand(&s));
        if (!isnan(d)) same_f64(d);
    }
    for (int i = 0; i < 100000; i++) {
        double u = (double)(test_rand(&s) >> 11) / 9007199254740992.0;
        same_f64(u);                                                  /* uniform [0, 1) */
        same_f64((double)(int64_t)(test_rand(&s) % 10000000) / 100); /* prices */
        same_f64((double)test_rand_wide(&s));                        /* integers */
        same_f64((u - 0.5) * 0.07);                                   /* embedding-like */
    }
    for (uint64_t e = 0; e < 2047; e++) /* powers of two and their neighbours */
        for (int64_t n = -3; n <= 3; n++) {
            uint64_t b = (e << 52) + (uint64_t)n;
            if ((int64_t)b > 0 && b < 0x7ff0000000000000u) same_f64(from_bits(b));
        }
    for (uint64_t c = 1; c < 20000; c++) same_f64(from_bits(c)); /* the smallest subnormals */
    for (int k = -323; k <= 308; k++) {                          /* around powers of ten */
        char t[16];
        snprintf(t, sizeof t, "1e%d", k);
        uint64_t b = bits_of(strtod(t, NULL));
        for (int n = -2; n <= 2; n++) same_f64(from_bits(b + (uint64_t)(int64_t)n));
    }
    for (int i = 0; i < 100000; i++) { /* short decimals: nearest-digit ties */
        char t[40];
        unsigned long long m = test_rand(&s) % 100000000000000000ull;
        m >>= test_rand(&s) % 50;
        int e = (int)(test_rand(&s) % 600) - 320;
        snprintf(t, sizeof t, "%llue%d", m, e);
        double d = strtod(t, NULL);
        if (d > 0 && !isinf(d)) same_f64(d);
    }
    CHECK_EQ_INT(f64_mismatches, 0);
}

static void test_f32_equals_search(void)
{
    uint64_t s = check_seed;
    char a[IG_FLOAT_TEXT_MAX], b[IG_FLOAT_TEXT_MAX];
    int bad = 0;
    for (int i = 0; i < 1000000; i++) {
        uint32_t bits = (uint32_t)test_rand(&s);
        float f;
        if (i % 3 == 1) {
            memcpy(&f, &bits, 4);
        } else { /* around N(0, 1/768) */
            double u = ((double)(test_rand(&s) >> 11) / 9007199254740992.0) - 0.5;
            f = (float)(u * 0.1);
        }
        if (i % 3 == 2) { /* quantised (bf16, fp8): few significant bits, exact decimal ties */
            uint32_t fb;
            memcpy(&fb, &f, 4);
            fb &= i % 2 ? 0xffff0000u : 0xfff00000u;
            memcpy(&f, &fb, 4);
        }
        ig_format_f32(a, f);
        size_t nb = ig_format_f32_exact(b, f);
        if ((strcmp(a, b) || ig_format_f32_len(f) != nb) && bad++ < 5)
            fprintf(stderr, "  %08x: shortest %s, search %s\n", bits, a, b);
    }
    for (uint32_t e = 0; e < 255; e++) /* powers of two and their neighbours */
        for (int n = -3; n <= 3; n++) {
            uint32_t bits = (e << 23) + (uint32_t)n;
            float f;
            memcpy(&f, &bits, 4);
            if ((int32_t)bits <= 0 || isinf(f) || isnan(f)) continue;
            ig_format_f32(a, f);
            size_t nb = ig_format_f32_exact(b, f);
            if ((strcmp(a, b) || ig_format_f32_len(f) != nb) && bad++ < 5) fprintf(stderr, "  %08x: shortest %s, search %s\n", bits, a, b);
        }
    CHECK_EQ_INT(bad, 0);
}

/* A run of numbers without NULLs: its text and JSON lengths, counted a run at
 * a time, are those of its rendering. */
static void run_lens_match_rendering(const struct ig_values *v, struct ig_buf *out, struct ig_buf *scratch)
{
    ig_buf_reset(out);
    ig_render_text_lines(out, v, NULL);
    uint64_t len = 0;
    CHECK(ig_render_text_len(v, NULL, scratch, &len) == 0);
    CHECK_EQ_INT(len, out->len);
    uint64_t json = 0, want = 0;
    for (size_t i = 0; i < v->n; i++) {
        ig_buf_reset(out);
        ig_render_json_value(out, v, i);
        want += out->len;
    }
    CHECK(ig_render_json_len_run(v, 0, v->n, &json));
    CHECK_EQ_INT(json, want);
}

/* The writer's text lengths (counted, not rendered) equal the rendered text's,
 * for every fixed-width type, extremes, NULLs and specials included. */
static void test_text_len_counts_rendering(void)
{
    static const uint8_t types[] = {IG_T_BOOL,   IG_T_INT8,   IG_T_INT16,   IG_T_INT32,  IG_T_INT64,
                                    IG_T_UINT8,  IG_T_UINT16, IG_T_UINT32,  IG_T_UINT64, IG_T_FLOAT32,
                                    IG_T_FLOAT64};
    static const uint64_t edge[] = {0, 1, 9, 10, 99, 100, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, 0x7fffffff,
                                    0x80000000u, 0xffffffffu, 0x7fffffffffffffffu, 0x8000000000000000u,
                                    ~0ull, 0x7ff8000000000000u, 0x7ff0000000000000u, 0xfff0000000000000u,
                                    0x7fc00000u, 0x7f800000u, 0xff800000u, 0x80000000u, 0x3ff0000000000000u};
    uint64_t s = check_seed;
    struct ig_buf out = IG_BUF_INIT, scratch = IG_BUF_INIT;
    for (size_t t = 0; t < sizeof types; t++) {
        struct ig_values v;
        ig_values_init(&v, types[t]);
        for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++) ig_values_push_lane(&v, types[t] == IG_T_BOOL ? edge[i] & 1 : edge[i]);
        for (int i = 0; i < 5000; i++) {
            uint64_t r = test_rand_wide(&s);
            if (types[t] == IG_T_BOOL) r &= 1;
            if (i % 17 == 0)
                ig_values_push_null(&v);
            else
                ig_values_push_lane(&v, r);
        }
        ig_buf_reset(&out);
        ig_render_text_lines(&out, &v, NULL);
        uint64_t len = 0;
        CHECK(ig_render_text_len(&v, NULL, &scratch, &len) == 0);
        if (len != out.len) fprintf(stderr, "  type %u: counted %llu, rendered %zu\n", types[t], (unsigned long long)len, out.len);
        CHECK(len == out.len);
        for (size_t i = 0; i < v.n; i++) { /* the JSON forms */
            size_t n;
            ig_buf_reset(&out);
            ig_render_json_value(&out, &v, i);
            if (ig_render_json_len(&v, i, &n) && n != out.len) {
                fprintf(stderr, "  type %u value %zu: JSON counted %zu, rendered %zu\n", types[t], i, n, out.len);
                check_failures++;
                break;
            }
        }
        ig_values_free(&v);
    }
    /* float32 without NULLs: measured eight at a time where the CPU can
     * (float_len_x8.h), every kind of float among them, and (the last round)
     * mostly runs of zeros */
    for (int round = 0; round < 4; round++) {
        struct ig_values v;
        ig_values_init(&v, IG_T_FLOAT32);
        for (int i = 0; i < 4000; i++) {
            uint32_t b = (uint32_t)test_rand(&s);
            float f;
            switch (i % 7) {
            case 0: f = (float)((double)(b % 2001) / 64 - 15.6); break;  /* quantised, some integers */
            case 1: f = (float)((double)(int32_t)b * 1e-9); break;        /* embedding-like */
            case 2: b &= round & 1 ? 0x807fffffu : 0xff800000u; memcpy(&f, &b, 4); break; /* subnormals, powers of two */
            default: memcpy(&f, &b, 4);                                   /* any bits: NaN, inf, zero too */
            }
            if (i % 97 == 0) f = (float)(i % 3) - 1; /* -1, 0, 1 */
            if (round == 3 && (i / 8) % 3) f = i % 29 ? 0.0f : -0.0f; /* runs of zeros (sparse), a -0.0 in some */
            uint32_t fb;
            memcpy(&fb, &f, 4);
            ig_values_push_lane(&v, fb);
        }
        run_lens_match_rendering(&v, &out, &scratch);
        ig_values_free(&v);
    }
    /* strings (escapes counted) and binary (rendered) */
    static const uint8_t btypes[] = {IG_T_STRING, IG_T_BINARY};
    for (size_t t = 0; t < sizeof btypes; t++) {
        struct ig_values v;
        ig_values_init(&v, btypes[t]);
        for (int i = 0; i < 3000; i++) {
            char b[40];
            size_t n = test_rand(&s) % sizeof b;
            for (size_t k = 0; k < n; k++) b[k] = "ab\\\n\r\tz\x01\xc3\xa9"[test_rand(&s) % 10];
            if (i % 13 == 0)
                ig_values_push_null(&v);
            else
                ig_values_push_bytes(&v, b, n);
        }
        uint8_t deleted[3000 / 8 + 1] = {0x5a, 0x01};
        ig_buf_reset(&out);
        uint64_t len = 0, len_all = 0;
        CHECK(ig_render_text_len(&v, deleted, &scratch, &len) == 0);
        CHECK(ig_render_text_len(&v, NULL, &scratch, &len_all) == 0);
        ig_render_text_lines(&out, &v, deleted);
        CHECK(len == out.len);
        ig_buf_reset(&out);
        ig_render_text_lines(&out, &v, NULL);
        CHECK(len_all == out.len && len_all > len);
        ig_values_free(&v);
    }
    ig_buf_free(&out);
    ig_buf_free(&scratch);
}

/* A decimal or not: m / 10^p for m below 10^15 (some just below it), the
 * neighbours of such decimals (not decimals of 15 digits any more), sums that
 * miss their decimal (0.1 + 0.2), large, tiny and any bits. */
static double guided_sample(uint64_t *s, int i)
{
    static const double p10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8,
                                 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
    uint64_t r = test_rand(s);
    int p = (int)(test_rand(s) % 16);
    uint64_t m = r % 1000000000000000ull >> (test_rand(s) % 50);
    switch (i % 8) {
    case 0: return (double)m / p10[p];
    case 1: return (double)(999999999999999ull - r % 1000) / p10[p]; /* 15 nines and neighbours */
    case 2: return nextafter((double)(m | 1) / p10[p], i & 8 ? INFINITY : 0); /* one step off */
    case 3: return (double)(r % 1000) / 10 + (double)(r % 7) / 10; /* 0.1 + 0.2 and kin */
    case 4: return (double)(r % 100000) / 100 * p10[test_rand(s) % 16]; /* large decimals */
    case 5: return (double)m * 1e-300;                                   /* tiny */
    default: {
        double d = fabs(from_bits(r));
        return isfinite(d) && d > 0 ? d : 1.5;
    }
    }
}

/* The guided shape (a guess of the decimal places carried through a run) is
 * the search's shape for every guess, right, wrong or none, and leaves the
 * guess the places the value showed. */
static void test_f64_guided_shape_equals_search(void)
{
    uint64_t s = check_seed ^ 0x5eed;
    int misses = 0, fast = 0;
    for (int i = 0; i < 400000 && misses < 5; i++) {
        double v = guided_sample(&s, i);
        if (!(v > 0) || !isfinite(v)) continue;
        int nd, first, gnd, gfirst;
        ig_shortest_f64_shape(v, &nd, &first);
        int places = (int)(test_rand(&s) % 20) - 2, before = places; /* -2 .. 17: none and out of range too */
        ig_shortest_f64_shape_guided(v, &places, &gnd, &gfirst);
        if (gnd != nd || gfirst != first) {
            fprintf(stderr, "  %.17g guessed %d places: shape %d digits from 10^%d, search %d from 10^%d\n", v, before,
                    gnd, gfirst, nd, first);
            misses++;
        }
        fast += places == before;
        int shown = nd - 1 - first;
        int want = nd <= 15 && shown <= 15 ? (shown > 0 ? shown : 0) : -1;
        if (places != before && places != want) {
            fprintf(stderr, "  %.17g: guess left at %d, its digits show %d\n", v, places, want);
            misses++;
        }
    }
    CHECK_EQ_INT(misses, 0);
    CHECK(fast > 10000); /* the guess was taken, not only the search */
}

/* Float64 runs without NULLs are measured with that guess: their text and
 * JSON lengths are still the rendered ones. */
static void test_f64_run_len_counts_rendering(void)
{
    uint64_t s = check_seed ^ 0xf64;
    struct ig_buf out = IG_BUF_INIT, scratch = IG_BUF_INIT;
    for (int round = 0; round < 4; round++) {
        struct ig_values v;
        ig_values_init(&v, IG_T_FLOAT64);
        for (int i = 0; i < 6000; i++) {
            double d = guided_sample(&s, round < 2 ? i % 2 * 4 : i); /* rounds 0-1: mostly decimals */
            if (i % 89 == 0) d = -d;
            if (i % 211 == 0) d = (double[]){0.0, -0.0, NAN, INFINITY, -INFINITY, 1.0, 0.5}[i % 7];
            ig_values_push_lane(&v, bits_of(d));
        }
        run_lens_match_rendering(&v, &out, &scratch);
        ig_values_free(&v);
    }
    ig_buf_free(&out);
    ig_buf_free(&scratch);
}

/* The length of value i as rendered (ig_render_text_value, then counted). */
static size_t rendered_len(const struct ig_values *v, size_t i, struct ig_buf *out)
{
    ig_buf_reset(out);
    ig_render_text_value(out, v, i);
    return out->len;
}

/* An integer lane of every kind: any magnitude, negative or not, the powers of
 * ten and their neighbours, the extremes of every width; with junk above the
 * width or not (the width's bits are the value). */
static uint64_t int_sample(uint64_t *s, int i, unsigned width)
{
    static const uint64_t extremes[] = {0, 1, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, 0x7fffffffu, 0x80000000u,
                                        0xffffffffu, 0x7fffffffffffffffu, 0x8000000000000000u, ~0ull};
    uint64_t r = test_rand(s), p10 = 1;
    for (unsigned k = (unsigned)(r % 20); k; k--) p10 *= 10;
    uint64_t x;
    switch (i % 4) {
    case 0: x = test_rand(s) >> (r % 64); break;                             /* every magnitude */
    case 1: x = p10 + (uint64_t)((int64_t)(r >> 8 & 3) - 1 - (r >> 10 & 1)); break; /* 10^k - 2 .. 10^k + 1 */
    case 2: x = extremes[(r >> 8) % (sizeof extremes / sizeof extremes[0])]; break;
    default: x = test_rand(s) >> (56 + r % 8);                               /* small */
    }
    if (r >> 20 & 1) x = 0 - x;                                              /* negatives */
    if (width < 8 && r >> 21 & 1) x = (x & ((1ull << 8 * width) - 1)) | test_rand(s) << 8 * width;
    return x;
}

/* Integer text lengths, one at a time and a run at a time (eight at a time
 * where the CPU can: scripts/test runs this with INGOT_NO_AVX512=1 too), are
 * those of the rendered text, for every width and sign, for runs of every
 * length from every start (the eight-wide steps and the tail). */
static void test_int_len_counts_rendering(void)
{
    static const uint8_t types[] = {IG_T_INT8,  IG_T_INT16,  IG_T_INT32,  IG_T_INT64,
                                    IG_T_UINT8, IG_T_UINT16, IG_T_UINT32, IG_T_UINT64};
    uint64_t s = check_seed ^ 0x1e7;
    struct ig_buf out = IG_BUF_INIT;
    enum { N = 4000 };
    static uint64_t prefix[N + 1];
    for (size_t t = 0; t < sizeof types; t++) {
        const struct ig_type_info *ti = ig_type_info(types[t]);
        struct ig_values v;
        ig_values_init(&v, types[t]);
        for (int i = 0; i < N; i++) ig_values_push_lane(&v, int_sample(&s, i, ti->width));
        int bad = 0;
        for (size_t i = 0; i < v.n; i++) {
            size_t want = rendered_len(&v, i, &out);
            prefix[i + 1] = prefix[i] + want;
            if (ig_int_len(v.lanes[i], ti->width, ti->is_signed) != want && bad++ < 3)
                fprintf(stderr, "  type %u lane %016llx: %u, rendered %zu\n", types[t], (unsigned long long)v.lanes[i],
                        ig_int_len(v.lanes[i], ti->width, ti->is_signed), want);
        }
        for (size_t a = 0; a < 40; a++) /* every run length to 40 from 40 starts, then long runs */
            for (size_t b = a; b < a + 40; b++)
                bad += ig_int_len_run(v.lanes + a, b - a, ti->width, ti->is_signed) != prefix[b] - prefix[a];
        for (size_t a = 0; a < 16; a++)
            bad += ig_int_len_run(v.lanes + a, N - a, ti->width, ti->is_signed) != prefix[N] - prefix[a];
        if (bad) fprintf(stderr, "  type %u: %d lengths differ from the rendering\n", types[t], bad);
        CHECK_EQ_INT(bad, 0);
        ig_values_free(&v);
    }
    ig_buf_free(&out);
}

/* Runs of fixed-width values with NULLs among them are counted a run at a
 * time and corrected for the NULLs, whatever their lanes hold (a value made
 * NULL after it was pushed keeps its lane): still the rendered length, for
 * counts that end inside a validity byte too. */
static void test_null_runs_count_rendering(void)
{
    static const uint8_t types[] = {IG_T_BOOL,  IG_T_INT8,   IG_T_INT32,   IG_T_INT64,  IG_T_UINT16,
                                    IG_T_UINT64, IG_T_FLOAT32, IG_T_FLOAT64};
    uint64_t s = check_seed ^ 0x9011;
    struct ig_buf out = IG_BUF_INIT, scratch = IG_BUF_INIT;
    for (size_t t = 0; t < sizeof types; t++) {
        for (size_t n = 1; n < 300; n += n < 20 ? 1 : 37) {
            struct ig_values v;
            ig_values_init(&v, types[t]);
            for (size_t i = 0; i < n; i++) {
                uint64_t r = test_rand(&s);
                if (r % 5 == 0 || (n > 1 && i == n - 1)) { /* one in five, and the last */
                    ig_values_push_null(&v);
                    if (r & 8) v.lanes[i] = test_rand(&s); /* made NULL after it was pushed */
                } else {
                    ig_values_push_lane(&v, types[t] == IG_T_BOOL ? r >> 9 & 1 : test_rand(&s) >> (r % 64));
                }
            }
            ig_buf_reset(&out);
            ig_render_text_lines(&out, &v, NULL);
            uint64_t len = 0;
            CHECK(ig_render_text_len(&v, NULL, &scratch, &len) == 0);
            if (len != out.len) fprintf(stderr, "  type %u, %zu values: counted %llu, rendered %zu\n", types[t], n,
                                        (unsigned long long)len, out.len);
            CHECK(len == out.len);
            ig_values_free(&v);
        }
    }
    ig_buf_free(&out);
    ig_buf_free(&scratch);
}

/* The shape from the scaled value alone (shortest.c, shape64) is the shape
 * of the digits found from all three scaled bounds (ig_shortest_f64, which
 * test_f64_equals_search ties to the printf search): for random doubles of 17
 * significant digits, whose bounds are never near a multiple of ten, and for
 * those whose bounds can be (integers above 2^53, short decimals, powers of
 * two and their neighbours, subnormals), where the exact products decide. */
static void test_f64_shape_equals_digits(void)
{
    uint64_t s = check_seed ^ 0x5ba9e;
    int bad = 0;
    for (int i = 0; i < 1200000; i++) {
        uint64_t r = test_rand(&s);
        double v;
        switch (i % 6) {
        case 0: v = fabs(from_bits(r)); break;
        case 1: v = (double)(r >> 11) / 9007199254740992.0; break;            /* uniform [0, 1) */
        case 2: v = (double)(r >> (r % 11));  break;                            /* integers to 2^64 */
        case 3: v = (double)(r % 100000000) / 100 * (double[]){1e-30, 1, 1e30}[i % 3]; break;
        case 4: v = from_bits(((r % 2046 + 1) << 52) + (test_rand(&s) % 5) - 2); break; /* powers of two, near */
        default: v = from_bits(r >> (12 + r % 40)); break;                    /* subnormals and small */
        }
        if (!(v > 0) || !isfinite(v)) continue;
        int nd, first;
        ig_shortest_f64_shape(v, &nd, &first);
        uint64_t digits;
        int e;
        ig_shortest_f64(v, &digits, &e);
        int n = ig_u64_digit_count(digits);
        if ((nd != n || first != e + n - 1) && bad++ < 5)
            fprintf(stderr, "  %.17g (%016llx): shape %d digits from 10^%d, digits %llu e%d\n", v,
                    (unsigned long long)bits_of(v), nd, first, (unsigned long long)digits, e);
    }
    CHECK_EQ_INT(bad, 0);
}

/* Long strings of nothing but escaped bytes: every byte counter of the
 * eight- and sixteen-byte-wide escape counts fills to its limit. */
static void test_dense_escapes_count_rendering(void)
{
    struct ig_buf out = IG_BUF_INIT, scratch = IG_BUF_INIT;
    static char b[20000];
    for (size_t k = 0; k < sizeof b; k++) b[k] = "\\\n\r\t"[k % 4 ? k % 4 : (k / 4) % 4];
    static const size_t lens[] = {0, 1, 15, 16, 17, 63, 64, 65, 4079, 4080, 4081, 4096, 8191, 16384, 20000};
    struct ig_values v;
    ig_values_init(&v, IG_T_STRING);
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        ig_values_push_bytes(&v, b, lens[i]);
        if (i % 4 == 3) ig_values_push_null(&v);
    }
    ig_render_text_lines(&out, &v, NULL);
    uint64_t len = 0;
    CHECK(ig_render_text_len(&v, NULL, &scratch, &len) == 0);
    CHECK_EQ_INT(len, out.len);
    ig_values_free(&v);
    ig_buf_free(&out);
    ig_buf_free(&scratch);
}

/* The util contract itself: no trailing zeros, at most 17 (9) digits, reads back. */
static void test_digits_contract(void)
{
    uint64_t s = check_seed;
    int bad = 0;
    for (int i = 0; i < 100000; i++) {
        double d = fabs(from_bits(test_rand(&s)));
        if (isnan(d) || isinf(d) || d == 0) continue;
        uint64_t digits;
        int e;
        ig_shortest_f64(d, &digits, &e);
        char t[48];
        snprintf(t, sizeof t, "%llue%d", (unsigned long long)digits, e);
        bad += digits % 10 == 0 || digits >= 100000000000000000ull || strtod(t, NULL) != d;
        float f = (float)d;
        if (isinf(f) || f == 0) continue;
        ig_shortest_f32(f, &digits, &e);
        snprintf(t, sizeof t, "%llue%d", (unsigned long long)digits, e);
        bad += digits % 10 == 0 || digits >= 1000000000u || strtof(t, NULL) != f;
    }
    CHECK_EQ_INT(bad, 0);
    char o[24];
    CHECK(ig_u64_digits(o, 1) == 1 && o[0] == '1');
    CHECK(ig_u64_digits(o, 18446744073709551615ull) == 20 && memcmp(o, "18446744073709551615", 20) == 0);
    CHECK(ig_u64_digits(o, 10) == 2 && memcmp(o, "10", 2) == 0);
    /* at every power of ten and either side of it, 0 and random values: what
     * printf writes, and not a byte past it (the digits are written in place
     * from the last back, their count taken first) */
    int wrong = 0;
    uint64_t seed = check_seed ^ 0xD161;
    for (int k = 0; k < 20 * 3 + 1000; k++) {
        uint64_t p10 = 1;
        for (int e = 0; e < k / 3 && e < 19; e++)
            p10 *= 10;
        uint64_t v = k >= 60      ? test_rand_wide(&seed)
                     : k % 3 == 0 ? p10 - 1
                     : k % 3 == 1 ? p10
                                  : p10 + 1;
        char want[24], got[24];
        int n = snprintf(want, sizeof want, "%llu", (unsigned long long)v);
        memset(got, '#', sizeof got);
        size_t m = ig_u64_digits(got, v);
        wrong += m != (size_t)n || memcmp(got, want, m) != 0 || got[m] != '#';
    }
    CHECK(ig_u64_digits(o, 0) == 1 && o[0] == '0');
    CHECK_EQ_INT(wrong, 0);
}

static double ns_per_value(size_t (*fmt)(char *, double), const double *v, int n, int reps)
{
    struct timespec t0, t1;
    char o[IG_FLOAT_TEXT_MAX];
    size_t sink = 0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int r = 0; r < reps; r++)
        for (int i = 0; i < n; i++) sink += fmt(o, v[i]);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ns = (double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec);
    return sink ? ns / ((double)n * reps) : 0;
}

/* Not a timed assertion: a line for the log, so a slowdown is seen. */
static void test_speed_report(void)
{
    uint64_t s = check_seed;
    static double v[1000];
    for (int i = 0; i < 1000; i++) v[i] = (double)(test_rand(&s) >> 11) / 9007199254740992.0;
    fprintf(stderr, "  float64 text: shortest %.0f ns, search %.0f ns per value\n",
            ns_per_value(ig_format_f64, v, 1000, 100), ns_per_value(ig_format_f64_exact, v, 1000, 20));
    CHECK(1);
}

TEST_MAIN(T(test_f64_equals_search), T(test_f64_guided_shape_equals_search), T(test_f64_run_len_counts_rendering),
          T(test_text_len_counts_rendering), T(test_int_len_counts_rendering), T(test_null_runs_count_rendering),
          T(test_f64_shape_equals_digits), T(test_dense_escapes_count_rendering), T(test_f32_equals_search),
          T(test_digits_contract), T(test_speed_report))
