#include "infer.h"
#include "format/model/logical.h"
#include "format/model/types.h"
#include "import/json.h"
#include "util/error.h"
#include "util/parse.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Values that read as ISO-8601 dates or timestamps: a column whose every
 * value is a date is a date; one whose every value is a timestamp (or a
 * date: midnight) a timestamp, of microseconds or of nanoseconds when a
 * value has digits past the microsecond, UTC when every value has a zone,
 * local when none has (a mix of both stays text: no zone to give the
 * others). */
struct time_guess {
    bool can_date, can_ts;
    bool any_ts, zoned, unzoned;
    uint8_t frac_digits;
};

static void guess_time(struct time_guess *t, const char *p, size_t n)
{
    struct ig_time_guess g;
    if (!(t->can_date || t->can_ts)) return;
    if (!ig_logical_guess(p, n, &g)) {
        t->can_date = t->can_ts = false;
        return;
    }
    t->can_date &= g.date;
    if (g.timestamp) {
        t->any_ts = true;
        t->zoned |= g.zoned;
        t->unzoned |= !g.zoned;
        if (g.frac_digits > t->frac_digits) t->frac_digits = g.frac_digits;
    }
}

/* The logical type the guess settled on (kind 0: none). */
static struct ig_logical time_type(const struct time_guess *t)
{
    struct ig_logical lt = {0};
    if (t->can_date && !t->any_ts) return (struct ig_logical){.kind = IG_LT_DATE};
    if (t->can_ts && t->any_ts && !(t->zoned && t->unzoned))
        lt = (struct ig_logical){.kind = IG_LT_TIMESTAMP, .unit = t->frac_digits > 6 ? IG_UNIT_NS : IG_UNIT_US,
                                 .utc = t->zoned};
    return lt;
}

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
                 struct ig_schema *out, struct ig_error *err)
{
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
    }
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

enum { SEEN_BOOL = 1, SEEN_INT = 2, SEEN_FLOAT = 4, SEEN_STRING = 8 };

static bool is_integer_text(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] == '.' || p[i] == 'e' || p[i] == 'E') return false;
    return true;
}

int ig_infer_jsonl(struct ig_lines_reader *r, const char *path, uint32_t sample, const struct ig_schema *known,
                   struct ig_schema *out, struct ig_error *err)
{
    struct ig_json_doc doc;
    ig_json_doc_init(&doc);
    uint8_t *seen = NULL;
    size_t seen_cap = 0;
    struct time_guess *times = NULL; /* strings that read as dates or timestamps, per column */
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
            long c = ig_schema_find(out, m->key, m->keylen);
            if (c < 0) {
                if (ig_schema_add(out, m->key, m->keylen, IG_T_STRING, true, &sub)) {
                    rc = ig_err(err, sub.code, "%s:%llu: field '%.*s': %s", path,
                                (unsigned long long)lineno, (int)m->keylen, m->key, sub.msg);
                    break;
                }
                c = out->n - 1;
                if ((size_t)c >= seen_cap) {
                    size_t cap = seen_cap ? seen_cap * 2 : 64;
                    uint8_t *p = realloc(seen, cap);
                    if (!p) {
                        rc = ig_err(err, -ENOMEM, "out of memory");
                        break;
                    }
                    memset(p + seen_cap, 0, cap - seen_cap);
                    seen = p;
                    struct time_guess *tg = realloc(times, cap * sizeof *tg);
                    if (!tg) {
                        rc = ig_err(err, -ENOMEM, "out of memory");
                        break;
                    }
                    for (size_t k = seen_cap; k < cap; k++) tg[k] = (struct time_guess){.can_date = true, .can_ts = true};
                    times = tg;
                    seen_cap = cap;
                }
            }
            switch (m->type) {
            case IG_JSON_NULL: break;
            case IG_JSON_TRUE:
            case IG_JSON_FALSE: seen[c] |= SEEN_BOOL; break;
            case IG_JSON_NUMBER:
                seen[c] |= is_integer_text(m->str, m->len) ? SEEN_INT : SEEN_FLOAT;
                break;
            case IG_JSON_STRING:
                seen[c] |= SEEN_STRING;
                guess_time(&times[c], m->str, m->len);
                break;
            default:
                rc = ig_err(err, -EINVAL,
                            "%s:%llu: field '%.*s' holds a JSON %s; nested values need --schema",
                            path, (unsigned long long)lineno, (int)m->keylen, m->key,
                            ig_json_type_name(m->type));
            }
        }
        if (rc) break;
    }
    for (uint32_t c = 0; rc >= 0 && c < out->n; c++) {
        uint8_t s = seen[c];
        uint8_t t = IG_T_STRING;
        struct ig_logical lt = {0};
        if (s == SEEN_STRING && (lt = time_type(&times[c])).kind) {
            uint8_t q;
            ig_logical_storage(&lt, &t, &q);
        } else if (s == SEEN_BOOL)
            t = IG_T_BOOL;
        else if (s == SEEN_INT)
            t = IG_T_INT64;
        else if (s == SEEN_FLOAT || s == (SEEN_INT | SEEN_FLOAT))
            t = IG_T_FLOAT64;
        else if (s && s != SEEN_STRING) {
            rc = ig_err(err, -EINVAL, "%s: field '%s' mixes JSON types in the first %u rows; "
                                      "pass --schema",
                        path, out->cols[c].name, rows);
            break;
        }
        out->cols[c].type = t;
        out->cols[c].lt = lt;
    }
    /* appending: fields the table has, or no records at all (an empty shard) */
    bool all_known = known && out->n == 0;
    if (rc >= 0 && out->n == 0 && !all_known) rc = ig_err(err, -EINVAL, "%s: no records to infer a schema from", path);
    if (rc >= 0 && !all_known) {
        struct ig_error sub = {0};
        if (ig_schema_finish(out, &sub)) rc = ig_err(err, sub.code, "%s: %s", path, sub.msg);
    }
    if (rc >= 0 && ig_lines_rewind(r)) rc = ig_err(err, -EIO, "%s: cannot re-read the input", path);
    free(seen);
    free(times);
    ig_json_doc_free(&doc);
    return rc < 0 ? rc : 0;
}
