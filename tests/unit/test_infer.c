/* Types inferred from several inputs at once (infer.h) and one schema from
 * several declared ones (schema_union.h): random shards give what one input
 * holding all their rows gives. */
#include <errno.h>
#include "check.h"
#include "format/model/schema.h"
#include "import/csv.h"
#include "import/infer.h"
#include "import/lines.h"
#include "import/schema_union.h"
#include "util/buf.h"
#include "util/error.h"

#include <sys/mman.h>
#include <unistd.h>

/* A file holding text (an unnamed one: gone when closed). */
static int file_of(const char *text, size_t len)
{
    int fd = memfd_create("infer", 0);
    if (fd < 0 || write(fd, text, len) != (ssize_t)len || lseek(fd, 0, SEEK_SET) != 0) return -1;
    return fd;
}

static void schema_text(const struct ig_schema *s, struct ig_buf *out)
{
    ig_buf_reset(out);
    CHECK(ig_schema_format(s, out) == 0);
    ig_buf_append_byte(out, 0);
}

/* Shards [from, to) into g. */
static int read_shards(struct ig_infer *g, bool jsonl, struct ig_buf *shards, size_t from, size_t to,
                       uint32_t sample, struct ig_error *err)
{
    int rc = 0;
    for (size_t k = from; k < to && !rc; k++) {
        int fd = file_of((const char *)shards[k].data, shards[k].len);
        char name[32];
        snprintf(name, sizeof name, "shard-%zu", k);
        if (jsonl) {
            struct ig_lines_reader *lr;
            rc = ig_lines_open(&lr, fd, name);
            if (!rc) rc = ig_infer_jsonl_more(g, lr, name, sample, err);
            if (lr) ig_lines_close(lr);
        } else {
            struct ig_csv_reader *cr;
            rc = ig_csv_open(&cr, fd, name, ',');
            if (!rc) rc = ig_infer_csv_more(g, cr, name, sample, false, err);
            if (cr) ig_csv_close(cr);
        }
        close(fd);
    }
    return rc;
}

/* Infer from the shards' texts (JSON Lines, or CSV) as one import of them;
 * split > 0: the shards before it and those after read apart, then merged
 * (as two threads read them). */
static int infer_split(bool jsonl, struct ig_buf *shards, size_t n, size_t split, uint32_t sample,
                       struct ig_schema *out, struct ig_error *err)
{
    struct ig_infer *g = ig_infer_new(NULL), *h = split ? ig_infer_new(NULL) : NULL;
    int rc = g && (h || !split) ? 0 : -ENOMEM;
    if (!rc) rc = read_shards(g, jsonl, shards, 0, split ? split : n, sample, err);
    if (!rc && split) rc = read_shards(h, jsonl, shards, split, n, sample, err);
    if (!rc && split) rc = ig_infer_merge(g, h, err);
    ig_infer_free(h);
    if (rc) {
        ig_infer_free(g);
        return rc;
    }
    return ig_infer_end(g, jsonl, out, NULL, err);
}

static int infer_shards(bool jsonl, struct ig_buf *shards, size_t n, uint32_t sample, struct ig_schema *out,
                        struct ig_error *err)
{
    return infer_split(jsonl, shards, n, 0, sample, out, err);
}

/* A field's value of kind k (0 int, 1 float, 2 string, 3 bool, 4 list of
 * 0-3 ints, 5 a date, 6 an embedding of 3 float32 values, 2 one time in
 * eight: a vector until then), or null one time in five. */
static void json_value(struct ig_buf *b, int kind, uint64_t *seed)
{
    uint64_t r = test_rand(seed);
    if (r % 5 == 0) {
        ig_buf_printf(b, "null");
        return;
    }
    switch (kind) {
    case 0: ig_buf_printf(b, "%d", (int)(r % 1000) - 500); break;
    case 1: ig_buf_printf(b, r % 2 ? "%d.5" : "%d", (int)(r % 1000)); break; /* integers among fractions */
    case 2: ig_buf_printf(b, "\"s%u\"", (unsigned)(r % 97)); break;
    case 3: ig_buf_printf(b, r % 2 ? "true" : "false"); break;
    case 4:
        ig_buf_printf(b, "[");
        for (unsigned i = 0, n = (unsigned)(r >> 8) % 4; i < n; i++)
            ig_buf_printf(b, "%s%u", i ? ", " : "", (unsigned)((r >> (12 + 4 * i)) % 9));
        ig_buf_printf(b, "]");
        break;
    case 6:
        if ((r >> 8) % 8 == 0)
            ig_buf_printf(b, "[%u.5, 1.25]", (unsigned)(r % 9));
        else
            ig_buf_printf(b, "[%u.5, 1.25, 0.75]", (unsigned)(r % 9));
        break;
    default: ig_buf_printf(b, "\"2024-0%u-1%u\"", (unsigned)(r % 9) + 1, (unsigned)(r % 9)); break;
    }
}

/* JSON Lines: fields that come and go among shards type as in one file of
 * every row (the fields' order: first met, which the shards keep). */
static void test_jsonl_shards_as_one_input(void)
{
    uint64_t seed = check_seed ? check_seed : 1;
    struct ig_buf whole = IG_BUF_INIT, a = IG_BUF_INIT, b = IG_BUF_INIT;
    for (int round = 0; round < 200; round++) {
        size_t nshards = 1 + test_rand(&seed) % 5, nfields = 1 + test_rand(&seed) % 8;
        struct ig_buf shards[5];
        int kind[8];
        for (size_t f = 0; f < nfields; f++)
            kind[f] = (int)(test_rand(&seed) % 7);
        ig_buf_reset(&whole);
        for (size_t k = 0; k < nshards; k++) {
            shards[k] = (struct ig_buf)IG_BUF_INIT;
            size_t rows = test_rand(&seed) % 6; /* an empty shard at times */
            for (size_t i = 0; i < rows; i++) {
                ig_buf_printf(&shards[k], "{");
                bool first = true;
                for (size_t f = 0; f < nfields; f++) {
                    if (test_rand(&seed) % 3 == 0) continue; /* a field this row lacks */
                    ig_buf_printf(&shards[k], "%s\"f%zu\": ", first ? "" : ", ", f);
                    json_value(&shards[k], kind[f], &seed);
                    first = false;
                }
                ig_buf_printf(&shards[k], "}\n");
            }
            ig_buf_append(&whole, shards[k].data, shards[k].len);
        }
        struct ig_schema s1 = {0}, s2 = {0};
        struct ig_error e1 = {0}, e2 = {0};
        int r1 = infer_shards(true, shards, nshards, 1000, &s1, &e1);
        int r2 = infer_shards(true, &whole, 1, 1000, &s2, &e2);
        CHECK_EQ_INT(r1 != 0, r2 != 0); /* no record anywhere: both refuse */
        if (!r1 && !r2) {
            schema_text(&s1, &a);
            schema_text(&s2, &b);
            if (strcmp((char *)a.data, (char *)b.data)) {
                fprintf(stderr, "  shards:\n%s  one input:\n%s", (char *)a.data, (char *)b.data);
                CHECK(0);
            }
        }
        /* read in two halves, then merged: the same */
        if (nshards > 1) {
            struct ig_schema s3 = {0};
            struct ig_error e3 = {0};
            size_t split = 1 + test_rand(&seed) % (nshards - 1);
            int r3 = infer_split(true, shards, nshards, split, 1000, &s3, &e3);
            CHECK_EQ_INT(r3 != 0, r1 != 0);
            if (!r1 && !r3) {
                schema_text(&s3, &b);
                if (strcmp((char *)a.data, (char *)b.data)) {
                    fprintf(stderr, "  in turn:\n%s  halves at %zu:\n%s", (char *)a.data, split, (char *)b.data);
                    CHECK(0);
                }
            }
            ig_schema_free(&s3);
        }
        ig_schema_free(&s1);
        ig_schema_free(&s2);
        for (size_t k = 0; k < nshards; k++)
            ig_buf_free(&shards[k]);
        if (check_failures) break;
    }
    ig_buf_free(&whole);
    ig_buf_free(&a);
    ig_buf_free(&b);
}

/* CSV: each shard's header names some columns in its own order; a column's
 * type is what one file of its values alone would infer. */
static void test_csv_shards_by_header(void)
{
    uint64_t seed = check_seed ? check_seed + 7 : 7;
    static const char *const values[][3] = {{"1", "-20", "300"},   {"1.5", "2", "1e3"},   {"x", "2", "y z"},
                                            {"true", "f", "0"},    {"2024-01-02", "", "2023-12-31"},
                                            {"", "", ""}};
    struct ig_buf a = IG_BUF_INIT, b = IG_BUF_INIT, one = IG_BUF_INIT;
    for (int round = 0; round < 200; round++) {
        size_t nshards = 1 + test_rand(&seed) % 4, ncols = 1 + test_rand(&seed) % 6;
        int kind[6];
        struct ig_buf shards[4], column[6];
        for (size_t c = 0; c < ncols; c++) {
            kind[c] = (int)(test_rand(&seed) % 6);
            column[c] = (struct ig_buf)IG_BUF_INIT;
            ig_buf_printf(&column[c], "c%zu\n", c);
        }
        char order[64] = "";
        size_t norder = 0;
        bool met[6] = {0};
        for (size_t k = 0; k < nshards; k++) {
            shards[k] = (struct ig_buf)IG_BUF_INIT;
            int cols[6], n = 0;
            for (size_t c = 0; c < ncols; c++)
                if (test_rand(&seed) % 4) cols[n++] = (int)c;
            if (!n) cols[n++] = 0;
            for (int i = n - 1; i > 0; i--) { /* a header of its own order */
                int j = (int)(test_rand(&seed) % (uint64_t)(i + 1)), t = cols[i];
                cols[i] = cols[j];
                cols[j] = t;
            }
            for (int i = 0; i < n; i++) {
                ig_buf_printf(&shards[k], "%sc%d", i ? "," : "", cols[i]);
                if (!met[cols[i]]) {
                    met[cols[i]] = true;
                    norder += (size_t)snprintf(order + norder, sizeof order - norder, "c%d ", cols[i]);
                }
            }
            ig_buf_printf(&shards[k], "\n");
            size_t rows = test_rand(&seed) % 4;
            for (size_t r = 0; r < rows; r++) {
                for (int i = 0; i < n; i++) {
                    const char *v = values[kind[cols[i]]][test_rand(&seed) % 3];
                    ig_buf_printf(&shards[k], "%s%s", i ? "," : "", v);
                    ig_buf_printf(&column[cols[i]], "%s\n", v);
                }
                ig_buf_printf(&shards[k], "\n");
            }
        }
        struct ig_schema s = {0}, halves = {0};
        struct ig_error e = {0};
        CHECK(infer_shards(false, shards, nshards, 1000, &s, &e) == 0);
        if (nshards > 1) { /* read in two halves, then merged: the same */
            CHECK(infer_split(false, shards, nshards, 1 + test_rand(&seed) % (nshards - 1), 1000, &halves, &e) == 0);
            schema_text(&s, &a);
            schema_text(&halves, &b);
            CHECK(!strcmp((char *)a.data, (char *)b.data));
            ig_schema_free(&halves);
        }
        /* the columns in the order their names were first met */
        ig_buf_reset(&a);
        for (uint32_t t = 0; t < s.ntops; t++)
            ig_buf_printf(&a, "%s ", s.cols[s.tops[t]].name);
        ig_buf_append_byte(&a, 0);
        CHECK(!strcmp((char *)a.data, order));
        for (uint32_t t = 0; t < s.ntops && !check_failures; t++) {
            const struct ig_column_def *cd = &s.cols[s.tops[t]];
            int c = atoi(cd->name + 1);
            struct ig_schema alone = {0};
            CHECK(infer_shards(false, &column[c], 1, 1000, &alone, &e) == 0);
            CHECK(alone.n == 1 && alone.cols[0].type == cd->type && alone.cols[0].lt.kind == cd->lt.kind);
            ig_schema_free(&alone);
        }
        ig_schema_free(&s);
        for (size_t k = 0; k < nshards; k++)
            ig_buf_free(&shards[k]);
        for (size_t c = 0; c < ncols; c++)
            ig_buf_free(&column[c]);
        if (check_failures) break;
    }
    ig_buf_free(&a);
    ig_buf_free(&b);
    ig_buf_free(&one);
}

/* A header naming a column twice is refused; a field holding two kinds in two
 * shards names both. */
static void test_refusals_name_their_inputs(void)
{
    struct ig_buf sh[2] = {IG_BUF_INIT, IG_BUF_INIT};
    struct ig_schema s = {0};
    struct ig_error e = {0};
    ig_buf_printf(&sh[0], "a,b\n1,2\n");
    ig_buf_printf(&sh[1], "b,a,b\n1,2,3\n");
    CHECK(infer_shards(false, sh, 2, 100, &s, &e) == -EINVAL);
    CHECK(strstr(e.msg, "shard-1:1: header field 3: duplicate column name 'b'"));
    ig_buf_reset(&sh[0]);
    ig_buf_reset(&sh[1]);
    ig_buf_printf(&sh[0], "{\"a\": 1}\n");
    ig_buf_printf(&sh[1], "{\"b\": 1}\n{\"a\": [1]}\n");
    CHECK(infer_shards(true, sh, 2, 100, &s, &e) == -EINVAL);
    CHECK(strstr(e.msg, "field 'a' mixes JSON types: a number in shard-0, an array in shard-1; pass --schema"));
    memset(&e, 0, sizeof e);
    CHECK(infer_split(true, sh, 2, 1, 100, &s, &e) == -EINVAL); /* merged halves name the same shards */
    CHECK(strstr(e.msg, "field 'a' mixes JSON types: a number in shard-0, an array in shard-1; pass --schema"));
    /* the sample is per shard: a kind past it is not seen */
    CHECK(infer_shards(true, sh, 2, 1, &s, &e) == 0);
    ig_schema_free(&s);
    ig_buf_free(&sh[0]);
    ig_buf_free(&sh[1]);
}

static void parse(struct ig_schema *s, const char *text)
{
    struct ig_error e = {0};
    *s = (struct ig_schema){0};
    CHECK(ig_schema_parse(s, text, strlen(text), "s.txt", &e) == 0);
}

/* An input of a union: its schema and the name messages give it. */
struct union_input {
    const struct ig_schema *s;
    const char *name;
};

/* The union of inputs in[0..n), each taken in, is want (schema syntax). */
static void union_gives(const struct union_input *in, size_t n, const char *want)
{
    struct ig_schema_union su;
    struct ig_schema u;
    struct ig_error e = {0};
    struct ig_buf t = IG_BUF_INIT;
    ig_schema_union_init(&su);
    for (size_t k = 0; k < n; k++) CHECK(ig_schema_union_add(&su, in[k].s, in[k].name, &e) == 0);
    CHECK(ig_schema_union_end(&su, &u, &e) == 0);
    schema_text(&u, &t);
    CHECK(!strcmp((char *)t.data, want));
    if (check_failures) fprintf(stderr, "%s", (char *)t.data);
    ig_schema_free(&u);
    ig_schema_union_free(&su);
    ig_buf_free(&t);
}

/* Inputs in[0..n - 1) are taken in and the last is refused, the message
 * holding msg. */
static void union_refuses(const struct union_input *in, size_t n, const char *msg)
{
    struct ig_schema_union su;
    struct ig_error e = {0};
    ig_schema_union_init(&su);
    for (size_t k = 0; k + 1 < n; k++) CHECK(ig_schema_union_add(&su, in[k].s, in[k].name, &e) == 0);
    CHECK(ig_schema_union_add(&su, in[n - 1].s, in[n - 1].name, &e) == -EINVAL);
    CHECK(strstr(e.msg, msg));
    ig_schema_union_free(&su);
}

static void test_schema_union(void)
{
    struct ig_schema a, b, c, d, f, g, h, i, j, k;
    parse(&a, "id int64\nname string?\nv vector<float32, 4>\n");
    parse(&b, "name string\nscore float64\nid int64?\nv vector<float32, 4>\n");
    parse(&c, "id int64\nl list<int32>\nv vector<float32, 4>\n");
    parse(&d, "score string\n");
    parse(&f, "id int32\nscore float32\nt timestamp(ms)?\nl list<int32>\n");
    parse(&g, "id uint32?\nscore int16\nt timestamp(ns)\nl list<int32>\n");
    parse(&h, "l list<int64>\nst struct<a:int32, b:list<float32?>>?\n");
    parse(&i, "l list<int16?>\nst struct<a:uint32, b:list<float64>>\n");
    parse(&j, "st struct<a:int32, c:list<float32>>\n");
    parse(&k, "st struct<c:list<string>>\n");
    const struct union_input A = {&a, "a.parquet"}, B = {&b, "b.parquet"}, C = {&c, "c.parquet"},
                             D = {&d, "d.parquet"}, F = {&f, "f.parquet"}, G = {&g, "g.parquet"},
                             H = {&h, "h.parquet"}, I = {&i, "i.parquet"}, J = {&j, "j.parquet"},
                             K = {&k, "k.parquet"};
    /* in every input: the first's type; in some: nullable; a vector never */
    union_gives((struct union_input[]){A, B, C}, 3,
                "id int64\nname string?\nv vector<float32, 4>\nscore float64?\nl list<int32>?\n");
    /* two types of one column that no type holds both of: both inputs named */
    union_refuses((struct union_input[]){B, D}, 2,
                  "d.parquet: column 'score' holds string, where b.parquet has float64: no type holds");
    /* numbers of two types: the one that holds both (widen.h), nullability
     * the first's, a column some input lacks nullable as before */
    union_gives((struct union_input[]){F, G, A}, 3,
                "id int64\nscore float32?\nt timestamp(ns)?\nl list<int32>?\nname string?\nv vector<float32, 4>\n");
    /* a widened type refused later names the input it came from */
    union_refuses((struct union_input[]){F, G, D}, 3,
                  "d.parquet: column 'score' holds string, where f.parquet with the inputs after it has float32");
    /* leaves widen inside lists and structs, the shape and nullability the
     * first's; struct fields are united by name; a field of another type is
     * refused */
    union_gives((struct union_input[]){F, H, I}, 3,
                "id int32?\nscore float32?\nt timestamp(ms)?\nl list<int64>\nst struct<a:int64, b:list<float64?>>?\n");
    union_refuses((struct union_input[]){H, J, K}, 3,
                  "k.parquet: column 'st' holds struct<c:list<string>>, where h.parquet with the inputs "
                  "after it has struct<a:int32, b:list<float32?>?, c:list<float32>?>?");
    union_gives((struct union_input[]){H, J}, 2,
                "l list<int64>?\nst struct<a:int32, b:list<float32?>?, c:list<float32>?>?\n");
    struct ig_schema *all[] = {&a, &b, &c, &d, &f, &g, &h, &i, &j, &k};
    for (size_t n = 0; n < sizeof all / sizeof all[0]; n++) ig_schema_free(all[n]);
}

TEST_MAIN(T(test_jsonl_shards_as_one_input), T(test_csv_shards_by_header), T(test_refusals_name_their_inputs),
          T(test_schema_union))
