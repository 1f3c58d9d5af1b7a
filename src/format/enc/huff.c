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
 *   or, in slots (format 15: items whose coded sizes are all or nearly the
 *   same, such as hex digests, whose 16 digits take 4 bits each), after the
 *   code table:
 *   [0xff] [varint stride] [varint base] [wd: u8] [empty bitmap, ceil(n/8)]
 *   [n raw lengths - base, bit-packed at wd] [n slots of stride bytes]
 *   Item i's codes fill slot i from its start, the rest of the slot zero; its
 *   raw length is base + its delta, or 0 when its empty bit is set (NULLs,
 *   empty strings and erased items; its slot and delta are then zero). The
 *   writer takes slots where they are smaller.
 *   Codes are canonical (by length, then byte value) and read least significant
 *   bit first; an item's last byte is padded with zero bits. Offsets are
 *   non-decreasing, offsets[0] = 0 as written (an erase may leave zero bytes
 *   before the first item), offsets[n] = coded bytes; wo and wr are the bit
 *   widths of the largest offset and raw length. k = 0 (no code) when every
 *   item is empty.
 *
 * Erase: in slots, the item's empty bit is set and its slot and delta are
 *   zeroed, in place. Otherwise the item is removed (raw length 0, its coded
 *   bytes gone, widths recomputed); the live items on the shorter side of it shift over the gap
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
#include "huff_int.h"
#include "util/cpu.h"

/* ---- slots: items of (nearly) one coded size ------------------------------
 * An index of offsets costs ~log2(block bytes) bits an item, which for short
 * items at their entropy (hex digests: 16 coded bytes for 32 digits) is a
 * tenth of the item; when every item's codes fit one stride with less waste
 * than that, item i simply starts at i * stride. */
#define HUFF_SLOTS 0xffu

/* The sizes of both forms after the code table, from the items' coded sizes
 * (co: n + 1 running offsets) and raw lengths. */
static void form_sizes(const uint64_t *co, const uint64_t *rl, size_t n, size_t *indexed, size_t *slots,
                       uint64_t *stride_out, uint64_t *base_out, unsigned *wd_out)
{
    uint64_t stride = 0, maxr = 0, base = UINT64_MAX;
    for (size_t i = 0; i < n; i++) {
        uint64_t c = co[i + 1] - co[i];
        if (c > stride) stride = c;
        if (rl[i] > maxr) maxr = rl[i];
        if (rl[i] && rl[i] < base) base = rl[i]; /* empty items: their bit */
    }
    if (base == UINT64_MAX) base = maxr = 0;
    unsigned wd = ig_bit_width(maxr - base);
    *indexed = 2 + ig_bitpack_size(n + 1, ig_bit_width(co[n])) + ig_bitpack_size(n, ig_bit_width(maxr)) +
               (size_t)co[n];
    *slots = 1 + ig_varint_size(stride) + ig_varint_size(base) + 1 + bm_bytes(n) + ig_bitpack_size(n, wd) +
             (size_t)(n * stride);
    if (stride_out) *stride_out = stride, *base_out = base, *wd_out = wd;
}

static bool slots_smaller(const uint64_t *co, const uint64_t *rl, size_t n)
{
    if (!n) return false;
    size_t indexed, slots;
    form_sizes(co, rl, n, &indexed, &slots, NULL, NULL, NULL);
    return slots < indexed;
}

static int put_slots(const struct huff_code *c, const uint64_t *co, const uint64_t *rl,
                     const uint64_t *offs, const uint8_t *data, size_t n, struct ig_buf *out)
{
    size_t indexed, slots;
    uint64_t stride, base;
    unsigned wd;
    form_sizes(co, rl, n, &indexed, &slots, &stride, &base, &wd);
    size_t head = 1 + huff_code_table_size(c->k);
    uint64_t *delta = malloc((n ? n : 1) * sizeof *delta);
    uint8_t *h = delta ? ig_buf_extend(out, head + slots) : NULL;
    if (!h) {
        free(delta);
        return -ENOMEM;
    }
    memset(h, 0, head + slots);
    size_t at = huff_put_code_table(c, h);
    h[at++] = HUFF_SLOTS;
    at += ig_varint_put(h + at, stride);
    at += ig_varint_put(h + at, base);
    h[at++] = (uint8_t)wd;
    for (size_t i = 0; i < n; i++) {
        if (!rl[i]) bm_set(h + at, i); /* empty (NULL, "", erased): no raw length */
        delta[i] = rl[i] ? rl[i] - base : 0;
    }
    at += bm_bytes(n);
    ig_bitpack_pack(h + at, delta, n, wd);
    at += ig_bitpack_size(n, wd);
    free(delta);
    /* each item coded into its slot: huff_put_item appends, so code into out's
     * tail and move it back over the slot */
    size_t slots_at = (size_t)(h - out->data) + at;
    int rc = 0;
    for (size_t i = 0; !rc && i < n; i++) {
        size_t need = (size_t)(co[i + 1] - co[i]), end = out->len;
        rc = huff_put_item(c, data + offs[i], (size_t)rl[i], need, out);
        if (rc) break;
        memcpy(out->data + slots_at + i * stride, out->data + end, need);
        out->len = end;
    }
    return rc;
}

/* The whole stream for items (offs, data) under c: offsets index and lengths. */
static int put_stream(const struct huff_code *c, const uint64_t *offs, const uint8_t *data,
                      size_t n, bool allow_slots, struct ig_buf *out)
{
    uint64_t *co = malloc((n + 1) * sizeof *co);
    uint64_t *rl = calloc(n ? n : 1, sizeof *rl);
    if (!co || !rl) {
        free(co);
        free(rl);
        return -ENOMEM;
    }
    uint64_t maxr = 0;
    co[0] = 0;
    for (size_t i = 0; i < n; i++) {
        rl[i] = offs[i + 1] - offs[i];
        if (rl[i] > maxr) maxr = rl[i];
        co[i + 1] = co[i] + huff_item_coded_size(c, data + offs[i], (size_t)rl[i]);
    }
    if (allow_slots && slots_smaller(co, rl, n)) {
        int rc = put_slots(c, co, rl, offs, data, n, out);
        free(co);
        free(rl);
        return rc;
    }
    unsigned wo = ig_bit_width(co[n]), wr = ig_bit_width(maxr);
    size_t head = 1 + huff_code_table_size(c->k) + 2;
    uint8_t *h = ig_buf_extend(out, head);
    int rc = h ? 0 : -ENOMEM;
    if (!rc) {
        size_t at = huff_put_code_table(c, h);
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
        rc = huff_put_item(c, data + offs[i], (size_t)rl[i], (size_t)(co[i + 1] - co[i]), out);
    free(co);
    free(rl);
    return rc;
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
    huff_code_from_items(&code, o, d, n, NULL);
    int rc = put_stream(&code, o, d, n, c->huff_slots_ok, out);
    free(o);
    return rc ? enc_nomem(c->err) : 0;
}

/* ---- reading ------------------------------------------------------------- */

struct huff_hdr {
    struct huff_code code;
    const uint8_t *syms;     /* the code's k symbols, ascending (in the stream) */
    unsigned maxlen, wo, wr; /* slots: wr is the deltas' width */
    size_t index_at, lens_at, data_at, data_avail;
    bool slots;              /* slots: no index; empty bitmap at bm_at, raw = base + delta */
    bool complete;           /* every bit pattern begins a code (Kraft's sum is 1) */
    uint64_t stride, base;
    size_t bm_at;
};

static int slots_header(const uint8_t *p, size_t len, size_t n, size_t pos, struct huff_hdr *h,
                        struct ig_error *err);

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
    h->complete = kraft == (1u << HUFF_MAX_LEN);
    if (k && ((size_t)k + 1) % 2 == 0 && (p[pos + k + k / 2] >> 4))
        return ig_err(err, -EIO, "huffman stream: stray bits in the code table");
    huff_canonical_of(&h->code, p + pos, (unsigned)k);
    h->syms = p + pos;
    pos += tb;
    h->slots = p[pos] == HUFF_SLOTS;
    if (h->slots) return slots_header(p, len, n, pos + 1, h, err);
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

/* The slots form's fields after its marker at pos: every slot inside the
 * stream, every raw length within what its slot's bits can code. */
static int slots_header(const uint8_t *p, size_t len, size_t n, size_t pos, struct huff_hdr *h,
                        struct ig_error *err)
{
    if (enc_field(p, len, &pos, &h->stride, "huffman", "slot size", err) ||
        enc_field(p, len, &pos, &h->base, "huffman", "raw length base", err))
        return -EIO;
    if (pos >= len) return ig_err(err, -EIO, "huffman stream: slots header past the end");
    h->wo = 0;
    h->wr = p[pos++];
    if (h->wr > 40) return ig_err(err, -EIO, "huffman stream: delta width %u", h->wr);
    size_t bb = bm_bytes(n), db = ig_bitpack_size(n, h->wr);
    if (bb > len - pos || db > len - pos - bb)
        return ig_err(err, -EIO, "huffman stream: slots index past the end");
    if (n % 8 && (p[pos + n / 8] >> (n % 8)))
        return ig_err(err, -EIO, "huffman stream: empty bits past the last item");
    h->bm_at = h->index_at = pos;
    h->lens_at = pos + bb;
    h->data_at = pos + bb + db;
    h->data_avail = len - h->data_at;
    if (n && (h->stride > h->data_avail / n || h->stride > ENC_MAX_DECODED))
        return ig_err(err, -EIO, "huffman stream: %zu slots of %llu bytes, only %zu present", n,
                      (unsigned long long)h->stride, h->data_avail);
    return 0;
}

/* Item i of a slots stream: its raw length (0 when empty), validated. */
static int slot_raw(const uint8_t *p, const struct huff_hdr *h, size_t i, uint64_t *raw, struct ig_error *err)
{
    uint64_t d = ig_bitpack_get(p + h->lens_at, h->data_at - h->lens_at, i, h->wr);
    bool empty = bm_get(p + h->bm_at, i);
    *raw = empty ? 0 : h->base + d;
    if ((empty && d) || *raw > 8 * h->stride || h->base > ENC_MAX_DECODED || (*raw && !h->code.k))
        return ig_err(err, -EIO, "huffman stream: item %zu: %llu bytes in a slot of %llu", i,
                      (unsigned long long)*raw, (unsigned long long)h->stride);
    return 0;
}

/* A decode table entry: the byte value << 8 | the code's length (1..12); 0
 * where no code begins. The length sits in the low bits so that a shift by
 * the entry itself (x86 takes a shift count's low six bits) drops the code,
 * one step less on the chain of lookups. */
#define HUFF_LEN(e) ((unsigned)(e) & 15u)

/* Byte s's code into a table of `size` entries (indexed by the next bits,
 * least significant first): every entry whose low bits are its code. */
static inline void table_put(uint16_t *t, size_t size, const struct huff_hdr *h, uint8_t s)
{
    unsigned l = h->code.len[s];
    for (size_t x = h->code.rev[s]; x < size; x += (size_t)1 << l)
        t[x] = (uint16_t)((unsigned)s << 8 | l);
}

/* Decode table: 2^maxlen entries, 0 = no code. */
static void huff_table(const struct huff_hdr *h, uint16_t *t)
{
    size_t size = (size_t)1 << h->maxlen;
    memset(t, 0, size * sizeof *t);
    for (unsigned j = 0; j < h->code.k; j++) table_put(t, size, h, h->syms[j]);
}

/* One item being decoded: `raw` bytes from coded bytes src[0..clen) into
 * dst. Bits come in eight bytes at a time while src has them (enough for
 * four codes); past that they read as zeros. A code that spends bits past
 * the item's end is an error whatever they are (checked once, after the
 * item: cursor_check): which code the item's own bits begin decides only
 * whether it ends inside. (A block's items go by runs, below; this is an
 * item alone, and the items a block's runs leave.) */
struct huff_cursor {
    const uint8_t *src;
    uint8_t *dst;
    size_t clen, in, raw, i;
    uint64_t acc, spent;
    unsigned have;
    bool bad;
};

static inline void cursor_start(struct huff_cursor *c, const uint8_t *src, size_t clen, size_t raw,
                                uint8_t *dst)
{
    *c = (struct huff_cursor){.src = src, .dst = dst, .clen = clen, .raw = raw};
}

/* Can four codes be taken with one refill of eight whole bytes? */
static inline bool cursor_fast(const struct huff_cursor *c)
{
    return c->raw - c->i >= 4 && c->in + 8 <= c->clen;
}

/* Four codes: a refill leaves at least 56 bits, four codes spend at most 48. */
static inline void cursor_four(struct huff_cursor *c, const uint16_t *t, uint64_t mask)
{
    uint64_t acc = c->acc | ig_ld64(c->src + c->in) << c->have;
    c->in += (63 - c->have) / 8;
    unsigned have = c->have | 56;
    for (int k = 0; k < 4; k++) {
        uint16_t e = t[acc & mask];
        unsigned l = HUFF_LEN(e);
        c->bad |= l == 0;
        c->spent += l;
        c->dst[c->i++] = (uint8_t)(e >> 8);
        acc >>= l;
        have -= l;
    }
    c->acc = acc;
    c->have = have;
}

/* Bits for the next code (at least HUFF_MAX_LEN where the item has them):
 * eight bytes at once while src has them, else byte by byte up to the
 * item's end, zeros after it. */
static inline void cursor_refill(struct huff_cursor *c, uint64_t *acc, unsigned *have)
{
    if (*have >= HUFF_MAX_LEN) return;
    if (c->in + 8 <= c->clen) {
        *acc |= ig_ld64(c->src + c->in) << *have;
        c->in += (63 - *have) / 8;
        *have |= 56;
        return;
    }
    while (*have <= 56 && c->in < c->clen) {
        *acc |= (uint64_t)c->src[c->in++] << *have;
        *have += 8;
    }
}

/* The rest of the item: four codes a refill while that lasts, then one by one. */
static inline void cursor_finish(struct huff_cursor *c, const struct huff_hdr *h, const uint16_t *t)
{
    const uint64_t mask = ((uint64_t)1 << h->maxlen) - 1;
    while (cursor_fast(c)) cursor_four(c, t, mask);
    uint64_t acc = c->acc;
    unsigned have = c->have;
    for (; c->i < c->raw; c->i++) {
        cursor_refill(c, &acc, &have);
        uint16_t e = t[acc & mask];
        unsigned l = HUFF_LEN(e);
        c->bad |= l == 0;
        c->spent += l;
        c->dst[c->i] = (uint8_t)(e >> 8);
        acc >>= l;
        have = have >= l ? have - l : 0;
    }
    c->acc = acc;
    c->have = have;
}

/* An item decodes within its bytes; in the indexed form its codes also fill
 * them exactly, the bits after the last code zero, as every writer leaves
 * them: an erase moves a live item's bytes as they are, so stray bits read
 * past here would pass into a stream that says it holds nothing else. */
/* 0 if an item of coded bytes src[0..clen) whose codes spent `spent` bits
 * ends inside them (else 1) and, in the indexed form, fills them exactly with
 * zero bits after its last code (else 2). */
static inline int item_spent(const struct huff_hdr *h, const uint8_t *src, uint64_t clen, uint64_t spent)
{
    if (spent > clen * 8) return 1;
    if (!h->slots && ((spent + 7) / 8 != clen || (spent % 8 && src[spent / 8] >> (spent % 8)))) return 2;
    return 0;
}

static int cursor_check(const struct huff_hdr *h, const struct huff_cursor *c, size_t item,
                        struct ig_error *err)
{
    int bad = c->bad ? 1 : item_spent(h, c->src, c->clen, c->spent);
    if (bad == 1) return ig_err(err, -EIO, "huffman stream: item %zu does not decode", item);
    if (bad == 2) return ig_err(err, -EIO, "huffman stream: item %zu holds more than its codes", item);
    return 0;
}

/* Decode one item (a row read, an erase's check). */
static int decode_item(const struct huff_hdr *h, const uint16_t *t, const uint8_t *src, size_t clen,
                       size_t raw, uint8_t *dst, size_t item, struct ig_error *err)
{
    struct huff_cursor c;
    cursor_start(&c, src, clen, raw, dst);
    cursor_finish(&c, h, t);
    return cursor_check(h, &c, item, err);
}

/* A block's items are decoded as runs of bits: a lane reads its items' codes
 * from one bit position that walks through the block's coded bytes, four
 * codes a load of eight bytes (a code has at most HUFF_MAX_LEN = 12 bits:
 * 48 of the 57 a load always gives), an item's last codes one a load; at
 * the end of an item the position jumps to the next item's first byte (past
 * the item's padding bits). No per-item refill state: a lane is a position,
 * a count and an output pointer, so that four lanes at once stay in
 * registers. Loads are clamped to the stream's last eight bytes, so a hostile
 * item that spends more bits than it has reads garbage inside the stream,
 * never past it, and is caught by its check; the items whose last byte lies
 * in the stream's last seven (a load there would be clamped) go through
 * decode_item, which reads byte by byte at the end. */
struct run_lane {
    size_t i, end;      /* the item being decoded; the lane's end */
    uint64_t bp;        /* bit position in the coded bytes */
    size_t r;           /* codes of item i still to decode */
    uint8_t *o;         /* where its next byte goes */
};

/* At least 57 bits from bit bp on (bytes from min(bp / 8, lim)). */
static inline uint64_t run_bits(const uint8_t *data, uint64_t bp, size_t lim)
{
    size_t at = (size_t)(bp >> 3);
    return ig_ld64(data + (at < lim ? at : lim)) >> (bp & 7);
}

static inline void run_start(struct run_lane *l, const uint64_t *co, const uint64_t *rl,
                             const uint64_t *offs, uint8_t *dst)
{
    if (l->i >= l->end) return;
    l->bp = co[l->i] * 8;
    l->r = (size_t)rl[l->i];
    l->o = dst + offs[l->i];
}

/* Four codes of lane l, each byte stored as it comes. The code is complete
 * (decode_runs): every entry is one. */
static inline void run_four(struct run_lane *l, const uint8_t *data, size_t lim, const uint16_t *t,
                            uint64_t mask)
{
    uint64_t v = run_bits(data, l->bp, lim);
    for (int k = 0; k < 4; k++) {
        unsigned e = t[v & mask];
        v >>= e & 63; /* the length: the bits above it are not in a shift count's six */
        l->o[k] = (uint8_t)(e >> 8);
        l->bp += HUFF_LEN(e);
    }
    l->o += 4;
    l->r -= 4;
}

/* Item i's last codes (fewer than four), its check (item_spent, as
 * cursor_check's), and the lane's next item started. */
static inline void run_finish(struct run_lane *l, const struct huff_hdr *h, const uint8_t *data,
                              size_t lim, const uint16_t *t, uint64_t mask, const uint64_t *co,
                              const uint64_t *rl, const uint64_t *offs, uint8_t *dst, bool *bad)
{
    for (; l->r; l->r--) {
        unsigned e = t[run_bits(data, l->bp, lim) & mask];
        *l->o++ = (uint8_t)(e >> 8);
        l->bp += HUFF_LEN(e);
    }
    *bad |= item_spent(h, data + co[l->i], co[l->i + 1] - co[l->i], l->bp - co[l->i] * 8) != 0;
    l->i++;
    run_start(l, co, rl, offs, dst);
}

/* Lane l's items to its end. */
static inline __attribute__((always_inline)) void
run_rest(struct run_lane *l, const struct huff_hdr *h, const uint8_t *data, size_t lim,
         const uint16_t *t, uint64_t mask, const uint64_t *co, const uint64_t *rl, const uint64_t *offs,
         uint8_t *dst, bool *bad)
{
    while (l->i < l->end) {
        while (l->r >= 4) run_four(l, data, lim, t, mask);
        run_finish(l, h, data, lim, t, mask, co, rl, offs, dst, bad);
    }
}

/* Item c on from which lane q of k begins: where q k-ths of items [0,
 * end)'s bytes lie. */
static inline size_t run_cut(const uint64_t *offs, size_t c, size_t end, unsigned q, unsigned k)
{
    while (c < end && offs[c] < offs[end] / k * q) c++;
    return c;
}

/* Items [0, end) in four lanes, four codes of each in turn while every lane
 * has that many left in its item; each lane's rest alone after. (Lanes are
 * named, not an array: so they stay in registers.) */
static inline __attribute__((always_inline)) void
runs_four_lanes(const struct huff_hdr *h, const uint16_t *t, const uint8_t *data, size_t lim,
                uint64_t mask, const uint64_t *co, const uint64_t *rl, const uint64_t *offs, size_t end,
                uint8_t *dst, bool *bad)
{
    size_t c1 = run_cut(offs, 0, end, 1, 4), c2 = run_cut(offs, c1, end, 2, 4), c3 = run_cut(offs, c2, end, 3, 4);
    struct run_lane a = {.i = 0, .end = c1}, b = {.i = c1, .end = c2}, c = {.i = c2, .end = c3},
                    d = {.i = c3, .end = end};
    run_start(&a, co, rl, offs, dst);
    run_start(&b, co, rl, offs, dst);
    run_start(&c, co, rl, offs, dst);
    run_start(&d, co, rl, offs, dst);
    while (a.i < a.end && b.i < b.end && c.i < c.end && d.i < d.end) {
        if (a.r >= 4 && b.r >= 4 && c.r >= 4 && d.r >= 4) {
            run_four(&a, data, lim, t, mask);
            run_four(&b, data, lim, t, mask);
            run_four(&c, data, lim, t, mask);
            run_four(&d, data, lim, t, mask);
            continue;
        }
        if (a.r < 4) run_finish(&a, h, data, lim, t, mask, co, rl, offs, dst, bad);
        if (b.r < 4) run_finish(&b, h, data, lim, t, mask, co, rl, offs, dst, bad);
        if (c.r < 4) run_finish(&c, h, data, lim, t, mask, co, rl, offs, dst, bad);
        if (d.r < 4) run_finish(&d, h, data, lim, t, mask, co, rl, offs, dst, bad);
    }
    run_rest(&a, h, data, lim, t, mask, co, rl, offs, dst, bad);
    run_rest(&b, h, data, lim, t, mask, co, rl, offs, dst, bad);
    run_rest(&c, h, data, lim, t, mask, co, rl, offs, dst, bad);
    run_rest(&d, h, data, lim, t, mask, co, rl, offs, dst, bad);
}

/* The same in two lanes: short items (a word list's) end too often for four. */
static inline __attribute__((always_inline)) void
runs_two_lanes(const struct huff_hdr *h, const uint16_t *t, const uint8_t *data, size_t lim,
               uint64_t mask, const uint64_t *co, const uint64_t *rl, const uint64_t *offs, size_t end,
               uint8_t *dst, bool *bad)
{
    size_t c1 = run_cut(offs, 0, end, 1, 2);
    struct run_lane a = {.i = 0, .end = c1}, b = {.i = c1, .end = end};
    run_start(&a, co, rl, offs, dst);
    run_start(&b, co, rl, offs, dst);
    while (a.i < a.end && b.i < b.end) {
        if (a.r >= 4 && b.r >= 4) {
            run_four(&a, data, lim, t, mask);
            run_four(&b, data, lim, t, mask);
            continue;
        }
        if (a.r < 4) run_finish(&a, h, data, lim, t, mask, co, rl, offs, dst, bad);
        if (b.r < 4) run_finish(&b, h, data, lim, t, mask, co, rl, offs, dst, bad);
    }
    run_rest(&a, h, data, lim, t, mask, co, rl, offs, dst, bad);
    run_rest(&b, h, data, lim, t, mask, co, rl, offs, dst, bad);
}

/* Four lanes where a block's items average at least this many bytes. */
#define RUN_FOUR_LANES_ITEM 16

/* Every item of a block: each code's lookup waits on the shift of the one
 * before it, so one item at a time leaves the core idle between them; lanes
 * of items (the block cut where quarters, or halves, of its bytes lie)
 * interleave independent chains, as zstd's Huffman decodes four streams. Items [0, n)
 * into dst at offs[i]; an item that does not decode is then named as
 * decode_item one by one names it. The runs take only a complete code (every
 * writer's, a Huffman tree's, but for a one-symbol code): with holes in the
 * table each code would need a check; such a stream is decoded item by item. */
static inline __attribute__((always_inline)) int
decode_runs_in(const struct huff_hdr *h, const uint16_t *t, const uint8_t *data, const uint64_t *co,
               const uint64_t *rl, const uint64_t *offs, size_t n, uint8_t *dst, struct ig_error *err)
{
    const uint64_t mask = ((uint64_t)1 << h->maxlen) - 1;
    const size_t avail = h->data_avail, lim = avail >= 8 ? avail - 8 : 0;
    size_t tail = n; /* items [tail, n) end in the last seven bytes */
    while (tail > 0 && (!h->complete || avail < 8 || co[tail] + 7 > avail)) tail--;
    bool bad = false;
    if (tail && offs[tail] / tail >= RUN_FOUR_LANES_ITEM)
        runs_four_lanes(h, t, data, lim, mask, co, rl, offs, tail, dst, &bad);
    else
        runs_two_lanes(h, t, data, lim, mask, co, rl, offs, tail, dst, &bad);
    for (size_t i = bad ? 0 : tail; i < n; i++) {
        int rc = decode_item(h, t, data + co[i], (size_t)(co[i + 1] - co[i]), (size_t)rl[i], dst + offs[i], i, err);
        if (rc) return rc;
    }
    return bad ? ig_err(err, -EIO, "huffman stream: an item does not decode") : 0;
}

static int decode_runs_plain(const struct huff_hdr *h, const uint16_t *t, const uint8_t *data,
                             const uint64_t *co, const uint64_t *rl, const uint64_t *offs, size_t n,
                             uint8_t *dst, struct ig_error *err)
{
    return decode_runs_in(h, t, data, co, rl, offs, n, dst, err);
}

/* The same, built for BMI2's shifts (util/cpu.h): 1.1-1.7x the speed. */
IG_BMI2 static int decode_runs_bmi2(const struct huff_hdr *h, const uint16_t *t, const uint8_t *data,
                                    const uint64_t *co, const uint64_t *rl, const uint64_t *offs,
                                    size_t n, uint8_t *dst, struct ig_error *err)
{
    return decode_runs_in(h, t, data, co, rl, offs, n, dst, err);
}

static int decode_runs(const struct huff_hdr *h, const uint16_t *t, const uint8_t *data,
                       const uint64_t *co, const uint64_t *rl, const uint64_t *offs, size_t n,
                       uint8_t *dst, struct ig_error *err)
{
    return (ig_cpu_bmi2() ? decode_runs_bmi2 : decode_runs_plain)(h, t, data, co, rl, offs, n, dst, err);
}

/* The widest code a row read looks up in a table: building the whole one
 * (2^maxlen entries, up to 4,096) cost more than decoding the item (a
 * caption: 3 us against 0.3); longer codes, a text's rare bytes, are found
 * among the few symbols that have them. */
#define HUFF_SHORT_LEN 8

/* Decode one item (a row read) with a table of codes up to HUFF_SHORT_LEN
 * bits: what decode_item does, for one item instead of a block's. `avail`:
 * the stream's bytes from the item's first on. Where that table holds the
 * whole code (a complete one: every writer's) and the item ends before the
 * stream's last seven bytes, it is read as a block's lane reads it, four
 * codes a load; a failure there is named by the way below. */
static int decode_one(const struct huff_hdr *h, const uint8_t *src, size_t clen, size_t avail,
                      size_t raw, uint8_t *dst, size_t item, struct ig_error *err)
{
    unsigned bits = h->maxlen < HUFF_SHORT_LEN ? h->maxlen : HUFF_SHORT_LEN;
    size_t size = (size_t)1 << bits;
    uint16_t t[1 << HUFF_SHORT_LEN];
    uint8_t longer[256];
    unsigned nlonger = 0;
    memset(t, 0, size * sizeof *t);
    for (unsigned j = 0; j < h->code.k; j++) {
        uint8_t s = h->syms[j];
        if (h->code.len[s] > bits)
            longer[nlonger++] = s;
        else
            table_put(t, size, h, s);
    }
    if (!nlonger && h->complete && avail >= 8 && clen + 7 <= avail) {
        const uint64_t co[2] = {0, clen}, rl[1] = {raw}, offs[1] = {0};
        struct run_lane l = {.i = 0, .end = 1};
        bool bad = false;
        run_start(&l, co, rl, offs, dst);
        run_rest(&l, h, src, avail - 8, t, size - 1, co, rl, offs, dst, &bad);
        if (!bad) return 0;
    }
    /* a longer code's first bits hit no entry: no code is a prefix of another */
    struct huff_cursor c;
    cursor_start(&c, src, clen, raw, dst);
    const uint64_t mask = size - 1;
    uint64_t acc = 0;
    unsigned have = 0;
    for (; c.i < raw; c.i++) {
        cursor_refill(&c, &acc, &have);
        uint16_t e = t[acc & mask];
        unsigned l = HUFF_LEN(e);
        uint8_t byte = (uint8_t)(e >> 8);
        for (unsigned j = 0; !l && j < nlonger; j++) {
            unsigned lj = h->code.len[longer[j]];
            if ((acc & (((uint64_t)1 << lj) - 1)) == h->code.rev[longer[j]]) {
                l = lj;
                byte = longer[j];
            }
        }
        c.bad |= l == 0;
        c.spent += l;
        dst[c.i] = byte;
        acc >>= l;
        have = have >= l ? have - l : 0;
    }
    return cursor_check(h, &c, item, err);
}

/* Offsets and raw lengths, validated: coded ranges inside the data, raw sizes
 * bounded by what their codes can hold (1 bit per byte at least). */
static int huff_index(const uint8_t *p, size_t n, const struct huff_hdr *h, uint64_t *co,
                      uint64_t *rl, uint64_t *raw_total, struct ig_error *err)
{
    if (h->slots) { /* item i's codes: slot i (co[i + 1] - co[i] = stride) */
        uint64_t total = 0;
        for (size_t i = 0; i <= n; i++)
            co[i] = i * h->stride;
        for (size_t i = 0; i < n; i++) {
            if (slot_raw(p, h, i, &rl[i], err)) return -EIO;
            total += rl[i];
        }
        if (total > ENC_MAX_DECODED) return ig_err(err, -EIO, "huffman stream: too large decoded");
        *raw_total = total;
        return 0;
    }
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
        at += rl[i];
        offs_out[i + 1] = at;
    }
    if (!rc) rc = decode_runs(&h, t, p + h.data_at, co, rl, offs_out, n, dst, err);
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
    uint64_t a, b, raw;
    if (h.slots) {
        if (slot_raw(p, &h, i, &raw, c->err)) return -EIO;
        a = i * h.stride;
        b = a + h.stride;
    } else {
        size_t ib = h.lens_at - h.index_at;
        a = ig_bitpack_get(p + h.index_at, ib, i, h.wo);
        b = ig_bitpack_get(p + h.index_at, ib, i + 1, h.wo);
        raw = ig_bitpack_get(p + h.lens_at, h.data_at - h.lens_at, i, h.wr);
        if (a > b || b > h.data_avail || raw > 8 * (b - a) || (raw && !h.code.k))
            return ig_err(c->err, -EIO, "huffman stream: item %zu has invalid offsets", i);
    }
    uint8_t *dst = item;
    if (raw > sizeof item) {
        ig_buf_reset(&big);
        if (!(dst = ig_buf_extend(&big, (size_t)raw))) return enc_nomem(c->err);
    }
    rc = decode_one(&h, p + h.data_at + a, (size_t)(b - a), h.data_avail - (size_t)a, (size_t)raw, dst, i,
                    c->err);
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

/* Slot i holds the codes of its raw bytes (decoded) and zeros after them. */
static int slot_holds_only_codes(const struct huff_hdr *h, const uint8_t *slot, const uint8_t *raw, size_t rawlen,
                                 size_t i, struct ig_error *err)
{
    uint64_t bits = 0;
    for (size_t j = 0; j < rawlen; j++)
        bits += h->code.len[raw[j]];
    size_t full = (size_t)(bits / 8);
    bool stray = bits % 8 && (slot[full] >> (bits % 8));
    for (size_t j = full + (bits % 8 != 0); !stray && j < h->stride; j++)
        stray = slot[j] != 0;
    return stray ? ig_err(err, -EIO, "huffman stream: item %zu holds more than its codes", i) : 0;
}

/* Erase in slots: the same bytes, the killed items' empty bits set and
 * their slots and deltas zeroed; nothing else moves. */
static int erase_slots(const uint8_t *p, size_t len, size_t n, const struct huff_hdr *h,
                       const uint8_t *kill, struct ig_buf *out)
{
    size_t used = h->data_at + (size_t)(n * h->stride);
    uint8_t *d = ig_buf_extend(out, used);
    if (!d) return -ENOMEM;
    (void)len;
    memcpy(d, p, used);
    uint64_t *delta = malloc((n ? n : 1) * sizeof *delta);
    if (!delta) return -ENOMEM;
    ig_bitpack_unpack(delta, p + h->lens_at, n, h->wr);
    for (size_t i = 0; i < n; i++) {
        if (!bm_get(kill, i)) continue;
        bm_set(d + h->bm_at, i);
        delta[i] = 0;
        memset(d + h->data_at + i * h->stride, 0, (size_t)h->stride);
    }
    memset(d + h->lens_at, 0, h->data_at - h->lens_at);
    ig_bitpack_pack(d + h->lens_at, delta, n, h->wr);
    free(delta);
    return 0;
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
    /* In slots every live item is decoded: the erase keeps their slots as
     * they are, so a slot holding more than its codes (damage) must fail
     * here, not pass into a stream that says it holds no data (a block's
     * worth of huffman decodes in a few microseconds). */
    for (size_t i = 0; i < n && !rc && (nwanted || h.slots); i++) {
        if (bm_get(kill, i)) continue;
        if (!rl[i]) { /* an empty slot: zeros */
            if (h.slots) rc = slot_holds_only_codes(&h, p + h.data_at + co[i], NULL, 0, i, c->err);
            continue;
        }
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
        if (!rc && h.slots) rc = slot_holds_only_codes(&h, p + h.data_at + co[i], dst, (size_t)rl[i], i, c->err);
    }
    if (rc) goto done;
    if (!nwanted) { /* the code stays: move coded bytes (or clear slots), no decoding */
        rc = h.slots ? erase_slots(p, len, n, &h, kill, out) : erase_coded(p, n, &h, co, rl, kill, out);
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
    huff_code_from_items(&fresh, offs, bytes, n, NULL);
    rc = put_stream(&fresh, offs, bytes, n, h.slots, out); /* an erase keeps the form's kind */
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

/* A slots stream holds nothing but codes: each slot is its item's codes then
 * zeros (an empty item's slot all zeros; the header refuses empty bits past n); the
 * deltas' width what the largest needs when written (an erase only zeroes
 * deltas, so it may then be wider than needed: not checked). */
static int check_slots(const uint8_t *p, size_t n, const struct huff_hdr *h, const uint64_t *offs,
                       const uint8_t *data, struct ig_error *err)
{
    for (size_t i = 0; i < n; i++)
        if (slot_holds_only_codes(h, p + h->data_at + i * h->stride, data + offs[i],
                                  (size_t)(offs[i + 1] - offs[i]), i, err))
            return -EIO;
    return 0;
}

/* An indexed stream holds nothing but codes: exact sizes, zero padding
 * bits, zeros where erased items were before the first coded item, and
 * minimal index widths. */
static int check_indexed(const uint8_t *p, size_t n, const struct huff_hdr *h, const uint64_t *offs,
                         const uint8_t *data, uint64_t maxr, struct ig_error *err)
{
    size_t ib = h->lens_at - h->index_at;
    uint64_t head = ig_bitpack_get(p + h->index_at, ib, 0, h->wo);
    for (uint64_t j = 0; j < head; j++)
        if (p[h->data_at + j])
            return ig_err(err, -EIO, "huffman stream: byte %llu before the first item is not zero",
                          (unsigned long long)j);
    for (size_t i = 0; i < n; i++) {
        uint64_t a = ig_bitpack_get(p + h->index_at, ib, i, h->wo);
        uint64_t b = ig_bitpack_get(p + h->index_at, ib, i + 1, h->wo);
        uint64_t bits = 0;
        for (uint64_t j = offs[i]; j < offs[i + 1]; j++)
            bits += h->code.len[data[j]];
        if (b - a != (bits + 7) / 8 || (bits % 8 && (p[h->data_at + b - 1] >> (bits % 8))))
            return ig_err(err, -EIO, "huffman stream: item %zu holds more than its codes", i);
    }
    uint64_t coded = ig_bitpack_get(p + h->index_at, ib, n, h->wo);
    if (h->wo != ig_bit_width(coded) || h->wr != ig_bit_width(maxr))
        return ig_err(err, -EIO, "huffman stream: index widths %u/%u are not minimal", h->wo, h->wr);
    return 0;
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
    if (!rc && h.slots)
        rc = check_slots(p, n, &h, offs, data.data, c->err);
    else if (!rc)
        rc = check_indexed(p, n, &h, offs, data.data, maxr, c->err);
    for (int s = 0; !rc && s < 256; s++)
        if (h.code.len[s] && !seen[s])
            rc = ig_err(c->err, -EIO, "huffman stream: the code holds byte %d, which no item has", s);
    free(offs);
    ig_buf_free(&data);
    return rc;
}

size_t enc_huff_bytes_size(const uint64_t *offs, const uint8_t *data, size_t n, bool slots)
{
    size_t slots_size;
    struct huff_code code;
    huff_code_from_items(&code, offs, data, n, NULL);
    uint64_t *co = malloc((n + 1) * sizeof *co), *rl = calloc(n ? n : 1, sizeof *rl);
    if (!co || !rl) {
        free(co);
        free(rl);
        return SIZE_MAX;
    }
    co[0] = 0;
    for (size_t i = 0; i < n; i++) {
        rl[i] = offs[i + 1] - offs[i];
        co[i + 1] = co[i] + huff_item_coded_size(&code, data + offs[i], (size_t)rl[i]);
    }
    bool allow = slots;
    size_t indexed;
    form_sizes(co, rl, n, &indexed, &slots_size, NULL, NULL, NULL);
    free(co);
    free(rl);
    return 1 + huff_code_table_size(code.k) + (allow && n && slots_size < indexed ? slots_size : indexed);
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
