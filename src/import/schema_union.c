/* schema_union.c - one schema from several inputs' schemas (schema_union.h). */
#include "schema_union.h"
#include "widen.h"
#include "util/buf.h"
#include "util/error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct column_met {
    struct ig_buf type;  /* its type text, from the first input that has it */
    struct ig_buf bare;  /* the same without nullability: what every input must give */
    char *from;          /* that input's name */
    uint32_t inputs;     /* the inputs that have it */
    bool vector;
    bool widened;        /* its type is no longer the first input's */
};

/* m's type and the type of column top of s (whose text is not m's) made one
 * that holds both (widen.h: leaves widened, struct fields united by name,
 * nullability m's where both have a node): *united false where none does. */
static int unite(struct column_met *m, const struct ig_schema *s, uint32_t top, bool *united,
                 struct ig_error *err)
{
    const struct ig_column_def *cd = &s->cols[top];
    struct ig_schema mine = {0}, both = {0};
    struct ig_buf text = IG_BUF_INIT;
    int rc = ig_schema_add_typed(&mine, cd->name, cd->name_len, (const char *)m->type.data, m->type.len, err);
    if (!rc) rc = ig_schema_finish(&mine, err);
    if (!rc && ig_widen_union(&mine, mine.tops[0], s, top, &text, united)) rc = ig_err(err, -ENOMEM, "out of memory");
    /* parsed back: the text is a type, and its bare form what later inputs are compared with */
    if (!rc && *united) rc = ig_schema_add_typed(&both, cd->name, cd->name_len, (const char *)text.data, text.len, err);
    if (!rc && *united) rc = ig_schema_finish(&both, err);
    if (!rc && *united) {
        if (ig_schema_type_text_bare(&both, both.tops[0], &m->bare)) rc = ig_err(err, -ENOMEM, "out of memory");
        ig_buf_free(&m->type);
        m->type = text;
        text = (struct ig_buf)IG_BUF_INIT;
        m->widened = true;
    }
    ig_schema_free(&mine);
    ig_schema_free(&both);
    ig_buf_free(&text);
    return rc;
}

void ig_schema_union_init(struct ig_schema_union *u)
{
    memset(u, 0, sizeof *u);
    ig_strset_init(&u->names);
}

void ig_schema_union_free(struct ig_schema_union *u)
{
    for (uint32_t k = 0; k < u->names.count; k++) {
        ig_buf_free(&u->cols[k].type);
        ig_buf_free(&u->cols[k].bare);
        free(u->cols[k].from);
    }
    free(u->cols);
    ig_strset_free(&u->names);
    memset(u, 0, sizeof *u);
}

int ig_schema_union_add(struct ig_schema_union *u, const struct ig_schema *s, const char *what,
                        struct ig_error *err)
{
    struct ig_buf text = IG_BUF_INIT, bare = IG_BUF_INIT;
    int rc = 0;
    u->inputs++;
    for (uint32_t t = 0; t < s->ntops && !rc; t++) {
        const struct ig_column_def *cd = &s->cols[s->tops[t]];
        if (cd->hidden) continue;
        ig_buf_reset(&text);
        if (ig_schema_type_text(s, s->tops[t], &text) || ig_schema_type_text_bare(s, s->tops[t], &bare)) {
            rc = ig_err(err, -ENOMEM, "out of memory");
            break;
        }
        uint32_t k;
        bool added;
        if (ig_strset_add(&u->names, cd->name, cd->name_len, &k, &added)) {
            rc = ig_err(err, -ENOMEM, "out of memory");
            break;
        }
        if (added) {
            if ((size_t)k >= u->cap) {
                size_t ncap = u->cap ? u->cap * 2 : 16;
                struct column_met *p = realloc(u->cols, ncap * sizeof *p);
                if (!p) {
                    rc = ig_err(err, -ENOMEM, "out of memory");
                    break;
                }
                u->cols = p;
                u->cap = ncap;
            }
            struct column_met *m = &u->cols[k];
            *m = (struct column_met){.type = IG_BUF_INIT, .bare = IG_BUF_INIT, .inputs = 1,
                                     .vector = cd->dimension != 0};
            if (ig_buf_append(&m->type, text.data, text.len) || ig_buf_append(&m->bare, bare.data, bare.len) ||
                !(m->from = strdup(what)))
                rc = ig_err(err, -ENOMEM, "out of memory");
            continue;
        }
        struct column_met *m = &u->cols[k];
        m->inputs++;
        if (m->bare.len == bare.len && !memcmp(m->bare.data, bare.data, bare.len)) continue;
        bool united;
        rc = unite(m, s, s->tops[t], &united, err);
        if (!rc && !united)
            rc = ig_err(err, -EINVAL, "%s: column '%s' holds %.*s, where %s%s has %.*s: no type holds the "
                                      "values of both",
                        what, cd->name, (int)text.len, (const char *)text.data, m->from,
                        m->widened ? " with the inputs after it" : "", (int)m->type.len, (const char *)m->type.data);
    }
    ig_buf_free(&text);
    ig_buf_free(&bare);
    return rc;
}

int ig_schema_union_end(struct ig_schema_union *u, struct ig_schema *out, struct ig_error *err)
{
    memset(out, 0, sizeof *out);
    int rc = 0;
    for (uint32_t k = 0; k < u->names.count && !rc; k++) {
        struct column_met *m = &u->cols[k];
        /* an input without it holds NULL there */
        bool nullable = m->type.len && m->type.data[m->type.len - 1] == '?';
        if (m->inputs < u->inputs && !nullable && !m->vector && ig_buf_append_byte(&m->type, '?'))
            rc = ig_err(err, -ENOMEM, "out of memory");
        size_t len;
        const char *name = (const char *)ig_strset_get(&u->names, k, &len);
        if (!rc) rc = ig_schema_add_typed(out, name, len, (const char *)m->type.data, m->type.len, err);
    }
    if (!rc) rc = ig_schema_finish(out, err);
    if (rc) ig_schema_free(out);
    return rc;
}
