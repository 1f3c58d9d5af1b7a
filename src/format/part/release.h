/* release.h - column records no version kept shows, their pages released in
 * a part's footer (what `ingot gc` writes; layout.h, IG_PGF_RELEASED).
 *
 *     ig_release_chunk   in a footer image: every page of chunk (g, leaf) in
 *                        the released form (extent and rows only), the chunk's
 *                        dictionary counts, bounds and context (format 12)
 *                        cleared
 *     ig_release_seal    the image's hashes taken again (row groups, chunks,
 *                        the root) and the tail that goes after it
 *
 * The records stay (a column id never changes, and the pages still tile their
 * row group); what goes is everything that told of the values: the page
 * bytes (zeroed by the caller), checksums, lengths, counts and bounds.
 *
 * What it does not do: write anything. gc (ops/gc.h) journals the image's
 * changed bytes, its tail and the zero-fill of each released extent together
 * (journal.h), so that a crash leaves pages and records both as they were or
 * both released. */
#ifndef IG_FORMAT_PART_RELEASE_H
#define IG_FORMAT_PART_RELEASE_H

#include <stdint.h>

#include "format/layout.h"
#include "format/part/footer.h"

struct ig_error;
struct ig_journal;

/* Release chunk (g, leaf) of part p in `footer`, an image of p's footer
 * (p->footer_size bytes, a copy being edited). *pages and *bytes grow by the
 * pages released and their extents' bytes. The part must be format 10 or later; the
 * caller zero-fills the chunk's context (ig_part_chunk_ctx) as it does the pages. */
int ig_release_chunk(const struct ig_part *p, uint8_t *footer, uint32_t g, uint32_t leaf,
                     uint64_t *pages, uint64_t *bytes, struct ig_error *err);
/* The row group hashes, the chunks hash and the root of `footer` taken again,
 * and the tail to write after it (the part's next generation). */
void ig_release_seal(const struct ig_part *p, uint8_t *footer, uint8_t tail[IG_TAIL_SIZE]);
/* `footer` (an edited image of p's footer) sealed, and journaled over p's
 * footer in place: its changed bytes and the new tail. 0 or -ENOMEM (or the
 * streamed journal's write error). */
int ig_release_journal(struct ig_journal *j, const struct ig_part *p, uint8_t *footer);

#endif
