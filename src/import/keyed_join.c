/* keyed_join.c - the key of a keyed file (columns_keyed.c) chosen and
 * checked, and matched to the table's live rows: the join, in row order. */
#include "import/keyed_int.h"
#include "format/layout.h"
#include "format/model/types.h"
#include "format/model/values.h"
#include "format/ops/reader.h"
#include "format/part/table.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/strset.h"
#include "util/u64map.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint32_t keyed_group_of(const struct keyed *k, uint64_t input)
{
    uint32_t lo = 0, hi = k->ngroups;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (k->groups[mid].first <= input)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* ---- the key ----------------------------------------------------------------- */

bool keyed_is_top(const struct ig_schema *s, const char *name, long *node)
{
    *node = ig_schema_find(s, name, strlen(name));
    return *node >= 0 && s->cols[*node].parent == IG_SCHEMA_NONE;
}

/* A key a table and a file can share: a flat integer or string column. */
static bool keyable(const struct ig_column_def *c)
{
    const struct ig_type_info *ti = ig_type_info(c->type);
    return ig_column_is_flat(c) && ti && c->type != IG_T_BOOL && c->type != IG_T_BLOB &&
           !ti->is_float;
}

/* Which column names rows: in->key, else _rowid when the file has it, else
 * id when both have it. */
int keyed_choose_key(struct keyed *k, const struct ig_schema *file, struct ig_error *err)
{
    long node;
    const char *key = k->in->key;
    if (!key) {
        if (keyed_is_top(file, "_rowid", &node))
            key = "_rowid";
        else if (keyed_is_top(file, "id", &node) &&
                 ig_table_find(&k->t0, "id", 2, &(uint32_t){0}, NULL) == 0)
            key = "id";
        else
            return ig_err(
                err, -EINVAL,
                "%s: no _rowid column and no key: give --key COLUMN, a column of the file "
                "and of %s (rows match where their values are equal)",
                k->path, k->table_dir);
    }
    if (!keyed_is_top(file, key, &node))
        return ig_err(err, -EINVAL, "%s: no column '%s' (the key)", k->path, key);
    k->by_rowid = !strcmp(key, "_rowid");
    if (!k->by_rowid && ig_table_find(&k->t0, key, strlen(key), &(uint32_t){0}, NULL))
        return ig_err(err, -EINVAL, "%s: no column '%s' to match %s's key against", k->table_dir,
                      key, k->path);
    free(k->key);
    k->key = strdup(key);
    return k->key ? 0 : ig_err(err, -ENOMEM, "out of memory");
}

/* Node top's type text without its outermost '?' (a column's top-level
 * nullability is not part of the type a replace must keep). */
int keyed_bare_type(const struct ig_schema *s, uint32_t top, struct ig_buf *out)
{
    ig_buf_reset(out);
    int rc = ig_schema_type_text(s, top, out);
    if (!rc && out->len && out->data[out->len - 1] == '?') out->len--;
    return rc;
}

/* The file's key (the temporary table's) against the table's. */
int keyed_check_key(struct keyed *k, struct ig_error *err)
{
    long node, tn = -1;
    if (!keyed_is_top(&k->src_schema, k->key, &node))
        return ig_err(err, -EIO, "%s: the key is gone", k->path);
    const struct ig_column_def *c = &k->src_schema.cols[node];
    const struct ig_type_info *ti = ig_type_info(c->type);
    struct ig_buf type = IG_BUF_INIT, ttype = IG_BUF_INIT;
    int rc = keyed_bare_type(&k->src_schema, (uint32_t)node, &type)
                 ? ig_err(err, -ENOMEM, "out of memory")
                 : 0;
    if (!rc && !k->by_rowid) {
        tn = ig_schema_find(&k->t0_schema, k->key, strlen(k->key));
        if (tn < 0) rc = ig_err(err, -EINVAL, "%s: no column '%s' (the key)", k->table_dir, k->key);
        if (!rc && keyed_bare_type(&k->t0_schema, (uint32_t)tn, &ttype))
            rc = ig_err(err, -ENOMEM, "out of memory");
    }
    const struct ig_column_def *tc = tn >= 0 ? &k->t0_schema.cols[tn] : NULL;
    if (!rc && k->by_rowid && (!keyable(c) || ti->phys != IG_PHYS_LANES))
        rc = ig_err(err, -EINVAL, "%s: _rowid is %.*s; row ids are integers", k->path,
                    (int)type.len, (const char *)type.data);
    else if (!rc && tc && !keyable(tc))
        rc = ig_err(err, -EINVAL,
                    "%s: column '%s' is %.*s; a key is a column of integers or strings",
                    k->table_dir, k->key, (int)ttype.len, (const char *)ttype.data);
    else if (!rc && !keyable(c))
        rc = ig_err(err, -EINVAL, "%s: key '%s' is %.*s; a key is a column of integers or strings",
                    k->path, k->key, (int)type.len, (const char *)type.data);
    else if (!rc && tc && ig_type_info(tc->type)->phys != ti->phys)
        rc = ig_err(err, -EINVAL, "%s: key '%s' is %.*s; %s's is %.*s (%s)", k->path, k->key,
                    (int)type.len, (const char *)type.data, k->table_dir, (int)ttype.len,
                    (const char *)ttype.data,
                    k->fmt == IG_INPUT_PARQUET ? "cast it where the file is written"
                                               : "give --schema to read the file's as the table's");
    ig_buf_free(&type);
    ig_buf_free(&ttype);
    uint32_t col;
    if (!rc) rc = ig_table_find(&k->src, k->key, strlen(k->key), &col, err);
    if (!rc) rc = ig_table_column_at(&k->src, col, &k->key_ref, err);
    k->key_bytes = ti && ti->phys == IG_PHYS_BYTES;
    k->key_signed = ti && ti->is_signed;
    return rc;
}

/* ---- reading columns back ----------------------------------------------------- */

/* Every page of flat column c, in row order: fn gets its values (one per
 * row), the global id of its first row and its deletion bits (or NULL). */
typedef int (*page_fn)(struct keyed *k, uint64_t first, const struct ig_values *v,
                       const uint8_t *deleted, struct ig_error *err);

static int each_page(struct keyed *k, const struct ig_table *t, const struct ig_column_ref *c,
                     page_fn fn, struct ig_error *err)
{
    int rc = 0;
    for (uint32_t g = 0; g < t->num_groups && !rc; g++) {
        uint32_t pi, lg, first = 0, count = 0, expected = 0;
        if (ig_table_group(t, g, &pi, &lg))
            return ig_err(err, -EIO, "%s: no row group %u", t->dir, g);
        const struct ig_part *p = &t->parts[pi];
        struct ig_grouprec gr;
        rc = ig_part_group(p, lg, &gr, err);
        if (!rc) rc = ig_part_group_chunk(p, lg, &gr, c->rec.leaf, &first, &count, err);
        for (uint32_t pg = first; !rc && pg < first + count; pg++) {
            struct ig_pagerec rec;
            const uint8_t *deleted;
            rc = ig_reader_load(&k->rd, &(struct ig_page_at){p, c, pg, gr.first_row}, &rec, &k->scratch, &deleted, err);
            if (!rc)
                rc = ig_chunk_page_check(p, pg, &rec, c->rec.leaf, expected, gr.row_count, err);
            if (!rc && k->scratch.n != rec.row_count)
                rc = ig_err(err, -EIO, "%s: page %u: %zu values for %u rows", p->path, pg,
                            k->scratch.n, rec.row_count);
            if (!rc)
                rc = fn(k, p->first_row_id + gr.first_row + expected, &k->scratch, deleted, err);
            expected += rc ? 0 : rec.row_count;
        }
        if (!rc && expected != gr.row_count)
            rc =
                ig_err(err, -EIO, "%s: corrupt footer: column '%.*s' group %u covers %u of %u rows",
                       p->path, (int)c->rec.name_len, c->rec.name, lg, expected, gr.row_count);
    }
    return rc;
}

/* Leaf c's values in group g of part p (whose record is gr) into out. */
int keyed_load_chunk(struct keyed *k, const struct ig_part *p, const struct ig_column_ref *c,
                      uint32_t g, const struct ig_grouprec *gr, struct ig_values *out,
                      struct ig_error *err)
{
    uint32_t first = 0, count = 0, expected = 0;
    int rc = ig_part_group_chunk(p, g, gr, c->rec.leaf, &first, &count, err);
    for (uint32_t pg = first; !rc && pg < first + count; pg++) {
        struct ig_values *into = pg == first ? out : &k->scratch;
        struct ig_pagerec rec;
        const uint8_t *deleted;
        rc = ig_reader_load(&k->rd, &(struct ig_page_at){p, c, pg, gr->first_row}, &rec, into, &deleted, err);
        if (!rc) rc = ig_chunk_page_check(p, pg, &rec, c->rec.leaf, expected, gr->row_count, err);
        if (!rc && into != out && ig_values_append(out, into))
            rc = ig_err(err, -ENOMEM, "out of memory");
        expected += rc ? 0 : rec.row_count;
    }
    size_t rows = c->li.levels ? out->rows : out->n;
    if (!rc && (!count || expected != gr->row_count || rows != gr->row_count))
        rc = ig_err(err, -EIO, "%s: corrupt footer: column '%.*s' group %u covers %u of %u rows",
                    p->path, (int)c->rec.name_len, c->rec.name, g, expected, gr->row_count);
    return rc;
}

/* ---- the join -------------------------------------------------------------------- */

static void key_text(const struct keyed *k, uint64_t input, char *out, size_t cap)
{
    if (k->key_bytes) {
        size_t len;
        const uint8_t *p = ig_strset_get(&k->strs, (uint32_t)input, &len);
        snprintf(out, cap, "\"%.*s%s\"", (int)(len > 40 ? 40 : len), (const char *)p,
                 len > 40 ? "..." : "");
    } else if (k->key_signed) {
        snprintf(out, cap, "%" PRId64, (int64_t)k->lanes[input]);
    } else {
        snprintf(out, cap, "%" PRIu64, k->lanes[input]);
    }
}

static void note_missing(struct keyed *k, const char *text)
{
    struct missing *m = &k->miss;
    size_t used = strlen(m->text);
    if (m->count < SHOW_FIRST)
        snprintf(m->text + used, sizeof m->text - used, "%s%s", m->count ? ", " : "", text);
    else if (m->count == SHOW_FIRST)
        snprintf(m->text + used, sizeof m->text - used, ", ...");
    m->count++;
}

static int add_pair(struct keyed *k, uint64_t row, uint64_t input, struct ig_error *err)
{
    if (k->npairs == k->cap) {
        size_t cap = k->cap ? k->cap * 2 : 4096;
        struct pair *p = realloc(k->pairs, cap * sizeof *p);
        if (!p) return ig_err(err, -ENOMEM, "out of memory");
        k->pairs = p;
        k->cap = cap;
    }
    k->pairs[k->npairs++] = (struct pair){row, input};
    return 0;
}

static int no_key(const struct keyed *k, uint64_t input, struct ig_error *err)
{
    return ig_err(err, -EINVAL, "%s: row %" PRIu64 " has no %s (it is NULL)", k->path, input + 1,
                  k->key);
}

/* _rowid: a pair for each row id (checked against the table later). */
static int rowid_page(struct keyed *k, uint64_t first, const struct ig_values *v,
                      const uint8_t *deleted, struct ig_error *err)
{
    (void)deleted;
    int rc = 0;
    for (size_t i = 0; i < v->n && !rc; i++) {
        uint64_t input = first + i;
        if (ig_values_is_null(v, i)) return no_key(k, input, err);
        uint64_t id = v->lanes[i];
        if (k->key_signed && (int64_t)id < 0) {
            char text[32];
            snprintf(text, sizeof text, "%" PRId64, (int64_t)id);
            note_missing(k, text);
            continue;
        }
        rc = add_pair(k, id, input, err);
    }
    return rc;
}

static int by_row_then_input(const void *a, const void *b)
{
    const struct pair *x = a, *y = b;
    if (x->row != y->row) return x->row < y->row ? -1 : 1;
    return (x->input > y->input) - (x->input < y->input);
}

/* Key values of the file into a hash (integers) or a string set. */
static int key_page(struct keyed *k, uint64_t first, const struct ig_values *v,
                    const uint8_t *deleted, struct ig_error *err)
{
    (void)deleted;
    for (size_t i = 0; i < v->n; i++) {
        uint64_t input = first + i;
        if (ig_values_is_null(v, i)) return no_key(k, input, err);
        uint64_t had = UINT64_MAX;
        if (k->key_bytes) {
            size_t len;
            const uint8_t *p = ig_values_bytes(v, i, &len);
            uint32_t index;
            bool added;
            int rc = ig_strset_add(&k->strs, p, len, &index, &added);
            if (rc) return ig_err(err, rc, "out of memory");
            if (!added) had = index;
        } else {
            k->lanes[input] = v->lanes[i];
            size_t slot = ig_u64map_slot(&k->ints, v->lanes[i]);
            if (k->ints.vals[slot])
                had = k->ints.vals[slot] - 1;
            else if (ig_u64map_add(&k->ints, v->lanes[i], (uint32_t)(input + 1), &(bool){false}))
                return ig_err(err, -ENOMEM, "out of memory");
        }
        if (had != UINT64_MAX) {
            char text[64];
            key_text(k, had, text, sizeof text);
            return ig_err(err, -EINVAL,
                          "%s: %s %s is given twice (rows %" PRIu64 " and %" PRIu64 ")", k->path,
                          k->key, text, had + 1, input + 1);
        }
    }
    return 0;
}

/* The file's keys, before the table is locked: row ids as pairs (sorted),
 * other keys indexed. */
int keyed_index_keys(struct keyed *k, struct ig_error *err)
{
    if (k->by_rowid) {
        int rc = each_page(k, &k->src, &k->key_ref, rowid_page, err);
        bool sorted = true;
        for (size_t i = 1; i < k->npairs && sorted; i++)
            sorted = k->pairs[i - 1].row < k->pairs[i].row;
        if (!rc && !sorted) qsort(k->pairs, k->npairs, sizeof *k->pairs, by_row_then_input);
        for (size_t i = 1; i < k->npairs && !rc; i++)
            if (k->pairs[i - 1].row == k->pairs[i].row)
                rc = ig_err(
                    err, -EINVAL,
                    "%s: row id %" PRIu64 " is given twice (rows %" PRIu64 " and %" PRIu64 ")",
                    k->path, k->pairs[i].row, k->pairs[i - 1].input + 1, k->pairs[i].input + 1);
        return rc;
    }
    k->matched = calloc(k->nin + 1, sizeof *k->matched);
    if (!k->matched) return ig_err(err, -ENOMEM, "out of memory");
    if (!k->key_bytes) {
        k->lanes = malloc((k->nin + 1) * sizeof *k->lanes);
        if (!k->lanes || ig_u64map_init(&k->ints, k->nin))
            return ig_err(err, -ENOMEM, "out of memory");
    }
    return each_page(k, &k->src, &k->key_ref, key_page, err);
}

/* Could a table key (lane, of a type signed or not) equal a file key of
 * the file's signedness? Lanes hold integers sign- or zero-extended, so equal
 * numbers have equal lanes, but for a negative number against one of 2^63 or
 * more, whose lanes coincide. */
static bool same_sign_range(const struct keyed *k, bool table_signed, uint64_t lane)
{
    if (table_signed && !k->key_signed) return (int64_t)lane >= 0;
    if (!table_signed && k->key_signed) return lane >> 63 == 0;
    return true;
}

/* The table's keys, page by page: each live row whose key the file gives
 * becomes a pair. */
static int table_key_page(struct keyed *k, uint64_t first, const struct ig_values *v,
                          const uint8_t *deleted, struct ig_error *err)
{
    bool table_signed = ig_type_info(v->type)->is_signed;
    for (size_t i = 0; i < v->n; i++) {
        if ((deleted && (deleted[i / 8] >> (i % 8)) & 1) || ig_values_is_null(v, i)) continue;
        uint64_t row = first + i;
        int64_t input = -1;
        if (k->key_bytes) {
            size_t len;
            const uint8_t *p = ig_values_bytes(v, i, &len);
            input = ig_strset_find(&k->strs, p, len);
        } else if (same_sign_range(k, table_signed, v->lanes[i])) {
            size_t slot = ig_u64map_slot(&k->ints, v->lanes[i]);
            input = k->ints.vals[slot] ? (int64_t)k->ints.vals[slot] - 1 : -1;
        }
        if (input < 0) continue;
        if (k->matched[input]) {
            char text[64];
            key_text(k, (uint64_t)input, text, sizeof text);
            return ig_err(err, -EINVAL,
                          "%s: %s %s names rows %" PRIu64 " and %" PRIu64 " (a key names one row)",
                          k->table_dir, k->key, text, k->matched[input] - 1, row);
        }
        k->matched[input] = row + 1;
        int rc = add_pair(k, row, (uint64_t)input, err);
        if (rc) return rc;
    }
    return 0;
}

static bool row_live(const struct ig_table *t, uint64_t row)
{
    uint32_t pi;
    uint64_t local;
    return row < t->num_rows && ig_table_row(t, row, &pi, &local) == 0 &&
           !ig_part_row_deleted(&t->parts[pi], local);
}

/* With the table locked: the pairs (live rows only), the checks the options
 * ask for, and what each of the file's row groups is needed for. */
int keyed_prepare(void *ctx, const struct ig_table *t, struct ig_error *err)
{
    struct keyed *k = ctx;
    k->t = t;
    int rc = 0;
    if (k->by_rowid) {
        size_t kept = 0;
        for (size_t i = 0; i < k->npairs; i++) {
            if (row_live(t, k->pairs[i].row)) {
                k->pairs[kept++] = k->pairs[i];
                continue;
            }
            char text[32];
            snprintf(text, sizeof text, "%" PRIu64, k->pairs[i].row);
            note_missing(k, text);
        }
        k->npairs = kept;
    } else {
        uint32_t col;
        struct ig_column_ref ref;
        rc = ig_table_find(t, k->key, strlen(k->key), &col, err);
        if (!rc) rc = ig_table_column_at(t, col, &ref, err);
        const struct ig_type_info *ti = rc ? NULL : ig_type_info(ref.rec.type);
        if (!rc && (ref.nested || !ti || (ti->phys == IG_PHYS_BYTES) != k->key_bytes))
            rc = ig_err(err, -EINVAL, "%s: column '%s' changed; give the command again", t->dir,
                        k->key);
        if (!rc) rc = each_page(k, t, &ref, table_key_page, err);
        for (uint64_t i = 0; !rc && i < k->nin; i++) {
            if (k->matched[i]) continue;
            char text[64];
            key_text(k, i, text, sizeof text);
            note_missing(k, text);
        }
    }
    if (!rc && k->miss.count && !k->in->ignore_missing)
        rc = ig_err(
            err, -ENOENT,
            "%s: %" PRIu64 " %s%s name%s no live row of %s: %s (--ignore-missing leaves them out)",
            k->path, k->miss.count, k->by_rowid ? "row id" : "key", k->miss.count == 1 ? "" : "s",
            k->miss.count == 1 ? "s" : "", t->dir, k->miss.text);
    uint64_t live = t->num_rows - t->deleted_rows;
    k->counts.input_rows = k->nin;
    k->counts.matched = k->npairs;
    k->counts.ignored = k->miss.count;
    k->counts.unmatched = live - k->npairs;
    if (!rc && k->in->require_all && k->mode != IG_KEYED_UPDATE && k->npairs < live) {
        char rows[200] = "";
        size_t used = 0, shown = 0, at = 0;
        for (uint64_t row = 0; row < t->num_rows && shown <= SHOW_FIRST; row++) {
            while (at < k->npairs && k->pairs[at].row < row)
                at++;
            if ((at < k->npairs && k->pairs[at].row == row) || !row_live(t, row)) continue;
            if (shown == SHOW_FIRST)
                used += (size_t)snprintf(rows + used, sizeof rows - used, ", ...");
            else
                used += (size_t)snprintf(rows + used, sizeof rows - used, "%s%" PRIu64,
                                         shown ? ", " : "", row);
            if (used >= sizeof rows) used = sizeof rows - 1;
            shown++;
        }
        rc = ig_err(err, -EINVAL,
                    "%s: %" PRIu64 " live row%s of %s %s no row in it (row ids %s; --require-all)",
                    k->path, live - k->npairs, live - k->npairs == 1 ? "" : "s", t->dir,
                    live - k->npairs == 1 ? "has" : "have", rows);
    }
    for (size_t i = 0; !rc && i < k->npairs; i++) {
        k->groups[keyed_group_of(k, k->pairs[i].input)].remaining++;
    }
    for (uint32_t l = 0; !rc && k->mode == IG_KEYED_UPDATE && l < k->nleaves; l++) {
        uint32_t col;
        const char *name = k->leaves[l].top;
        rc = ig_table_find(t, name, strlen(name), &col, err);
        if (!rc) rc = ig_table_column_at(t, col, &k->leaves[l].old, err);
    }
    if (!rc && k->mode == IG_KEYED_UPDATE) {
        k->old = calloc(k->nleaves, sizeof *k->old);
        if (!k->old) rc = ig_err(err, -ENOMEM, "out of memory");
    }
    return rc;
}

