/* Tests for src/import/csv_cut.c and src/import/csv_rows.c: where a CSV is cut
 * between records, and CSV imports on several threads against one thread (the
 * same part byte for byte, the same first error). */
#include "check.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

#include "import/csv_cut.h"
#include "import/import.h"
#include "util/buf.h"
#include "util/error.h"

/* ---- ig_csv_cut ------------------------------------------------------------- */

/* The rule, a byte at a time: the last line feed after an even number of
 * quotes, and the line feeds up to it. */
static size_t cut_reference(const char *p, size_t len, uint64_t *lines)
{
    size_t cut = 0;
    uint64_t seen = 0;
    bool inside = false;
    *lines = 0;
    for (size_t i = 0; i < len; i++) {
        if (p[i] == '"') inside = !inside;
        if (p[i] != '\n') continue;
        seen++;
        if (!inside) {
            cut = i + 1;
            *lines = seen;
        }
    }
    return cut;
}

static void cut_matches_the_rule(void)
{
    uint64_t s = check_seed;
    static const char alphabet[] = "\"\n\r,ab";
    char buf[700];
    for (int t = 0; t < 20000; t++) {
        size_t len = test_rand(&s) % sizeof buf;
        unsigned skew = (unsigned)(test_rand(&s) % 4); /* some texts mostly plain, some mostly quotes */
        for (size_t i = 0; i < len; i++) {
            uint64_t r = test_rand(&s);
            buf[i] = r % 8 < skew + 2 ? alphabet[(r >> 8) % 6] : (char)('c' + (r >> 16) % 20);
        }
        uint64_t want_lines, got_lines;
        size_t want = cut_reference(buf, len, &want_lines);
        size_t got = ig_csv_cut(buf, len, &got_lines);
        CHECK_EQ_INT(got, want);
        CHECK_EQ_INT(got_lines, want_lines);
        if (got != want || got_lines != want_lines) return;
    }
    uint64_t lines;
    CHECK_EQ_INT(ig_csv_cut("", 0, &lines), 0);
    CHECK_EQ_INT(ig_csv_cut("a,\"b\nc\"\n", 8, &lines), 8); /* the quoted line feed counts as a line */
    CHECK_EQ_INT(lines, 2);
    CHECK_EQ_INT(ig_csv_cut("a,\"b\nc\n", 7, &lines), 0); /* still inside the quotes */
}

/* ---- imports on one thread and on several ------------------------------------ */

static char tmp_root[64];

/* A fresh directory for one test's files in tmp_root. */
static bool make_root(void)
{
    snprintf(tmp_root, sizeof tmp_root, "/tmp/ingot-csvrows-XXXXXX");
    return mkdtemp(tmp_root) != NULL;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static void rm_tree(const char *path) { nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS); }

static bool write_file(const char *path, const char *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f) return false;
    bool ok = fwrite(data, 1, n, f) == n;
    return fclose(f) == 0 && ok;
}

/* The whole of a file, or NULL. */
static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    struct ig_buf b = {0};
    char chunk[65536];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
        ig_buf_append(&b, chunk, got);
    fclose(f);
    *n = b.len;
    return b.data ? (char *)b.data : calloc(1, 1);
}

/* Progress reports of the last import: a threaded CSV import reports after
 * every piece, one thread every 65,536 rows and at the end. */
static unsigned progress_calls;

static void count_progress(void *ctx, uint64_t done, uint64_t total, uint64_t rows)
{
    (void)ctx, (void)done, (void)total, (void)rows;
    progress_calls++;
}

/* Import csv (schema file or inferred) with `threads` threads and pieces of
 * `piece` bytes into table dir/NAME; the return code, the error's message in
 * msg. */
static int import_with(const char *csv, const char *schema, unsigned threads, size_t piece, uint32_t group_rows,
                       const char *table, char *msg, size_t msgcap)
{
    struct ig_import_opts o;
    ig_import_opts_default(&o);
    o.schema_path = schema;
    o.w.threads = threads;
    o.w.rows_per_group = group_rows;
    o.w.page_size = 1024; /* several pages a column */
    o.csv_piece = piece;
    o.progress = count_progress;
    progress_calls = 0;
    struct ig_error err = {0};
    struct ig_import_result res;
    rm_tree(table);
    int rc = ig_import(csv, table, &o, &res, &err);
    snprintf(msg, msgcap, "%s", rc ? err.msg : "");
    return rc;
}

/* Both ways, and what must agree: the code, the message, the part's bytes.
 * With `pieces` set, the input must have been converted in several pieces. */
static bool same_both_ways(const char *csv, const char *schema, size_t piece, uint32_t group_rows, bool pieces)
{
    char t1[300], t2[300], m1[1024], m2[1024];
    snprintf(t1, sizeof t1, "%s/one", tmp_root);
    snprintf(t2, sizeof t2, "%s/two", tmp_root);
    int rc1 = import_with(csv, schema, 1, 0, group_rows, t1, m1, sizeof m1);
    int rc2 = import_with(csv, schema, 3, piece, group_rows, t2, m2, sizeof m2);
    if (pieces) CHECK(progress_calls > 2);
    CHECK_EQ_INT(rc2, rc1);
    CHECK_EQ_STR(m2, m1);
    bool ok = rc1 == rc2 && !strcmp(m1, m2);
    if (ok && rc1 == 0) {
        char p1[400], p2[400];
        snprintf(p1, sizeof p1, "%s/part-000000.ingot", t1);
        snprintf(p2, sizeof p2, "%s/part-000000.ingot", t2);
        size_t n1 = 0, n2 = 0;
        char *a = slurp(p1, &n1), *b = slurp(p2, &n2);
        ok = a && b && n1 == n2 && !memcmp(a, b, n1);
        CHECK(ok);
        free(a);
        free(b);
    }
    if (!ok) fprintf(stderr, "  piece %zu, groups of %u rows: one thread \"%s\", three \"%s\"\n", piece, group_rows, m1, m2);
    if (rc1 != 0) { /* a failed import leaves nothing */
        struct stat st;
        CHECK(stat(t1, &st) != 0 && stat(t2, &st) != 0);
    }
    return ok;
}

/* A random field of a column of kind k: 0 int, 1 float, 2 text. */
static void put_field(struct ig_buf *o, unsigned k, uint64_t *s)
{
    uint64_t r = test_rand(s);
    if (r % 9 == 0) return; /* empty: NULL */
    if (k == 0) {
        char t[32];
        int n = snprintf(t, sizeof t, "%lld", (long long)(test_rand(s) % 2000001) - 1000000);
        ig_buf_append(o, t, (size_t)n);
    } else if (k == 1) {
        char t[40];
        int n = snprintf(t, sizeof t, "%.*g", (int)(r >> 8) % 17 + 1, (double)(int64_t)test_rand(s) / 1e6);
        ig_buf_append(o, t, (size_t)n);
    } else if (r % 3 == 0) { /* unquoted */
        size_t n = (r >> 8) % 40;
        for (size_t i = 0; i < n; i++)
            ig_buf_append_byte(o, (uint8_t)('a' + (test_rand(s) % 26)));
    } else { /* quoted: delimiters, quotes, line ends inside */
        static const char *bits[] = {",", "\"\"", "\n", "\r\n", "x", "word ", "é"};
        ig_buf_append_byte(o, '"');
        size_t n = (r >> 8) % 30;
        for (size_t i = 0; i < n; i++) {
            const char *b = bits[test_rand(s) % 7];
            ig_buf_append(o, b, strlen(b));
        }
        ig_buf_append_byte(o, '"');
    }
}

/* A CSV of `rows` random rows: id, n (int), x (float), t (text), u (text). */
static void random_csv(struct ig_buf *o, size_t rows, uint64_t *s, bool bom, bool crlf, bool last_lf)
{
    if (bom) ig_buf_append(o, "\xEF\xBB\xBF", 3);
    ig_buf_append(o, "id,n,x,t,u", 10);
    for (size_t r = 0; r < rows; r++) {
        ig_buf_append(o, crlf ? "\r\n" : "\n", crlf ? 2 : 1);
        char t[32];
        int n = snprintf(t, sizeof t, "%zu,", r);
        ig_buf_append(o, t, (size_t)n);
        static const unsigned kinds[] = {0, 1, 2, 2};
        for (unsigned c = 0; c < 4; c++) {
            if (c) ig_buf_append_byte(o, ',');
            put_field(o, kinds[c], s);
        }
    }
    if (last_lf) ig_buf_append(o, crlf ? "\r\n" : "\n", crlf ? 2 : 1);
}

static const char SCHEMA[] = "id int64\nn int64?\nx float64?\nt string?\nu string?\n";

/* A fresh tmp_root holding SCHEMA; csv and schema (300 bytes each) get the
 * input's path and the schema's. */
static bool make_files(char *csv, char *schema)
{
    if (!make_root()) return false;
    snprintf(csv, 300, "%s/in.csv", tmp_root);
    snprintf(schema, 300, "%s/schema.txt", tmp_root);
    return write_file(schema, SCHEMA, strlen(SCHEMA));
}

static void threads_make_the_same_part(void)
{
    char csv[300], schema[300];
    REQUIRE(make_files(csv, schema));
    uint64_t s = check_seed;
    for (int t = 0; t < 40; t++) {
        struct ig_buf in = {0};
        size_t rows = 1 + test_rand(&s) % (t % 4 == 0 ? 3000 : 300);
        random_csv(&in, rows, &s, t % 5 == 0, t % 3 == 0, t % 2 == 0);
        REQUIRE(write_file(csv, (const char *)in.data, in.len));
        size_t piece = 1 + test_rand(&s) % (t % 2 ? 200 : 5000); /* tiny pieces: every cut lands somewhere */
        uint32_t group = t % 3 == 0 ? 0 : 1 + (uint32_t)(test_rand(&s) % 400);
        bool ok = same_both_ways(csv, t % 4 == 1 ? NULL : schema, piece, group, in.len > 4 * piece + 100);
        ig_buf_free(&in);
        if (!ok) break;
    }
    rm_tree(tmp_root);
}

/* Damage one row of a valid CSV in one of the ways the parser or a column
 * rejects; every piece size must report the first of them, as one thread does. */
static void threads_report_the_same_error(void)
{
    char csv[300], schema[300];
    REQUIRE(make_files(csv, schema));
    static const char *damage[] = {
        "7,1,2,a\"b,c\n",      /* a quote inside an unquoted field */
        "7,1,2,\"a\"b,c\n",    /* junk after a closing quote */
        "7,1,2,a\rb,c\n",      /* a bare CR */
        "7,1,2,a\n",           /* too few fields */
        "7,x1,2,a,b\n",        /* not an integer */
        "7,1,2,\"never closed\n", /* runs to the end of the input */
        "\n",                  /* an empty line: one field */
    };
    uint64_t s = check_seed;
    for (int t = 0; t < 42; t++) {
        struct ig_buf good = {0}, in = {0};
        random_csv(&good, 40 + test_rand(&s) % 200, &s, false, false, true);
        size_t at = 11 + test_rand(&s) % (good.len - 11);
        while (at < good.len && good.data[at - 1] != '\n') at++; /* a record start, or the end */
        const char *d = damage[t % 7];
        ig_buf_append(&in, good.data, at);
        ig_buf_append(&in, d, strlen(d));
        ig_buf_append(&in, good.data + at, good.len - at);
        ig_buf_append(&in, "8,2,3,q\"q,r\n", 12); /* a later error, never the one reported */
        REQUIRE(write_file(csv, (const char *)in.data, in.len));
        size_t piece = 1 + test_rand(&s) % 300;
        bool ok = same_both_ways(csv, t % 2 ? NULL : schema, piece, 1 + (uint32_t)(test_rand(&s) % 50), false);
        ig_buf_free(&good);
        ig_buf_free(&in);
        if (!ok) break;
    }
    rm_tree(tmp_root);
}

/* Inputs at the edges: a header alone, a header and one row without a line
 * feed, a record longer than any piece, a BOM before the header. */
static void threads_take_edges(void)
{
    REQUIRE(make_root());
    char csv[300];
    snprintf(csv, sizeof csv, "%s/in.csv", tmp_root);
    static const char *inputs[] = {
        "id,n\n",
        "id,n",
        "id,n\n1,2",
        "\xEF\xBB\xBFid,n\r\n1,2\r\n3,4\r\n",
        "id,t\n1,\"a very long quoted field, with a\nline feed and \"\"quotes\"\" in it, longer than a piece\"\n2,b\n",
    };
    for (size_t i = 0; i < sizeof inputs / sizeof *inputs; i++) {
        REQUIRE(write_file(csv, inputs[i], strlen(inputs[i])));
        for (size_t piece = 1; piece < 40; piece += 7)
            if (!same_both_ways(csv, NULL, piece, 0, false)) break;
    }
    rm_tree(tmp_root);
}

TEST_MAIN(T(cut_matches_the_rule), T(threads_make_the_same_part), T(threads_report_the_same_error),
          T(threads_take_edges))
