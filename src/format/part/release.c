/* release.c - released pages in a footer image (release.h). */
#include "format/part/release.h"
#include "format/model/minmax.h"
#include "format/part/journal.h"
#include "format/part/merkle.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/hash.h"

#include <errno.h>
#include <string.h>

int ig_release_chunk(const struct ig_part *p, uint8_t *footer, uint32_t g, uint32_t leaf,
                     uint64_t *pages, uint64_t *bytes, struct ig_error *err)
{
    if (p->version < IG_FORMAT_VERSIONED)
        return ig_err(err, -EINVAL, "%s: format %u; releasing pages needs format %u", p->path,
                      p->version, IG_FORMAT_VERSIONED);
    uint32_t first, count;
    int rc = ig_part_chunk(p, g, leaf, &first, &count, err);
    for (uint32_t pg = first; !rc && pg < first + count; pg++) {
        struct ig_pagerec rec;
        rc = ig_part_page(p, pg, &rec, err);
        if (rc) break;
        if (rec.leaf != leaf)
            return ig_err(err, -EIO, "%s: corrupt footer: page %u belongs to leaf %u, not %u",
                          p->path, pg, rec.leaf, leaf);
        uint8_t *r = footer + p->sec_off[IG_SEC_PAGES] + (uint64_t)pg * IG_PG_SIZE;
        uint8_t *x = footer + p->sec_off[IG_SEC_EXTRA] + (uint64_t)pg * IG_PX_SIZE;
        memset(r, 0, IG_PG_SIZE);
        ig_st64(r + IG_PG_OFFSET, rec.offset);
        ig_st32(r + IG_PG_CAPACITY, rec.capacity);
        ig_st32(r + IG_PG_FIRST_ROW, rec.first_row);
        ig_st32(r + IG_PG_ROW_COUNT, rec.row_count);
        ig_st32(r + IG_PG_LEAF, rec.leaf);
        r[IG_PG_FLAGS] = IG_PGF_RELEASED;
        ig_st32(x + IG_PX_LIVE_VALUES, 0);
        ig_st64(x + IG_PX_NODE_TEXT, 0);
        memset(footer + p->sec_off[IG_SEC_BLOCKS] + (uint64_t)rec.first_block * IG_BLK_SIZE, 0,
               (size_t)rec.nblocks * IG_BLK_SIZE);
        ++*pages;
        *bytes += rec.capacity;
    }
    if (rc) return rc;
    /* the counts and bounds were taken over the values */
    uint8_t *chk = ig_chunk_record(p, footer, g, leaf);
    memset(chk + IG_CHK_DICT_COUNT, 0, 8);
    ig_chunk_minmax_put(chk, &(struct ig_minmax){0});
    /* and the context was trained on them (an fsst table holds their
     * commonest substrings): the caller zero-fills its bytes, the record
     * forgets where they were */
    if (p->version >= IG_FORMAT_CHUNK_CTX) memset(chk + IG_CHK_CTX_OFFSET, 0, IG_CHK_SIZE - IG_CHK_CTX_OFFSET);
    return 0;
}

void ig_release_seal(const struct ig_part *p, uint8_t *footer, uint8_t tail[IG_TAIL_SIZE])
{
    for (uint32_t g = 0; g < p->num_groups; g++) {
        uint8_t *gr = footer + p->sec_off[IG_SEC_GROUPS] + (uint64_t)g * IG_GRP_SIZE;
        uint32_t fp = ig_ld32(gr + IG_GRP_FIRST_PAGE), pc = ig_ld32(gr + IG_GRP_PAGE_COUNT);
        ig_st64(gr + IG_GRP_HASH, ig_footer_group_hash(p, footer, fp, pc));
    }
    ig_st64(footer + IG_HDR_CHUNKS_HASH,
            ig_hash(footer + p->sec_off[IG_SEC_CHUNKS], p->sec_size[IG_SEC_CHUNKS]));
    uint64_t root = ig_part_root(p, footer, ig_part_deletion_in(p, footer)); /* gc keeps the bitmap */
    memset(tail, 0, IG_TAIL_SIZE);
    ig_st64(tail + IG_TAIL_FOOTER_OFFSET, p->footer_offset);
    ig_st64(tail + IG_TAIL_FOOTER_SIZE, p->footer_size);
    ig_st64(tail + IG_TAIL_ROOT, root);
    ig_st32(tail + IG_TAIL_VERSION, p->version);
    ig_st64(tail + IG_TAIL_GENERATION, p->generation + 1);
    ig_st64(tail + IG_TAIL_HASH, ig_hash(tail, IG_TAIL_HASH));
    memcpy(tail + IG_TAIL_MAGIC, IG_TAIL_MAGIC_STR, 8);
}

int ig_release_journal(struct ig_journal *j, const struct ig_part *p, uint8_t *footer)
{
    uint8_t tail[IG_TAIL_SIZE];
    uint64_t written = 0;
    ig_release_seal(p, footer, tail);
    int rc = ig_journal_diff(j, p->name, p->footer_offset, p->footer, footer, p->footer_size,
                             &written);
    return rc ? rc : ig_journal_add(j, p->name, p->footer_offset + p->footer_size, tail, sizeof tail);
}
