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
#include <stdio.h>
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

/* The kinds of JSON value a field may hold; two in one field are a mix. */
static const struct {
    uint8_t shapes; /* SHAPE_* */
    const char *what;
} json_kinds[] = {{SHAPE_BOOL, "true or false"},
                  {SHAPE_INT | SHAPE_FLOAT, "a number"},
                  {SHAPE_STRING, "a string"},
                  {SHAPE_ARRAY, "an array"},
                  {SHAPE_OBJECT | SHAPE_MAP, "an object"}};
#define JSON_KINDS (sizeof json_kinds / sizeof json_kinds[0])

/* What the sample says of one column, by the format read. */
struct column_guess {
    struct csv_guess csv;
    struct ig_shape shape; /* JSON Lines */
    uint32_t header_of;   /* CSV: the input (numbered from 1) whose header named it last */
    /* JSON Lines: the input (numbered from 1) each kind was first met in,
     * 0: never, so that a mix across shards names them */
    uint32_t kind_in[JSON_KINDS];
};

struct ig_infer {
    const struct ig_schema *known;
    struct ig_schema out;     /* the columns in the order first met, typed at the end */
    struct ig_strset names;   /* entry c names column c of out: found by hash (rows of
                                 20,000 keys would cost a scan of the columns each) */
    struct column_guess *cols;
    size_t cap;
    uint32_t *field_col;      /* CSV: the column of each field of the current header */
    size_t field_cap;
    struct ig_json_doc doc;
    uint32_t inputs, rows;    /* inputs read, records sampled from them all */
    char **names_of_inputs;   /* input k + 1's name, as messages give it */
};

struct ig_infer *ig_infer_new(const struct ig_schema *known)
{
    struct ig_infer *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    g->known = known;
    ig_strset_init(&g->names);
    ig_json_doc_init(&g->doc);
    return g;
}

void ig_infer_free(struct ig_infer *g)
{
    if (!g) return;
    for (uint32_t c = 0; c < g->names.count; c++)
        ig_shape_free(&g->cols[c].shape);
    free(g->cols);
    free(g->field_col);
    ig_strset_free(&g->names);
    ig_json_doc_free(&g->doc);
    ig_schema_free(&g->out);
    for (uint32_t k = 0; k < g->inputs; k++)
        free(g->names_of_inputs[k]);
    free(g->names_of_inputs);
    free(g);
}

/* The column named name[0, len): *c its number, *added whether it is new
 * (then a string until its values say more). */
static int column_of(struct ig_infer *g, const char *name, size_t len, uint32_t *c, bool *added,
                     struct ig_error *sub)
{
    if (ig_strset_add(&g->names, name, len, c, added)) return ig_err(sub, -ENOMEM, "out of memory");
    if (!*added) return 0;
    if ((size_t)*c >= g->cap) {
        size_t ncap = g->cap ? g->cap * 2 : 64;
        struct column_guess *p = realloc(g->cols, ncap * sizeof *p);
        if (!p) return ig_err(sub, -ENOMEM, "out of memory");
        g->cols = p;
        g->cap = ncap;
    }
    g->cols[*c] = (struct column_guess){.csv = {true, true, true, 0, {.can_date = true, .can_ts = true}}};
    ig_shape_init(&g->cols[*c].shape);
    return ig_schema_add(&g->out, name, len, IG_T_STRING, true, sub);
}

static int note_input(struct ig_infer *g, const char *path, struct ig_error *err)
{
    char **p = realloc(g->names_of_inputs, (g->inputs + 1) * sizeof *p);
    if (!p) return ig_err(err, -ENOMEM, "out of memory");
    g->names_of_inputs = p;
    if (!(p[g->inputs] = strdup(path))) return ig_err(err, -ENOMEM, "out of memory");
    g->inputs++;
    return 0;
}

/* A field holding two kinds of value in the inputs: an error naming the
 * input each was first met in (one input's mixes are told by settle). */
static int mixed_across(const struct ig_infer *g, struct ig_error *err)
{
    for (uint32_t c = 0; c < g->out.n; c++) {
        const struct column_guess *cg = &g->cols[c];
        unsigned met = 0;
        for (size_t k = 0; k < JSON_KINDS; k++)
            met += cg->kind_in[k] != 0;
        if (met < 2) continue;
        char text[1024];
        size_t n = 0;
        for (size_t k = 0; k < JSON_KINDS && n < sizeof text; k++)
            if (cg->kind_in[k])
                n += (size_t)snprintf(text + n, sizeof text - n, "%s%s in %s", n ? ", " : "", json_kinds[k].what,
                                      g->names_of_inputs[cg->kind_in[k] - 1]);
        return ig_err(err, -EINVAL, "field '%s' mixes JSON types: %s; pass --schema", g->out.cols[c].name, text);
    }
    return 0;
}

int ig_infer_merge(struct ig_infer *g, const struct ig_infer *o, struct ig_error *err)
{
    uint32_t before = g->inputs;
    for (uint32_t k = 0; k < o->inputs; k++) {
        int rc = note_input(g, o->names_of_inputs[k], err);
        if (rc) return rc;
    }
    g->rows += o->rows;
    for (uint32_t oc = 0; oc < o->names.count; oc++) {
        size_t len;
        const char *name = (const char *)ig_strset_get(&o->names, oc, &len);
        uint32_t c;
        bool added;
        struct ig_error sub = {0};
        if (column_of(g, name, len, &c, &added, &sub))
            return ig_err(err, sub.code, "field '%.*s': %s", (int)len, name, sub.msg);
        struct column_guess *cg = &g->cols[c];
        const struct column_guess *og = &o->cols[oc];
        cg->csv.can_int &= og->csv.can_int;
        cg->csv.can_float &= og->csv.can_float;
        cg->csv.can_bool &= og->csv.can_bool;
        cg->csv.non_empty += og->csv.non_empty;
        merge_time(&cg->csv.time, &og->csv.time);
        if (ig_shape_merge(&cg->shape, &og->shape) == -ENOMEM) return ig_err(err, -ENOMEM, "out of memory");
        for (size_t k = 0; k < JSON_KINDS; k++)
            if (!cg->kind_in[k] && og->kind_in[k]) cg->kind_in[k] = before + og->kind_in[k];
    }
    return 0;
}

int ig_infer_csv_more(struct ig_infer *g, struct ig_csv_reader *r, const char *path, uint32_t sample, bool prefix,
                      struct ig_error *err)
{
    int rc = note_input(g, path, err);
    if (rc) return rc;
    struct ig_csv_record rec;
    rc = ig_csv_next(r, &rec, err);
    if (rc < 0) return rc;
    if (rc == 0) return ig_err(err, -EINVAL, "%s: empty input (no header line)", path);
    size_t nfields = rec.nfields;
    if (nfields > g->field_cap) {
        uint32_t *p = realloc(g->field_col, nfields * sizeof *p);
        if (!p) return ig_err(err, -ENOMEM, "out of memory");
        g->field_col = p;
        g->field_cap = nfields;
    }
    for (size_t i = 0; i < nfields; i++) {
        struct ig_error sub = {0};
        uint32_t c;
        bool added;
        rc = column_of(g, rec.fields[i].p, rec.fields[i].len, &c, &added, &sub);
        if (!rc && g->cols[c].header_of == g->inputs)
            rc = ig_err(&sub, -EINVAL, "duplicate column name '%.*s'", (int)rec.fields[i].len, rec.fields[i].p);
        if (rc)
            return ig_err(err, rc, "%s:%llu: header field %zu: %s", path, (unsigned long long)rec.line, i + 1,
                          sub.msg);
        g->cols[c].header_of = g->inputs;
        g->field_col[i] = c;
    }
    for (uint32_t k = 0; k < sample; k++) {
        /* a copy of the input's head may end inside a quoted field: the
         * sample ends before it */
        struct ig_error sub = {0};
        rc = ig_csv_next(r, &rec, prefix ? &sub : err);
        if (rc < 0 && prefix) rc = 0;
        if (rc <= 0) break;
        if (rec.nfields != nfields) {
            rc = ig_err(err, -EINVAL, "%s:%llu: %zu fields, but the header has %zu", path,
                        (unsigned long long)rec.line, rec.nfields, nfields);
            break;
        }
        for (size_t i = 0; i < nfields; i++)
            guess_field(&g->cols[g->field_col[i]].csv, rec.fields[i].p, rec.fields[i].len);
        g->rows++;
    }
    if (rc >= 0 && ig_csv_rewind(r)) rc = ig_err(err, -EIO, "%s: cannot re-read the input", path);
    return rc < 0 ? rc : 0;
}

/* Each CSV column's type from its values (infer.h). */
static void type_csv(struct ig_infer *g)
{
    for (uint32_t i = 0; i < g->out.n; i++) {
        const struct csv_guess *cg = &g->cols[i].csv;
        uint8_t t = IG_T_STRING;
        struct ig_logical lt = {0};
        if (cg->non_empty) {
            if (cg->can_int)
                t = IG_T_INT64;
            else if (cg->can_float)
                t = IG_T_FLOAT64;
            else if (cg->can_bool)
                t = IG_T_BOOL;
            else if ((lt = time_type(&cg->time)).kind) {
                uint8_t q;
                ig_logical_storage(&lt, &t, &q);
            }
        }
        g->out.cols[i].type = t;
        g->out.cols[i].lt = lt;
    }
}

/* The fields' shapes made a schema: flat fields typed in place, and where
 * one is nested the schema made again in the same order with its type text
 * (a flat column of `out` cannot become a nested one in place). */
static int settle(struct ig_schema *out, const struct column_guess *cols, const char *path, uint32_t rows,
                  struct ig_error *err)
{
    bool nested = false;
    for (uint32_t c = 0; c < out->n; c++) {
        nested |= ig_shape_nested(&cols[c].shape);
        if (!ig_shape_nested(&cols[c].shape) && ig_shape_scalar(&cols[c].shape, &out->cols[c].type, &out->cols[c].lt))
            return ig_err(err, -EINVAL, "%s: field '%s' mixes JSON types in the first %u rows; pass --schema",
                          path, out->cols[c].name, rows);
    }
    if (!nested) return 0;
    struct ig_schema again = {0};
    struct ig_buf text = IG_BUF_INIT;
    int rc = 0;
    for (uint32_t c = 0; c < out->n && !rc; c++) {
        const struct ig_column_def *cd = &out->cols[c];
        ig_buf_reset(&text);
        if (ig_shape_nested(&cols[c].shape)) {
            struct ig_error sub = {0};
            rc = ig_shape_type_text(&cols[c].shape, cd->name, &text, &sub);
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

int ig_infer_jsonl_more(struct ig_infer *g, struct ig_lines_reader *r, const char *path, uint32_t sample,
                        struct ig_error *err)
{
    int rc = note_input(g, path, err);
    if (rc) return rc;
    const struct ig_schema *known = g->known;
    for (uint32_t rows = 0; rows < sample;) {
        const char *line;
        size_t len;
        uint64_t lineno;
        rc = ig_lines_next(r, &line, &len, &lineno, err);
        if (rc <= 0) break;
        rc = 0;
        if (len == 0) continue; /* blank lines carry no record */
        struct ig_error sub = {0};
        if (ig_json_parse(&g->doc, line, len, &sub)) {
            rc = ig_err(err, -EINVAL, "%s:%llu: %s", path, (unsigned long long)lineno, sub.msg);
            break;
        }
        const struct ig_json_node *root = ig_json_root(&g->doc);
        if (root->type != IG_JSON_OBJECT) {
            rc = ig_err(err, -EINVAL, "%s:%llu: expected a JSON object, got %s", path,
                        (unsigned long long)lineno, ig_json_type_name(root->type));
            break;
        }
        rows++;
        g->rows++;
        for (const struct ig_json_node *m = ig_json_first_child(&g->doc, root); m && !rc;
             m = ig_json_next_sibling(&g->doc, m)) {
            long kn = known ? ig_schema_find(known, m->key, m->keylen) : -1;
            if (kn >= 0 && known->cols[kn].parent == IG_SCHEMA_NONE) continue; /* the table's type */
            uint32_t c;
            bool added;
            if (column_of(g, m->key, m->keylen, &c, &added, &sub)) {
                rc = ig_err(err, sub.code, "%s:%llu: field '%.*s': %s", path, (unsigned long long)lineno,
                            (int)m->keylen, m->key, sub.msg);
                break;
            }
            struct column_guess *cg = &g->cols[c];
            uint8_t before = cg->shape.seen;
            /* -E2BIG: a map of keys, which the type text names the field for */
            if (ig_shape_add(&cg->shape, &g->doc, m) == -ENOMEM) rc = ig_err(err, -ENOMEM, "out of memory");
            for (size_t k = 0; cg->shape.seen != before && k < JSON_KINDS; k++)
                if ((cg->shape.seen & json_kinds[k].shapes) && !cg->kind_in[k]) cg->kind_in[k] = g->inputs;
        }
        if (rc) break;
    }
    if (rc >= 0 && ig_lines_rewind(r)) rc = ig_err(err, -EIO, "%s: cannot re-read the input", path);
    return rc < 0 ? rc : 0;
}

int ig_infer_end(struct ig_infer *g, bool jsonl, struct ig_schema *out, uint32_t *sampled, struct ig_error *err)
{
    memset(out, 0, sizeof *out);
    if (sampled) *sampled = g->rows;
    char label[600];
    if (g->inputs > 1)
        snprintf(label, sizeof label, "%s and %u more input%s", g->names_of_inputs[0], g->inputs - 1,
                 g->inputs > 2 ? "s" : "");
    else
        snprintf(label, sizeof label, "%s", g->inputs ? g->names_of_inputs[0] : "");
    int rc = 0;
    if (jsonl) {
        if (g->inputs > 1) rc = mixed_across(g, err);
        if (!rc) rc = settle(&g->out, g->cols, label, g->rows, err);
        /* appending: fields the table has, or no records at all (an empty shard) */
        bool all_known = g->known && g->out.n == 0;
        if (!rc && g->out.n == 0 && !all_known)
            rc = g->inputs == 1 ? ig_err(err, -EINVAL, "%s: no records to infer a schema from", label)
                                : ig_err(err, -EINVAL, "no records to infer a schema from in the %u inputs", g->inputs);
        if (!rc && !all_known) {
            struct ig_error sub = {0};
            if (ig_schema_finish(&g->out, &sub)) rc = ig_err(err, sub.code, "%s: %s", label, sub.msg);
        }
    } else {
        type_csv(g);
        struct ig_error sub = {0};
        if (ig_schema_finish(&g->out, &sub)) rc = ig_err(err, sub.code, "%s:1: header: %s", label, sub.msg);
    }
    if (!rc) {
        *out = g->out;
        g->out = (struct ig_schema){0};
    }
    ig_infer_free(g);
    return rc;
}

int ig_infer_csv(struct ig_csv_reader *r, const char *path, uint32_t sample, struct ig_schema *out,
                 uint32_t *sampled, struct ig_error *err)
{
    struct ig_infer *g = ig_infer_new(NULL);
    if (!g) return ig_err(err, -ENOMEM, "out of memory");
    int rc = ig_infer_csv_more(g, r, path, sample, false, err);
    if (rc) {
        ig_infer_free(g);
        return rc;
    }
    return ig_infer_end(g, false, out, sampled, err);
}

int ig_infer_jsonl(struct ig_lines_reader *r, const char *path, uint32_t sample, const struct ig_schema *known,
                   struct ig_schema *out, uint32_t *sampled, struct ig_error *err)
{
    struct ig_infer *g = ig_infer_new(known);
    if (!g) return ig_err(err, -ENOMEM, "out of memory");
    int rc = ig_infer_jsonl_more(g, r, path, sample, err);
    if (rc) {
        ig_infer_free(g);
        return rc;
    }
    return ig_infer_end(g, true, out, sampled, err);
}
