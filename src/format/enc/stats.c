/* stats.c - the statistics pass over an int stream (enc_internal.h, struct
 * int_stats): min and max in both orders, OR of the bitpack lanes, runs and
 * the longest run, varint bytes, delta block widths, in one pass (its prefix
 * eight lanes at a time where the CPU can: stats_x8.c). Every leaf scheme's
 * size follows exactly from them; the distinct count is census.c's. */
#include <string.h>

#include "enc_internal.h"

/* The statistics loop, one value at a time from i0 on, carrying on from *r
 * (a vector prefix, stats_x8.c, may have done [0, i0)). */
static void stats_scalar(const uint64_t *v, size_t i0, size_t n, bool sg, size_t last_idx, struct enc_stats_run *r)
{
    for (size_t i = i0; i < n; i++) {
        uint64_t x = v[i];
        if (x < r->umin) r->umin = x;
        if (x > r->umax) r->umax = x;
        uint64_t k = enc_order_key(x, sg);
        if (k < r->klo) r->klo = k;
        if (k > r->khi) r->khi = k;
        uint64_t z = sg ? ig_zigzag64(x) : x;
        r->zor |= z;
        if (i == last_idx) r->vlast = r->vbytes;
        r->vbytes += ig_varint_size(z);
        if (i % ENC_DELTA_BLOCK == 0) {
            if (i) r->dbytes += ig_bitpack_size(ENC_DELTA_BLOCK, ig_bit_width(r->bor));
            r->bor = 2; /* the block's first code */
        } else {
            uint64_t dz = ig_zigzag64(x - r->prev);
            if (dz >= UINT64_MAX - 1) r->delta_ok = false;
            r->bor |= dz + 2;
        }
        if (i && x != r->prev) {
            r->runs++;
            if (r->run > r->max_run) r->max_run = r->run;
            r->run = 0;
        }
        r->run++;
        r->prev = x;
    }
}

static void int_stats(const uint64_t *v, size_t n, const struct ig_int_desc *d, bool zero_marks, bool vector,
                      struct int_stats *st)
{
    memset(st, 0, sizeof *st);
    st->n = n;
    st->fits_width = true;
    if (n == 0) return;
    const bool sg = d->is_signed;
    uint64_t k0 = enc_order_key(v[0], sg);
    struct enc_stats_run r = {.umin = v[0], .umax = v[0], .klo = k0, .khi = k0, .prev = v[0], .runs = 1,
                              .delta_ok = true};
    const size_t last_idx = ((n - 1) / ENC_VARINT_STRIDE) * ENC_VARINT_STRIDE;
    size_t done = vector ? enc_stats_x8(v, n, sg, last_idx, &r) : 0;
    stats_scalar(v, done, n, sg, last_idx, &r);
    if (r.run > r.max_run) r.max_run = r.run;
    r.dbytes += ig_bitpack_size(n - ((n - 1) / ENC_DELTA_BLOCK) * ENC_DELTA_BLOCK, ig_bit_width(r.bor));
    uint64_t umin = r.umin, umax = r.umax, klo = r.klo, khi = r.khi;
    st->umin = umin;
    st->umax = umax;
    st->lo = enc_order_key(klo, sg);
    st->hi = enc_order_key(khi, sg);
    st->zor = r.zor;
    st->runs = r.runs;
    st->max_run = r.max_run;
    st->varint_bytes = r.vbytes;
    st->varint_last = r.vlast;
    st->delta_bytes = r.delta_ok ? r.dbytes : SIZE_MAX;
    st->fits_width =
        enc_fits(sg ? st->lo : umin, d->width, sg) && enc_fits(sg ? st->hi : umax, d->width, sg);
    if (zero_marks && umin == 0) {
        /* 0 lanes become for/delta markers: their range and steps skip them. */
        bool any = false;
        for (size_t i = 0; i < n; i++) {
            if (!v[i]) continue;
            uint64_t k = enc_order_key(v[i], sg);
            if (!any || k < klo) klo = k;
            if (!any || k > khi) khi = k;
            any = true;
        }
        st->lo = any ? enc_order_key(klo, sg) : 0;
        st->hi = any ? enc_order_key(khi, sg) : 0;
        st->delta_bytes = enc_delta_marked_bytes(v, n);
    }
    st->distinct = SIZE_MAX;
}

void enc_int_stats(const uint64_t *v, size_t n, const struct ig_int_desc *d, bool zero_marks,
                   struct int_stats *st)
{
    int_stats(v, n, d, zero_marks, true, st);
}

void enc_int_stats_scalar(const uint64_t *v, size_t n, const struct ig_int_desc *d, bool zero_marks,
                          struct int_stats *st)
{
    int_stats(v, n, d, zero_marks, false, st);
}
