#include "pcode.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

unsigned ig_pcode_lengths(const uint64_t *freq, unsigned nsym, uint8_t *len)
{
    /* nodes 0..nsym-1 are the symbols, the rest internal; O(n^2) is plenty
     * for an alphabet of 65 */
    uint64_t w[2 * IG_PCODE_MAX_SYMS];
    int parent[2 * IG_PCODE_MAX_SYMS];
    unsigned live = 0, n = nsym;
    memset(len, 0, nsym);
    for (unsigned s = 0; s < nsym; s++) {
        w[s] = freq[s];
        parent[s] = -1;
        live += freq[s] != 0;
    }
    if (live == 0) return 0;
    if (live == 1) {
        for (unsigned s = 0; s < nsym; s++)
            if (freq[s]) len[s] = 1;
        return 1;
    }
    for (unsigned merges = 0; merges + 1 < live; merges++) {
        int a = -1, b = -1; /* the two lightest roots */
        for (unsigned i = 0; i < n; i++) {
            if (parent[i] != -1 || (i < nsym && !freq[i])) continue;
            if (a < 0 || w[i] < w[a]) {
                b = a;
                a = (int)i;
            } else if (b < 0 || w[i] < w[b]) {
                b = (int)i;
            }
        }
        w[n] = w[a] + w[b];
        parent[n] = -1;
        parent[a] = parent[b] = (int)n;
        n++;
    }
    unsigned longest = 0;
    for (unsigned s = 0; s < nsym; s++) {
        if (!freq[s]) continue;
        unsigned d = 0;
        for (int i = (int)s; parent[i] != -1; i = parent[i])
            d++;
        len[s] = (uint8_t)(d > 255 ? 255 : d);
        if (d > longest) longest = d;
    }
    return longest;
}

static uint16_t reverse(uint16_t x, unsigned bits)
{
    uint16_t r = 0;
    for (unsigned i = 0; i < bits; i++, x >>= 1)
        r = (uint16_t)(r << 1 | (x & 1));
    return r;
}

int ig_pcode_build(struct ig_pcode *c, int lut)
{
    unsigned count[IG_PCODE_MAX_LEN + 1] = {0}, next[IG_PCODE_MAX_LEN + 2];
    c->max_len = 0;
    c->lut = NULL;
    for (unsigned s = 0; s < IG_PCODE_MAX_SYMS; s++) {
        if (c->len[s] > IG_PCODE_MAX_LEN) return -EINVAL;
        count[c->len[s]]++;
        if (c->len[s] > c->max_len) c->max_len = c->len[s];
    }
    if (c->max_len == 0) return -EINVAL;
    /* Kraft: sum of 2^-len over the symbols, in units of 2^-15 */
    uint32_t kraft = 0;
    for (unsigned l = 1; l <= IG_PCODE_MAX_LEN; l++)
        kraft += count[l] << (IG_PCODE_MAX_LEN - l);
    if (kraft > (1u << IG_PCODE_MAX_LEN)) return -EINVAL;
    unsigned code = 0;
    count[0] = 0;
    for (unsigned l = 1; l <= IG_PCODE_MAX_LEN; l++) {
        code = (code + count[l - 1]) << 1;
        next[l] = code;
    }
    for (unsigned s = 0; s < IG_PCODE_MAX_SYMS; s++)
        if (c->len[s]) c->code[s] = reverse((uint16_t)next[c->len[s]]++, c->len[s]);
    if (!lut) return 0;
    size_t size = (size_t)1 << c->max_len;
    c->lut = calloc(size, sizeof *c->lut);
    if (!c->lut) return -ENOMEM;
    for (unsigned s = 0; s < IG_PCODE_MAX_SYMS; s++) {
        unsigned l = c->len[s];
        if (!l) continue;
        for (size_t k = c->code[s]; k < size; k += (size_t)1 << l)
            c->lut[k] = (uint16_t)(s << 4 | l);
    }
    return 0;
}

void ig_pcode_free(struct ig_pcode *c)
{
    free(c->lut);
    c->lut = NULL;
}

void ig_pcode_store(const struct ig_pcode *c, uint8_t *out)
{
    memset(out, 0, IG_PCODE_TABLE_BYTES);
    for (unsigned s = 0; s < IG_PCODE_MAX_SYMS; s++)
        out[s / 2] |= (uint8_t)((c->len[s] & 15) << (4 * (s % 2)));
}

void ig_pcode_load(const uint8_t *in, struct ig_pcode *c)
{
    memset(c, 0, sizeof *c);
    for (unsigned s = 0; s < IG_PCODE_MAX_SYMS; s++)
        c->len[s] = (uint8_t)((in[s / 2] >> (4 * (s % 2))) & 15);
}
