#include "writer.h"
#include "layout.h"
#include "merkle.h"
#include "names.h"
#include "page.h"
#include "types.h"
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

struct ig_part_writer {
    int fd;
    char *path;
    bool finished;
    const struct ig_schema *schema;
    struct ig_writer_opts o;
    uint64_t first_row_id;
    struct ig_values *cols;
    uint64_t rows;          /* rows finished, all groups */
    uint32_t group_rows;    /* rows buffered in the current group */
    uint64_t offset;        /* next write position */
    struct ig_buf pages, groups, chunks;
    uint32_t num_pages, num_groups;
    struct ig_page_scratch scratch;
    struct ig_page_built built;
    bool has_blobs;
    struct ig_blob_writer blobs;
    char (*blob_dirs)[800];
};

void ig_writer_opts_default(struct ig_writer_opts *o)
{
    *o = (struct ig_writer_opts){
        .rows_per_group = 65536, .page_size = 65536, .zstd_level = 3, .erase_level = 2};
}

int ig_part_writer_open(struct ig_part_writer **out, const char *path, const struct ig_schema *s,
                        const struct ig_writer_opts *o, uint64_t first_row_id,
                        struct ig_error *err)
{
    struct ig_part_writer *w = calloc(1, sizeof *w);
    if (!w) return ig_err(err, -ENOMEM, "out of memory");
    w->fd = -1;
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
    w->cols = calloc(s->n ? s->n : 1, sizeof *w->cols);
    if (!w->path || !w->cols) {
        ig_part_writer_free(w);
        return ig_err(err, -ENOMEM, "out of memory");
    }
    w->blobs.fd = -1;
    for (uint32_t c = 0; c < s->n; c++) {
        ig_values_init(&w->cols[c], s->cols[c].type);
        w->has_blobs |= s->cols[c].type == IG_T_BLOB;
    }
    if (w->has_blobs) {
        w->blob_dirs = calloc(s->n, sizeof *w->blob_dirs);
        if (!w->blob_dirs || !w->o.blob_path) {
            ig_part_writer_free(w);
            return ig_err(err, w->blob_dirs ? -EINVAL : -ENOMEM,
                          "%s: blob columns need a blob file", path);
        }
        for (uint32_t c = 0; c < s->n; c++) {
            ig_blob_dir_name(s->cols[c].name, s->cols[c].name_len, w->blob_dirs[c], 800);
            w->cols[c].blob_dir = w->blob_dirs[c];
            w->cols[c].blob_list = s->cols[c].repeated;
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

struct ig_values *ig_part_writer_column(struct ig_part_writer *w, uint32_t col)
{
    return col < w->schema->n ? &w->cols[col] : NULL;
}

uint64_t ig_part_writer_rows(const struct ig_part_writer *w) { return w->rows + w->group_rows; }

struct ig_blob_writer *ig_part_writer_blobs(struct ig_part_writer *w)
{
    return w->has_blobs ? &w->blobs : NULL;
}

/* Blob references default to small pages: reaching one object then reads one
 * small page of references plus the object itself. */
#define IG_BLOB_PAGE_SIZE 4096

static uint32_t column_page_size(const struct ig_part_writer *w, uint32_t c)
{
    const struct ig_column_def *cd = &w->schema->cols[c];
    if (cd->page_size) return cd->page_size;
    return cd->type == IG_T_BLOB ? IG_BLOB_PAGE_SIZE : w->o.page_size;
}

static int append_page_record(struct ig_part_writer *w, uint32_t leaf, uint32_t first_row,
                              uint32_t rows, const struct ig_page_built *b)
{
    uint8_t r[IG_PG_SIZE] = {0};
    ig_st64(r + IG_PG_OFFSET, w->offset);
    ig_st32(r + IG_PG_CAPACITY, (uint32_t)b->stored.len);
    ig_st32(r + IG_PG_STORED, (uint32_t)b->stored.len);
    ig_st32(r + IG_PG_FIRST_ROW, first_row);
    ig_st32(r + IG_PG_ROW_COUNT, rows);
    ig_st32(r + IG_PG_ENTRY_COUNT, rows);
    ig_st32(r + IG_PG_VALUE_COUNT, rows);
    r[IG_PG_ENCODING] = b->encoding;
    r[IG_PG_COMPRESSION] = b->compression;
    r[IG_PG_FLAGS] = b->flags;
    ig_st64(r + IG_PG_CHECKSUM, b->checksum);
    ig_st64(r + IG_PG_TEXT_LEN, b->text_len);
    ig_st32(r + IG_PG_BODY_SIZE, b->body_size);
    ig_st32(r + IG_PG_LEAF, leaf);
    return ig_buf_append(&w->pages, r, sizeof r);
}

/* Where the next page of column c should end, starting at row `start`. */
static size_t page_end(const struct ig_part_writer *w, uint32_t c, size_t start)
{
    const struct ig_values *v = &w->cols[c];
    uint64_t target = column_page_size(w, c);
    if (!v->is_bytes) {
        uint64_t width = ig_type_info(v->type)->width;
        uint64_t rows = target / width ? target / width : 1;
        return start + rows < v->n ? start + (size_t)rows : v->n;
    }
    /* variable length: bytes plus a 4-byte offset per value */
    uint64_t acc = 0;
    size_t i = start;
    while (i < v->n) {
        acc += v->offs[i + 1] - v->offs[i] + 4;
        i++;
        if (acc >= target) break;
    }
    return i;
}

static int flush_group(struct ig_part_writer *w, struct ig_error *err)
{
    if (w->group_rows == 0) return 0;
    uint32_t first_page = w->num_pages;
    for (uint32_t c = 0; c < w->schema->n; c++) {
        const struct ig_column_def *cd = &w->schema->cols[c];
        struct ig_page_policy pol = {.type = cd->type,
                                     .encoding = cd->encoding,
                                     .compression = cd->compression,
                                     .zstd_level = w->o.zstd_level};
        uint32_t chunk_first = w->num_pages;
        size_t start = 0;
        w->cols[c].row_base = w->first_row_id + w->rows; /* for blob paths in the text */
        while (start < w->group_rows) {
            size_t end = page_end(w, c, start);
            int rc = ig_page_encode(&pol, &w->cols[c], start, end - start, &w->scratch,
                                    &w->built, err);
            if (rc)
                return ig_err_prefix(err, rc, "%s: column '%s' row group %u", w->path, cd->name,
                                     w->num_groups);
            rc = ig_write_full(w->fd, w->built.stored.data, w->built.stored.len);
            if (!rc)
                rc = append_page_record(w, c, (uint32_t)start, (uint32_t)(end - start), &w->built);
            if (rc) return ig_err(err, rc, "%s: write: %s", w->path, strerror(-rc));
            w->offset += w->built.stored.len;
            w->num_pages++;
            start = end;
        }
        uint8_t chk[IG_CHK_SIZE];
        ig_st32(chk + IG_CHK_FIRST_PAGE, chunk_first);
        ig_st32(chk + IG_CHK_PAGE_COUNT, w->num_pages - chunk_first);
        if (ig_buf_append(&w->chunks, chk, sizeof chk)) return ig_err(err, -ENOMEM, "out of memory");
        ig_values_reset(&w->cols[c]);
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
    for (uint32_t c = 0; c < w->schema->n; c++)
        if (w->cols[c].n != want)
            return ig_err(err, -EINVAL, "column '%s' has %zu values in a row group of %u rows",
                          w->schema->cols[c].name, w->cols[c].n, want);
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

static int pad8(struct ig_buf *f) { return ig_buf_append_zeros(f, (8 - f->len % 8) % 8); }

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
        uint8_t r[IG_COL_SIZE] = {0};
        ig_st32(r + IG_COL_NAME_OFF, (uint32_t)names.len);
        ig_st32(r + IG_COL_NAME_LEN, (uint32_t)cd->name_len);
        ig_st32(r + IG_COL_PARENT, IG_NONE);
        ig_st32(r + IG_COL_LEAF, c);
        r[IG_COL_TYPE] = cd->type;
        r[IG_COL_FLAGS] = (uint8_t)((cd->nullable ? IG_COLF_NULLABLE : 0) |
                                    (cd->repeated ? IG_COLF_REPEATED : 0));
        r[IG_COL_MAX_DEF] = (uint8_t)((cd->nullable ? 1 : 0) + (cd->repeated ? 1 : 0));
        r[IG_COL_MAX_REP] = cd->repeated ? 1 : 0;
        r[IG_COL_ENCODING] = cd->encoding;
        r[IG_COL_COMPRESSION] = cd->compression;
        r[IG_COL_ERASE_LEVEL] = cd->erase_level;
        r[IG_COL_QUANTIZE] = cd->quantize;
        ig_st32(r + IG_COL_PAGE_SIZE, column_page_size(w, c));
        ig_st32(r + IG_COL_DIMENSION, cd->dimension);
        rc = ig_buf_append(&cols, r, sizeof r);
        if (!rc) rc = ig_buf_append(&names, cd->name, cd->name_len);
        if (!rc) rc = ig_buf_append_u32(&leaves, c);
        order[c] = c;
    }
    if (!rc) {
        qsort_r(order, s->n, sizeof *order, name_order_cmp, (void *)s);
        for (uint32_t i = 0; i < s->n && !rc; i++)
            rc = ig_buf_append_u32(&index, order[i]);
    }
    /* group hashes over the final page table */
    for (uint32_t g = 0; g < w->num_groups && !rc; g++) {
        uint8_t *gr = w->groups.data + (size_t)g * IG_GRP_SIZE;
        uint32_t fp = ig_ld32(gr + IG_GRP_FIRST_PAGE), pc = ig_ld32(gr + IG_GRP_PAGE_COUNT);
        ig_st64(gr + IG_GRP_HASH,
                ig_merkle_group_hash(w->pages.data + (size_t)fp * IG_PG_SIZE, pc));
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
    if (!rc) rc = pad8(f);
    if (!rc) {
        ig_st64(f->data + IG_HDR_SECTIONS + 16 * IG_SEC_DELETION, f->len);
        ig_st64(f->data + IG_HDR_SECTIONS + 16 * IG_SEC_DELETION + 8, del_size);
        rc = ig_buf_append_zeros(f, del_size);
    }
    if (!rc) rc = pad8(f);
    if (!rc) {
        /* empty reserved sections point at the end */
        for (int sct = IG_SEC_EXTRA; sct < IG_SEC_COUNT; sct++) {
            ig_st64(f->data + IG_HDR_SECTIONS + 16 * sct, f->len);
            ig_st64(f->data + IG_HDR_SECTIONS + 16 * sct + 8, 0);
        }
        uint8_t *h = f->data;
        memcpy(h + IG_HDR_MAGIC, IG_HDR_MAGIC_STR, 8);
        ig_st32(h + IG_HDR_VERSION, IG_FORMAT_VERSION);
        ig_st32(h + IG_HDR_HEADER_SIZE, IG_HDR_SIZE);
        ig_st64(h + IG_HDR_NUM_ROWS, w->rows);
        ig_st64(h + IG_HDR_DELETED_ROWS, 0);
        ig_st64(h + IG_HDR_FIRST_ROW_ID, w->first_row_id);
        ig_st32(h + IG_HDR_NUM_COLUMNS, s->n);
        ig_st32(h + IG_HDR_NUM_LEAVES, s->n);
        ig_st32(h + IG_HDR_NUM_GROUPS, w->num_groups);
        ig_st32(h + IG_HDR_NUM_PAGES, w->num_pages);
        h[IG_HDR_ERASE_LEVEL] = w->o.erase_level;
        const uint8_t *parts[4] = {cols.data, names.data, index.data, leaves.data};
        size_t sizes[4] = {cols.len, names.len, index.len, leaves.len};
        ig_st64(h + IG_HDR_SCHEMA_HASH, ig_merkle_concat(parts, sizes, 4));
        ig_st64(h + IG_HDR_CHUNKS_HASH, ig_hash(w->chunks.data, w->chunks.len));
        const uint8_t *sec = f->data;
        uint64_t goff = ig_ld64(sec + IG_HDR_SECTIONS + 16 * IG_SEC_GROUPS);
        uint64_t doff = ig_ld64(sec + IG_HDR_SECTIONS + 16 * IG_SEC_DELETION);
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
        for (uint32_t c = 0; c < w->schema->n; c++)
            ig_values_free(&w->cols[c]);
    free(w->cols);
    free(w->path);
    ig_buf_free(&w->pages);
    ig_buf_free(&w->groups);
    ig_buf_free(&w->chunks);
    ig_page_scratch_free(&w->scratch);
    ig_page_built_free(&w->built);
    if (w->has_blobs) {
        if (!w->finished) w->blobs.finished = false; /* remove it with the part */
        ig_blob_writer_free(&w->blobs);
    }
    free(w->blob_dirs);
    free(w);
}
