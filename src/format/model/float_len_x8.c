/* float_len_x8.c - see float_len_x8.h. The steps and their names follow
 * util/shortest.c (scale32, pick_shape) and float_text.h (ig_float_layout_len). */
#include "format/model/float_len_x8.h"

#include "util/shortest_table.h"

#include "util/cpu.h"

#if IG_HAVE_X8
#include <immintrin.h>

#define X8 IG_X8

bool ig_f32_len_x8_usable(void) { return ig_cpu_avx512(); }

#define SET(v) _mm512_set1_epi64((long long)(v))

/* The high 64 bits of a * b, from four 32 x 32-bit products. */
static inline X8 __m512i mul_high(__m512i a, __m512i b)
{
    const __m512i low32 = SET(0xffffffffu);
    __m512i ah = _mm512_srli_epi64(a, 32), bh = _mm512_srli_epi64(b, 32);
    __m512i ll = _mm512_mul_epu32(a, b), lh = _mm512_mul_epu32(a, bh);
    __m512i hl = _mm512_mul_epu32(ah, b), hh = _mm512_mul_epu32(ah, bh);
    __m512i mid = _mm512_add_epi64(_mm512_srli_epi64(ll, 32), _mm512_and_si512(lh, low32));
    mid = _mm512_add_epi64(mid, _mm512_and_si512(hl, low32));
    __m512i hi = _mm512_add_epi64(hh, _mm512_add_epi64(_mm512_srli_epi64(lh, 32), _mm512_srli_epi64(hl, 32)));
    return _mm512_add_epi64(hi, _mm512_srli_epi64(mid, 32));
}

/* shortest.c's round_odd_product32. */
static inline X8 __m512i round_odd(__m512i g, __m512i cp)
{
    __m512i x1 = mul_high(g, cp);
    __m512i sticky = _mm512_srli_epi64(_mm512_add_epi64(_mm512_and_si512(x1, SET(0xffffffffu)), SET(0xffffffffu)), 32);
    return _mm512_or_si512(_mm512_srli_epi64(x1, 31), sticky);
}

/* Decimal digits of d (d < 2^50), as ig_u64_digit_count. */
static inline X8 __m512i digit_count(__m512i d)
{
    const __m512i p10_lo = _mm512_setr_epi64(1, 10, 100, 1000, 10000, 100000, 1000000, 10000000);
    const __m512i p10_hi = _mm512_setr_epi64(100000000, 1000000000, 10000000000, 100000000000, 1000000000000,
                                             10000000000000, 100000000000000, 1000000000000000);
    __m512i bits = _mm512_sub_epi64(SET(64), _mm512_lzcnt_epi64(_mm512_or_si512(d, SET(1))));
    __m512i g = _mm512_srli_epi64(_mm512_mullo_epi64(bits, SET(1233)), 12);
    __m512i p = _mm512_permutex2var_epi64(p10_lo, g, p10_hi);
    __mmask8 ge = _mm512_cmpge_epu64_mask(d, p);
    return _mm512_mask_add_epi64(g, ge, g, SET(1));
}

/* z plus the trailing decimal zeros of d in the lanes of m (shortest.c,
 * trailing_zeros10). */
static inline X8 __m512i trailing_zeros(__m512i d, __mmask8 m, __m512i z)
{
    while (m) {
        __m512i fifth = _mm512_mullo_epi64(d, SET(0xcccccccccccccccdu));
        __mmask8 even = _mm512_testn_epi64_mask(d, SET(1));
        m &= even & _mm512_test_epi64_mask(d, d) & _mm512_cmple_epu64_mask(fifth, SET(0x3333333333333333u));
        d = _mm512_mask_mov_epi64(d, m, _mm512_srli_epi64(fifth, 1));
        z = _mm512_mask_add_epi64(z, m, z, SET(1));
    }
    return z;
}

X8 unsigned ig_f32_len_x8(const uint64_t lanes[8], uint8_t len[8])
{
    __m512i bits = _mm512_and_si512(_mm512_loadu_si512(lanes), SET(0xffffffffu));
    __m512i t = _mm512_and_si512(bits, SET(0x7fffff));
    __m512i bq = _mm512_and_si512(_mm512_srli_epi64(bits, 23), SET(0xff));
    __mmask8 subnormal = _mm512_cmpeq_epi64_mask(bq, _mm512_setzero_si512());
    __mmask8 no_t = _mm512_cmpeq_epi64_mask(t, _mm512_setzero_si512());
    /* the caller's: zero, NaN and infinities, the search-form powers of two */
    __mmask8 theirs = (subnormal & no_t) | _mm512_cmpeq_epi64_mask(bq, SET(0xff));
    theirs |= no_t & (_mm512_cmpeq_epi64_mask(bq, SET(31)) | _mm512_cmpeq_epi64_mask(bq, SET(214)) |
                      _mm512_cmpeq_epi64_mask(bq, SET(217)));

    /* c * 2^q (split32); the gap below is half when t == 0 and bq > 1 */
    __m512i c = _mm512_mask_or_epi64(t, (__mmask8)~subnormal, t, SET(1u << 23));
    __m512i q = _mm512_mask_mov_epi64(_mm512_sub_epi64(bq, SET(150)), subnormal, SET(-149));
    __mmask8 lower = no_t & _mm512_cmpgt_epi64_mask(bq, SET(1));

    /* small integers are their own digits (is_small_integer), k = 0 */
    __m512i nq = _mm512_sub_epi64(_mm512_setzero_si512(), q);
    __mmask8 integer = (__mmask8)~subnormal & _mm512_cmpgt_epi64_mask(nq, _mm512_setzero_si512()) &
                       _mm512_cmplt_epi64_mask(nq, SET(24));
    __m512i frac = _mm512_and_si512(c, _mm512_sub_epi64(_mm512_sllv_epi64(SET(1), nq), SET(1)));
    integer &= _mm512_testn_epi64_mask(frac, frac);

    /* k = floor(log10 of the interval's width), h, g (scale32) */
    __m512i qk = _mm512_mullo_epi64(q, SET(661971961083LL));
    qk = _mm512_mask_sub_epi64(qk, lower, qk, SET(274743187321LL));
    __m512i k = _mm512_srai_epi64(qk, 41);
    __m512i h = _mm512_srai_epi64(_mm512_mullo_epi64(_mm512_sub_epi64(_mm512_setzero_si512(), k), SET(913124641741LL)), 38);
    h = _mm512_add_epi64(_mm512_add_epi64(q, h), SET(33));
    __m512i gi = _mm512_slli_epi64(_mm512_sub_epi64(k, SET(IG_SHORTEST_K_MIN)), 1);
    /* lanes whose k does not index the table (the caller's and integers) read row 0 */
    gi = _mm512_maskz_mov_epi64((__mmask8) ~(theirs | integer), gi);
    __m512i g = _mm512_add_epi64(_mm512_i64gather_epi64(gi, (const void *)ig_shortest_g, 8), SET(1));
    h = _mm512_maskz_mov_epi64((__mmask8) ~(theirs | integer), h);

    __m512i cb = _mm512_slli_epi64(c, 2);
    __m512i cbl = _mm512_mask_sub_epi64(_mm512_sub_epi64(cb, SET(2)), lower, _mm512_sub_epi64(cb, SET(2)), SET(-1));
    __m512i cbr = _mm512_add_epi64(cb, SET(2));
    __m512i out = _mm512_and_si512(c, SET(1));
    __m512i vb = round_odd(g, _mm512_sllv_epi64(cb, h));
    __m512i vbl = round_odd(g, _mm512_sllv_epi64(cbl, h));
    __m512i vbr = round_odd(g, _mm512_sllv_epi64(cbr, h));

    /* pick_shape: s = floor(vb / 4); s / 10 through a double (exact for s below
     * 2^49: 0.1 as a double is a little above a tenth, so a multiple of ten
     * never rounds below its quotient, and s % 10 <= 9 keeps the rest below 1) */
    __m512i s = _mm512_srli_epi64(vb, 2);
    __m512d tenth = _mm512_mul_pd(_mm512_cvtepu64_pd(s), _mm512_set1_pd(0.1));
    __m512i s10 = _mm512_cvttpd_epu64(_mm512_roundscale_pd(tenth, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC));
    __m512i sp10 = _mm512_mullo_epi64(s10, SET(10)), tp10 = _mm512_add_epi64(sp10, SET(10));
    __mmask8 upin = _mm512_cmple_epu64_mask(_mm512_add_epi64(vbl, out), _mm512_slli_epi64(sp10, 2));
    __mmask8 wpin = _mm512_cmple_epu64_mask(_mm512_add_epi64(_mm512_slli_epi64(tp10, 2), out), vbr);
    __mmask8 shorter = (upin ^ wpin) & (__mmask8)~integer;

    /* digits whose zeros count: the shorter candidate (one zero known: its
     * tenth is s / 10 or the next), or an integer's own */
    __m512i d = _mm512_mask_mov_epi64(s, shorter, _mm512_mask_mov_epi64(tp10, upin, sp10));
    d = _mm512_mask_srlv_epi64(d, integer, c, nq);
    __m512i tenth_d = _mm512_mask_add_epi64(s10, (__mmask8)~upin, s10, SET(1));
    __m512i zeros = trailing_zeros(_mm512_mask_mov_epi64(d, shorter, tenth_d), (__mmask8)((shorter | integer) & ~theirs),
                                   _mm512_maskz_mov_epi64(shorter, SET(1)));
    k = _mm512_maskz_mov_epi64((__mmask8)~integer, k);
    __m512i n = digit_count(d);
    __m512i nd = _mm512_sub_epi64(n, zeros);
    __m512i first = _mm512_sub_epi64(_mm512_add_epi64(k, n), SET(1));

    /* ig_float_layout_len: positional for -4 <= first < 16, else d[.ddd]e+XX (|first| < 100) */
    __m512i neg = _mm512_srli_epi64(bits, 31);
    __m512i one = SET(1);
    __m512i below = _mm512_add_epi64(_mm512_sub_epi64(one, first), nd); /* 0.000ddd */
    __m512i intd = _mm512_add_epi64(first, one);
    __m512i above = _mm512_add_epi64(_mm512_add_epi64(intd, one),
                                     _mm512_max_epi64(_mm512_sub_epi64(nd, intd), one)); /* ddd.d */
    __m512i expo = _mm512_add_epi64(SET(5), _mm512_maskz_mov_epi64(_mm512_cmpgt_epi64_mask(nd, one), nd));
    __mmask8 negative = _mm512_cmplt_epi64_mask(first, _mm512_setzero_si512());
    __mmask8 positional = _mm512_cmpge_epi64_mask(first, SET(-4)) & _mm512_cmplt_epi64_mask(first, SET(16));
    __m512i l = _mm512_mask_mov_epi64(above, negative, below);
    l = _mm512_mask_mov_epi64(expo, positional, l);
    l = _mm512_maskz_mov_epi64((__mmask8)~theirs, _mm512_add_epi64(l, neg));
    _mm_storel_epi64((__m128i *)len, _mm512_cvtepi64_epi8(l));
    return theirs;
}

#else

bool ig_f32_len_x8_usable(void) { return false; }

unsigned ig_f32_len_x8(const uint64_t lanes[8], uint8_t len[8])
{
    (void)lanes;
    for (int i = 0; i < 8; i++) len[i] = 0;
    return 0xff;
}

#endif
