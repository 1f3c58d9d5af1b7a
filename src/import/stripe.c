#include "stripe.h"
#include "blob/blob.h"
#include "format/model/types.h"
#include "util/error.h"

#include <errno.h>
#include <math.h>
#include <string.h>

struct stripe {
    const struct ig_schema *s;
    const struct ig_json_doc *doc;
    struct ig_values *(*leaf)(void *, uint32_t);
    void *leaf_ctx;
    const struct ig_convert_ctx *cc;
    struct ig_error *err;
};

static struct ig_values *leaf_of(struct stripe *st, uint32_t node)
{
    return st->leaf(st->leaf_ctx, st->s->cols[node].leaf);
}

/* Nodes below n (n itself included) in pre-order: [n, end). */
static uint32_t subtree_end(const struct ig_schema *s, uint32_t n)
{
    uint32_t e = n + 1;
    while (e < s->n && s->cols[e].top == s->cols[n].top) {
        /* an ancestor chain test: stop at the first node not below n */
        uint32_t k = e;
        while (k != IG_SCHEMA_NONE && k > n) k = s->cols[k].parent;
        if (k != n) break;
        e++;
    }
    return e;
}

/* n (at level j) is null, empty or missing: one entry for every leaf below. */
static int undefined(struct stripe *st, uint32_t n, uint8_t rep, uint8_t def)
{
    uint32_t end = subtree_end(st->s, n);
    for (uint32_t k = n; k < end; k++)
        if (st->s->cols[k].leaf != IG_SCHEMA_NONE &&
            ig_values_push_entry(leaf_of(st, k), rep, def))
            return ig_err(st->err, -ENOMEM, "out of memory");
    return 0;
}

static int mismatch(struct stripe *st, uint32_t n, const char *want, const struct ig_json_node *v)
{
    return ig_err(st->err, -EINVAL, "field '%s': expected %s, got %s", st->s->cols[n].name, want,
                  ig_json_type_name(v->type));
}

static int leaf_value(struct stripe *st, uint32_t n, const struct ig_json_node *v)
{
    const struct ig_column_def *c = &st->s->cols[n];
    struct ig_values *vals = leaf_of(st, n);
    if (c->dimension) {
        if (v->type != IG_JSON_ARRAY) return mismatch(st, n, "an array of numbers", v);
        if (v->count != c->dimension)
            return ig_err(st->err, -EINVAL, "field '%s': vector of %u values, expected %u", c->name,
                          v->count, c->dimension);
        struct ig_error sub;
        for (const struct ig_json_node *e = ig_json_first_child(st->doc, v); e;
             e = ig_json_next_sibling(st->doc, e)) {
            float f;
            ig_err_clear(&sub);
            if (e->type == IG_JSON_NUMBER) {
                if (ig_json_number_f32(e, &f, &sub))
                    return ig_err(st->err, -EINVAL, "field '%s': %s", c->name, sub.msg);
            } else if (e->type == IG_JSON_STRING && e->len == 3 && !memcmp(e->str, "NaN", 3)) {
                f = NAN;
            } else if (e->type == IG_JSON_STRING && e->len == 8 && !memcmp(e->str, "Infinity", 8)) {
                f = INFINITY;
            } else if (e->type == IG_JSON_STRING && e->len == 9 && !memcmp(e->str, "-Infinity", 9)) {
                f = -INFINITY;
            } else {
                return mismatch(st, n, "numbers in the vector", e);
            }
            uint32_t b;
            memcpy(&b, &f, 4);
            if (ig_values_push_lane(vals, b)) return ig_err(st->err, -ENOMEM, "out of memory");
        }
        return 0;
    }
    /* the inner value: lists and nullability were handled by the caller */
    struct ig_column_def inner = *c;
    inner.lists = 0;
    inner.nullable = false;
    inner.null_mask = 0;
    struct ig_error sub;
    ig_err_clear(&sub);
    if (ig_convert_json(&inner, vals, v, st->cc, &sub))
        return ig_err(st->err, sub.code ? sub.code : -EINVAL, "field '%s': %s", c->name, sub.msg);
    return 0;
}

static int stripe_node(struct stripe *st, uint32_t n, unsigned j, const struct ig_json_node *v,
                       uint8_t rep, uint8_t def, uint8_t depth)
{
    const struct ig_column_def *c = &st->s->cols[n];
    bool nullable = (c->null_mask >> j) & 1;
    if (!v || v->type == IG_JSON_NULL) {
        if (!nullable && !(j < c->lists && !v))
            return ig_err(st->err, -EINVAL, "field '%s': %s, but it cannot be null", c->name,
                          v ? "null" : "missing");
        return undefined(st, n, rep, def);
    }
    if (nullable) def++;
    if (j < c->lists) {
        if (v->type != IG_JSON_ARRAY) return mismatch(st, n, "an array", v);
        if (v->count == 0) return undefined(st, n, rep, def);
        bool first = true;
        for (const struct ig_json_node *e = ig_json_first_child(st->doc, v); e;
             e = ig_json_next_sibling(st->doc, e), first = false) {
            int rc = stripe_node(st, n, j + 1, e, first ? rep : (uint8_t)(depth + 1), (uint8_t)(def + 1),
                                 (uint8_t)(depth + 1));
            if (rc) return rc;
        }
        return 0;
    }
    if (c->type != IG_T_STRUCT) {
        if (ig_values_push_entry(leaf_of(st, n), rep, def)) return ig_err(st->err, -ENOMEM, "out of memory");
        return leaf_value(st, n, v);
    }
    if (v->type != IG_JSON_OBJECT) return mismatch(st, n, "an object", v);
    /* every key must be a field */
    uint32_t end = subtree_end(st->s, n);
    for (const struct ig_json_node *m = ig_json_first_child(st->doc, v); m; m = ig_json_next_sibling(st->doc, m)) {
        bool known = false;
        for (uint32_t k = n + 1; k < end && !known; k++) {
            if (st->s->cols[k].parent != n) continue;
            size_t fl;
            const char *f = ig_schema_field_name(st->s, k, &fl);
            known = fl == m->keylen && !memcmp(f, m->key, fl);
        }
        if (!known)
            return ig_err(st->err, -EINVAL, "field '%s' has no member '%.*s'", c->name,
                          (int)(m->keylen > 100 ? 100 : m->keylen), m->key);
    }
    for (uint32_t k = n + 1; k < end; k++) {
        if (st->s->cols[k].parent != n) continue;
        size_t fl;
        const char *f = ig_schema_field_name(st->s, k, &fl);
        const struct ig_json_node *cv =
            ig_json_object_get((struct ig_json_doc *)st->doc, v, f, fl);
        int rc = stripe_node(st, k, 0, cv, rep, def, depth);
        if (rc) return rc;
    }
    return 0;
}

/* A leaf's least value: zeros of its width (a vector's every lane, a
 * fixed-width binary's bytes, a blob's reference: an empty object), the empty
 * string, or 0. */
static int least_leaf(struct stripe *st, uint32_t n, uint8_t def)
{
    static const uint8_t zeros[IG_FIXED_MAX_WIDTH];
    _Static_assert(IG_BLOB_REF_BYTES <= sizeof zeros, "a blob reference fits the zeros");
    const struct ig_column_def *c = &st->s->cols[n];
    struct ig_values *v = leaf_of(st, n);
    static const uint64_t zero_lanes[256];
    int rc = ig_values_push_entry(v, 0, def);
    if (c->dimension) /* a vector's lanes, many at a time */
        for (uint32_t i = 0; !rc && i < c->dimension; i += 256)
            rc = ig_values_push_lanes(v, zero_lanes, c->dimension - i < 256 ? c->dimension - i : 256);
    else if (c->type == IG_T_BLOB)
        rc = ig_values_push_bytes(v, zeros, IG_BLOB_REF_BYTES);
    else if (v->is_bytes)
        rc = ig_values_push_bytes(v, zeros, c->lt.width <= sizeof zeros ? c->lt.width : 0);
    else
        rc = ig_values_push_lane(v, 0);
    return rc ? ig_err(st->err, -ENOMEM, "out of memory") : 0;
}

/* n (at level j) as little as it can be: NULL where it may be null, an empty
 * list, a struct of its fields' least values, a leaf's least value. */
static int least(struct stripe *st, uint32_t n, unsigned j, uint8_t def)
{
    const struct ig_column_def *c = &st->s->cols[n];
    if ((c->null_mask >> j) & 1 || j < c->lists) return undefined(st, n, 0, def);
    if (c->type != IG_T_STRUCT) return least_leaf(st, n, def);
    uint32_t end = subtree_end(st->s, n);
    for (uint32_t k = n + 1; k < end; k++) {
        if (st->s->cols[k].parent != n) continue;
        int rc = least(st, k, 0, def);
        if (rc) return rc;
    }
    return 0;
}

static int end_rows(struct stripe *st, uint32_t top)
{
    uint32_t end = subtree_end(st->s, top);
    for (uint32_t k = top; k < end; k++)
        if (st->s->cols[k].leaf != IG_SCHEMA_NONE && ig_values_end_row(leaf_of(st, k)))
            return ig_err(st->err, -ENOMEM, "out of memory");
    return 0;
}

int ig_stripe_absent(const struct ig_schema *s, uint32_t top, struct ig_values *(*leaf)(void *, uint32_t),
                     void *leaf_ctx, size_t rows, struct ig_error *err)
{
    struct stripe st = {s, NULL, leaf, leaf_ctx, NULL, err};
    const struct ig_column_def *c = &s->cols[top];
    if (c->nullable || ig_column_is_flat(c) || ig_column_is_blob_list(c)) {
        uint32_t end = subtree_end(s, top);
        for (uint32_t k = top; k < end; k++)
            if (s->cols[k].leaf != IG_SCHEMA_NONE && ig_values_push_null_rows(leaf_of(&st, k), rows))
                return ig_err(err, -ENOMEM, "out of memory");
        return 0;
    }
    for (size_t r = 0; r < rows; r++) {
        int rc = least(&st, top, 0, 0);
        if (!rc) rc = end_rows(&st, top);
        if (rc) return rc;
    }
    return 0;
}

int ig_stripe_json(const struct ig_schema *s, uint32_t top, const struct ig_json_doc *doc,
                   const struct ig_json_node *val, struct ig_values *(*leaf)(void *, uint32_t),
                   void *leaf_ctx, const struct ig_convert_ctx *cc, struct ig_error *err)
{
    if (!val && s->cols[top].hidden) return ig_stripe_absent(s, top, leaf, leaf_ctx, 1, err);
    struct stripe st = {s, doc, leaf, leaf_ctx, cc, err};
    int rc = stripe_node(&st, top, 0, val, 0, 0, 0);
    return rc ? rc : end_rows(&st, top);
}
