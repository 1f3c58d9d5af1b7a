/* page_slide.h - sliding-window pages for list<int> columns (Bullion 2.2).
 *
 * Sparse sequence features (the last 256 ad ids a user clicked) sorted by user
 * and time slide: each row is mostly its predecessor shifted by a few new ids.
 * A row is stored either as a base (its whole vector) or as a delta against the
 * previous row: the run of the previous vector it keeps (start s, length
 * len - h - t), h new values at its head and t at its tail. Small metadata
 * streams come first; the bulk (every base's values and every delta's new head
 * and tail values) follows in one stream, coded by bit length (a 0..64 length
 * per value, then the value's bits below its leading one), which for ids spread
 * over many magnitudes lands close to their entropy.
 *
 * Layout (after the page body header, body flag IG_BODY_SLIDE alone):
 *
 *   u32 rows | u32 nbases | u8 bulk kind (0 int stream, 1 bit-length code) | 3 x 0
 *   u32 bulk values
 *   u32 len | kind stream  (rows: 0 base, 1 delta, 2 NULL list, 3 empty list;
 *                           rows 2 and 3 have no values and a delta refers to the
 *                           last row before it that has values)
 *   u32 len | length stream (rows: values in the row)
 *   u32 len | start stream (rows: s)       u32 len | head stream (rows: h)
 *   u32 len | tail stream  (rows: t)
 *   u32 len | base rows    (nbases: row index of each base)
 *   u32 len | base value   (nbases: index of the base's first value in the bulk)
 *   u32 len | base bit     (nbases: bit offset of that value's code, kind 1)
 *   bulk: kind 0: an int stream; kind 1: u32 len | length stream, then the bits
 *         (values zigzagged for signed types; a length-L value stores L - 1 bits).
 *
 * Every stream is an ingot int stream (ENCODINGS.md), chosen by size.
 * Reading row K starts at the last base at or before it (the base index), never
 * at the page start unless that is the base. Erasing rebuilds the page with the
 * erased rows empty (or NULL); the row after one is re-expressed against the last
 * row before it that still has values, or re-based when they share too little. */
#ifndef IG_FORMAT_PAGE_SLIDE_H
#define IG_FORMAT_PAGE_SLIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/u64map.h"
#include "format/model/values.h"

struct ig_error;
struct ig_leaf_info;

/* Can this leaf use sliding-window pages? (a top-level list of integers, or
 * from format 21 of float32 or float64; its items NULL or not:
 * li->item_nulls says which, and where they may be, only pages without a
 * NULL item are: ig_slide_page_fits) */
bool ig_slide_fits(const struct ig_leaf_info *li, unsigned lists, unsigned null_mask);
/* Do rows [first, first + count) of v slide? True when at least half of
 * those with values keep a run of the row with values before them (as a
 * delta row keeps it). The writer offers a list of floats sliding-window
 * pages only then: readings that do not slide keep to level streams in
 * blocks, as before format 21, without the trial of a page both ways. */
bool ig_slide_rows_slide(const struct ig_values *v, size_t first, size_t count);
/* Rows [first, first + count) of v hold no NULL item (li->item_nulls). */
bool ig_slide_page_fits(const struct ig_leaf_info *li, const struct ig_values *v, size_t first, size_t count);
/* The definition level of an empty list: 1 where the list may be NULL (0),
 * else 0; an item's is max_def, a NULL item's (item_nulls) the one below. */
uint8_t ig_slide_empty_def(const struct ig_leaf_info *li);

/* Measures a page of sliding rows as it grows, row by row, about as it will be
 * stored: the writer cuts sliding-window pages by this, so a page holds the
 * target size of stored bytes, not of plain values. Zeroed, or reused page
 * after page (ig_slide_sizer_start keeps its memory). */
struct ig_slide_sizer {
    struct ig_u64map seen; /* the page's distinct non-zero values so far */
    uint64_t saved;        /* bits a dictionary saves on the repeats */
    size_t chain;          /* rows written as deltas since the last base */
};

/* About how many bits row cur costs after prev (the last row with values):
 * each new value in the bit-length code, or, when the page has had it already,
 * as an index into the page's dictionary if that is cheaper; its metadata. */
uint64_t ig_slide_sizer_row(struct ig_slide_sizer *z, const uint64_t *prev, size_t pn, const uint64_t *cur,
                            size_t cn, bool sgn);
/* Start measuring a new page. */
void ig_slide_sizer_start(struct ig_slide_sizer *z);
void ig_slide_sizer_free(struct ig_slide_sizer *z);

/* The values in each row (lens[0..rows); 0 for a NULL or empty list) from the
 * page's row metadata alone, no value decoded. */
int ig_slide_lengths(const uint8_t *p, size_t len, size_t rows, uint64_t *lens, struct ig_error *err);

/* Buffers sliding-window pages are encoded in, kept from page to page by the
 * caller (struct ig_page_scratch): a page of 50,000 values takes about 3 MB
 * of them, which freed and taken again are mapped and faulted in afresh. */
struct ig_slide_scratch;
void ig_slide_scratch_free(struct ig_slide_scratch *sc); /* NULL: nothing */

/* Append the encoding of rows [first, first + count) of a nested leaf's
 * values; *scratch (NULL at first) is made here and reused. */
int ig_slide_encode(const struct ig_values *v, size_t first, size_t count, const struct ig_leaf_info *li,
                    struct ig_slide_scratch **scratch, struct ig_buf *body, struct ig_error *err);

/* Sliding-window pages whose bulk goes in bytes (ig_slide_encode_bytes) hold
 * at most this many values where the writer sees it coming (a group's first
 * page of them says), and pages of more than twice as many keep their bit
 * codes: a row read decompresses its page whole, and pages cut by what their
 * bit codes would store held 85,000 tokens (a row read of such a body, 160 KiB,
 * took twice that of the bit codes', 70 KiB) or, where a dictionary grew them,
 * millions of bytes of text. */
#define IG_SLIDE_BYTES_LANES 32768u

/* The page of the rows ig_slide_encode just made a page of (in *scratch)
 * again, every row a base and the bulk as plain lanes of the fewest bytes
 * (1, 2 or 4) that hold its values (an int stream, kind 0), appended to body:
 * bytes zstd finds repeated runs in (tokens of text, whose ids recur in
 * phrases), where the bit codes the encoder weighs without zstd, and the runs
 * deltas keep of the row before, hide them. 1 (nothing appended) where no
 * such width holds them or the leaf is a list of floats. */
int ig_slide_encode_bytes(const struct ig_values *v, size_t first, size_t count, const struct ig_leaf_info *li,
                          struct ig_slide_scratch *scratch, struct ig_buf *body, struct ig_error *err);

/* The least zstd level a compressed sliding-window page whose bulk is one int
 * stream (kind 0, as the bulk in bytes is) is sealed at, by the writer and
 * again by an erase: zstd finds text's phrases in such lanes, and a row read
 * decompresses the page whole at the same speed whatever its level. On rows
 * of token ids of real text (BENCHMARKS.md, "Tokens of text") level 6 stored
 * 0.89-0.92x the bytes of the writer's level 2, level 3 0.96-0.97x, level 12
 * 0.86-0.89x at two to three times the import's time; an erase pays level 6
 * too (levels 4 and 5 stored 0.94x and 0.92x). */
#define IG_SLIDE_BYTES_ZSTD_LEVEL 6

/* The level such a page is sealed at where the policy asks zstd_level (0:
 * zstd's default, 3): that level, or IG_SLIDE_BYTES_ZSTD_LEVEL if higher. */
static inline int ig_slide_bytes_level(int zstd_level)
{
    int level = zstd_level ? zstd_level : 3;
    return level < IG_SLIDE_BYTES_ZSTD_LEVEL ? IG_SLIDE_BYTES_ZSTD_LEVEL : level;
}

/* Whether a sliding-window body (after the body header) holds its bulk as one
 * int stream (kind 0); false for a body too short to say. */
bool ig_slide_bulk_is_stream(const uint8_t *p, size_t len);

/* Decode all rows into out as levels + values (out must be a levels values). */
int ig_slide_decode(const uint8_t *p, size_t len, size_t rows, const struct ig_leaf_info *li,
                    struct ig_values *out, struct ig_error *err);

/* Row k alone: its values appended to vec (n of them); *is_null for a NULL row.
 * Decodes from the nearest base, not from the page start. */
int ig_slide_row(const uint8_t *p, size_t len, size_t rows, size_t k, const struct ig_leaf_info *li,
                 struct ig_buf *vec, size_t *n, bool *is_null, struct ig_error *err);

/* The rows set in pick (rows bits), in order, appended to out (levels values,
 * as ig_slide_decode gives them): one walk from base to base, each row decoded
 * at most once, rows between bases skipped; a small page (a list of floats'
 * ~8 KiB) is decoded whole into `whole` (a scratch kept from call to call,
 * or NULL: one made and freed here) and its picked rows copied out. */
int ig_slide_picked(const uint8_t *p, size_t len, size_t rows, const uint8_t *pick, const struct ig_leaf_info *li,
                    struct ig_values *whole, struct ig_values *out, struct ig_error *err);

/* Erase: rebuild the body (after the body header) into out with every value
 * only deleted rows held zeroed or dropped (`deleted`: all deleted rows of the
 * page, old and new) of a leaf of this type (the bulk's stream is typed:
 * ig_slide_bulk_desc). Never longer than the input (-ENOSPC if a hostile page
 * would make it so). */
int ig_slide_erase(const uint8_t *p, size_t len, size_t rows, uint8_t type, const uint8_t *deleted,
                   struct ig_buf *out, struct ig_error *err);

/* 0 if no value only deleted rows held is still stored, else -EIO. */
int ig_slide_check_erased(const uint8_t *p, size_t len, size_t rows, uint8_t type, const uint8_t *deleted,
                          struct ig_error *err);

#endif
