/* widen.c - which scalar type holds every value of another (widen.h). */
#include "widen.h"
#include "format/model/logical.h"
#include "format/model/schema.h"
#include "util/buf.h"

#include <string.h>

enum kind { K_OTHER, K_INT, K_FLOAT, K_TIME, K_TIMESTAMP, K_DECIMAL, K_DATE };

static enum kind kind_of(const struct ig_scalar *s)
{
    switch (s->lt.kind) {
    case IG_LT_NONE:
        if (s->type >= IG_T_INT8 && s->type <= IG_T_UINT64) return K_INT;
        return s->type == IG_T_FLOAT32 || s->type == IG_T_FLOAT64 ? K_FLOAT : K_OTHER;
    case IG_LT_FLOAT16: return K_FLOAT;
    case IG_LT_TIME: return K_TIME;
    case IG_LT_TIMESTAMP: return K_TIMESTAMP;
    case IG_LT_DECIMAL: return K_DECIMAL;
    case IG_LT_DATE: return K_DATE;
    default: return K_OTHER;
    }
}

static unsigned int_bits(uint8_t type) { return 8u * ig_type_info(type)->width; }
static bool int_signed(uint8_t type) { return ig_type_info(type)->is_signed; }

/* 1 float16, 2 float32, 3 float64 */
static unsigned float_rank(const struct ig_scalar *s)
{
    return s->lt.kind == IG_LT_FLOAT16 ? 1 : s->type == IG_T_FLOAT32 ? 2 : 3;
}

static bool same(const struct ig_scalar *a, const struct ig_scalar *b)
{
    return a->type == b->type && ig_logical_equal(&a->lt, &b->lt);
}

bool ig_widen_plan(const struct ig_scalar *from, const struct ig_scalar *to, struct ig_widen *w)
{
    *w = (struct ig_widen){.op = IG_WIDEN_NONE, .to = to->type, .exact = true};
    if (same(from, to)) return true;
    enum kind kf = kind_of(from), kt = kind_of(to);
    if (kf == K_INT && kt == K_INT) {
        unsigned fb = int_bits(from->type), tb = int_bits(to->type);
        bool fs = int_signed(from->type), ts = int_signed(to->type);
        return fs == ts ? tb >= fb : !fs && ts && tb > fb;
    }
    if (kf == K_INT && kt == K_FLOAT) {
        unsigned rank = float_rank(to);
        if (rank == 1) return false; /* float16 is float32 stored in 16 bits: not a widening */
        w->op = int_signed(from->type) ? IG_WIDEN_INT_FLOAT : IG_WIDEN_UINT_FLOAT;
        w->exact = int_bits(from->type) <= (rank == 2 ? 24u : 53u);
        return true;
    }
    if (kf == K_FLOAT && kt == K_FLOAT) {
        unsigned rf = float_rank(from), rt = float_rank(to);
        if (rt <= rf) return false;
        w->op = rt == 3 ? IG_WIDEN_FLOAT_DOUBLE : IG_WIDEN_NONE; /* float16 lanes hold float32 bits */
        return true;
    }
    if ((kf == K_TIME && kt == K_TIME) || (kf == K_TIMESTAMP && kt == K_TIMESTAMP)) {
        if (from->lt.utc != to->lt.utc || to->lt.unit < from->lt.unit) return false;
        w->op = IG_WIDEN_SCALE;
        w->digits = (uint8_t)(3 * (to->lt.unit - from->lt.unit));
        /* time(ms) is an int32 of at most a day: any finer unit holds it in 64 bits */
        w->exact = from->type == IG_T_INT32 && to->type == IG_T_INT64;
        return true;
    }
    if (kf == K_DATE && kt == K_TIMESTAMP) {
        if (to->lt.utc) return false; /* a date is no instant */
        w->op = IG_WIDEN_DAYS;
        w->digits = (uint8_t)(3 * (to->lt.unit - IG_UNIT_S));
        /* int32 days: 1.9e14 s, 1.9e17 ms fit 64 bits; finer units checked */
        w->exact = to->lt.unit <= IG_UNIT_MS;
        return true;
    }
    if (kf == K_DECIMAL && kt == K_DECIMAL) {
        unsigned fs = from->lt.scale, ts = to->lt.scale;
        if (ts < fs || to->lt.precision - ts < from->lt.precision - fs) return false;
        w->op = IG_WIDEN_SCALE;
        w->digits = (uint8_t)(ts - fs);
        return true;
    }
    return false;
}

static void set_int(struct ig_scalar *out, unsigned bits)
{
    *out = (struct ig_scalar){.type = bits <= 8 ? IG_T_INT8 : bits <= 16 ? IG_T_INT16 : bits <= 32 ? IG_T_INT32 : IG_T_INT64};
}

bool ig_widen_common(const struct ig_scalar *a, const struct ig_scalar *b, struct ig_scalar *out)
{
    struct ig_widen w;
    if (ig_widen_plan(a, b, &w) && w.exact) return *out = *b, true;
    if (ig_widen_plan(b, a, &w) && w.exact) return *out = *a, true;
    enum kind ka = kind_of(a), kb = kind_of(b);
    if (ka == K_INT && kb == K_INT) { /* one signed, one unsigned, neither holding the other */
        const struct ig_scalar *s = int_signed(a->type) ? a : b, *u = s == a ? b : a;
        unsigned bits = int_bits(s->type) > 2 * int_bits(u->type) ? int_bits(s->type) : 2 * int_bits(u->type);
        if (bits > 64) return false; /* uint64 and any signed integer */
        set_int(out, bits);
        return true;
    }
    if ((ka == K_INT && kb == K_FLOAT) || (ka == K_FLOAT && kb == K_INT)) {
        const struct ig_scalar *i = ka == K_INT ? a : b, *f = i == a ? b : a;
        /* float32 holds integers of 16 bits exactly; float64 those of 32, and
         * wider ones where they are exact (each value checked) */
        bool single = float_rank(f) <= 2 && int_bits(i->type) <= 16;
        *out = (struct ig_scalar){.type = single ? IG_T_FLOAT32 : IG_T_FLOAT64};
        return true;
    }
    if ((ka == K_DATE && kb == K_TIMESTAMP) || (ka == K_TIMESTAMP && kb == K_DATE)) {
        const struct ig_scalar *ts = ka == K_TIMESTAMP ? a : b;
        if (ts->lt.utc) return false;
        *out = *ts;
        return true;
    }
    if ((ka == K_TIME && kb == K_TIME) || (ka == K_TIMESTAMP && kb == K_TIMESTAMP)) {
        if (a->lt.utc != b->lt.utc) return false;
        *out = a->lt.unit > b->lt.unit ? *a : *b; /* the finer unit */
        return true;
    }
    if (ka == K_DECIMAL && kb == K_DECIMAL) {
        unsigned scale = a->lt.scale > b->lt.scale ? a->lt.scale : b->lt.scale;
        unsigned ia = (unsigned)(a->lt.precision - a->lt.scale), ib = (unsigned)(b->lt.precision - b->lt.scale);
        unsigned precision = (ia > ib ? ia : ib) + scale;
        if (precision > IG_DECIMAL_MAX_PRECISION) return false;
        *out = (struct ig_scalar){.lt = {.kind = IG_LT_DECIMAL, .precision = (uint8_t)precision, .scale = (uint8_t)scale}};
        out->lt.width = precision > IG_DECIMAL_INT64_DIGITS ? 16 : 0;
        uint8_t quantize;
        ig_logical_storage(&out->lt, &out->type, &quantize);
        return true;
    }
    return false;
}

bool ig_widen_lane(const struct ig_widen *w, uint64_t in, uint64_t *out)
{
    switch (w->op) {
    case IG_WIDEN_INT_FLOAT:
    case IG_WIDEN_UINT_FLOAT: {
        /* exact: the float converts back to the same integer (the range test
         * first: a float at 2^63 or 2^64 does not convert back) */
        bool sig = w->op == IG_WIDEN_INT_FLOAT;
        int64_t s = (int64_t)in;
        if (w->to == IG_T_FLOAT32) {
            float f = sig ? (float)s : (float)in;
            bool ok = sig ? f >= -0x1p63f && f < 0x1p63f && (int64_t)f == s : f < 0x1p64f && (uint64_t)f == in;
            uint32_t bits;
            memcpy(&bits, &f, 4);
            *out = bits;
            return ok;
        }
        double d = sig ? (double)s : (double)in;
        bool ok = sig ? d >= -0x1p63 && d < 0x1p63 && (int64_t)d == s : d < 0x1p64 && (uint64_t)d == in;
        memcpy(out, &d, 8);
        return ok;
    }
    case IG_WIDEN_FLOAT_DOUBLE: {
        uint32_t bits = (uint32_t)in;
        float f;
        memcpy(&f, &bits, 4);
        double d = f;
        memcpy(out, &d, 8);
        return true;
    }
    case IG_WIDEN_DAYS:
    case IG_WIDEN_SCALE: {
        int64_t p = w->op == IG_WIDEN_DAYS ? 86400 : 1, y;
        for (unsigned k = 0; k < w->digits; k++) {
            if (__builtin_mul_overflow(p, 10, &p)) return false;
        }
        if (__builtin_mul_overflow((int64_t)in, p, &y)) return false;
        if (w->to == IG_T_INT32 && (y < INT32_MIN || y > INT32_MAX)) return false;
        *out = (uint64_t)y;
        return true;
    }
    default: *out = in; return true;
    }
}

bool ig_widen_unscaled(const struct ig_widen *w, __int128 in, __int128 *out)
{
    *out = in;
    if (w->op != IG_WIDEN_SCALE) return true;
    for (unsigned k = 0; k < w->digits; k++)
        if (__builtin_mul_overflow(*out, (__int128)10, out)) return false;
    return true;
}


/* The nodes of column c of s: [c, end). */
static uint32_t column_end(const struct ig_schema *s, uint32_t c)
{
    uint32_t e = c + 1;
    while (e < s->n && s->cols[e].top == s->cols[c].top) e++;
    return e;
}

bool ig_widen_column(const struct ig_schema *a, uint32_t ca, const struct ig_schema *b, uint32_t cb)
{
    uint32_t ea = column_end(a, ca), eb = column_end(b, cb);
    if (ea - ca != eb - cb) return false;
    for (uint32_t i = ca, j = cb; i < ea; i++, j++) {
        const struct ig_column_def *x = &a->cols[i], *y = &b->cols[j];
        if (x->lists != y->lists || x->dimension != y->dimension || (x->type == IG_T_STRUCT) != (y->type == IG_T_STRUCT))
            return false;
        if (i > ca) { /* a struct's field: under the same node, of the same name */
            size_t nx, ny;
            const char *fx = ig_schema_field_name(a, i, &nx), *fy = ig_schema_field_name(b, j, &ny);
            if (x->parent - ca != y->parent - cb || nx != ny || memcmp(fx, fy, nx)) return false;
        }
        if (x->type == IG_T_STRUCT) {
            if (x->num_children != y->num_children) return false;
            continue;
        }
        struct ig_scalar sx = {.type = x->type, .lt = x->lt}, sy = {.type = y->type, .lt = y->lt};
        struct ig_widen w;
        if (same(&sx, &sy)) continue;
        if (!ig_type_is_primitive(x->type) || !ig_type_is_primitive(y->type) || x->dimension)
            return false; /* blobs and vectors as they are */
        if (!ig_widen_plan(&sx, &sy, &w)) return false;
    }
    return true;
}

/* The children of struct node p of s, in order: k from first_field(s, p),
 * while k != IG_SCHEMA_NONE, next_field(s, p, k). */
static uint32_t next_field(const struct ig_schema *s, uint32_t p, uint32_t k)
{
    for (k++; k < s->n && s->cols[k].top == s->cols[p].top; k++)
        if (s->cols[k].parent == p) return k;
    return IG_SCHEMA_NONE;
}
static uint32_t first_field(const struct ig_schema *s, uint32_t p) { return next_field(s, p, p); }

/* Struct p's field called name, or IG_SCHEMA_NONE. */
static uint32_t field_named(const struct ig_schema *s, uint32_t p, const char *name, size_t len)
{
    for (uint32_t k = first_field(s, p); k != IG_SCHEMA_NONE; k = next_field(s, p, k)) {
        size_t n;
        const char *f = ig_schema_field_name(s, k, &n);
        if (n == len && !memcmp(f, name, n)) return k;
    }
    return IG_SCHEMA_NONE;
}

/* Field k of s that the other side lacks: its type made nullable (the rows
 * of the side without it hold NULL there); false for a vector, which cannot
 * be NULL. */
static int lone_field(const struct ig_schema *s, uint32_t k, struct ig_buf *out, bool *ok)
{
    if (s->cols[k].dimension) {
        *ok = false;
        return 0;
    }
    int rc = ig_schema_type_text(s, k, out);
    if (!rc && (!out->len || out->data[out->len - 1] != '?')) rc = ig_buf_append_byte(out, '?');
    return rc;
}

/* Node i of a and node j of b as one type (ig_widen_union), appended to out. */
static int union_node(const struct ig_schema *a, uint32_t i, const struct ig_schema *b, uint32_t j,
                      struct ig_buf *out, bool *ok)
{
    const struct ig_column_def *x = &a->cols[i], *y = &b->cols[j];
    if (x->lists != y->lists || x->dimension != y->dimension || (x->type == IG_T_STRUCT) != (y->type == IG_T_STRUCT)) {
        *ok = false;
        return 0;
    }
    if (x->type != IG_T_STRUCT) {
        struct ig_scalar sx = {.type = x->type, .lt = x->lt}, sy = {.type = y->type, .lt = y->lt}, c = sx;
        if (same(&sx, &sy)) return ig_schema_type_text(a, i, out);
        if (!ig_type_is_primitive(x->type) || !ig_type_is_primitive(y->type) || x->dimension ||
            !ig_widen_common(&sx, &sy, &c)) {
            *ok = false; /* blobs and vectors as they are */
            return 0;
        }
        int rc = 0;
        for (unsigned k = 0; k < x->lists && !rc; k++) rc = ig_buf_printf(out, "list<");
        if (!rc) rc = c.lt.kind ? ig_logical_text(&c.lt, out) : ig_buf_printf(out, "%s", ig_type_info(c.type)->name);
        return rc ? rc : ig_schema_type_close(x, out);
    }
    int rc = 0;
    for (unsigned k = 0; k < x->lists && !rc; k++) rc = ig_buf_printf(out, "list<");
    if (!rc) rc = ig_buf_printf(out, "struct<");
    bool first = true;
    /* a's fields in a's order, each with b's of its name where b has it */
    for (uint32_t k = first_field(a, i); !rc && *ok && k != IG_SCHEMA_NONE; k = next_field(a, i, k)) {
        size_t n;
        const char *f = ig_schema_field_name(a, k, &n);
        uint32_t m = field_named(b, j, f, n);
        rc = first ? 0 : ig_buf_printf(out, ", ");
        if (!rc) rc = ig_schema_field_text(f, n, out);
        if (!rc) rc = m == IG_SCHEMA_NONE ? lone_field(a, k, out, ok) : union_node(a, k, b, m, out, ok);
        first = false;
    }
    /* then those only b has, in b's order */
    for (uint32_t m = first_field(b, j); !rc && *ok && m != IG_SCHEMA_NONE; m = next_field(b, j, m)) {
        size_t n;
        const char *f = ig_schema_field_name(b, m, &n);
        if (field_named(a, i, f, n) != IG_SCHEMA_NONE) continue;
        rc = first ? 0 : ig_buf_printf(out, ", ");
        if (!rc) rc = ig_schema_field_text(f, n, out);
        if (!rc) rc = lone_field(b, m, out, ok);
        first = false;
    }
    if (!rc) rc = ig_buf_printf(out, ">");
    return rc ? rc : ig_schema_type_close(x, out);
}

int ig_widen_union(const struct ig_schema *a, uint32_t ca, const struct ig_schema *b, uint32_t cb,
                   struct ig_buf *out, bool *ok)
{
    *ok = true;
    return union_node(a, ca, b, cb, out, ok);
}
