/* pcode.h - canonical prefix (Huffman) codes over a small alphabet.
 *
 * For entropy-coding short symbols such as bit lengths (0..64): the code is
 * described by each symbol's code length (0 = absent, at most IG_PCODE_MAX_LEN),
 * stored as one nibble per symbol; codes are canonical (shorter first, then by
 * symbol) and written bit-reversed so that an LSB-first bit reader decodes them
 * with one table lookup of the next max_len bits.
 *
 * Loading validates a table from disk: lengths in range, Kraft sum at most 1
 * (an incomplete code is allowed; its unused bit patterns fail to decode). */
#ifndef IG_UTIL_PCODE_H
#define IG_UTIL_PCODE_H

#include <stddef.h>
#include <stdint.h>

#define IG_PCODE_MAX_SYMS    65
#define IG_PCODE_MAX_LEN     15
#define IG_PCODE_TABLE_BYTES ((IG_PCODE_MAX_SYMS + 1) / 2) /* nibbles */

struct ig_pcode {
    uint8_t len[IG_PCODE_MAX_SYMS];   /* code length per symbol, 0 = absent */
    uint16_t code[IG_PCODE_MAX_SYMS]; /* bit-reversed code, to be written LSB first */
    unsigned max_len;
    uint16_t *lut; /* 2^max_len entries: symbol << 4 | length, 0 = no code (decoders only) */
};

/* Optimal code lengths for freq[0..nsym) (symbols with freq 0 are absent) by
 * Huffman's algorithm; a lone symbol gets length 1. Returns the longest length
 * (which may exceed IG_PCODE_MAX_LEN: the caller then codes otherwise). */
unsigned ig_pcode_lengths(const uint64_t *freq, unsigned nsym, uint8_t *len);

/* Canonical codes for c->len (set by the caller); 0, -EINVAL if the lengths
 * are out of range or oversubscribe the code, -ENOMEM. With lut, also the
 * decode table. */
int ig_pcode_build(struct ig_pcode *c, int lut);
void ig_pcode_free(struct ig_pcode *c);

/* The lengths as IG_PCODE_TABLE_BYTES nibbles (symbol 2k low, 2k+1 high), and back. */
void ig_pcode_store(const struct ig_pcode *c, uint8_t *out);
void ig_pcode_load(const uint8_t *in, struct ig_pcode *c);

/* The symbol whose code starts the LSB-first bits `peek` (at least max_len of
 * them, zeros past the end of the data); *len gets its length. -1 if no code
 * starts so. */
static inline int ig_pcode_decode(const struct ig_pcode *c, uint64_t peek, unsigned *len)
{
    uint16_t e = c->lut[peek & ((1u << c->max_len) - 1)];
    *len = e & 15;
    return *len ? e >> 4 : -1;
}

#endif
