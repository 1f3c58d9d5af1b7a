/* records.c - a part's footer records read in place (footer.h): groups,
 * chunks and their contexts and bounds, pages, page extras and blocks, the
 * deleted-row bitmap. Each is bounds-checked when read, so a footer that
 * passed the open's header and section checks can still hold a hostile
 * record: every offset, count and extent is tried against the file and the
 * section before it is used, and a bad one is -EIO naming the part, the
 * group, leaf, page or block. */
#include "format/part/footer_int.h"
#include "format/part/merkle.h"
#include "util/endian.h"
#include "util/error.h"

#include <errno.h>
#include <string.h>

int ig_part_leaf_column(const struct ig_part *p, uint32_t leaf, uint32_t *col,
                        struct ig_error *err)
{
    if (leaf >= p->num_leaves) return ig_err(err, -EIO, "%s: leaf %u out of range", p->path, leaf);
    uint32_t c = ig_ld32(ig_part_section(p, IG_SEC_LEAVES) + 4 * (uint64_t)leaf);
    if (c >= p->num_columns)
        return ig_err(err, -EIO, "%s: corrupt footer: leaf %u points at column %u", p->path, leaf,
                      c);
    *col = c;
    return 0;
}

int ig_part_group(const struct ig_part *p, uint32_t g, struct ig_grouprec *out,
                  struct ig_error *err)
{
    if (g >= p->num_groups) return ig_err(err, -EIO, "%s: row group %u out of range", p->path, g);
    const uint8_t *r = ig_part_section(p, IG_SEC_GROUPS) + (uint64_t)g * IG_GRP_SIZE;
    out->first_row = ig_ld64(r + IG_GRP_FIRST_ROW);
    out->row_count = ig_ld32(r + IG_GRP_ROW_COUNT);
    out->first_page = ig_ld32(r + IG_GRP_FIRST_PAGE);
    out->page_count = ig_ld32(r + IG_GRP_PAGE_COUNT);
    out->hash = ig_ld64(r + IG_GRP_HASH);
    if (out->row_count == 0 || out->first_row > p->num_rows ||
        out->row_count > p->num_rows - out->first_row || out->first_page > p->num_pages ||
        out->page_count > p->num_pages - out->first_page)
        return ig_err(err, -EIO, "%s: corrupt footer: row group %u record", p->path, g);
    return 0;
}

int ig_part_chunk(const struct ig_part *p, uint32_t g, uint32_t leaf, uint32_t *first_page,
                  uint32_t *page_count, struct ig_error *err)
{
    struct ig_grouprec gr;
    int rc = ig_part_group(p, g, &gr, err);
    return rc ? rc : ig_part_group_chunk(p, g, &gr, leaf, first_page, page_count, err);
}

int ig_part_group_chunk(const struct ig_part *p, uint32_t g, const struct ig_grouprec *grp, uint32_t leaf,
                        uint32_t *first_page, uint32_t *page_count, struct ig_error *err)
{
    const struct ig_grouprec gr = *grp;
    if (leaf >= p->num_leaves) return ig_err(err, -EIO, "%s: leaf %u out of range", p->path, leaf);
    const uint8_t *r = ig_part_section(p, IG_SEC_CHUNKS) +
                       ((uint64_t)g * p->num_leaves + leaf) * ig_chunk_record_size(p);
    uint32_t fp = ig_ld32(r + IG_CHK_FIRST_PAGE), pc = ig_ld32(r + IG_CHK_PAGE_COUNT);
    if (pc == 0 || fp < gr.first_page || fp - gr.first_page > gr.page_count ||
        pc > gr.page_count - (fp - gr.first_page))
        return ig_err(err, -EIO, "%s: corrupt footer: chunk (group %u, leaf %u) page range",
                      p->path, g, leaf);
    *first_page = fp;
    *page_count = pc;
    return 0;
}

uint8_t *ig_chunk_record(const struct ig_part *p, const uint8_t *footer, uint32_t g, uint32_t leaf)
{
    return (uint8_t *)footer + p->sec_off[IG_SEC_CHUNKS] + ((uint64_t)g * p->num_leaves + leaf) * ig_chunk_record_size(p);
}

/* (g, leaf) names a chunk of p, or -EIO saying it does not. */
static int chunk_in_range(const struct ig_part *p, uint32_t g, uint32_t leaf, struct ig_error *err)
{
    if (g < p->num_groups && leaf < p->num_leaves) return 0;
    return ig_err(err, -EIO, "%s: chunk (group %u, leaf %u) out of range", p->path, g, leaf);
}

int ig_part_chunk_dict(const struct ig_part *p, uint32_t g, uint32_t leaf, struct ig_chunk_dict *out,
                       struct ig_error *err)
{
    memset(out, 0, sizeof *out);
    int rc = chunk_in_range(p, g, leaf, err);
    if (rc || p->version < IG_FORMAT_CHUNK_DICT) return rc;
    const uint8_t *r = ig_chunk_record(p, p->footer, g, leaf);
    out->count = ig_ld32(r + IG_CHK_DICT_COUNT);
    out->bytes = ig_ld32(r + IG_CHK_DICT_BYTES);
    if (!out->count && out->bytes)
        return ig_err(err, -EIO, "%s: corrupt footer: chunk (group %u, leaf %u) counts %u dictionary bytes of no value",
                      p->path, g, leaf, out->bytes);
    return 0;
}

int ig_part_chunk_minmax(const struct ig_part *p, uint32_t g, uint32_t leaf, struct ig_minmax *out,
                         struct ig_error *err)
{
    memset(out, 0, sizeof *out);
    int rc = chunk_in_range(p, g, leaf, err);
    if (rc || p->version < IG_FORMAT_CHUNK_STATS) return rc;
    const uint8_t *r = ig_chunk_record(p, p->footer, g, leaf);
    uint8_t flags = r[IG_CHK_STATS_FLAGS];
    static const uint8_t zero[IG_CHK_MIN - IG_CHK_STATS_FLAGS - 1];
    if ((flags & ~IG_CHKS_BOUNDED) || memcmp(r + IG_CHK_STATS_FLAGS + 1, zero, sizeof zero))
        return ig_err(err, -EIO, "%s: corrupt footer: chunk (group %u, leaf %u) statistics flags", p->path, g,
                      leaf);
    out->bounded = flags & IG_CHKS_BOUNDED;
    out->min = ig_ld64(r + IG_CHK_MIN);
    out->max = ig_ld64(r + IG_CHK_MAX);
    if (!out->bounded && (out->min || out->max))
        return ig_err(err, -EIO, "%s: corrupt footer: chunk (group %u, leaf %u) has bounds it says it has not",
                      p->path, g, leaf);
    return 0;
}

static bool extent_in_data(const struct ig_part *p, uint64_t offset, uint64_t capacity);

int ig_part_chunk_ctx(const struct ig_part *p, uint32_t g, uint32_t leaf, struct ig_ctxrec *out,
                      struct ig_error *err)
{
    memset(out, 0, sizeof *out);
    int rc = chunk_in_range(p, g, leaf, err);
    if (rc || p->version < IG_FORMAT_CHUNK_CTX) return rc;
    const uint8_t *r = ig_chunk_record(p, p->footer, g, leaf);
    out->offset = ig_ld64(r + IG_CHK_CTX_OFFSET);
    out->size = ig_ld32(r + IG_CHK_CTX_SIZE);
    out->hash = ig_ld64(r + IG_CHK_CTX_HASH);
    if (ig_ld32(r + IG_CHK_CTX_SIZE + 4) || (!out->size && (out->offset || out->hash)))
        return ig_err(err, -EIO, "%s: corrupt footer: chunk (group %u, leaf %u) context record",
                      p->path, g, leaf);
    if (out->size && !extent_in_data(p, out->offset, out->size))
        return ig_err(err, -EIO,
                      "%s: corrupt footer: chunk (group %u, leaf %u) context of %u bytes at %llu "
                      "lies outside the data",
                      p->path, g, leaf, out->size, (unsigned long long)out->offset);
    if (out->size > IG_MAX_CTX_SIZE)
        return ig_err(err, -EIO,
                      "%s: corrupt footer: chunk (group %u, leaf %u) context of %u bytes", p->path,
                      g, leaf, out->size);
    return 0;
}

int ig_part_page_group(const struct ig_part *p, uint32_t page, uint32_t *group,
                       struct ig_error *err)
{
    uint32_t lo = 0, hi = p->num_groups; /* the last group whose first page <= page */
    struct ig_grouprec gr;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        int rc = ig_part_group(p, mid, &gr, err);
        if (rc) return rc;
        if (gr.first_page <= page)
            lo = mid;
        else
            hi = mid;
    }
    int rc = p->num_groups ? ig_part_group(p, lo, &gr, err) : -EIO;
    if (rc || page < gr.first_page || page - gr.first_page >= gr.page_count)
        return ig_err(err, -EIO, "%s: corrupt footer: no row group holds page %u", p->path, page);
    *group = lo;
    return 0;
}

void ig_chunk_minmax_put(uint8_t *rec, const struct ig_minmax *m)
{
    memset(rec + IG_CHK_STATS_FLAGS, 0, IG_CHK_MAX + 8 - IG_CHK_STATS_FLAGS);
    if (!m->bounded) return;
    rec[IG_CHK_STATS_FLAGS] = IG_CHKS_BOUNDED;
    ig_st64(rec + IG_CHK_MIN, m->min);
    ig_st64(rec + IG_CHK_MAX, m->max);
}

/* Page extents lie between the magic and the footer; from version 10 also
 * after the tail (where an erase moves a page that grew: the footer stays put,
 * so MANIFEST's record of where it ends stays true). Not bounded by the size
 * the file had at open: on shared storage this host may still see an older
 * size than the footer's writer left; a page past the end fails its read
 * (and the reader looks again), never a mapping. */
#define IG_EXTENT_END_MAX ((uint64_t)1 << 56)
static bool extent_in_data(const struct ig_part *p, uint64_t offset, uint64_t capacity)
{
    if (offset >= IG_PART_MAGIC_LEN && offset <= p->footer_offset && capacity <= p->footer_offset - offset)
        return true;
    return p->version >= IG_FORMAT_VERSIONED && p->end_recorded && offset >= p->tail_end &&
           offset <= IG_EXTENT_END_MAX && capacity <= IG_EXTENT_END_MAX - offset;
}

static bool all_zero(const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (b[i]) return false;
    return true;
}

/* What is wrong with a released page's records (layout.h, IG_PGF_RELEASED),
 * or NULL: only a part of format 10 has one, and it keeps no field beyond
 * its extent, its rows and its leaf, no extras beyond its first block, and
 * block records of zeros. */
static const char *released_page_problem(const struct ig_part *p, uint32_t page,
                                         const struct ig_pagerec *o)
{
    if (p->version < IG_FORMAT_VERSIONED) return "released, in a part older than format 10";
    if (o->flags != IG_PGF_RELEASED || o->stored || o->entry_count || o->value_count ||
        o->encoding || o->compression || o->deleted || o->checksum || o->text_len || o->body_size)
        return "released, but its record keeps more than its extent and rows";
    if (o->row_count == 0) return "bad row counts";
    if (o->leaf >= p->num_leaves) return "bad leaf";
    const uint8_t *x = ig_part_section(p, IG_SEC_EXTRA) + (uint64_t)page * IG_PX_SIZE;
    if (ig_ld32(x + IG_PX_LIVE_VALUES) || ig_ld64(x + IG_PX_NODE_TEXT))
        return "released, but its extras keep counts";
    if (!all_zero(ig_part_section(p, IG_SEC_BLOCKS) + (uint64_t)o->first_block * IG_BLK_SIZE,
                  (size_t)o->nblocks * IG_BLK_SIZE))
        return "released, but its block records are not zero";
    return NULL;
}

int ig_part_page(const struct ig_part *p, uint32_t page, struct ig_pagerec *o,
                 struct ig_error *err)
{
    if (page >= p->num_pages) return ig_err(err, -EIO, "%s: page %u out of range", p->path, page);
    const uint8_t *r = ig_part_section(p, IG_SEC_PAGES) + (uint64_t)page * IG_PG_SIZE;
    o->offset = ig_ld64(r + IG_PG_OFFSET);
    o->capacity = ig_ld32(r + IG_PG_CAPACITY);
    o->stored = ig_ld32(r + IG_PG_STORED);
    o->first_row = ig_ld32(r + IG_PG_FIRST_ROW);
    o->row_count = ig_ld32(r + IG_PG_ROW_COUNT);
    o->entry_count = ig_ld32(r + IG_PG_ENTRY_COUNT);
    o->value_count = ig_ld32(r + IG_PG_VALUE_COUNT);
    o->encoding = r[IG_PG_ENCODING];
    o->compression = r[IG_PG_COMPRESSION];
    o->flags = r[IG_PG_FLAGS];
    o->deleted = ig_ld32(r + IG_PG_DELETED);
    o->checksum = ig_ld64(r + IG_PG_CHECKSUM);
    o->text_len = ig_ld64(r + IG_PG_TEXT_LEN);
    o->body_size = ig_ld32(r + IG_PG_BODY_SIZE);
    o->leaf = ig_ld32(r + IG_PG_LEAF);
    o->first_block = o->nblocks = 0;
    const char *bad = NULL;
    if (p->version >= IG_FORMAT_BLOCKS) {
        /* its blocks run to the next page's first block */
        const uint8_t *x = ig_part_section(p, IG_SEC_EXTRA);
        o->first_block = ig_ld32(x + (uint64_t)page * IG_PX_SIZE + IG_PX_FIRST_BLOCK);
        uint32_t next = page + 1 < p->num_pages
                            ? ig_ld32(x + (uint64_t)(page + 1) * IG_PX_SIZE + IG_PX_FIRST_BLOCK)
                            : p->num_blocks;
        if (o->first_block >= next || next > p->num_blocks || next - o->first_block > o->row_count)
            bad = "bad block range";
        else
            o->nblocks = next - o->first_block;
    }
    if (bad) {
    } else if (!extent_in_data(p, o->offset, o->capacity))
        bad = "extent outside the data region";
    else if (o->flags & IG_PGF_RELEASED)
        bad = released_page_problem(p, page, o);
    else if (o->stored == 0 || o->stored > o->capacity)
        bad = "stored size exceeds its extent";
    else if (o->body_size < IG_BODY_HDR || o->body_size > IG_MAX_PAGE_BODY)
        bad = "implausible body size";
    else if (o->compression > (p->version >= IG_FORMAT_ZDICT && o->nblocks ? IG_PC_ZSTD_DICT : IG_PC_ZSTD) ||
             (o->compression == IG_PC_NONE && o->body_size != o->stored && !o->nblocks))
        bad = "bad compression fields";
    else if (o->row_count == 0 || o->entry_count < o->row_count ||
             (uint64_t)o->value_count > (uint64_t)o->entry_count * 65536 || o->deleted > o->row_count)
        bad = "bad row counts";
    else if (o->leaf >= p->num_leaves)
        bad = "bad leaf";
    if (bad) return ig_err(err, -EIO, "%s: corrupt footer: page %u: %s", p->path, page, bad);
    return 0;
}

uint32_t ig_page_nblocks(const struct ig_pagerec *page)
{
    return page->nblocks ? page->nblocks : 1;
}

int ig_part_block(const struct ig_part *p, uint32_t page, const struct ig_pagerec *rec, uint32_t b,
                  struct ig_pagerec *o, struct ig_error *err)
{
    if (rec->flags & IG_PGF_RELEASED)
        return ig_err(err, -ENODATA,
                      "%s: page %u was released by ingot gc (no version kept shows its column)",
                      p->path, page);
    if (!rec->nblocks) { /* a page of an older part: one block, the page itself */
        if (b) return ig_err(err, -EIO, "%s: page %u has one block, not %u", p->path, page, b + 1);
        *o = *rec;
        o->first_row = 0;
        return 0;
    }
    if (b >= rec->nblocks)
        return ig_err(err, -EIO, "%s: page %u block %u out of range", p->path, page, b);
    const uint8_t *r = ig_part_section(p, IG_SEC_BLOCKS) + (uint64_t)(rec->first_block + b) * IG_BLK_SIZE;
    uint32_t off = ig_ld32(r + IG_BLK_OFFSET);
    uint32_t end = b + 1 < rec->nblocks ? ig_ld32(r + IG_BLK_SIZE + IG_BLK_OFFSET) : rec->capacity;
    *o = (struct ig_pagerec){0};
    o->offset = rec->offset + off;
    o->capacity = end >= off ? end - off : 0;
    o->stored = ig_ld32(r + IG_BLK_STORED);
    o->body_size = ig_ld32(r + IG_BLK_BODY_SIZE);
    o->first_row = ig_ld32(r + IG_BLK_FIRST_ROW);
    o->row_count = ig_ld32(r + IG_BLK_ROW_COUNT);
    o->entry_count = ig_ld32(r + IG_BLK_ENTRY_COUNT);
    o->value_count = ig_ld32(r + IG_BLK_VALUE_COUNT);
    o->compression = r[IG_BLK_COMPRESSION];
    o->encoding = r[IG_BLK_ENCODING];
    o->flags = r[IG_BLK_FLAGS];
    o->checksum = ig_ld64(r + IG_BLK_CHECKSUM);
    o->leaf = rec->leaf;
    const char *bad = NULL;
    if (end > rec->capacity || off > end)
        bad = "extent outside its page";
    else if (o->stored == 0 || o->stored > o->capacity)
        bad = "stored size exceeds its extent";
    else if (o->body_size < IG_BODY_HDR || o->body_size > IG_MAX_PAGE_BODY)
        bad = "implausible body size";
    else if (o->compression > (p->version >= IG_FORMAT_ZDICT ? IG_PC_ZSTD_DICT : IG_PC_ZSTD) ||
             r[IG_BLK_RESERVED] ||
             (o->compression == IG_PC_NONE && o->body_size != o->stored))
        bad = "bad compression fields";
    else if (o->row_count == 0 || o->first_row > rec->row_count ||
             o->row_count > rec->row_count - o->first_row || (b == 0 && o->first_row != 0) ||
             (b + 1 == rec->nblocks && o->first_row + o->row_count != rec->row_count) ||
             o->entry_count < o->row_count || (uint64_t)o->value_count > (uint64_t)o->entry_count * 65536)
        bad = "bad row counts";
    if (bad)
        return ig_err(err, -EIO, "%s: corrupt footer: page %u block %u: %s", p->path, page, b, bad);
    return 0;
}

int ig_part_block_of_row(const struct ig_part *p, uint32_t page, const struct ig_pagerec *rec,
                         uint32_t row, uint32_t *b, struct ig_pagerec *o, struct ig_error *err)
{
    uint32_t lo = 0, hi = ig_page_nblocks(rec); /* the last block starting at or before row */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        int rc = ig_part_block(p, page, rec, mid, o, err);
        if (rc) return rc;
        if (o->first_row <= row)
            lo = mid;
        else
            hi = mid;
    }
    int rc = ig_part_block(p, page, rec, lo, o, err);
    if (rc) return rc;
    if (row < o->first_row || row - o->first_row >= o->row_count)
        return ig_err(err, -EIO, "%s: corrupt footer: page %u: no block holds row %u", p->path, page, row);
    *b = lo;
    return 0;
}

bool ig_part_row_deleted(const struct ig_part *p, uint64_t row)
{
    const uint8_t *bm = ig_part_deletion(p);
    if (row >= p->num_rows || !bm) return false;
    return (bm[row / 8] >> (row % 8)) & 1;
}

bool ig_part_deleted_bits(const struct ig_part *p, uint64_t first, uint32_t count, uint8_t *dst)
{
    memset(dst, 0, (count + 7) / 8);
    const uint8_t *bm = ig_part_deletion(p);
    if (p->deleted_rows == 0 || !bm) return false;
    bool any = false;
    for (uint32_t i = 0; i < count; i++) {
        uint64_t r = first + i;
        if (r < p->num_rows && ((bm[r / 8] >> (r % 8)) & 1)) {
            dst[i / 8] |= (uint8_t)(1u << (i % 8));
            any = true;
        }
    }
    return any;
}

bool ig_part_leaf_released(const struct ig_part *p, uint32_t leaf)
{
    uint32_t first, count;
    if (p->version < IG_FORMAT_VERSIONED || !p->num_groups ||
        ig_part_chunk(p, 0, leaf, &first, &count, NULL))
        return false;
    return ig_part_section(p, IG_SEC_PAGES)[(uint64_t)first * IG_PG_SIZE + IG_PG_FLAGS] &
           IG_PGF_RELEASED;
}

int ig_part_page_extra(const struct ig_part *p, uint32_t page, struct ig_pagex *out,
                       struct ig_error *err)
{
    if (page >= p->num_pages) return ig_err(err, -EIO, "%s: page %u out of range", p->path, page);
    const uint8_t *x = ig_part_section(p, IG_SEC_EXTRA) + (uint64_t)page * IG_PX_SIZE;
    out->live_values = ig_ld32(x + IG_PX_LIVE_VALUES);
    out->node_text_len = ig_ld64(x + IG_PX_NODE_TEXT);
    return 0;
}

uint64_t ig_footer_group_hash(const struct ig_part *p, const uint8_t *footer, uint32_t first,
                              uint32_t count)
{
    return ig_merkle_group_hash(footer + p->sec_off[IG_SEC_PAGES] + (uint64_t)first * IG_PG_SIZE,
                                footer + p->sec_off[IG_SEC_EXTRA] + (uint64_t)first * IG_PX_SIZE,
                                count);
}
