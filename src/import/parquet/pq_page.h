/* pq_page.h - one column chunk of a Parquet row group, decoded.
 *
 * A chunk is read with one pread of its byte range (the footer's offsets,
 * checked by pq_meta), then walked page by page: Thrift page header,
 * decompression (uncompressed, snappy, gzip of one or more members, zstd,
 * brotli, lz4_raw, lz4 with Hadoop framing; a page of no bytes is not
 * decompressed),
 * repetition and definition levels (RLE/bit-packed hybrid, and the deprecated
 * BIT_PACKED of old v1 pages; data page v1 and v2), then the values: PLAIN,
 * PLAIN_DICTIONARY / RLE_DICTIONARY, RLE (booleans), DELTA_BINARY_PACKED,
 * DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY and BYTE_STREAM_SPLIT.
 *
 * Output is the chunk's levels and its defined values only (entries whose
 * definition level is the leaf's maximum), in physical form: fixed-width values
 * as uint64 lanes holding the raw little-endian bits zero-extended (BOOLEAN 0/1,
 * INT32 and FLOAT 32 bits, INT64 and DOUBLE 64 bits), INT96 converted to int64
 * microseconds since the epoch (its only use is timestamps), BYTE_ARRAY and
 * FIXED_LEN_BYTE_ARRAY as bytes. What the values mean (logical types) is the
 * caller's business.
 *
 * Not supported, each refused with a message naming file, row group, column and
 * page: LZO compression. Page checksums are not checked (Parquet's
 * CRC is optional and rarely written).
 * Hostile input never reads outside the chunk, and memory stays O(chunk size +
 * the values it declares, each bounded by the bytes that encode it). */
#ifndef IG_IMPORT_PARQUET_PQ_PAGE_H
#define IG_IMPORT_PARQUET_PQ_PAGE_H

#include <stddef.h>
#include <stdint.h>

#include "format/model/values.h"
#include "pq_meta.h"
#include "util/buf.h"

struct ig_error;

struct pq_column {
    uint8_t *reps, *defs; /* nlevels each; NULL when the leaf's max level is 0 */
    size_t nlevels, lcap;
    struct ig_values vals; /* defined values only, lanes or bytes */
};

/* Buffers reused from chunk to chunk. */
struct pq_scratch {
    struct ig_buf chunk, page, tmp;
    struct ig_values dict;
    uint32_t *idx;
    size_t idx_cap;
};

void pq_column_init(struct pq_column *c);
void pq_column_free(struct pq_column *c);
void pq_scratch_free(struct pq_scratch *s);

/* Read and decode leaf `leaf` of row group `group`. `path` names the file in errors. */
int pq_read_chunk(int fd, const char *path, const struct pq_meta *m, uint32_t group, uint32_t leaf,
                  struct pq_scratch *s, struct pq_column *out, struct ig_error *err);

/* The same from a chunk's bytes already in memory (fuzzing and tests): `where`
 * prefixes errors ("FILE: row group G, column 'c'"). */
int pq_decode_chunk(const uint8_t *p, size_t len, const struct pq_node *leaf, uint8_t codec,
                    int64_t num_values, const char *where, struct pq_scratch *s,
                    struct pq_column *out, struct ig_error *err);

#endif
