/* writer_encode.c - one top-level column of one row group into pages: where
 * pages and blocks are cut, each page encoded (page.h), its records and bytes
 * kept in the column's ig_column_out until writer.c commits the group. Reads
 * only the job and the schema, so columns of a group encode on several threads
 * at once (writer_int.h). */
#include "format/part/writer_int.h"
#include "format/model/assemble.h"
#include "format/layout.h"
#include "format/page/slide.h"
#include "format/model/quantize.h"
#include "format/model/types.h"
#include "format/enc/codec.h"
#include "util/buf.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/strset.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The encoding of one column: shared settings, its group, this thread's state,
 * and where its pages go. */
struct enc {
    const struct ig_writer_conf *c;
    struct ig_group_job *g;
    struct ig_encoder *e;
    struct ig_column_out *out;
    struct ig_block_fit fit; /* fitted blocks: what the pages before showed (ratio, layout) */
    double cut_ratio; /* a column of one leaf: stored per plain byte of its page before (block_target) */
    uint32_t page_deleted; /* a graft: rows of the page deleted already (its record's count) */
};

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
/* Blocks: a row read (rows/ID, a take) reads, checks and decodes one block of
 * each column, so small blocks make it cheap; each block compresses on its own,
 * so small blocks also compress less (captions: 2.15x at 4 KiB, 2.69x at 64
 * KiB under zstd) and cost 40 bytes of footer. 4 KiB of values: about one disk
 * page stored, a few microseconds to decode. */
#define IG_BLOCK_SIZE 4096

static const struct ig_column_def *leaf_def(const struct enc *w, uint32_t l)
{
    return &w->c->schema->cols[w->c->schema->leaves[l]];
}

uint32_t ig_writer_leaf_page_size(const struct ig_writer_conf *c, uint32_t l)
{
    const struct ig_column_def *cd = &c->schema->cols[c->schema->leaves[l]];
    if (cd->page_size) return cd->page_size;
    if (cd->type == IG_T_BLOB) return IG_BLOB_PAGE_SIZE;
    return cd->encoding == IG_ENC_SPLIT ? IG_SPLIT_PAGE_SIZE : c->o.page_size;
}

static bool slide_candidate(const struct ig_column_def *cd, const struct ig_values *v);

/* The target block size of a leaf (0: one block per page): what the schema
 * says, else IG_BLOCK_SIZE, except for pages that are one unit already (blob
 * references, sliding windows, byte-stream split made for zstd). */
static uint32_t leaf_block_size(const struct enc *w, uint32_t l)
{
    const struct ig_column_def *cd = leaf_def(w, l);
    if (cd->block_size == IG_BLOCK_WHOLE_PAGE) return 0;
    if (cd->block_size) return cd->block_size;
    if (cd->type == IG_T_BLOB || cd->encoding == IG_ENC_SPLIT || slide_candidate(cd, &w->g->cols[l]))
        return 0;
    return w->c->o.block_size ? w->c->o.block_size : IG_BLOCK_SIZE;
}

/* The page's block records, appended to the blocks section; returns the
 * page's checksum: the hash of those records. */
static uint64_t append_block_records(struct enc *w, const struct ig_page_built *b, int *rc)
{
    size_t at = w->out->blocks.len;
    for (uint32_t k = 0; k < b->nblocks && !*rc; k++) {
        const struct ig_block_built *bb = &b->blocks[k];
        uint8_t r[IG_BLK_SIZE] = {0};
        ig_st32(r + IG_BLK_OFFSET, bb->offset);
        ig_st32(r + IG_BLK_STORED, bb->stored);
        ig_st32(r + IG_BLK_BODY_SIZE, bb->body_size);
        ig_st32(r + IG_BLK_FIRST_ROW, bb->first_row);
        ig_st32(r + IG_BLK_ROW_COUNT, bb->row_count);
        ig_st32(r + IG_BLK_ENTRY_COUNT, bb->entry_count);
        ig_st32(r + IG_BLK_VALUE_COUNT, bb->value_count);
        r[IG_BLK_COMPRESSION] = bb->compression;
        r[IG_BLK_ENCODING] = bb->encoding;
        r[IG_BLK_FLAGS] = bb->flags;
        ig_st64(r + IG_BLK_CHECKSUM, bb->checksum);
        if (ig_buf_append(&w->out->blocks, r, sizeof r)) *rc = -ENOMEM;
    }
    return *rc ? 0 : ig_hash(w->out->blocks.data + at, w->out->blocks.len - at);
}

static int append_page_record(struct enc *w, uint32_t leaf, uint32_t first_row,
                              uint32_t rows, const struct ig_page_built *b, uint32_t capacity,
                              uint32_t live_values, uint64_t node_text)
{
    int rc = 0;
    uint32_t first_block = w->out->nblocks;
    uint64_t checksum = append_block_records(w, b, &rc);
    if (rc) return rc;
    w->out->nblocks += b->nblocks;
    uint8_t r[IG_PG_SIZE] = {0};
    ig_st64(r + IG_PG_OFFSET, w->out->stored.len); /* made absolute at commit */
    ig_st32(r + IG_PG_CAPACITY, capacity);
    ig_st32(r + IG_PG_STORED, (uint32_t)b->stored.len);
    ig_st32(r + IG_PG_FIRST_ROW, first_row);
    ig_st32(r + IG_PG_ROW_COUNT, rows);
    ig_st32(r + IG_PG_ENTRY_COUNT, b->entry_count);
    ig_st32(r + IG_PG_VALUE_COUNT, b->value_count);
    r[IG_PG_ENCODING] = b->encoding;
    r[IG_PG_COMPRESSION] = b->compression;
    r[IG_PG_FLAGS] = b->flags;
    ig_st64(r + IG_PG_CHECKSUM, checksum);
    ig_st64(r + IG_PG_TEXT_LEN, b->text_len);
    ig_st32(r + IG_PG_BODY_SIZE, b->body_size);
    ig_st32(r + IG_PG_DELETED, w->page_deleted);
    ig_st32(r + IG_PG_LEAF, leaf);
    uint8_t x[IG_PX_SIZE] = {0};
    ig_st32(x + IG_PX_LIVE_VALUES, live_values);
    ig_st32(x + IG_PX_FIRST_BLOCK, first_block);
    ig_st64(x + IG_PX_NODE_TEXT, node_text);
    if (ig_buf_append(&w->out->pages, r, sizeof r) || ig_buf_append(&w->out->extras, x, sizeof x))
        return -ENOMEM;
    return 0;
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

/* The plain bytes of rows [a, b) of leaves [l0, l1). */
static uint64_t leaves_plain_bytes(const struct enc *w, uint32_t l0, uint32_t l1, size_t a, size_t b)
{
    uint64_t sum = 0;
    for (uint32_t l = l0; l < l1; l++)
        sum += plain_bytes(&w->g->cols[l], a, b);
    return sum;
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
 * block at 4 KiB plain, each block with its own dictionary) import in 0.65 of
 * the time and store 0.92 of the bytes. Twice at most: a row read of an id
 * column (delta-coded, 17x) then decodes 8 KiB, 0.3 us more a row in a take.
 * Blocks of incompressible values stay as they were; a nested column of
 * several leaves keeps the plain measure (its leaves are cut alike). */
#define IG_BLOCK_GROWTH_MAX 2

/* The plain bytes a block of the column of leaves [l0, l1) aims at. */
static uint32_t block_target(const struct enc *w, uint32_t l0, uint32_t l1)
{
    uint32_t bs = leaf_block_size(w, l0);
    const struct ig_column_def *cd = leaf_def(w, l0);
    if (!bs || l1 != l0 + 1 || cd->block_size || w->c->o.block_size || w->out->fitted || !(w->cut_ratio > 0))
        return bs;
    double r = w->cut_ratio < 1.0 / IG_BLOCK_GROWTH_MAX ? 1.0 / IG_BLOCK_GROWTH_MAX : w->cut_ratio;
    return r >= 1 ? bs : (uint32_t)((double)bs / r);
}

/* The page of rows [a, b) of leaf l just encoded (w->e->built): what it
 * stored per plain byte, for the blocks of the next page. */
static void page_ratio(struct enc *w, uint32_t l, size_t a, size_t b)
{
    uint64_t plain = plain_bytes(&w->g->cols[l], a, b);
    w->cut_ratio = plain ? (double)w->e->built.stored.len / (double)plain : 0;
}

/* Will this leaf be offered sliding-window pages? (encode_leaf_page asks the same) */
static bool slide_candidate(const struct ig_column_def *cd, const struct ig_values *v)
{
    struct ig_leaf_info li = {.type = cd->type,
                              .max_rep = cd->max_rep,
                              .max_def = cd->max_def,
                              .quantize = cd->quantize,
                              .levels = v->levels,
                              .per_value = cd->dimension ? cd->dimension : 1};
    return v->levels && cd->parent == IG_SCHEMA_NONE &&
           ig_slide_fits(&li, cd->lists, cd->null_mask) &&
           (cd->encoding == IG_ENC_AUTO || cd->encoding == IG_PAGE_ENC_SLIDE);
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
    if (l1 == l0 + 1 && slide_candidate(cd, v)) { /* measured as it will be stored */
        /* every page restarts the windows with a base row (a whole window of
         * new values), so unless the column says otherwise these pages are
         * larger: reading one row still decodes only from its base on */
        if (!cd->page_size) target *= IG_SLIDE_PAGE_FACTOR;
        uint64_t acc = 0;
        const uint64_t *prev = NULL;
        size_t pn = 0, r = start;
        bool sgn = ig_type_info(v->type)->is_signed;
        struct ig_slide_sizer z = {0};
        uint64_t limit = 8 * target;
        for (bool grown = false;; grown = true) {
            while (r < rows && acc < limit) {
                const uint64_t *cur = v->lanes + v->row_val[r];
                size_t cn = v->row_val[r + 1] - v->row_val[r];
                acc += ig_slide_sizer_row(&z, prev, pn, cur, cn, sgn);
                if (cn) prev = cur, pn = cn; /* rows without values are transparent */
                r++;
            }
            /* large ids that recur (hashed ids) are stored once per page, in
             * a dictionary, which pays the more rows the page has: such pages
             * (a dictionary saving a fifth of their bits) are larger */
            if (r == rows || grown || z.saved * 5 < acc) break;
            limit *= IG_SLIDE_DICT_PAGE_FACTOR;
        }
        ig_slide_sizer_free(&z);
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
static bool leaf_fitted(const struct enc *w, uint32_t l)
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
static size_t block_cuts(struct enc *w, uint32_t l0, uint32_t l1, size_t a, size_t b,
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
    uint64_t at = v->offs[i], k = 0;
    if (at + 8 <= v->data.len)
        k = len ? ig_ld64(v->data.data + at) & (~0ull >> (64 - 8 * len)) : 0;
    else
        for (size_t j = 0; j < len; j++)
            k |= (uint64_t)v->data.data[at + j] << (8 * j);
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

/* Text of rows [a, b) of a nested column (tree t over leaves l0..) or of one
 * leaf's projection. */
static int nested_text(struct enc *w, const struct ig_tree *t, size_t a, size_t b,
                       const uint64_t *values_len, uint64_t *len, struct ig_error *err)
{
    struct ig_values *views[256], **vp = views;
    if (t->nleaves > 256 && !(vp = malloc(t->nleaves * sizeof *vp)))
        return ig_err(err, -ENOMEM, "out of memory");
    struct ig_values *slice = calloc(t->nleaves, sizeof *slice);
    int rc = slice ? 0 : ig_err(err, -ENOMEM, "out of memory");
    for (uint32_t i = 0; i < t->nleaves && !rc; i++) {
        /* a view of rows [a, b): shift the row index, keep the arrays */
        const struct ig_values *v = &w->g->cols[t->leaf_global[i]];
        slice[i] = *v;
        slice[i].rows = b - a;
        slice[i].row_ent = v->row_ent + a;
        slice[i].row_val = v->row_val + a;
        slice[i].row_base = w->c->first_row_id + w->g->first_row + a;
        vp[i] = &slice[i];
    }
    if (!rc)
        rc = values_len ? ig_assemble_measure_known(t, vp, b - a, *values_len, len, err)
                        : ig_assemble_lines(t, vp, b - a, NULL, NULL, len, err);
    free(slice);
    if (vp != views) free(vp);
    return rc;
}

/* The page's blocks (each with its own zeroed slack, page.h) and its records,
 * after the column's earlier pages. */
static int count_uses(struct enc *w, uint32_t l, struct ig_error *err);

static int write_page(struct enc *w, uint32_t l, size_t start, size_t end,
                      uint32_t live_values, uint64_t node_text, struct ig_error *err)
{
    size_t stored = w->e->built.stored.len;
    int rc = count_uses(w, l, err);
    if (rc) return rc;
    rc = append_page_record(w, l, (uint32_t)start, (uint32_t)(end - start), &w->e->built,
                            (uint32_t)stored, live_values, node_text);
    if (!rc) rc = ig_buf_append(&w->out->stored, w->e->built.stored.data, stored);
    if (rc) return ig_err(err, rc, "%s: out of memory", w->c->path);
    w->out->npages++;
    return 0;
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

/* Page [start, end) of leaf l, in the blocks w->e->cuts says (ncuts of them). */
static int encode_leaf_page(struct enc *w, uint32_t l, size_t start, size_t end,
                            size_t ncuts, struct ig_error *err)
{
    const struct ig_column_def *cd = leaf_def(w, l);
    struct ig_values *v = &w->g->cols[l];
    struct ig_page_policy pol = {.type = cd->type,
                                 .encoding = cd->encoding,
                                 .compression = cd->compression,
                                 .zstd_level = block_zstd_level(w, v),
                                 .leaf = {.type = cd->type,
                                          .max_rep = cd->max_rep,
                                          .max_def = cd->max_def,
                                          .quantize = cd->quantize,
                                          .levels = v->levels,
                                          .per_value = cd->dimension ? cd->dimension : 1,
                                          .lt = cd->lt}};
    pol.leaf.slide_ok = slide_candidate(cd, v);
    pol.decimal = true;           /* this writer writes format 8 or later (IG_FORMAT_VERSION) */
    pol.alp = true;               /* and 12: alp, */
    pol.fsst = w->g->ctx[l].fsst; /* chunk contexts */
    if (w->g->ids[l].valid) pol.item_ids = w->g->ids[l].id;
    w->fit.grain = w->out->fitted ? IG_FIT_GRAIN : 0;
    w->fit.at = w->out->stored.len;
    int rc = ig_page_encode_blocks(&pol, v, start, end - start, w->e->cuts, ncuts, &w->fit,
                                   &w->e->scratch, &w->e->built, err);
    if (rc)
        return ig_err_prefix(err, rc, "%s: column '%s' row group %u", w->c->path, cd->name,
                             w->g->index);
    return 0;
}

/* A chunk of strings or binary values gets an FSST symbol table (format 12:
 * its context) when its values are enough for one to pay: the table costs up
 * to ~2.5 KiB once, and training it ~2 ms; its blocks then choose to code
 * their values against it (page_encode.c). A column that forces another
 * scheme or no compression does without; one that forces fsst always has
 * one. */
#define IG_FSST_MIN_BYTES (16u << 10)
static bool wants_table(const struct enc *w, uint32_t l)
{
    const struct ig_column_def *cd = leaf_def(w, l);
    const struct ig_values *v = &w->g->cols[l];
    if (!v->is_bytes || cd->type == IG_T_BLOB || !v->n) return false;
    if (cd->encoding == IG_ENC_FSST) return true;
    return cd->encoding == IG_ENC_AUTO && cd->compression == IG_COMP_AUTO &&
           v->offs[v->n] - v->offs[0] >= IG_FSST_MIN_BYTES;
}

/* Add the uses the page just encoded (w->e->built) makes of leaf l's symbol
 * table to the segment's count of them. */
static int count_uses(struct enc *w, uint32_t l, struct ig_error *err)
{
    struct ig_chunk_ctx *cx = &w->g->ctx[l];
    if (!cx->fsst) return 0;
    struct ig_column_out *o = w->out;
    uint32_t k = 0;
    while (k < o->nuses && o->uses[k].leaf != l)
        k++;
    if (k == o->nuses) {
        if (o->nuses == o->uses_cap) {
            uint32_t cap = o->uses_cap ? o->uses_cap * 2 : 2;
            struct ig_leaf_uses *u = realloc(o->uses, cap * sizeof *u);
            if (!u) return ig_err(err, -ENOMEM, "out of memory");
            o->uses = u;
            o->uses_cap = cap;
        }
        o->uses[k] = (struct ig_leaf_uses){.leaf = l};
        o->nuses++;
    }
    const struct ig_column_def *cd = leaf_def(w, l);
    const struct ig_page_built *b = &w->e->built;
    struct ig_leaf_info li = {.type = cd->type, .levels = w->g->cols[l].levels};
    for (uint32_t j = 0; j < b->nblocks; j++) {
        const struct ig_block_built *bb = &b->blocks[j];
        struct ig_pagerec rec = {.stored = bb->stored,
                                 .row_count = bb->row_count,
                                 .entry_count = bb->entry_count,
                                 .value_count = bb->value_count,
                                 .compression = bb->compression,
                                 .body_size = bb->body_size,
                                 .cx = cx};
        int rc = ig_page_symbol_uses(b->stored.data + bb->offset, &rec, &li, &w->e->scratch,
                                     o->uses[k].counts, err);
        if (rc)
            return ig_err_prefix(err, rc, "%s: column '%s' row group %u", w->c->path, cd->name,
                                 w->g->index);
    }
    return 0;
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

int ig_writer_plan_column(const struct ig_writer_conf *c, struct ig_group_job *g, uint32_t t,
                          struct ig_encoder *e, struct ig_error *err)
{
    struct ig_column_work *cw = &g->work[t];
    struct enc w = {c, g, NULL, NULL, {0}, 0};
    cw->ncuts = 0;
    cw->nsegs = 0;
    int rc = column_leaves(c->schema, c->schema->tops[t], &cw->l0, &cw->l1, err);
    if (rc) return rc;
    uint32_t l0 = cw->l0, l1 = cw->l1;
    for (uint32_t l = l0; l < l1 && !rc; l++) {
        g->cols[l].row_base = c->first_row_id + g->first_row; /* for blob paths in the text */
        round_quantized(&w, l); /* bounds of the values as they read back */
        ig_minmax_of(&g->cols[l], NULL, &g->bounds[l]);
        if (chunk_dict(&g->cols[l], &g->dicts[l], &g->ids[l], &e->chunk_set, &e->short_ids)) rc = -ENOMEM;
        if (!rc && wants_table(&w, l))
            rc =
                ig_fsst_train(g->cols[l].offs, g->cols[l].data.data, g->cols[l].n, &g->ctx[l].fsst);
    }
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
    if (l1 == l0 + 1 && !leaf_fitted(&w, l0) && bytes > 2ull * IG_SEGMENT_BYTES && page) {
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

/* A graft's rows deleted already (writer.h, opts.deleted): is row r of the
 * group one? */
static bool row_deleted(const struct enc *w, size_t r);

/* A graft writes a row deleted already as NULL and then erases it from its
 * block exactly as an erase would have (ig_page_erase): the bytes left are
 * the erased form `ingot verify` checks, and an erasure never grows a block,
 * so it stays where it was encoded (zeros after it). Rows [start, end) of the
 * group, the page just encoded for leaf l. */
static int erase_deleted_rows(struct enc *w, uint32_t l, size_t start, struct ig_error *err)
{
    if (!w->c->o.deleted) return 0;
    struct ig_page_built *b = &w->e->built;
    const struct ig_column_def *cd = leaf_def(w, l);
    const struct ig_values *v = &w->g->cols[l];
    struct ig_leaf_info li = {.type = cd->type, .max_rep = cd->max_rep, .max_def = cd->max_def,
                              .quantize = cd->quantize, .levels = v->levels,
                              .per_value = cd->dimension ? cd->dimension : 1, .lt = cd->lt};
    struct ig_page_built out = {0};
    uint8_t *kill = NULL;
    int rc = 0;
    int64_t dent = 0, dval = 0;
    for (uint32_t k = 0; k < b->nblocks && !rc; k++) {
        struct ig_block_built *bb = &b->blocks[k];
        size_t first = start + bb->first_row, any = 0;
        uint8_t *kb = realloc(kill, bb->row_count / 8 + 1);
        if (!kb) {
            rc = ig_err(err, -ENOMEM, "out of memory");
            break;
        }
        kill = kb;
        memset(kill, 0, bb->row_count / 8 + 1);
        for (uint32_t i = 0; i < bb->row_count; i++)
            if (row_deleted(w, first + i)) {
                kill[i / 8] |= (uint8_t)(1u << (i % 8));
                any++;
            }
        if (!any) continue;
        uint32_t cap = k + 1 < b->nblocks ? b->blocks[k + 1].offset - bb->offset : (uint32_t)b->stored.len - bb->offset;
        struct ig_pagerec rec = {.capacity = cap,
                                 .stored = bb->stored,
                                 .first_row = bb->first_row,
                                 .row_count = bb->row_count,
                                 .entry_count = bb->entry_count,
                                 .value_count = bb->value_count,
                                 .encoding = bb->encoding,
                                 .compression = bb->compression,
                                 .flags = bb->flags,
                                 .checksum = bb->checksum,
                                 .body_size = bb->body_size,
                                 .leaf = l,
                                 .cx = &w->g->ctx[l]};
        const uint8_t *stored = b->stored.data + bb->offset;
        rc = v->levels ? ig_page_erase_leaf(stored, &rec, &li, kill, NULL, 3, &w->e->scratch, &out, err)
                       : ig_page_erase(stored, &rec, cd->type, NULL, kill, 3, &w->e->scratch, &out, err);
        if (!rc && out.stored.len > cap)
            rc = ig_err(err, -EIO, "%s: column '%s': an erased block grew", w->c->path, cd->name);
        if (rc) break;
        memcpy(b->stored.data + bb->offset, out.stored.data, out.stored.len);
        memset(b->stored.data + bb->offset + out.stored.len, 0, cap - out.stored.len);
        dent += (int64_t)(v->levels ? out.entry_count : bb->entry_count) - bb->entry_count;
        dval += (int64_t)(v->levels ? out.value_count : bb->value_count) - bb->value_count;
        if (v->levels) {
            bb->entry_count = out.entry_count;
            bb->value_count = out.value_count;
        }
        bb->stored = (uint32_t)out.stored.len;
        bb->body_size = out.body_size;
        bb->encoding = out.encoding;
        bb->compression = out.compression;
        bb->flags = out.flags;
        bb->checksum = ig_hash(out.stored.data, out.stored.len);
    }
    b->entry_count = (uint32_t)((int64_t)b->entry_count + dent);
    b->value_count = (uint32_t)((int64_t)b->value_count + dval);
    free(kill);
    ig_page_built_free(&out);
    return rc;
}

/* A graft's rows deleted already (writer.h, opts.deleted): is row r of the
 * group one? */
static bool row_deleted(const struct enc *w, size_t r)
{
    const uint8_t *d = w->c->o.deleted;
    uint64_t row = w->g->first_row + r;
    return d && (d[row / 8] >> (row % 8)) & 1;
}

/* A graft writes rows deleted already as NULLs (their erased form), and
 * their page counts them as an erase would have: the rows deleted, their
 * value slots not live, their text not in the page's text length. */
static int discount_flat(struct enc *w, uint32_t l, size_t start, size_t end, uint32_t *live_values,
                         struct ig_error *err)
{
    w->page_deleted = 0;
    if (!w->c->o.deleted) return 0;
    const struct ig_column_def *cd = leaf_def(w, l);
    const struct ig_values *v = &w->g->cols[l];
    uint32_t per_row = cd->dimension ? cd->dimension : 1;
    for (size_t r = start; r < end; r++) {
        if (!row_deleted(w, r)) continue;
        uint64_t len = 0;
        if (ig_page_text_len(v, r * per_row, per_row, &w->e->scratch, &len))
            return ig_err(err, -ENOMEM, "out of memory");
        w->e->built.text_len -= len < w->e->built.text_len ? len : w->e->built.text_len;
        *live_values -= per_row;
        w->page_deleted++;
    }
    return 0;
}

static int nested_text(struct enc *w, const struct ig_tree *t, size_t a, size_t b, const uint64_t *values_len,
                       uint64_t *len, struct ig_error *err);

static int discount_nested(struct enc *w, uint32_t l, const struct ig_tree *proj, const struct ig_tree *whole,
                           size_t a, size_t b, uint32_t *live_values, uint64_t *node_text, struct ig_error *err)
{
    w->page_deleted = 0;
    if (!w->c->o.deleted) return 0;
    const struct ig_values *v = &w->g->cols[l];
    for (size_t r = a; r < b; r++) {
        if (!row_deleted(w, r)) continue;
        uint64_t len = 0, node = 0;
        int rc = nested_text(w, proj, r, r + 1, NULL, &len, err);
        if (!rc && node_text && *node_text) rc = whole ? nested_text(w, whole, r, r + 1, NULL, &node, err) : 0;
        if (rc) return rc;
        if (node_text && *node_text) *node_text -= (whole ? node : len) < *node_text ? (whole ? node : len) : *node_text;
        w->e->built.text_len -= len < w->e->built.text_len ? len : w->e->built.text_len;
        *live_values -= (uint32_t)(v->row_val[r + 1] - v->row_val[r]);
        w->page_deleted++;
    }
    return 0;
}

/* Pages [p0, p1) of a flat leaf l. */
static int encode_flat_pages(struct enc *w, uint32_t l, const size_t *cuts, size_t p0, size_t p1,
                             struct ig_error *err)
{
    int rc = 0;
    const struct ig_column_def *cd = leaf_def(w, l);
    uint32_t per_row = cd->dimension ? cd->dimension : 1;
    for (size_t p = p0; p < p1 && !rc; p++) {
        size_t start = cuts[p], end = cuts[p + 1];
        /* blocks fitted to disk pages are sized as they are encoded: only
         * the first one's rows are a guess (page.h), so only it is cut (the
         * other cuts, a search each, were thrown away) */
        size_t nb = block_cuts(w, l, l + 1, start, end, block_target(w, l, l + 1), w->out->fitted, &rc);
        if (!rc) rc = encode_leaf_page(w, l, start, end, nb, err);
        if (!rc) page_ratio(w, l, start, end);
        uint32_t live = (uint32_t)(end - start) * per_row;
        if (!rc) rc = erase_deleted_rows(w, l, start, err);
        if (!rc) rc = discount_flat(w, l, start, end, &live, err);
        if (!rc) rc = write_page(w, l, start, end, live, 0, err);
    }
    return rc;
}

/* Pages [p0, p1) of each leaf of a nested column (leaves l0..l1), leaf by
 * leaf: the leaf's own text and, with the first leaf, the whole column's. */
static int encode_nested_pages(struct enc *w, uint32_t top, uint32_t l0, uint32_t l1,
                               const size_t *cuts, size_t p0, size_t p1, uint32_t *leaf_pages,
                               struct ig_error *err)
{
    const struct ig_schema *s = w->c->schema;
    struct ig_tree whole = {0}, *proj = calloc(l1 - l0, sizeof *proj);
    int rc = proj ? 0 : ig_err(err, -ENOMEM, "out of memory");
    if (!rc && l1 - l0 > 1) rc = ig_tree_from_schema(s, top, UINT32_MAX, &whole, err);
    for (uint32_t l = l0; l < l1 && !rc; l++)
        rc = ig_tree_from_schema(s, top, s->leaves[l], &proj[l - l0], err);
    for (uint32_t l = l0; l < l1 && !rc; l++) {
        uint32_t first = w->out->npages;
        for (size_t p = p0; p < p1 && !rc; p++) {
            size_t a = cuts[p], b = cuts[p + 1];
            /* every leaf of the column is cut into blocks alike (by the first
             * leaf's block size, plain: block_target), so block j of each
             * covers the same rows */
            size_t nb = block_cuts(w, l0, l1, a, b, block_target(w, l0, l1), false, &rc);
            if (!rc) rc = encode_leaf_page(w, l, a, b, nb, err);
            if (!rc) page_ratio(w, l, a, b);
            if (!rc) rc = erase_deleted_rows(w, l, a, err);
            uint64_t leaf_text = 0, node_text = 0;
            /* the JSON length of the leaf's values, when the page's census
             * gave it: the count walks only the levels */
            const uint64_t *known = w->e->built.values_json_known ? &w->e->built.values_json_len : NULL;
            if (!rc) rc = nested_text(w, &proj[l - l0], a, b, known, &leaf_text, err);
            /* a column of one leaf (a list, a vector) is its own projection */
            if (!rc && l == l0) {
                if (l1 - l0 == 1)
                    node_text = leaf_text;
                else
                    rc = nested_text(w, &whole, a, b, NULL, &node_text, err);
            }
            w->e->built.text_len = leaf_text;
            const struct ig_values *v = &w->g->cols[l];
            uint32_t live = (uint32_t)(v->row_val[b] - v->row_val[a]);
            if (!rc)
                rc = discount_nested(w, l, &proj[l - l0], l1 - l0 > 1 ? &whole : NULL, a, b, &live,
                                     l == l0 ? &node_text : NULL, err);
            if (!rc) rc = write_page(w, l, a, b, live, node_text, err);
        }
        if (leaf_pages) leaf_pages[l] = w->out->npages - first;
    }
    ig_tree_free(&whole);
    for (uint32_t l = l0; proj && l < l1; l++)
        ig_tree_free(&proj[l - l0]);
    free(proj);
    return rc;
}

int ig_writer_encode_segment(const struct ig_writer_conf *c, struct ig_group_job *g, uint32_t t,
                             uint32_t s, struct ig_encoder *e, struct ig_error *err)
{
    struct ig_column_work *cw = &g->work[t];
    struct ig_column_out *out = &cw->segs[s];
    ig_buf_reset(&out->stored);
    ig_buf_reset(&out->pages);
    ig_buf_reset(&out->extras);
    ig_buf_reset(&out->blocks);
    out->npages = out->nblocks = 0;
    out->nuses = 0;
    out->fitted = false;
    struct enc w = {c, g, e, out, {0}, 0};
    size_t p0 = (size_t)s * cw->seg_pages;
    size_t p1 = p0 + cw->seg_pages < cw->ncuts ? p0 + cw->seg_pages : cw->ncuts;
    /* a column of one segment counts its leaves' pages here; commit adds up
     * the segments of a segmented one (one leaf) */
    uint32_t *leaf_pages = cw->nsegs == 1 ? g->leaf_pages : NULL;
    if (g->cols[cw->l0].levels)
        return encode_nested_pages(&w, c->schema->tops[t], cw->l0, cw->l1, cw->cuts, p0, p1,
                                   leaf_pages, err);
    out->fitted = leaf_fitted(&w, cw->l0); /* never segmented */
    int rc = encode_flat_pages(&w, cw->l0, cw->cuts, p0, p1, err);
    if (leaf_pages) leaf_pages[cw->l0] = out->npages;
    return rc;
}

void ig_encoder_free(struct ig_encoder *e)
{
    free(e->cuts);
    ig_strset_free(&e->chunk_set);
    free(e->short_ids.key);
    free(e->short_ids.id);
    ig_page_scratch_free(&e->scratch);
    ig_page_built_free(&e->built);
    memset(e, 0, sizeof *e);
}

void ig_column_work_free(struct ig_column_work *cw)
{
    for (uint32_t k = 0; k < cw->segs_cap; k++) {
        struct ig_column_out *o = &cw->segs[k];
        ig_buf_free(&o->stored);
        ig_buf_free(&o->pages);
        ig_buf_free(&o->extras);
        ig_buf_free(&o->blocks);
        free(o->uses);
    }
    free(cw->segs);
    free(cw->cuts);
    memset(cw, 0, sizeof *cw);
}
