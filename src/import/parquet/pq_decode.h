/* pq_decode.h - inside the Parquet reader's page decoding: what pq_page.c
 * (the chunk's walk, page by page) takes from pq_decode.c (a page's
 * encodings). Not for other modules. */
#ifndef IG_IMPORT_PARQUET_PQ_DECODE_H
#define IG_IMPORT_PARQUET_PQ_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq_page.h"

struct ig_buf;
struct ig_error;

/* Bounds on what a page may declare. Writers cut pages near 1 MiB and 20,000 to
 * 100,000 values, but DuckDB writes a list column's row group as one page: a
 * pretokenized set of 100,000 rows of 64-512 tokens is one page of 28.8 million
 * values (117 MB). Any page may declare PQ_PAGE_FREE_VALUES; more only as many
 * as 8 a byte of the page, up to PQ_PAGE_MAX_VALUES: a hostile header of a few
 * bytes cannot ask for gigabytes (levels in runs describe any number). */
#define PQ_PAGE_MAX_BYTES (256u << 20)
#define PQ_PAGE_FREE_VALUES (1u << 24)
#define PQ_PAGE_MAX_VALUES (1u << 27)

enum { PAGE_DATA = 0, PAGE_INDEX = 1, PAGE_DICT = 2, PAGE_DATA_V2 = 3 };
enum {
    E_PLAIN = 0,
    E_PLAIN_DICT = 2,
    E_RLE = 3,
    E_BIT_PACKED = 4,
    E_DELTA_BP = 5,
    E_DELTA_LBA = 6,
    E_DELTA_BA = 7,
    E_RLE_DICT = 8,
    E_BSS = 9,
};

static inline const char *pq_enc_name(unsigned e)
{
    static const char *const n[] = {"PLAIN", "GROUP_VAR_INT", "PLAIN_DICTIONARY", "RLE", "BIT_PACKED",
                                    "DELTA_BINARY_PACKED", "DELTA_LENGTH_BYTE_ARRAY",
                                    "DELTA_BYTE_ARRAY", "RLE_DICTIONARY", "BYTE_STREAM_SPLIT"};
    return e < sizeof n / sizeof *n ? n[e] : "unknown";
}

/* Where a page is being decoded, for messages; its scratch. */
struct pq_ctx {
    const char *where;
    unsigned page;
    const struct pq_node *leaf;
    struct pq_scratch *s;
    struct ig_error *err;
};

/* code, and a message naming the file, row group, column and page. */
int pq_fail(struct pq_ctx *x, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static inline bool pq_is_bytes_type(const struct pq_node *leaf)
{
    return leaf->type == PQ_BYTE_ARRAY || leaf->type == PQ_FLBA;
}

/* A page's bytes, uncompressed: *out points at src itself when the page is
 * stored uncompressed (no copy), else into dst. */
int pq_decompress(struct pq_ctx *x, uint8_t codec, const uint8_t *src, size_t slen, size_t dlen,
                  struct ig_buf *dst, const uint8_t **out);
/* One level stream (RLE hybrid, no length prefix) of n levels, each <= max. */
int pq_decode_levels(struct pq_ctx *x, const uint8_t *p, size_t len, unsigned max, size_t n, uint8_t *out,
                     const char *what);
/* One level stream in the deprecated BIT_PACKED encoding (data page v1 of
 * old writers): n levels of the maximum's bit width, packed from the most
 * significant bit, no length prefix; *used gets the bytes they take. */
int pq_decode_levels_packed(struct pq_ctx *x, const uint8_t *p, size_t len, unsigned max, size_t n,
                            uint8_t *out, const char *what, size_t *used);
/* PLAIN values: n of them from p[0..len) into v. */
int pq_decode_plain(struct pq_ctx *x, const uint8_t *p, size_t len, size_t n, struct ig_values *v);
/* n values of encoding enc from p[0..len) appended to v. */
int pq_decode_values(struct pq_ctx *x, unsigned enc, const uint8_t *p, size_t len, size_t n,
                     struct ig_values *v);

#endif
