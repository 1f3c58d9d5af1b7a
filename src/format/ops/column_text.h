/* column_text.h - a column as text: what `ingot cat` prints and columns/NAME holds.
 *
 * Flat columns render one line per live row page by page (reader.h); nested
 * ones reassemble their leaves' pages in lockstep (nested.h) into one JSON value
 * per row. This sits above both readers, which know nothing of each other. */
#ifndef IG_FORMAT_OPS_COLUMN_TEXT_H
#define IG_FORMAT_OPS_COLUMN_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "format/ops/reader.h"

typedef int (*ig_lines_fn)(void *ctx, const void *p, size_t n);

/* Render the text lines of a column for global row group g (or every group when
 * g == UINT32_MAX) and hand them to `emit` in pieces: `ingot cat`. Nested
 * columns render as one JSON value per row: a top-level column whole, a node
 * below it as the partial record along its path (reading only its leaves). */
int ig_column_text(const struct ig_table *t, const struct ig_column_ref *c, uint32_t g,
                   ig_lines_fn emit, void *ctx, struct ig_error *err);

#endif
