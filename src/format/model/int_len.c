/* int_len.c - see int_len.h. */
#include "format/model/int_len.h"

#include "util/cpu.h"
#include "util/shortest.h"

#if IG_HAVE_X8
#include <immintrin.h>
#endif

/* A lane's length, its value's bits moved to the top (drop = 64 - 8 * width)
 * so that one shift back gives the magnitude of either kind of integer: a
 * negative x's is ~x + 1 within the width (INT64_MIN's, 2^63, too). */
static inline __attribute__((always_inline)) unsigned len_of(uint64_t lane, unsigned drop, bool is_signed)
{
    uint64_t top = lane << drop;
    uint64_t neg = is_signed ? (uint64_t)((int64_t)top >> 63) : 0; /* all ones when negative */
    uint64_t mag = ((top ^ neg) >> drop) - neg;
    return (unsigned)ig_u64_digit_count(mag) + (unsigned)(neg & 1);
}

unsigned ig_int_len(uint64_t lane, unsigned width, bool is_signed)
{
    return len_of(lane, 64 - 8 * width, is_signed);
}

/* One at a time; a loop for each kind, the choice out of them. */
static inline __attribute__((always_inline)) uint64_t run_scalar(const uint64_t *lanes, size_t n, unsigned drop,
                                                                bool is_signed)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) sum += len_of(lanes[i], drop, is_signed);
    return sum;
}

#if IG_HAVE_X8
#define SET(v) _mm512_set1_epi64((long long)(v))

/* lanes[0, n) for n a multiple of eight: len_of lane-parallel. The digit
 * count is ig_u64_digit_count's (a guess from the bit length, one comparison
 * with a power of ten), the powers 10^0..10^19 picked by permutes from three
 * registers. */
static IG_X8 uint64_t run_x8(const uint64_t *lanes, size_t n, unsigned drop, bool is_signed)
{
    const __m512i p10_lo = _mm512_setr_epi64(1, 10, 100, 1000, 10000, 100000, 1000000, 10000000);
    const __m512i p10_mid = _mm512_setr_epi64(100000000, 1000000000, 10000000000, 100000000000, 1000000000000,
                                              10000000000000, 100000000000000, 1000000000000000);
    const __m512i p10_top = _mm512_setr_epi64(10000000000000000, 100000000000000000, 1000000000000000000,
                                              (long long)10000000000000000000ull, 0, 0, 0, 0);
    const __m128i shift = _mm_cvtsi32_si128((int)drop);
    __m512i acc = _mm512_setzero_si512();
    for (size_t k = 0; k < n; k += 8) {
        __m512i top = _mm512_sll_epi64(_mm512_loadu_si512(lanes + k), shift);
        __m512i neg = is_signed ? _mm512_srai_epi64(top, 63) : _mm512_setzero_si512();
        __m512i mag = _mm512_sub_epi64(_mm512_srl_epi64(_mm512_xor_si512(top, neg), shift), neg);
        mag = _mm512_or_si512(mag, SET(1)); /* 0 has one digit, as 1 */
        __m512i bits = _mm512_sub_epi64(SET(64), _mm512_lzcnt_epi64(mag));
        __m512i g = _mm512_srli_epi64(_mm512_mul_epu32(bits, SET(1233)), 12); /* 0..19 */
        __m512i p = _mm512_permutex2var_epi64(p10_lo, g, p10_mid);
        p = _mm512_mask_permutexvar_epi64(p, _mm512_cmpgt_epu64_mask(g, SET(15)), g, p10_top);
        __mmask8 more = _mm512_cmpge_epu64_mask(mag, p);
        acc = _mm512_add_epi64(acc, _mm512_sub_epi64(g, neg)); /* neg is -1: the sign's one */
        acc = _mm512_mask_add_epi64(acc, more, acc, SET(1));
    }
    return (uint64_t)_mm512_reduce_add_epi64(acc);
}
#endif

uint64_t ig_int_len_run(const uint64_t *lanes, size_t n, unsigned width, bool is_signed)
{
    unsigned drop = 64 - 8 * width;
    uint64_t sum = 0;
    size_t k = 0;
#if IG_HAVE_X8
    if (n >= 8 && ig_cpu_avx512()) {
        k = n - n % 8;
        sum = run_x8(lanes, k, drop, is_signed);
    }
#endif
    lanes += k;
    n -= k;
    if (width == 8) /* no shifts: the common case spelled out */
        return sum + (is_signed ? run_scalar(lanes, n, 0, true) : run_scalar(lanes, n, 0, false));
    return sum + (is_signed ? run_scalar(lanes, n, drop, true) : run_scalar(lanes, n, drop, false));
}
