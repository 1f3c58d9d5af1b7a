/* Record reassembly's measuring (format/model/assemble.c): the JSON length a
 * nested column's rows would render to, counted without rendering them, must
 * equal the rendered length for every shape the counting shortcuts take (one
 * list of numbers: NULL lists, empty lists, NULL elements; a struct of
 * optional fields that holds no NULL, or some) and for the rest. Also the
 * bulk way of adding nested rows (ig_values_push_level_rows) against the
 * entry-by-entry one. */
#include "check.h"

#include "format/model/assemble.h"
#include "format/model/render.h"
#include "format/model/schema.h"
#include "format/model/types.h"
#include "format/model/values.h"
#include "util/buf.h"
#include "util/error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* One node: a list<int64?>? column (max_def 3). */
static void list_tree(struct ig_tree *t)
{
    REQUIRE(ig_tree_init(t, 1) == 0);
    t->nodes[0] = (struct ig_tree_node){.type = IG_T_INT64, .lists = 1, .null_mask = 3, .max_def = 3,
                                        .parent = UINT32_MAX, .field = "x", .field_len = 1};
    t->leaf_global[0] = 0;
    t->n = 1;
    ig_tree_finish(t);
}

/* rows of list<int64?>?: NULL lists, empty lists and NULL elements in the
 * proportions given (percent) */
static void list_rows(uint64_t *s, struct ig_values *v, size_t rows, unsigned null_pct, unsigned empty_pct,
                      unsigned null_elem_pct)
{
    for (size_t r = 0; r < rows; r++) {
        unsigned pick = (unsigned)(test_rand(s) % 100);
        if (pick < null_pct) {
            ig_values_push_entry(v, 0, 0);
        } else if (pick < null_pct + empty_pct) {
            ig_values_push_entry(v, 0, 1);
        } else {
            size_t n = 1 + (size_t)(test_rand(s) % 9);
            for (size_t k = 0; k < n; k++) {
                if ((unsigned)(test_rand(s) % 100) < null_elem_pct) {
                    ig_values_push_entry(v, k ? 1 : 0, 2);
                    continue;
                }
                ig_values_push_entry(v, k ? 1 : 0, 3);
                uint64_t m = test_rand_wide(s);
                int64_t x = (int64_t)(test_rand(s) % 2 ? 0 - m : m);
                ig_values_push_lane(v, (uint64_t)x);
            }
        }
        ig_values_end_row(v);
    }
}

/* measured (no output) == rendered, and with the values' lengths given */
static void check_measure(const struct ig_tree *t, struct ig_values *const *leaves, size_t rows, bool known)
{
    struct ig_error err = {0};
    struct ig_buf out = IG_BUF_INIT;
    uint64_t rendered = 0, measured = 0;
    CHECK(ig_assemble_lines(t, leaves, rows, NULL, &out, &rendered, &err) == 0);
    CHECK_EQ_INT(rendered, out.len);
    CHECK(ig_assemble_lines(t, leaves, rows, NULL, NULL, &measured, &err) == 0);
    CHECK_EQ_INT(measured, rendered);
    if (known) {
        uint64_t values = 0, with_known = 0;
        for (uint32_t l = 0; l < t->nleaves; l++) {
            uint64_t run = 0;
            CHECK(ig_render_json_len_run(leaves[l], 0, leaves[l]->n, &run));
            values += run;
        }
        CHECK(ig_assemble_measure_known(t, leaves, rows, values, &with_known, &err) == 0);
        CHECK_EQ_INT(with_known, rendered);
    }
    ig_buf_free(&out);
}

static void test_measure_one_list(void)
{
    uint64_t s = check_seed;
    static const unsigned mixes[][3] = {{0, 0, 0}, {5, 5, 0}, {5, 5, 10}, {50, 50, 0}, {0, 0, 100}, {30, 0, 30}};
    for (size_t m = 0; m < sizeof mixes / sizeof mixes[0]; m++) {
        struct ig_tree t;
        list_tree(&t);
        struct ig_values v;
        ig_values_init(&v, IG_T_INT64);
        ig_values_set_levels(&v, 1);
        size_t rows = 1 + (size_t)(test_rand(&s) % 3000);
        list_rows(&s, &v, rows, mixes[m][0], mixes[m][1], mixes[m][2]);
        struct ig_values *vp = &v;
        check_measure(&t, &vp, rows, true);
        /* a slice of rows from the middle, as the writer measures a page */
        if (rows > 10) {
            struct ig_values mid = v;
            mid.rows = rows / 2;
            mid.row_ent = v.row_ent + rows / 4;
            mid.row_val = v.row_val + rows / 4;
            struct ig_values *mp = &mid;
            check_measure(&t, &mp, rows / 2, false);
        }
        ig_values_free(&v);
        ig_tree_free(&t);
    }
}

/* struct<a:int64?, b:bool?>? whose rows are NULL (the struct or a field) at
 * the rate given: 0 makes every row the same shape */
static void test_measure_struct(void)
{
    uint64_t s = check_seed + 1;
    for (unsigned null_pct = 0; null_pct <= 20; null_pct += 10) {
        struct ig_tree t;
        REQUIRE(ig_tree_init(&t, 3) == 0);
        t.nodes[0] = (struct ig_tree_node){.type = IG_T_STRUCT, .null_mask = 1, .max_def = 1, .parent = UINT32_MAX,
                                           .field = "m", .field_len = 1};
        t.nodes[1] = (struct ig_tree_node){.type = IG_T_INT64, .null_mask = 1, .max_def = 2, .parent = 0,
                                           .field = "a", .field_len = 1};
        t.nodes[2] = (struct ig_tree_node){.type = IG_T_BOOL, .null_mask = 1, .max_def = 2, .parent = 0,
                                           .field = "b", .field_len = 1};
        t.leaf_global[0] = 0;
        t.leaf_global[1] = 1;
        t.n = 3;
        ig_tree_finish(&t);
        struct ig_values a, b;
        ig_values_init(&a, IG_T_INT64);
        ig_values_init(&b, IG_T_BOOL);
        ig_values_set_levels(&a, 1);
        ig_values_set_levels(&b, 1);
        size_t rows = 1 + (size_t)(test_rand(&s) % 2000);
        for (size_t r = 0; r < rows; r++) {
            bool null_struct = (unsigned)(test_rand(&s) % 100) < null_pct / 2;
            struct ig_values *leaf[2] = {&a, &b};
            for (int l = 0; l < 2; l++) {
                bool null_field = (unsigned)(test_rand(&s) % 100) < null_pct;
                uint8_t d = null_struct ? 0 : null_field ? 1 : 2;
                ig_values_push_entry(leaf[l], 0, d);
                if (d == 2)
                    ig_values_push_lane(leaf[l], l ? test_rand(&s) % 2 : test_rand_wide(&s));
                ig_values_end_row(leaf[l]);
            }
        }
        struct ig_values *vp[2] = {&a, &b};
        check_measure(&t, vp, rows, true);
        ig_values_free(&a);
        ig_values_free(&b);
        ig_tree_free(&t);
    }
}

/* the same rows through ig_values_push_level_rows (then their values in one
 * run) as entry by entry: equal levels, row starts and values */
static void test_level_rows_in_bulk(void)
{
    uint64_t s = check_seed + 2;
    for (int round = 0; round < 20; round++) {
        struct ig_values one;
        ig_values_init(&one, IG_T_INT64);
        ig_values_set_levels(&one, 1);
        size_t rows = (size_t)(test_rand(&s) % 1500);
        list_rows(&s, &one, rows, 10, 10, 10);
        /* the same in bulk, cut into a few calls at row starts */
        struct ig_values bulk;
        ig_values_init(&bulk, IG_T_INT64);
        ig_values_set_levels(&bulk, 1);
        size_t r = 0;
        while (r < rows) {
            size_t n = 1 + (size_t)(test_rand(&s) % 700);
            if (n > rows - r) n = rows - r;
            size_t e0 = one.row_ent[r], e1 = one.row_ent[r + n];
            size_t v0 = one.row_val[r], v1 = one.row_val[r + n];
            CHECK(ig_values_push_level_rows(&bulk, one.reps + e0, one.defs + e0, e1 - e0, 3) == 0);
            CHECK(ig_values_push_lanes(&bulk, one.lanes + v0, v1 - v0) == 0);
            r += n;
        }
        CHECK_EQ_INT(bulk.rows, one.rows);
        CHECK_EQ_INT(bulk.nent, one.nent);
        CHECK_EQ_INT(bulk.n, one.n);
        REQUIRE(bulk.rows == one.rows && bulk.nent == one.nent && bulk.n == one.n);
        CHECK(!rows || memcmp(bulk.row_ent, one.row_ent, (rows + 1) * sizeof *one.row_ent) == 0);
        CHECK(!rows || memcmp(bulk.row_val, one.row_val, (rows + 1) * sizeof *one.row_val) == 0);
        CHECK(!one.nent || memcmp(bulk.reps, one.reps, one.nent) == 0);
        CHECK(!one.nent || memcmp(bulk.defs, one.defs, one.nent) == 0);
        CHECK(!one.n || memcmp(bulk.lanes, one.lanes, one.n * sizeof *one.lanes) == 0);
        ig_values_free(&one);
        ig_values_free(&bulk);
    }
    /* levels that begin inside a row are refused */
    struct ig_values v;
    ig_values_init(&v, IG_T_INT64);
    ig_values_set_levels(&v, 1);
    static const uint8_t reps[] = {1, 0}, defs[] = {3, 3};
    CHECK(ig_values_push_level_rows(&v, reps, defs, 2, 3) == -EINVAL);
    CHECK_EQ_INT(v.rows, 0);
    ig_values_free(&v);
}

/* n random lowercase strings of 0-29 bytes (every `empty`-th one empty, 0:
 * none forced) pushed onto v */
static void push_random_strings(struct ig_values *v, int n, int empty, uint64_t *s)
{
    for (int i = 0; i < n; i++) {
        char buf[40];
        int len = empty && i % empty == 0 ? 0 : (int)(test_rand(s) % 30);
        for (int k = 0; k < len; k++)
            buf[k] = (char)('a' + test_rand(s) % 26);
        ig_values_push_bytes(v, buf, (size_t)len);
    }
}

/* a and b hold the same strings: count, offsets and bytes */
static void check_same_strings(const struct ig_values *a, const struct ig_values *b)
{
    CHECK_EQ_INT(a->n, b->n);
    CHECK(a->n == b->n && memcmp(a->offs, b->offs, (b->n + 1) * sizeof *b->offs) == 0);
    CHECK(a->data.len == b->data.len && memcmp(a->data.data, b->data.data, b->data.len) == 0);
}

/* strings in one run: the same offsets and bytes as one by one */
static void test_bytes_run(void)
{
    uint64_t s = check_seed + 3;
    struct ig_values src, one, run;
    ig_values_init(&src, IG_T_STRING);
    ig_values_init(&one, IG_T_STRING);
    ig_values_init(&run, IG_T_STRING);
    push_random_strings(&src, 500, 0, &s);
    ig_values_push_bytes(&run, "x", 1); /* something before: offsets shift */
    ig_values_push_bytes(&one, "x", 1);
    CHECK(ig_values_push_bytes_run(&run, src.offs + 100, src.data.data, 300) == 0);
    for (size_t i = 100; i < 400; i++) {
        size_t len;
        const uint8_t *p = ig_values_bytes(&src, i, &len);
        ig_values_push_bytes(&one, p, len);
    }
    check_same_strings(&run, &one);
    ig_values_free(&src);
    ig_values_free(&one);
    ig_values_free(&run);
}

/* Dictionary-coded strings pushed by code in one pass equal the same strings
 * pushed one by one: after values already there, with a NULL among those (the
 * validity bitmap kept), empty entries included. */
static void test_bytes_coded(void)
{
    uint64_t s = check_seed + 5;
    struct ig_values dict, one, coded;
    ig_values_init(&dict, IG_T_STRING);
    ig_values_init(&one, IG_T_STRING);
    ig_values_init(&coded, IG_T_STRING);
    push_random_strings(&dict, 50, 7, &s);
    uint32_t codes[3000];
    for (size_t i = 0; i < 3000; i++)
        codes[i] = (uint32_t)(test_rand(&s) % 50);
    struct ig_values *both[2] = {&one, &coded};
    for (int b = 0; b < 2; b++) {
        ig_values_push_bytes(both[b], "x", 1);
        ig_values_push_null(both[b]);
    }
    CHECK(ig_values_push_bytes_coded(&coded, &dict, codes, 3000) == 0);
    for (size_t i = 0; i < 3000; i++) {
        size_t len;
        const uint8_t *p = ig_values_bytes(&dict, codes[i], &len);
        ig_values_push_bytes(&one, p, len);
    }
    check_same_strings(&coded, &one);
    size_t nulls = 0;
    for (size_t i = 0; i < coded.n; i++)
        nulls += ig_values_is_null(&coded, i) != ig_values_is_null(&one, i);
    CHECK(nulls == 0 && ig_values_is_null(&coded, 1) && !ig_values_is_null(&coded, 2));
    ig_values_free(&dict);
    ig_values_free(&one);
    ig_values_free(&coded);
}

/* A random type, depth-limited: scalars (numbers, bools, strings with
 * escapes and broken UTF-8, binary), lists, structs, any level nullable. */
static void random_type(uint64_t *s, unsigned depth, struct ig_buf *out)
{
    unsigned pick = (unsigned)(test_rand(s) % (depth ? 7 : 4));
    static const char *const scalars[] = {"int64", "string", "bool", "binary"};
    if (pick < 4) {
        ig_buf_printf(out, "%s", scalars[pick]);
    } else if (pick < 6) {
        ig_buf_printf(out, "list<");
        random_type(s, depth - 1, out);
        ig_buf_printf(out, ">");
    } else {
        unsigned fields = 1 + (unsigned)(test_rand(s) % 3);
        ig_buf_printf(out, "struct<");
        for (unsigned f = 0; f < fields; f++) {
            /* the second field's name needs escaping in JSON */
            ig_buf_printf(out, "%s", f == 0 ? "a:" : f == 1 ? ", \"b\\q\":" : ", c:");
            random_type(s, depth - 1, out);
        }
        ig_buf_printf(out, ">");
    }
    if (test_rand(s) % 2) ig_buf_printf(out, "?");
}

/* Rows of node n (at list level j) of schema sch into its leaves, as
 * Dremel stripes them: NULL where it may be and the dice say, empty lists,
 * lists of 1-3 items, strings with quotes, controls and broken UTF-8. */
static void random_node(uint64_t *s, const struct ig_schema *sch, uint32_t n, unsigned j, uint8_t rep, uint8_t def,
                        uint8_t depth, struct ig_values *leaves)
{
    const struct ig_column_def *c = &sch->cols[n];
    uint32_t end = n + 1;
    while (end < sch->n && sch->cols[end].parent != IG_SCHEMA_NONE && sch->cols[end].parent >= n) end++;
    if ((c->null_mask >> j) & 1) {
        if (test_rand(s) % 5 == 0) {
            for (uint32_t k = n; k < end; k++)
                if (sch->cols[k].leaf != IG_SCHEMA_NONE) ig_values_push_entry(&leaves[sch->cols[k].leaf], rep, def);
            return;
        }
        def++;
    }
    if (j < c->lists) {
        unsigned items = (unsigned)(test_rand(s) % 4);
        if (!items) {
            for (uint32_t k = n; k < end; k++)
                if (sch->cols[k].leaf != IG_SCHEMA_NONE) ig_values_push_entry(&leaves[sch->cols[k].leaf], rep, def);
            return;
        }
        for (unsigned i = 0; i < items; i++)
            random_node(s, sch, n, j + 1, i ? (uint8_t)(depth + 1) : rep, (uint8_t)(def + 1), (uint8_t)(depth + 1),
                        leaves);
        return;
    }
    if (c->type == IG_T_STRUCT) {
        for (uint32_t k = n + 1; k < end; k++)
            if (sch->cols[k].parent == n) random_node(s, sch, k, 0, rep, def, depth, leaves);
        return;
    }
    struct ig_values *v = &leaves[c->leaf];
    ig_values_push_entry(v, rep, def);
    if (c->type == IG_T_STRING || c->type == IG_T_BINARY) {
        static const char *const texts[] = {"", "plain", "q\"uo\\te", "tab\there\nnl", "\x01\x1f", "caf\xc3\xa9",
                                            "bad\xff\xfe", "\xe2\x82"};
        const char *t = texts[test_rand(s) % 8];
        ig_values_push_bytes(v, (const uint8_t *)t, strlen(t));
    } else if (c->type == IG_T_BOOL) {
        ig_values_push_lane(v, test_rand(s) % 2);
    } else {
        uint64_t m = test_rand_wide(s);
        ig_values_push_lane(v, test_rand(s) % 2 ? 0 - m : m);
    }
}

/* Any shape: measured == rendered for the whole column and for each leaf's
 * projection (the path down to it), over all rows and a slice of them. */
static void test_measure_any_tree(void)
{
    uint64_t s = check_seed + 2;
    for (int round = 0; round < 300; round++) {
        struct ig_buf type = IG_BUF_INIT;
        random_type(&s, 1 + (unsigned)(test_rand(&s) % 4), &type);
        struct ig_schema sch = {0};
        struct ig_error err = {0};
        REQUIRE(ig_schema_add_typed(&sch, "x", 1, (const char *)type.data, type.len, &err) == 0);
        REQUIRE(ig_schema_finish(&sch, &err) == 0);
        struct ig_values *leaves = calloc(sch.nleaves, sizeof *leaves);
        REQUIRE(leaves);
        for (uint32_t l = 0; l < sch.nleaves; l++) {
            ig_values_init(&leaves[l], sch.cols[sch.leaves[l]].type);
            ig_values_set_levels(&leaves[l], 1);
        }
        size_t rows = 1 + (size_t)(test_rand(&s) % 300);
        for (size_t r = 0; r < rows; r++) {
            random_node(&s, &sch, 0, 0, 0, 0, 0, leaves);
            for (uint32_t l = 0; l < sch.nleaves; l++) ig_values_end_row(&leaves[l]);
        }
        for (uint32_t only = UINT32_MAX;; only = only == UINT32_MAX ? 0 : only + 1) {
            while (only != UINT32_MAX && only < sch.n && sch.cols[only].leaf == IG_SCHEMA_NONE) only++;
            if (only != UINT32_MAX && only >= sch.n) break;
            struct ig_tree t;
            REQUIRE(ig_tree_from_schema(&sch, 0, only, &t, &err) == 0);
            struct ig_values **vp = calloc(t.nleaves, sizeof *vp), **mid = calloc(t.nleaves, sizeof *mid);
            struct ig_values *slices = calloc(t.nleaves, sizeof *slices);
            REQUIRE(vp && mid && slices);
            for (uint32_t l = 0; l < t.nleaves; l++) {
                vp[l] = &leaves[t.leaf_global[l]];
                slices[l] = *vp[l]; /* rows [rows / 4, rows / 4 + rows / 2), as the writer measures a page */
                slices[l].rows = rows / 2;
                slices[l].row_ent += rows / 4;
                slices[l].row_val += rows / 4;
                mid[l] = &slices[l];
            }
            check_measure(&t, vp, rows, false);
            if (rows / 2) check_measure(&t, mid, rows / 2, false);
            free(vp);
            free(mid);
            free(slices);
            ig_tree_free(&t);
            if (only == UINT32_MAX && sch.nleaves == 1) break;
        }
        for (uint32_t l = 0; l < sch.nleaves; l++) ig_values_free(&leaves[l]);
        free(leaves);
        ig_schema_free(&sch);
        ig_buf_free(&type);
    }
}

/* A string's JSON length counted equals the rendered one: escapes, controls,
 * UTF-8 whole and broken. */
static void test_json_string_len(void)
{
    uint64_t s = check_seed + 3;
    static const uint8_t alphabet[] = {'a', ' ', '"', '\\', '\n', '\t', '\r', 0x01, 0x1f, 0x7f, 0xc3, 0xa9,
                                       0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80, 0xff, 0x80};
    struct ig_buf out = IG_BUF_INIT;
    for (int round = 0; round < 20000; round++) {
        uint8_t b[64];
        size_t n = (size_t)(test_rand(&s) % sizeof b);
        for (size_t i = 0; i < n; i++)
            b[i] = test_rand(&s) % 4 ? alphabet[test_rand(&s) % sizeof alphabet] : (uint8_t)test_rand(&s);
        ig_buf_reset(&out);
        CHECK(ig_render_json_string(&out, b, n) == 0);
        CHECK_EQ_INT(ig_render_json_string_len(b, n), out.len);
    }
    ig_buf_free(&out);
}

TEST_MAIN({"assemble_measure_any_tree", test_measure_any_tree}, {"json_string_len", test_json_string_len},
          {"assemble_measure_one_list", test_measure_one_list},
          {"assemble_measure_struct", test_measure_struct},
          {"values_level_rows_in_bulk", test_level_rows_in_bulk},
          {"values_bytes_run", test_bytes_run},
          {"values_bytes_coded", test_bytes_coded})
