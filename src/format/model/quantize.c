#include "format/model/quantize.h"
#include "format/model/schema.h"
#include "format/model/types.h"

#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>

struct qfmt {
    int ebits, mbits;
};

static const struct qfmt formats[] = {
    [IG_Q_FP16] = {5, 10}, [IG_Q_BF16] = {8, 7}, [IG_Q_FP8_E4M3] = {4, 3}, [IG_Q_FP8_E5M2] = {5, 2}};

unsigned ig_quantize_width(unsigned q)
{
    return q == IG_Q_FP16 || q == IG_Q_BF16 ? 2 : q == IG_Q_FP8_E4M3 || q == IG_Q_FP8_E5M2 ? 1 : 0;
}

uint32_t ig_quantize_one(unsigned q, double x)
{
    const struct qfmt f = formats[q];
    uint32_t sign = signbit(x) ? 1u << (f.ebits + f.mbits) : 0;
    uint32_t exp_all = (1u << f.ebits) - 1;
    if (isnan(x)) return sign | exp_all << f.mbits | 1u << (f.mbits - 1); /* quiet NaN */
    double a = fabs(x);
    if (isinf(a)) return sign | exp_all << f.mbits;
    if (a == 0) return sign;
    int bias = (1 << (f.ebits - 1)) - 1, emin = 1 - bias, emax = (int)exp_all - 1 - bias;
    int e;
    frexp(a, &e);
    e -= 1; /* a = 1.m x 2^e */
    if (e < emin) e = emin; /* subnormal: the quantum is fixed */
    double n = nearbyint(ldexp(a, f.mbits - e)); /* ties to even in the default mode */
    if (n >= ldexp(1, f.mbits + 1)) { /* rounding carried into the next binade */
        n /= 2;
        e++;
    }
    if (e > emax) return sign | exp_all << f.mbits; /* overflow: infinity */
    uint32_t m = (uint32_t)n;
    if (m < (1u << f.mbits)) return sign | m; /* subnormal (exponent field 0) */
    return sign | (uint32_t)(e + bias) << f.mbits | (m - (1u << f.mbits));
}

float ig_dequantize_one(unsigned q, uint32_t bits)
{
    const struct qfmt f = formats[q];
    uint32_t exp_all = (1u << f.ebits) - 1;
    uint32_t m = bits & ((1u << f.mbits) - 1);
    uint32_t ex = (bits >> f.mbits) & exp_all;
    bool neg = (bits >> (f.ebits + f.mbits)) & 1;
    int bias = (1 << (f.ebits - 1)) - 1;
    double v;
    if (ex == exp_all)
        v = m ? NAN : INFINITY;
    else if (ex == 0)
        v = ldexp((double)m, 1 - bias - f.mbits);
    else
        v = ldexp((double)(m | 1u << f.mbits), (int)ex - bias - f.mbits);
    return (float)(neg ? -v : v);
}

void ig_quantize_lanes(unsigned q, unsigned src_type, const uint64_t *in, size_t n, uint64_t *out)
{
    for (size_t i = 0; i < n; i++) {
        double x;
        if (src_type == IG_T_FLOAT64) {
            memcpy(&x, &in[i], 8);
        } else {
            uint32_t b = (uint32_t)in[i];
            float f;
            memcpy(&f, &b, 4);
            x = f;
        }
        out[i] = ig_quantize_one(q, x);
    }
}

/* Readers widen every stored value: by table for the 16- and 8-bit IEEE
 * formats (built once from ig_dequantize_one, so identical to it), by a shift for
 * bf16, which is the top half of a float32. */
static uint32_t fp16_table[1 << 16], fp8_table[2][1 << 8];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static uint32_t float_bits(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
}

static void build_tables(void)
{
    for (uint32_t i = 0; i < (1u << 16); i++) fp16_table[i] = float_bits(ig_dequantize_one(IG_Q_FP16, i));
    for (uint32_t i = 0; i < (1u << 8); i++) {
        fp8_table[0][i] = float_bits(ig_dequantize_one(IG_Q_FP8_E4M3, i));
        fp8_table[1][i] = float_bits(ig_dequantize_one(IG_Q_FP8_E5M2, i));
    }
}

void ig_dequantize_lanes(unsigned q, const uint64_t *in, size_t n, uint64_t *out)
{
    if (q == IG_Q_BF16) {
        for (size_t i = 0; i < n; i++) {
            uint32_t b = (uint32_t)(in[i] & 0xFFFF) << 16;
            if ((b & 0x7F800000u) == 0x7F800000u && (b & 0x007FFFFFu)) b = (b & 0x80000000u) | 0x7FC00000u;
            out[i] = b; /* NaN as ig_dequantize_one gives it: the quiet NaN, sign kept */
        }
        return;
    }
    pthread_once(&tables_once, build_tables);
    const uint32_t *t = q == IG_Q_FP16 ? fp16_table : q == IG_Q_FP8_E4M3 ? fp8_table[0] : fp8_table[1];
    uint32_t mask = q == IG_Q_FP16 ? 0xFFFF : 0xFF;
    for (size_t i = 0; i < n; i++) out[i] = t[in[i] & mask];
}
