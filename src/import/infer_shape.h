/* infer_shape.h - a JSON Lines field's type inferred from the values a sample
 * meets (infer.c): numbers int64, or float64 once one has a fraction or an
 * exponent; true and false bool; strings a date or a timestamp where every one
 * reads as such (infer_time.h), else string; an array a list of its items'
 * type, an object a struct of its members' types, members in the order first
 * met. Every level is nullable (a NULL item, an absent member). A field met
 * only as NULL, or a list met only empty, holds strings: nothing says more.
 * A top-level field whose arrays all hold the same number D >= 2 of numbers,
 * never NULL, some with a fraction and each one float32 holds exactly (an
 * embedding written from float32 values), is a vector<float32, D>: kept as
 * float32 with nothing lost, and read as a (rows, D) .npy. (A value past the
 * sample that float32 does not hold is rounded, as in any vector column.)
 *
 * What cannot be one type stops the inference naming the field's path
 * (doc.tags[]): an array in one row and a number in another, an object never
 * met with a member, a member name the schema syntax cannot hold ('.', '"'). */
#ifndef IG_IMPORT_INFER_SHAPE_H
#define IG_IMPORT_INFER_SHAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "infer_time.h"

struct ig_buf;
struct ig_error;
struct ig_json_doc;
struct ig_json_node;
struct ig_strset;

struct ig_shape {
    uint8_t seen; /* SHAPE_* of every value met */
    bool nulls;   /* a NULL met */
    bool not_f32; /* a number met that float32 does not hold exactly */
    struct time_guess time;
    uint32_t len_min, len_max; /* arrays: the fewest and the most items met */
    struct ig_shape *item; /* arrays: their items' shape (NULL: none met) */
    /* objects: member i is named names' entry i (found by hash: a row of
     * thousands of keys costs a look-up each, not a scan) */
    struct ig_strset *names;
    struct ig_shape *members;
    size_t n, cap;
};

/* More distinct members than this in one object's shape stops the inference:
 * such an object is a map (user ids as keys), not a record. */
#define IG_SHAPE_MAX_MEMBERS 10000

enum {
    SHAPE_BOOL = 1, SHAPE_INT = 2, SHAPE_FLOAT = 4, SHAPE_STRING = 8, SHAPE_ARRAY = 16, SHAPE_OBJECT = 32,
    SHAPE_MAP = 64 /* an object of more than IG_SHAPE_MAX_MEMBERS members met */
};

void ig_shape_init(struct ig_shape *s);
void ig_shape_free(struct ig_shape *s);
/* Take value v of document d into s (its items and members too). -ENOMEM;
 * -E2BIG past IG_SHAPE_MAX_MEMBERS members (the type text names the field). */
int ig_shape_add(struct ig_shape *s, const struct ig_json_doc *d, const struct ig_json_node *v);
/* Take what o met into s, as if s had met o's values after its own (members
 * new to s follow its own, in o's order): 0, -ENOMEM, or -E2BIG past
 * IG_SHAPE_MAX_MEMBERS members (s->seen then says SHAPE_MAP). o is left
 * as it was. */
int ig_shape_merge(struct ig_shape *s, const struct ig_shape *o);
/* An array or an object was met: the field is nested. */
static inline bool ig_shape_nested(const struct ig_shape *s)
{
    return s->seen & (SHAPE_ARRAY | SHAPE_OBJECT);
}
/* A flat field's type: *type (IG_T_*) and *lt; -EINVAL when its values mix
 * kinds (the caller names the field). */
int ig_shape_scalar(const struct ig_shape *s, uint8_t *type, struct ig_logical *lt);
/* A field's type as schema text (list<...>?, struct<...>?, int64?), appended
 * to out; errors name `field`'s path and say why. */
int ig_shape_type_text(const struct ig_shape *s, const char *field, struct ig_buf *out, struct ig_error *err);

#endif
