/* erase_where.c - which rows an erase request names: ids as given, and every
 * live row whose column equals a --where value (parsed by the column's type). */
#include "format/ops/erase.h"
#include "format/part/columns.h"
#include "format/part/journal.h"
#include "format/layout.h"
#include "format/part/lock.h"
#include "format/part/merkle.h"
#include "format/model/assemble.h"
#include "format/ops/nested.h"
#include "format/page/page.h"
#include "format/ops/reader.h"
#include "format/model/render.h"
#include "format/model/types.h"
#include "blob/blob.h"
#include "format/model/parse_value.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/u64vec.h"
#include "util/hash.h"
#include "util/io.h"

#include <errno.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- resolving the request ---------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static bool row_live(const struct ig_table *t, uint64_t id)
{
    uint32_t pi;
    uint64_t local;
    return ig_table_row(t, id, &pi, &local) == 0 && !ig_part_row_deleted(&t->parts[pi], local);
}

/* Does value i of v equal the target (a one-value ig_values)? */
/* Does value i of v equal value j of the targets? (SQL-ish: NULL matches NULL
 * here because `--where col=\N` asks for the NULL rows; -0.0 equals 0.0; NaN
 * equals nothing.) */
static bool value_matches(const struct ig_values *v, size_t i, const struct ig_values *t, size_t j)
{
    bool tnull = ig_values_is_null(t, j), vnull = ig_values_is_null(v, i);
    if (tnull || vnull) return tnull && vnull;
    if (v->is_bytes) {
        size_t a, b;
        const uint8_t *pa = ig_values_bytes(v, i, &a), *pb = ig_values_bytes(t, j, &b);
        return a == b && memcmp(pa, pb, a) == 0;
    }
    if (v->type == IG_T_FLOAT64) {
        double x, y;
        memcpy(&x, &v->lanes[i], 8);
        memcpy(&y, &t->lanes[j], 8);
        return x == y;
    }
    if (v->type == IG_T_FLOAT32) {
        uint32_t bx = (uint32_t)v->lanes[i], by = (uint32_t)t->lanes[j];
        float x, y;
        memcpy(&x, &bx, 4);
        memcpy(&y, &by, 4);
        return x == y;
    }
    if (v->type == IG_T_BOOL) return (v->lanes[i] != 0) == (t->lanes[j] != 0);
    return v->lanes[i] == t->lanes[j];
}

/* A hash of value i consistent with value_matches (equal values, equal hashes). */
static uint64_t value_hash(const struct ig_values *v, size_t i)
{
    if (ig_values_is_null(v, i)) return 0x9E3779B97F4A7C15ull;
    if (v->is_bytes) {
        size_t n;
        const uint8_t *p = ig_values_bytes(v, i, &n);
        return ig_hash(p, n);
    }
    uint64_t x = v->lanes[i];
    if (v->type == IG_T_FLOAT64 && x == 0x8000000000000000ull) x = 0; /* -0.0 == 0.0 */
    if (v->type == IG_T_FLOAT32 && (uint32_t)x == 0x80000000u) x = 0;
    if (v->type == IG_T_BOOL) x = x != 0;
    return ig_mix64(x);
}

/* The values one column is matched against, in an open-addressing set. */
struct value_set {
    struct ig_values t;
    uint32_t *slot; /* target index + 1, 0 = empty */
    size_t mask;
};

static bool set_has(const struct value_set *s, const struct ig_values *v, size_t i)
{
    for (size_t h = value_hash(v, i) & s->mask;; h = (h + 1) & s->mask) {
        if (!s->slot[h]) return false;
        if (value_matches(v, i, &s->t, s->slot[h] - 1)) return true;
    }
}

/* The values the clauses w[k] naming `column` match, parsed by the column's type
 * into t (which the caller initialises with the column's type): the column must
 * exist and hold comparable values. */
static int where_targets(const struct ig_table *t, const char *column,
                         const struct ig_erase_where *w, size_t nw, struct ig_column_ref *c,
                         struct ig_values *targets, struct ig_error *err)
{
    if (ig_table_column(t, column, strlen(column), c, NULL))
        return ig_err(err, -EINVAL, "no column '%s'", column);
    ig_values_retype(targets, c->rec.type);
    struct ig_buf scratch = IG_BUF_INIT;
    struct ig_error sub = {0};
    int rc = 0;
    for (size_t k = 0; k < nw && !rc; k++) {
        if (strcmp(w[k].column, column)) continue;
        if (c->rec.type == IG_T_BLOB || c->nested)
            rc = ig_err(&sub, -EINVAL, "%s columns cannot be matched by value",
                        c->rec.type == IG_T_BLOB ? "blob" : "nested (list, struct, vector)");
        else if (!strcmp(w[k].value, "\\N"))
            rc = ig_values_push_null(targets);
        else
            rc = ig_parse_value(c->rec.type, w[k].value, strlen(w[k].value), targets, &scratch, &sub);
    }
    ig_buf_free(&scratch);
    if (rc == -ENOMEM) return ig_err(err, rc, "out of memory");
    return rc ? ig_err(err, -EINVAL, "column '%s': %s", column, sub.msg) : 0;
}

int ig_erase_check_where(const struct ig_table *t, const char *column, const char *value,
                         struct ig_error *err)
{
    struct ig_erase_where w = {column, value};
    struct ig_column_ref c;
    struct ig_values targets;
    ig_values_init(&targets, IG_T_INT64);
    int rc = where_targets(t, column, &w, 1, &c, &targets, err);
    ig_values_free(&targets);
    return rc;
}

/* Whether no target can match in a chunk bounded by m (format 9): every
 * target lies outside the bounds. A NULL target may match anywhere, and a
 * quantised column's targets are not in the bounds' type (its values read
 * back as float32): those chunks are read, as are unbounded ones. */
static bool chunk_excludes(const struct ig_column_ref *c, const struct ig_minmax *m, const struct ig_values *targets)
{
    if (!m->bounded || c->rec.quantize) return false;
    for (size_t j = 0; j < targets->n; j++)
        if (ig_values_is_null(targets, j) || ig_minmax_holds(c->rec.type, m, targets->lanes[j])) return false;
    return true;
}

/* Every live row whose column equals one of the values of the clauses w[k] for
 * which w[k].column is `column`: one scan of the column for all of them, but
 * for the row groups whose bounds hold none of the values (a table in the
 * order of the column, or of one it follows, such as a user id by signup,
 * reads only the groups the values can be in). */
static int scan_where(const struct ig_table *t, const char *column, const struct ig_erase_where *w,
                      size_t nw, struct ig_u64vec *out, struct ig_error *err)
{
    struct ig_column_ref c;
    struct value_set set = {0};
    struct ig_values v;
    ig_values_init(&set.t, IG_T_INT64);
    int rc = where_targets(t, column, w, nw, &c, &set.t, err);
    if (rc) {
        ig_values_free(&set.t);
        return rc;
    }
    ig_values_init(&v, c.rec.type);
    size_t cap = 16;
    while (cap < 2 * set.t.n) cap *= 2;
    set.mask = cap - 1;
    set.slot = calloc(cap, sizeof *set.slot);
    rc = set.slot ? 0 : -ENOMEM;
    for (size_t j = 0; j < set.t.n && !rc; j++) {
        size_t h = value_hash(&set.t, j) & set.mask;
        while (set.slot[h]) h = (h + 1) & set.mask;
        set.slot[h] = (uint32_t)(j + 1);
    }
    struct ig_reader r = {0};
    for (uint32_t g = 0; g < t->num_groups && !rc; g++) {
        uint32_t pi, lg, first = 0, count = 0;
        struct ig_grouprec gr;
        ig_table_group(t, g, &pi, &lg);
        const struct ig_part *p = &t->parts[pi];
        rc = ig_part_group(p, lg, &gr, err);
        if (!rc) rc = ig_part_chunk(p, lg, c.rec.leaf, &first, &count, err);
        struct ig_minmax m;
        if (!rc) rc = ig_part_chunk_minmax(p, lg, c.rec.leaf, &m, err);
        if (!rc && chunk_excludes(&c, &m, &set.t)) continue;
        for (uint32_t pg = first; !rc && pg < first + count; pg++) {
            struct ig_pagerec rec;
            const uint8_t *del;
            rc = ig_reader_load(&r, &(struct ig_page_at){p, &c, pg, gr.first_row}, &rec, &v, &del, err);
            for (size_t i = 0; !rc && i < v.n; i++) {
                if (del && (del[i / 8] >> (i % 8) & 1)) continue;
                if (set_has(&set, &v, i))
                    rc = ig_u64vec_push(out, p->first_row_id + gr.first_row + rec.first_row + i);
            }
        }
    }
    ig_reader_free(&r);
    ig_values_free(&v);
    ig_values_free(&set.t);
    free(set.slot);
    return rc;
}

int ig_erase_resolve(const struct ig_table *t, const struct ig_erase_request *req, uint64_t **ids,
                     size_t *n, struct ig_error *err)
{
    struct ig_u64vec l = {0};
    int rc = 0;
    for (size_t i = 0; i < req->nrows && !rc; i++) {
        if (req->rows[i] >= t->num_rows)
            rc = ig_err(err, -ENOENT, "row %" PRIu64 " does not exist (the table has %" PRIu64
                                      " rows)", req->rows[i], t->num_rows);
        else if (!row_live(t, req->rows[i]))
            rc = ig_err(err, -ENOENT, "row %" PRIu64 " is already erased", req->rows[i]);
        else
            rc = ig_u64vec_push(&l, req->rows[i]);
    }
    for (size_t i = 0; i < req->nwhere && !rc; i++) { /* one scan per distinct column */
        bool seen = false;
        for (size_t k = 0; k < i && !seen; k++) seen = !strcmp(req->where[k].column, req->where[i].column);
        if (!seen) rc = scan_where(t, req->where[i].column, req->where, req->nwhere, &l, err);
    }
    if (rc) {
        free(l.v);
        return rc == -ENOMEM ? ig_err(err, rc, "out of memory") : rc;
    }
    qsort(l.v, l.n, sizeof *l.v, cmp_u64);
    size_t k = 0;
    for (size_t i = 0; i < l.n; i++)
        if (k == 0 || l.v[k - 1] != l.v[i]) l.v[k++] = l.v[i];
    *ids = l.v;
    *n = k;
    return 0;
}

