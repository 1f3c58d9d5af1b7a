/* census.c - an int stream's distinct values: each numbered, with how often
 * it comes (the census, codec.h), or only counted up to a limit
 * (enc_count_distinct), or proven more than a limit from a bitmap of hashes
 * (enc_surely_over). The selector and the dict scheme ask; none of this
 * chooses a scheme. */
#include "enc_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void ig_census_free(struct ig_census *c)
{
    free(c->vals);
    free(c->counts);
    free(c->codes);
    free(c->map_keys);
    free(c->map_vals);
    memset(c, 0, sizeof *c);
}

static struct ig_u64map census_map(const struct ig_census *c)
{
    return (struct ig_u64map){.keys = c->map_keys, .vals = c->map_vals, .cap = c->map_live};
}

/* The live part of the map at its start size: room for a few hundred values
 * in 12 KiB. */
#define CENSUS_MAP_START 1024

/* Double the live part of the map and enter the k values found so far again. */
static void census_grow(struct ig_census *c, size_t k)
{
    c->map_live *= 2;
    memset(c->map_vals, 0, c->map_live * sizeof *c->map_vals);
    struct ig_u64map m = census_map(c);
    for (size_t i = 0; i < k; i++) {
        size_t s = ig_u64map_slot(&m, c->vals[i]);
        m.keys[s] = c->vals[i];
        m.vals[s] = (uint32_t)(i + 1);
    }
}

/* Room for n codes and k_max values, and an empty map for k_max keys. */
static int census_room(struct ig_census *c, size_t n, size_t k_max)
{
    if (c->codes_cap < n) {
        uint32_t *p = realloc(c->codes, n * sizeof *p);
        if (!p) return -ENOMEM;
        c->codes = p;
        c->codes_cap = n;
    }
    if (c->vals_cap < k_max) {
        uint64_t *v = realloc(c->vals, k_max * sizeof *v);
        if (v) c->vals = v;
        uint32_t *n2 = v ? realloc(c->counts, k_max * sizeof *n2) : NULL;
        if (!n2) return -ENOMEM;
        c->counts = n2;
        c->vals_cap = k_max;
    }
    size_t cap = 16;
    while (cap < 2 * k_max)
        cap *= 2;
    if (c->map_cap != cap) {
        free(c->map_keys);
        free(c->map_vals);
        c->map_keys = malloc(cap * sizeof *c->map_keys);
        c->map_vals = malloc(cap * sizeof *c->map_vals);
        c->map_cap = c->map_keys && c->map_vals ? cap : 0;
        if (!c->map_cap) return -ENOMEM;
    }
    c->map_live = cap < CENSUS_MAP_START ? cap : CENSUS_MAP_START;
    memset(c->map_vals, 0, c->map_live * sizeof *c->map_vals);
    return 0;
}

int ig_census_take(struct ig_census *c, const uint64_t *v, size_t n, size_t cap)
{
    c->lanes = v;
    c->n = n;
    c->cap = cap;
    c->k = 0;
    c->over = true;
    /* a stream of more distinct values than cap is proven so by a bitmap, at
     * a fraction of a hash map's cost (floats that are all different: proven
     * within the first cap + cap / 16 values or so); a stream not proven over
     * within a quarter more than cap repeats, and the census decides */
    if (n > cap) {
        size_t scan = cap + cap / 4 + 64;
        if (enc_surely_over(v, n < scan ? n : scan, cap)) return 0;
    }
    size_t k_max = n < cap ? n : cap;
    if (census_room(c, n, k_max ? k_max : 1)) return -ENOMEM;
    struct ig_u64map m = census_map(c);
    size_t k = 0;
    uint32_t code = 0;
    uint64_t last = n ? ~v[0] : 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i] != last) { /* runs: one probe each */
            last = v[i];
            size_t s = ig_u64map_slot(&m, last);
            if (!m.vals[s]) {
                if (k == cap) return 0; /* one more than cap: over */
                if (2 * (k + 1) > c->map_live) { /* kept at most half full */
                    census_grow(c, k);
                    m = census_map(c);
                    s = ig_u64map_slot(&m, last);
                }
                m.keys[s] = last;
                m.vals[s] = (uint32_t)++k;
                c->vals[k - 1] = last;
                c->counts[k - 1] = 0;
            }
            code = m.vals[s];
        }
        c->codes[i] = code;
        c->counts[code - 1]++;
    }
    c->k = k;
    c->over = false;
    return 0;
}

const struct ig_census *enc_census_of(const struct enc_ectx *c, const uint64_t *v, size_t n)
{
    const struct ig_census *cen = c->census;
    return cen && !cen->over && cen->lanes == v && cen->n == n ? cen : NULL;
}

size_t enc_census_index(const struct ig_census *cen, uint64_t value)
{
    struct ig_u64map m = census_map(cen);
    return m.vals[ig_u64map_slot(&m, value)] - 1u;
}

/* Whether v certainly holds more than `limit` distinct values, by a lower
 * bound: each value sets one bit of a small bitmap by its hash, and the bits
 * set never outnumber the values that set them. Over the limit it is proven
 * without a set of keys (a block of all-different floats ends here at a third
 * of the cost); otherwise the exact count decides. Values that repeat from
 * the start (more than one in 16 of the first 128: rounded or categorical
 * data) give up at once: the pass would run to the end and prove nothing. */
bool enc_surely_over(const uint64_t *v, size_t n, size_t limit)
{
    uint64_t bm[512]; /* up to 32768 bits, ~8 per value counted */
    unsigned log2 = 6;
    while (log2 < 15 && ((size_t)1 << log2) < 8 * limit) log2++;
    memset(bm, 0, ((size_t)1 << log2) / 8);
    size_t set = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t h = (v[i] * 0x9E3779B97F4A7C15ULL) >> (64 - log2);
        uint64_t bit = 1ull << (h & 63);
        set += !(bm[h >> 6] & bit);
        bm[h >> 6] |= bit;
        if (set > limit) return true;
        if (i == 127 && set < 120) return false;
    }
    return false;
}

size_t enc_count_distinct(const uint64_t *v, size_t n, size_t limit)
{
    if (limit > ENC_DISTINCT_CAP) limit = ENC_DISTINCT_CAP;
    if (n == 0) return 0;
    if (limit == 0) return ENC_DISTINCT_CAP + 1;
    if (n > limit && enc_surely_over(v, n, limit)) return ENC_DISTINCT_CAP + 1;
    struct ig_u64map m;
    size_t cap = n < limit + 1 ? n : limit + 1;
    if (ig_u64map_init(&m, cap)) return SIZE_MAX;
    size_t k = 0;
    uint64_t last = ~v[0];
    for (size_t i = 0; i < n && k <= limit; i++) {
        if (v[i] == last) continue; /* runs: skip the probe */
        last = v[i];
        size_t s = ig_u64map_slot(&m, v[i]);
        if (!m.vals[s]) {
            m.keys[s] = v[i];
            m.vals[s] = 1;
            k++;
        }
    }
    ig_u64map_free(&m);
    return k <= limit ? k : ENC_DISTINCT_CAP + 1;
}
