#include "thrift_out.h"

#include <errno.h>
#include <string.h>

void tw_init(struct tw *w, struct ig_buf *out)
{
    memset(w, 0, sizeof *w);
    w->out = out;
}

/* Appends are a few bytes each and a footer has millions of them: copy in
 * place while there is room, grow (doubling) only when there is not. */
static inline void put(struct tw *w, const void *p, size_t n)
{
    struct ig_buf *b = w->out;
    if (!n) return;
    if (b->cap - b->len < n) {
        if (w->err || ig_buf_reserve(b, n > b->len ? n : b->len)) {
            w->err = -ENOMEM;
            return;
        }
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

static inline void put_byte(struct tw *w, uint8_t c) { put(w, &c, 1); }

size_t tw_varint_len(uint64_t v)
{
    size_t n = 1;
    for (; v >= 0x80; v >>= 7) n++;
    return n;
}

void tw_varint(struct tw *w, uint64_t v)
{
    if (v < 0x80) {
        put_byte(w, (uint8_t)v);
        return;
    }
    uint8_t b[10];
    size_t n = 0;
    for (; v >= 0x80; v >>= 7) b[n++] = (uint8_t)(v | 0x80);
    b[n++] = (uint8_t)v;
    put(w, b, n);
}

static uint64_t zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }

/* The field header: the id as a delta from the previous field when it fits 4 bits. */
static void field(struct tw *w, int16_t id, uint8_t type)
{
    int16_t delta = (int16_t)(id - w->last[w->depth]);
    if (delta > 0 && delta <= 15) {
        put_byte(w, (uint8_t)(delta << 4 | type));
    } else {
        put_byte(w, type);
        tw_varint(w, zigzag(id));
    }
    w->last[w->depth] = id;
}

void tw_i32(struct tw *w, int16_t id, int32_t v)
{
    field(w, id, TW_I32);
    tw_varint(w, zigzag(v));
}

void tw_i64(struct tw *w, int16_t id, int64_t v)
{
    field(w, id, TW_I64);
    tw_varint(w, zigzag(v));
}

void tw_binary(struct tw *w, int16_t id, const void *p, size_t n)
{
    field(w, id, TW_BINARY);
    tw_elem_binary(w, p, n);
}

static void open_struct(struct tw *w)
{
    if (w->depth + 1 >= TW_MAX_DEPTH) {
        w->err = -EINVAL;
        return;
    }
    w->last[++w->depth] = 0;
}

void tw_struct(struct tw *w, int16_t id)
{
    field(w, id, TW_STRUCT);
    open_struct(w);
}

void tw_elem_struct(struct tw *w) { open_struct(w); }

void tw_end(struct tw *w)
{
    uint8_t stop = 0;
    put(w, &stop, 1);
    if (w->depth > 0) w->depth--;
}

void tw_finish(struct tw *w)
{
    uint8_t stop = 0;
    put(w, &stop, 1);
}

void tw_list(struct tw *w, int16_t id, uint8_t elem_type, uint32_t n)
{
    field(w, id, TW_LIST);
    if (n < 15) {
        uint8_t b = (uint8_t)(n << 4 | elem_type);
        put(w, &b, 1);
    } else {
        uint8_t b = (uint8_t)(0xF0 | elem_type);
        put(w, &b, 1);
        tw_varint(w, n);
    }
}

void tw_elem_i32(struct tw *w, int32_t v) { tw_varint(w, zigzag(v)); }

void tw_elem_binary(struct tw *w, const void *p, size_t n)
{
    tw_varint(w, n);
    put(w, p, n);
}
