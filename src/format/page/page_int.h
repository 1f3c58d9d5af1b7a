/* page_int.h - what the page layer's files share: page.c's scratch room,
 * lane descriptors and zstd helpers, used by page_encode.c, page_blocks.c,
 * page_decode.c and page_erase.c. Not part of the page layer's interface
 * (page.h). */
#ifndef IG_FORMAT_PAGE_INT_H
#define IG_FORMAT_PAGE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "format/enc/codec.h"
#include "format/page/page.h"

struct ig_buf;
struct ig_error;

/* Bodies below this are not worth a zstd frame. */
#define IG_ZSTD_MIN_BODY 256

/* Room for n + 1 offsets in the scratch. */
int ig_page_scratch_offs(struct ig_page_scratch *s, size_t n);
/* How a fixed-width type's lanes read as integers (signedness, width). */
struct ig_int_desc ig_page_lane_desc(uint8_t type);
/* ZSTD_compress's bytes through this thread's reused context. */
size_t ig_page_compress(void *dst, size_t cap, const void *src, size_t n, int level);
/* The same against a chunk's zstd dictionary (compression 2). */
size_t ig_page_compress_dict(struct ig_zdict *d, void *dst, size_t cap, const void *src, size_t n,
                             int level);
/* Where a nested leaf's values stream starts: *pos (just after the body's
 * header) moved past the level streams the body flags say it has, two or
 * one joint stream. -EIO when a stream's length runs past len. */
int ig_page_skip_levels(const uint8_t *body, size_t len, size_t *pos);
/* Compress body (per policy) into out and checksum it. */
int ig_page_seal(const struct ig_page_policy *pol, struct ig_buf *body, struct ig_page_built *out,
                 struct ig_error *err);
/* An erased page's zstd frame a few bytes over its extent: try harder levels. */
int ig_page_recompress_to_fit(const struct ig_buf *body, size_t capacity,
                              struct ig_page_built *out, struct ig_error *err);
/* The same, a frame of compression 2 against d, trying `first` (a level, or
 * 0: none) before the harder one: an erase compresses such a frame below the
 * writer's level, and the writer's is what it falls back to. */
int ig_page_recompress_to_fit_dict(const struct ig_buf *body, size_t capacity, struct ig_zdict *d,
                                   int first, struct ig_page_built *out, struct ig_error *err);

#endif
