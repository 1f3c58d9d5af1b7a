/* huff_code.c - the order-0 Huffman code of a huffman stream (huff.c):
 * code lengths from byte counts (at most HUFF_MAX_LEN bits), canonical codes,
 * items coded under it, and the code table's bytes (huff_int.h). */
#include <stdlib.h>
#include <string.h>

#include "enc_internal.h"
#include "huff_int.h"

/* Code lengths from frequencies, at most `most` bits: Huffman's construction
 * over the used byte values (leaves sorted by weight, then byte value, merged
 * with a second queue of the internal nodes, which come out in weight order);
 * if a code comes out longer, the frequencies are flattened (halved, kept
 * non-zero) and it is built again. Runs once per block: linear after the sort. */
static void huff_lengths(const uint64_t freq_in[256], uint8_t len[256], unsigned most)
{
    uint64_t freq[256];
    memcpy(freq, freq_in, sizeof freq);
    memset(len, 0, 256);
    for (;;) {
        int sym[256], k = 0;
        for (int s = 0; s < 256; s++)
            if (freq[s]) sym[k++] = s;
        if (k == 0) return;
        if (k == 1) {
            len[sym[0]] = 1;
            return;
        }
        for (int i = 1; i < k; i++) { /* insertion sort: stable, k <= 256 */
            int s = sym[i], j = i;
            for (; j > 0 && freq[sym[j - 1]] > freq[s]; j--)
                sym[j] = sym[j - 1];
            sym[j] = s;
        }
        /* nodes 0..k-1 the sorted leaves, k.. the internal nodes in the order made */
        uint64_t w[512];
        int parent[512], leaf = 0, inner = k, nodes = k;
        for (int i = 0; i < k; i++)
            w[i] = freq[sym[i]];
        for (int m = 0; m < k - 1; m++) {
            int two[2];
            for (int t = 0; t < 2; t++)
                two[t] = leaf < k && (inner >= nodes || w[leaf] <= w[inner]) ? leaf++ : inner++;
            w[nodes] = w[two[0]] + w[two[1]];
            parent[two[0]] = parent[two[1]] = nodes;
            nodes++;
        }
        unsigned depth[512], max = 0;
        depth[nodes - 1] = 0; /* the root; every parent comes after its children */
        for (int i = nodes - 2; i >= 0; i--)
            depth[i] = depth[parent[i]] + 1;
        for (int i = 0; i < k; i++) {
            len[sym[i]] = (uint8_t)(depth[i] > 255 ? 255 : depth[i]);
            if (depth[i] > max) max = depth[i];
        }
        if (max <= most) return;
        memset(len, 0, 256);
        for (int s = 0; s < 256; s++)
            if (freq[s]) freq[s] = (freq[s] >> 1) | 1;
    }
}

/* Each byte with its bits in reverse order (a code's bits go out least
 * significant first): every read of a stream makes its code canonical again. */
#define R2(n) n, n + 2 * 64, n + 1 * 64, n + 3 * 64
#define R4(n) R2(n), R2(n + 2 * 16), R2(n + 1 * 16), R2(n + 3 * 16)
#define R6(n) R4(n), R4(n + 2 * 4), R4(n + 1 * 4), R4(n + 3 * 4)
static const uint8_t reversed_byte[256] = {R6(0), R6(2), R6(1), R6(3)};
#undef R2
#undef R4
#undef R6

void huff_canonical_of(struct huff_code *c, const uint8_t *syms, unsigned k)
{
    unsigned count[HUFF_MAX_LEN + 1] = {0}, next[HUFF_MAX_LEN + 2] = {0};
    c->k = k;
    for (unsigned j = 0; j < k; j++)
        count[c->len[syms[j]]]++;
    unsigned code = 0;
    for (unsigned l = 1; l <= HUFF_MAX_LEN; l++) {
        code = (code + count[l - 1]) << 1;
        next[l] = code;
    }
    for (unsigned j = 0; j < k; j++) {
        unsigned l = c->len[syms[j]];
        unsigned v = next[l]++; /* l <= 12 bits, reversed a byte at a time */
        unsigned r = ((unsigned)reversed_byte[v & 0xff] << 8 | reversed_byte[(v >> 8) & 0xff]) >> (16 - l);
        c->rev[syms[j]] = (uint16_t)r;
    }
}

/* Canonical codes for the lengths in c->len (by length, then byte value). */
void huff_canonical(struct huff_code *c)
{
    uint8_t syms[256];
    unsigned k = 0;
    for (int s = 0; s < 256; s++) {
        c->rev[s] = 0;
        if (c->len[s]) syms[k++] = (uint8_t)s;
    }
    huff_canonical_of(c, syms, k);
}

/* Coded bytes of one item under c. */
size_t huff_item_coded_size(const struct huff_code *c, const uint8_t *p, size_t n)
{
    uint64_t bits = 0;
    for (size_t i = 0; i < n; i++)
        bits += c->len[p[i]];
    return (size_t)((bits + 7) / 8);
}

/* Append item p[0..n) coded under c to out (byte-aligned): `need` bytes, its
 * huff_item_coded_size. */
int huff_put_item(const struct huff_code *c, const uint8_t *p, size_t n, size_t need,
                    struct ig_buf *out)
{
    uint8_t *o = ig_buf_extend(out, need + 8); /* room for the last word */
    if (!o) return -ENOMEM;
    uint64_t acc = 0;
    unsigned have = 0;
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        acc |= (uint64_t)c->rev[p[i]] << have;
        have += c->len[p[i]];
        if (have >= 32) {
            ig_st32(o + at, (uint32_t)acc);
            at += 4;
            acc >>= 32;
            have -= 32;
        }
    }
    while (have > 0) {
        o[at++] = (uint8_t)acc;
        acc >>= 8;
        have = have > 8 ? have - 8 : 0;
    }
    out->len -= need + 8 - at; /* at == need */
    return 0;
}

size_t huff_code_table_size(unsigned k)
{
    return ig_varint_size(k) + k + (k + 1) / 2;
}

/* [IG_ENC_HUFF] [k] [symbols] [lengths] of c at h (huff_code_table_size(c->k) + 1
 * bytes); returns the bytes written. */
size_t huff_put_code_table(const struct huff_code *c, uint8_t *h)
{
    size_t at = 0;
    h[at++] = IG_ENC_HUFF;
    at += ig_varint_put(h + at, c->k);
    size_t sym_at = at, len_at = at + c->k;
    memset(h + len_at, 0, (c->k + 1) / 2);
    unsigned j = 0;
    for (int s = 0; s < 256; s++) {
        if (!c->len[s]) continue;
        h[sym_at + j] = (uint8_t)s;
        h[len_at + j / 2] |= (uint8_t)(c->len[s] << (4 * (j % 2)));
        j++;
    }
    return len_at + (c->k + 1) / 2;
}

/* Byte counts of p[0..n) into freq (added): four tables, so runs of one byte
 * value do not wait on their own increments. */
static void count_bytes(const uint8_t *p, size_t n, uint64_t freq[256])
{
    uint32_t t[4][256];
    memset(t, 0, sizeof t);
    while (n > 0) {
        size_t chunk = n < ((size_t)1 << 30) ? n : (size_t)1 << 30, i = 0;
        for (; i + 4 <= chunk; i += 4) {
            t[0][p[i]]++;
            t[1][p[i + 1]]++;
            t[2][p[i + 2]]++;
            t[3][p[i + 3]]++;
        }
        for (; i < chunk; i++)
            t[0][p[i]]++;
        for (int s = 0; s < 256; s++) {
            freq[s] += (uint64_t)t[0][s] + t[1][s] + t[2][s] + t[3][s];
            t[0][s] = t[1][s] = t[2][s] = t[3][s] = 0;
        }
        p += chunk;
        n -= chunk;
    }
}

void huff_code_from_counts(struct huff_code *c, const uint64_t freq[256], unsigned most)
{
    huff_lengths(freq, c->len, most);
    huff_canonical(c);
}

void huff_code_from_items(struct huff_code *c, const uint64_t *offs, const uint8_t *data,
                            size_t n, const uint8_t *skip)
{
    uint64_t freq[256] = {0};
    if (!skip && n) /* the items lie back to back */
        count_bytes(data + offs[0], (size_t)(offs[n] - offs[0]), freq);
    for (size_t i = 0; skip && i < n; i++)
        if (!bm_get(skip, i)) count_bytes(data + offs[i], (size_t)(offs[i + 1] - offs[i]), freq);
    huff_lengths(freq, c->len, HUFF_MAX_LEN);
    huff_canonical(c);
}
