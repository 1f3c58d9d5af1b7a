/* ranges.h - byte ranges of an object: merged for fewer requests, split for
 * parallel ones, and a patched object planned as copied and uploaded parts.
 *
 * Pure functions over arrays (no I/O), so they are tested alone
 * (tests/unit/test_store.c). */
#ifndef IG_STORE_RANGES_H
#define IG_STORE_RANGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ig_range {
    uint64_t off, len;
};

/* Sort r by offset and merge ranges that overlap or lie at most `gap` bytes
 * apart (the bytes between are fetched too: one request instead of two).
 * Empty ranges are dropped. Returns the new count. */
size_t ig_ranges_coalesce(struct ig_range *r, size_t n, uint64_t gap);

/* Cut every range longer than `piece` into pieces of at most `piece` bytes
 * (equal but for the last), into out[0..cap). Returns the count, or SIZE_MAX
 * when out is too small. piece 0 cuts nothing. */
size_t ig_ranges_split(const struct ig_range *r, size_t n, uint64_t piece, struct ig_range *out,
                       size_t cap);

/* A new object of `size` bytes made from an old one of `src_size` bytes in
 * which the ranges `dirty` changed (sorted, merged, inside [0, size)): each
 * part either copied server-side from the old object or uploaded. Multipart
 * rules: every part but the last holds at least min_part bytes; a copied
 * part at most max_copy, an uploaded one at most max_upload (both at least
 * 2 x min_part); bytes at or past src_size are always uploaded. Uploaded
 * parts cover every dirty byte and as few clean ones as the minimum allows. */
struct ig_part_plan {
    uint64_t off, len;
    bool upload; /* else copied from the old object's same range */
};
/* Returns the count, or SIZE_MAX when out (cap) is too small. */
size_t ig_ranges_plan_parts(uint64_t size, uint64_t src_size, const struct ig_range *dirty,
                            size_t n, uint64_t min_part, uint64_t max_copy, uint64_t max_upload,
                            struct ig_part_plan *out, size_t cap);

#endif
