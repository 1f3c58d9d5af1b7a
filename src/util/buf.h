/* buf.h - a growable byte buffer.
 *
 * Used for building pages, footers and rendered text. Appends either succeed or
 * return -ENOMEM leaving the buffer's previous contents intact. */
#ifndef IG_UTIL_BUF_H
#define IG_UTIL_BUF_H

#include <stddef.h>
#include <stdint.h>

struct ig_buf {
    uint8_t *data;
    size_t len;
    size_t cap;
};

#define IG_BUF_INIT {NULL, 0, 0}

int ig_buf_reserve(struct ig_buf *b, size_t extra); /* ensure cap >= len + extra */
int ig_buf_append(struct ig_buf *b, const void *p, size_t n);
int ig_buf_append_byte(struct ig_buf *b, uint8_t c);
int ig_buf_append_zeros(struct ig_buf *b, size_t n);
int ig_buf_append_u32(struct ig_buf *b, uint32_t v); /* little-endian */
int ig_buf_append_u64(struct ig_buf *b, uint64_t v); /* little-endian */
int ig_buf_printf(struct ig_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Grow len by n (contents of the new bytes unspecified); returns pointer to them or NULL. */
uint8_t *ig_buf_extend(struct ig_buf *b, size_t n);
void ig_buf_reset(struct ig_buf *b); /* len = 0, keeps memory */
void ig_buf_free(struct ig_buf *b);

/* The first index in [i, n) where a and b differ, or n. Equal stretches are
 * skipped by memcmp a few hundred bytes at a time: what an erase's journal
 * costs is finding the few bytes it changed in a footer of megabytes. */
size_t ig_first_difference(const uint8_t *a, const uint8_t *b, size_t i, size_t n);

#endif
