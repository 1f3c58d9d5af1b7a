/* slide_int.h - what the sliding-window page's files share beyond the byte
 * layout (format/layout.h): the encoder (slide_encode.c), the decoder
 * (slide.c), the eraser and checker (slide_erase.c), the dictionary bulk
 * (slide_dict.c) and the streams and length code they write with
 * (slide_streams.c). */
#ifndef IG_FORMAT_PAGE_SLIDE_INT_H
#define IG_FORMAT_PAGE_SLIDE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>

#include "format/enc/codec.h"
#include "util/buf.h"
#include "util/endian.h"
#include "util/pcode.h"
#include "util/u64map.h"
#include "util/u64vec.h"

struct ig_error;

/* Values in one row: bounds what hostile lengths can make a decoder allocate. */
#define IG_SLIDE_MAX_LIST (1u << 24)

/* The writer stores a row whole (a base) at least every this many rows with
 * values, so that reading one row walks at most this far: windows that share
 * most ids across users (very popular ids) would otherwise chain through the
 * page. Readers take any chain. */
#define IG_SLIDE_MAX_CHAIN 256

/* Every metadata stream and the bulk are 8-byte unsigned int streams
 * (slide_streams.c), but a list of float32's bulk (ig_slide_bulk_desc). */
extern const struct ig_int_desc ig_slide_meta_desc;
/* The bulk as one int stream (IG_SLIDE_BULK_STREAM) of a leaf of this type:
 * 8-byte lanes, a list of floats' (format 21) float lanes of their width, so
 * that its values are weighed by the float schemes (decimal, alp, expo). */
const struct ig_int_desc *ig_slide_bulk_desc(uint8_t type);

/* Signed values are zigzagged (one bit each) unless the page stores them raw. */
static inline uint64_t zz(uint64_t v, bool s)
{
    return s ? (v << 1) ^ (uint64_t)((int64_t)v >> 63) : v;
}
static inline uint64_t unzz(uint64_t v, bool s)
{
    return s ? (v >> 1) ^ (0 - (v & 1)) : v;
}

/* Writes LSB-first bits into zeroed memory with 8 bytes of slack after them
 * (every writer keeps it), a word at a time: the bits wait in acc until a
 * word is full, so no store is read back (bytes ORed one by one, or words
 * ORed at each bit offset, stall on the store before). */
struct ig_bitwriter {
    uint8_t *dst;
    uint64_t pos; /* bits written so far */
    uint64_t acc; /* the last pos % 64 of them, not stored yet */
};

/* Append the low w (at most 64) bits of x. */
static inline void ig_bw_put(struct ig_bitwriter *b, uint64_t x, unsigned w)
{
    if (!w) return;
    if (w < 64) x &= (1ull << w) - 1;
    unsigned n = (unsigned)(b->pos % 64);
    b->acc |= x << n;
    if (n + w >= 64) { /* a word is full */
        ig_st64(b->dst + b->pos / 64 * 8, b->acc);
        b->acc = n ? x >> (64 - n) : 0;
    }
    b->pos += w;
}

/* Store the bits still waiting (ORed into their bytes only: memory after
 * them may belong to someone else). */
static inline void ig_bw_flush(struct ig_bitwriter *b)
{
    uint8_t *p = b->dst + b->pos / 64 * 8;
    for (unsigned k = 0; k < (b->pos % 64 + 7) / 8; k++)
        p[k] |= (uint8_t)(b->acc >> (8 * k));
}

/* Reads LSB-first bits of p[0..len). */
struct ig_bitreader {
    const uint8_t *p;
    size_t len;
    uint64_t pos;
};

/* The next w (at most 64) bits; -EIO past the end. */
static inline int ig_bits_read(struct ig_bitreader *br, unsigned w, uint64_t *out)
{
    uint64_t v = 0;
    for (unsigned q = 0; q < w;) {
        if (br->pos / 8 >= br->len) return -EIO;
        unsigned bit = (unsigned)(br->pos % 8), take = 8 - bit < w - q ? 8 - bit : w - q;
        v |= (uint64_t)((br->p[br->pos / 8] >> bit) & ((1u << take) - 1)) << q;
        br->pos += take;
        q += take;
    }
    *out = v;
    return 0;
}

/* The next w (at most 16) bits without moving; zeros past the end. */
static inline uint64_t ig_bits_peek(const struct ig_bitreader *br, unsigned w)
{
    uint64_t v = 0, pos = br->pos;
    for (unsigned q = 0; q < w;) {
        unsigned bit = (unsigned)(pos % 8), take = 8 - bit < w - q ? 8 - bit : w - q;
        unsigned byte = pos / 8 < br->len ? br->p[pos / 8] : 0;
        v |= (uint64_t)((byte >> bit) & ((1u << take) - 1)) << q;
        pos += take;
        q += take;
    }
    return v;
}

/* Bit i of bitmap bm (false when bm is NULL). */
static inline bool ig_slide_bit(const uint8_t *bm, size_t i)
{
    return bm && ((bm[i / 8] >> (i % 8)) & 1);
}

/* Are the bits of p[0..len) from bit `from` on all zero (nothing left past a
 * bit stream's last code)? */
static inline bool ig_bits_zero_from(const uint8_t *p, size_t len, uint64_t from)
{
    for (uint64_t q = from; q < (uint64_t)len * 8; q++)
        if ((p[q / 8] >> (q % 8)) & 1) return false;
    return true;
}

/* The bit length of x (0 for 0). */
static inline uint64_t ig_bit_len(uint64_t x)
{
    return x ? 64 - (uint64_t)__builtin_clzll(x) : 0;
}

/* A bit-length code back to its value: length L (at most 64), the L - 1 bits
 * below the leading one. */
static inline uint64_t ig_slide_from_code(uint64_t L, uint64_t bits)
{
    return L == 0 ? 0 : L == 1 ? 1 : (1ull << (L - 1)) | bits;
}

/* One value coded by its bit length under code c (built with a decode table):
 * the code of L, then its L - 1 low bits. -EIO on a bad or truncated code. */
static inline int ig_slide_read_coded(struct ig_bitreader *br, const struct ig_pcode *c, uint64_t *L,
                                      uint64_t *low)
{
    unsigned n;
    int sym = ig_pcode_decode(c, ig_bits_peek(br, c->max_len), &n);
    if (sym < 0 || br->pos + n > (uint64_t)br->len * 8) return -EIO;
    br->pos += n;
    *L = (uint64_t)sym;
    *low = 0;
    return sym > 1 ? ig_bits_read(br, (unsigned)sym - 1, low) : 0;
}

/* The value x as its length's code and low bits. */
static inline void ig_slide_put_coded(struct ig_bitwriter *bw, const struct ig_pcode *c, uint64_t x)
{
    uint64_t L = ig_bit_len(x);
    ig_bw_put(bw, c->code[L], c->len[L]);
    if (L > 1) ig_bw_put(bw, x, (unsigned)L - 1);
}

/* Bits of x coded so (0 when L has no code: the caller checks c->len[L]). */
static inline uint64_t ig_slide_coded_bits(const struct ig_pcode *c, uint64_t x)
{
    uint64_t L = ig_bit_len(x);
    return c->len[L] + (L > 1 ? L - 1 : 0);
}

/* ---- slide_streams.c ---- */

/* The code for the bit lengths lens[0..n) (0..64), ready to write (no decode
 * table). With zero_for_erasure, length 0 always has a code, no longer than any
 * present length's code plus its L - 1 low bits (erasure writes length 0 in
 * place of a value). False when no code of at most IG_PCODE_MAX_LEN bits fits. */
bool ig_slide_length_code(const uint64_t *lens, size_t n, bool zero_for_erasure, struct ig_pcode *c);

/* u32 length + an int stream; `forced` 0 lets the codecs choose. Streams that
 * erasure touches (the bulk) must not drop elements (`erasable`); the row
 * metadata is never erased (an erased row keeps its shape), so any scheme, RLE
 * included, will do there. */
int ig_slide_put_stream(struct ig_buf *b, const uint64_t *v, size_t n, enum ig_enc forced,
                        bool erasable, struct ig_error *err);

/* ---- the dictionary bulk (IG_SLIDE_BULK_DICT, slide_dict.c) ---- */

/* One group of entries (ranks first .. first + n - 1), a sorted set: l low
 * bits each, then the high parts in unary over ubits upper bits. */
struct ig_slide_group {
    size_t first, n, ubits;
    unsigned l;
    const uint8_t *lows, *upper;
};

#define IG_SLIDE_MAX_GROUPS 33 /* 2^32 entries at most */

struct ig_slide_dict {
    size_t nentries, nvalues;
    unsigned ngroups;
    struct ig_slide_group groups[IG_SLIDE_MAX_GROUPS];
    const uint8_t *ctable; /* the codes' length-code table */
    const uint8_t *cbits;  /* the codes' bit stream */
    size_t cbits_len;
};

/* Parse the bulk p[0..len) (after the metadata streams, to the body's end) of
 * a page of nvalues bulk values. */
int ig_slide_dict_parse(const uint8_t *p, size_t len, size_t nvalues, struct ig_slide_dict *d,
                        struct ig_error *err);

/* Every bulk value, in order, into out[0..nvalues). */
int ig_slide_dict_values(const struct ig_slide_dict *d, uint64_t *out, struct ig_error *err);

/* Every entry, by rank, into vals[0..nentries) (tests look at them). */
int ig_slide_dict_entries(const struct ig_slide_dict *d, uint64_t *vals, struct ig_error *err);

/* Reads the bulk's values in order from a code's bit offset on (a base's),
 * each entry found alone. */
struct ig_slide_dict_reader {
    struct ig_slide_dict d;
    struct ig_pcode code;
    struct ig_bitreader br;
    uint64_t *words;  /* every group's upper bits as words */
    uint64_t *before; /* per group, per word: the set bits before it; then the group's total */
    size_t at[IG_SLIDE_MAX_GROUPS], cat[IG_SLIDE_MAX_GROUPS]; /* a group's first word, first count */
};
int ig_slide_dict_open(const struct ig_slide_dict *d, uint64_t bit, struct ig_slide_dict_reader *r,
                       struct ig_error *err);
int ig_slide_dict_next(struct ig_slide_dict_reader *r, uint64_t *x, struct ig_error *err);
void ig_slide_dict_close(struct ig_slide_dict_reader *r);

/* The dictionary bulk's working arrays, kept by the page encoder from page
 * to page (memory freed and taken again is mapped and faulted in afresh). */
struct ig_slide_dict_scratch {
    struct ig_u64vec a;   /* six arrays of n + 1 values (slide_dict.c) */
    struct ig_u64map map; /* each distinct value's rank + 1 */
};
void ig_slide_dict_scratch_free(struct ig_slide_dict_scratch *sc);

/* The bulk vals[0..n) as a dictionary bulk into out (emptied first); cbit[b]
 * gets the bit offset of value bval[b] (the bases' first values, nbases).
 * *made false, out empty, when it would not pay (few repeats) or no code fits. */
int ig_slide_dict_encode(const uint64_t *vals, size_t n, const uint64_t *bval, size_t nbases, uint64_t *cbit,
                         struct ig_slide_dict_scratch *sc, struct ig_buf *out, bool *made);

/* Erase: append the base bit offsets (stream 7, bit-packed, -ENOSPC if longer
 * than its old old_offsets_len) and the bulk with every dead value's code 0
 * (or its group's first) and every entry no live value uses made a copy of
 * the one before it. The bulk keeps its size (-ENOSPC on a page this writer
 * did not make). */
int ig_slide_dict_erase(const struct ig_slide_dict *d, const uint64_t *bval, size_t nbases, const uint8_t *dead,
                        size_t old_offsets_len, struct ig_buf *out, struct ig_error *err);

/* 0 if every dead value's code is 0 or a group's first, every entry no live
 * value uses is a copy of the one before it (0 for a group's first), and no
 * bits follow the last code; else -EIO. */
int ig_slide_dict_check(const struct ig_slide_dict *d, const uint8_t *dead, struct ig_error *err);

/* ---- a parsed page (slide.c; erased in slide_erase.c) ---- */

/* A sliding-window page's body split into its streams, checked to lie within
 * it. */
struct ig_slide_page {
    size_t rows, nbases;
    bool bits;  /* IG_SLIDE_BULK_BITS */
    bool coded; /* IG_SLIDE_BULK_CODED: code holds the table, mant the whole bit stream */
    bool dict;  /* IG_SLIDE_BULK_DICT: the bulk in d */
    struct ig_slide_dict d;
    bool raw;   /* values not zigzagged even if the type is signed */
    const uint8_t *table;
    const uint8_t *s[8]; /* the eight metadata streams */
    size_t sl[8];
    const uint8_t *bulk; /* kind 0: the int stream; kind 1: the lengths stream */
    size_t bulk_len;
    const uint8_t *mant; /* kind 1: mantissa bits */
    size_t mant_len;
    size_t nvalues; /* values in the bulk */
};

/* Parse the body p[0..len) (after the body header) of a page of `rows` rows. */
int ig_slide_parse(const uint8_t *p, size_t len, size_t rows, struct ig_slide_page *sl, struct ig_error *err);
/* The number of bulk values, from the rows' kinds, lengths, heads and tails;
 * -EIO on a row that cannot be. */
int ig_slide_count_values(const uint64_t *kind, const uint64_t *lenv, const uint64_t *head,
                          const uint64_t *tail, size_t rows, size_t *nv, struct ig_error *err);
/* Every value of a bit-coded bulk (IG_SLIDE_BULK_BITS or IG_SLIDE_BULK_CODED): its
 * bit length in lens[j] and its low bits in lows[j], or, with lows NULL, the
 * value itself in lens[j]. *end gets the bit position after the last value
 * (may be NULL); for IG_SLIDE_BULK_CODED, *code the page's code when code is
 * not NULL (the caller frees it). */
int ig_slide_read_bit_bulk(const struct ig_slide_page *sl, uint64_t *lens, uint64_t *lows, uint64_t *end,
                           struct ig_pcode *code, struct ig_error *err);

#endif
