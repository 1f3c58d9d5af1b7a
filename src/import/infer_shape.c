/* infer_shape.c - JSON values' shapes, and the types they make (infer_shape.h). */
#include "infer_shape.h"
#include "format/model/types.h"
#include "import/json.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/strset.h"
#include "util/parse.h"
#include "format/model/schema.h"
#include "format/layout.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void ig_shape_init(struct ig_shape *s)
{
    memset(s, 0, sizeof *s);
    s->time = TIME_GUESS_INIT;
    s->len_min = UINT32_MAX;
}

/* Whether float32 holds the number exactly (once one does not, not asked again). */
static void note_f32(struct ig_shape *s, const char *p, size_t n)
{
    if (s->not_f32) return;
    double d;
    struct ig_error sub = {0};
    s->not_f32 = ig_parse_f64(p, n, &d, &sub) || !isfinite(d) || (double)(float)d != d;
}

void ig_shape_free(struct ig_shape *s)
{
    if (s->item) {
        ig_shape_free(s->item);
        free(s->item);
    }
    for (size_t i = 0; i < s->n; i++)
        ig_shape_free(&s->members[i]);
    free(s->members);
    if (s->names) {
        ig_strset_free(s->names);
        free(s->names);
    }
    memset(s, 0, sizeof *s);
}

static bool is_integer_text(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] == '.' || p[i] == 'e' || p[i] == 'E') return false;
    return true;
}

/* The member of s named so, made when first met: 0, -ENOMEM, or -E2BIG
 * past IG_SHAPE_MAX_MEMBERS (s->seen then says so: SHAPE_MAP). */
static int member(struct ig_shape *s, const char *name, size_t len, struct ig_shape **out)
{
    if (!s->names) {
        if (!(s->names = malloc(sizeof *s->names))) return -ENOMEM;
        ig_strset_init(s->names);
    }
    uint32_t i;
    bool added;
    if (ig_strset_add(s->names, name, len, &i, &added)) return -ENOMEM;
    if (added) {
        if (s->n == IG_SHAPE_MAX_MEMBERS) {
            s->seen |= SHAPE_MAP;
            return -E2BIG;
        }
        if (s->n == s->cap) {
            size_t cap = s->cap ? s->cap * 2 : 8;
            struct ig_shape *m = realloc(s->members, cap * sizeof *m);
            if (!m) return -ENOMEM;
            s->members = m;
            s->cap = cap;
        }
        ig_shape_init(&s->members[s->n++]);
    }
    *out = &s->members[i];
    return 0;
}

int ig_shape_add(struct ig_shape *s, const struct ig_json_doc *d, const struct ig_json_node *v)
{
    switch (v->type) {
    case IG_JSON_NULL: s->nulls = true; return 0;
    case IG_JSON_TRUE:
    case IG_JSON_FALSE: s->seen |= SHAPE_BOOL; return 0;
    case IG_JSON_NUMBER:
        s->seen |= is_integer_text(v->str, v->len) ? SHAPE_INT : SHAPE_FLOAT;
        note_f32(s, v->str, v->len);
        return 0;
    case IG_JSON_STRING:
        s->seen |= SHAPE_STRING;
        guess_time(&s->time, v->str, v->len);
        return 0;
    case IG_JSON_ARRAY:
        s->seen |= SHAPE_ARRAY;
        if (v->count < s->len_min) s->len_min = v->count;
        if (v->count > s->len_max) s->len_max = v->count;
        for (const struct ig_json_node *e = ig_json_first_child(d, v); e; e = ig_json_next_sibling(d, e)) {
            if (!s->item) {
                if (!(s->item = malloc(sizeof *s->item))) return -ENOMEM;
                ig_shape_init(s->item);
            }
            int rc = ig_shape_add(s->item, d, e);
            if (rc) return rc;
        }
        return 0;
    case IG_JSON_OBJECT:
        s->seen |= SHAPE_OBJECT;
        for (const struct ig_json_node *m = ig_json_first_child(d, v); m; m = ig_json_next_sibling(d, m)) {
            struct ig_shape *ms;
            int rc = member(s, m->key, m->keylen, &ms);
            if (!rc) rc = ig_shape_add(ms, d, m);
            if (rc) return rc;
        }
        return 0;
    }
    return 0;
}

int ig_shape_merge(struct ig_shape *s, const struct ig_shape *o)
{
    s->seen |= o->seen;
    s->nulls |= o->nulls;
    s->not_f32 |= o->not_f32;
    merge_time(&s->time, &o->time);
    if (o->len_min < s->len_min) s->len_min = o->len_min;
    if (o->len_max > s->len_max) s->len_max = o->len_max;
    if (o->item) {
        if (!s->item) {
            if (!(s->item = malloc(sizeof *s->item))) return -ENOMEM;
            ig_shape_init(s->item);
        }
        int rc = ig_shape_merge(s->item, o->item);
        if (rc) return rc;
    }
    for (uint32_t i = 0; i < o->n; i++) {
        size_t len;
        const uint8_t *name = ig_strset_get(o->names, i, &len);
        struct ig_shape *ms;
        int rc = member(s, (const char *)name, len, &ms);
        if (!rc) rc = ig_shape_merge(ms, &o->members[i]);
        if (rc) return rc;
    }
    return 0;
}

int ig_shape_scalar(const struct ig_shape *s, uint8_t *type, struct ig_logical *lt)
{
    *lt = (struct ig_logical){0};
    *type = IG_T_STRING; /* strings, or nothing but NULLs: nothing says more */
    uint8_t k = s->seen;
    if (k == SHAPE_STRING && (*lt = time_type(&s->time)).kind) {
        uint8_t q;
        ig_logical_storage(lt, type, &q);
    } else if (k == SHAPE_BOOL) {
        *type = IG_T_BOOL;
    } else if (k == SHAPE_INT) {
        *type = IG_T_INT64;
    } else if (k == SHAPE_FLOAT || k == (SHAPE_INT | SHAPE_FLOAT)) {
        *type = IG_T_FLOAT64;
    } else if (k && k != SHAPE_STRING) {
        return -EINVAL;
    }
    return 0;
}

/* Characters a struct member's name may hold unquoted (schema.c's words). */
static bool plain_name(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= 'A' && p[i] <= 'Z') || (p[i] >= '0' && p[i] <= '9') ||
              p[i] == '_' || p[i] == '-' || p[i] == '$' || (unsigned char)p[i] >= 0x80))
            return false;
    return n > 0;
}

/* An embedding: arrays of one length D >= 2 of numbers, never NULL, some
 * with a fraction, every one exact in float32. */
static bool is_vector(const struct ig_shape *s)
{
    const struct ig_shape *i = s->item;
    return s->seen == SHAPE_ARRAY && i && s->len_min == s->len_max && s->len_min >= 2 &&
           s->len_min <= IG_MAX_DIMENSION && (i->seen & SHAPE_FLOAT) && !(i->seen & ~(SHAPE_INT | SHAPE_FLOAT)) &&
           !i->nulls && !i->not_f32;
}

static int type_text(const struct ig_shape *s, struct ig_buf *path, struct ig_buf *out, struct ig_error *err)
{
    size_t at = path->len;
    int rc = 0;
    if (s->seen & SHAPE_ARRAY) {
        if (s->seen != SHAPE_ARRAY) goto mixed;
        if (ig_buf_printf(path, "[]") || ig_buf_printf(out, "list<")) return -ENOMEM;
        struct ig_shape none;
        ig_shape_init(&none); /* only empty arrays: items of strings */
        rc = type_text(s->item ? s->item : &none, path, out, err);
        if (!rc && ig_buf_printf(out, ">?")) rc = -ENOMEM;
    } else if (s->seen & SHAPE_OBJECT) {
        if ((s->seen & ~SHAPE_MAP) != SHAPE_OBJECT) goto mixed;
        if (s->seen & SHAPE_MAP) {
            rc = ig_err(err, -EINVAL, "field '%.*s' holds objects of more than %d distinct members in the sample "
                                      "(a map, not a record?); pass --schema",
                        (int)path->len, (const char *)path->data, IG_SHAPE_MAX_MEMBERS);
        } else if (!s->n) {
            rc = ig_err(err, -EINVAL, "field '%.*s' holds only empty objects in the sample; pass --schema",
                        (int)path->len, (const char *)path->data);
        } else if (ig_buf_printf(out, "struct<")) {
            return -ENOMEM;
        }
        for (size_t i = 0; i < s->n && !rc; i++) {
            size_t len;
            const char *name = (const char *)ig_strset_get(s->names, (uint32_t)i, &len);
            path->len = at;
            if (ig_buf_printf(path, ".%.*s", (int)len, name)) return -ENOMEM;
            if (memchr(name, '.', len) || memchr(name, '"', len) || memchr(name, '\0', len) || !len) {
                rc = ig_err(err, -EINVAL, "field '%.*s': a member name with '.', '\"' or NUL (or none) cannot name a "
                                          "struct field; pass --schema",
                            (int)path->len, (const char *)path->data);
                break;
            }
            if (path->len > IG_MAX_NAME_LEN) { /* a column's name is its whole path */
                rc = ig_err(err, -EINVAL, "field '%.100s...': its path is longer than %d bytes; pass --schema",
                            (const char *)path->data, IG_MAX_NAME_LEN);
                break;
            }
            rc = ig_buf_printf(out, plain_name(name, len) ? "%s%.*s:" : "%s\"%.*s\":", i ? ", " : "", (int)len, name)
                     ? -ENOMEM
                     : type_text(&s->members[i], path, out, err);
        }
        if (!rc && ig_buf_printf(out, ">?")) rc = -ENOMEM;
    } else {
        uint8_t t;
        struct ig_logical lt;
        if (ig_shape_scalar(s, &t, &lt)) goto mixed;
        rc = lt.kind ? ig_logical_text(&lt, out) : ig_buf_printf(out, "%s", ig_type_info(t)->name);
        if (!rc && ig_buf_append_byte(out, '?')) rc = -ENOMEM;
    }
    path->len = at;
    if (rc == -ENOMEM) return ig_err(err, -ENOMEM, "out of memory");
    return rc;
mixed:
    rc = ig_err(err, -EINVAL, "field '%.*s' mixes JSON types in the sample; pass --schema", (int)path->len,
                (const char *)path->data);
    path->len = at;
    return rc;
}

int ig_shape_type_text(const struct ig_shape *s, const char *field, struct ig_buf *out, struct ig_error *err)
{
    if (is_vector(s)) /* only a column is a vector: not a member, not an item */
        return ig_buf_printf(out, "vector<float32, %u>?", s->len_min) ? ig_err(err, -ENOMEM, "out of memory") : 0;
    struct ig_buf path = IG_BUF_INIT;
    int rc = ig_buf_printf(&path, "%s", field) ? ig_err(err, -ENOMEM, "out of memory") : 0;
    if (!rc) rc = type_text(s, &path, out, err);
    ig_buf_free(&path);
    return rc;
}
