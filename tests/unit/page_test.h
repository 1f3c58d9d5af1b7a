/* page_test.h - what page-level unit tests share: a page record for a page built
 * in memory (as if written at offset 0 with no slack). */
#ifndef IG_TEST_PAGE_TEST_H
#define IG_TEST_PAGE_TEST_H

#include "format/part/footer.h"
#include "format/page/page.h"

static inline struct ig_pagerec test_rec_of(const struct ig_page_built *b, size_t rows)
{
    return (struct ig_pagerec){.stored = (uint32_t)b->stored.len,
                               .capacity = (uint32_t)b->stored.len,
                               .row_count = (uint32_t)rows,
                               .entry_count = b->entry_count,
                               .value_count = b->value_count,
                               .encoding = b->encoding,
                               .compression = b->compression,
                               .flags = b->flags,
                               .checksum = b->checksum,
                               .body_size = b->body_size};
}

#endif
