#include "buf.h"
#include "endian.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ig_buf_grow(struct ig_buf *b, size_t extra)
{
    /* always leave a valid pointer behind, even for 0 bytes: callers do data + len */
    if (b->data && extra <= b->cap - b->len) return 0;
    if (extra > SIZE_MAX / 2 - b->len) return -ENOMEM;
    size_t want = b->len + extra;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < want)
        cap *= 2;
    uint8_t *p = realloc(b->data, cap);
    if (!p) return -ENOMEM;
    b->data = p;
    b->cap = cap;
    return 0;
}

int ig_buf_append_zeros(struct ig_buf *b, size_t n)
{
    uint8_t *p = ig_buf_extend(b, n);
    if (!p && n) return -ENOMEM;
    if (n) memset(p, 0, n);
    return 0;
}

int ig_buf_append_u32(struct ig_buf *b, uint32_t v)
{
    uint8_t t[4];
    ig_st32(t, v);
    return ig_buf_append(b, t, 4);
}

int ig_buf_append_u64(struct ig_buf *b, uint64_t v)
{
    uint8_t t[8];
    ig_st64(t, v);
    return ig_buf_append(b, t, 8);
}

int ig_buf_printf(struct ig_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) return -EINVAL;
    int rc = ig_buf_reserve(b, (size_t)n + 1);
    if (rc) return rc;
    va_start(ap, fmt);
    vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return 0;
}

uint8_t *ig_buf_extend(struct ig_buf *b, size_t n)
{
    if (ig_buf_reserve(b, n)) return NULL;
    uint8_t *p = b->data + b->len;
    b->len += n;
    return p;
}

void ig_buf_free(struct ig_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

size_t ig_first_difference(const uint8_t *a, const uint8_t *b, size_t i, size_t n)
{
    enum { STRETCH = 256 };
    while (i + STRETCH <= n && !memcmp(a + i, b + i, STRETCH))
        i += STRETCH;
    for (; i + 8 <= n; i += 8) {
        uint64_t x, y;
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        if (x != y) break;
    }
    while (i < n && a[i] == b[i])
        i++;
    return i;
}

void *ig_array_room(void *items, size_t n, size_t *cap, size_t size, size_t first)
{
    if (n < *cap) return items;
    size_t nc = *cap ? 2 * *cap : first;
    if (nc <= *cap || (size && nc > SIZE_MAX / size)) return NULL;
    void *grown = realloc(items, nc * size);
    if (grown) *cap = nc;
    return grown;
}
