/* expo.c - float32 lanes as their exponents under one Huffman code, their
 * sign and mantissa as they are (format version 20).
 *
 * Layout: [15] [k: varint <= 256] [k symbols: exponent values, ascending]
 *         [ceil(k/2) bytes: each symbol's code length 1..8, 4 bits, low nibble first]
 *         [2x + f: varint, x <= n] [f = 0: x positions, ascending, pb bytes
 *          each; f = 1: a bitmap of n bits, bit i set where lane i is listed]
 *         [(n - x) x 3 bytes: sign << 23 | mantissa, little-endian]
 *         [b0, b1, b2: varints] [four code streams of b0, b1, b2 bytes and the
 *          rest: stream q holds, least significant bit first, the exponents'
 *          codes of the lanes i = q (mod 4) that are not listed, zero-padded
 *          to a byte]
 *   pb: the bytes of n - 1 (1 below 257 lanes, 2 below 65,537, 3, then 4).
 *   The listed lanes are those whose bits are all zero (+0.0: erased lanes
 *   among them), by position, or by bitmap where that is smaller (f = 1);
 *   the other lanes, in order, take the raw triples and codes.
 *
 * Why: the mantissa of a float that is not a decimal is noise, and its
 * exponent is not: Gaussian embeddings use a dozen of the 256 exponents, at
 * about 2.5 bits of entropy, so a float32 costs ~26.5 bits where plain stores
 * 32. A zstd frame over the block cannot get there: its one literal table
 * mixes the exponent bytes with the mantissa's, and a block of one 768-float
 * vector is too small for its tables to pay (split into planes, zstd needs
 * pages of its own; the same data stored 0.85 of plain as 1 MiB split pages,
 * and this stream takes ~0.84 in blocks of one row, each decodable alone).
 *
 * Four code streams, so that a block decodes four codes at a time: each
 * code's length comes from a table lookup the next code waits for, and one
 * stream decoded 0.4-0.7 GB/s of float32 where four decode 0.9-1.1 (plain:
 * 2.0-2.3). Codes of at most 8 bits: a table of 256 entries per block (up to
 * 12 bits, the table cost more than a 768-float block's lanes). A lane keeps
 * its stream whatever is erased (dealt by its position, not among the coded
 * lanes).
 *
 * get(i): the positions searched, then the lane's triple and its code, the
 * codes before it in its stream decoded (a block holds ~1,000 lanes).
 * Erase: the block decoded, the killed lanes set to 0 and encoded again (a
 * fresh code from the live lanes: the result depends on them alone); each
 * killed lane leaves its triple (3 bytes) and its code and adds a position
 * (at most 2 bytes up to 65,536 lanes), so the stream never grows there;
 * where the fresh code would (lengths capped at 8 bits are not always
 * optimal), the old code's lengths are kept for the symbols still used,
 * under which no stream grows.
 * Check: every erased lane is listed, no other lane is 0, every symbol is
 * some live lane's, the padding bits are zero.
 */
#include <stdlib.h>
#include <string.h>

#include "enc_internal.h"
#include "huff_int.h"

#define EXPO_NAME "expo"
#define EXPO_RAW 3     /* bytes of a lane's sign and mantissa */
#define EXPO_MAX_LEN 8 /* bits of the longest code: a 256-entry decoding table */
#define EXPO_WAYS 4    /* code streams; lane i's code is in stream i % 4 */

static inline unsigned lane_exponent(uint64_t v)
{
    return (unsigned)(v >> 23) & 0xFF;
}
static inline uint32_t lane_raw(uint64_t v)
{
    return (uint32_t)((v >> 31) & 1) << 23 | (uint32_t)(v & 0x7FFFFF);
}

/* Bytes of a position among n lanes. */
static unsigned pos_bytes(size_t n)
{
    return n <= 0x100 ? 1 : n <= 0x10000 ? 2 : n <= 0x1000000 ? 3 : 4;
}

/* How the zero lanes are given: their positions, or a bitmap of n bits where
 * that is smaller (activations, half of them 0: a bit a lane rather than two
 * bytes a zero). The zero count's field says which: 2x, or 2x + 1. */
static bool zeros_as_bitmap(size_t n, size_t zeros)
{
    return (n + 7) / 8 < zeros * pos_bytes(n);
}

static size_t zeros_bytes(size_t n, size_t zeros)
{
    return ig_varint_size(2 * (uint64_t)zeros + 1) +
           (zeros_as_bitmap(n, zeros) ? (n + 7) / 8 : zeros * pos_bytes(n));
}

/* Exponent counts of the lanes that are not 0, each stream's apart. */
struct expo_counts {
    uint64_t freq[256];
    uint32_t way[EXPO_WAYS][256];
    size_t zeros;
};

static void count_lanes(const uint64_t *v, size_t n, struct expo_counts *c)
{
    memset(c->way, 0, sizeof c->way);
    size_t z = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t x = v[i];
        c->way[i % EXPO_WAYS][lane_exponent(x)] += x != 0;
        z += x == 0;
    }
    for (int e = 0; e < 256; e++)
        c->freq[e] = (uint64_t)c->way[0][e] + c->way[1][e] + c->way[2][e] + c->way[3][e];
    c->zeros = z;
}

/* Each stream's bytes under code. */
static void way_bytes(const struct huff_code *code, const struct expo_counts *c, size_t b[EXPO_WAYS])
{
    for (int q = 0; q < EXPO_WAYS; q++) {
        uint64_t bits = 0;
        for (int e = 0; e < 256; e++)
            bits += (uint64_t)c->way[q][e] * code->len[e];
        b[q] = (size_t)((bits + 7) / 8);
    }
}

static size_t stream_size(size_t n, const struct huff_code *code, size_t zeros, const size_t b[EXPO_WAYS])
{
    return 1 + ig_varint_size(code->k) + code->k + (code->k + 1) / 2 + zeros_bytes(n, zeros) +
           (n - zeros) * EXPO_RAW + ig_varint_size(b[0]) +
           ig_varint_size(b[1]) + ig_varint_size(b[2]) + b[0] + b[1] + b[2] + b[3];
}

static bool expo_holds(const struct ig_int_desc *d)
{
    return d->width == 4 && !d->is_signed;
}

static size_t expo_estimate(const struct int_stats *st, const struct ig_int_desc *d,
                            const struct enc_ectx *c)
{
    /* weighed from the values (expo_estimate_values); a forced choice needs
     * only to know the lanes are float32 bits */
    if (!c->strict || !expo_holds(d) || !st->fits_width) return SIZE_MAX;
    return 2 + st->n * 4;
}

static size_t expo_estimate_values(const uint64_t *v, size_t n, const struct ig_int_desc *d,
                                   const struct enc_ectx *c)
{
    (void)c;
    if (!expo_holds(d)) return SIZE_MAX;
    for (size_t i = 0; i < n; i++)
        if (v[i] >> 32) return SIZE_MAX;
    struct expo_counts cnt;
    count_lanes(v, n, &cnt);
    struct huff_code code;
    huff_code_from_counts(&code, cnt.freq, EXPO_MAX_LEN);
    size_t b[EXPO_WAYS];
    way_bytes(&code, &cnt, b);
    return stream_size(n, &code, cnt.zeros, b);
}

struct bit_writer {
    uint8_t *p;
    uint64_t acc;
    unsigned have;
};

static inline void bits_put(struct bit_writer *w, unsigned code, unsigned len)
{
    w->acc |= (uint64_t)code << w->have;
    w->have += len;
    if (w->have >= 32) {
        ig_st32(w->p, (uint32_t)w->acc);
        w->p += 4;
        w->acc >>= 32;
        w->have -= 32;
    }
}

static inline void bits_flush(struct bit_writer *w)
{
    while (w->have > 0) {
        *w->p++ = (uint8_t)w->acc;
        w->acc >>= 8;
        w->have = w->have > 8 ? w->have - 8 : 0;
    }
}

/* The stream of v under `code` (every exponent of a lane that is not 0 has a
 * length in it), its code streams of b[] bytes, appended to out. */
static int put_stream(const uint64_t *v, size_t n, const struct huff_code *code, size_t zeros,
                      const size_t b[EXPO_WAYS], struct ig_buf *out)
{
    size_t size = stream_size(n, code, zeros, b);
    uint8_t *o = ig_buf_extend(out, size);
    if (!o) return -ENOMEM;
    size_t at = huff_put_code_table(code, o);
    o[0] = IG_ENC_EXPO;
    bool bitmap = zeros_as_bitmap(n, zeros);
    at += ig_varint_put(o + at, 2 * (uint64_t)zeros + bitmap);
    unsigned pb = bitmap ? 0 : pos_bytes(n);
    uint8_t *pos = o + at, *raw = pos + (bitmap ? (n + 7) / 8 : zeros * pb);
    uint8_t *cs = raw + (n - zeros) * EXPO_RAW;
    if (bitmap) memset(pos, 0, (n + 7) / 8);
    for (int q = 0; q < EXPO_WAYS - 1; q++)
        cs += ig_varint_put(cs, b[q]);
    struct bit_writer w[EXPO_WAYS];
    for (int q = 0; q < EXPO_WAYS; q++) {
        w[q] = (struct bit_writer){cs, 0, 0};
        cs += b[q];
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t x = v[i];
        if (x == 0) {
            if (bitmap) pos[i / 8] |= (uint8_t)(1u << (i % 8));
            for (unsigned k = 0; k < pb; k++)
                *pos++ = (uint8_t)(i >> (8 * k));
            continue;
        }
        uint32_t r = lane_raw(x);
        raw[0] = (uint8_t)r;
        raw[1] = (uint8_t)(r >> 8);
        raw[2] = (uint8_t)(r >> 16);
        raw += EXPO_RAW;
        unsigned e = lane_exponent(x);
        bits_put(&w[i % EXPO_WAYS], code->rev[e], code->len[e]);
    }
    for (int q = 0; q < EXPO_WAYS; q++)
        bits_flush(&w[q]);
    return 0;
}

/* v under a fresh code from its own lanes, or (old) under old's lengths of
 * the exponents the lanes hold. */
static int expo_put(const uint64_t *v, size_t n, const struct huff_code *old, struct ig_buf *out)
{
    struct expo_counts cnt;
    count_lanes(v, n, &cnt);
    struct huff_code code;
    if (old) {
        for (int e = 0; e < 256; e++)
            code.len[e] = cnt.freq[e] ? old->len[e] : 0;
        huff_canonical(&code);
    } else {
        huff_code_from_counts(&code, cnt.freq, EXPO_MAX_LEN);
    }
    size_t b[EXPO_WAYS];
    way_bytes(&code, &cnt, b);
    return put_stream(v, n, &code, cnt.zeros, b, out);
}

static int expo_encode(const uint64_t *v, size_t n, const struct ig_int_desc *d,
                       const struct int_stats *st, struct enc_ectx *c, struct ig_buf *out)
{
    (void)st;
    if (!expo_holds(d)) return ig_err(c->err, -EINVAL, "encoding expo holds float32 lanes only");
    for (size_t i = 0; i < n; i++)
        if (v[i] >> 32)
            return ig_err(c->err, -EINVAL, "encoding expo holds float32 lanes only (lane %zu)", i);
    return expo_put(v, n, NULL, out) ? enc_nomem(c->err) : 0;
}

/* ---- reading -------------------------------------------------------------- */

struct expo_hdr {
    struct huff_code code;
    uint8_t syms[256];
    size_t x, pb;                /* pb: bytes of a position; 0: the zeros are a bitmap */
    size_t pos_at, raw_at;       /* offsets in the stream */
    size_t way_at[EXPO_WAYS + 1]; /* each code stream's start; [4]: the end of the input */
    size_t m;                    /* lanes coded: n - x */
    bool complete;               /* every 8-bit pattern begins a code (Kraft's sum is 1) */
};

static int corrupt(struct ig_error *err, const char *what)
{
    return ig_err(err, -EIO, "expo stream: %s", what);
}

/* A bitmap of zero lanes: x bits set, none past n. */
static int check_bitmap(const uint8_t *map, const struct expo_hdr *h, size_t n, struct ig_error *err)
{
    if (n % 8 && map[n / 8] >> (n % 8)) return corrupt(err, "zero bits past the lanes");
    size_t set = 0;
    for (size_t b = 0; b < (n + 7) / 8; b++)
        set += (size_t)__builtin_popcount(map[b]);
    return set == h->x ? 0 : corrupt(err, "zero bits not the zero count");
}

static int expo_header(const uint8_t *p, size_t len, size_t n, struct expo_hdr *h,
                       struct ig_error *err)
{
    size_t pos = 1;
    uint64_t k, x;
    int rc = enc_field(p, len, &pos, &k, EXPO_NAME, "symbol count", err);
    if (rc) return rc;
    if (k > 256) return corrupt(err, "more than 256 symbols");
    if (len - pos < k + (k + 1) / 2) return corrupt(err, "code table past the end");
    memset(h->code.len, 0, sizeof h->code.len);
    uint32_t kraft = 0;
    for (size_t j = 0; j < k; j++) {
        uint8_t s = p[pos + j];
        if (j && s <= h->syms[j - 1]) return corrupt(err, "symbols not ascending");
        unsigned l = (p[pos + k + j / 2] >> (4 * (j % 2))) & 0xF;
        if (l < 1 || l > EXPO_MAX_LEN) return corrupt(err, "a code length outside 1..8");
        h->syms[j] = s;
        h->code.len[s] = (uint8_t)l;
        kraft += 1u << (EXPO_MAX_LEN - l);
    }
    if (kraft > 1u << EXPO_MAX_LEN) return corrupt(err, "code lengths over-subscribed");
    h->complete = kraft == 1u << EXPO_MAX_LEN;
    if (k % 2 && (p[pos + k + k / 2] >> 4)) return corrupt(err, "code table padding is not zero");
    huff_canonical_of(&h->code, h->syms, (unsigned)k);
    pos += k + (k + 1) / 2;
    rc = enc_field(p, len, &pos, &x, EXPO_NAME, "zero count", err);
    if (rc) return rc;
    bool bitmap = x & 1;
    x >>= 1;
    if (x > n) return corrupt(err, "more zero lanes than lanes");
    h->x = (size_t)x;
    h->m = n - h->x;
    if (h->m && !k) return corrupt(err, "lanes coded without a code");
    h->pb = bitmap ? 0 : pos_bytes(n);
    h->pos_at = pos;
    if (bitmap ? len - pos < (n + 7) / 8 : (len - pos) / h->pb < h->x)
        return corrupt(err, "zero positions past the end");
    /* a bitmap is checked here, where every reader passes: decode (which
     * reads it only where x > 0), get and check see it alike (fuzz_codec) */
    if (bitmap && (rc = check_bitmap(p + pos, h, n, err))) return rc;
    h->raw_at = pos + (bitmap ? (n + 7) / 8 : h->x * h->pb);
    if ((len - h->raw_at) / EXPO_RAW < h->m) return corrupt(err, "signs and mantissas past the end");
    pos = h->raw_at + h->m * EXPO_RAW;
    uint64_t b[EXPO_WAYS - 1];
    for (int q = 0; q < EXPO_WAYS - 1; q++) /* (these follow the raw bytes: a lane's 3 read as 4) */
        if ((rc = enc_field(p, len, &pos, &b[q], EXPO_NAME, "code stream size", err))) return rc;
    h->way_at[0] = pos;
    for (int q = 0; q < EXPO_WAYS - 1; q++) {
        if (b[q] > len - h->way_at[q]) return corrupt(err, "a code stream past the end");
        h->way_at[q + 1] = h->way_at[q] + (size_t)b[q];
    }
    h->way_at[EXPO_WAYS] = len;
    return 0;
}

static size_t position(const uint8_t *p, const struct expo_hdr *h, size_t j)
{
    const uint8_t *q = p + h->pos_at + j * h->pb;
    size_t v = 0;
    for (size_t b = 0; b < h->pb; b++)
        v |= (size_t)q[b] << (8 * b);
    return v;
}

/* The listed lanes as a bitmap (n bits): the stream's own, or made from the
 * positions (strictly ascending and below n). */
static int zero_map(const uint8_t *p, const struct expo_hdr *h, size_t n, uint8_t *map,
                    struct ig_error *err)
{
    memset(map, 0, n / 8 + 1);
    if (!h->pb) { /* (checked with the header) */
        memcpy(map, p + h->pos_at, (n + 7) / 8);
        return 0;
    }
    for (size_t j = 0; j < h->x; j++) {
        size_t at = position(p, h, j);
        if (at >= n || (j && at <= position(p, h, j - 1)))
            return corrupt(err, "zero positions not ascending below the lane count");
        map[at / 8] |= (uint8_t)(1u << (at % 8));
    }
    return 0;
}

/* The decoding table: for each value of the next 8 bits, the exponent
 * where a float32 keeps it (bits 23-30) in the low 32 bits and the code's
 * length above them, so that a lane is its triple's bits or'd with the
 * entry's low half, nothing masked. Where no code begins so (corrupt), the
 * length is ENTRY_NONE: more bits than a reader ever holds, so that a round
 * of codes (below) needs no test of its own for it: the bits it used are
 * more than the stream had. Codes of at most 8 bits keep the table 2 KiB,
 * made for every block in about what a few lanes cost. */
#define ENTRY(sym, len) ((uint64_t)(len) << 32 | (uint64_t)(sym) << 23)
#define ENTRY_LEN(e) ((unsigned)((e) >> 32))
#define ENTRY_NONE ENTRY(0, 64) /* a shift of acc by 64 is masked to 0: acc >>= l & 63 */

static void decode_table(const struct expo_hdr *h, uint64_t t[256])
{
    if (!h->complete) /* (a complete code's symbols fill every entry: most blocks') */
        for (unsigned at = 0; at < 256; at++)
            t[at] = ENTRY_NONE;
    for (unsigned j = 0; j < h->code.k; j++) {
        unsigned s = h->syms[j], l = h->code.len[s];
        for (unsigned at = h->code.rev[s]; at < 256; at += 1u << l)
            t[at] = ENTRY(s, l);
    }
}

struct bit_reader {
    const uint8_t *start, *p, *end;
    uint64_t acc;
    unsigned have;
};

/* At least 56 bits held, or every bit left. */
static inline void bits_refill(struct bit_reader *b)
{
    if (b->end - b->p >= 8) {
        b->acc |= ig_ld64(b->p) << b->have;
        size_t step = (63 - b->have) >> 3;
        b->p += step;
        b->have += 8 * (unsigned)step;
    } else {
        while (b->have <= 56 && b->p < b->end) {
            b->acc |= (uint64_t)*b->p++ << b->have;
            b->have += 8;
        }
    }
}

/* The bits read so far. */
static inline uint64_t bits_read(const struct bit_reader *b)
{
    return (uint64_t)(b->p - b->start) * 8 - b->have;
}

/* The next code's table entry, or 0 where no code fits the bits left. */
static inline uint64_t bits_entry(struct bit_reader *b, const uint64_t *t)
{
    uint64_t e = t[b->acc & 0xFF];
    unsigned l = ENTRY_LEN(e);
    if (l > b->have) return 0; /* (ENTRY_NONE among them) */
    b->acc >>= l;
    b->have -= l;
    return e;
}

/* Coded lane j: its 3 bytes (read as 4: more of the stream follows them;
 * sign at bit 23, mantissa below) and the exponent of table entry e, each
 * where a float32 keeps it. The fourth byte is shifted out and the sign
 * copied up through bit 31 by an arithmetic shift (gcc's and clang's
 * conversion and >> of a negative int32), bits 23-30 then cleared for the
 * exponent: three instructions where masking and moving the sign took four. */
static inline uint64_t coded_lane(const uint8_t *raw, size_t j, uint64_t e)
{
    uint32_t b = ig_ld32(raw + EXPO_RAW * j);
    uint32_t sign_mantissa = (uint32_t)((int32_t)(b << 8) >> 8) & 0x807FFFFFu;
    return sign_mantissa | (uint32_t)e;
}

static void readers(const uint8_t *p, const struct expo_hdr *h, struct bit_reader r[EXPO_WAYS])
{
    for (int q = 0; q < EXPO_WAYS; q++)
        r[q] = (struct bit_reader){p + h->way_at[q], p + h->way_at[q], p + h->way_at[q + 1], 0, 0};
}

/* Every lane into out[0..n); *used: the stream's bytes; bits[q]: the bits
 * of code stream q. */
static int decode_all(const uint8_t *p, size_t n, const struct expo_hdr *h, uint64_t *out,
                      size_t *used, uint64_t bits[EXPO_WAYS], struct ig_error *err)
{
    uint64_t t[256];
    decode_table(h, t);
    const uint8_t *raw = p + h->raw_at;
    struct bit_reader r[EXPO_WAYS];
    readers(p, h, r);
    size_t i = 0;
    if (!h->x) {
        /* no zero lanes: four codes at a time, seven rounds to a refill
         * (56 bits held, or the stream's last bits). A stream's bits used in
         * the round are checked after it: more than it held means a code not
         * in the code (ENTRY_NONE) or one past the end, corrupt; until then
         * the lanes decode nonsense within their bounds. A test a lane was
         * two of its ~14 instructions. */
        while (n - i >= 7 * EXPO_WAYS) {
            unsigned took[EXPO_WAYS] = {0};
            for (int q = 0; q < EXPO_WAYS; q++)
                bits_refill(&r[q]);
            for (int round = 0; round < 7; round++)
                for (int q = 0; q < EXPO_WAYS; q++, i++) {
                    uint64_t e = t[r[q].acc & 0xFF];
                    unsigned l = ENTRY_LEN(e);
                    r[q].acc >>= l & 63;
                    took[q] += l;
                    out[i] = coded_lane(raw, i, e);
                }
            for (int q = 0; q < EXPO_WAYS; q++) {
                if (took[q] > r[q].have)
                    return corrupt(err, "an exponent's code not in the code, or past the end");
                r[q].have -= took[q];
            }
        }
        for (; i < n; i++) {
            struct bit_reader *b = &r[i % EXPO_WAYS];
            if (b->have < EXPO_MAX_LEN) bits_refill(b);
            uint64_t e = bits_entry(b, t);
            if (!e) return corrupt(err, "an exponent's code not in the code, or past the end");
            out[i] = coded_lane(raw, i, e);
        }
    } else {
        uint8_t *zero = malloc(n / 8 + 1);
        if (!zero) return enc_nomem(err);
        int rc = zero_map(p, h, n, zero, err);
        size_t j = 0; /* coded lanes so far */
        /* as above, four codes a round, a listed lane's stream not moved on
         * (its code length masked to 0, its lane 0): no branch on the zeros,
         * which activations scatter at random */
        while (!rc && h->m && n - i >= 7 * EXPO_WAYS) {
            for (int q = 0; q < EXPO_WAYS; q++)
                bits_refill(&r[q]);
            /* a coded lane whose code is none or runs past the end is noted
             * and refused after the round, before the next refill: a branch
             * on it, which depends on the zeros, went wrong half the time;
             * until then a stream read past its end decodes nonsense within
             * the lanes' bounds (j stays within the coded lanes: the zeros
             * listed are exactly n - m) */
            unsigned took[EXPO_WAYS] = {0}, bad = 0;
            for (int round = 0; round < 7; round++)
                for (int q = 0; q < EXPO_WAYS; q++, i++) {
                    unsigned listed = (zero[i / 8] >> (i % 8)) & 1;
                    uint64_t e = t[r[q].acc & 0xFF];
                    unsigned l = ENTRY_LEN(e) & (listed - 1u);
                    r[q].acc >>= l & 63;
                    took[q] += l;
                    /* (a listed lane past the last coded one reads the code
                     * streams' sizes, which follow the triples) */
                    out[i] = coded_lane(raw, j, e) & ((uint64_t)listed - 1);
                    j += 1 - listed;
                }
            for (int q = 0; q < EXPO_WAYS; q++) {
                bad |= took[q] > r[q].have;
                r[q].have -= took[q];
            }
            if (bad) rc = corrupt(err, "an exponent's code not in the code, or past the end");
        }
        for (; !rc && i < n; i++) {
            if ((zero[i / 8] >> (i % 8)) & 1) {
                out[i] = 0;
                continue;
            }
            struct bit_reader *b = &r[i % EXPO_WAYS];
            if (b->have < EXPO_MAX_LEN) bits_refill(b);
            uint64_t e = bits_entry(b, t);
            if (!e) rc = corrupt(err, "an exponent's code not in the code, or past the end");
            else out[i] = coded_lane(raw, j++, e);
        }
        free(zero);
        if (rc) return rc;
    }
    for (int q = 0; q < EXPO_WAYS; q++) {
        bits[q] = bits_read(&r[q]);
        /* a stream holds its codes and the padding of its last byte */
        if (q < EXPO_WAYS - 1 && (bits[q] + 7) / 8 != (uint64_t)(h->way_at[q + 1] - h->way_at[q]))
            return corrupt(err, "a code stream's size is not its codes'");
    }
    *used = h->way_at[EXPO_WAYS - 1] + (size_t)((bits[EXPO_WAYS - 1] + 7) / 8);
    return 0;
}

static int expo_decode(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                       const uint8_t *absent, uint64_t *out, size_t *used, struct enc_dctx *c)
{
    (void)d;
    (void)absent;
    struct expo_hdr h;
    uint64_t bits[EXPO_WAYS];
    int rc = expo_header(p, len, n, &h, c->err);
    return rc ? rc : decode_all(p, n, &h, out, used, bits, c->err);
}

static int expo_get(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                    const uint8_t *absent, size_t i, uint64_t *out, struct enc_dctx *c)
{
    (void)d;
    (void)absent;
    struct expo_hdr h;
    int rc = expo_header(p, len, n, &h, c->err);
    if (rc) return rc;
    size_t q = i % EXPO_WAYS, lo = 0, mine = 0; /* zero lanes before i; of them, in i's stream */
    if (!h.pb) {
        const uint8_t *map = p + h.pos_at;
        if ((map[i / 8] >> (i % 8)) & 1) {
            *out = 0;
            return 0;
        }
        for (size_t b = 0; b < i / 8; b++) {
            lo += (size_t)__builtin_popcount(map[b]);
            mine += (size_t)__builtin_popcount(map[b] & (0x11u << q));
        }
        for (size_t at = i & ~(size_t)7; at < i; at++)
            if ((map[at / 8] >> (at % 8)) & 1) lo++, mine += at % EXPO_WAYS == q;
    } else {
        size_t hi = h.x;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (position(p, &h, mid) < i)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < h.x && position(p, &h, lo) == i) {
            *out = 0;
            return 0;
        }
        for (size_t z = 0; z < lo; z++)
            mine += position(p, &h, z) % EXPO_WAYS == q;
    }
    size_t j = i - lo, before = (i - q) / EXPO_WAYS - mine;
    if (j >= h.m) return corrupt(c->err, "a lane past the coded ones");
    uint64_t t[256];
    decode_table(&h, t);
    struct bit_reader r[EXPO_WAYS];
    readers(p, &h, r);
    uint64_t e = 1;
    for (size_t k = 0; k <= before && e; k++) {
        if (r[q].have < EXPO_MAX_LEN) bits_refill(&r[q]);
        e = bits_entry(&r[q], t);
    }
    if (!e) return corrupt(c->err, "an exponent's code not in the code, or past the end");
    *out = coded_lane(p + h.raw_at, j, e);
    return 0;
}

/* ---- erasing and checking ------------------------------------------------ */

/* The stream's header into h and every lane into *v (malloc'd): what an erase
 * and a check work from. */
static int decode_fresh(const uint8_t *p, size_t len, size_t n, struct expo_hdr *h, uint64_t **v,
                        size_t *used, uint64_t bits[EXPO_WAYS], struct ig_error *err)
{
    *v = NULL;
    int rc = expo_header(p, len, n, h, err);
    if (rc) return rc;
    if (!(*v = malloc((n ? n : 1) * sizeof **v))) return enc_nomem(err);
    return decode_all(p, n, h, *v, used, bits, err);
}

static int expo_erase(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                      const uint8_t *absent, const uint8_t *kill, bool may_drop,
                      struct enc_dctx *c, struct ig_buf *out)
{
    (void)d;
    (void)absent;
    (void)may_drop;
    struct expo_hdr h;
    uint64_t *v, bits[EXPO_WAYS];
    size_t used, at = out->len;
    int rc = decode_fresh(p, len, n, &h, &v, &used, bits, c->err);
    for (size_t i = 0; !rc && i < n; i++)
        if (bm_get(kill, i)) v[i] = 0;
    if (!rc && expo_put(v, n, NULL, out)) rc = enc_nomem(c->err);
    if (!rc && out->len - at > used) {
        /* the fresh code came out longer (its lengths capped): the old
         * lengths of the exponents still used, under which no stream can
         * (each lane keeps its stream) */
        out->len = at;
        if (expo_put(v, n, &h.code, out)) rc = enc_nomem(c->err);
        if (!rc && out->len - at > used) rc = ig_err(c->err, -ENOSPC, "expo stream: the erase would grow it");
    }
    if (rc) out->len = at;
    free(v);
    return rc;
}

static int expo_check(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                      const uint8_t *absent, const uint8_t *erased, size_t *used,
                      struct enc_dctx *c)
{
    (void)d;
    (void)absent;
    struct expo_hdr h;
    uint64_t *v, bits[EXPO_WAYS];
    int rc = decode_fresh(p, len, n, &h, &v, used, bits, c->err);
    uint8_t *zero = rc ? NULL : malloc(n / 8 + 1);
    if (!rc && !zero) rc = enc_nomem(c->err);
    if (!rc) rc = zero_map(p, &h, n, zero, c->err);
    uint64_t freq[256] = {0};
    for (size_t i = 0; !rc && i < n; i++) {
        bool listed = (zero[i / 8] >> (i % 8)) & 1;
        if (bm_get(erased, i) && !listed)
            rc = ig_err(c->err, -EIO, "expo stream: erased position %zu still holds data", i);
        else if (!listed && v[i] == 0)
            rc = corrupt(c->err, "a zero lane coded rather than listed");
        else if (!listed)
            freq[lane_exponent(v[i])]++;
    }
    free(zero);
    for (unsigned j = 0; !rc && j < h.code.k; j++)
        if (!freq[h.syms[j]]) rc = corrupt(c->err, "the code names an exponent no lane holds");
    /* each stream's bits after its last code, in its last byte */
    for (int q = 0; !rc && q < EXPO_WAYS; q++)
        if (bits[q] % 8 && (p[h.way_at[q] + bits[q] / 8] >> (bits[q] % 8)))
            rc = ig_err(c->err, -EIO, "expo stream: bits after the last code are not zero");
    free(v);
    return rc;
}

const struct int_scheme enc_expo_int = {
    .id = IG_ENC_EXPO,
    .name = EXPO_NAME,
    .composite = false,
    .estimate = expo_estimate,
    .estimate_values = expo_estimate_values,
    .encode = expo_encode,
    .decode = expo_decode,
    .get = expo_get,
    .erase = expo_erase,
    .check = expo_check,
};
