/* pagerec.h - what the footer records about one stored page or block (layout.h,
 * "page record", "block record"), decoded into host form.
 *
 * The page layer decodes, erases and checks one *block* at a time: a run of a
 * page's rows stored on its own (its body, maybe compressed, its checksum). It
 * reads the block's counts, sizes and compression from this struct. A page of
 * format 4 is blocks back to back; a page of an older part is one block, the
 * page itself. The part layer (footer.h) fills it from the footer,
 * bounds-checked, and the writer from what it encoded. */
#ifndef IG_FORMAT_PAGE_PAGEREC_H
#define IG_FORMAT_PAGE_PAGEREC_H

#include <stdint.h>

struct ig_chunk_ctx;

struct ig_pagerec {
    uint64_t offset;    /* in the part file */
    uint32_t capacity, stored;
    uint32_t first_row; /* a page: within its row group; a block: within its page */
    uint32_t row_count, entry_count, value_count;
    uint8_t encoding, compression, flags;
    uint32_t deleted;   /* pages only */
    uint64_t checksum;  /* a block (and a page before format 4): XXH3 of its stored bytes;
                           a page of format 4: XXH3 of its block records */
    uint64_t text_len;  /* pages only */
    uint32_t body_size, leaf;
    uint32_t first_block, nblocks; /* a page of format 4: its block records; else 0, 0 */
    /* the context of the block's chunk (format 12: its fsst symbol table), which
     * the reader sets before a block is decoded, erased or checked; NULL: none */
    const struct ig_chunk_ctx *cx;
};

#endif
