/* writer_footer.c - a part's footer from what the writer recorded
 * (writer_int.h, ig_writer_build_footer): the header, the column records with
 * their names and name-sorted index, the leaves, and the groups, chunks,
 * pages, extras and blocks tables, each section 8-aligned; then the hashes
 * (schema, chunks, each group's over its final page records) and the Merkle
 * root; and, written after a part's pages, the footer with its tail
 * (ig_writer_write_footer). */
#include "format/part/writer_int.h"
#include "format/part/columns.h"
#include "format/layout.h"
#include "format/part/merkle.h"
#include "util/buf.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/io.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <stdlib.h>

static int name_order_cmp(const void *a, const void *b, void *ctx)
{
    const struct ig_schema *s = ctx;
    const struct ig_column_def *x = &s->cols[*(const uint32_t *)a];
    const struct ig_column_def *y = &s->cols[*(const uint32_t *)b];
    size_t n = x->name_len < y->name_len ? x->name_len : y->name_len;
    int c = memcmp(x->name, y->name, n);
    if (c) return c;
    if (x->name_len != y->name_len) return x->name_len < y->name_len ? -1 : 1;
    /* a repeated name (a replaced column's record beside its replacement): by id */
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    return i < j ? -1 : i > j;
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

int ig_writer_build_footer(const struct ig_footer_tables *w, struct ig_buf *f, uint64_t *root)
{
    const struct ig_schema *s = w->conf->schema;
    struct ig_buf cols = IG_BUF_INIT, names = IG_BUF_INIT, index = IG_BUF_INIT,
                  leaves = IG_BUF_INIT;
    uint32_t *order = malloc((s->n ? s->n : 1) * sizeof *order);
    int rc = order ? 0 : -ENOMEM;
    for (uint32_t c = 0; c < s->n && !rc; c++) {
        const struct ig_column_def *cd = &s->cols[c];
        uint8_t r[IG_COL_SIZE];
        uint32_t ps = cd->leaf != IG_SCHEMA_NONE ? ig_writer_leaf_page_size(w->conf, cd->leaf) : cd->page_size;
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
    if (!rc) rc = ig_buf_append_zeros(f, IG_HDR_SIZE);
    if (!rc) rc = add_section(f, IG_SEC_COLUMNS, cols.data, cols.len);
    if (!rc) rc = add_section(f, IG_SEC_NAMES, names.data, names.len);
    if (!rc) rc = add_section(f, IG_SEC_NAME_INDEX, index.data, index.len);
    if (!rc) rc = add_section(f, IG_SEC_LEAVES, leaves.data, leaves.len);
    if (!rc) rc = add_section(f, IG_SEC_GROUPS, w->groups->data, w->groups->len);
    if (!rc) rc = add_section(f, IG_SEC_CHUNKS, w->chunks->data, w->chunks->len);
    if (!rc) rc = add_section(f, IG_SEC_PAGES, w->pages->data, w->pages->len);
    if (!rc) rc = add_section(f, IG_SEC_EXTRA, w->extras->data, w->extras->len);
    if (!rc) rc = add_section(f, IG_SEC_BLOCKS, w->blocks->data, w->blocks->len);
    if (!rc) rc = pad8(f);
    /* No deletion bitmap until a row is deleted (format 17): the first erase
     * puts one past the footer. A bit a row was most of a narrow table's
     * footer (307,200 rows of three float columns: 38,400 of 59,104 bytes). */
    if (!rc) ig_st64(f->data + IG_HDR_SECTIONS + 16 * IG_SEC_DELETION, f->len);
    if (!rc) {
        uint8_t *h = f->data;
        memcpy(h + IG_HDR_MAGIC, IG_HDR_MAGIC_STR, 8);
        ig_st32(h + IG_HDR_VERSION, IG_FORMAT_VERSION);
        ig_st32(h + IG_HDR_HEADER_SIZE, IG_HDR_SIZE);
        ig_st64(h + IG_HDR_NUM_ROWS, w->rows);
        ig_st64(h + IG_HDR_DELETED_ROWS, 0);
        ig_st64(h + IG_HDR_FIRST_ROW_ID, w->conf->first_row_id);
        ig_st32(h + IG_HDR_NUM_COLUMNS, s->n);
        ig_st32(h + IG_HDR_NUM_LEAVES, s->nleaves);
        ig_st32(h + IG_HDR_NUM_GROUPS, w->num_groups);
        ig_st32(h + IG_HDR_NUM_PAGES, w->num_pages);
        ig_st32(h + IG_HDR_NUM_BLOCKS, w->num_blocks);
        h[IG_HDR_ERASE_LEVEL] = w->conf->o.erase_level;
        const uint8_t *parts[4] = {cols.data, names.data, index.data, leaves.data};
        size_t sizes[4] = {cols.len, names.len, index.len, leaves.len};
        ig_st64(h + IG_HDR_SCHEMA_HASH, ig_merkle_concat(parts, sizes, 4));
        ig_st64(h + IG_HDR_CHUNKS_HASH, ig_hash(w->chunks->data, w->chunks->len));
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
        *root = ig_merkle_root(h, f->data + goff, w->groups->len, NULL, 0);
    }
    free(order);
    ig_buf_free(&cols);
    ig_buf_free(&names);
    ig_buf_free(&index);
    ig_buf_free(&leaves);
    return rc;
}

int ig_writer_write_footer(int fd, uint64_t offset, const struct ig_footer_tables *t, const char *path,
                           struct ig_error *err)
{
    /* the footer starts 8-aligned */
    uint8_t zeros[8] = {0};
    size_t pad = (size_t)((8 - offset % 8) % 8);
    int rc = ig_write_full(fd, zeros, pad);
    if (rc) return ig_err(err, rc, "%s: write: %s", path, strerror(-rc));
    uint64_t footer_offset = offset + pad;
    struct ig_buf f = IG_BUF_INIT;
    uint64_t root = 0;
    rc = ig_writer_build_footer(t, &f, &root);
    if (rc) {
        ig_buf_free(&f);
        return ig_err(err, rc, "%s: building the footer: out of memory", path);
    }
    uint8_t tail[IG_TAIL_SIZE] = {0};
    ig_st64(tail + IG_TAIL_FOOTER_OFFSET, footer_offset);
    ig_st64(tail + IG_TAIL_FOOTER_SIZE, f.len);
    ig_st64(tail + IG_TAIL_ROOT, root);
    ig_st32(tail + IG_TAIL_VERSION, IG_FORMAT_VERSION);
    ig_st64(tail + IG_TAIL_HASH, ig_hash(tail, IG_TAIL_HASH));
    memcpy(tail + IG_TAIL_MAGIC, IG_TAIL_MAGIC_STR, 8);
    rc = ig_write_full(fd, f.data, f.len);
    if (!rc) rc = ig_write_full(fd, tail, sizeof tail);
    ig_buf_free(&f);
    if (!rc && fsync(fd)) rc = -errno;
    return rc ? ig_err(err, rc, "%s: write: %s", path, strerror(-rc)) : 0;
}
