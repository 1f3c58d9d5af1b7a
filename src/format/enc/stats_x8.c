/* stats_x8.c - the statistics pass (stats.c, stats_scalar) eight values at a
 * time with AVX-512, over whole delta blocks. Every encode of a page of
 * numbers starts with this pass; for a page of all-different floats it was a
 * seventh of a .npy import.
 *
 * The same sums as the scalar loop, lane-parallel: minimum and maximum in
 * both orders, OR of the bitpack lanes, varint bytes (from leading zeros),
 * each delta block's OR of zigzag codes (a value minus the one before it, the
 * block's first value excluded), and where the value differs from the one
 * before (the run count). The longest run is followed eight values at a time
 * from the same mask: eight new values or eight repeats are one step, and
 * only a vector that mixes both is walked value by value (a scalar walk of
 * the whole page, taken whenever any two neighbours were equal, was three
 * fifths of this pass on rounded floats). */
#include "enc_internal.h"
#include "util/bitpack.h"
#include "util/cpu.h"

#if IG_HAVE_X8
#include <immintrin.h>

#define SET(v) _mm512_set1_epi64((long long)(v))

static inline IG_X8 __m512i zigzag(__m512i x)
{
    return _mm512_xor_si512(_mm512_slli_epi64(x, 1), _mm512_srai_epi64(x, 63));
}

/* ig_varint_size of each lane: (bits + 6) / 7, bits at least 1; for bits + 6
 * <= 70, (x * 37) >> 8 is x / 7. */
static inline IG_X8 __m512i varint_size(__m512i z)
{
    __m512i bits = _mm512_sub_epi64(SET(64), _mm512_lzcnt_epi64(_mm512_or_si512(z, SET(1))));
    return _mm512_srli_epi64(_mm512_mullo_epi64(_mm512_add_epi64(bits, SET(6)), SET(37)), 8);
}

/* The runs through eight values, bit t of differ set where value t differs
 * from the one before it (the stream's first value, !started, starts a run
 * without ending one). */
static inline void runs_step(__mmask8 differ, bool started, uint64_t *run, uint64_t *max_run)
{
    if (differ == 0 && started) {
        *run += 8;
    } else if (differ == 0xff) { /* eight runs end; the seven of one value are no longer */
        if (*run > *max_run) *max_run = *run;
        *run = 1;
    } else {
        for (unsigned t = 0; t < 8; t++) {
            if ((differ >> t) & 1) {
                if (*run > *max_run) *max_run = *run;
                *run = 0;
            }
            ++*run;
        }
    }
}

static IG_X8 size_t stats_x8(const uint64_t *v, size_t n, bool sg, size_t last_idx, struct enc_stats_run *r)
{
    const size_t B = ENC_DELTA_BLOCK;
    size_t done = n / B * B;
    __m512i vmin = SET(r->umin), vmax = SET(r->umax), kmin = SET(r->klo), kmax = SET(r->khi);
    __m512i zor = _mm512_setzero_si512(), sizes = _mm512_setzero_si512();
    const __m512i flip = SET(sg ? 1ull << 63 : 0);
    __m512i before = SET(v[0]); /* lane 7 is the value before the next vector */
    __mmask8 bad = 0;
    size_t changes = 0, vbytes = 0;
    uint64_t run = 0, max_run = 0; /* as the scalar walk: the run so far, the longest ended */
    uint64_t bor = r->bor;
    for (size_t b = 0; b < done; b += B) {
        if (b == last_idx) r->vlast = vbytes + (size_t)_mm512_reduce_add_epi64(sizes);
        __m512i codes = _mm512_setzero_si512();
        for (size_t j = 0; j < B; j += 8) {
            __m512i x = _mm512_loadu_si512(v + b + j);
            __m512i prev = _mm512_alignr_epi64(x, before, 7);
            before = x;
            vmin = _mm512_min_epu64(vmin, x);
            vmax = _mm512_max_epu64(vmax, x);
            __m512i k = _mm512_xor_si512(x, flip);
            kmin = _mm512_min_epu64(kmin, k);
            kmax = _mm512_max_epu64(kmax, k);
            __m512i z = sg ? zigzag(x) : x;
            zor = _mm512_or_si512(zor, z);
            sizes = _mm512_add_epi64(sizes, varint_size(z));
            __mmask8 steps = j ? 0xff : 0xfe; /* a block's first value starts it */
            __m512i dz = zigzag(_mm512_sub_epi64(x, prev));
            bad |= _mm512_mask_cmpge_epu64_mask(steps, dz, SET(UINT64_MAX - 1));
            codes = _mm512_mask_or_epi64(codes, steps, codes, _mm512_add_epi64(dz, SET(2)));
            __mmask8 differ = _mm512_cmpneq_epi64_mask(x, prev) & (b || j ? 0xff : 0xfe);
            changes += (size_t)__builtin_popcount(differ);
            runs_step(differ, b || j, &run, &max_run);
        }
        if (b) r->dbytes += ig_bitpack_size(B, ig_bit_width(bor));
        bor = (uint64_t)_mm512_reduce_or_epi64(codes) | 2;
    }
    r->umin = _mm512_reduce_min_epu64(vmin);
    r->umax = _mm512_reduce_max_epu64(vmax);
    r->klo = _mm512_reduce_min_epu64(kmin);
    r->khi = _mm512_reduce_max_epu64(kmax);
    r->zor = (uint64_t)_mm512_reduce_or_epi64(zor);
    r->vbytes = vbytes + (size_t)_mm512_reduce_add_epi64(sizes);
    r->bor = bor;
    if (bad) r->delta_ok = false;
    r->runs = 1 + changes;
    r->prev = v[done - 1];
    r->run = run;
    r->max_run = max_run;
    return done;
}

size_t enc_stats_x8(const uint64_t *v, size_t n, bool sg, size_t last_idx, struct enc_stats_run *r)
{
    if (n < ENC_DELTA_BLOCK || !ig_cpu_avx512()) return 0;
    return stats_x8(v, n, sg, last_idx, r);
}

#else

size_t enc_stats_x8(const uint64_t *v, size_t n, bool sg, size_t last_idx, struct enc_stats_run *r)
{
    (void)v, (void)n, (void)sg, (void)last_idx, (void)r;
    return 0;
}

#endif
