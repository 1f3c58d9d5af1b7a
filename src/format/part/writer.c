#include "format/part/writer.h"
#include "format/part/columns.h"
#include "format/model/assemble.h"
#include "format/layout.h"
#include "format/part/merkle.h"
#include "format/model/names.h"
#include "format/page/page.h"
#include "format/page/slide.h"
#include "format/model/quantize.h"
#include "format/model/types.h"
#include "format/enc/codec.h"
#include "blob/blob.h"
#include "util/buf.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Blob references default to small pages: reaching one object then reads one
 * small page of references plus the object itself. */
#define IG_BLOB_PAGE_SIZE 4096
/* Byte-stream split pages are made to be compressed: at 1 MiB each byte plane
 * fills whole zstd blocks (128 KiB), so each plane gets its own entropy tables
 * (float32 embeddings: 14% smaller at 1 MiB, 0-8% at 64 KiB). */
#define IG_SPLIT_PAGE_SIZE (1u << 20)
/* Sliding-window pages default to this many times the page size (page_end). */
#define IG_SLIDE_PAGE_FACTOR 2
/* Blocks: a row read (rows/ID, a take) reads, checks and decodes one block of
 * each column, so small blocks make it cheap; each block compresses on its own,
 * so small blocks also compress less (captions: 2.15x at 4 KiB, 2.69x at 64
 * KiB under zstd) and cost 40 bytes of footer. 4 KiB of values: about one disk
 * page stored, a few microseconds to decode. */
#define IG_BLOCK_SIZE 4096

struct ig_part_writer {
    int fd;
    char *path;
    bool finished;
    const struct ig_schema *schema;
    struct ig_writer_opts o;
    uint64_t first_row_id;
    struct ig_values *cols; /* one per leaf */
    uint64_t rows;          /* rows finished, all groups */
    uint32_t group_rows;    /* rows buffered in the current group */
    uint64_t offset;        /* next write position */
    struct ig_buf pages, extras, groups, chunks, blocks;
    uint32_t num_pages, num_groups, num_blocks;
    size_t *cuts;         /* block cuts of the page being written (rows from its start) */
    size_t cuts_cap;
    uint32_t *chunk_first; /* per leaf: first page of its chunk in the current group */
    struct ig_page_scratch scratch;
    struct ig_page_built built;
    struct ig_buf text;
    bool has_blobs;
    struct ig_blob_writer blobs;
    char (*blob_dirs)[800];
};

static const struct ig_column_def *leaf_def(const struct ig_part_writer *w, uint32_t l)
{
    return &w->schema->cols[w->schema->leaves[l]];
}

void ig_writer_opts_default(struct ig_writer_opts *o)
{
    *o = (struct ig_writer_opts){
        .rows_per_group = 65536, .page_size = 65536, .zstd_level = 3, .erase_level = 2};
}

int ig_part_writer_open(struct ig_part_writer **out, const char *path, const struct ig_schema *s,
                        const struct ig_writer_opts *o, uint64_t first_row_id, struct ig_error *err)
{
    struct ig_part_writer *w = calloc(1, sizeof *w);
    if (!w) return ig_err(err, -ENOMEM, "out of memory");
    w->fd = -1;
    w->blobs.fd = -1;
    w->schema = s;
    if (o)
        w->o = *o;
    else
        ig_writer_opts_default(&w->o);
    if (!w->o.rows_per_group) w->o.rows_per_group = 65536;
    if (!w->o.page_size) w->o.page_size = 65536;
    if (!w->o.erase_level) w->o.erase_level = 2;
    w->first_row_id = first_row_id;
    w->path = strdup(path);
    uint32_t nl = s->nleaves ? s->nleaves : 1;
    w->cols = calloc(nl, sizeof *w->cols);
    w->chunk_first = calloc(nl, sizeof *w->chunk_first);
    if (!w->path || !w->cols || !w->chunk_first || !s->leaves) {
        ig_part_writer_free(w);
        return ig_err(err, -ENOMEM, "out of memory (or the schema is not finished)");
    }
    for (uint32_t l = 0; l < s->nleaves; l++) {
        const struct ig_column_def *cd = leaf_def(w, l);
        ig_values_init(&w->cols[l], cd->type);
        if (!ig_column_is_flat(cd) && !ig_column_is_blob_list(cd))
            ig_values_set_levels(&w->cols[l], cd->dimension ? cd->dimension : 1);
        w->has_blobs |= cd->type == IG_T_BLOB;
    }
    if (w->has_blobs) {
        w->blob_dirs = calloc(nl, sizeof *w->blob_dirs);
        if (!w->blob_dirs || !w->o.blob_path) {
            ig_part_writer_free(w);
            return ig_err(err, w->blob_dirs ? -EINVAL : -ENOMEM,
                          "%s: blob columns need a blob file", path);
        }
        for (uint32_t l = 0; l < s->nleaves; l++) {
            const struct ig_column_def *cd = leaf_def(w, l);
            ig_blob_dir_name(cd->name, cd->name_len, w->blob_dirs[l], 800);
            w->cols[l].blob_dir = w->blob_dirs[l];
            w->cols[l].blob_list = ig_column_is_blob_list(cd);
        }
        int brc = ig_blob_writer_open(&w->blobs, w->o.blob_path, err);
        if (brc) {
            ig_part_writer_free(w);
            return brc;
        }
    }
    w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (w->fd < 0) {
        int e = errno;
        ig_part_writer_free(w);
        return ig_err(err, -e, "%s: %s", path, strerror(e));
    }
    int rc = ig_write_full(w->fd, IG_PART_MAGIC, IG_PART_MAGIC_LEN);
    if (rc) {
        ig_part_writer_free(w);
        return ig_err(err, rc, "%s: write: %s", path, strerror(-rc));
    }
    w->offset = IG_PART_MAGIC_LEN;
    *out = w;
    return 0;
}

struct ig_values *ig_part_writer_column(struct ig_part_writer *w, uint32_t leaf)
{
    return leaf < w->schema->nleaves ? &w->cols[leaf] : NULL;
}

uint64_t ig_part_writer_rows(const struct ig_part_writer *w)
{
    return w->rows + w->group_rows;
}

struct ig_blob_writer *ig_part_writer_blobs(struct ig_part_writer *w)
{
    return w->has_blobs ? &w->blobs : NULL;
}

static uint32_t leaf_page_size(const struct ig_part_writer *w, uint32_t l)
{
    const struct ig_column_def *cd = leaf_def(w, l);
    if (cd->page_size) return cd->page_size;
    if (cd->type == IG_T_BLOB) return IG_BLOB_PAGE_SIZE;
    return cd->encoding == IG_ENC_SPLIT ? IG_SPLIT_PAGE_SIZE : w->o.page_size;
}

static bool slide_candidate(const struct ig_column_def *cd, const struct ig_values *v);

/* The target block size of a leaf (0: one block per page): what the schema
 * says, else IG_BLOCK_SIZE, except for pages that are one unit already (blob
 * references, sliding windows, byte-stream split made for zstd). */
static uint32_t leaf_block_size(const struct ig_part_writer *w, uint32_t l)
{
    const struct ig_column_def *cd = leaf_def(w, l);
    if (cd->block_size == IG_BLOCK_WHOLE_PAGE) return 0;
    if (cd->block_size) return cd->block_size;
    if (cd->type == IG_T_BLOB || cd->encoding == IG_ENC_SPLIT || slide_candidate(cd, &w->cols[l]))
        return 0;
    return w->o.block_size ? w->o.block_size : IG_BLOCK_SIZE;
}

/* The page's block records, appended to the blocks section; returns the
 * page's checksum: the hash of those records. */
static uint64_t append_block_records(struct ig_part_writer *w, const struct ig_page_built *b, int *rc)
{
    size_t at = w->blocks.len;
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
        if (ig_buf_append(&w->blocks, r, sizeof r)) *rc = -ENOMEM;
    }
    return *rc ? 0 : ig_hash(w->blocks.data + at, w->blocks.len - at);
}

static int append_page_record(struct ig_part_writer *w, uint32_t leaf, uint32_t first_row,
                              uint32_t rows, const struct ig_page_built *b, uint32_t capacity,
                              uint32_t live_values, uint64_t node_text)
{
    int rc = 0;
    uint32_t first_block = w->num_blocks;
    uint64_t checksum = append_block_records(w, b, &rc);
    if (rc) return rc;
    w->num_blocks += b->nblocks;
    uint8_t r[IG_PG_SIZE] = {0};
    ig_st64(r + IG_PG_OFFSET, w->offset);
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
    ig_st32(r + IG_PG_LEAF, leaf);
    uint8_t x[IG_PX_SIZE] = {0};
    ig_st32(x + IG_PX_LIVE_VALUES, live_values);
    ig_st32(x + IG_PX_FIRST_BLOCK, first_block);
    ig_st64(x + IG_PX_NODE_TEXT, node_text);
    if (ig_buf_append(&w->pages, r, sizeof r) || ig_buf_append(&w->extras, x, sizeof x))
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
static size_t page_end(const struct ig_part_writer *w, uint32_t l0, uint32_t l1, size_t start)
{
    uint64_t target = leaf_page_size(w, l0);
    size_t rows = w->group_rows;
    const struct ig_values *v = &w->cols[l0];
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
        while (r < rows && acc < 8 * target) {
            const uint64_t *cur = v->lanes + v->row_val[r];
            size_t cn = v->row_val[r + 1] - v->row_val[r];
            acc += ig_slide_row_bits(prev, pn, cur, cn, sgn);
            if (cn) prev = cur, pn = cn; /* rows without values are transparent */
            r++;
        }
        return r;
    }
    uint64_t acc = 0;
    size_t r = start;
    while (r < rows) {
        for (uint32_t l = l0; l < l1; l++)
            acc += plain_bytes(&w->cols[l], r, r + 1);
        r++;
        if (acc >= target) break;
    }
    return r;
}

/* Cut rows [a, b) of leaves [l0, l1) into blocks of about `target` plain bytes
 * (all leaves of a nested column alike, as pages are): w->cuts gets the block
 * starts relative to a, then b - a; returns the number of blocks. */
static size_t block_cuts(struct ig_part_writer *w, uint32_t l0, uint32_t l1, size_t a, size_t b,
                         uint32_t target, int *rc)
{
    size_t n = 0;
    for (size_t r = a; r < b;) {
        if (n + 2 > w->cuts_cap) {
            size_t cap = w->cuts_cap ? w->cuts_cap * 2 : 64;
            size_t *c = realloc(w->cuts, cap * sizeof *c);
            if (!c) {
                *rc = -ENOMEM;
                return 0;
            }
            w->cuts = c;
            w->cuts_cap = cap;
        }
        w->cuts[n++] = r - a;
        if (!target) {
            r = b;
            break;
        }
        uint64_t acc = 0;
        const struct ig_values *v = &w->cols[l0];
        if (l1 == l0 + 1 && !v->levels && !v->is_bytes) { /* fixed width: arithmetic */
            uint64_t width = ig_type_info(v->type)->width, k = target / width ? target / width : 1;
            r = b - r > k ? r + (size_t)k : b;
            continue;
        }
        while (r < b && acc < target) {
            for (uint32_t l = l0; l < l1; l++)
                acc += plain_bytes(&w->cols[l], r, r + 1);
            r++;
        }
    }
    w->cuts[n] = b - a;
    return n;
}

/* Quantised float leaves: round the group's values to the format now, as float32,
 * so the text measured is the text that will be read back. */
static void round_quantized(struct ig_part_writer *w, uint32_t l)
{
    const struct ig_column_def *cd = leaf_def(w, l);
    struct ig_values *v = &w->cols[l];
    if (!cd->quantize) return;
    ig_quantize_lanes(cd->quantize, v->type, v->lanes, v->n, v->lanes);
    ig_dequantize_lanes(cd->quantize, v->lanes, v->n, v->lanes);
    v->type = IG_T_FLOAT32;
}

/* Text of rows [a, b) of a nested column (tree t over leaves l0..) or of one
 * leaf's projection. */
static int nested_text(struct ig_part_writer *w, const struct ig_tree *t, size_t a, size_t b,
                       uint64_t *len, struct ig_error *err)
{
    struct ig_values *views[256], **vp = views;
    if (t->nleaves > 256 && !(vp = malloc(t->nleaves * sizeof *vp)))
        return ig_err(err, -ENOMEM, "out of memory");
    struct ig_values *slice = calloc(t->nleaves, sizeof *slice);
    int rc = slice ? 0 : ig_err(err, -ENOMEM, "out of memory");
    for (uint32_t i = 0; i < t->nleaves && !rc; i++) {
        /* a view of rows [a, b): shift the row index, keep the arrays */
        const struct ig_values *v = &w->cols[t->leaf_global[i]];
        slice[i] = *v;
        slice[i].rows = b - a;
        slice[i].row_ent = v->row_ent + a;
        slice[i].row_val = v->row_val + a;
        slice[i].row_base = w->first_row_id + w->rows + a;
        vp[i] = &slice[i];
    }
    if (!rc) rc = ig_assemble_lines(t, vp, b - a, NULL, NULL, len, err);
    free(slice);
    if (vp != views) free(vp);
    return rc;
}

/* The page's blocks (each with its own zeroed slack, page.h) and its records. */
static int write_page(struct ig_part_writer *w, uint32_t l, size_t start, size_t end,
                      uint32_t live_values, uint64_t node_text, struct ig_error *err)
{
    size_t stored = w->built.stored.len;
    int rc = ig_write_full(w->fd, w->built.stored.data, stored);
    if (!rc)
        rc = append_page_record(w, l, (uint32_t)start, (uint32_t)(end - start), &w->built,
                                (uint32_t)stored, live_values, node_text);
    if (rc) return ig_err(err, rc, "%s: write: %s", w->path, strerror(-rc));
    w->offset += stored;
    w->num_pages++;
    return 0;
}

/* Page [start, end) of leaf l, in the blocks w->cuts says (ncuts of them). */
static int encode_leaf_page(struct ig_part_writer *w, uint32_t l, size_t start, size_t end,
                            size_t ncuts, struct ig_error *err)
{
    const struct ig_column_def *cd = leaf_def(w, l);
    struct ig_values *v = &w->cols[l];
    struct ig_page_policy pol = {.type = cd->type,
                                 .encoding = cd->encoding,
                                 .compression = cd->compression,
                                 .zstd_level = w->o.zstd_level,
                                 .leaf = {.type = cd->type,
                                          .max_rep = cd->max_rep,
                                          .max_def = cd->max_def,
                                          .quantize = cd->quantize,
                                          .levels = v->levels,
                                          .per_value = cd->dimension ? cd->dimension : 1}};
    pol.leaf.slide_ok = slide_candidate(cd, v);
    int rc = ig_page_encode_blocks(&pol, v, start, end - start, w->cuts, ncuts, &w->scratch,
                                   &w->built, err);
    if (rc)
        return ig_err_prefix(err, rc, "%s: column '%s' row group %u", w->path, cd->name,
                             w->num_groups);
    return 0;
}

/* The pages of one top-level column: a flat leaf, or all leaves of a nested one. */
static int flush_column(struct ig_part_writer *w, uint32_t top, struct ig_error *err)
{
    const struct ig_schema *s = w->schema;
    uint32_t l0 = UINT32_MAX, l1 = 0;
    for (uint32_t k = top; k < s->n && s->cols[k].top == top; k++)
        if (s->cols[k].leaf != IG_SCHEMA_NONE) {
            if (l0 == UINT32_MAX) l0 = s->cols[k].leaf;
            l1 = s->cols[k].leaf + 1;
        }
    if (l0 == UINT32_MAX)
        return ig_err(err, -EINVAL, "column '%s' has no leaves", s->cols[top].name);
    for (uint32_t l = l0; l < l1; l++) {
        w->chunk_first[l] = UINT32_MAX;
        w->cols[l].row_base = w->first_row_id + w->rows; /* for blob paths in the text */
        round_quantized(w, l);
    }
    bool nested = w->cols[l0].levels;
    struct ig_tree whole = {0}, *proj = NULL;
    int rc = 0;
    if (nested) {
        rc = ig_tree_from_schema(s, top, UINT32_MAX, &whole, err);
        proj = calloc(l1 - l0, sizeof *proj);
        if (!rc && !proj) rc = ig_err(err, -ENOMEM, "out of memory");
        for (uint32_t l = l0; l < l1 && !rc; l++)
            rc = ig_tree_from_schema(s, top, s->leaves[l], &proj[l - l0], err);
    }
    /* nested columns: pages of all leaves in lockstep, grouped per leaf later */
    size_t cuts_cap = 64, ncuts = 0;
    size_t *cuts = malloc(cuts_cap * sizeof *cuts);
    if (!cuts) rc = ig_err(err, -ENOMEM, "out of memory");
    for (size_t start = 0; !rc && start < w->group_rows;) {
        size_t end = page_end(w, l0, nested ? l1 : l0 + 1, start);
        if (ncuts + 1 >= cuts_cap) {
            size_t *c = realloc(cuts, (cuts_cap *= 2) * sizeof *c);
            if (!c) {
                rc = ig_err(err, -ENOMEM, "out of memory");
                break;
            }
            cuts = c;
        }
        cuts[ncuts++] = start;
        start = end;
    }
    if (!rc) cuts[ncuts] = w->group_rows;
    for (uint32_t l = l0; l < l1 && !rc; l++) {
        uint32_t first = w->num_pages;
        size_t nc = nested ? ncuts : 0;
        if (!nested) { /* a flat leaf of this column (only one) pages by itself */
            for (size_t start = 0; !rc && start < w->group_rows;) {
                size_t end = page_end(w, l, l + 1, start);
                size_t nb = block_cuts(w, l, l + 1, start, end, leaf_block_size(w, l), &rc);
                if (!rc) rc = encode_leaf_page(w, l, start, end, nb, err);
                if (!rc)
                    rc = write_page(w, l, start, end,
                                    (uint32_t)(end - start) *
                                        (leaf_def(w, l)->dimension ? leaf_def(w, l)->dimension : 1),
                                    0, err);
                start = end;
            }
        }
        for (size_t c = 0; c < nc && !rc; c++) {
            size_t a = cuts[c], b = cuts[c + 1];
            /* every leaf of the column is cut into blocks alike (by the first
             * leaf's block size), so block j of each covers the same rows */
            size_t nb = block_cuts(w, l0, l1, a, b, leaf_block_size(w, l0), &rc);
            if (!rc) rc = encode_leaf_page(w, l, a, b, nb, err);
            uint64_t leaf_text = 0, node_text = 0;
            if (!rc) rc = nested_text(w, &proj[l - l0], a, b, &leaf_text, err);
            /* a column of one leaf (a list, a vector) is its own projection */
            if (!rc && l == l0) {
                if (l1 - l0 == 1)
                    node_text = leaf_text;
                else
                    rc = nested_text(w, &whole, a, b, &node_text, err);
            }
            w->built.text_len = leaf_text;
            const struct ig_values *v = &w->cols[l];
            if (!rc) rc = write_page(w, l, a, b, v->row_val[b] - v->row_val[a], node_text, err);
        }
        w->chunk_first[l] = first;
    }
    free(cuts);
    ig_tree_free(&whole);
    for (uint32_t l = l0; proj && l < l1; l++)
        ig_tree_free(&proj[l - l0]);
    free(proj);
    return rc;
}

static int flush_group(struct ig_part_writer *w, struct ig_error *err)
{
    if (w->group_rows == 0) return 0;
    const struct ig_schema *s = w->schema;
    uint32_t first_page = w->num_pages;
    for (uint32_t t = 0; t < s->ntops; t++) {
        int rc = flush_column(w, s->tops[t], err);
        if (rc) return rc;
    }
    /* chunk records in leaf order (pages are already in leaf order) */
    for (uint32_t l = 0; l < s->nleaves; l++) {
        uint32_t next = l + 1 < s->nleaves ? w->chunk_first[l + 1] : w->num_pages;
        uint8_t chk[IG_CHK_SIZE];
        ig_st32(chk + IG_CHK_FIRST_PAGE, w->chunk_first[l]);
        ig_st32(chk + IG_CHK_PAGE_COUNT, next - w->chunk_first[l]);
        if (ig_buf_append(&w->chunks, chk, sizeof chk))
            return ig_err(err, -ENOMEM, "out of memory");
        ig_values_reset(&w->cols[l]);
        w->cols[l].type = leaf_def(w, l)->type; /* quantised leaves were read back as float32 */
    }
    uint8_t g[IG_GRP_SIZE] = {0};
    ig_st64(g + IG_GRP_FIRST_ROW, w->rows);
    ig_st32(g + IG_GRP_ROW_COUNT, w->group_rows);
    ig_st32(g + IG_GRP_FIRST_PAGE, first_page);
    ig_st32(g + IG_GRP_PAGE_COUNT, w->num_pages - first_page);
    /* the hash is filled in at finish, once the page table is final */
    if (ig_buf_append(&w->groups, g, sizeof g)) return ig_err(err, -ENOMEM, "out of memory");
    w->num_groups++;
    w->rows += w->group_rows;
    w->group_rows = 0;
    return 0;
}

int ig_part_writer_end_row(struct ig_part_writer *w, struct ig_error *err)
{
    uint32_t want = w->group_rows + 1;
    for (uint32_t l = 0; l < w->schema->nleaves; l++) {
        const struct ig_values *v = &w->cols[l];
        size_t have = v->levels ? v->rows : v->n;
        if (have != want)
            return ig_err(err, -EINVAL, "column '%s' has %zu rows in a row group of %u rows",
                          leaf_def(w, l)->name, have, want);
    }
    w->group_rows = want;
    if (w->group_rows >= w->o.rows_per_group) return flush_group(w, err);
    return 0;
}

static int name_order_cmp(const void *a, const void *b, void *ctx)
{
    const struct ig_schema *s = ctx;
    const struct ig_column_def *x = &s->cols[*(const uint32_t *)a];
    const struct ig_column_def *y = &s->cols[*(const uint32_t *)b];
    size_t n = x->name_len < y->name_len ? x->name_len : y->name_len;
    int c = memcmp(x->name, y->name, n);
    if (c) return c;
    return x->name_len < y->name_len ? -1 : x->name_len > y->name_len;
}

static int pad8(struct ig_buf *f)
{
    return ig_buf_append_zeros(f, (8 - f->len % 8) % 8);
}

/* Append a section, recording its offset and size in the header. */
static int add_section(struct ig_buf *f, enum ig_section s, const void *p, size_t n)
{
    int rc = pad8(f);
    if (rc) return rc;
    ig_st64(f->data + IG_HDR_SECTIONS + 16 * s, f->len);
    ig_st64(f->data + IG_HDR_SECTIONS + 16 * s + 8, n);
    return ig_buf_append(f, p, n);
}

static int build_footer(struct ig_part_writer *w, struct ig_buf *f, uint64_t *root)
{
    const struct ig_schema *s = w->schema;
    struct ig_buf cols = IG_BUF_INIT, names = IG_BUF_INIT, index = IG_BUF_INIT,
                  leaves = IG_BUF_INIT;
    uint32_t *order = malloc((s->n ? s->n : 1) * sizeof *order);
    int rc = order ? 0 : -ENOMEM;
    for (uint32_t c = 0; c < s->n && !rc; c++) {
        const struct ig_column_def *cd = &s->cols[c];
        uint8_t r[IG_COL_SIZE];
        uint32_t ps = cd->leaf != IG_SCHEMA_NONE ? leaf_page_size(w, cd->leaf) : cd->page_size;
        ig_colrec_store(r, cd, (uint32_t)names.len, ps);
        rc = ig_buf_append(&cols, r, sizeof r);
        if (!rc) rc = ig_buf_append(&names, cd->name, cd->name_len);
        order[c] = c;
    }
    for (uint32_t l = 0; l < s->nleaves && !rc; l++)
        rc = ig_buf_append_u32(&leaves, s->leaves[l]);
    if (!rc) {
        qsort_r(order, s->n, sizeof *order, name_order_cmp, (void *)s);
        for (uint32_t i = 0; i < s->n && !rc; i++)
            rc = ig_buf_append_u32(&index, order[i]);
    }
    size_t del_size = (size_t)(w->rows / 64 + (w->rows % 64 != 0)) * 8;
    if (!rc) rc = ig_buf_append_zeros(f, IG_HDR_SIZE);
    if (!rc) rc = add_section(f, IG_SEC_COLUMNS, cols.data, cols.len);
    if (!rc) rc = add_section(f, IG_SEC_NAMES, names.data, names.len);
    if (!rc) rc = add_section(f, IG_SEC_NAME_INDEX, index.data, index.len);
    if (!rc) rc = add_section(f, IG_SEC_LEAVES, leaves.data, leaves.len);
    if (!rc) rc = add_section(f, IG_SEC_GROUPS, w->groups.data, w->groups.len);
    if (!rc) rc = add_section(f, IG_SEC_CHUNKS, w->chunks.data, w->chunks.len);
    if (!rc) rc = add_section(f, IG_SEC_PAGES, w->pages.data, w->pages.len);
    if (!rc) rc = add_section(f, IG_SEC_EXTRA, w->extras.data, w->extras.len);
    if (!rc) rc = add_section(f, IG_SEC_BLOCKS, w->blocks.data, w->blocks.len);
    if (!rc) rc = pad8(f);
    if (!rc) {
        ig_st64(f->data + IG_HDR_SECTIONS + 16 * IG_SEC_DELETION, f->len);
        ig_st64(f->data + IG_HDR_SECTIONS + 16 * IG_SEC_DELETION + 8, del_size);
        rc = ig_buf_append_zeros(f, del_size);
    }
    if (!rc) {
        uint8_t *h = f->data;
        memcpy(h + IG_HDR_MAGIC, IG_HDR_MAGIC_STR, 8);
        ig_st32(h + IG_HDR_VERSION, IG_FORMAT_VERSION);
        ig_st32(h + IG_HDR_HEADER_SIZE, IG_HDR_SIZE);
        ig_st64(h + IG_HDR_NUM_ROWS, w->rows);
        ig_st64(h + IG_HDR_DELETED_ROWS, 0);
        ig_st64(h + IG_HDR_FIRST_ROW_ID, w->first_row_id);
        ig_st32(h + IG_HDR_NUM_COLUMNS, s->n);
        ig_st32(h + IG_HDR_NUM_LEAVES, s->nleaves);
        ig_st32(h + IG_HDR_NUM_GROUPS, w->num_groups);
        ig_st32(h + IG_HDR_NUM_PAGES, w->num_pages);
        ig_st32(h + IG_HDR_NUM_BLOCKS, w->num_blocks);
        h[IG_HDR_ERASE_LEVEL] = w->o.erase_level;
        const uint8_t *parts[4] = {cols.data, names.data, index.data, leaves.data};
        size_t sizes[4] = {cols.len, names.len, index.len, leaves.len};
        ig_st64(h + IG_HDR_SCHEMA_HASH, ig_merkle_concat(parts, sizes, 4));
        ig_st64(h + IG_HDR_CHUNKS_HASH, ig_hash(w->chunks.data, w->chunks.len));
        /* group hashes over the final page table and extras */
        uint64_t poff = ig_ld64(h + IG_HDR_SECTIONS + 16 * IG_SEC_PAGES);
        uint64_t xoff = ig_ld64(h + IG_HDR_SECTIONS + 16 * IG_SEC_EXTRA);
        uint64_t goff = ig_ld64(h + IG_HDR_SECTIONS + 16 * IG_SEC_GROUPS);
        for (uint32_t g = 0; g < w->num_groups; g++) {
            uint8_t *gr = f->data + goff + (size_t)g * IG_GRP_SIZE;
            uint32_t fp = ig_ld32(gr + IG_GRP_FIRST_PAGE), pc = ig_ld32(gr + IG_GRP_PAGE_COUNT);
            ig_st64(gr + IG_GRP_HASH,
                    ig_merkle_group_hash(f->data + poff + (size_t)fp * IG_PG_SIZE,
                                         f->data + xoff + (size_t)fp * IG_PX_SIZE, pc));
        }
        uint64_t doff = ig_ld64(h + IG_HDR_SECTIONS + 16 * IG_SEC_DELETION);
        *root = ig_merkle_root(h, f->data + goff, w->groups.len, f->data + doff, del_size);
    }
    free(order);
    ig_buf_free(&cols);
    ig_buf_free(&names);
    ig_buf_free(&index);
    ig_buf_free(&leaves);
    return rc;
}

int ig_part_writer_finish(struct ig_part_writer *w, struct ig_error *err)
{
    int rc = flush_group(w, err);
    if (rc) return rc;
    if (w->rows == 0) return ig_err(err, -EINVAL, "%s: no rows to write", w->path);
    if (w->has_blobs) {
        rc = ig_blob_writer_finish(&w->blobs, err);
        if (rc) return rc;
    }
    /* footer starts 8-aligned */
    uint8_t zeros[8] = {0};
    size_t pad = (size_t)((8 - w->offset % 8) % 8);
    rc = ig_write_full(w->fd, zeros, pad);
    if (rc) return ig_err(err, rc, "%s: write: %s", w->path, strerror(-rc));
    uint64_t footer_offset = w->offset + pad;
    struct ig_buf f = IG_BUF_INIT;
    uint64_t root = 0;
    rc = build_footer(w, &f, &root);
    if (rc) {
        ig_buf_free(&f);
        return ig_err(err, rc, "%s: building the footer: out of memory", w->path);
    }
    uint8_t tail[IG_TAIL_SIZE] = {0};
    ig_st64(tail + IG_TAIL_FOOTER_OFFSET, footer_offset);
    ig_st64(tail + IG_TAIL_FOOTER_SIZE, f.len);
    ig_st64(tail + IG_TAIL_ROOT, root);
    ig_st32(tail + IG_TAIL_VERSION, IG_FORMAT_VERSION);
    ig_st64(tail + IG_TAIL_HASH, ig_hash(tail, IG_TAIL_HASH));
    memcpy(tail + IG_TAIL_MAGIC, IG_TAIL_MAGIC_STR, 8);
    rc = ig_write_full(w->fd, f.data, f.len);
    if (!rc) rc = ig_write_full(w->fd, tail, sizeof tail);
    ig_buf_free(&f);
    if (!rc && fsync(w->fd)) rc = -errno;
    if (!rc && close(w->fd)) rc = -errno;
    w->fd = -1;
    if (rc) return ig_err(err, rc, "%s: write: %s", w->path, strerror(-rc));
    w->finished = true;
    return 0;
}

void ig_part_writer_free(struct ig_part_writer *w)
{
    if (!w) return;
    if (w->fd >= 0) close(w->fd);
    if (!w->finished && w->path) unlink(w->path);
    if (w->cols)
        for (uint32_t l = 0; l < w->schema->nleaves; l++)
            ig_values_free(&w->cols[l]);
    free(w->cols);
    free(w->chunk_first);
    free(w->path);
    ig_buf_free(&w->pages);
    ig_buf_free(&w->extras);
    ig_buf_free(&w->groups);
    ig_buf_free(&w->chunks);
    ig_buf_free(&w->blocks);
    free(w->cuts);
    ig_buf_free(&w->text);
    ig_page_scratch_free(&w->scratch);
    ig_page_built_free(&w->built);
    if (w->has_blobs) {
        if (!w->finished) w->blobs.finished = false; /* remove it with the part */
        ig_blob_writer_free(&w->blobs);
    }
    free(w->blob_dirs);
    free(w);
}
