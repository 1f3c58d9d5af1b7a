/* buf.h - a growable byte buffer, and room in a growable array of any type.
 *
 * Used for building pages, footers and rendered text. Appends either succeed or
 * return -ENOMEM leaving the buffer's previous contents intact. */
#ifndef IG_UTIL_BUF_H
#define IG_UTIL_BUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct ig_buf {
    uint8_t *data;
    size_t len;
    size_t cap;
};

#define IG_BUF_INIT {NULL, 0, 0}

/* Room for one more element in a growable array of `size`-byte elements:
 * items itself while n < *cap, else items reallocated to twice *cap elements
 * (`first` while it has none) and *cap updated. NULL without memory (or past
 * SIZE_MAX bytes), items and *cap as they were; the caller stores the pointer
 * returned otherwise:
 *     struct x *g = ig_array_room(a->x, a->n, &a->cap, sizeof *g, 16);
 *     if (!g) return -ENOMEM;
 *     a->x = g;
 *     a->x[a->n++] = item;                                                   */
void *ig_array_room(void *items, size_t n, size_t *cap, size_t size, size_t first);

/* Grow cap to at least len + extra (the slow path of ig_buf_reserve). */
int ig_buf_grow(struct ig_buf *b, size_t extra);

/* The three below are inline: rendering text appends a few bytes at a time
 * (a bracket, a comma, a number's digits), and a call for each cost a
 * nested column's `ingot cat` a quarter of its time. */

/* Ensure cap >= len + extra; data is never NULL after it succeeds. */
static inline int ig_buf_reserve(struct ig_buf *b, size_t extra)
{
    if (b->data && extra <= b->cap - b->len) return 0;
    return ig_buf_grow(b, extra);
}

static inline int ig_buf_append(struct ig_buf *b, const void *p, size_t n)
{
    if (n == 0) return 0;
    if (n > b->cap - b->len) {
        int rc = ig_buf_grow(b, n);
        if (rc) return rc;
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
    return 0;
}

static inline int ig_buf_append_byte(struct ig_buf *b, uint8_t c)
{
    if (b->len == b->cap) {
        int rc = ig_buf_grow(b, 1);
        if (rc) return rc;
    }
    b->data[b->len++] = c;
    return 0;
}

int ig_buf_append_zeros(struct ig_buf *b, size_t n);
int ig_buf_append_u32(struct ig_buf *b, uint32_t v); /* little-endian */
int ig_buf_append_u64(struct ig_buf *b, uint64_t v); /* little-endian */
int ig_buf_printf(struct ig_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Grow len by n (contents of the new bytes unspecified); returns pointer to them or NULL. */
uint8_t *ig_buf_extend(struct ig_buf *b, size_t n);
static inline void ig_buf_reset(struct ig_buf *b) { b->len = 0; } /* keeps memory */
void ig_buf_free(struct ig_buf *b);

/* The first index in [i, n) where a and b differ, or n. Equal stretches are
 * skipped by memcmp a few hundred bytes at a time: what an erase's journal
 * costs is finding the few bytes it changed in a footer of megabytes. */
size_t ig_first_difference(const uint8_t *a, const uint8_t *b, size_t i, size_t n);

#endif
