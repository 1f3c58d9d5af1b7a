#include "infer.h"
#include "infer_time.h"
#include "infer_shape.h"
#include "util/buf.h"
#include "util/strset.h"
#include "format/model/logical.h"
#include "format/model/types.h"
#include "import/json.h"
#include "util/error.h"
#include "util/parse.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct csv_guess {
    bool can_int, can_float, can_bool;
    uint64_t non_empty;
    struct time_guess time;
};

static void guess_field(struct csv_guess *g, const char *p, size_t n)
{
    if (n == 0) return;
    g->non_empty++;
    guess_time(&g->time, p, n);
    if (g->can_int) {
        int64_t x;
        g->can_int = ig_parse_i64(p, n, &x, NULL) == 0;
    }
    if (g->can_float) {
        double d;
        g->can_float = ig_parse_f64(p, n, &d, NULL) == 0;
    }
    if (g->can_bool) {
        bool b;
        g->can_bool = ig_parse_bool(p, n, &b, NULL) == 0;
    }
}

int ig_infer_csv(struct ig_csv_reader *r, const char *path, uint32_t sample,
                 struct ig_schema *out, uint32_t *sampled, struct ig_error *err)
{
    uint32_t seen_rows = 0;
    struct ig_csv_record rec;
    int rc = ig_csv_next(r, &rec, err);
    if (rc < 0) return rc;
    if (rc == 0) return ig_err(err, -EINVAL, "%s: empty input (no header line)", path);
    size_t ncols = rec.nfields;
    for (size_t i = 0; i < ncols; i++) {
        struct ig_error sub = {0};
        /* the type is a placeholder until the sample is read */
        if (ig_schema_add(out, rec.fields[i].p, rec.fields[i].len, IG_T_STRING, true, &sub))
            return ig_err(err, sub.code, "%s:%llu: header field %zu: %s", path,
                          (unsigned long long)rec.line, i + 1, sub.msg);
    }
    struct csv_guess *g = calloc(ncols, sizeof *g);
    if (!g) return ig_err(err, -ENOMEM, "out of memory");
    for (size_t i = 0; i < ncols; i++)
        g[i] = (struct csv_guess){true, true, true, 0, {.can_date = true, .can_ts = true}};
    for (uint32_t k = 0; k < sample; k++) {
        rc = ig_csv_next(r, &rec, err);
        if (rc <= 0) break;
        if (rec.nfields != ncols) {
            rc = ig_err(err, -EINVAL, "%s:%llu: %zu fields, but the header has %zu", path,
                        (unsigned long long)rec.line, rec.nfields, ncols);
            break;
        }
        for (size_t i = 0; i < ncols; i++)
            guess_field(&g[i], rec.fields[i].p, rec.fields[i].len);
        seen_rows++;
    }
    if (sampled) *sampled = seen_rows;
    if (rc >= 0) {
        for (size_t i = 0; i < ncols; i++) {
            uint8_t t = IG_T_STRING;
            struct ig_logical lt = {0};
            if (g[i].non_empty) {
                if (g[i].can_int)
                    t = IG_T_INT64;
                else if (g[i].can_float)
                    t = IG_T_FLOAT64;
                else if (g[i].can_bool)
                    t = IG_T_BOOL;
                else if ((lt = time_type(&g[i].time)).kind) {
                    uint8_t q;
                    ig_logical_storage(&lt, &t, &q);
                }
            }
            out->cols[i].type = t;
            out->cols[i].lt = lt;
        }
        struct ig_error sub = {0};
        rc = ig_schema_finish(out, &sub) ? ig_err(err, sub.code, "%s:1: header: %s", path, sub.msg) : 0;
        if (!rc) rc = ig_csv_rewind(r) ? ig_err(err, -EIO, "%s: cannot re-read the input", path) : 0;
    }
    free(g);
    return rc < 0 ? rc : 0;
}

/* The fields' shapes made a schema: flat fields typed in place, and where
 * one is nested the schema made again in the same order with its type text
 * (a flat column of `out` cannot become a nested one in place). */
static int settle(struct ig_schema *out, const struct ig_shape *shapes, const char *path, uint32_t rows,
                  struct ig_error *err)
{
    bool nested = false;
    for (uint32_t c = 0; c < out->n; c++) {
        nested |= ig_shape_nested(&shapes[c]);
        if (!ig_shape_nested(&shapes[c]) && ig_shape_scalar(&shapes[c], &out->cols[c].type, &out->cols[c].lt))
            return ig_err(err, -EINVAL, "%s: field '%s' mixes JSON types in the first %u rows; pass --schema", path,
                          out->cols[c].name, rows);
    }
    if (!nested) return 0;
    struct ig_schema again = {0};
    struct ig_buf text = IG_BUF_INIT;
    int rc = 0;
    for (uint32_t c = 0; c < out->n && !rc; c++) {
        const struct ig_column_def *cd = &out->cols[c];
        ig_buf_reset(&text);
        if (ig_shape_nested(&shapes[c])) {
            struct ig_error sub = {0};
            rc = ig_shape_type_text(&shapes[c], cd->name, &text, &sub);
            if (rc) rc = ig_err(err, rc, "%s: %s", path, sub.msg);
        } else {
            rc = (cd->lt.kind ? ig_logical_text(&cd->lt, &text) : ig_buf_printf(&text, "%s", ig_type_info(cd->type)->name)) ||
                         ig_buf_append_byte(&text, '?')
                     ? ig_err(err, -ENOMEM, "out of memory")
                     : 0;
        }
        if (!rc) rc = ig_schema_add_typed(&again, cd->name, strlen(cd->name), (const char *)text.data, text.len, err);
    }
    ig_buf_free(&text);
    if (rc) {
        ig_schema_free(&again);
        return rc;
    }
    ig_schema_free(out);
    *out = again;
    return 0;
}

int ig_infer_jsonl(struct ig_lines_reader *r, const char *path, uint32_t sample, const struct ig_schema *known,
                   struct ig_schema *out, uint32_t *sampled, struct ig_error *err)
{
    struct ig_json_doc doc;
    ig_json_doc_init(&doc);
    struct ig_shape *shapes = NULL; /* by column of out, as the fields are met */
    size_t cap = 0, nshapes = 0;
    struct ig_strset names; /* the fields met: entry c is column c of out */
    ig_strset_init(&names);
    int rc = 0;
    uint32_t rows = 0;
    while (rows < sample) {
        const char *line;
        size_t len;
        uint64_t lineno;
        rc = ig_lines_next(r, &line, &len, &lineno, err);
        if (rc <= 0) break;
        rc = 0;
        if (len == 0) continue; /* blank lines carry no record */
        struct ig_error sub = {0};
        if (ig_json_parse(&doc, line, len, &sub)) {
            rc = ig_err(err, -EINVAL, "%s:%llu: %s", path, (unsigned long long)lineno, sub.msg);
            break;
        }
        const struct ig_json_node *root = ig_json_root(&doc);
        if (root->type != IG_JSON_OBJECT) {
            rc = ig_err(err, -EINVAL, "%s:%llu: expected a JSON object, got %s", path,
                        (unsigned long long)lineno, ig_json_type_name(root->type));
            break;
        }
        rows++;
        for (const struct ig_json_node *m = ig_json_first_child(&doc, root); m && !rc;
             m = ig_json_next_sibling(&doc, m)) {
            long kn = known ? ig_schema_find(known, m->key, m->keylen) : -1;
            if (kn >= 0 && known->cols[kn].parent == IG_SCHEMA_NONE) continue; /* the table's type */
            /* by hash: rows of 20,000 keys would cost a scan of the columns each */
            uint32_t c;
            bool added;
            if (ig_strset_add(&names, m->key, m->keylen, &c, &added)) {
                rc = ig_err(err, -ENOMEM, "out of memory");
                break;
            }
            if (added) {
                if (ig_schema_add(out, m->key, m->keylen, IG_T_STRING, true, &sub)) {
                    rc = ig_err(err, sub.code, "%s:%llu: field '%.*s': %s", path,
                                (unsigned long long)lineno, (int)m->keylen, m->key, sub.msg);
                    break;
                }
                if ((size_t)c >= cap) {
                    size_t ncap = cap ? cap * 2 : 64;
                    struct ig_shape *p = realloc(shapes, ncap * sizeof *p);
                    if (!p) {
                        rc = ig_err(err, -ENOMEM, "out of memory");
                        break;
                    }
                    shapes = p;
                    cap = ncap;
                }
                ig_shape_init(&shapes[c]);
                nshapes = (size_t)c + 1;
            }
            /* -E2BIG: a map of keys, which the type text names the field for */
            if (ig_shape_add(&shapes[c], &doc, m) == -ENOMEM) rc = ig_err(err, -ENOMEM, "out of memory");
        }
        if (rc) break;
    }
    if (sampled) *sampled = rows;
    if (rc >= 0) rc = settle(out, shapes, path, rows, err);
    /* appending: fields the table has, or no records at all (an empty shard) */
    bool all_known = known && out->n == 0;
    if (rc >= 0 && out->n == 0 && !all_known) rc = ig_err(err, -EINVAL, "%s: no records to infer a schema from", path);
    if (rc >= 0 && !all_known) {
        struct ig_error sub = {0};
        if (ig_schema_finish(out, &sub)) rc = ig_err(err, sub.code, "%s: %s", path, sub.msg);
    }
    if (rc >= 0 && ig_lines_rewind(r)) rc = ig_err(err, -EIO, "%s: cannot re-read the input", path);
    for (size_t c = 0; c < nshapes; c++)
        ig_shape_free(&shapes[c]);
    free(shapes);
    ig_strset_free(&names);
    ig_json_doc_free(&doc);
    return rc < 0 ? rc : 0;
}
