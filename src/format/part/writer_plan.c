/* writer_plan.c - planning one top-level column of a row group before it is
 * encoded (writer_int.h, ig_writer_plan_column): its values rounded as they
 * will read back, their bounds, the distinct values of its string leaves,
 * whether a leaf gets an FSST table, where its pages are cut and how they are
 * dealt out in segments; and what encoding asks of the plan: the page policy
 * a leaf's blocks are encoded under, and the block cuts within a page. It
 * encodes nothing: writer_encode.c turns the plan into pages. */
#include "format/part/writer_enc_int.h"
#include "format/part/writer_int.h"
#include "format/layout.h"
#include "format/page/slide.h"
#include "format/model/minmax.h"
#include "format/model/quantize.h"
#include "format/model/types.h"
#include "format/enc/codec.h"
#include "util/buf.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/strset.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Blob references default to small pages: reaching one object then reads one
 * small page of references plus the object itself. */
#define IG_BLOB_PAGE_SIZE 4096
/* Byte-stream split pages are made to be compressed: at 1 MiB each byte plane
 * fills whole zstd blocks (128 KiB), so each plane gets its own entropy tables
 * (float32 embeddings: 14% smaller at 1 MiB, 0-8% at 64 KiB). */
#define IG_SPLIT_PAGE_SIZE (1u << 20)
/* Sliding-window pages default to this many times the page size (page_end),
 * pages whose ids a dictionary stores well that many times more. */
#define IG_SLIDE_PAGE_FACTOR 2
#define IG_SLIDE_DICT_PAGE_FACTOR 32
/* A list of floats that slides (format 21) is cut into sliding-window pages of
 * about this many stored bytes, and no larger for a dictionary, holding at
 * most this many values (the rows' windows, each one whole): a row read reads,
 * checks and decodes its page whole (slide.c, picked rows), as it does one
 * block of level streams. Readings slid on by one a row keep a page to a few
 * KiB; their values decide what a row read costs: 1,000 random rows took
 * 0.45x (windows of 32), 0.74x (of 30-90) and 0.86x (prices, of 20) the time
 * of level streams at 6,144 values, 1.05x on prices at 8,192, 1.7x at 16,384,
 * where the tables were 8-15 % smaller (scripts/bench/nested_levels). */
#define IG_SLIDE_FLOAT_PAGE (8u << 10)
#define IG_SLIDE_FLOAT_LANES 6144u
/* Where list items may be NULL, a sliding-window page holds none, so rows
 * holding one are level streams. A stretch of rows between them is a page of
 * sliding windows of its own only when it has at least this many rows: a page
 * restarts its windows with a base row and costs its records. Windows of 20
 * ids with a NULL item in one row in 20, cut at every one, came out 3x the
 * bytes of level streams alone; stretches of 64 rows or more: 0.87x (16: 1.7x,
 * 32: 1.2x, 128: 0.80x); with one row in 100, 64 rows gave 0.84x (128: 1.0x),
 * with one in 1,000 0.41x (256: 0.49x). */
#define IG_SLIDE_MIN_ROWS 64
/* Blocks: a row read (rows/ID, a take) reads, checks and decodes one block of
 * each column, so small blocks make it cheap; each block compresses on its own,
 * so small blocks also compress less (captions: 2.15x at 4 KiB, 2.69x at 64
 * KiB under zstd) and cost 40 bytes of footer. 4 KiB of values: about one disk
 * page stored, a few microseconds to decode. */
#define IG_BLOCK_SIZE 4096

uint32_t ig_writer_undeclared_page_size(const struct ig_column_def *cd, uint32_t page_size)
{
    if (cd->type == IG_T_BLOB) return IG_BLOB_PAGE_SIZE;
    return cd->encoding == IG_ENC_SPLIT ? IG_SPLIT_PAGE_SIZE : page_size;
}

uint32_t ig_writer_leaf_page_size(const struct ig_writer_conf *c, uint32_t l)
{
    const struct ig_column_def *cd = &c->schema->cols[c->schema->leaves[l]];
    return cd->page_size ? cd->page_size : ig_writer_undeclared_page_size(cd, c->o.page_size);
}


/* The target block size of a leaf (0: one block per page): what the schema
 * says, else IG_BLOCK_SIZE, except for pages that are one unit already (blob
 * references, sliding windows, byte-stream split made for zstd). */
static uint32_t leaf_block_size(const struct enc *w, uint32_t l)
{
    const struct ig_column_def *cd = leaf_def(w, l);
    if (cd->block_size == IG_BLOCK_WHOLE_PAGE) return 0;
    if (cd->block_size) return cd->block_size;
    if (cd->type == IG_T_BLOB || cd->encoding == IG_ENC_SPLIT ||
        w->g->slides[l])
        return 0;
    return w->c->o.block_size ? w->c->o.block_size : IG_BLOCK_SIZE;
}

/* Plain-size estimate of rows [a, b) of a leaf (the page-cutting measure). */
static uint64_t plain_bytes(const struct ig_values *v, size_t a, size_t b)
{
    const struct ig_type_info *ti = ig_type_info(v->type);
    if (v->levels) {
        size_t v0 = v->row_val[a], v1 = v->row_val[b];
        uint64_t vals = v1 == v0      ? 0
                        : v->is_bytes ? v->offs[v1] - v->offs[v0] + 4 * (v1 - v0)
                                      : (v1 - v0) * ti->width;
        return vals + 2 * (uint64_t)(v->row_ent[b] - v->row_ent[a]);
    }
    if (!v->is_bytes) return (uint64_t)(b - a) * ti->width;
    return v->offs[b] - v->offs[a] + 4 * (uint64_t)(b - a);
}

/* The plain bytes of rows [a, b) of leaves [l0, l1): the largest leaf's.
 * The leaves of a nested column share their page and block cuts, and each
 * leaf's pages and blocks are then at most what a flat column's are: cut by
 * the leaves' sum instead, a struct of 7 leaves had blocks of about 70 rows
 * (a dictionary, a header and a 40-byte record for each leaf's few hundred
 * bytes), and its table (scripts/bench/shards_struct_fields) stored 1.20x
 * the bytes it does with blocks at IG_NESTED_BLOCK_SHARE. */
static uint64_t leaves_plain_bytes(const struct enc *w, uint32_t l0, uint32_t l1, size_t a, size_t b)
{
    uint64_t most = 0;
    for (uint32_t l = l0; l < l1; l++) {
        uint64_t n = plain_bytes(&w->g->cols[l], a, b);
        most = n > most ? n : most;
    }
    return most;
}

/* The first row r in (start, end] whose rows [start, r) of leaves [l0, l1)
 * hold at least `target` plain bytes, else end. Plain bytes only grow with r,
 * so a galloping search finds it in O(leaves x log rows), where adding rows
 * one by one cost leaves x rows for every block and page (a third of a
 * struct column's import). */
static size_t rows_reaching(const struct enc *w, uint32_t l0, uint32_t l1, size_t start, size_t end,
                            uint64_t target)
{
    if (start >= end) return end;
    size_t lo = start + 1, step = 1; /* rows [start, lo - 1) fall short (none yet) */
    size_t hi = lo;
    while (hi < end && leaves_plain_bytes(w, l0, l1, start, hi) < target) {
        lo = hi + 1;
        hi = end - hi > step ? hi + step : end;
        step *= 2;
    }
    /* the answer is in [lo, hi]: hi reaches the target or is end */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (leaves_plain_bytes(w, l0, l1, start, mid) >= target)
            hi = mid;
        else
            lo = mid + 1;
    }
    return hi;
}

/* A column of one leaf cut at the default block size aims its blocks at that
 * size *stored*, not plain: the plain bytes a block holds grow by what its
 * page before compressed by, up to this many times. Per-block costs (a
 * header, a dictionary, a zstd frame, a footer record) then weigh less where
 * values compress: float vectors rounded to 1/64 (8 rows of 512 bytes a
 * block at 4 KiB plain, each block with its own dictionary) import in 0.65
 * of the time and store 0.92 of the bytes. Twice at most: a row read of an
 * id column (delta-coded, 17x) then decodes 8 KiB, 0.3 us more a row in a
 * take; ten classes in an int64 grown up to a page (16x) store 0.81x the
 * bytes but turn `for` blocks into `for`+zstd, and a take of 1,000 rows
 * takes 1.6x the time. Blocks of incompressible values stay as they were; a
 * nested column of several leaves keeps the plain measure (its leaves are
 * cut alike). Scalar floats grow up to a page (16x): the wallpaper's pixels
 * k/255 (three float32 columns of Debian's desktop-base) store 0.77x the
 * bytes of blocks grown 4x at most and prices of two decimals 0.98x, their
 * takes of 1,000 rows no slower (a take decodes its row's whole block, and a
 * page of their dictionary codes or alp values decodes in about what a
 * smaller block's fetch, check and setup cost). Floats and ints under
 * `dict` whose ratio keeps them to several blocks a page (pixels k/255 in no
 * order: 255 values, 8 bits each; int64 ids hashed from 100 or 1,000) take
 * the page in one block: each block carries its own dictionary, and one a
 * page stored 0.77x the bytes of the pixels and 0.58x / 0.31x of the ids, a
 * take of 1,000 random rows in 0.7-0.95x the time, a row alone (its lane
 * read alone, take_handle.c) 1.0-1.4x, 2.3x (4 us) where the page of four
 * status codes came to zstd. Booleans grow up to a page where their page before
 * stored under a bit a value (runs: 3 % true 0.64x the bytes and 0.75x the
 * take, sorted 0.31x and 0.85x); others keep the cap of two (random ones
 * with NULLs, grown 4x, turned to zstd blocks and 1.2x the take). Not
 * vectors (rounded to 1/64: 0.96x the bytes at 4x, a take 1.1-1.15x the
 * time, each row decoding the larger block), not strings (their zstd blocks
 * would leave fsst). */
#define IG_BLOCK_GROWTH_MAX 2
#define IG_BLOCK_GROWTH_PAGE 16 /* a page of 64 KiB plain in blocks of 4 KiB */

/* Whether the blocks of the column of leaves [l0, l1) grow by the ratio of
 * the page before (ig_writer_block_target). */
bool ig_writer_blocks_grow(const struct enc *w, uint32_t l0, uint32_t l1)
{
    const struct ig_column_def *cd = leaf_def(w, l0);
    return leaf_block_size(w, l0) && l1 == l0 + 1 && !cd->block_size && !w->c->o.block_size &&
           !w->out->fitted;
}

/* A nested column of several leaves, at the default block size, aims its
 * largest leaf's blocks at this share of it: a row read decodes a block of
 * every leaf. Against cutting by the leaves' sum, the table above took, for
 * 1,000 random rows, 1.30x the time at the whole size (0.74x the bytes), at
 * half 1.07x (0.83x the bytes), at a third 0.98x (0.91x). */
#define IG_NESTED_BLOCK_SHARE 2

/* The plain bytes a block of the column of leaves [l0, l1) aims at. */
uint32_t ig_writer_block_target(const struct enc *w, uint32_t l0, uint32_t l1)
{
    uint32_t bs = leaf_block_size(w, l0);
    const struct ig_column_def *cd = leaf_def(w, l0);
    if (l1 > l0 + 1 && !cd->block_size && !w->c->o.block_size) return bs / IG_NESTED_BLOCK_SHARE;
    if (!ig_writer_blocks_grow(w, l0, l1) || !(w->cut_ratio > 0)) return bs;
    uint8_t t = w->g->cols[l0].type;
    bool scalar_float = (t == IG_T_FLOAT32 || t == IG_T_FLOAT64) && !cd->dimension;
    /* booleans stored in runs: under a bit a value (IG_BLOCK_GROWTH_PAGE
     * plain bytes, a byte a value, in one stored byte) */
    bool bool_runs = t == IG_T_BOOL && w->cut_ratio * IG_BLOCK_GROWTH_PAGE <= 1.0;
    double most = scalar_float || bool_runs ? IG_BLOCK_GROWTH_PAGE : IG_BLOCK_GROWTH_MAX;
    double r = w->cut_ratio < 1.0 / most ? 1.0 / most : w->cut_ratio;
    /* values of a few hundred or thousand kinds under `dict` (pixels k/255
     * in no order, ratings, hashed ids): each block repeats the dictionary,
     * so a block is the page */
    bool is_int = t >= IG_T_INT8 && t <= IG_T_UINT64;
    if ((scalar_float || is_int) && w->cut_dict) r = 1.0 / IG_BLOCK_GROWTH_PAGE;
    return r >= 1 ? bs : (uint32_t)((double)bs / r);
}

/* The page of rows [a, b) of leaf l just encoded (w->e->built): what it
 * stored per plain byte, for the blocks of the next page. */
void ig_writer_page_ratio(struct enc *w, uint32_t l, size_t a, size_t b)
{
    uint64_t plain = plain_bytes(&w->g->cols[l], a, b);
    w->cut_ratio = plain ? (double)w->e->built.stored.len / (double)plain : 0;
    const struct ig_page_built *pb = &w->e->built;
    w->cut_dict = pb->nblocks > 0;
    for (uint32_t i = 0; i < pb->nblocks; i++)
        w->cut_dict &= pb->blocks[i].encoding == IG_ENC_DICT;
}

/* The rows of a group whose values say whether a list of floats slides
 * (ig_slide_rows_slide): its first ones, so that the answer costs little */
#define IG_SLIDE_SAMPLE_ROWS 256

/* Will this leaf be offered sliding-window pages? Planning asks once a
 * group (g->slides); cutting, blocks and encoding read its answer. */
static bool ig_writer_slide_candidate(const struct ig_column_def *cd, const struct ig_values *v)
{
    struct ig_leaf_info li = {.type = cd->type,
                              .max_rep = cd->max_rep,
                              .max_def = cd->max_def,
                              .quantize = cd->quantize,
                              .levels = v->levels,
                              .per_value = cd->dimension ? cd->dimension : 1,
                              .item_nulls = cd->lists == 1 && (cd->null_mask & 2)};
    if (!v->levels || cd->parent != IG_SCHEMA_NONE || !ig_slide_fits(&li, cd->lists, cd->null_mask) ||
        (cd->encoding != IG_ENC_AUTO && cd->encoding != IG_PAGE_ENC_SLIDE))
        return false;
    /* format 21: floats slide where their rows do, or where the schema says */
    return !ig_type_info(cd->type)->is_float || cd->encoding == IG_PAGE_ENC_SLIDE ||
           ig_slide_rows_slide(v, 0, v->rows < IG_SLIDE_SAMPLE_ROWS ? v->rows : IG_SLIDE_SAMPLE_ROWS);
}

/* Does leaf l's bulk go in bytes (IG_SLIDES_BYTES)? Its first rows, up to
 * IG_SLIDE_BYTES_LANES values, encoded as a page, say: the page keeps the
 * plain bytes where zstd stores them smaller. Integers only (a list of
 * floats' pages are small already), and only where pages may be compressed. */
static int slide_bytes_probe(struct enc *w, uint32_t l, struct ig_error *err)
{
    struct ig_values *v = &w->g->cols[l];
    const struct ig_column_def *cd = leaf_def(w, l);
    if (!w->g->slides[l] || ig_type_info(v->type)->is_float || cd->compression == IG_COMP_NONE) return 0;
    size_t r = 0;
    while (r < v->rows && v->row_val[r + 1] <= IG_SLIDE_BYTES_LANES) r++;
    struct ig_leaf_info li = {.max_def = cd->max_def, .item_nulls = cd->lists == 1 && (cd->null_mask & 2)};
    if (r < 2 || !ig_slide_page_fits(&li, v, 0, r)) return 0;
    struct ig_page_policy pol;
    ig_writer_leaf_policy(w, l, &pol);
    pol.encoding = IG_PAGE_ENC_SLIDE;
    struct ig_page_built b = {0};
    int rc = ig_page_encode(&pol, v, 0, r, &w->e->scratch, &b, err);
    if (!rc && b.slide_bytes) w->g->slides[l] = IG_SLIDES_BYTES;
    ig_page_built_free(&b);
    return rc;
}

/* zstd's level for a leaf's blocks. Strings and binary values take level 1:
 * their blocks are fitted to about a disk page (~11 KiB of values in 4 KiB),
 * where level 3's larger tables find little more, and level 1 came out both
 * faster and mostly smaller (Parquet imports: unique captions 0.83x the CPU
 * and 5 % smaller, captions of 10,000 values 3 % smaller, a power law over
 * 1,000,000 terms 0.89x the CPU and 0.7 % larger; CSV free text 3 % larger,
 * its import 0.95x the time). Numbers take level 2: level 1 gave up too many
 * of their matches (a list column 12 % larger), level 3 cost that column
 * 1.10x the CPU of level 2 for 0.6 % fewer bytes (a 5,000,000-row Parquet
 * import 1.05x the CPU, tables 0.02 % smaller; sliding windows, CSV numbers
 * and .npy floats byte for byte or within bytes alike). An erase
 * re-compresses at level 3 (ops/erase_block.c): at least as small, mostly. */
static int block_zstd_level(const struct enc *w, const struct ig_values *v)
{
    bool bytes = v->is_bytes && v->type != IG_T_BLOB && !v->levels;
    return bytes && w->c->o.zstd_level_bytes ? w->c->o.zstd_level_bytes : w->c->o.zstd_level;
}

void ig_writer_leaf_policy(const struct enc *w, uint32_t l, struct ig_page_policy *pol)
{
    const struct ig_column_def *cd = leaf_def(w, l);
    const struct ig_values *v = &w->g->cols[l];
    *pol = (struct ig_page_policy){.type = cd->type,
                                   .encoding = cd->encoding,
                                   .compression = cd->compression,
                                   .zstd_level = block_zstd_level(w, v),
                                   .leaf = {.type = cd->type,
                                            .max_rep = cd->max_rep,
                                            .max_def = cd->max_def,
                                            .quantize = cd->quantize,
                                            .levels = v->levels,
                                            .per_value = cd->dimension ? cd->dimension : 1,
                                            .item_nulls = cd->lists == 1 && (cd->null_mask & 2),
                                            .lt = cd->lt}};
    pol->leaf.slide_ok = w->g->slides[l]; /* 18: list<T?> too; 21: floats */
    pol->leaf.joint_levels = v->levels;                    /* 19: joint level streams */
    pol->decimal = true; /* this writer writes format 8 or later (IG_FORMAT_VERSION) */
    pol->alp = true;     /* and 12: alp, */
    pol->expo = true;    /* 20: expo, */
    pol->huff_slots = true; /* 15: huffman's slots, */
    pol->plain_lengths = true; /* 16: plain bytes by their lengths, */
    pol->fsst = w->g->ctx[l].fsst; /* chunk contexts */
    pol->zdict = w->g->ctx[l].zdict; /* and 13: zstd dictionaries */
    pol->zdict_grain = w->g->ctx[l].zdict_grain;
    if (w->g->ids[l].valid) pol->item_ids = w->g->ids[l].id;
    if (w->g->vcodes[l].on) { /* and 14: codes into the chunk's value dictionary */
        pol->encoding = IG_ENC_VDICT;
        pol->vcodes = w->g->vcodes[l].code;
        pol->vdict_k = w->g->vcodes[l].k;
    } else if (pol->encoding == IG_ENC_VDICT) { /* forced, but the values were too many to count */
        pol->encoding = IG_ENC_AUTO;
    }
}

/* How many rows from `start` on hold no NULL item (li.item_nulls), counting
 * to `most` at most. */
static size_t null_free_rows(const struct ig_leaf_info *li, const struct ig_values *v, size_t start,
                             size_t rows, size_t most)
{
    size_t n = 0;
    while (start + n < rows && n < most && ig_slide_page_fits(li, v, start + n, 1))
        n++;
    return n;
}

/* Where the next page of the leaves [l0, l1) should end, starting at row
 * `start`: leaves of one nested column share page boundaries (their pages are
 * reassembled together); a flat leaf pages alone. */
static size_t page_end(const struct enc *w, uint32_t l0, uint32_t l1, size_t start)
{
    uint64_t target = ig_writer_leaf_page_size(w->c, l0);
    size_t rows = w->g->rows;
    const struct ig_values *v = &w->g->cols[l0];
    if (l1 == l0 + 1 && !v->levels && !v->is_bytes) { /* fixed width: arithmetic */
        uint64_t width = ig_type_info(v->type)->width;
        uint64_t n = target / width ? target / width : 1;
        return start + n < rows ? start + (size_t)n : rows;
    }
    const struct ig_column_def *cd = leaf_def(w, l0);
    if (l1 == l0 + 1 && w->g->slides[l0]) { /* measured as it will be stored */
        /* where items may be NULL (format 18), rows holding one are level
         * streams: a NULL item here and there leaves the windows around it
         * in sliding-window pages, rows where they are frequent (stretches
         * between them shorter than IG_SLIDE_MIN_ROWS) are level streams in
         * pages of the usual size */
        struct ig_leaf_info li = {.max_def = cd->max_def, .item_nulls = cd->lists == 1 && (cd->null_mask & 2)};
        if (li.item_nulls && null_free_rows(&li, v, start, rows, IG_SLIDE_MIN_ROWS) < IG_SLIDE_MIN_ROWS) {
            /* level streams, ending where a stretch long enough for sliding
             * windows begins */
            size_t end = rows_reaching(w, l0, l1, start, rows, target), run = 0;
            for (size_t r = start; r < end; r++) {
                run = ig_slide_page_fits(&li, v, r, 1) ? run + 1 : 0;
                if (run == IG_SLIDE_MIN_ROWS) return r + 1 - run;
            }
            return end;
        }
        /* every page restarts the windows with a base row (a whole window of
         * new values), so unless the column says otherwise these pages are
         * larger: reading one row still decodes only from its base on */
        bool floats = ig_type_info(v->type)->is_float;
        if (!cd->page_size) target = floats ? IG_SLIDE_FLOAT_PAGE : target * IG_SLIDE_PAGE_FACTOR;
        uint64_t acc = 0;
        const uint64_t *prev = NULL;
        size_t pn = 0, r = start;
        bool sgn = ig_type_info(v->type)->is_signed;
        struct ig_slide_sizer *z = &w->e->sizer;
        ig_slide_sizer_start(z);
        uint64_t limit = 8 * target;
        for (bool grown = false;; grown = true) {
            /* floats: at most IG_SLIDE_FLOAT_LANES values a page, which a row read decodes */
            size_t most = floats                                 ? v->row_val[start] + IG_SLIDE_FLOAT_LANES
                          : w->g->slides[l0] == IG_SLIDES_BYTES ? v->row_val[start] + IG_SLIDE_BYTES_LANES
                                                                : SIZE_MAX;
            while (r < rows && acc < limit && ig_slide_page_fits(&li, v, r, 1) && (r == start || v->row_val[r + 1] <= most)) {
                const uint64_t *cur = v->lanes + v->row_val[r];
                size_t cn = v->row_val[r + 1] - v->row_val[r];
                acc += ig_slide_sizer_row(z, prev, pn, cur, cn, sgn);
                if (cn) prev = cur, pn = cn; /* rows without values are transparent */
                r++;
            }
            /* large ids that recur (hashed ids) are stored once per page, in
             * a dictionary, which pays the more rows the page has: such pages
             * (a dictionary saving a fifth of their bits) are larger */
            if (r == rows || grown || floats || z->saved * 5 < acc || acc < limit) break; /* acc < limit: a NULL item next */
            limit *= IG_SLIDE_DICT_PAGE_FACTOR;
        }
        return r;
    }
    return rows_reaching(w, l0, l1, start, rows, target);
}

/* Whether leaf l's blocks are fitted to disk pages (page.h, struct
 * ig_block_fit): flat string and binary columns, read one value at a time, whose
 * blocks vary in size, at the default block size, when the group holds enough
 * of them (IG_FIT_MIN plain bytes) that starting the chunk on a page boundary
 * costs little. Fixed-width blocks are small or exact already. */
#define IG_FIT_MIN (256u << 10)
bool ig_writer_leaf_fitted(const struct enc *w, uint32_t l)
{
    const struct ig_column_def *cd = leaf_def(w, l);
    const struct ig_values *v = &w->g->cols[l];
    if (v->levels || !v->is_bytes || cd->type == IG_T_BLOB || cd->block_size || w->c->o.block_size ||
        !leaf_block_size(w, l))
        return false;
    return plain_bytes(v, 0, w->g->rows) >= IG_FIT_MIN;
}

/* Cut rows [a, b) of leaves [l0, l1) into blocks of about `target` plain bytes
 * (all leaves of a nested column alike, as pages are): w->e->cuts gets the block
 * starts relative to a, then b - a; returns the number of blocks. With
 * first_only, the first block alone: cuts 0 and its end, and 1. */
size_t ig_writer_block_cuts(struct enc *w, uint32_t l0, uint32_t l1, size_t a, size_t b,
                         uint32_t target, bool first_only, int *rc)
{
    size_t n = 0, r = a;
    while (r < b) {
        if (n + 2 > w->e->cuts_cap) {
            size_t cap = w->e->cuts_cap ? w->e->cuts_cap * 2 : 64;
            size_t *c = realloc(w->e->cuts, cap * sizeof *c);
            if (!c) {
                *rc = -ENOMEM;
                return 0;
            }
            w->e->cuts = c;
            w->e->cuts_cap = cap;
        }
        w->e->cuts[n++] = r - a;
        const struct ig_values *v = &w->g->cols[l0];
        if (!target) {
            r = b;
        } else if (l1 == l0 + 1 && !v->levels && !v->is_bytes) { /* fixed width: arithmetic */
            uint64_t width = ig_type_info(v->type)->width, k = target / width ? target / width : 1;
            r = b - r > k ? r + (size_t)k : b;
        } else {
            r = rows_reaching(w, l0, l1, r, b, target);
        }
        if (first_only) break;
    }
    w->e->cuts[n] = r - a; /* b - a, but for a first block alone */
    return n;
}

/* Quantised float leaves: round the group's values to the format now, as float32,
 * so the text measured is the text that will be read back. */
static void round_quantized(struct enc *w, uint32_t l)
{
    const struct ig_column_def *cd = leaf_def(w, l);
    struct ig_values *v = &w->g->cols[l];
    if (!cd->quantize) return;
    ig_quantize_lanes(cd->quantize, v->type, v->lanes, v->n, v->lanes);
    ig_dequantize_lanes(cd->quantize, v->lanes, v->n, v->lanes);
    v->type = IG_T_FLOAT32;
}

/* How many distinct values n draws would show, from a pool whose first s
 * draws showed d (draws at random: d = D (1 - e^(-s/D)) for a pool of D,
 * solved for D by bisection). Every draw distinct: as many as draws. */
static double distinct_after(double d, double s, double n)
{
    if (d >= s) return n;
    double lo = d, hi = 1e15;
    for (int i = 0; i < 100; i++) {
        double mid = sqrt(lo * hi);
        if (mid * -expm1(-s / mid) < d) lo = mid;
        else hi = mid;
    }
    return lo * -expm1(-n / lo);
}

/* Value i's hash in a strset (its bytes; a NULL's are none). */
static inline uint64_t value_hash(const struct ig_values *v, size_t i)
{
    size_t len;
    const uint8_t *p = ig_values_bytes(v, i, &len);
    return ig_strset_hash(p, len);
}

/* A value of at most this many bytes is its own key in the short-value cache
 * (struct ig_short_ids): its bytes as a little-endian number, with its length
 * + 1 in the top byte, so that two keys are equal exactly where the values are. */
#define IG_SHORT_MAX 7

/* Value i's key (its length at most IG_SHORT_MAX): one 8-byte load, masked,
 * where 8 bytes from its start lie inside the values' bytes (a copy of a few
 * bytes, stored byte by byte and read back whole, stalled the count). */
static inline uint64_t short_key(const struct ig_values *v, size_t i, size_t len)
{
    uint64_t at = v->offs[i], k;
    if (at + 8 <= v->data.len)
        k = len ? ig_ld64(v->data.data + at) & (~0ull >> (64 - 8 * len)) : 0;
    else
        k = ig_ld_le(v->data.data + at, len);
    return k | (uint64_t)(len + 1) << 56; /* never 0: 0 marks an empty slot */
}

static inline size_t short_slot(uint64_t key)
{
    return (size_t)((key * 0x9E3779B97F4A7C15ull) >> (64 - IG_SHORT_IDS_BITS));
}

/* A string or binary leaf's distinct values in the group, for its chunk
 * record (layout.h, IG_CHK_DICT_COUNT): exact (bytes compared, not hashes),
 * and recorded only when they are at most a quarter of its values, as a
 * dictionary is then worth showing (a Parquet view's dictionary page; a pool
 * of 100,000 strings, 93,000 distinct in 262,144 rows, read as fast PLAIN
 * as a dictionary, and counting it to the end had cost its import 1.3x).
 * Counting costs an import a few per cent where it runs to the end, so it
 * stops early where the first 4,096 values (and again the first 8,192,
 * 16,384, ...) foretell more than a quarter distinct (values drawn at random
 * from a pool: 10,000 captions over 65,536 rows show some 3,400 distinct in
 * their first 4,096 and are counted; unique ids or free text are not).
 * Short values (codes, countries, categories: most columns counted to the
 * end) are looked up in `cache` first, by their bytes, without hashing or
 * probing the set: a hit is a value the set holds, under the number it gave
 * (the counts and numbers are the set's either way; hashing, probing and
 * comparing short values was over a third of the count). */
static int chunk_dict(const struct ig_values *v, struct ig_chunk_dict *out, struct ig_item_ids *ids,
                      struct ig_strset *set, struct ig_short_ids *cache)
{
    memset(out, 0, sizeof *out);
    ids->valid = false;
    if (!v->is_bytes || v->type == IG_T_BLOB || v->n < 2) return 0;
    /* the values numbered as they are counted, for a flat leaf's blocks */
    bool number = !v->levels;
    if (number && ids->cap < v->n) {
        uint32_t *p = realloc(ids->id, v->n * sizeof *p);
        if (!p) return -ENOMEM;
        ids->id = p;
        ids->cap = v->n;
    }
    if (!cache->key && !(cache->key = malloc(sizeof *cache->key << IG_SHORT_IDS_BITS))) return -ENOMEM;
    if (!cache->id && !(cache->id = malloc(sizeof *cache->id << IG_SHORT_IDS_BITS))) return -ENOMEM;
    memset(cache->key, 0, sizeof *cache->key << IG_SHORT_IDS_BITS);
    ig_strset_clear(set);
    size_t limit = v->n / 4, seen = 0;
    int rc = 0;
    bool small = true, nulls = false;
    /* hashed AHEAD values ahead, each slot fetched while the ones before are
     * probed (short values are hashed only when the cache misses them) */
    enum { AHEAD = 8 };
    uint64_t hashes[AHEAD];
    for (size_t i = 0; i < AHEAD && i < v->n; i++)
        hashes[i] = v->offs[i + 1] - v->offs[i] > IG_SHORT_MAX ? value_hash(v, i) : 0;
    for (size_t i = 0; i < v->n && small; i++) {
        uint64_t h = hashes[i % AHEAD];
        if (i + AHEAD < v->n && v->offs[i + AHEAD + 1] - v->offs[i + AHEAD] > IG_SHORT_MAX) {
            hashes[i % AHEAD] = value_hash(v, i + AHEAD);
            ig_strset_prefetch(set, hashes[i % AHEAD]);
        }
        if (ig_values_is_null(v, i)) {
            nulls = true;
            continue;
        }
        size_t len;
        const uint8_t *p = ig_values_bytes(v, i, &len);
        uint32_t at;
        if (len <= IG_SHORT_MAX) {
            uint64_t key = short_key(v, i, len);
            size_t slot = short_slot(key);
            if (cache->key[slot] == key) {
                at = cache->id[slot];
            } else {
                bool added;
                if ((rc = ig_strset_add_hashed(set, p, len, ig_strset_hash(p, len), &at, &added))) break;
                cache->key[slot] = key;
                cache->id[slot] = at;
            }
        } else {
            bool added;
            if ((rc = ig_strset_add_hashed(set, p, len, h, &at, &added))) break;
        }
        if (number) ids->id[i] = at;
        seen++;
        small = set->count <= limit && set->bytes + 4ull * set->count <= INT32_MAX;
        if (seen >= 4096 && !(seen & (seen - 1)) && small) /* at 4,096, 8,192, ...: foretell again */
            small = distinct_after(set->count, (double)seen, (double)v->n) <= limit;
    }
    if (!rc && small && set->count) {
        out->count = set->count;
        out->bytes = (uint32_t)set->bytes;
    }
    if (!rc && small && number) {
        /* a NULL is an empty item in a block: the empty string's number, or
         * one past the set's when no value is empty */
        int64_t empty = nulls ? ig_strset_find(set, "", 0) : -1;
        uint32_t null_id = empty >= 0 ? (uint32_t)empty : set->count;
        for (size_t i = 0; nulls && i < v->n; i++)
            if (ig_values_is_null(v, i)) ids->id[i] = null_id;
        ids->valid = true;
    }
    return rc == -E2BIG ? 0 : rc;
}

/* A chunk of strings or binary values gets an FSST symbol table (format 12:
 * its context) when its values are enough for one to pay: the table costs up
 * to ~2.5 KiB once, and training it ~2 ms; its blocks then choose to code
 * their values against it (page_encode.c). Not when at most one value in
 * IG_FSST_FEW_DIVISOR is distinct (chunk_dict counted them): a dictionary
 * holds those, each once, and the blocks of such chunks hardly ever chose
 * fsst; training their tables was 6 % of importing bench_gen mixed (country
 * and device codes), and without them its table and the sizes datasets'
 * came out within 0.02 % of their bytes (pci.ids 40 bytes larger, mixed 464,
 * the package index 40 smaller). A column that forces another scheme or no compression does
 * without; one that forces fsst always has one. */
#define IG_FSST_MIN_BYTES (16u << 10)
#define IG_FSST_FEW_DIVISOR 16
static bool wants_table(const struct enc *w, uint32_t l)
{
    const struct ig_column_def *cd = leaf_def(w, l);
    const struct ig_values *v = &w->g->cols[l];
    const struct ig_chunk_dict *d = &w->g->dicts[l];
    if (!v->is_bytes || cd->type == IG_T_BLOB || !v->n) return false;
    if (cd->encoding == IG_ENC_FSST) return true;
    return cd->encoding == IG_ENC_AUTO && cd->compression == IG_COMP_AUTO &&
           v->offs[v->n] - v->offs[0] >= IG_FSST_MIN_BYTES &&
           !(d->count && d->count <= v->n / IG_FSST_FEW_DIVISOR);
}

/* A flat chunk of strings or binary values gets a zstd dictionary (format 13:
 * its context's kind 2) when it holds IG_ZDICT_MIN_BYTES of values or more:
 * its blocks are then compressed against it where that is smaller
 * (page.c). The dictionary is 1/IG_ZDICT_SHARE of the values' bytes (about
 * 1/32 of the chunk's stored bytes at the 2x strings compress by), at most
 * IG_ZDICT_MAX: a cold row read reads the context once per chunk, so it is
 * kept small beside the chunk. Measured on the sizes datasets
 * (docs/BENCHMARKS.md): 1/32 came out no smaller anywhere, 1/128 0.3 %
 * smaller on the package index but 6 % larger on captions of words (whose
 * vocabulary then no longer fits). Nested leaves do without (an erase rewrites
 * their pages whole). */
#define IG_ZDICT_MIN_BYTES (256u << 10)
#define IG_ZDICT_SHARE 64
#define IG_ZDICT_MAX (64u << 10)
static size_t dict_target(const struct enc *w, uint32_t l)
{
    const struct ig_column_def *cd = leaf_def(w, l);
    const struct ig_values *v = &w->g->cols[l];
    if (!v->is_bytes || cd->type == IG_T_BLOB || !v->n || v->levels) return 0;
    if (cd->encoding != IG_ENC_AUTO || cd->compression == IG_COMP_NONE) return 0;
    uint64_t bytes = v->offs[v->n] - v->offs[0];
    if (bytes < IG_ZDICT_MIN_BYTES) return 0;
    uint64_t t = bytes / IG_ZDICT_SHARE;
    return t > IG_ZDICT_MAX ? IG_ZDICT_MAX : (size_t)t;
}

/* Whether leaf l's blocks would be whole-block zstd without a chunk
 * dictionary: IG_ZDICT_PROBE_RUNS runs of about a fitted block's values
 * (IG_ZDICT_PROBE_RUN plain bytes: 4 KiB stored at the 2x strings compress
 * by), spread over the chunk, encoded as the page layer would without one;
 * zstd kept in at least half. Then a row read decompresses a whole block
 * already, and the dictionary's frames may fill a grain as well (page.h,
 * zdict_grain): on the package index (names, descriptions, paths, URLs)
 * such frames save what 1.5 KiB ones lose to their records and headers. */
#define IG_ZDICT_PROBE_RUNS 8
#define IG_ZDICT_PROBE_RUN (8u << 10)
static int blocks_zstd(const struct enc *w, uint32_t l, struct ig_page_scratch *s, bool *out,
                       struct ig_error *err)
{
    struct ig_values *v = &w->g->cols[l];
    struct ig_page_policy pol;
    ig_writer_leaf_policy(w, l, &pol);
    pol.zdict = NULL;
    struct ig_page_built unit = {0};
    unsigned tried = 0, zstd = 0;
    int rc = 0;
    for (unsigned k = 0; k < IG_ZDICT_PROBE_RUNS && !rc; k++) {
        size_t i = (size_t)((uint64_t)v->n * k / IG_ZDICT_PROBE_RUNS), j = i;
        while (j < v->n && v->offs[j] - v->offs[i] < IG_ZDICT_PROBE_RUN)
            j++;
        if (j == i || (k && i == (size_t)((uint64_t)v->n * (k - 1) / IG_ZDICT_PROBE_RUNS))) continue;
        rc = ig_page_encode(&pol, v, i, j - i, s, &unit, err);
        tried++;
        if (unit.compression != IG_PC_NONE) zstd++;
    }
    ig_page_built_free(&unit);
    *out = tried && 2 * zstd >= tried;
    return rc;
}

/* A chunk whose blocks would not be whole-block zstd gets no dictionary when
 * 32 KiB of its values hold fewer than this many distinct 4-byte windows
 * (ig_zdict_train): a vocabulary of a few dozen words, which every block
 * holds nearly all of already (fsst's symbols, zstd's own matches).
 * bench_gen mixed's two text columns hold about 1,400 and 1,500 and its
 * low-cardinality strings 14; their dictionaries never paid (dict_pays), and
 * training them was a sixth of the import's CPU. Among the sizes datasets the
 * one such chunk whose dictionary paid holds 22,000 (captions of words);
 * whole-block zstd chunks train theirs at any size (a 300-byte one of the
 * package index's 159 windows pays). */
#define IG_ZDICT_LEAST_WINDOWS 4096

/* A dictionary stays when it would save at least IG_ZDICT_PAYS times its
 * own bytes over the chunk (random text: nothing to share, and the
 * dictionary would only add its bytes), in the frames its blocks will hold
 * (a grain's where they would be whole-block zstd, else 1.5 KiB). */
#define IG_ZDICT_PAYS 2
static bool dict_pays(const struct enc *w, uint32_t l)
{
    const struct ig_values *v = &w->g->cols[l];
    struct ig_zdict *d = w->g->ctx[l].zdict;
    int level = w->c->o.zstd_level_bytes ? w->c->o.zstd_level_bytes : w->c->o.zstd_level;
    size_t grain = w->g->ctx[l].zdict_grain ? IG_FIT_GRAIN : 0;
    uint64_t gain = ig_zdict_gain(d, v->offs, v->data.data, v->n, level ? level : 3,
                                  ig_zdict_level(level), grain);
    return gain >= IG_ZDICT_PAYS * (uint64_t)ig_zdict_size(d);
}

/* Segments: a column of one leaf whose group holds more than this many plain
 * bytes is encoded in runs of whole pages of about this size, each by any
 * thread (writer_int.h). Big enough that taking one costs nothing beside
 * encoding it (a lock, a few milliseconds of work), small enough that a group
 * of one 32 MiB column keeps two cores busy to its end. */
#define IG_SEGMENT_BYTES (1u << 20)

/* The leaves [l0, l1) of top-level column `top`. */
static int column_leaves(const struct ig_schema *s, uint32_t top, uint32_t *l0, uint32_t *l1,
                         struct ig_error *err)
{
    *l0 = UINT32_MAX;
    *l1 = 0;
    for (uint32_t k = top; k < s->n && s->cols[k].top == top; k++)
        if (s->cols[k].leaf != IG_SCHEMA_NONE) {
            if (*l0 == UINT32_MAX) *l0 = s->cols[k].leaf;
            *l1 = s->cols[k].leaf + 1;
        }
    if (*l0 == UINT32_MAX)
        return ig_err(err, -EINVAL, "column '%s' has no leaves", s->cols[top].name);
    return 0;
}

static int add_cut(struct ig_column_work *cw, size_t row)
{
    if (cw->ncuts + 2 > cw->cuts_cap) {
        size_t cap = cw->cuts_cap ? cw->cuts_cap * 2 : 64;
        size_t *c = realloc(cw->cuts, cap * sizeof *c);
        if (!c) return -ENOMEM;
        cw->cuts = c;
        cw->cuts_cap = cap;
    }
    cw->cuts[cw->ncuts++] = row;
    return 0;
}

/* The zstd level of a string leaf's blocks (0: the default). */
static int block_level(const struct enc *w)
{
    return w->c->o.zstd_level_bytes ? w->c->o.zstd_level_bytes : w->c->o.zstd_level;
}

int ig_writer_plan_column(const struct ig_writer_conf *c, struct ig_group_job *g, uint32_t t,
                          struct ig_encoder *e, struct ig_error *err)
{
    struct ig_column_work *cw = &g->work[t];
    struct enc w = {c, g, e, NULL, {0}, 0};
    cw->ncuts = 0;
    cw->nsegs = 0;
    int rc = column_leaves(c->schema, c->schema->tops[t], &cw->l0, &cw->l1, err);
    if (rc) return rc;
    uint32_t l0 = cw->l0, l1 = cw->l1;
    /* the leaves of a nested column are cut into blocks together, by the
     * largest: about this share of the group's rows a block (its target
     * asks nothing of the part being written, which w does not have yet) */
    double block_share = 0;
    if (l1 > l0 + 1) {
        uint64_t most = leaves_plain_bytes(&w, l0, l1, 0, g->rows), target = ig_writer_block_target(&w, l0, l1);
        block_share = !target || most <= target ? 1 : (double)target / (double)most;
    }
    for (uint32_t l = l0; l < l1 && !rc; l++) {
        g->cols[l].row_base = c->first_row_id + g->first_row; /* for blob paths in the text */
        g->slides[l] = ig_writer_slide_candidate(leaf_def(&w, l), &g->cols[l]) ? IG_SLIDES_OFFERED : 0;
        round_quantized(&w, l); /* bounds of the values as they read back */
        ig_minmax_of(&g->cols[l], NULL, &g->bounds[l]);
        if (chunk_dict(&g->cols[l], &g->dicts[l], &g->ids[l], &e->chunk_set, &e->short_ids)) rc = -ENOMEM;
        /* format 14: the chunk's values once in its context, codes in its blocks */
        if (!rc)
            rc = ig_writer_plan_vdict(leaf_def(&w, l), &g->cols[l], &g->dicts[l], &g->ids[l], &e->chunk_set,
                                      block_level(&w), (size_t)(block_share * (double)g->cols[l].n),
                                      &g->vcodes[l], &g->ctx[l]);
        if (g->vcodes[l].on) continue; /* no symbol table, no zstd dictionary */
        if (!rc && wants_table(&w, l))
            rc = ig_fsst_train_in(g->cols[l].offs, g->cols[l].data.data, g->cols[l].n, &e->train,
                                  &g->ctx[l].fsst);
        size_t target = rc ? 0 : dict_target(&w, l);
        if (target) rc = blocks_zstd(&w, l, &e->scratch, &g->ctx[l].zdict_grain, err);
        if (target && !rc)
            rc = ig_zdict_train_in(g->cols[l].offs, g->cols[l].data.data, g->cols[l].n, target,
                                   g->ctx[l].zdict_grain ? 0 : IG_ZDICT_LEAST_WINDOWS, &e->train,
                                   &g->ctx[l].zdict);
        if (!rc && g->ctx[l].zdict && !dict_pays(&w, l)) {
            ig_zdict_free(g->ctx[l].zdict);
            g->ctx[l].zdict = NULL;
        }
    }
    if (!rc && l1 == l0 + 1) rc = slide_bytes_probe(&w, l0, err);
    /* a nested column's leaves share page boundaries (their pages are
     * reassembled together); a flat leaf pages alone */
    for (size_t start = 0; start < g->rows && !rc;) {
        rc = add_cut(cw, start);
        start = page_end(&w, l0, l1, start);
    }
    if (!rc) rc = add_cut(cw, g->rows);
    if (rc) return ig_err(err, rc, "out of memory");
    cw->ncuts--; /* the last entry ends the last page */
    /* one leaf, not fitted to disk pages (whose fit carries from page to page),
     * and large: in segments */
    uint64_t bytes = plain_bytes(&g->cols[l0], 0, g->rows);
    uint64_t page = ig_writer_leaf_page_size(c, l0);
    cw->seg_pages = (uint32_t)(cw->ncuts ? cw->ncuts : 1);
    if (l1 == l0 + 1 && !ig_writer_leaf_fitted(&w, l0) && bytes > 2ull * IG_SEGMENT_BYTES && page) {
        uint64_t per = IG_SEGMENT_BYTES / page;
        if (per < cw->ncuts) cw->seg_pages = (uint32_t)(per ? per : 1);
    }
    uint32_t nsegs = cw->ncuts ? (uint32_t)((cw->ncuts + cw->seg_pages - 1) / cw->seg_pages) : 1;
    if (nsegs > cw->segs_cap) {
        struct ig_column_out *o = realloc(cw->segs, nsegs * sizeof *o);
        if (!o) return ig_err(err, -ENOMEM, "out of memory");
        memset(o + cw->segs_cap, 0, (nsegs - cw->segs_cap) * sizeof *o);
        cw->segs = o;
        cw->segs_cap = nsegs;
    }
    cw->nsegs = nsegs;
    return 0;
}
