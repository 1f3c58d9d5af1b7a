/* page_blob.h - the values of a blob or list<blob> column inside a page.
 *
 * After the page body's header and validity bitmap (layout.h, body flag
 * IG_BODY_BLOB):
 *
 *     u32 m                      objects referenced by the page's rows
 *     u32 len | counts stream    n lanes: objects of each row (0 for NULL rows)
 *     u32 len | offsets stream   m lanes: object offsets in the part's blob file
 *     u32 len | sizes stream     m lanes: size | media kind << 56
 *     u32 len | hashes stream    m lanes: XXH3-64 of each object's bytes
 *
 * The streams are int streams (codec.h) that never drop elements, so erasing a
 * row is rebuilding the page without its objects (count 0): the page only
 * shrinks, and nothing of the row's references remains. In memory a row's value
 * is its references, 24 bytes each (blob.h). */
#ifndef IG_FORMAT_PAGE_BLOB_H
#define IG_FORMAT_PAGE_BLOB_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "format/model/values.h"

struct ig_error;

#define IG_BLOB_PAGE_MAX_OBJECTS (1u << 22)

/* Append the streams for rows [first, first + count) of v; rows whose bit is set
 * in `skip` (may be NULL) are written with no objects. */
int ig_blob_page_encode(const struct ig_values *v, size_t first, size_t count,
                        const uint8_t *skip, struct ig_buf *body, struct ig_error *err);
/* Decode n rows into out (type blob: bytes values of 24-byte references). */
int ig_blob_page_decode(const uint8_t *p, size_t len, size_t n, struct ig_values *out,
                        struct ig_error *err);

#endif
