/* page.h - one page: the values of consecutive rows of one leaf column.
 *
 * Encoding builds the page body (layout.h: flags, validity bitmap, values stream),
 * lets the codecs pick the values encoding, then compresses the body with zstd
 * when that pays (or as the column's policy forces). It also renders the rows to
 * measure the page's text length, which the footer keeps so that file sizes in
 * the mount are known without decoding anything.
 *
 * Decoding takes the stored bytes (already checksum-verified by the caller),
 * decompresses into scratch, and fills an ig_values. */
#ifndef IG_FORMAT_PAGE_H
#define IG_FORMAT_PAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "format/enc/codec.h"
#include "format/model/values.h"

struct ig_error;
struct ig_pagerec;

/* What a page's decoder needs to know about its column (a leaf). */
struct ig_leaf_info {
    uint8_t type;        /* enum ig_type (logical) */
    uint8_t max_rep, max_def;
    uint8_t quantize;    /* enum ig_quantize */
    bool levels;         /* nested leaf: level streams instead of a validity bitmap */
    uint32_t per_value;  /* lanes per defined entry (vector dimension), 1 otherwise */
    bool slide_ok;       /* a top-level list of integers: sliding-window pages allowed */
    bool item_nulls;     /* its items may be NULL (list<T?>, format 18): sliding-window
                            pages only where none is (ig_slide_page_fits) */
    bool joint_levels;   /* its level streams may be one joint stream (format 19,
                            IG_BODY_JOINT): writers of 19 say so, and readers of a
                            part of 19 or later, so an erase keeps an older part's */
    struct ig_logical lt; /* what the values mean: decoded values carry it (render.h) */
};

struct ig_page_policy {
    uint8_t type;        /* enum ig_type */
    uint8_t encoding;    /* forced scheme or 0 */
    uint8_t compression; /* enum ig_compression_policy */
    int zstd_level;
    struct ig_leaf_info leaf;
    /* strings left to the writer: keep zstd without sizing huffman against it
     * (set by the page's block trials once zstd keeps winning, page_blocks.c) */
    bool zstd_settled;
    /* strings: fsst lost its trials in this page's blocks: not weighed (page_blocks.c) */
    bool fsst_settled;
    /* float values may be stored as decimals (IG_ENC_DECIMAL): writers of
     * format 8 and later say so; an erase never does, so an older part keeps
     * only the schemes its version knows */
    bool decimal;
    /* the same for alp (format 12 and later) */
    bool alp;
    /* and for expo, float32 lanes (format 20 and later) */
    bool expo;
    /* and for huffman's slots (format 15 and later) */
    bool huff_slots;
    /* and for plain bytes in the lengths form (format 16 and later), taken
     * where the block is to be compressed */
    bool plain_lengths;
    /* flat strings and binary: each value's identity (ig_enc_opts.item_ids),
     * indexed like the values, or NULL */
    const uint32_t *item_ids;
    /* strings and binary: the chunk's FSST symbol table, against which a
     * block may code its values (fsst) where that is smaller, or NULL (a
     * writer of format 12 trains one per chunk; an erase re-encoding a block
     * passes the chunk's own) */
    const struct ig_fsst *fsst;
    /* strings and binary: the chunk's zstd dictionary (format 13), against
     * which a block is compressed (compression 2) where that is smaller than
     * zstd alone, or NULL */
    struct ig_zdict *zdict;
    /* the chunk's blocks would be whole-block zstd without the dictionary (the
     * writer's probe): a row read decompresses a whole block either way, so
     * blocks framed against it fill a grain as others do, not
     * IG_ZDICT_FRAME_PLAIN (page_blocks.c) */
    bool zdict_grain;
    /* strings and binary (format 14): each value's code into the chunk's
     * value dictionary of vdict_k entries, indexed like the values, when
     * the encoding is IG_ENC_VDICT (the writer's; an erase never re-encodes
     * into it) */
    const uint32_t *vcodes;
    uint32_t vdict_k;
};

/* One block of a page being written: where it lies in the page's stored bytes
 * and what its record says (layout.h, "block record"). */
struct ig_block_built {
    uint32_t offset, stored, capacity, body_size;
    uint32_t first_row, row_count, entry_count, value_count;
    uint8_t encoding, compression, flags;
    uint64_t checksum;
};

struct ig_page_built {
    struct ig_buf stored; /* bytes to write */
    uint32_t body_size;
    uint8_t encoding, compression, flags;
    uint64_t checksum, text_len;
    /* a nested leaf's page (levels): the JSON text length of all its values,
     * summed from each block's census, when every block had one (else
     * values_json_known is false): what the writer's text count would
     * otherwise measure value by value (ig_assemble_measure_known) */
    uint64_t values_json_len;
    bool values_json_known;
    uint32_t entry_count, value_count; /* nested leaves: level entries and value slots */
    bool fsst_weighed; /* a flat block of strings weighed fsst (and kept it or not) */
    bool slide_bytes;  /* a sliding-window page whose bulk went in plain bytes (zstd stores
                          it smaller so: ig_slide_encode_bytes) */
    /* ig_page_encode_blocks: the blocks, back to back in `stored` */
    struct ig_block_built *blocks;
    uint32_t nblocks, blocks_cap;
};

/* Scratch buffers reused across pages (one per writer / reader thread). */
struct ig_page_scratch {
    struct ig_buf body, text, tmp;
    uint64_t *offs;
    size_t offs_cap;
    void *zstd_dctx; /* ZSTD_DCtx, made on first use: one per call costs page faults */
    struct ig_census census; /* a page's distinct values, for its encoder and its text length */
    struct ig_buf alt;       /* a block's values stream in another scheme, weighed (page_encode.c) */
    struct ig_buf level_lanes; /* a bit-packed level stream unpacked (page_decode.c): kept, not
                                * allocated a block at a time */
    struct ig_zdict_window zwin; /* blocks against a chunk's zstd dictionary decode here (codec.h) */
    struct ig_slide_scratch *slide; /* sliding-window pages are built here (slide.h), made on first use */
    struct ig_values slide_rows;    /* a small sliding-window page decoded whole for picked rows (slide.h) */
    /* where ig_page_body last left a body (in body or zwin, or the stored
     * bytes themselves): valid until the scratch or those bytes are next used */
    const uint8_t *last_body;
};

void ig_page_scratch_free(struct ig_page_scratch *s);
void ig_page_built_free(struct ig_page_built *b);

/* Blocks fitted to the disk's pages. A row read (rows/ID, a take) reads one
 * block of each column, and the kernel reads whole 4 KiB pages: a block that
 * straddles a boundary costs two. With a fit, the page's blocks are sized by
 * their stored bytes instead of by the cuts (whose first block only seeds the
 * guess) so that each lies inside one grain (unless one row alone is bigger),
 * with zeros up to the boundary where too little is left for another block.
 * `at` is where the page will start relative to a grain boundary (the writer
 * starts such a column's chunk on one). Costs a few per cent of size in zeros
 * and one or two extra encodes per block; readers need nothing new (a block's
 * room runs to the next block, and unused room is zero). */
#define IG_DISK_PAGE 4096 /* the kernel's page: what a cold read costs at least */
/* The grain the writer fits blocks to: a disk page. (Half a page would also
 * never straddle one, and erase rewrites half as much per block, but files grow
 * 3-10 %: per-block code tables, and rows of a few hundred bytes fill 2 KiB
 * badly.) */
#define IG_FIT_GRAIN 4096
struct ig_block_fit {
    uint32_t grain; /* 0: no fitting */
    uint64_t at;
    /* rows after the page's count that its last block may take to fill its
     * room; the page then ends after them (its last block's end says where)
     * and the writer starts the next page there. 0: none, the page ends at
     * count. */
    size_t extend;
    /* the guess of a block's stored size from its plain bytes w: overhead +
     * ratio * w (page_blocks.c, encode_fitted). ratio: 0 at first; overhead: what a
     * block costs whatever its size (frame, code tables, slack), learned
     * from blocks given less than a grain, 0 until one is seen */
    double ratio, overhead;
    /* strings that zstd compresses: fitted blocks running in which their own
     * bytes came out smaller than the dictionary the statistics chose, or the
     * other way round, and fitted blocks so far (page_blocks.c, weigh_layouts);
     * carried from page to page of a column, like the ratio */
    uint32_t plain_wins, dict_wins, blocks;
    /* the page's block trials (page_blocks.c, struct block_trials) where strings
     * settled between zstd and huffman, carried the same way: a page of a few
     * fitted blocks never settled on its own */
    uint32_t zstd_wins, huff_wins, trial_blocks;
    uint32_t dict_losses; /* blocks running the chunk's zstd dictionary did not win */
    uint8_t item_enc; /* the per-item scheme that won those (huffman or fsst) */
    /* how far below its room a block's first guess aims, as a share of a
     * grain (page_blocks.c, fit_margin): learned from the guesses that
     * missed, carried like the ratio; 0 (the whole room) at first */
    double margin;
    uint64_t encodes; /* blocks encoded, second and later tries included (tests read it) */
    /* numbers left to the writer (every block, fitted or not): the page's
     * block trials where they settled on one leaf scheme (plain, expo) and
     * on no zstd, carried from page to page of a leaf (page_blocks.c, struct
     * block_trials): a page of vectors holds only a dozen blocks. The writer
     * zeroes them when it moves to another leaf. */
    uint32_t leaf_runs, zstd_misses, num_blocks;
    uint8_t settled_enc; /* the scheme settled on */
    uint64_t settled; /* blocks stored without a full trial (tests read it) */
};

/* A page of blocks (format 4): rows [first, first + count) of v cut into blocks
 * at the row offsets cuts[0] = 0 < cuts[1] < ... < cuts[ncuts] = count (the
 * writer cuts every leaf of a nested column alike, so block j of each covers the
 * same rows), or, with a fit (fit->grain), sized as they are encoded, the last
 * one taking up to fit->extend rows past count (out's last block then says where
 * the page ends); each block is encoded by ig_page_encode on its own, gets its own
 * zstd decision and checksum (trials that keep losing within the page are
 * skipped: page_blocks.c, struct block_trials), and, when compressed, a little zeroed slack so that
 * recompressing it after an erase nearly always fits where it is. out gets the
 * blocks back to back, their records, and the page's totals (text_len summed for
 * flat leaves; checksum left for the writer: the hash of the block records). */
int ig_page_encode_blocks(const struct ig_page_policy *pol, struct ig_values *v, size_t first,
                          size_t count, const size_t *cuts, size_t ncuts,
                          struct ig_block_fit *fit, struct ig_page_scratch *s,
                          struct ig_page_built *out, struct ig_error *err);
/* The zeroed slack ig_page_encode_blocks leaves after the block `unit` (its
 * extent is unit->stored.len more): none for an uncompressed block, which an
 * erase never grows. */
size_t ig_block_slack(const struct ig_page_built *unit);

/* Encode rows [first, first + count) of v as one block (for nested leaves: rows, whose
 * entries and values follow from v's row index). text_len is computed for flat
 * leaves only; the writer renders nested rows itself. Quantised leaves' values
 * are rounded in v itself first (so what is rendered is what will be read). */
/* The text length of flat values [first, first + count) as the text view
 * renders them (newlines included): what a page's text length counts. */
int ig_page_text_len(const struct ig_values *v, size_t first, size_t count, struct ig_page_scratch *s,
                     uint64_t *len);

int ig_page_encode(const struct ig_page_policy *pol, struct ig_values *v, size_t first,
                   size_t count, struct ig_page_scratch *s, struct ig_page_built *out,
                   struct ig_error *err);

/* Decode a page whose stored bytes are `stored` (rec->stored long). `absent`
 * marks rows dropped from drop-on-erase streams (erase level 2), NULL otherwise. */
int ig_page_decode(const uint8_t *stored, const struct ig_pagerec *rec, uint8_t type,
                   const uint8_t *absent, struct ig_page_scratch *s, struct ig_values *out,
                   struct ig_error *err);
/* The same for any leaf (nested, vector, quantised). */
int ig_page_decode_leaf(const uint8_t *stored, const struct ig_pagerec *rec,
                        const struct ig_leaf_info *li, const uint8_t *absent,
                        struct ig_page_scratch *s, struct ig_values *out, struct ig_error *err);

/* A nested leaf's block for a reader that wants its first `keep` rows (a row
 * read wants up to its own): where its levels are one joint stream, decoding
 * stops after them, and the levels are indexed that far either way; out->rows
 * tells how many rows it holds (keep, or the block's where it holds no more),
 * with their entries and values. A flat leaf's block, or keep past the rows,
 * decodes whole as ig_page_decode_leaf. */
int ig_page_decode_leaf_rows(const uint8_t *stored, const struct ig_pagerec *rec,
                             const struct ig_leaf_info *li, size_t keep, struct ig_page_scratch *s,
                             struct ig_values *out, struct ig_error *err);

/* The values in each row of a sliding-window page (lens[0..row_count); 0 for a
 * NULL or empty list) from its row metadata, no value decoded. -ENOTSUP,
 * without a message, for any other page. */
int ig_page_row_lengths(const uint8_t *stored, const struct ig_pagerec *rec, const struct ig_leaf_info *li,
                        struct ig_page_scratch *s, uint64_t *lens, struct ig_error *err);

/* Only the rows set in `pick`, of a flat string or binary leaf, into out (in
 * row order, NULLs as NULL): each value read alone (ig_bytes_get), so an erase
 * that needs two values of a huffman block decodes two items, not the block.
 * Of a flat leaf of fixed-width values likewise where `lanes` says so (each
 * read alone, ig_ints_get: a row read of a `dict` block reads one code and one
 * entry, not the block's thousands). Of a sliding-window page likewise (levels
 * values): each row decoded from the last base before it. -ENOTSUP, without a
 * message, for any other leaf: decode the block instead. */
int ig_page_decode_picked(const uint8_t *stored, const struct ig_pagerec *rec,
                          const struct ig_leaf_info *li, const uint8_t *absent, const uint8_t *pick,
                          bool lanes, struct ig_page_scratch *s, struct ig_values *out,
                          struct ig_error *err);

/* Erase rows (page-relative bits in `kill`) from a page at compliance level 2:
 * their validity bits are cleared and their values overwritten or dropped by the
 * values stream's own rule (codec.h), so the body never grows; a zstd page is
 * decompressed, erased and recompressed. When a stream cannot erase in place it
 * is re-encoded (zeros in every erased slot, no element-dropping scheme). `absent`
 * marks rows erased earlier. out->stored gets the new stored bytes (the caller
 * relocates the page if they exceed its extent); out->text_len is not set.
 * `body`: the stored bytes' body when the caller decoded it already (a load
 * of the block), else NULL: decompressed here. */
int ig_page_erase(const uint8_t *stored, const uint8_t *body, const struct ig_pagerec *rec, uint8_t type,
                  const uint8_t *absent, const uint8_t *kill, int zstd_level,
                  struct ig_page_scratch *s, struct ig_page_built *out, struct ig_error *err);
/* A nested leaf's page: rebuilt with each erased row (`kill`) reduced to one
 * undefined entry (or, when the leaf can never be undefined, its values zeroed).
 * Sliding-window pages instead zero every value that only deleted rows (`kill`
 * and the earlier `deleted`, may be NULL) held, in place and never growing. */
int ig_page_erase_leaf(const uint8_t *stored, const struct ig_pagerec *rec,
                       const struct ig_leaf_info *li, const uint8_t *kill, const uint8_t *deleted,
                       int zstd_level, struct ig_page_scratch *s, struct ig_page_built *out,
                       struct ig_error *err);
int ig_page_check_erased_leaf(const uint8_t *stored, const struct ig_pagerec *rec,
                              const struct ig_leaf_info *li, const uint8_t *erased,
                              struct ig_page_scratch *s, struct ig_error *err);

/* A block compressed against its chunk's dictionary (compression 2) whose
 * chunk an erase gave a new one (rec->cx->zdict_next): *stale when its body
 * reads otherwise under the new one (a frame that referred to bytes zeroed).
 * Nothing for any other block. */
int ig_page_dict_stale(const uint8_t *stored, const struct ig_pagerec *rec, struct ig_page_scratch *s,
                       bool *stale, struct ig_error *err);
/* The stale block's body, as ig_page_dict_stale read it (kept in s), compressed
 * again as it was (against rec->cx->zdict_next for compression 2, or zstd
 * alone where only that fits its room): what an erase writes for it. Call
 * right after ig_page_dict_stale said *stale, with the same s. */
int ig_page_recompress_stale(const struct ig_pagerec *rec, struct ig_page_scratch *s,
                             struct ig_page_built *out, struct ig_error *err);

/* Check that every row in `erased` holds no data (level-2 proof for verify). */
int ig_page_check_erased(const uint8_t *stored, const struct ig_pagerec *rec, uint8_t type,
                         const uint8_t *erased, struct ig_page_scratch *s, struct ig_error *err);

/* Does the page store its values as they would be served, plain little-endian
 * values of `width` bytes, per_row of them a row (a vector's dimension, else
 * 1): uncompressed, no validity bitmap, no levels (so no NULL vector), a
 * plain stream of exactly that width? Then *offset is where they start in the
 * stored bytes and a reader may use them in place. Looks at the first
 * IG_BODY_HDR + 2 stored bytes only. */
bool ig_page_plain_values(const uint8_t *stored, const struct ig_pagerec *rec, unsigned width,
                          unsigned per_row, size_t *offset);

/* The uses a block's values stream makes of its chunk's symbol table
 * (rec->cx; codec.h, ig_bytes_symbol_uses) added to counts[256]: nothing
 * for a block that makes none. The writer counts the blocks it keeps, an
 * erase the blocks it rewrites (before and after), verify every block. */
/* The uses a vdict block (rec; format 14) makes of its chunk's value
 * dictionary d added to (sign > 0) or taken off (sign < 0) counts[0..k]
 * (codec.h, ig_vdict_uses): nothing for any other block. */
int ig_page_value_uses(const uint8_t *stored, const struct ig_pagerec *rec, const struct ig_leaf_info *li,
                       struct ig_page_scratch *s, const struct ig_vdict *d, uint64_t *counts,
                       int sign, struct ig_error *err);
int ig_page_symbol_uses(const uint8_t *stored, const struct ig_pagerec *rec, const struct ig_leaf_info *li,
                        struct ig_page_scratch *s, uint64_t *counts, struct ig_error *err);

/* Decompress (if needed) into s->body and return the body bytes (also left
 * in s->last_body). */
int ig_page_body(const uint8_t *stored, const struct ig_pagerec *rec, struct ig_page_scratch *s,
                 const uint8_t **body, struct ig_error *err);

#endif
