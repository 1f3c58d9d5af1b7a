/* Quantisation: round to nearest even, the documented error bounds, special
 * values, and a round trip through pages. */
#include "check.h"

#include <math.h>

#include "format/model/quantize.h"
#include "format/model/schema.h"

static const struct {
    unsigned q;
    double max_rel;  /* documented bound in the normal range */
    double max_fin;  /* largest finite */
    double min_norm; /* smallest normal */
} fmts[] = {{IG_Q_FP16, 0x1p-11, 65504, 0x1p-14},
            {IG_Q_BF16, 0x1p-8, 3.3895313892515355e38, 0x1p-126},
            {IG_Q_FP8_E4M3, 0x1p-4, 240, 0x1p-6},
            {IG_Q_FP8_E5M2, 0x1p-3, 57344, 0x1p-14}};

static void test_error_bounds(void)
{
    uint64_t s = check_seed;
    for (size_t f = 0; f < sizeof fmts / sizeof fmts[0]; f++) {
        double worst = 0;
        int bad = 0;
        for (int i = 0; i < 200000; i++) {
            /* log-uniform over the normal range, both signs */
            double u = (double)(test_rand(&s) >> 11) / 9007199254740992.0;
            double lo = log2(fmts[f].min_norm), hi = log2(fmts[f].max_fin);
            double x = exp2(lo + u * (hi - lo)) * (test_rand(&s) & 1 ? -1 : 1);
            float back = ig_dequantize_one(fmts[f].q, ig_quantize_one(fmts[f].q, x));
            double rel = fabs((double)back - x) / fabs(x);
            if (rel > worst) worst = rel;
            bad += rel > fmts[f].max_rel * (1 + 1e-12);
        }
        fprintf(stderr, "  format %u: worst relative error %.3g (bound %.3g)\n", fmts[f].q, worst,
                fmts[f].max_rel);
        CHECK_EQ_INT(bad, 0);
        CHECK(worst > fmts[f].max_rel / 2); /* the bound is tight, not loose */
    }
}

static void test_specials_survive(void)
{
    for (size_t f = 0; f < sizeof fmts / sizeof fmts[0]; f++) {
        unsigned q = fmts[f].q;
        CHECK(isnan(ig_dequantize_one(q, ig_quantize_one(q, NAN))));
        CHECK(ig_dequantize_one(q, ig_quantize_one(q, INFINITY)) == INFINITY);
        CHECK(ig_dequantize_one(q, ig_quantize_one(q, -INFINITY)) == -INFINITY);
        float nz = ig_dequantize_one(q, ig_quantize_one(q, -0.0));
        CHECK(nz == 0 && signbit(nz));
        CHECK(ig_dequantize_one(q, ig_quantize_one(q, fmts[f].max_fin)) == (float)fmts[f].max_fin);
        /* beyond the largest finite: infinity */
        CHECK(isinf(ig_dequantize_one(q, ig_quantize_one(q, fmts[f].max_fin * 2))));
        /* the smallest normal is exact; half the smallest subnormal rounds to even (zero) */
        CHECK(ig_dequantize_one(q, ig_quantize_one(q, fmts[f].min_norm)) == (float)fmts[f].min_norm);
    }
}

static void test_ties_to_even(void)
{
    /* fp16 around 1: spacing 2^-10. 1 + 2^-11 is a tie: rounds down to 1 (even);
     * 1 + 3 * 2^-11 rounds up to 1 + 2^-9 (even mantissa). */
    CHECK(ig_dequantize_one(IG_Q_FP16, ig_quantize_one(IG_Q_FP16, 1 + 0x1p-11)) == 1.0f);
    CHECK(ig_dequantize_one(IG_Q_FP16, ig_quantize_one(IG_Q_FP16, 1 + 3 * 0x1p-11)) == 1 + 0x1p-9f);
    CHECK(ig_quantize_one(IG_Q_FP16, 1.0) == 0x3C00);
    CHECK(ig_quantize_one(IG_Q_BF16, 1.0) == 0x3F80);
    CHECK(ig_quantize_one(IG_Q_FP8_E4M3, 1.0) == 0x38);
    CHECK(ig_quantize_one(IG_Q_FP8_E5M2, 1.0) == 0x3C);
    /* bf16 is the top half of float32, rounded */
    CHECK(ig_quantize_one(IG_Q_BF16, 3.14159265) == 0x4049);
    /* fp16 subnormal: 2^-24 is the smallest */
    CHECK(ig_quantize_one(IG_Q_FP16, 0x1p-24) == 1);
    CHECK(ig_quantize_one(IG_Q_FP16, 0x1p-26) == 0);
}

/* The fast widening (tables, the bf16 shift) equals ig_dequantize_one for every
 * stored pattern, NaNs included (same bits). */
static void test_lanes_equal_one_by_one(void)
{
    static const unsigned qs[] = {IG_Q_FP16, IG_Q_BF16, IG_Q_FP8_E4M3, IG_Q_FP8_E5M2};
    static uint64_t in[1 << 16], out[1 << 16];
    for (size_t f = 0; f < 4; f++) {
        size_t n = ig_quantize_width(qs[f]) == 2 ? 1u << 16 : 1u << 8;
        for (size_t i = 0; i < n; i++) in[i] = i;
        ig_dequantize_lanes(qs[f], in, n, out);
        int bad = 0;
        for (size_t i = 0; i < n; i++) {
            float g = ig_dequantize_one(qs[f], (uint32_t)i);
            uint32_t b;
            memcpy(&b, &g, 4);
            bad += (uint32_t)out[i] != b;
        }
        CHECK_EQ_INT(bad, 0);
    }
}

TEST_MAIN({"lanes_equal_one_by_one", test_lanes_equal_one_by_one},T(test_error_bounds), T(test_specials_survive), T(test_ties_to_even))
