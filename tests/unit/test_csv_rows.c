/* Tests for src/import/csv_cut.c and src/import/csv_rows.c: where a CSV is cut
 * between records, records converted by their columns' kinds against the
 * generic conversion (convert.h), and CSV imports on several threads against
 * one thread (the same part byte for byte, the same first error). */
#include "check.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/model/schema.h"
#include "format/model/values.h"
#include "import/convert.h"
#include "import/csv.h"
#include "import/csv_cut.h"
#include "import/csv_rows.h"
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

/* ---- ig_csv_convert_rows against ig_convert_text ------------------------------ */

/* Every type a CSV column takes, as a schema file names it. */
static const char *const KIND_TYPES[] = {"bool",   "int8",   "int16",   "int32",   "int64",  "uint8", "uint16",
                                         "uint32", "uint64", "float32", "float64", "string", "binary"};
#define NKINDS (sizeof KIND_TYPES / sizeof *KIND_TYPES)

/* A random field's text for a column of type t: mostly values of the type,
 * near its limits, sometimes text another type would take, or junk. */
static void kind_text(struct ig_buf *o, const char *t, uint64_t *s)
{
    static const char *const any[] = {
        "",       "0",        "1",         "-1",       "+7",         "127",       "128",         "-129",
        "255",    "256",      "-0",        "65535",    "65536",      "2147483647", "2147483648", "-2147483649",
        "4294967296",         "9223372036854775807",  "9223372036854775808",  "-9223372036854775808",
        "18446744073709551615", "18446744073709551616", "99999999999999999999", "1.5", "-2.25e-3", "1e39",
        "3.4028235e38", "nan", "-Infinity", "inf", "NaN", "1e", ".", "1.2.3", "0x10", " 5", "5 ", "12a",
        "true",   "false",    "t",         "F",        "TRUE",       "yes",       "\\x",          "\\x0aFf",
        "\\x0",   "\\xzz",    "x",         "caf\xc3\xa9", "\xff",    "\xc3",      "\xed\xa0\x80", "\xf4\x90\x80\x80",
    };
    uint64_t r = test_rand(s);
    if (r % 80 == 0) {
        const char *a = any[test_rand(s) % (sizeof any / sizeof *any)];
        ig_buf_append(o, a, strlen(a));
        return;
    }
    char b[64];
    int n = 0;
    if (!strcmp(t, "bool")) {
        n = snprintf(b, sizeof b, "%s", (r >> 8) % 2 ? "true" : "f");
    } else if (!strcmp(t, "float32") || !strcmp(t, "float64")) {
        n = snprintf(b, sizeof b, "%.*g", (int)(r >> 8) % 18 + 1, (double)(int64_t)test_rand(s) / 1e9);
    } else if (!strcmp(t, "string")) { /* ASCII of 0..40 bytes, a multi-byte or bad byte in some */
        size_t len = (r >> 8) % 41;
        for (size_t i = 0; i < len; i++)
            b[n++] = (char)('a' + test_rand(s) % 26);
        if (len && (r >> 16) % 16 == 0) b[(r >> 20) % len] = (char)((r >> 24) % 2 ? 0xC3 : 0x80);
    } else if (!strcmp(t, "binary")) {
        n = snprintf(b, sizeof b, "\\x%0*llx", (int)((r >> 8) % 4) * 2, (unsigned long long)((r >> 16) & 0xFFFF));
    } else { /* integers of about the type's width, a few a bit wider */
        unsigned bits = t[0] == 'u' ? 0 : 1, w = (unsigned)atoi(t + (t[0] == 'u' ? 4 : 3));
        int shift = 64 - (int)(w - bits) + ((r >> 8) % 16 == 0 ? -1 : (int)((r >> 12) % 4));
        shift = shift < 0 ? 0 : shift > 63 ? 63 : shift;
        uint64_t x = test_rand(s) >> shift;
        if (t[0] == 'u')
            n = snprintf(b, sizeof b, "%llu", (unsigned long long)x);
        else
            n = snprintf(b, sizeof b, "%s%llu", (r >> 16) % 3 ? "" : "-", (unsigned long long)x);
    }
    ig_buf_append(o, b, (size_t)n);
}

/* One field into the CSV: unquoted when it can be (an empty one is a NULL
 * then), else quoted with "" for '"'. */
static void kind_field(struct ig_buf *o, const struct ig_buf *text, bool quote)
{
    const char *p = text->data ? (const char *)text->data : "";
    if (!quote && !memchr(p, ',', text->len) && !memchr(p, '"', text->len) && !memchr(p, '\n', text->len) &&
        !memchr(p, '\r', text->len)) {
        ig_buf_append(o, p, text->len);
        return;
    }
    ig_buf_append_byte(o, '"');
    for (size_t i = 0; i < text->len; i++) {
        if (p[i] == '"') ig_buf_append_byte(o, '"');
        ig_buf_append_byte(o, (uint8_t)p[i]);
    }
    ig_buf_append_byte(o, '"');
}

/* What ig_csv_convert_rows must do with one record, done the generic way:
 * the fields converted in schema order by ig_convert_text, the first error
 * as csv_rows.h words it. */
static int kind_reference(const struct ig_schema *sch, const long *field_of, size_t nfields,
                          const struct ig_csv_record *rec, const char *path, struct ig_values *cols,
                          const struct ig_convert_ctx *cc, struct ig_error *err)
{
    if (rec->nfields != nfields)
        return ig_err(err, -EINVAL, "%s:%" PRIu64 ": %zu fields, but the header has %zu", path, rec->line,
                      rec->nfields, nfields);
    for (uint32_t c = 0; c < sch->n; c++) {
        const struct ig_column_def *cd = &sch->cols[c];
        const struct ig_csv_field *f = field_of[c] >= 0 ? &rec->fields[field_of[c]] : NULL;
        struct ig_error sub = {0};
        if (ig_convert_text(cd, &cols[cd->leaf], f ? f->p : "", f ? f->len : 0, f && f->quoted, cc, &sub))
            return ig_err(err, sub.code ? sub.code : -EINVAL, "%s:%" PRIu64 ": column '%s': %s", path, rec->line,
                          cd->name, sub.msg);
    }
    return 0;
}

/* Whether two columns hold the same values (and NULLs). */
static bool same_values(const struct ig_values *a, const struct ig_values *b)
{
    if (a->n != b->n) return false;
    for (size_t i = 0; i < a->n; i++) {
        if (ig_values_is_null(a, i) != ig_values_is_null(b, i)) return false;
        if (ig_values_is_null(a, i)) continue;
        if (!a->is_bytes) {
            if (a->lanes[i] != b->lanes[i]) return false;
            continue;
        }
        size_t la, lb;
        const uint8_t *pa = ig_values_bytes(a, i, &la), *pb = ig_values_bytes(b, i, &lb);
        if (la != lb || memcmp(pa, pb, la)) return false;
    }
    return true;
}

/* A schema of every type, each nullable or not, and a header naming the
 * columns in a shuffled order, leaving out some nullable ones (their
 * values are NULLs): the schema text into sch_text, field_of filled. */
static void kind_schema(struct ig_buf *sch_text, struct ig_buf *header, long *field_of, size_t *nfields,
                        uint64_t *s)
{
    uint32_t order[NKINDS];
    for (uint32_t c = 0; c < NKINDS; c++) {
        bool nullable = test_rand(s) % 2;
        char line[64];
        int n = snprintf(line, sizeof line, "c%u %s%s\n", c, KIND_TYPES[c], nullable ? "?" : "");
        ig_buf_append(sch_text, line, (size_t)n);
        field_of[c] = nullable && test_rand(s) % 4 == 0 ? -1 : 0;
        order[c] = c;
    }
    for (uint32_t c = NKINDS; c > 1; c--) {
        uint32_t k = (uint32_t)(test_rand(s) % c), t = order[c - 1];
        order[c - 1] = order[k];
        order[k] = t;
    }
    *nfields = 0;
    for (uint32_t i = 0; i < NKINDS; i++) {
        uint32_t c = order[i];
        if (field_of[c] < 0) continue;
        char name[16];
        int n = snprintf(name, sizeof name, "%sc%u", *nfields ? "," : "", c);
        ig_buf_append(header, name, (size_t)n);
        field_of[c] = (long)(*nfields)++;
    }
    ig_buf_append_byte(header, '\n');
}

/* Records converted by kind, a random number at a time, against the generic
 * conversion of the same records: the same values and NULLs, the same rows
 * converted before an error, the same error (code and message) at the same
 * line and column. Conversion errors are frequent here: after one, both sides
 * start their columns again and go on with the next record. */
static void kinds_convert_as_the_generic_way(void)
{
    REQUIRE(make_root());
    char csv_path[300];
    snprintf(csv_path, sizeof csv_path, "%s/kinds.csv", tmp_root);
    uint64_t s = check_seed ^ 0x6B1D5;
    for (int t = 0; t < 30; t++) {
        struct ig_buf sch_text = {0}, in = {0}, text = {0};
        long field_of[NKINDS];
        size_t nfields;
        kind_schema(&sch_text, &in, field_of, &nfields, &s);
        struct ig_schema sch = {0};
        struct ig_error err = {0};
        REQUIRE(ig_schema_parse(&sch, (const char *)sch_text.data, sch_text.len, "kinds", &err) == 0);
        size_t rows = 1 + test_rand(&s) % 600;
        for (size_t r = 0; r < rows; r++) {
            size_t nf = test_rand(&s) % 50 == 0 ? nfields + 1 - test_rand(&s) % 3 : nfields;
            for (size_t f = 0; f < nf; f++) {
                uint32_t c = 0; /* the column this field fills, for its type */
                while (c < NKINDS && field_of[c] != (long)f) c++;
                ig_buf_reset(&text);
                bool null = test_rand(&s) % 30 == 0;
                if (!null) kind_text(&text, KIND_TYPES[c < NKINDS ? c : 0], &s);
                if (f) ig_buf_append_byte(&in, ',');
                kind_field(&in, &text, !null && test_rand(&s) % 5 == 0);
            }
            ig_buf_append(&in, t % 3 == 0 ? "\r\n" : "\n", t % 3 == 0 ? 2 : 1);
        }
        REQUIRE(write_file(csv_path, (const char *)in.data, in.len));
        int fd_a = open(csv_path, O_RDONLY), fd_b = open(csv_path, O_RDONLY);
        struct ig_csv_reader *a = NULL, *b = NULL;
        REQUIRE(fd_a >= 0 && fd_b >= 0 && ig_csv_open(&a, fd_a, csv_path, ',') == 0 &&
                ig_csv_open(&b, fd_b, csv_path, ',') == 0);
        struct ig_csv_record rec;
        struct ig_csv_map m;
        REQUIRE(ig_csv_next(a, &rec, &err) == 1 && ig_csv_next(b, &rec, &err) == 1);
        REQUIRE(ig_csv_map_header(&m, &sch, &rec, csv_path, "", &err) == 0);
        struct ig_values got[NKINDS], want[NKINDS];
        for (uint32_t l = 0; l < sch.nleaves; l++) {
            ig_values_init(&got[l], sch.cols[sch.leaves[l]].type);
            ig_values_init(&want[l], sch.cols[sch.leaves[l]].type);
        }
        struct ig_buf scratch = {0}, path = {0};
        struct ig_convert_ctx cc = {.scratch = &scratch, .path = &path};
        bool ok = true;
        for (size_t done = 0; ok;) {
            size_t max = 1 + test_rand(&s) % 40, n = 0, want_n = 0;
            struct ig_error e1 = {0}, e2 = {0};
            int rc1 = ig_csv_convert_rows(&m, a, got, max, &cc, &n, &e1), rc2 = 0;
            while (want_n < max && (rc2 = ig_csv_next(b, &rec, &e2)) > 0) {
                rc2 = kind_reference(&sch, field_of, nfields, &rec, csv_path, want, &cc, &e2);
                if (rc2) break;
                want_n++;
            }
            rc2 = rc2 < 0 ? rc2 : 0;
            CHECK_EQ_INT(rc1, rc2);
            CHECK_EQ_INT(n, want_n);
            CHECK_EQ_STR(e1.msg, e2.msg);
            ok = rc1 == rc2 && n == want_n && !strcmp(e1.msg, e2.msg);
            for (uint32_t l = 0; ok && !rc1 && l < sch.nleaves; l++) {
                ok = same_values(&got[l], &want[l]);
                if (!ok) fprintf(stderr, "  column %u differs after record %zu\n", l, done + n);
                CHECK(ok);
            }
            done += n + (rc1 != 0);
            if (rc1) /* a failed record's values are dropped: start both again */
                for (uint32_t l = 0; l < sch.nleaves; l++) {
                    ig_values_reset(&got[l]);
                    ig_values_reset(&want[l]);
                }
            else if (n < max)
                break; /* the end of the input */
        }
        for (uint32_t l = 0; l < sch.nleaves; l++) {
            ig_values_free(&got[l]);
            ig_values_free(&want[l]);
        }
        ig_csv_map_free(&m);
        ig_csv_close(a);
        ig_csv_close(b);
        close(fd_a);
        close(fd_b);
        ig_schema_free(&sch);
        ig_buf_free(&scratch);
        ig_buf_free(&path);
        ig_buf_free(&sch_text);
        ig_buf_free(&in);
        ig_buf_free(&text);
        if (!ok) break;
    }
    rm_tree(tmp_root);
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

/* Pieces and one-thread runs of several conversion batches (IG_CSV_BATCH
 * rows each): rows past a piece's first batch, groups ending inside a
 * batch's stretch and at its end. One thread reports progress at every
 * 65,536 rows passed and once at the end, however the rows were batched. */
static void threads_take_pieces_of_many_batches(void)
{
    char csv[300], schema[300];
    REQUIRE(make_files(csv, schema));
    uint64_t s = check_seed ^ 0xBA7C4;
    struct ig_buf in = {0};
    size_t rows = 65536 + 3 * IG_CSV_BATCH + 17;
    random_csv(&in, rows, &s, false, false, true);
    REQUIRE(write_file(csv, (const char *)in.data, in.len));
    char t[300], msg[1024];
    snprintf(t, sizeof t, "%s/one", tmp_root);
    CHECK_EQ_INT(import_with(csv, schema, 1, 0, 0, t, msg, sizeof msg), 0);
    CHECK_EQ_INT(progress_calls, rows / 65536 + 1);
    static const uint32_t groups[] = {0, IG_CSV_BATCH + 3};
    for (size_t g = 0; g < sizeof groups / sizeof *groups; g++)
        if (!same_both_ways(csv, schema, in.len / 3, groups[g], false)) break;
    ig_buf_free(&in);
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

TEST_MAIN(T(cut_matches_the_rule), T(kinds_convert_as_the_generic_way), T(threads_make_the_same_part),
          T(threads_report_the_same_error), T(threads_take_pieces_of_many_batches), T(threads_take_edges))
