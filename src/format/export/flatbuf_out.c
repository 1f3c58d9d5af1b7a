/* flatbuf_out.c - a forward FlatBuffers writer (see flatbuf_out.h). */
#include "flatbuf_out.h"

#include "util/endian.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

static size_t pos(const struct fbw *w) { return w->out->len - w->base; }

/* Zeros until pos() % align == rem. */
static void pad(struct fbw *w, size_t align, size_t rem)
{
    size_t n = (align + rem - pos(w) % align) % align;
    if (n && ig_buf_append_zeros(w->out, n)) w->err = -ENOMEM;
}

void fbw_init(struct fbw *w, struct ig_buf *out)
{
    *w = (struct fbw){.out = out, .base = out->len};
    if (ig_buf_append_zeros(out, 4)) w->err = -ENOMEM;
}

static unsigned kind_size(uint8_t k)
{
    switch (k) {
    case FB_U8: return 1;
    case FB_I16: return 2;
    case FB_I64: return 8;
    default: return 4;
    }
}

size_t fbw_table(struct fbw *w, const struct fb_field *f, unsigned n, size_t *slots)
{
    unsigned nslots = 0;
    bool wide = false;
    for (unsigned i = 0; i < n; i++) {
        if (f[i].id + 1u > nslots) nslots = f[i].id + 1u;
        wide |= f[i].kind == FB_I64;
    }
    /* field offsets in the table: the soffset, then the widest fields first so
     * that each lies on its size (8-byte ones start at 4 of a table at 4 mod 8) */
    uint16_t at[FB_MAX_FIELDS] = {0};
    unsigned end = 4;
    for (unsigned size = 8; size; size /= 2)
        for (unsigned i = 0; i < n && i < FB_MAX_FIELDS; i++)
            if (kind_size(f[i].kind) == size) {
                at[i] = (uint16_t)end;
                end += size;
            }
    uint16_t vt[2 + 2 * FB_MAX_FIELDS] = {0};
    vt[0] = (uint16_t)(4 + 2 * nslots);
    vt[1] = (uint16_t)end;
    for (unsigned i = 0; i < n && i < FB_MAX_FIELDS; i++) vt[2 + f[i].id] = at[i];
    pad(w, 2, 0);
    size_t vpos = pos(w);
    uint8_t *p = ig_buf_extend(w->out, vt[0]);
    if (!p || n > FB_MAX_FIELDS || nslots > FB_MAX_FIELDS) {
        w->err = -ENOMEM;
        return 0;
    }
    for (unsigned i = 0; i < vt[0] / 2u; i++) ig_st16(p + 2 * i, vt[i]);
    pad(w, wide ? 8 : 4, wide ? 4 : 0);
    size_t tpos = pos(w);
    if (!(p = ig_buf_extend(w->out, end))) {
        w->err = -ENOMEM;
        return 0;
    }
    memset(p, 0, end);
    ig_st32(p, (uint32_t)(int32_t)(tpos - vpos)); /* the vtable lies soffset bytes before */
    for (unsigned i = 0; i < n; i++) {
        uint8_t *q = p + at[i];
        switch (f[i].kind) {
        case FB_U8: *q = (uint8_t)f[i].v; break;
        case FB_I16: ig_st16(q, (uint16_t)f[i].v); break;
        case FB_I32: ig_st32(q, (uint32_t)f[i].v); break;
        case FB_I64: ig_st64(q, (uint64_t)f[i].v); break;
        default: break; /* a reference: patched later */
        }
        if (slots) slots[i] = tpos + at[i];
    }
    return tpos;
}

size_t fbw_vector(struct fbw *w, uint32_t n, size_t size, size_t align)
{
    if (align < 4) align = 4;
    pad(w, align, align - 4); /* the elements start aligned, after the length */
    size_t at = pos(w);
    uint8_t *p = ig_buf_extend(w->out, 4 + (size_t)n * size);
    if (!p) {
        w->err = -ENOMEM;
        return 0;
    }
    memset(p, 0, 4 + (size_t)n * size);
    ig_st32(p, n);
    return at;
}

size_t fbw_string(struct fbw *w, const char *s, size_t len)
{
    pad(w, 4, 0);
    size_t at = pos(w);
    uint8_t *p = ig_buf_extend(w->out, 4 + len + 1);
    if (!p) {
        w->err = -ENOMEM;
        return 0;
    }
    ig_st32(p, (uint32_t)len);
    if (len) memcpy(p + 4, s, len);
    p[4 + len] = 0;
    return at;
}

void fbw_patch(struct fbw *w, size_t slot, size_t target)
{
    if (w->err || target <= slot) {
        if (!w->err) w->err = -EINVAL;
        return;
    }
    ig_st32(w->out->data + w->base + slot, (uint32_t)(target - slot));
}

uint8_t *fbw_at(struct fbw *w, size_t at) { return w->out->data + w->base + at; }

size_t fbw_finish(struct fbw *w)
{
    pad(w, 8, 0);
    return pos(w);
}
