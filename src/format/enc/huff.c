/* huff.c - per-item Huffman, a bytes scheme whose items stay addressable and
 * erasable one by one while compressed.
 *
 * Why: a zstd block of strings must be decompressed whole to read one item and
 * recompressed whole to erase one. Here every item is its own byte-aligned run
 * of Huffman codes under one code for the stream (an order-0 code over byte
 * values, at most HUFF_MAX_LEN bits per code), so reading item i decodes item
 * i only, and erasing it removes its bytes without touching the code.
 *
 * Layout (docs/ENCODINGS.md "huffman"):
 *   [10] [varint k] [k symbols, ascending byte values] [ceil(k/2) bytes: code
 *   length of each symbol, 4 bits each, low nibble first, 1..12]
 *   [wo: u8] [wr: u8] [n+1 coded offsets, bit-packed at wo] [n raw lengths,
 *   bit-packed at wr] [coded items, back to back]
 *   Codes are canonical (by length, then byte value) and read least significant
 *   bit first; an item's last byte is padded with zero bits. Offsets are
 *   non-decreasing, offsets[0] = 0 as written (an erase may leave zero bytes
 *   before the first item), offsets[n] = coded bytes; wo and wr are the bit
 *   widths of the largest offset and raw length. k = 0 (no code) when every
 *   item is empty.
 *
 * Erase: the item is removed (raw length 0, its coded bytes gone, widths
 *   recomputed); the live items on the shorter side of it shift over the gap
 *   (later items left, as plain does, or earlier items right) and the freed
 *   bytes are zeroed. The code stays when every byte value it holds is still
 *   used by a live item; when an erased item held a byte value no live item
 *   holds, the code is rebuilt from the live items (the code would otherwise
 *   say that value occurred). A rebuilt stream longer than the old one (rare:
 *   an optimal code for fewer items can have a larger table) is -ENOSPC, and
 *   the page re-encodes the values.
 * Check: erased items have raw and coded length 0, every item's coded bytes are
 *   exactly its codes with zero padding bits, bytes before the first item are
 *   zero, widths are minimal, and every symbol of the code is used by some item
 *   (k = 0 when nothing is coded).
 *
 * Not done here: a code shared between streams (each stream carries its own,
 * 1.5 bytes per symbol), multi-symbol decode tables, and any use inside nested
 * leaves (the page layer offers huffman for flat string and binary leaves).
 */
#include <stdlib.h>
#include <string.h>

#include "enc_internal.h"

#define HUFF_MAX_LEN 12

/* A code: for each byte value its length (0 = not coded) and its bits, already
 * reversed for least-significant-bit-first output. */
struct huff_code {
    unsigned k;
    uint8_t len[256];
    uint16_t rev[256];
};

/* Code lengths from frequencies, at most HUFF_MAX_LEN: Huffman's construction
 * over the used byte values (leaves sorted by weight, then byte value, merged
 * with a second queue of the internal nodes, which come out in weight order);
 * if a code comes out longer, the frequencies are flattened (halved, kept
 * non-zero) and it is built again. Runs once per block: linear after the sort. */
static void huff_lengths(const uint64_t freq_in[256], uint8_t len[256])
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
        if (max <= HUFF_MAX_LEN) return;
        memset(len, 0, 256);
        for (int s = 0; s < 256; s++)
            if (freq[s]) freq[s] = (freq[s] >> 1) | 1;
    }
}

/* Canonical codes for the lengths in c->len (by length, then byte value). */
static void huff_canonical(struct huff_code *c)
{
    unsigned count[HUFF_MAX_LEN + 1] = {0}, next[HUFF_MAX_LEN + 2] = {0};
    c->k = 0;
    for (int s = 0; s < 256; s++)
        if (c->len[s]) {
            count[c->len[s]]++;
            c->k++;
        }
    unsigned code = 0;
    for (unsigned l = 1; l <= HUFF_MAX_LEN; l++) {
        code = (code + count[l - 1]) << 1;
        next[l] = code;
    }
    for (int s = 0; s < 256; s++) {
        unsigned l = c->len[s];
        c->rev[s] = 0;
        if (!l) continue;
        unsigned v = next[l]++, r = 0;
        for (unsigned b = 0; b < l; b++)
            r |= ((v >> b) & 1u) << (l - 1 - b);
        c->rev[s] = (uint16_t)r;
    }
}

/* Coded bytes of one item under c. */
static size_t item_coded_size(const struct huff_code *c, const uint8_t *p, size_t n)
{
    uint64_t bits = 0;
    for (size_t i = 0; i < n; i++)
        bits += c->len[p[i]];
    return (size_t)((bits + 7) / 8);
}

/* Append item p[0..n) coded under c to out (byte-aligned): `need` bytes, its
 * item_coded_size. */
static int put_item(const struct huff_code *c, const uint8_t *p, size_t n, size_t need,
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

static size_t code_table_size(unsigned k)
{
    return ig_varint_size(k) + k + (k + 1) / 2;
}

/* The whole stream for items (offs, data) under c: offsets index and lengths. */
static int put_stream(const struct huff_code *c, const uint64_t *offs, const uint8_t *data,
                      size_t n, struct ig_buf *out)
{
    uint64_t *co = malloc((n + 1) * sizeof *co);
    uint64_t *rl = malloc((n ? n : 1) * sizeof *rl);
    int rc = co && rl ? 0 : -ENOMEM;
    uint64_t maxr = 0;
    co[0] = 0;
    for (size_t i = 0; !rc && i < n; i++) {
        rl[i] = offs[i + 1] - offs[i];
        if (rl[i] > maxr) maxr = rl[i];
        co[i + 1] = co[i] + item_coded_size(c, data + offs[i], (size_t)rl[i]);
    }
    unsigned wo = rc ? 0 : ig_bit_width(co[n]), wr = ig_bit_width(maxr);
    size_t head = 1 + code_table_size(c->k) + 2;
    uint8_t *h = rc ? NULL : ig_buf_extend(out, head);
    if (!rc && !h) rc = -ENOMEM;
    if (!rc) {
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
        at = len_at + (c->k + 1) / 2;
        h[at++] = (uint8_t)wo;
        h[at++] = (uint8_t)wr;
        uint8_t *ix = ig_buf_extend(out, ig_bitpack_size(n + 1, wo) + ig_bitpack_size(n, wr));
        if (!ix) {
            rc = -ENOMEM;
        } else {
            ig_bitpack_pack(ix, co, n + 1, wo);
            ig_bitpack_pack(ix + ig_bitpack_size(n + 1, wo), rl, n, wr);
        }
    }
    for (size_t i = 0; !rc && i < n; i++)
        rc = put_item(c, data + offs[i], (size_t)rl[i], (size_t)(co[i + 1] - co[i]), out);
    free(co);
    free(rl);
    return rc;
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

static void code_from_items(struct huff_code *c, const uint64_t *offs, const uint8_t *data,
                            size_t n, const uint8_t *skip)
{
    uint64_t freq[256] = {0};
    if (!skip && n) /* the items lie back to back */
        count_bytes(data + offs[0], (size_t)(offs[n] - offs[0]), freq);
    for (size_t i = 0; skip && i < n; i++)
        if (!bm_get(skip, i)) count_bytes(data + offs[i], (size_t)(offs[i + 1] - offs[i]), freq);
    huff_lengths(freq, c->len);
    huff_canonical(c);
}

static int huff_encode(const uint64_t *offs, const uint8_t *data, size_t n, struct enc_ectx *c,
                       struct ig_buf *out)
{
    /* offsets may start anywhere in data: rebase to 0 for the index */
    struct huff_code code;
    uint64_t *o = malloc((n + 1) * sizeof *o);
    if (!o) return enc_nomem(c->err);
    for (size_t i = 0; i <= n; i++)
        o[i] = offs[i] - offs[0];
    const uint8_t *d = data + offs[0];
    code_from_items(&code, o, d, n, NULL);
    int rc = put_stream(&code, o, d, n, out);
    free(o);
    return rc ? enc_nomem(c->err) : 0;
}

/* ---- reading ------------------------------------------------------------- */

struct huff_hdr {
    struct huff_code code;
    unsigned maxlen, wo, wr;
    size_t index_at, lens_at, data_at, data_avail;
};

static int huff_header(const uint8_t *p, size_t len, size_t n, struct huff_hdr *h,
                       struct ig_error *err)
{
    size_t pos = 1;
    uint64_t k;
    if (enc_field(p, len, &pos, &k, "huffman", "symbol count", err)) return -EIO;
    if (k > 256) return ig_err(err, -EIO, "huffman stream: %llu symbols", (unsigned long long)k);
    size_t tb = (size_t)k + ((size_t)k + 1) / 2;
    if (tb + 2 > len - pos) return ig_err(err, -EIO, "huffman stream: code table past the end");
    memset(&h->code, 0, sizeof h->code);
    h->maxlen = 0;
    uint64_t kraft = 0; /* in units of 2^-HUFF_MAX_LEN */
    for (size_t j = 0; j < k; j++) {
        uint8_t s = p[pos + j];
        unsigned l = (p[pos + k + j / 2] >> (4 * (j % 2))) & 15u;
        if (j && s <= p[pos + j - 1]) return ig_err(err, -EIO, "huffman stream: symbols out of order");
        if (l < 1 || l > HUFF_MAX_LEN)
            return ig_err(err, -EIO, "huffman stream: code length %u of byte %u", l, s);
        h->code.len[s] = (uint8_t)l;
        kraft += 1u << (HUFF_MAX_LEN - l);
        if (l > h->maxlen) h->maxlen = l;
    }
    if (kraft > (1u << HUFF_MAX_LEN)) return ig_err(err, -EIO, "huffman stream: not a prefix code");
    if (k && ((size_t)k + 1) % 2 == 0 && (p[pos + k + k / 2] >> 4))
        return ig_err(err, -EIO, "huffman stream: stray bits in the code table");
    huff_canonical(&h->code);
    pos += tb;
    h->wo = p[pos];
    h->wr = p[pos + 1];
    pos += 2;
    if (h->wo > 40 || h->wr > 40)
        return ig_err(err, -EIO, "huffman stream: index widths %u/%u", h->wo, h->wr);
    size_t ib = ig_bitpack_size(n + 1, h->wo), lb = ig_bitpack_size(n, h->wr);
    if (ib > len - pos || lb > len - pos - ib)
        return ig_err(err, -EIO, "huffman stream: item index past the end");
    h->index_at = pos;
    h->lens_at = pos + ib;
    h->data_at = pos + ib + lb;
    h->data_avail = len - h->data_at;
    return 0;
}

/* Decode table: 2^maxlen entries of (byte value | length << 8), 0 = no code. */
static void huff_table(const struct huff_hdr *h, uint16_t *t)
{
    size_t size = (size_t)1 << h->maxlen;
    memset(t, 0, size * sizeof *t);
    for (int s = 0; s < 256; s++) {
        unsigned l = h->code.len[s];
        if (!l) continue;
        for (size_t x = h->code.rev[s]; x < size; x += (size_t)1 << l)
            t[x] = (uint16_t)(s | (l << 8));
    }
}

/* Decode one item: `raw` bytes from coded bytes src[0..clen) into dst. Bits
 * come in eight bytes at a time while they last (enough for four codes);
 * past the end of the item they read as zeros, and a code that would spend
 * them is an error. */
static int decode_item(const struct huff_hdr *h, const uint16_t *t, const uint8_t *src, size_t clen,
                       size_t raw, uint8_t *dst, size_t item, struct ig_error *err)
{
    uint64_t acc = 0;
    unsigned have = 0;
    size_t in = 0;
    uint64_t budget = (uint64_t)clen * 8, spent = 0;
    const uint64_t mask = ((uint64_t)1 << h->maxlen) - 1;
    bool bad = false;
    size_t i = 0;
    /* four codes per refill while eight bytes remain: a refill leaves at
     * least 56 bits, four codes spend at most 48 */
    while (raw - i >= 4 && in + 8 <= clen) {
        acc |= ig_ld64(src + in) << have;
        in += (63 - have) / 8;
        have |= 56;
        for (int k = 0; k < 4; k++) {
            uint16_t e = t[acc & mask];
            unsigned l = e >> 8;
            bad |= l == 0;
            spent += l;
            dst[i++] = (uint8_t)e;
            acc >>= l;
            have -= l;
        }
    }
    for (; i < raw; i++) {
        if (have < HUFF_MAX_LEN) {
            if (in + 8 <= clen) {
                acc |= ig_ld64(src + in) << have;
                in += (63 - have) / 8;
                have |= 56;
            } else {
                while (have <= 56 && in < clen) {
                    acc |= (uint64_t)src[in++] << have;
                    have += 8;
                }
            }
        }
        uint16_t e = t[acc & mask];
        unsigned l = e >> 8;
        bad |= l == 0; /* bits that are no code: checked once, after the item */
        spent += l;
        dst[i] = (uint8_t)e;
        acc >>= l;
        have = have >= l ? have - l : 0;
    }
    if (bad || spent > budget)
        return ig_err(err, -EIO, "huffman stream: item %zu does not decode", item);
    return 0;
}

/* Offsets and raw lengths, validated: coded ranges inside the data, raw sizes
 * bounded by what their codes can hold (1 bit per byte at least). */
static int huff_index(const uint8_t *p, size_t n, const struct huff_hdr *h, uint64_t *co,
                      uint64_t *rl, uint64_t *raw_total, struct ig_error *err)
{
    ig_bitpack_unpack(co, p + h->index_at, n + 1, h->wo);
    if (n) ig_bitpack_unpack(rl, p + h->lens_at, n, h->wr);
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++) {
        if (co[i + 1] < co[i]) return ig_err(err, -EIO, "huffman stream: offset %zu decreases", i + 1);
        uint64_t c = co[i + 1] - co[i];
        if (rl[i] > 8 * c || (rl[i] && !h->code.k) || (c && !rl[i]))
            return ig_err(err, -EIO, "huffman stream: item %zu: %llu bytes in %llu coded", i,
                          (unsigned long long)rl[i], (unsigned long long)c);
        total += rl[i];
    }
    if (co[n] > h->data_avail)
        return ig_err(err, -EIO, "huffman stream: %llu coded bytes, only %zu present",
                      (unsigned long long)co[n], h->data_avail);
    if (total > ENC_MAX_DECODED) return ig_err(err, -EIO, "huffman stream: too large decoded");
    *raw_total = total;
    return 0;
}

/* Everything decoded: offs_out[0..n] and the bytes. */
static int huff_decode_all(const uint8_t *p, size_t len, size_t n, uint64_t *offs_out,
                           struct ig_buf *data_out, size_t *used, struct ig_error *err)
{
    struct huff_hdr h;
    int rc = huff_header(p, len, n, &h, err);
    if (rc) return rc;
    uint64_t *co = malloc((n + 1) * sizeof *co), *rl = malloc((n ? n : 1) * sizeof *rl);
    uint16_t *t = malloc(((size_t)1 << h.maxlen) * sizeof *t);
    uint64_t total = 0;
    rc = co && rl && t ? huff_index(p, n, &h, co, rl, &total, err) : enc_nomem(err);
    ig_buf_reset(data_out);
    uint8_t *dst = rc ? NULL : ig_buf_extend(data_out, (size_t)total);
    if (!rc && !dst && total) rc = enc_nomem(err);
    if (!rc) huff_table(&h, t);
    uint64_t at = 0;
    if (!rc) offs_out[0] = 0;
    for (size_t i = 0; !rc && i < n; i++) {
        rc = decode_item(&h, t, p + h.data_at + co[i], (size_t)(co[i + 1] - co[i]), (size_t)rl[i],
                         dst + at, i, err);
        at += rl[i];
        offs_out[i + 1] = at;
    }
    if (!rc) *used = h.data_at + (size_t)co[n];
    free(co);
    free(rl);
    free(t);
    return rc;
}

static int huff_decode(const uint8_t *p, size_t len, size_t n, const uint8_t *absent,
                       uint64_t *offs_out, struct ig_buf *data_out, size_t *used, struct enc_dctx *c)
{
    (void)absent;
    return huff_decode_all(p, len, n, offs_out, data_out, used, c->err);
}

/* One item, decoded into this thread's buffer (valid until its next get). */
static int huff_get(const uint8_t *p, size_t len, size_t n, const uint8_t *absent, size_t i,
                    const uint8_t **val, size_t *vlen, struct enc_dctx *c)
{
    (void)absent;
    static _Thread_local uint8_t item[1 << 16];
    static _Thread_local struct ig_buf big = IG_BUF_INIT;
    struct huff_hdr h;
    int rc = huff_header(p, len, n, &h, c->err);
    if (rc) return rc;
    size_t ib = h.lens_at - h.index_at;
    uint64_t a = ig_bitpack_get(p + h.index_at, ib, i, h.wo);
    uint64_t b = ig_bitpack_get(p + h.index_at, ib, i + 1, h.wo);
    uint64_t raw = ig_bitpack_get(p + h.lens_at, h.data_at - h.lens_at, i, h.wr);
    if (a > b || b > h.data_avail || raw > 8 * (b - a) || (raw && !h.code.k))
        return ig_err(c->err, -EIO, "huffman stream: item %zu has invalid offsets", i);
    uint8_t *dst = item;
    if (raw > sizeof item) {
        ig_buf_reset(&big);
        if (!(dst = ig_buf_extend(&big, (size_t)raw))) return enc_nomem(c->err);
    }
    uint16_t t[1 << HUFF_MAX_LEN];
    huff_table(&h, t);
    rc = decode_item(&h, t, p + h.data_at + a, (size_t)(b - a), (size_t)raw, dst, i, c->err);
    if (rc) return rc;
    *val = dst;
    *vlen = (size_t)raw;
    return 0;
}

/* Erase under the kept code: the killed items' coded bytes leave, the others
 * are copied as they are (no decoding), the index is rebuilt. */
static int erase_coded(const uint8_t *p, size_t n, const struct huff_hdr *h, const uint64_t *co,
                       const uint64_t *rl, const uint8_t *kill, struct ig_buf *out)
{
    uint64_t *o2 = malloc((n + 1) * sizeof *o2), *r2 = malloc((n ? n : 1) * sizeof *r2);
    if (!o2 || !r2) {
        free(o2);
        free(r2);
        return -ENOMEM;
    }
    uint64_t maxr = 0;
    for (size_t i = 0; i < n; i++) {
        r2[i] = bm_get(kill, i) ? 0 : rl[i];
        if (r2[i] > maxr) maxr = r2[i];
    }
    enc_erase_shift(n, co, kill, o2);
    unsigned wo = ig_bit_width(o2[n]), wr = ig_bit_width(maxr);
    size_t code_bytes = h->index_at - 2; /* scheme, k, symbols, lengths: kept */
    size_t ib = ig_bitpack_size(n + 1, wo), lb = ig_bitpack_size(n, wr);
    uint8_t *d = ig_buf_extend(out, code_bytes + 2 + ib + lb + (size_t)o2[n]);
    if (d) {
        memcpy(d, p, code_bytes);
        d[code_bytes] = (uint8_t)wo;
        d[code_bytes + 1] = (uint8_t)wr;
        uint8_t *ix = d + code_bytes + 2;
        ig_bitpack_pack(ix, o2, n + 1, wo);
        ig_bitpack_pack(ix + ib, r2, n, wr);
        uint8_t *data = ix + ib + lb;
        memset(data, 0, (size_t)o2[0]);
        for (size_t i = 0; i < n; i++)
            if (r2[i]) memcpy(data + o2[i], p + h->data_at + co[i], (size_t)(co[i + 1] - co[i]));
    }
    free(o2);
    free(r2);
    return d ? 0 : -ENOMEM;
}

static int huff_erase(const uint8_t *p, size_t len, size_t n, const uint8_t *absent,
                      const uint8_t *kill, bool may_drop, struct enc_dctx *c, struct ig_buf *out)
{
    (void)absent;
    (void)may_drop;
    struct huff_hdr h;
    int rc = huff_header(p, len, n, &h, c->err);
    if (rc) return rc;
    uint64_t *co = malloc((n + 1) * sizeof *co), *rl = malloc((n ? n : 1) * sizeof *rl);
    uint16_t *t = malloc(((size_t)1 << h.maxlen) * sizeof *t);
    struct ig_buf item = IG_BUF_INIT, data = IG_BUF_INIT;
    uint64_t total = 0, *offs = NULL;
    rc = co && rl && t ? huff_index(p, n, &h, co, rl, &total, c->err) : enc_nomem(c->err);
    if (rc) goto done;
    huff_table(&h, t);
    /* Does every byte value of the code still occur in a live item? Usually
     * the first few live items answer it; only those are decoded. (Asking it of
     * every value, not only those the killed items held, costs the same on
     * well-formed streams and mends a code that holds unused values.) */
    bool wanted[256];
    unsigned nwanted = 0;
    for (int s = 0; s < 256; s++)
        if ((wanted[s] = h.code.len[s] != 0)) nwanted++;
    for (size_t i = 0; i < n && !rc && nwanted; i++) {
        if (bm_get(kill, i) || !rl[i]) continue;
        ig_buf_reset(&item);
        uint8_t *dst = ig_buf_extend(&item, (size_t)rl[i]);
        if (!dst) {
            rc = enc_nomem(c->err);
            break;
        }
        rc = decode_item(&h, t, p + h.data_at + co[i], (size_t)(co[i + 1] - co[i]), (size_t)rl[i],
                         dst, i, c->err);
        for (uint64_t j = 0; !rc && j < rl[i]; j++)
            if (wanted[dst[j]]) wanted[dst[j]] = false, nwanted--;
    }
    if (rc) goto done;
    if (!nwanted) { /* the code stays: move coded bytes, no decoding */
        rc = erase_coded(p, n, &h, co, rl, kill, out);
        if (rc) rc = enc_nomem(c->err);
        goto done;
    }
    /* a byte value no live item holds: a fresh code from the live items
     * (longer than before, rarely: -ENOSPC and the page re-encodes) */
    size_t used;
    offs = malloc((n + 1) * sizeof *offs);
    rc = offs ? huff_decode_all(p, len, n, offs, &data, &used, c->err) : enc_nomem(c->err);
    if (rc) goto done;
    enc_compact_items(data.data, data.data, offs, n, kill);
    const uint8_t *bytes = data.data ? data.data : (const uint8_t *)"";
    struct huff_code fresh;
    code_from_items(&fresh, offs, bytes, n, NULL);
    rc = put_stream(&fresh, offs, bytes, n, out);
    if (rc) rc = enc_nomem(c->err);
done:
    free(co);
    free(rl);
    free(t);
    free(offs);
    ig_buf_free(&item);
    ig_buf_free(&data);
    return rc;
}

static int huff_check(const uint8_t *p, size_t len, size_t n, const uint8_t *absent,
                      const uint8_t *erased, size_t *used, struct enc_dctx *c)
{
    (void)absent;
    uint64_t *offs = malloc((n + 1) * sizeof *offs);
    struct ig_buf data = IG_BUF_INIT;
    int rc = offs ? huff_decode_all(p, len, n, offs, &data, used, c->err) : enc_nomem(c->err);
    struct huff_hdr h;
    if (!rc) rc = huff_header(p, len, n, &h, c->err);
    uint64_t seen[256] = {0}, maxr = 0;
    for (size_t i = 0; !rc && i < n; i++) {
        uint64_t l = offs[i + 1] - offs[i];
        if (bm_get(erased, i) && l)
            rc = ig_err(c->err, -EIO, "huffman stream: erased item %zu still holds %llu bytes", i,
                        (unsigned long long)l);
        if (l > maxr) maxr = l;
        for (uint64_t j = offs[i]; j < offs[i + 1]; j++)
            seen[data.data[j]]++;
    }
    /* no room for anything but the codes: exact sizes, zero padding bits, and
     * zeros where erased items were before the first coded item */
    size_t ib = rc ? 0 : h.lens_at - h.index_at;
    uint64_t head = rc ? 0 : ig_bitpack_get(p + h.index_at, ib, 0, h.wo);
    for (uint64_t j = 0; !rc && j < head; j++)
        if (p[h.data_at + j])
            rc = ig_err(c->err, -EIO, "huffman stream: byte %llu before the first item is not zero",
                        (unsigned long long)j);
    for (size_t i = 0; !rc && i < n; i++) {
        uint64_t a = ig_bitpack_get(p + h.index_at, ib, i, h.wo);
        uint64_t b = ig_bitpack_get(p + h.index_at, ib, i + 1, h.wo);
        uint64_t bits = 0;
        for (uint64_t j = offs[i]; j < offs[i + 1]; j++)
            bits += h.code.len[data.data[j]];
        if (b - a != (bits + 7) / 8 || (bits % 8 && (p[h.data_at + b - 1] >> (bits % 8))))
            rc = ig_err(c->err, -EIO, "huffman stream: item %zu holds more than its codes", i);
    }
    for (int s = 0; !rc && s < 256; s++)
        if (h.code.len[s] && !seen[s])
            rc = ig_err(c->err, -EIO, "huffman stream: the code holds byte %d, which no item has", s);
    if (!rc) {
        uint64_t coded = ig_bitpack_get(p + h.index_at, ib, n, h.wo);
        if (h.wo != ig_bit_width(coded) || h.wr != ig_bit_width(maxr))
            rc = ig_err(c->err, -EIO, "huffman stream: index widths %u/%u are not minimal", h.wo, h.wr);
    }
    free(offs);
    ig_buf_free(&data);
    return rc;
}

size_t enc_huff_bytes_size(const uint64_t *offs, const uint8_t *data, size_t n)
{
    struct huff_code code;
    code_from_items(&code, offs, data, n, NULL);
    uint64_t coded = 0, maxr = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t l = offs[i + 1] - offs[i];
        if (l > maxr) maxr = l;
        coded += item_coded_size(&code, data + offs[i], (size_t)l);
    }
    return 1 + code_table_size(code.k) + 2 + ig_bitpack_size(n + 1, ig_bit_width(coded)) +
           ig_bitpack_size(n, ig_bit_width(maxr)) + (size_t)coded;
}

const struct bytes_scheme enc_huff_bytes = {
    .id = IG_ENC_HUFF,
    .name = "huffman",
    .encode = huff_encode,
    .decode = huff_decode,
    .get = huff_get,
    .erase = huff_erase,
    .check = huff_check,
};
