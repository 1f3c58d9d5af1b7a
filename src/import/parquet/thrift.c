#include "thrift.h"

#include <string.h>

void ig_tc_fail(struct ig_tc *c, const char *why)
{
    if (!c->bad) c->why = why;
    c->bad = true;
    c->p = c->end;
}

static uint64_t varint(struct ig_tc *c)
{
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (c->p >= c->end) {
            ig_tc_fail(c, "truncated varint");
            return 0;
        }
        uint8_t b = *c->p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) return v;
    }
    ig_tc_fail(c, "varint longer than 64 bits");
    return 0;
}

static int64_t zigzag(uint64_t v) { return (int64_t)((v >> 1) ^ (0 - (v & 1))); }

int ig_tc_field(struct ig_tc *c, int16_t *last, int16_t *id, uint8_t *type)
{
    if (c->bad) return 0;
    if (c->p >= c->end) {
        ig_tc_fail(c, "struct not terminated");
        return 0;
    }
    uint8_t b = *c->p++;
    *type = b & 0x0f;
    if (*type == IG_TC_STOP) return 0;
    if (*type > IG_TC_STRUCT) {
        ig_tc_fail(c, "unknown field type");
        return 0;
    }
    if (b >> 4) {
        *id = (int16_t)(*last + (b >> 4));
    } else {
        int64_t v = zigzag(varint(c));
        if (v < -32768 || v > 32767) ig_tc_fail(c, "field id out of range");
        *id = (int16_t)v;
    }
    *last = *id;
    return !c->bad;
}

int64_t ig_tc_int(struct ig_tc *c, uint8_t type)
{
    if (c->bad) return 0;
    if (type == IG_TC_I8) {
        if (c->p >= c->end) {
            ig_tc_fail(c, "truncated byte");
            return 0;
        }
        return (int8_t)*c->p++;
    }
    if (type == IG_TC_TRUE || type == IG_TC_FALSE) return type == IG_TC_TRUE;
    if (type != IG_TC_I16 && type != IG_TC_I32 && type != IG_TC_I64) {
        ig_tc_fail(c, "integer field of another type");
        return 0;
    }
    return zigzag(varint(c));
}

bool ig_tc_list_bool(struct ig_tc *c)
{
    if (c->bad || c->p >= c->end) {
        ig_tc_fail(c, "truncated bool");
        return false;
    }
    return *c->p++ == 1;
}

double ig_tc_double(struct ig_tc *c)
{
    double d = 0;
    if (c->bad || c->end - c->p < 8) {
        ig_tc_fail(c, "truncated double");
        return 0;
    }
    memcpy(&d, c->p, 8); /* little-endian on every platform ingot builds for */
    c->p += 8;
    return d;
}

const uint8_t *ig_tc_binary(struct ig_tc *c, size_t *len)
{
    *len = 0;
    uint64_t n = varint(c);
    if (c->bad) return NULL;
    if (n > (uint64_t)(c->end - c->p)) {
        ig_tc_fail(c, "string longer than its buffer");
        return NULL;
    }
    const uint8_t *p = c->p;
    c->p += n;
    *len = (size_t)n;
    return p;
}

uint32_t ig_tc_list(struct ig_tc *c, uint8_t *elem_type)
{
    *elem_type = 0;
    if (c->bad || c->p >= c->end) {
        ig_tc_fail(c, "truncated list");
        return 0;
    }
    uint8_t b = *c->p++;
    uint64_t n = b >> 4;
    *elem_type = b & 0x0f;
    if (n == 15) n = varint(c);
    if (c->bad) return 0;
    if (*elem_type == IG_TC_STOP || *elem_type > IG_TC_STRUCT) {
        ig_tc_fail(c, "unknown list element type");
        return 0;
    }
    if (n > (uint64_t)(c->end - c->p)) { /* every element takes a byte at least */
        ig_tc_fail(c, "list longer than its buffer");
        return 0;
    }
    return (uint32_t)n;
}

static void skip_depth(struct ig_tc *c, uint8_t type, int depth)
{
    if (c->bad) return;
    if (depth > IG_TC_MAX_DEPTH) {
        ig_tc_fail(c, "nested too deeply");
        return;
    }
    size_t len;
    uint8_t et, kt, vt;
    switch (type) {
    case IG_TC_TRUE:
    case IG_TC_FALSE:
        return;
    case IG_TC_I8:
    case IG_TC_I16:
    case IG_TC_I32:
    case IG_TC_I64:
        (void)ig_tc_int(c, type);
        return;
    case IG_TC_DOUBLE:
        (void)ig_tc_double(c);
        return;
    case IG_TC_BINARY:
        (void)ig_tc_binary(c, &len);
        return;
    case IG_TC_LIST:
    case IG_TC_SET: {
        uint32_t n = ig_tc_list(c, &et);
        for (uint32_t i = 0; i < n && !c->bad; i++) {
            if (et == IG_TC_TRUE || et == IG_TC_FALSE) (void)ig_tc_list_bool(c);
            else skip_depth(c, et, depth + 1);
        }
        return;
    }
    case IG_TC_MAP: {
        uint64_t n = varint(c);
        if (c->bad || n == 0) return;
        if (c->p >= c->end || n > (uint64_t)(c->end - c->p)) {
            ig_tc_fail(c, "map longer than its buffer");
            return;
        }
        kt = *c->p >> 4;
        vt = *c->p++ & 0x0f;
        for (uint64_t i = 0; i < n && !c->bad; i++) {
            if (kt == IG_TC_TRUE || kt == IG_TC_FALSE) (void)ig_tc_list_bool(c);
            else skip_depth(c, kt, depth + 1);
            if (vt == IG_TC_TRUE || vt == IG_TC_FALSE) (void)ig_tc_list_bool(c);
            else skip_depth(c, vt, depth + 1);
        }
        return;
    }
    case IG_TC_STRUCT: {
        int16_t last = 0, id;
        uint8_t ft;
        while (ig_tc_field(c, &last, &id, &ft)) skip_depth(c, ft, depth + 1);
        return;
    }
    default:
        ig_tc_fail(c, "unknown type");
    }
}

void ig_tc_skip(struct ig_tc *c, uint8_t type) { skip_depth(c, type, 0); }
