/* pagerec.h - what the footer records about one stored page (layout.h, "page
 * record"), decoded into host form. The page layer reads a page's counts, sizes
 * and compression from it; the part layer (footer.h) fills it from the footer,
 * bounds-checked, and the writer from what it encoded. */
#ifndef IG_FORMAT_PAGE_PAGEREC_H
#define IG_FORMAT_PAGE_PAGEREC_H

#include <stdint.h>

struct ig_pagerec {
    uint64_t offset;
    uint32_t capacity, stored, first_row, row_count, entry_count, value_count;
    uint8_t encoding, compression, flags;
    uint32_t deleted;
    uint64_t checksum, text_len;
    uint32_t body_size, leaf;
};

#endif
