/* graft.c - columns added to a part in place (graft.h). */
#include "format/part/graft.h"
#include "format/layout.h"
#include "format/part/merkle.h"
#include "format/model/schema.h"
#include "format/model/types.h"
#include "util/buf.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A footer in memory (the writer's for the new columns): its sections by
 * the header's table, each checked to lie inside it. */
struct mini {
    const uint8_t *f;
    size_t len;
    uint32_t ncols, nleaves, ngroups, npages, nblocks;
    const uint8_t *sec[IG_SEC_COUNT];
    uint64_t size[IG_SEC_COUNT];
};

static int mini_open(struct mini *m, const uint8_t *f, size_t len, struct ig_error *err)
{
    if (len < IG_HDR_SIZE || memcmp(f + IG_HDR_MAGIC, IG_HDR_MAGIC_STR, 8))
        return ig_err(err, -EIO, "graft: not a footer");
    *m = (struct mini){.f = f, .len = len};
    m->ncols = ig_ld32(f + IG_HDR_NUM_COLUMNS);
    m->nleaves = ig_ld32(f + IG_HDR_NUM_LEAVES);
    m->ngroups = ig_ld32(f + IG_HDR_NUM_GROUPS);
    m->npages = ig_ld32(f + IG_HDR_NUM_PAGES);
    m->nblocks = ig_ld32(f + IG_HDR_NUM_BLOCKS);
    for (int s = 0; s < IG_SEC_COUNT; s++) {
        uint64_t off = ig_ld64(f + IG_HDR_SECTIONS + 16 * s),
                 n = ig_ld64(f + IG_HDR_SECTIONS + 16 * s + 8);
        if (off > len || n > len - off)
            return ig_err(err, -EIO, "graft: section %d out of bounds", s);
        m->sec[s] = f + off;
        m->size[s] = n;
    }
    if (m->size[IG_SEC_COLUMNS] != (uint64_t)m->ncols * IG_COL_SIZE ||
        m->size[IG_SEC_GROUPS] != (uint64_t)m->ngroups * IG_GRP_SIZE ||
        m->size[IG_SEC_CHUNKS] != (uint64_t)m->ngroups * m->nleaves * IG_CHK_SIZE ||
        m->size[IG_SEC_PAGES] != (uint64_t)m->npages * IG_PG_SIZE ||
        m->size[IG_SEC_EXTRA] != (uint64_t)m->npages * IG_PX_SIZE ||
        m->size[IG_SEC_BLOCKS] != (uint64_t)m->nblocks * IG_BLK_SIZE)
        return ig_err(err, -EIO, "graft: section sizes disagree with the header");
    return 0;
}

/* Where a page's blocks begin and end: its first block to the next page's. */
static void block_range(const uint8_t *extras, uint32_t npages, uint32_t nblocks, uint32_t page,
                        uint32_t *a, uint32_t *b)
{
    *a = ig_ld32(extras + (size_t)page * IG_PX_SIZE + IG_PX_FIRST_BLOCK);
    *b = page + 1 < npages ? ig_ld32(extras + (size_t)(page + 1) * IG_PX_SIZE + IG_PX_FIRST_BLOCK)
                           : nblocks;
}

/* The name of combined column id c: the part's for ids below its count, the
 * mini footer's after. */
static void name_of(const struct ig_part *p, const struct mini *m, uint32_t c, const char **name,
                    uint32_t *len)
{
    const uint8_t *cols =
        c < p->num_columns ? ig_part_section(p, IG_SEC_COLUMNS) : m->sec[IG_SEC_COLUMNS];
    const uint8_t *names =
        c < p->num_columns ? ig_part_section(p, IG_SEC_NAMES) : m->sec[IG_SEC_NAMES];
    const uint8_t *r = cols + (size_t)(c < p->num_columns ? c : c - p->num_columns) * IG_COL_SIZE;
    *name = (const char *)names + ig_ld32(r + IG_COL_NAME_OFF);
    *len = ig_ld32(r + IG_COL_NAME_LEN);
}

/* Name index order: bytewise, shorter first, then by id (a repeated name). */
static int index_cmp(const struct ig_part *p, const struct mini *m, uint32_t a, uint32_t b)
{
    const char *x, *y;
    uint32_t xn, yn;
    name_of(p, m, a, &x, &xn);
    name_of(p, m, b, &y, &yn);
    int c = ig_name_cmp(x, xn, y, yn);
    return c ? c : (a > b) - (a < b);
}

struct merged {
    struct ig_buf cols, names, index, leaves, groups, chunks, pages, extras, blocks;
};

static void merged_free(struct merged *o)
{
    ig_buf_free(&o->cols);
    ig_buf_free(&o->names);
    ig_buf_free(&o->index);
    ig_buf_free(&o->leaves);
    ig_buf_free(&o->groups);
    ig_buf_free(&o->chunks);
    ig_buf_free(&o->pages);
    ig_buf_free(&o->extras);
    ig_buf_free(&o->blocks);
}

/* The schema sections: the part's records, then the new ones with their name
 * offsets, parents and leaves moved past the part's. */
static int merge_schema(const struct ig_part *p, const struct mini *m, struct merged *o)
{
    int rc =
        ig_buf_append(&o->cols, ig_part_section(p, IG_SEC_COLUMNS), p->sec_size[IG_SEC_COLUMNS]);
    if (!rc)
        rc = ig_buf_append(&o->names, ig_part_section(p, IG_SEC_NAMES), p->sec_size[IG_SEC_NAMES]);
    if (!rc) rc = ig_buf_append(&o->names, m->sec[IG_SEC_NAMES], m->size[IG_SEC_NAMES]);
    for (uint32_t c = 0; c < m->ncols && !rc; c++) {
        uint8_t r[IG_COL_SIZE];
        memcpy(r, m->sec[IG_SEC_COLUMNS] + (size_t)c * IG_COL_SIZE, IG_COL_SIZE);
        ig_st32(r + IG_COL_NAME_OFF,
                ig_ld32(r + IG_COL_NAME_OFF) + (uint32_t)p->sec_size[IG_SEC_NAMES]);
        if (ig_ld32(r + IG_COL_PARENT) != IG_NONE)
            ig_st32(r + IG_COL_PARENT, ig_ld32(r + IG_COL_PARENT) + p->num_columns);
        if (ig_ld32(r + IG_COL_LEAF) != IG_NONE)
            ig_st32(r + IG_COL_LEAF, ig_ld32(r + IG_COL_LEAF) + p->num_leaves);
        rc = ig_buf_append(&o->cols, r, sizeof r);
    }
    if (!rc)
        rc = ig_buf_append(&o->leaves, ig_part_section(p, IG_SEC_LEAVES),
                           p->sec_size[IG_SEC_LEAVES]);
    for (uint32_t l = 0; l < m->nleaves && !rc; l++)
        rc = ig_buf_append_u32(&o->leaves,
                               ig_ld32(m->sec[IG_SEC_LEAVES] + 4 * (size_t)l) + p->num_columns);
    /* the two name indexes, merged */
    const uint8_t *bi = ig_part_section(p, IG_SEC_NAME_INDEX), *mi = m->sec[IG_SEC_NAME_INDEX];
    uint32_t i = 0, j = 0;
    while (!rc && (i < p->num_columns || j < m->ncols)) {
        uint32_t a = i < p->num_columns ? ig_ld32(bi + 4 * (size_t)i) : UINT32_MAX;
        uint32_t b = j < m->ncols ? ig_ld32(mi + 4 * (size_t)j) + p->num_columns : UINT32_MAX;
        bool take_a = b == UINT32_MAX || (a != UINT32_MAX && index_cmp(p, m, a, b) < 0);
        rc = ig_buf_append_u32(&o->index, take_a ? a : b);
        if (take_a)
            i++;
        else
            j++;
    }
    return rc;
}

/* One page record (with its extras and blocks) into the merged tables. */
static int add_page(struct merged *o, const uint8_t *rec, const uint8_t *extra,
                    const uint8_t *blocks, uint32_t b0, uint32_t b1, uint32_t leaf_shift)
{
    uint8_t r[IG_PG_SIZE], x[IG_PX_SIZE];
    memcpy(r, rec, sizeof r);
    memcpy(x, extra, sizeof x);
    ig_st32(r + IG_PG_LEAF, ig_ld32(r + IG_PG_LEAF) + leaf_shift);
    ig_st32(x + IG_PX_FIRST_BLOCK, (uint32_t)(o->blocks.len / IG_BLK_SIZE));
    int rc = ig_buf_append(&o->pages, r, sizeof r);
    if (!rc) rc = ig_buf_append(&o->extras, x, sizeof x);
    if (!rc)
        rc = ig_buf_append(&o->blocks, blocks + (size_t)b0 * IG_BLK_SIZE,
                           (size_t)(b1 - b0) * IG_BLK_SIZE);
    return rc;
}

/* A chunk record with its first page moved to where its group's pages went,
 * widened to this version's record (an older part's records are shorter: the
 * fields they lack are zero, no context). */
static int add_chunk(struct merged *o, const uint8_t *chk, size_t size, uint32_t old_first,
                     uint32_t new_first)
{
    uint8_t c[IG_CHK_SIZE] = {0};
    memcpy(c, chk, size < sizeof c ? size : sizeof c);
    ig_st32(c + IG_CHK_FIRST_PAGE, ig_ld32(c + IG_CHK_FIRST_PAGE) - old_first + new_first);
    return ig_buf_append(&o->chunks, c, sizeof c);
}

/* Group by group: the part's pages, then the new columns' pages of the same
 * rows; chunks likewise; blocks follow their pages. */
static int merge_groups(const struct ig_part *p, const struct mini *m, struct merged *o,
                        struct ig_error *err)
{
    const uint8_t *bp = ig_part_section(p, IG_SEC_PAGES), *bx = ig_part_section(p, IG_SEC_EXTRA);
    const uint8_t *bb = ig_part_section(p, IG_SEC_BLOCKS);
    const uint8_t *bg = ig_part_section(p, IG_SEC_GROUPS);
    for (uint32_t g = 0; g < p->num_groups; g++) {
        const uint8_t *gb = bg + (size_t)g * IG_GRP_SIZE,
                      *gn = m->sec[IG_SEC_GROUPS] + (size_t)g * IG_GRP_SIZE;
        uint32_t fb = ig_ld32(gb + IG_GRP_FIRST_PAGE), nb = ig_ld32(gb + IG_GRP_PAGE_COUNT);
        uint32_t fn = ig_ld32(gn + IG_GRP_FIRST_PAGE), nn = ig_ld32(gn + IG_GRP_PAGE_COUNT);
        if (ig_ld64(gb + IG_GRP_FIRST_ROW) != ig_ld64(gn + IG_GRP_FIRST_ROW) ||
            ig_ld32(gb + IG_GRP_ROW_COUNT) != ig_ld32(gn + IG_GRP_ROW_COUNT) ||
            fb + nb > p->num_pages || fn + nn > m->npages)
            return ig_err(err, -EIO, "%s: graft: row group %u differs from the part's", p->path, g);
        uint32_t first = (uint32_t)(o->pages.len / IG_PG_SIZE);
        int rc = 0;
        for (uint32_t k = fb; k < fb + nb && !rc; k++) {
            uint32_t b0, b1;
            block_range(bx, p->num_pages, p->num_blocks, k, &b0, &b1);
            if (b0 > b1 || b1 > p->num_blocks)
                return ig_err(err, -EIO, "%s: page %u: bad block range", p->path, k);
            rc = add_page(o, bp + (size_t)k * IG_PG_SIZE, bx + (size_t)k * IG_PX_SIZE, bb, b0, b1,
                          0);
        }
        for (uint32_t k = fn; k < fn + nn && !rc; k++) {
            uint32_t b0, b1;
            block_range(m->sec[IG_SEC_EXTRA], m->npages, m->nblocks, k, &b0, &b1);
            if (b0 > b1 || b1 > m->nblocks)
                return ig_err(err, -EIO, "graft: new page %u: bad block range", k);
            rc = add_page(o, m->sec[IG_SEC_PAGES] + (size_t)k * IG_PG_SIZE,
                          m->sec[IG_SEC_EXTRA] + (size_t)k * IG_PX_SIZE, m->sec[IG_SEC_BLOCKS], b0,
                          b1, p->num_leaves);
        }
        for (uint32_t l = 0; l < p->num_leaves && !rc; l++)
            rc = add_chunk(o, ig_chunk_record(p, p->footer, g, l), ig_chunk_record_size(p), fb,
                           first);
        for (uint32_t l = 0; l < m->nleaves && !rc; l++)
            rc = add_chunk(o, m->sec[IG_SEC_CHUNKS] + ((size_t)g * m->nleaves + l) * IG_CHK_SIZE,
                           IG_CHK_SIZE, fn, first + nb);
        uint8_t rec[IG_GRP_SIZE];
        memcpy(rec, gb, sizeof rec);
        ig_st32(rec + IG_GRP_FIRST_PAGE, first);
        ig_st32(rec + IG_GRP_PAGE_COUNT, nb + nn);
        if (!rc) rc = ig_buf_append(&o->groups, rec, sizeof rec);
        if (rc) return ig_err(err, -ENOMEM, "out of memory");
    }
    return 0;
}

static int put_section(struct ig_buf *f, size_t base, enum ig_section s, const struct ig_buf *b)
{
    int rc = ig_buf_append_zeros(f, (8 - (f->len - base) % 8) % 8);
    if (rc) return rc;
    ig_st64(f->data + base + IG_HDR_SECTIONS + 16 * s, f->len - base);
    ig_st64(f->data + base + IG_HDR_SECTIONS + 16 * s + 8, b->len);
    return ig_buf_append(f, b->data, b->len);
}

int ig_graft_merge(const struct ig_part *p, const uint8_t *mini, size_t mini_len,
                   struct ig_buf *out, uint64_t *root, struct ig_error *err)
{
    struct mini m = {0}; /* (gcc cannot see that mini_open sets it where it returns 0) */
    int rc = mini_open(&m, mini, mini_len, err);
    if (rc) return rc;
    if (p->version < 9)
        return ig_err(err, -EINVAL, "%s: format %u; adding columns needs format 9 or later",
                      p->path, p->version);
    if (m.ngroups != p->num_groups)
        return ig_err(err, -EIO, "%s: graft: %u row groups, the part has %u", p->path, m.ngroups,
                      p->num_groups);
    if ((uint64_t)p->num_columns + m.ncols > UINT32_MAX / 2 ||
        (uint64_t)p->num_pages + m.npages > UINT32_MAX / 2 ||
        (uint64_t)p->num_blocks + m.nblocks > UINT32_MAX / 2)
        return ig_err(err, -EFBIG, "%s: too many columns or pages", p->path);
    struct merged o = {0};
    rc = merge_schema(p, &m, &o) ? ig_err(err, -ENOMEM, "out of memory") : 0;
    if (!rc) rc = merge_groups(p, &m, &o, err);
    size_t base = out->len;
    /* the bitmap goes into the new footer wherever it was (none while no row
     * is deleted) */
    const uint8_t *del_bits = ig_part_deletion(p);
    struct ig_buf deletion = {.data = (uint8_t *)del_bits, .len = del_bits ? (size_t)ig_part_deletion_bytes(p) : 0};
    if (!rc) {
        rc = ig_buf_append(out, p->footer,
                           IG_HDR_SIZE); /* counts, ids and section table set below */
        if (!rc) rc = put_section(out, base, IG_SEC_COLUMNS, &o.cols);
        if (!rc) rc = put_section(out, base, IG_SEC_NAMES, &o.names);
        if (!rc) rc = put_section(out, base, IG_SEC_NAME_INDEX, &o.index);
        if (!rc) rc = put_section(out, base, IG_SEC_LEAVES, &o.leaves);
        if (!rc) rc = put_section(out, base, IG_SEC_GROUPS, &o.groups);
        if (!rc) rc = put_section(out, base, IG_SEC_CHUNKS, &o.chunks);
        if (!rc) rc = put_section(out, base, IG_SEC_PAGES, &o.pages);
        if (!rc) rc = put_section(out, base, IG_SEC_EXTRA, &o.extras);
        if (!rc) rc = put_section(out, base, IG_SEC_BLOCKS, &o.blocks);
        if (!rc) rc = put_section(out, base, IG_SEC_DELETION, &deletion);
        if (!rc) rc = ig_buf_append_zeros(out, (8 - (out->len - base) % 8) % 8);
        if (rc) rc = ig_err(err, -ENOMEM, "out of memory");
    }
    if (!rc) {
        uint8_t *h = out->data + base;
        ig_st32(h + IG_HDR_VERSION, IG_FORMAT_VERSION);
        ig_st64(h + IG_HDR_DELETION_AT, 0);
        ig_st32(h + IG_HDR_NUM_COLUMNS, p->num_columns + m.ncols);
        ig_st32(h + IG_HDR_NUM_LEAVES, p->num_leaves + m.nleaves);
        ig_st32(h + IG_HDR_NUM_PAGES, p->num_pages + m.npages);
        ig_st32(h + IG_HDR_NUM_BLOCKS, p->num_blocks + m.nblocks);
        const uint8_t *parts[4] = {o.cols.data, o.names.data, o.index.data, o.leaves.data};
        size_t sizes[4] = {o.cols.len, o.names.len, o.index.len, o.leaves.len};
        ig_st64(h + IG_HDR_SCHEMA_HASH, ig_merkle_concat(parts, sizes, 4));
        ig_st64(h + IG_HDR_CHUNKS_HASH, ig_hash(o.chunks.data, o.chunks.len));
        uint8_t *groups = h + ig_ld64(h + IG_HDR_SECTIONS + 16 * IG_SEC_GROUPS);
        const uint8_t *pages = h + ig_ld64(h + IG_HDR_SECTIONS + 16 * IG_SEC_PAGES);
        const uint8_t *extras = h + ig_ld64(h + IG_HDR_SECTIONS + 16 * IG_SEC_EXTRA);
        for (uint32_t g = 0; g < p->num_groups; g++) {
            uint8_t *gr = groups + (size_t)g * IG_GRP_SIZE;
            uint32_t fp = ig_ld32(gr + IG_GRP_FIRST_PAGE), pc = ig_ld32(gr + IG_GRP_PAGE_COUNT);
            ig_st64(gr + IG_GRP_HASH, ig_merkle_group_hash(pages + (size_t)fp * IG_PG_SIZE,
                                                           extras + (size_t)fp * IG_PX_SIZE, pc));
        }
        const uint8_t *del = h + ig_ld64(h + IG_HDR_SECTIONS + 16 * IG_SEC_DELETION);
        *root = ig_merkle_root(h, groups, o.groups.len, del, deletion.len);
    }
    merged_free(&o);
    return rc;
}

/* The part's row counts per group, and its new columns' values, group by group. */
static int write_pages(const struct ig_part *p, const char *into, uint64_t start, const struct ig_schema *add,
                       const struct ig_writer_opts *opts, ig_graft_fill_fn fill, void *ctx,
                       struct ig_buf *mini, uint64_t *end, struct ig_error *err)
{
    uint32_t *rows = malloc((p->num_groups ? p->num_groups : 1) * sizeof *rows);
    if (!rows) return ig_err(err, -ENOMEM, "out of memory");
    for (uint32_t g = 0; g < p->num_groups; g++) {
        struct ig_grouprec gr;
        int rc = ig_part_group(p, g, &gr, err);
        if (rc) {
            free(rows);
            return rc;
        }
        rows[g] = gr.row_count;
    }
    struct ig_writer_opts o = *opts;
    o.group_rows = rows;
    o.ngroups = p->num_groups;
    o.rows_per_group = 0;
    o.deleted = p->deleted_rows ? ig_part_deletion(p) : NULL;
    struct ig_part_writer *w;
    int rc = ig_part_writer_open_graft(&w, into, start, add, &o, p->first_row_id, err);
    if (rc) {
        free(rows);
        return rc;
    }
    uint64_t first = 0;
    for (uint32_t g = 0; g < p->num_groups && !rc; g++) {
        rc = fill(ctx, first, rows[g], ig_part_writer_columns(w), ig_part_writer_blobs(w), err);
        if (!rc) rc = ig_part_writer_end_rows(w, rows[g], err);
        first += rows[g];
    }
    if (!rc) rc = ig_part_writer_finish_graft(w, mini, end, err);
    ig_part_writer_free(w);
    free(rows);
    return rc;
}

int ig_part_graft(const struct ig_part *p, const char *into, const struct ig_schema *add,
                  const struct ig_writer_opts *opts, ig_graft_fill_fn fill, void *ctx,
                  uint64_t *new_end, struct ig_error *err)
{
    if (p->version < 9)
        return ig_err(err, -EINVAL,
                      "%s: format %u; adding columns needs parts of format 9 or later "
                      "(import the table again)",
                      p->path, p->version);
    int fd = ig_open(into, O_WRONLY | O_CLOEXEC, 0);
    if (fd < 0) return ig_err(err, -errno, "%s: %s", into, strerror(errno));
    struct stat st;
    int rc = fstat(fd, &st) ? ig_err(err, -errno, "%s: %s", into, strerror(errno)) : 0;
    /* past everything the file holds (pages an erase moved beyond the tail too) */
    uint64_t start = (uint64_t)st.st_size > p->tail_end ? (uint64_t)st.st_size : p->tail_end;
    start = (start + 7) / 8 * 8;
    struct ig_buf mini = IG_BUF_INIT, footer = IG_BUF_INIT;
    uint64_t end = 0, root = 0;
    if (!rc) rc = write_pages(p, into, start, add, opts, fill, ctx, &mini, &end, err);
    uint64_t footer_at = (end + 7) / 8 * 8;
    if (!rc)
        rc = ig_buf_append_zeros(&footer, footer_at - end) ? ig_err(err, -ENOMEM, "out of memory")
                                                           : 0;
    if (!rc) rc = ig_graft_merge(p, mini.data, mini.len, &footer, &root, err);
    if (!rc) {
        size_t flen = footer.len - (size_t)(footer_at - end);
        uint8_t tail[IG_TAIL_SIZE] = {0};
        ig_st64(tail + IG_TAIL_FOOTER_OFFSET, footer_at);
        ig_st64(tail + IG_TAIL_FOOTER_SIZE, flen);
        ig_st64(tail + IG_TAIL_ROOT, root);
        ig_st32(tail + IG_TAIL_VERSION, IG_FORMAT_VERSION);
        ig_st64(tail + IG_TAIL_GENERATION, p->generation + 1);
        ig_st64(tail + IG_TAIL_HASH, ig_hash(tail, IG_TAIL_HASH));
        memcpy(tail + IG_TAIL_MAGIC, IG_TAIL_MAGIC_STR, 8);
        rc = ig_pwrite_full(fd, footer.data, footer.len, end);
        if (!rc) rc = ig_pwrite_full(fd, tail, sizeof tail, footer_at + flen);
        if (!rc && fsync(fd)) rc = -errno;
        if (rc) rc = ig_err(err, rc, "%s: write: %s", into, strerror(-rc));
        *new_end = footer_at + flen + IG_TAIL_SIZE;
    }
    ig_buf_free(&mini);
    ig_buf_free(&footer);
    close(fd);
    return rc;
}
