#include "thrift_out.h"

#include <errno.h>
#include <string.h>

void tw_init(struct tw *w, struct ig_buf *out)
{
    memset(w, 0, sizeof *w);
    w->out = out;
}

/* A footer is hundreds of thousands of fields of a few bytes each: every call
 * makes room for its largest case once (a field header of at most 4 bytes, a
 * varint of at most 10), then stores bytes through a pointer. */
enum { TW_ROOM = 16 };

static inline uint8_t *room(struct tw *w, size_t n)
{
    struct ig_buf *b = w->out;
    if (b->cap - b->len < n) {
        if (w->err || ig_buf_reserve(b, n > b->len ? n : b->len)) {
            w->err = -ENOMEM;
            return NULL;
        }
    }
    return b->data + b->len;
}

static inline void done(struct tw *w, uint8_t *o) { w->out->len = (size_t)(o - w->out->data); }

static inline uint8_t *put_varint(uint8_t *o, uint64_t v)
{
    for (; v >= 0x80; v >>= 7) *o++ = (uint8_t)(v | 0x80);
    *o++ = (uint8_t)v;
    return o;
}

size_t tw_varint_len(uint64_t v)
{
    size_t n = 1;
    for (; v >= 0x80; v >>= 7) n++;
    return n;
}

void tw_varint(struct tw *w, uint64_t v)
{
    uint8_t *o = room(w, TW_ROOM);
    if (o) done(w, put_varint(o, v));
}

static inline uint64_t zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }

/* The field header: the id as a delta from the previous field when it fits 4 bits. */
static inline uint8_t *field(struct tw *w, uint8_t *o, int16_t id, uint8_t type)
{
    int16_t delta = (int16_t)(id - w->last[w->depth]);
    w->last[w->depth] = id;
    if (delta > 0 && delta <= 15) {
        *o++ = (uint8_t)(delta << 4 | type);
        return o;
    }
    *o++ = type;
    return put_varint(o, zigzag(id));
}

void tw_i32(struct tw *w, int16_t id, int32_t v)
{
    uint8_t *o = room(w, TW_ROOM);
    if (o) done(w, put_varint(field(w, o, id, TW_I32), zigzag(v)));
}

void tw_bool(struct tw *w, int16_t id, bool v)
{
    uint8_t *o = room(w, TW_ROOM);
    if (o) done(w, field(w, o, id, v ? TW_TRUE : TW_FALSE)); /* the value is the field's type */
}

void tw_i64(struct tw *w, int16_t id, int64_t v)
{
    uint8_t *o = room(w, TW_ROOM);
    if (o) done(w, put_varint(field(w, o, id, TW_I64), zigzag(v)));
}

void tw_binary(struct tw *w, int16_t id, const void *p, size_t n)
{
    uint8_t *o = room(w, TW_ROOM);
    if (!o) return;
    done(w, field(w, o, id, TW_BINARY));
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
    uint8_t *o = room(w, TW_ROOM);
    if (!o) return;
    done(w, field(w, o, id, TW_STRUCT));
    open_struct(w);
}

void tw_elem_struct(struct tw *w) { open_struct(w); }

void tw_end(struct tw *w)
{
    uint8_t *o = room(w, 1);
    if (o) {
        *o++ = 0; /* stop */
        done(w, o);
    }
    if (w->depth > 0) w->depth--;
}

void tw_finish(struct tw *w)
{
    uint8_t *o = room(w, 1);
    if (o) {
        *o++ = 0;
        done(w, o);
    }
}

void tw_list(struct tw *w, int16_t id, uint8_t elem_type, uint32_t n)
{
    uint8_t *o = room(w, TW_ROOM);
    if (!o) return;
    o = field(w, o, id, TW_LIST);
    if (n < 15) {
        *o++ = (uint8_t)(n << 4 | elem_type);
    } else {
        *o++ = (uint8_t)(0xF0 | elem_type);
        o = put_varint(o, n);
    }
    done(w, o);
}

void tw_elem_i32(struct tw *w, int32_t v) { tw_varint(w, zigzag(v)); }

void tw_elem_binary(struct tw *w, const void *p, size_t n)
{
    uint8_t *o = room(w, TW_ROOM + n);
    if (!o) return;
    o = put_varint(o, n);
    if (n) memcpy(o, p, n);
    done(w, o + n);
}
