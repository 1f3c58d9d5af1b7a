#include "quantize.h"
#include "schema.h"
#include "types.h"

#include <math.h>
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

void ig_dequantize_lanes(unsigned q, const uint64_t *in, size_t n, uint64_t *out)
{
    for (size_t i = 0; i < n; i++) {
        float f = ig_dequantize_one(q, (uint32_t)in[i]);
        uint32_t b;
        memcpy(&b, &f, 4);
        out[i] = b;
    }
}
