/* Tests for src/import/stripe.c's rows of an absent column (ig_stripe_absent):
 * a nested column that cannot be NULL gets, in each row, exactly the level
 * entries and values that striping its least value written out as JSON gives
 * (zero numbers and vectors, empty strings and lists, zero bytes of a fixed
 * width, NULL where a field may be NULL); a nullable one gets NULL rows; a
 * blob gets a reference of zeros. A regression that wrote a NULL entry where
 * no level can hold one, or a value short of its width, fails here. */
#include "check.h"

#include <string.h>

#include "blob/blob.h"
#include "format/model/schema.h"
#include "format/model/values.h"
#include "import/convert.h"
#include "import/json.h"
#include "import/stripe.h"
#include "util/buf.h"
#include "util/error.h"

struct leaves {
    struct ig_values *v;
    uint32_t n;
};

static struct ig_values *leaf_at(void *ctx, uint32_t l) { return &((struct leaves *)ctx)->v[l]; }

/* Every leaf's values as the writer starts them (writer_job.c). */
static void leaves_init(struct leaves *ls, const struct ig_schema *s)
{
    ls->n = s->nleaves;
    ls->v = calloc(s->nleaves, sizeof *ls->v);
    REQUIRE(ls->v);
    for (uint32_t l = 0; l < s->nleaves; l++) {
        const struct ig_column_def *cd = &s->cols[s->leaves[l]];
        ig_values_init(&ls->v[l], cd->type);
        ls->v[l].lt = cd->lt;
        if (!ig_column_is_flat(cd) && !ig_column_is_blob_list(cd))
            ig_values_set_levels(&ls->v[l], cd->dimension ? cd->dimension : 1);
    }
}

static void leaves_free(struct leaves *ls)
{
    for (uint32_t l = 0; l < ls->n; l++) ig_values_free(&ls->v[l]);
    free(ls->v);
}

/* a and b hold the same rows, entries and values */
static bool same_leaf(const struct ig_values *a, const struct ig_values *b)
{
    if (a->n != b->n || a->levels != b->levels || a->has_nulls != b->has_nulls) return false;
    if (a->levels) {
        if (a->nent != b->nent || a->rows != b->rows || a->per_value != b->per_value) return false;
        if (a->nent && (memcmp(a->reps, b->reps, a->nent) || memcmp(a->defs, b->defs, a->nent))) return false;
        if (a->rows && (memcmp(a->row_ent, b->row_ent, (a->rows + 1) * sizeof *a->row_ent) ||
                        memcmp(a->row_val, b->row_val, (a->rows + 1) * sizeof *a->row_val)))
            return false;
    }
    if (!a->n) return true; /* another column's leaf */
    if (a->is_bytes)
        return !memcmp(a->offs, b->offs, (a->n + 1) * sizeof *a->offs) && a->data.len == b->data.len &&
               (!a->data.len || !memcmp(a->data.data, b->data.data, a->data.len));
    return !memcmp(a->lanes, b->lanes, a->n * sizeof *a->lanes); /* a vector's: a lane each */
}

/* The rows of column `name` (a top of schema text) absent `rows` times equal
 * `least` (its least value as JSON) striped as many times; 1 if so. */
static bool absent_is(const char *schema, const char *name, const char *least, size_t rows)
{
    struct ig_schema s = {0};
    struct ig_error err = {0};
    if (ig_schema_parse(&s, schema, strlen(schema), "test", &err)) {
        fprintf(stderr, "  schema: %s\n", err.msg);
        return false;
    }
    long top = ig_schema_find(&s, name, strlen(name));
    if (top < 0) return false;
    struct leaves got, want;
    leaves_init(&got, &s);
    leaves_init(&want, &s);
    CHECK(ig_stripe_absent(&s, (uint32_t)top, leaf_at, &got, rows, &err) == 0);

    struct ig_json_doc doc;
    ig_json_doc_init(&doc);
    struct ig_buf line = IG_BUF_INIT, scratch = IG_BUF_INIT;
    ig_buf_printf(&line, "{\"c\":%s}", least);
    int rc = ig_json_parse(&doc, (const char *)line.data, line.len, &err);
    const struct ig_json_node *val = rc ? NULL : ig_json_object_get(&doc, ig_json_root(&doc), "c", 1);
    struct ig_convert_ctx cc = {.scratch = &scratch, .doc = &doc};
    for (size_t r = 0; !rc && r < rows; r++)
        rc = ig_stripe_json(&s, (uint32_t)top, &doc, val, leaf_at, &want, &cc, &err);
    if (rc) fprintf(stderr, "  %s: %s\n", least, err.msg);
    bool same = !rc;
    for (uint32_t l = 0; l < s.nleaves; l++) same = same && same_leaf(&got.v[l], &want.v[l]);
    if (!same) fprintf(stderr, "  column %s: absent rows differ from %s\n", name, least);
    ig_json_doc_free(&doc);
    ig_buf_free(&line);
    ig_buf_free(&scratch);
    leaves_free(&got);
    leaves_free(&want);
    ig_schema_free(&s);
    return same;
}

static const char schema[] =
    "id int64\n"
    "v vector<float32, 3>\n"
    "s struct<u:uuid, w:string, l:list<int64>, d:decimal(30, 2), n:int32?, t:struct<x:float64>, "
    "z:fixed_binary(5), o:struct<q:bool>?>\n"
    "lb list<struct<k:int32>>\n"
    "ll list<list<int64>>\n"
    "sn struct<a:int64>?\n"
    "lv list<vector<float32, 2>>?\n";

static void test_absent_nested_is_least(void)
{
    for (size_t rows = 1; rows <= 3; rows++) {
        CHECK(absent_is(schema, "v", "[0,0,0]", rows));
        CHECK(absent_is(schema, "s",
                        "{\"u\":\"00000000-0000-0000-0000-000000000000\",\"w\":\"\",\"l\":[],\"d\":\"0\","
                        "\"t\":{\"x\":0},\"z\":\"AAAAAAA=\"}",
                        rows));
        CHECK(absent_is(schema, "lb", "[]", rows));
        CHECK(absent_is(schema, "ll", "[]", rows));
        CHECK(absent_is(schema, "sn", "null", rows));
        CHECK(absent_is(schema, "lv", "null", rows));
    }
}

/* A blob in a struct: one entry defined to the leaf, a reference of zeros
 * (offset 0, size 0: an empty object), as many rows as asked. */
static void test_absent_blob_is_empty_object(void)
{
    static const char text[] = "b struct<o:blob, p:int32>\n";
    struct ig_schema s = {0};
    struct ig_error err = {0};
    REQUIRE(ig_schema_parse(&s, text, strlen(text), "test", &err) == 0);
    struct leaves got;
    leaves_init(&got, &s);
    CHECK(ig_stripe_absent(&s, 0, leaf_at, &got, 2, &err) == 0);
    const struct ig_values *o = &got.v[0];
    CHECK_EQ_INT(o->rows, 2);
    CHECK_EQ_INT(o->nent, 2);
    CHECK_EQ_INT(o->n, 2);
    CHECK_EQ_INT(o->data.len, 2 * IG_BLOB_REF_BYTES);
    uint8_t zeros[2 * IG_BLOB_REF_BYTES] = {0};
    CHECK(!memcmp(o->data.data, zeros, sizeof zeros));
    CHECK_EQ_INT(got.v[1].n, 2);
    CHECK_EQ_INT(got.v[1].lanes[0], 0);
    leaves_free(&got);
    ig_schema_free(&s);
}

/* A hidden record (the table's version hides it; its key is never given):
 * ig_stripe_json takes the absent row itself. */
static void test_hidden_record_absent_in_json(void)
{
    struct ig_schema s = {0};
    struct ig_error err = {0};
    REQUIRE(ig_schema_parse(&s, schema, strlen(schema), "test", &err) == 0);
    long top = ig_schema_find(&s, "v", 1);
    REQUIRE(top >= 0);
    struct leaves a, b;
    leaves_init(&a, &s);
    leaves_init(&b, &s);
    CHECK(ig_stripe_json(&s, (uint32_t)top, NULL, NULL, leaf_at, &a, NULL, &err) != 0); /* cannot be null */
    s.cols[top].hidden = true;
    err = (struct ig_error){0};
    CHECK(ig_stripe_json(&s, (uint32_t)top, NULL, NULL, leaf_at, &b, NULL, &err) == 0);
    struct leaves c;
    leaves_init(&c, &s);
    CHECK(ig_stripe_absent(&s, (uint32_t)top, leaf_at, &c, 1, &err) == 0);
    uint32_t l = s.cols[top].leaf;
    CHECK(same_leaf(&b.v[l], &c.v[l]));
    CHECK_EQ_INT(b.v[l].n, 3); /* a lane each */
    leaves_free(&a);
    leaves_free(&b);
    leaves_free(&c);
    ig_schema_free(&s);
}

TEST_MAIN({"stripe_absent_nested_is_least", test_absent_nested_is_least},
          {"stripe_absent_blob_is_empty_object", test_absent_blob_is_empty_object},
          {"stripe_hidden_record_absent_in_json", test_hidden_record_absent_in_json})
