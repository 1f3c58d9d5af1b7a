/* codec.h - the encoding schemes behind one interface.
 *
 * A page's values are handed to the codecs as one of two kinds of stream:
 *
 *   int stream   - every fixed-width value (bool, int8..uint64, float32/64 by bit
 *                  pattern, dictionary codes, levels, offsets) as a uint64 "lane".
 *                  Signed integers are sign-extended two's complement; floats are
 *                  their IEEE bit pattern zero-extended.
 *   bytes stream - variable-length values (string, binary): n items given as
 *                  offsets[n+1] into a data buffer.
 *
 * Every encoded stream starts with one byte naming its scheme (enum ig_enc), so
 * streams nest: a dictionary's codes and an RLE's run lengths are themselves int
 * streams with their own scheme byte (a cascade, depth bounded by opts->max_depth).
 * The number of items n is NOT stored in the stream: the page knows it.
 *
 * Deletion alignment ("absent" bitmaps): erasing a row from an RLE stream drops the
 * element instead of overwriting it, so the stream then holds fewer elements than n.
 * Every decode/get/erase call takes `absent`, a bitmap of n bits (LSB-first bytes,
 * NULL = none) marking positions whose element is no longer stored; decoders place
 * stored elements at the other positions and return 0 / empty at absent ones.
 * Schemes that overwrite in place ignore it.
 *
 * Hostile input: decoders get arbitrary bytes (fuzzed). They validate every length,
 * count and bit width against `len` and n and return -EIO (never read out of bounds,
 * never allocate more than O(n + len)).
 */
#ifndef IG_FORMAT_ENC_CODEC_H
#define IG_FORMAT_ENC_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

struct ig_error;

enum ig_enc {
    IG_ENC_AUTO = 0,    /* choose by estimated size (encode only) */
    IG_ENC_PLAIN = 1,   /* fixed width LE lanes; bytes: bit-packed offset index + data */
    IG_ENC_BITPACK = 2, /* minimal fixed bit width (zigzag for signed) */
    IG_ENC_VARINT = 3,  /* LEB128 of zigzag values, with a sparse position index */
    IG_ENC_RLE = 4,     /* runs: run values + run lengths as nested int streams */
    IG_ENC_DICT = 5,    /* dictionary (entry 0 = mask entry) + codes as nested int stream */
    IG_ENC_FOR = 6,     /* frame of reference: min base + bit-packed offsets */
    IG_ENC_DELTA = 7,   /* blocks: absolute base + zigzag deltas bit-packed per block */
    /* 8 is taken by sliding-window pages (IG_PAGE_ENC_SLIDE, a page-level scheme) */
    IG_ENC_SPLIT = 9,   /* byte-stream split: byte k of every lane in plane k (only when forced) */
    IG_ENC_HUFF = 10,   /* bytes: per-item Huffman codes under one code, each item addressable and
                           erasable while compressed (never chosen by auto: the page decides) */
    IG_ENC_DECIMAL = 11, /* float lanes that are decimals: m / 10^p, the integers m a nested
                            int stream (format version 8; auto only where the writer offers it) */
    IG_ENC_FSST = 12,    /* bytes: each item coded alone against its chunk's FSST symbol table
                            (struct ig_chunk_ctx; format version 12) */
    IG_ENC_ALP = 13,     /* float lanes as integers d * 10^f / 10^e plus exceptions (ALP; format
                            version 12; auto only where the writer offers it) */
    IG_ENC_VDICT = 14,   /* bytes: only codes into its chunk's value dictionary (struct ig_chunk_ctx;
                            format version 14; never chosen by auto: the writer decides per chunk) */
    IG_ENC_EXPO = 15,    /* float32 lanes: exponents under one Huffman code, sign and mantissa as
                            they are (format version 20; auto only where the writer offers it) */
    IG_ENC_COUNT = 16
};

/* Is e a stream scheme (IG_ENC_AUTO included)? Every value below IG_ENC_COUNT
 * but the one sliding-window pages hold. */
static inline bool ig_enc_is_scheme(int e)
{
    return e >= 0 && e < IG_ENC_COUNT && e != 8;
}

const char *ig_enc_name(enum ig_enc e);  /* "plain", "bitpack", ... ; "?" if unknown */
int ig_enc_from_name(const char *name);  /* enum value, or -1 */
/* Names of page encodings (a page record's encoding byte, a schema's encoding=):
 * the schemes above plus "slide" (IG_PAGE_ENC_SLIDE, sliding-window pages). */
const char *ig_page_enc_name(unsigned e);
int ig_page_enc_from_name(const char *name); /* -1 if unknown */

struct ig_int_desc {
    uint8_t width;  /* bytes per value in plain form: 1, 2, 4 or 8 */
    bool is_signed; /* lanes hold sign-extended values: zigzag before packing */
};

/* A census of an int stream: its distinct values counted once, in one hashing
 * pass, for everyone who needs them. The encoder takes it where it weighs a
 * dictionary (into the workspace opts->census), holding as many distinct
 * values as a dictionary could still win with: the same pass decides the
 * choice and, when dict is chosen, gives it its values and codes (no second
 * hashing). The page writer then sums the page's text length over the
 * distinct values instead of every value. With more than `cap` distinct
 * values (the encoder's cap is at most ENC_DISTINCT_CAP, the most dict is
 * weighed at; a forced dict takes every value), `over` is set and nothing
 * else is filled. What it does not do: it is
 * not a dictionary encoding (dict.c sorts and renumbers), and it says nothing
 * of a stream it was not taken of (check lanes and n). */
struct ig_census {
    const uint64_t *lanes; /* the stream counted: v and n as given */
    size_t n;
    bool over;             /* more than `cap` distinct values: nothing below is filled */
    size_t cap;
    size_t k;              /* distinct values */
    uint64_t *vals;        /* the k values, in order of first appearance */
    uint32_t *counts;      /* how many times each appears */
    uint32_t *codes;       /* n entries: the value's index in vals, plus 1 */
    /* the hash map from value to index + 1 and the buffers' capacities
     * (reused by the next census); the map uses its first map_live slots,
     * doubled as values come, so that a few distinct values stay in cache */
    uint64_t *map_keys;
    uint32_t *map_vals;
    size_t map_cap, map_live, vals_cap, codes_cap;
};

/* Take the census of v[0..n) holding up to cap distinct values. -ENOMEM (with
 * the census marked over, so that nothing relies on it) without memory. */
int ig_census_take(struct ig_census *c, const uint64_t *v, size_t n, size_t cap);
void ig_census_free(struct ig_census *c);

struct ig_enc_opts {
    enum ig_enc forced;     /* IG_ENC_AUTO, or the top-level scheme to use */
    unsigned allowed;       /* bit mask (1u << enc) of schemes auto may pick; 0 = all */
    int max_depth;          /* cascade depth budget, 0 = default (3) */
    bool no_drop;           /* no scheme anywhere in the cascade may drop elements on
                               erase (no rle, no dict over rle codes): used when a page
                               is re-encoded after erasure, so it does not depend on
                               which rows are absent */
    struct ig_census *census; /* a workspace, or NULL: where auto weighs a dictionary for
                                 the stream (not a nested one) it takes the stream's census
                                 into it (lanes = v); else it sets lanes to NULL */
    const uint32_t *item_ids; /* bytes streams: each item's identity, equal exactly where the
                                 items' bytes are (a chunk's distinct values, numbered), or
                                 NULL: auto then counts distinct items from these instead of
                                 hashing their bytes (the same choice, the same bytes) */
    bool decimal;           /* the lanes are float bits (width 8: float64, 4: float32) and
                               auto may weigh the decimal scheme (a writer of format 8 or
                               later; never an erase) */
    bool alp;               /* the same for the alp scheme (a writer of format 12 or later) */
    bool expo;              /* the same for the expo scheme, float32 lanes (a writer of
                               format 20 or later) */
    bool huff_slots;        /* huffman may store items of one coded size in slots, without
                               offsets (a writer of format 15 or later; never an erase) */
    bool plain_lengths;     /* a plain bytes stream stores its items' lengths, not running
                               offsets: smaller under zstd, get(i) sums i lengths (a writer
                               of format 16 or later, for blocks it compresses) */
    const struct ig_fsst *fsst; /* bytes streams: the chunk's symbol table, which auto
                                   may code the items against (fsst) where allowed, and
                                   a forced fsst must; NULL: no fsst */
};

/* ---- int streams ------------------------------------------------------- */

/* The bitpack stream of n byte values (desc {1, unsigned}, the stream a forced
 * bitpack of them makes) appended to out, straight from the bytes: no lanes,
 * no statistics (level streams). */
int ig_ints_encode_bitpack_u8(const uint8_t *v, size_t n, struct ig_buf *out, struct ig_error *err);

/* Append the encoded stream for v[0..n) to out. With forced != AUTO uses that
 * scheme when it can represent the values (else -EINVAL with a message);
 * otherwise picks the smallest candidate (estimated from statistics of the data,
 * never worse than plain). */
int ig_ints_encode(const uint64_t *v, size_t n, const struct ig_int_desc *d,
                   const struct ig_enc_opts *o, struct ig_buf *out, struct ig_error *err);

/* Decode all n lanes into out[0..n). */
int ig_ints_decode(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                   const uint8_t *absent, uint64_t *out, struct ig_error *err);

/* Decode lane i only; O(1) for plain/bitpack/for/dict-on-those, bounded work otherwise. */
int ig_ints_get(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                const uint8_t *absent, size_t i, uint64_t *out, struct ig_error *err);

/* Erase in place the positions set in `kill` (n bits; positions already in `absent`
 * are never in kill). Never grows: *new_len <= len, and bytes [*new_len, len) are
 * zeroed by the codec. After success the caller treats absent|kill as the new
 * absent set ONLY for positions the scheme dropped; ig_ints_erase_drops() tells
 * whether this stream drops (RLE at the top or under a dict) or overwrites.
 * Returns -ENOSPC when the scheme cannot erase without growing (the caller then
 * re-encodes the page). The per-scheme rule is in docs/FORMAT.md ("Erasure"). */
int ig_ints_erase(uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                  const uint8_t *absent, const uint8_t *kill, size_t *new_len,
                  struct ig_error *err);
bool ig_ints_erase_drops(const uint8_t *p, size_t len);
/* Encode values of which positions `gone` (n bits) were erased (their values
 * already zero) so that ig_ints_check_erased passes: the chosen scheme applies
 * its own erase rule to them. No scheme that drops elements is used. */
int ig_ints_encode_erased(const uint64_t *v, size_t n, const struct ig_int_desc *d,
                          const uint8_t *gone, struct ig_buf *out, struct ig_error *err);

/* 0 if every position in `erased` (n bits) holds no data by the scheme's rule
 * (e.g. plain: zero; dict: mask code and no unreferenced live dictionary entry;
 * rle: element dropped), else -EIO naming the first offending position. */
int ig_ints_check_erased(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                         const uint8_t *absent, const uint8_t *erased, struct ig_error *err);

/* ---- bytes streams ----------------------------------------------------- */

int ig_bytes_encode(const uint64_t *offs, const uint8_t *data, size_t n,
                    const struct ig_enc_opts *o, struct ig_buf *out, struct ig_error *err);
/* The exact size of the huffman stream of n items (offs, data), in slots
 * where they are smaller and allowed (ig_enc_opts.huff_slots): what a page
 * weighs against its zstd-compressed alternative. */
size_t ig_bytes_huffman_size(const uint64_t *offs, const uint8_t *data, size_t n, bool slots);

/* Decode all n items: offs_out[0..n] (offs_out[0] = 0) and their bytes appended to
 * data_out (reset by the callee). */
int ig_bytes_decode(const uint8_t *p, size_t len, size_t n, const uint8_t *absent,
                    uint64_t *offs_out, struct ig_buf *data_out, struct ig_error *err);

/* Item i without decoding the others: *val points into p (plain and dict), valid
 * while p is, or for huffman into this thread's buffer, valid until its next
 * ig_bytes_get. This is the per-item offset index at work. */
int ig_bytes_get(const uint8_t *p, size_t len, size_t n, const uint8_t *absent, size_t i,
                 const uint8_t **val, size_t *vlen, struct ig_error *err);

int ig_bytes_erase(uint8_t *p, size_t len, size_t n, const uint8_t *absent,
                   const uint8_t *kill, size_t *new_len, struct ig_error *err);
bool ig_bytes_erase_drops(const uint8_t *p, size_t len);
/* The same for bytes streams (gone items already empty). */
int ig_bytes_encode_erased(const uint64_t *offs, const uint8_t *data, size_t n, const uint8_t *gone,
                           struct ig_buf *out, struct ig_error *err);
int ig_bytes_check_erased(const uint8_t *p, size_t len, size_t n, const uint8_t *absent,
                          const uint8_t *erased, struct ig_error *err);

/* ---- chunk contexts (format version 12) ---------------------------------
 *
 * What every block of a column chunk may share, stored once in the chunk
 * (docs/FORMAT.md, "Chunk contexts"): so far an FSST symbol table, against
 * which fsst streams code their items. Streams that need it are read,
 * erased and checked through the _cx entry points below; the others take
 * cx NULL. An erase changes the table only through its use counts: the page
 * layer takes an erased stream's uses off them (ig_bytes_symbol_uses before
 * and after) and erases the symbols nothing uses any more (ig_fsst_prune). */
struct ig_fsst;
struct ig_zdict;
struct ig_chunk_ctx {
    struct ig_fsst *fsst;   /* NULL: none */
    struct ig_zdict *zdict; /* kind 2 (format 13): the blocks' zstd dictionary, or NULL */
    /* an erase: the dictionary blocks it rewrites are compressed against (the
     * chunk's with the segments no live value holds zeroed); NULL: zdict */
    struct ig_zdict *zdict_next;
    struct ig_vdict *vdict; /* kind 3 (format 14): the chunk's value dictionary, or NULL */
    /* the writer's, not stored: zdict's blocks fill a grain (ig_page_policy) */
    bool zdict_grain;
    /* parse's: the bytes of its entries, unpacked (about what it holds) */
    size_t bytes;
};

/* ---- chunk value dictionaries (context kind 3, format 14; vdict.c) ----------
 *
 * The chunk's distinct string or binary values, each with its use count (how
 * many live items of the chunk's blocks name it), which vdict streams hold
 * only codes into: code 0 is the empty item, code c (1..k) entry c. An entry
 * no live item names is erased (length 0, count 0): its bytes are gone. */
struct ig_vdict;
/* A dictionary of the k entries offs[0..k] over data, counts 0. -ENOMEM, -E2BIG. */
int ig_vdict_new(const uint64_t *offs, const uint8_t *data, uint32_t k, struct ig_vdict **out);
void ig_vdict_free(struct ig_vdict *v);
struct ig_vdict *ig_vdict_copy(const struct ig_vdict *v); /* NULL without memory */
uint32_t ig_vdict_k(const struct ig_vdict *v);
uint64_t ig_vdict_bytes(const struct ig_vdict *v); /* its entries' bytes */
uint64_t ig_vdict_count(const struct ig_vdict *v, uint32_t c);
uint64_t *ig_vdict_counts(struct ig_vdict *v); /* k + 1, [0] unused: the counts, editable */
/* Entry c (1..k): its bytes at *p, its length returned (0: erased). */
size_t ig_vdict_entry(const struct ig_vdict *v, uint32_t c, const uint8_t **p);
size_t ig_vdict_size(const struct ig_vdict *v); /* its payload bytes */
int ig_vdict_write(const struct ig_vdict *v, struct ig_buf *out);
/* The payload checked (entries, counts, a count 0 exactly where an entry is
 * erased): -EIO naming what is wrong. */
int ig_vdict_parse(const uint8_t *p, size_t len, struct ig_vdict **out, struct ig_error *err);
/* Erase every entry whose count is 0 (its bytes leave; the payload only
 * shrinks). Returns how many entries it erased. */
size_t ig_vdict_prune(struct ig_vdict *v);
/* The uses a vdict stream of n items makes of v's entries added to
 * (sign > 0) or taken off (sign < 0) counts[0..k]; nothing for any other
 * stream. -EIO when a code is not v's or a count would go below 0. */
int ig_vdict_uses(const struct ig_vdict *v, const uint8_t *p, size_t len, size_t n,
                  uint64_t *counts, int sign, struct ig_error *err);
/* The vdict stream of n codes (0..k) into a dictionary of k entries. */
int ig_bytes_encode_vdict(const uint32_t *codes, size_t n, uint32_t k, struct ig_buf *out,
                          struct ig_error *err);

/* ---- chunk zstd dictionaries (context kind 2, format 13; zdict.c) ----------
 *
 * Raw content (no entropy tables) made of segments of 1..IG_ZDICT_SEG_MAX
 * bytes, each a substring of a value of the chunk when written; an erase
 * zeroes (keeping its length) every segment no live value of the chunk holds
 * any more, so the dictionary never keeps bytes only erased values held. */
#define IG_ZDICT_SEG_MAX 64
/* The least level a block is compressed against its chunk's dictionary at:
 * matches into the dictionary are what it is for, and zstd's fast levels
 * find few of them (captions of words: 8.7 MB at 3, 8.2 at 6, 8.2 at 9;
 * an import 1.2x as long at 6 as at 3). */
#define IG_ZDICT_LEVEL 6
/* The level a block is compressed at against the dictionary, given the
 * column's zstd level (0: the default, 3). */
static inline int ig_zdict_level(int zstd_level)
{
    return zstd_level > IG_ZDICT_LEVEL ? zstd_level : IG_ZDICT_LEVEL;
}

/* The level an erase compresses such a block again at: one below the
 * writer's. The block is shorter by what was erased, and a frame one level
 * lower still fits the room the writer left about as often (2 % of a
 * million word captions: no more misses than at the writer's level) in less
 * time (0.93x the erase); two levels lower misses ten times as often, and a
 * miss is compressed again at the writer's level, then harder. */
static inline int ig_zdict_erase_level(int zstd_level)
{
    return ig_zdict_level(zstd_level) - 1;
}

/* Counters the trainers below count in and leave zero: pairs of fsst codes
 * and 4-byte windows of a dictionary's sample, 1 MiB each, made on first
 * use. A writer keeps one per encoding thread: fresh ones per chunk cost
 * their pages' faults, and with other threads running each page is faulted
 * twice (read, then written) and every core's TLB flushed: 3 % of a
 * two-thread CSV import. A zeroed struct has none yet. */
struct ig_train_scratch {
    uint32_t *fsst_pairs;    /* 512 x 512 */
    uint32_t *zdict_windows; /* 2^18 */
};
void ig_train_scratch_free(struct ig_train_scratch *s);

/* A dictionary of at most `target` bytes trained on the n items offs/data;
 * *out NULL when nothing in them repeats enough, or when 32 KiB of them
 * taken evenly hold fewer than least_windows distinct 4-byte windows (hashed:
 * a few may share a slot; 0: not asked). -ENOMEM. */
int ig_zdict_train(const uint64_t *offs, const uint8_t *data, size_t n, size_t target,
                   size_t least_windows, struct ig_zdict **out);
/* The same, counting in s (ig_train_scratch). */
int ig_zdict_train_in(const uint64_t *offs, const uint8_t *data, size_t n, size_t target,
                      size_t least_windows, struct ig_train_scratch *s, struct ig_zdict **out);
void ig_zdict_free(struct ig_zdict *d);
struct ig_zdict *ig_zdict_copy(const struct ig_zdict *d); /* NULL without memory */
size_t ig_zdict_content_len(const struct ig_zdict *d);
const uint8_t *ig_zdict_content(const struct ig_zdict *d);
uint32_t ig_zdict_nsegments(const struct ig_zdict *d);
unsigned ig_zdict_segment_len(const struct ig_zdict *d, uint32_t i);
/* Is segment i (at content offset off) all zeros? */
bool ig_zdict_segment_zero(const struct ig_zdict *d, uint32_t i, size_t off);
void ig_zdict_zero_segment(struct ig_zdict *d, size_t off, unsigned len);
size_t ig_zdict_size(const struct ig_zdict *d); /* its payload bytes */
int ig_zdict_write(const struct ig_zdict *d, struct ig_buf *out);
/* The payload checked (every length, the total): -EIO naming what is wrong. */
int ig_zdict_parse(const uint8_t *p, size_t len, struct ig_zdict **out, struct ig_error *err);
/* zstd frames against it (cctx: a ZSTD_CCtx, dctx: a ZSTD_DCtx): zstd's
 * return values (ZSTD_isError). The frame names no dictionary id. */
size_t ig_zdict_compress(void *cctx, struct ig_zdict *d, void *dst, size_t cap, const void *src,
                         size_t n, int level);
/* A decompression window (one per decoding thread, in its page scratch):
 * the dictionary's content copied right before the output. zstd then finds a
 * frame's matches into the dictionary in one contiguous history, its fast
 * path, where a separate dictionary costs a memmove call per match (a fifth of
 * a scan of captions of words). It is filled on a dictionary's second block
 * in a row: a scan pays one copy a chunk, scattered rows none. */
struct ig_zdict_window {
    struct ig_buf buf; /* the content, then room for a body */
    uint64_t held;     /* the dictionary's serial whose content buf holds, 0: none */
    uint64_t last;     /* the serial the previous block used */
    void *ddict;       /* a ZSTD_DDict on buf's content */
};
void ig_zdict_window_free(struct ig_zdict_window *w);
/* A frame against d decompressed into the window when it holds d, else into
 * dst (cap bytes either way); *out: where the bytes are. zstd's return value. */
size_t ig_zdict_decompress_window(void *dctx, const struct ig_zdict *d, struct ig_zdict_window *w,
                                  void *dst, size_t cap, const void *src, size_t n,
                                  const uint8_t **out);
/* Which segments values hold (an erase's and verify's search, and training's
 * filter). A finder looks for the segments set in `only` (NULL: every segment
 * not all zeros), counting for each the values that hold it, up to `cap`
 * (a value counts once); a segment not looked for reads as cap. Segments
 * are indexed by their first four bytes, so a value costs one pass over its
 * bytes; the search stops once every segment reached cap. */
struct ig_zdict_find;
int ig_zdict_find_new(const struct ig_zdict *d, const uint8_t *only, uint8_t cap,
                      struct ig_zdict_find **out); /* -ENOMEM */
void ig_zdict_find_value(struct ig_zdict_find *f, const uint8_t *v, size_t len);
size_t ig_zdict_find_remaining(const struct ig_zdict_find *f); /* segments below cap */
const uint8_t *ig_zdict_find_hits(const struct ig_zdict_find *f);  /* per segment */
size_t ig_zdict_find_offset(const struct ig_zdict_find *f, uint32_t i); /* in the content */
void ig_zdict_find_free(struct ig_zdict_find *f);

/* The plain bytes (values and a length word each) a block framed against
 * the chunk's dictionary holds at most where its blocks would otherwise be
 * item-decodable (page_blocks.c, which says why), and
 * what such a block costs besides its frame (its record, slack, a share of
 * the zeros that end a disk page: measured on captions of words). */
#define IG_ZDICT_FRAME_PLAIN 1536
#define IG_ZDICT_FRAME_COST 80

/* The bytes the dictionary would save over the chunk's n items, estimated
 * from runs spread over them, compressed at `level` alone and at
 * `dict_level` against it, in the frames it will be used in: with grain 0,
 * runs of 4 KiB of values cut into frames of IG_ZDICT_FRAME_PLAIN bytes
 * (IG_ZDICT_FRAME_COST more each); with a grain, runs of the values whose
 * frame alone fills `grain` bytes (a whole-block zstd block's), one frame
 * each (the blocks are as many or fewer, so no cost is added). */
uint64_t ig_zdict_gain(struct ig_zdict *d, const uint64_t *offs, const uint8_t *data, size_t n,
                       int level, int dict_level, size_t grain);
size_t ig_zdict_decompress(void *dctx, const struct ig_zdict *d, void *dst, size_t cap,
                           const void *src, size_t n);

/* A symbol table trained on (a sample of) the n items offs[0..n] over data,
 * ready to code items; its use counts are 0 (the writer counts the blocks it
 * keeps). -ENOMEM without memory. */
int ig_fsst_train(const uint64_t *offs, const uint8_t *data, size_t n, struct ig_fsst **out);
/* The same, counting in s (ig_train_scratch). */
int ig_fsst_train_in(const uint64_t *offs, const uint8_t *data, size_t n, struct ig_train_scratch *s,
                     struct ig_fsst **out);
void ig_fsst_free(struct ig_fsst *t);
unsigned ig_fsst_symbols(const struct ig_fsst *t); /* symbols not erased */
uint64_t ig_fsst_count(const struct ig_fsst *t, unsigned code);
void ig_fsst_reset_counts(struct ig_fsst *t);
/* counts[256] added to (sign > 0) or taken off (sign < 0) the use counts;
 * -EIO when a count names no symbol or would go below 0. */
int ig_fsst_add_uses(struct ig_fsst *t, const uint64_t *counts, int sign);
/* Erase every symbol no item uses (length 0); true if any was. */
bool ig_fsst_prune(struct ig_fsst *t);

/* A context's bytes: its entries, then zeros; in a part of format 22 on,
 * the entries may be packed as one zstd frame (ig_chunk_ctx_pack). Parse
 * checks every field (hostile input: -EIO naming what is wrong; a packed
 * context in a part of a `version` before 22 is one); write appends the
 * entries, unpacked; free releases what parse or the writer put in. */
int ig_chunk_ctx_parse(const uint8_t *p, size_t len, unsigned version, struct ig_chunk_ctx *cx,
                       struct ig_error *err);
int ig_chunk_ctx_write(const struct ig_chunk_ctx *cx, struct ig_buf *out);
/* The entries at b[from, b->len) (as ig_chunk_ctx_write put them) packed as
 * one zstd frame at `level` where that is smaller, with_room: followed by
 * ig_chunk_ctx_room zeros, and smaller with them; else left as they are.
 * -ENOMEM. The room is what an erase's packing of the entries it shrank may
 * need beyond the frame before (an erase packs again, and moves the context
 * where even that does not fit: docs/FORMAT.md, "Chunk contexts"). */
#define IG_CTX_ZSTD_LEVEL   6
#define IG_CTX_ZSTD_HARDEST 19
int ig_chunk_ctx_pack(struct ig_buf *b, size_t from, int level, bool with_room);
size_t ig_chunk_ctx_room(size_t packed);
void ig_chunk_ctx_free(struct ig_chunk_ctx *cx);
bool ig_chunk_ctx_empty(const struct ig_chunk_ctx *cx);

/* The uses of each symbol of cx's table by a bytes stream (its own fsst
 * codes, or a dictionary's fsst entries) added to counts[256]; nothing for
 * streams that use none. */
int ig_bytes_symbol_uses(const uint8_t *p, size_t len, size_t n, const struct ig_chunk_ctx *cx,
                         uint64_t *counts, struct ig_error *err);

int ig_bytes_decode_cx(const struct ig_chunk_ctx *cx, const uint8_t *p, size_t len, size_t n,
                       const uint8_t *absent, uint64_t *offs_out, struct ig_buf *data_out,
                       struct ig_error *err);
int ig_bytes_get_cx(const struct ig_chunk_ctx *cx, const uint8_t *p, size_t len, size_t n,
                    const uint8_t *absent, size_t i, const uint8_t **val, size_t *vlen,
                    struct ig_error *err);
int ig_bytes_erase_cx(const struct ig_chunk_ctx *cx, uint8_t *p, size_t len, size_t n,
                      const uint8_t *absent, const uint8_t *kill, size_t *new_len,
                      struct ig_error *err);
int ig_bytes_check_erased_cx(const struct ig_chunk_ctx *cx, const uint8_t *p, size_t len, size_t n,
                             const uint8_t *absent, const uint8_t *erased, struct ig_error *err);

/* Top-level scheme of an encoded stream (its first byte), or -1 if empty/unknown. */
int ig_stream_scheme(const uint8_t *p, size_t len);

#endif
