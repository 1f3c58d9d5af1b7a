/* huff_int.h - what huff.c (the stream: its two layouts, reading, erasing,
 * checking) and huff_code.c (the code it is written under) share. */
#ifndef IG_FORMAT_HUFF_INT_H
#define IG_FORMAT_HUFF_INT_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

#define HUFF_MAX_LEN 12

/* A code: for each byte value its length (0 = not coded) and its bits, already
 * reversed for least-significant-bit-first output. */
struct huff_code {
    unsigned k;
    uint8_t len[256];
    uint16_t rev[256];
};

/* Canonical codes for the lengths in c->len (by length, then byte value). */
void huff_canonical(struct huff_code *c);
/* The same when the coded bytes are known: the k of syms, ascending, each
 * with its length in c->len and its rev 0 (a stream's table, parsed). */
void huff_canonical_of(struct huff_code *c, const uint8_t *syms, unsigned k);
/* A code for the items (offs, data; those set in skip left out): Huffman's
 * lengths from their byte counts, made canonical. */
void huff_code_from_items(struct huff_code *c, const uint64_t *offs, const uint8_t *data, size_t n,
                          const uint8_t *skip);
/* A code for symbols counted in freq[256], no code longer than `most` bits
 * (at least 8, so that 256 symbols fit; expo: a block's exponents). */
void huff_code_from_counts(struct huff_code *c, const uint64_t freq[256], unsigned most);
/* Coded bytes of one item under c. */
size_t huff_item_coded_size(const struct huff_code *c, const uint8_t *p, size_t n);
/* Append item p[0..n) coded under c to out: need bytes, its huff_item_coded_size. */
int huff_put_item(const struct huff_code *c, const uint8_t *p, size_t n, size_t need, struct ig_buf *out);
/* Bytes of the code table after the scheme byte: k, symbols, lengths. */
size_t huff_code_table_size(unsigned k);
/* The scheme byte and the code table at h; the bytes written. */
size_t huff_put_code_table(const struct huff_code *c, uint8_t *h);

#endif
