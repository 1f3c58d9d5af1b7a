/* enc_internal.h - the private interface every scheme file implements.
 *
 * Each int scheme is a `struct int_scheme`: a table of functions (estimate,
 * encode, decode, get, erase, check) that dispatch.c dispatches to by the stream's
 * first byte. Bytes schemes (plain, dict) use `struct bytes_scheme`. Scheme
 * functions receive the whole stream, scheme byte included, and parse their own
 * header.
 *
 * Conventions shared by every scheme (docs/ENCODINGS.md has the byte layouts):
 *  - A nested stream is written as varint(length) followed by the stream, so its
 *    end is known exactly. Nested streams are decoded through the dispatchers
 *    below, which enforce the cascade rule (no scheme twice on one chain; that
 *    also bounds recursion on hostile input to IG_ENC_COUNT levels).
 *  - Decoders are lenient about bytes after a stream's natural end (`used`);
 *    check functions require them to be zero so erased data cannot hide there.
 *  - An erased ("killed") position decodes to 0 in every scheme. Overwriting
 *    schemes mark it with a pattern that carries no information (plain/bitpack:
 *    value 0, varint: the single byte 0x00, for/delta/dict: the reserved code 0
 *    or 0/1 markers); dropping schemes (rle) remove the element.
 *  - Erase is "decode, apply the kill set, re-encode canonically" into a fresh
 *    buffer; the public entry point copies it back only if it fits, so a failed
 *    erase leaves the stream untouched.
 */
#ifndef IG_FORMAT_ENC_INTERNAL_H
#define IG_FORMAT_ENC_INTERNAL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/bitpack.h"
#include "util/buf.h"
#include "util/u64map.h"
#include "util/endian.h"
#include "util/hash.h"
#include "util/error.h"
#include "util/varint.h"
#include "codec.h"

#define ENC_BIT(e) (1u << (e))
#define ENC_INT_ALL                                                                                \
    (ENC_BIT(IG_ENC_PLAIN) | ENC_BIT(IG_ENC_BITPACK) | ENC_BIT(IG_ENC_VARINT) |                    \
     ENC_BIT(IG_ENC_RLE) | ENC_BIT(IG_ENC_DICT) | ENC_BIT(IG_ENC_FOR) | ENC_BIT(IG_ENC_DELTA) |   \
     ENC_BIT(IG_ENC_SPLIT) | ENC_BIT(IG_ENC_DECIMAL) | ENC_BIT(IG_ENC_ALP) |                     \
     ENC_BIT(IG_ENC_EXPO))
#define ENC_BYTES_ALL                                                                              \
    (ENC_BIT(IG_ENC_PLAIN) | ENC_BIT(IG_ENC_DICT) | ENC_BIT(IG_ENC_HUFF) | ENC_BIT(IG_ENC_FSST))
#define ENC_COMPOSITE                                                                              \
    (ENC_BIT(IG_ENC_RLE) | ENC_BIT(IG_ENC_DICT) | ENC_BIT(IG_ENC_DECIMAL) | ENC_BIT(IG_ENC_ALP))
#define ENC_DEFAULT_DEPTH 3
#define ENC_DISTINCT_CAP  4096 /* auto considers dict only up to this many values */
#define ENC_VARINT_STRIDE 128  /* varint: one index entry per this many values */
#define ENC_DELTA_BLOCK   128  /* delta: values per block */
/* A bytes dictionary can expand hugely; refuse to materialise more than this
 * (the page body limit) from one stream rather than trust hostile codes. */
#define ENC_MAX_DECODED ((uint64_t)1 << 30)

/* ---- bitmaps (n bits, LSB-first bytes, NULL = empty) -------------------- */

static inline bool bm_get(const uint8_t *bm, size_t i)
{
    return bm && ((bm[i >> 3] >> (i & 7)) & 1);
}

/* The bytes of the longest of items offs[0..n] (0 for none). */
uint64_t enc_longest_item(const uint64_t *offs, size_t n);

/* Byte items [offs[i], offs[i+1]) of src (offs[0] = 0) without the killed
 * ones, back to back in dst, which may be src (items only move towards the
 * start); offs becomes the kept items' offsets (killed items length 0). */
void enc_compact_items(uint8_t *dst, const uint8_t *src, uint64_t *offs, size_t n,
                       const uint8_t *kill);
/* Where the items of coded offsets co[0..n] go when the killed ones are
 * removed and the live ones on the shorter side of the gaps move over them
 * (huffman, fsst): their new offsets into o2[0..n] (killed items empty); the
 * freed bytes lie before o2[0] and after o2[n]. */
void enc_erase_shift(size_t n, const uint64_t *co, const uint8_t *kill, uint64_t *o2);
static inline void bm_set(uint8_t *bm, size_t i)
{
    bm[i >> 3] |= (uint8_t)(1u << (i & 7));
}
static inline size_t bm_bytes(size_t n)
{
    return n / 8 + (n % 8 != 0);
}
size_t bm_count(const uint8_t *bm, size_t n); /* set bits among the first n */
bool bm_any(const uint8_t *bm, size_t n);
bool bm_intersects(const uint8_t *a, const uint8_t *b, size_t n);

/* ---- contexts ----------------------------------------------------------- */

/* Decode side: the schemes on the chain above (and including) the current one. */
struct enc_dctx {
    unsigned used;
    struct ig_error *err;
    const struct ig_fsst *fsst; /* the chunk's symbol table (fsst streams), or NULL */
    const struct ig_vdict *vdict; /* the chunk's value dictionary (vdict streams), or NULL */
};

/* Encode side: what the current level may choose. */
/* The scaled lanes of the stream being weighed for decimal, kept from the
 * estimate for the encode that follows it in the same enc_int_encode call
 * (decimal.c: the scaling is the scheme's main cost). m is malloc'd. */
struct enc_decimal_memo {
    const uint64_t *v;
    size_t n;
    unsigned width, p;
    bool ok;
    uint64_t *m;
};

struct enc_ectx {
    unsigned allowed; /* candidate schemes at this level */
    unsigned used;    /* schemes on the chain above, plus the current one once chosen */
    int depth_left;   /* levels left including this one (composites need >= 2) */
    bool no_drop;     /* the parent cannot tolerate dropped elements (no rle) */
    bool strict;      /* a forced scheme: fail with -EINVAL rather than fall back */
    bool zero_marks;  /* a 0 lane means "erased" (dict codes): for/delta store it as
                         their marker, which decodes to 0, instead of as a value */
    struct ig_census *census; /* the top-level stream's census workspace, or NULL (never a child's) */
    bool decimal_ok;  /* the top-level stream's lanes are float bits (the desc's width
                         tells which) a format-8 writer may store as decimal (never a child's) */
    struct enc_decimal_memo *decimal_memo; /* enc_int_encode's, or NULL (never a child's) */
    bool alp_ok;      /* the same for alp (a format-12 writer; never a child's) */
    bool expo_ok;     /* the same for expo (a format-20 writer; never a child's) */
    bool huff_slots_ok; /* huffman may take slots (a format-15 writer) */
    bool plain_lengths_ok; /* the top-level plain bytes stream takes the lengths form (a
                              format-16 writer, blocks zstd compresses; never a child's) */
    const uint32_t *item_ids; /* a bytes stream's item identities (ig_enc_opts), or NULL */
    /* the selector's census of those identities and each entry's first item,
     * for the bytes dict to encode from without hashing an item (dict.c);
     * NULL: it hashes the bytes */
    const struct ig_census *item_census;
    const size_t *item_first;
    const struct ig_fsst *fsst; /* the chunk's symbol table, or NULL: no fsst */
    struct ig_error *err;
};

/* Statistics of an int stream, one pass (stats.c). Sizes are exact for the leaf
 * schemes; SIZE_MAX means the scheme cannot represent the data. */
struct int_stats {
    size_t n;
    uint64_t umin, umax; /* unsigned order */
    uint64_t lo, hi;     /* min/max in the desc's order (signed or not) */
    uint64_t zor;        /* OR of the bitpack lanes (zigzag if signed) */
    size_t runs;         /* maximal runs of equal values */
    uint64_t max_run;
    size_t varint_bytes; /* sum of varint sizes of the lanes */
    size_t varint_last;  /* varint bytes before the last indexed value */
    size_t delta_bytes;  /* packed block bytes, SIZE_MAX if infeasible */
    size_t distinct;     /* capped at ENC_DISTINCT_CAP + 1; SIZE_MAX if not counted */
    bool fits_width;     /* every value fits desc->width bytes */
};

/* The statistics pass's running state (stats.c), which a vector prefix
 * (stats_x8.c) leaves exactly as the one-value-at-a-time loop would. */
struct enc_stats_run {
    uint64_t umin, umax, klo, khi, zor; /* klo, khi in order-key space */
    uint64_t prev, run, max_run, bor;   /* bor: the open delta block's OR of codes */
    size_t runs, vbytes, vlast, dbytes;
    bool delta_ok;
};
/* Values [0, return) through AVX-512 where the CPU has it (whole blocks of
 * ENC_DELTA_BLOCK, 0 when it cannot); r starts as stats.c sets it for v[0]. */
size_t enc_stats_x8(const uint64_t *v, size_t n, bool sg, size_t last_idx, struct enc_stats_run *r);

/* Every statistic but the distinct count (left SIZE_MAX: not counted). */
void enc_int_stats(const uint64_t *v, size_t n, const struct ig_int_desc *d, bool zero_marks,
                   struct int_stats *st);
/* The same one value at a time (what the tests hold the vector path to). */
void enc_int_stats_scalar(const uint64_t *v, size_t n, const struct ig_int_desc *d, bool zero_marks,
                          struct int_stats *st);
/* Distinct values of v when at most `limit` (capped at ENC_DISTINCT_CAP),
 * else ENC_DISTINCT_CAP + 1 (dict is out); SIZE_MAX without memory (census.c,
 * as the three below). */
size_t enc_count_distinct(const uint64_t *v, size_t n, size_t limit);
/* Whether v certainly holds more than `limit` distinct values (a lower bound
 * from a bitmap of hash bits; false: maybe not). */
bool enc_surely_over(const uint64_t *v, size_t n, size_t limit);
/* c's census when it was taken of exactly v[0..n) and holds every distinct
 * value, else NULL. */
const struct ig_census *enc_census_of(const struct enc_ectx *c, const uint64_t *v, size_t n);
/* The index in the census's vals of a value it holds. */
size_t enc_census_index(const struct ig_census *cen, uint64_t value);
/* Packed block bytes of delta over v where 0 lanes are markers (SIZE_MAX if a
 * step cannot be represented). */
size_t enc_delta_marked_bytes(const uint64_t *v, size_t n);

/* ---- the scheme tables -------------------------------------------------- */

struct int_scheme {
    enum ig_enc id;
    const char *name;
    bool composite;
    /* Holds any stream, and its encode needs no statistics: a forced encode
     * skips the statistics pass (bit-packed levels of every nested page). */
    bool holds_any;
    /* Estimated stream size, SIZE_MAX when the scheme cannot hold the data. */
    size_t (*estimate)(const struct int_stats *st, const struct ig_int_desc *d,
                       const struct enc_ectx *c);
    /* The same from the values themselves, for a scheme whose size the
     * statistics do not tell (decimal: float lanes scaled to integers); NULL
     * for every other. The selector asks it only where the writer offers the
     * scheme (enc_ectx.decimal_ok). */
    size_t (*estimate_values)(const uint64_t *v, size_t n, const struct ig_int_desc *d,
                              const struct enc_ectx *c);
    /* Append the stream (scheme byte first). st may be NULL. c->used includes id. */
    int (*encode)(const uint64_t *v, size_t n, const struct ig_int_desc *d,
                  const struct int_stats *st, struct enc_ectx *c, struct ig_buf *out);
    int (*decode)(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                  const uint8_t *absent, uint64_t *out, size_t *used, struct enc_dctx *c);
    int (*get)(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
               const uint8_t *absent, size_t i, uint64_t *out, struct enc_dctx *c);
    /* Write the erased stream to out (fresh); may_drop false forbids dropping. */
    int (*erase)(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                 const uint8_t *absent, const uint8_t *kill, bool may_drop, struct enc_dctx *c,
                 struct ig_buf *out);
    /* 0 when every position in `erased` holds no data; sets *used. */
    int (*check)(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                 const uint8_t *absent, const uint8_t *erased, size_t *used, struct enc_dctx *c);
};

extern const struct int_scheme enc_plain_int, enc_bitpack_int, enc_varint_int, enc_rle_int,
    enc_dict_int, enc_for_int, enc_delta_int, enc_split_int, enc_decimal_int, enc_alp_int,
    enc_expo_int;

/* The smallest estimate among the leaf schemes for v (select.c). */
size_t enc_int_leaf_estimate(const uint64_t *v, size_t n, const struct ig_int_desc *d,
                             const struct enc_ectx *c);

struct bytes_scheme {
    enum ig_enc id;
    const char *name;
    int (*encode)(const uint64_t *offs, const uint8_t *data, size_t n, struct enc_ectx *c,
                  struct ig_buf *out);
    int (*decode)(const uint8_t *p, size_t len, size_t n, const uint8_t *absent, uint64_t *offs_out,
                  struct ig_buf *data_out, size_t *used, struct enc_dctx *c);
    int (*get)(const uint8_t *p, size_t len, size_t n, const uint8_t *absent, size_t i,
               const uint8_t **val, size_t *vlen, struct enc_dctx *c);
    int (*erase)(const uint8_t *p, size_t len, size_t n, const uint8_t *absent, const uint8_t *kill,
                 bool may_drop, struct enc_dctx *c, struct ig_buf *out);
    int (*check)(const uint8_t *p, size_t len, size_t n, const uint8_t *absent,
                 const uint8_t *erased, size_t *used, struct enc_dctx *c);
};

extern const struct bytes_scheme enc_plain_bytes, enc_dict_bytes, enc_huff_bytes, enc_fsst_bytes,
    enc_vdict_bytes;

/* The value a sample takes from the k-th window of `stride` values: one at
 * a place within the window that a hash of k picks. Every stride-th value
 * would be the same kind of value throughout where rows repeat a pattern
 * whose period divides the stride (a table of three kinds of caption in
 * turn, sampled every 18th row, showed the trainers one kind); a hash keeps
 * the sample the same on every run. The caller keeps the result below n
 * (the last window may be short). */
static inline size_t enc_sample_at(size_t k, size_t stride)
{
    return k * stride + (stride > 1 ? (size_t)(ig_mix64(k) % stride) : 0);
}

/* *table, made zero first if it is not there yet (`words` uint32s); NULL
 * without memory. For ig_train_scratch's counters. */
uint32_t *enc_train_counters(uint32_t **table, size_t words);

/* A symbol table's bytes (the context's fsst entry): parsed and checked
 * (*used: its length), its exact size, and written. */
int ig_fsst_parse(const uint8_t *p, size_t len, struct ig_fsst **out, size_t *used,
                  struct ig_error *err);
size_t ig_fsst_size(const struct ig_fsst *t);
int ig_fsst_write(const struct ig_fsst *t, struct ig_buf *out);
/* Add the uses of each symbol by an fsst stream's codes to counts[256]. */
int enc_fsst_uses(const uint8_t *p, size_t len, size_t n, const struct ig_fsst *t, uint64_t *counts,
                  struct ig_error *err);

/* Exact huffman stream size of items offs[0..n] over data (offs may start > 0). */
size_t enc_huff_bytes_size(const uint64_t *offs, const uint8_t *data, size_t n, bool slots);

/* Plain bytes sizing, for the selector: the offsets form, and the lengths
 * form (longest: the longest item's bytes). */
size_t enc_plain_bytes_size(size_t n, uint64_t total);
size_t enc_plain_lengths_size(size_t n, uint64_t total, uint64_t longest);
/* Items offs[0..n] over data as a plain bytes stream in either form (lengths:
 * format 16's, for blocks zstd compresses; plain.c). */
int enc_plain_bytes_encode_as(const uint64_t *offs, const uint8_t *data, size_t n, bool lengths,
                              struct enc_ectx *c, struct ig_buf *out);

/* ---- dispatch (dispatch.c): nested streams are read through these -------- */

/* The int schemes by number (NULL where a number is no int scheme). */
extern const struct int_scheme *const enc_int_schemes[IG_ENC_COUNT];
/* Inline: the selector asks it of every candidate of every stream. */
static inline const struct int_scheme *enc_int_scheme(unsigned id)
{
    return id < IG_ENC_COUNT ? enc_int_schemes[id] : NULL;
}
const struct bytes_scheme *enc_bytes_scheme(unsigned id);

int enc_int_decode(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                   const uint8_t *absent, uint64_t *out, size_t *used, struct enc_dctx *c);
int enc_int_get(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                const uint8_t *absent, size_t i, uint64_t *out, struct enc_dctx *c);
int enc_int_erase(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                  const uint8_t *absent, const uint8_t *kill, bool may_drop, struct enc_dctx *c,
                  struct ig_buf *out);
int enc_int_check(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                  const uint8_t *absent, const uint8_t *erased, struct enc_dctx *c);
bool enc_int_drops(const uint8_t *p, size_t len); /* rle, or dict over rle codes */

int enc_bytes_decode(const uint8_t *p, size_t len, size_t n, const uint8_t *absent,
                     uint64_t *offs_out, struct ig_buf *data_out, size_t *used, struct enc_dctx *c);
int enc_bytes_get(const uint8_t *p, size_t len, size_t n, const uint8_t *absent, size_t i,
                  const uint8_t **val, size_t *vlen, struct enc_dctx *c);
int enc_bytes_erase(const uint8_t *p, size_t len, size_t n, const uint8_t *absent,
                    const uint8_t *kill, bool may_drop, struct enc_dctx *c, struct ig_buf *out);
int enc_bytes_check(const uint8_t *p, size_t len, size_t n, const uint8_t *absent,
                    const uint8_t *erased, struct enc_dctx *c);

/* ---- selection (select.c): streams are chosen and written through these --- */

/* Choose (per c) and append a stream. */
int enc_int_encode(const uint64_t *v, size_t n, const struct ig_int_desc *d, struct enc_ectx *c,
                   struct ig_buf *out);
/* Append varint(len) + a nested stream chosen automatically below `parent`
 * (excluding `exclude` and every scheme on the chain). flags: ENC_CHILD_*. */
#define ENC_CHILD_NO_DROP    1u /* the child must not be a dropping stream (rle) */
#define ENC_CHILD_ZERO_MARKS 2u /* 0 lanes are erased markers (dict codes) */
int enc_int_encode_child(const uint64_t *v, size_t n, const struct ig_int_desc *d,
                         const struct enc_ectx *parent, unsigned exclude, unsigned flags,
                         struct ig_buf *out);
/* The same with one scheme forced (-EINVAL when it cannot hold the values). */
int enc_int_encode_child_forced(const uint64_t *v, size_t n, const struct ig_int_desc *d,
                                const struct enc_ectx *parent, enum ig_enc scheme,
                                struct ig_buf *out);
/* An encode context for re-encoding the children of a composite found at the
 * position described by a decode context (erase). */
void enc_ectx_from_dctx(const struct enc_dctx *dc, struct enc_ectx *ec);
/* Choose (per c) and append a bytes stream: huffman, dict or plain. */
int enc_bytes_encode(const uint64_t *offs, const uint8_t *data, size_t n, struct enc_ectx *c,
                     struct ig_buf *out);

/* ---- helpers (common.c) ------------------------------------------------- */

/* Read varint(length) at *pos and return the nested stream after it. */
int enc_sub(const uint8_t *p, size_t len, size_t *pos, const uint8_t **sub, size_t *sublen,
            const char *scheme, const char *what, struct ig_error *err);
/* Read a varint header field at *pos. */
int enc_field(const uint8_t *p, size_t len, size_t *pos, uint64_t *v, const char *scheme,
              const char *what, struct ig_error *err);
/* Append varint(len) + bytes. */
int enc_put_sub(struct ig_buf *out, const uint8_t *p, size_t len);
/* -EIO unless p[from, len) are all zero. */
int enc_check_slack(const uint8_t *p, size_t from, size_t len, const char *scheme,
                    struct ig_error *err);
int enc_nomem(struct ig_error *err);
/* The [scheme] [w] header of a fixed-width stream (plain, split): w in {1, 2,
 * 4, 8} and room for n values of w bytes after it. */
int enc_width_header(const uint8_t *p, size_t len, size_t n, unsigned *w, const char *scheme,
                     struct ig_error *err);
/* The erase of the overwriting leaf schemes (plain, split, bitpack, varint):
 * decode every value, zero the killed ones, encode again with the same scheme
 * (its canonical form, so a width set by an erased value shrinks back). */
int enc_erase_zeroing(const struct int_scheme *s, const uint8_t *p, size_t len, size_t n,
                      const struct ig_int_desc *d, const uint8_t *absent, const uint8_t *kill,
                      struct enc_dctx *c, struct ig_buf *out);

/* Sort k lanes ascending in unsigned or signed order (LSD radix). */
int enc_sort_lanes(uint64_t *v, size_t k, bool is_signed);
/* Order-preserving key: compare as unsigned. */
static inline uint64_t enc_order_key(uint64_t v, bool is_signed)
{
    return is_signed ? v ^ (1ULL << 63) : v;
}
/* Smallest plain byte width (1, 2, 4, 8) holding the unsigned value v. */
static inline uint8_t enc_byte_width(uint64_t v)
{
    return v <= 0xFF ? 1 : v <= 0xFFFF ? 2 : v <= 0xFFFFFFFFu ? 4 : 8;
}
/* Does lane v fit `width` bytes (as a sign-extended or zero-extended value)? */
static inline bool enc_fits(uint64_t v, unsigned width, bool is_signed)
{
    if (width >= 8) return true;
    unsigned bits = 8 * width;
    if (!is_signed) return (v >> bits) == 0;
    uint64_t top = v >> (bits - 1); /* all zero or all one */
    return top == 0 || top == (~0ULL >> (bits - 1));
}
static inline uint64_t enc_sext(uint64_t v, unsigned width)
{
    if (width >= 8) return v;
    uint64_t sign = 1ULL << (8 * width - 1);
    v &= (sign << 1) - 1;
    return (v ^ sign) - sign; /* two's complement sign extension without signed shifts */
}

/* Open-addressed sets of lanes (distinct counting and dictionary building):
 * util/u64map.h's ig_u64map. */

#endif
