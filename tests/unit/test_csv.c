/* Tests for src/import/csv.c and src/import/lines.c. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create (meson passes it too) */
#endif
#include "check.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "import/csv.h"
#include "import/lines.h"
#include "util/buf.h"
#include "util/error.h"

/* An in-memory file holding data, positioned at 0. */
static int mem_fd(const void *data, size_t n)
{
    int fd = memfd_create("csv-test", 0);
    if (fd < 0) return -1;
    const char *p = data;
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w <= 0) {
            close(fd);
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    lseek(fd, 0, SEEK_SET);
    return fd;
}

/* Render records as "LINE:f1|f2;LINE:..." with quoted fields in double
 * quotes and CR/LF shown as \r \n, followed by "!msg" on error. */
static void render_field(struct ig_buf *o, const struct ig_csv_field *f)
{
    if (f->quoted) ig_buf_append_byte(o, '"');
    for (size_t i = 0; i < f->len; i++) {
        char c = f->p[i];
        if (c == '\n')
            ig_buf_append(o, "\\n", 2);
        else if (c == '\r')
            ig_buf_append(o, "\\r", 2);
        else
            ig_buf_append_byte(o, (uint8_t)c);
    }
    if (f->quoted) ig_buf_append_byte(o, '"');
}

static int dump_fd(int fd, size_t bufsize, char delim, struct ig_buf *o)
{
    struct ig_csv_reader *r;
    if (ig_csv_open(&r, fd, "t.csv", delim)) return -1;
    if (bufsize) ig_csv_set_limits(r, bufsize, 0);
    struct ig_csv_record rec;
    struct ig_error e = {0};
    int rc, nrec = 0;
    while ((rc = ig_csv_next(r, &rec, &e)) == 1) {
        if (nrec++) ig_buf_append_byte(o, ';');
        ig_buf_printf(o, "%llu:", (unsigned long long)rec.line);
        for (size_t i = 0; i < rec.nfields; i++) {
            if (i) ig_buf_append_byte(o, '|');
            render_field(o, &rec.fields[i]);
        }
    }
    if (rc < 0) ig_buf_printf(o, "!%s", e.msg);
    ig_buf_append_byte(o, '\0');
    ig_csv_close(r);
    return rc;
}

/* Parse data with several buffer sizes (tiny ones force a refill inside
 * every token) and require identical results; return the rendering. */
static char *dump_n(const char *data, size_t n, char delim)
{
    static const size_t sizes[] = {0, 1, 2, 3, 5, 16};
    char *first = NULL;
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        int fd = mem_fd(data, n);
        if (fd < 0) return strdup("!memfd");
        struct ig_buf o = IG_BUF_INIT;
        dump_fd(fd, sizes[k], delim, &o);
        close(fd);
        if (!first) {
            first = (char *)o.data;
            continue;
        }
        if (strcmp(first, (char *)o.data) != 0) {
            fprintf(stderr, "  bufsize %zu gives \"%s\", default gives \"%s\"\n", sizes[k],
                    (char *)o.data, first);
            check_failures++;
        }
        ig_buf_free(&o);
    }
    return first;
}

#define EXPECT_CSV(data, want)                                                                 \
    do {                                                                                       \
        char *got_ = dump_n(data, sizeof(data) - 1, ',');                                      \
        CHECK_EQ_STR(got_, want);                                                              \
        free(got_);                                                                            \
    } while (0)

static void test_basic_records(void)
{
    EXPECT_CSV("a,b,c\n1,2,3\n", "1:a|b|c;2:1|2|3");
    EXPECT_CSV("a,b\n1,2", "1:a|b;2:1|2");             /* no trailing newline */
    EXPECT_CSV("a,b\r\n1,2\r\n", "1:a|b;2:1|2");       /* CRLF */
    EXPECT_CSV("a,b\r\n1,2\n3,4\r\n", "1:a|b;2:1|2;3:3|4"); /* mixed */
    EXPECT_CSV("x\n", "1:x");
    EXPECT_CSV("", "");
    EXPECT_CSV("a,b,c\n1\n", "1:a|b|c;2:1");           /* field count may vary */
    EXPECT_CSV(" a , b \n", "1: a | b ");              /* spaces are data */
    EXPECT_CSV("a\tb,c\n", "1:a\tb|c");
}

static void test_quoted_fields(void)
{
    EXPECT_CSV("\"a,b\",c\n", "1:\"a,b\"|c");
    EXPECT_CSV("\"he said \"\"hi\"\"\"\n", "1:\"he said \"hi\"\"");
    EXPECT_CSV("\"\"\"\"\n", "1:\"\"\"");           /* one quote character */
    EXPECT_CSV("\"\"\"\"\"\"\n", "1:\"\"\"\"");     /* two */
    EXPECT_CSV("\"a\"\"\",\"\"\"b\"\n", "1:\"a\"\"|\"\"b\"");
    EXPECT_CSV("\"abc\"", "1:\"abc\"");             /* quoted field at EOF */
    EXPECT_CSV("\"abc\"\r\n", "1:\"abc\"");
    EXPECT_CSV("x,\"abc\"", "1:x|\"abc\"");
    /* Several escaped fields in one record each keep their own value. */
    EXPECT_CSV("\"a\"\"1\",\"b\"\"2\",\"c\"\"3\"\n", "1:\"a\"1\"|\"b\"2\"|\"c\"3\"");
}

static void test_embedded_newlines(void)
{
    EXPECT_CSV("\"line1\nline2\",x\nnext,y\n", "1:\"line1\\nline2\"|x;3:next|y");
    EXPECT_CSV("\"a\r\nb\"\r\nc\r\n", "1:\"a\\r\\nb\";3:c"); /* CR LF kept */
    EXPECT_CSV("\"\n\n\n\",\"\n\"\nz\n", "1:\"\\n\\n\\n\"|\"\\n\";6:z");
    EXPECT_CSV("\"a\rb\"\n", "1:\"a\\rb\"");          /* a lone CR inside quotes is data */
}

static void test_empty_fields(void)
{
    /* quoted distinguishes NULL (empty unquoted) from "" (empty string). */
    EXPECT_CSV(",\n", "1:|");
    EXPECT_CSV("\"\",\n", "1:\"\"|");
    EXPECT_CSV(",\"\"\n", "1:|\"\"");
    EXPECT_CSV("a,\n", "1:a|");                        /* trailing empty field */
    EXPECT_CSV("a,", "1:a|");                          /* ... at EOF */
    EXPECT_CSV("a,\r\n", "1:a|");
    EXPECT_CSV("\"\"", "1:\"\"");
    EXPECT_CSV(",,", "1:||");
    /* Empty lines: records of one empty field, except after the last '\n'. */
    EXPECT_CSV("a\n\nb\n", "1:a;2:;3:b");
    EXPECT_CSV("\n", "1:");
    EXPECT_CSV("a\n\n", "1:a;2:");
    EXPECT_CSV("a\r\n\r\n", "1:a;2:");

    struct ig_csv_reader *r;
    int fd = mem_fd(",\"\"\n", 4);
    REQUIRE(fd >= 0 && ig_csv_open(&r, fd, "t", ',') == 0);
    struct ig_csv_record rec;
    REQUIRE(ig_csv_next(r, &rec, NULL) == 1);
    REQUIRE(rec.nfields == 2);
    CHECK(rec.fields[0].len == 0 && !rec.fields[0].quoted);
    CHECK(rec.fields[1].len == 0 && rec.fields[1].quoted);
    CHECK(ig_csv_next(r, &rec, NULL) == 0);
    CHECK(ig_csv_next(r, &rec, NULL) == 0); /* stays at EOF */
    ig_csv_close(r);
    close(fd);
}

static void test_bom(void)
{
    EXPECT_CSV("\xEF\xBB\xBF" "a,b\n", "1:a|b");
    EXPECT_CSV("\xEF\xBB\xBF", "");
    EXPECT_CSV("\xEF\xBB\xBF\"q\"\n", "1:\"q\"");
    EXPECT_CSV("\xEF\xBB", "1:\xEF\xBB");              /* partial BOM is data */
    EXPECT_CSV("a\n\xEF\xBB\xBF" "b\n", "1:a;2:\xEF\xBB\xBF" "b"); /* only at the start */
}

static void test_delimiters(void)
{
    static const char tsv[] = "a\tb,c\n\"x\ty\"\t\n";
    char *got = dump_n(tsv, sizeof tsv - 1, '\t');
    CHECK_EQ_STR(got, "1:a|b,c;2:\"x\ty\"|");
    free(got);
    got = dump_n("a;b,c\n", 6, ';');
    CHECK_EQ_STR(got, "1:a|b,c");
    free(got);
    got = dump_n("a|b\n", 4, '|');
    CHECK_EQ_STR(got, "1:a|b");
    free(got);
    struct ig_csv_reader *r;
    CHECK_EQ_INT(ig_csv_open(&r, 0, "t", '"'), -EINVAL);
    CHECK_EQ_INT(ig_csv_open(&r, 0, "t", '\n'), -EINVAL);
    CHECK_EQ_INT(ig_csv_open(&r, 0, "t", '\r'), -EINVAL);
}

static void test_errors_with_line_numbers(void)
{
    EXPECT_CSV("a,b\n\"unterminated\n", "1:a|b!t.csv:2: unterminated quoted field");
    EXPECT_CSV("a\n\"x\ny\nz", "1:a!t.csv:2: unterminated quoted field");
    EXPECT_CSV("a\nb,\"x\ny\"\"\nz", "1:a!t.csv:2: unterminated quoted field");
    EXPECT_CSV("\"", "!t.csv:1: unterminated quoted field");
    EXPECT_CSV("a\"b\n", "!t.csv:1: '\"' in the middle of unquoted field 1");
    EXPECT_CSV("x,y\nok,a\"\n", "1:x|y!t.csv:2: '\"' in the middle of unquoted field 2");
    EXPECT_CSV(" \"a\"\n", "!t.csv:1: '\"' in the middle of unquoted field 1");
    EXPECT_CSV("ok\n\"x\"y\n", "1:ok!t.csv:2: unexpected 'y' after the closing quote of field 1");
    EXPECT_CSV("\"x\" ,y\n", "!t.csv:1: unexpected ' ' after the closing quote of field 1");
    /* The error line is where the bad byte is, after embedded newlines. */
    EXPECT_CSV("h\n\"multi\nline\"x\n",
               "1:h!t.csv:3: unexpected 'x' after the closing quote of field 1");
    EXPECT_CSV("\"a\nb\",c\"d\n", "!t.csv:2: '\"' in the middle of unquoted field 2");
    EXPECT_CSV("\"x\"\x01", "!t.csv:1: unexpected byte 0x01 after the closing quote of field 1");
    /* Bare CR outside quotes. */
    EXPECT_CSV("a\rb\n",
               "!t.csv:1: carriage return not followed by a line feed in unquoted field 1");
    EXPECT_CSV("a\nb\r",
               "1:a!t.csv:2: carriage return not followed by a line feed in unquoted field 1");
    EXPECT_CSV("\"a\"\rb",
               "!t.csv:1: carriage return not followed by a line feed after field 1");
}

static void test_record_longer_than_buffer(void)
{
    /* 3 MiB quoted field with escapes and newlines, then a normal record: the
     * default 1 MiB buffer must grow and the contents must survive intact. */
    size_t big = 3u << 20;
    struct ig_buf in = IG_BUF_INIT;
    ig_buf_append(&in, "id,\"", 4);
    uint64_t s = check_seed;
    struct ig_buf want = IG_BUF_INIT;
    for (size_t i = 0; i < big; i++) {
        uint64_t r = test_rand(&s) % 64;
        char c = r == 0 ? '"' : r == 1 ? '\n' : (char)('a' + r % 26);
        if (c == '"') ig_buf_append_byte(&in, '"');
        ig_buf_append_byte(&in, (uint8_t)c);
        ig_buf_append_byte(&want, (uint8_t)c);
    }
    size_t nl = 0;
    for (size_t i = 0; i < want.len; i++)
        nl += want.data[i] == '\n';
    ig_buf_append(&in, "\"\nnext,row\n", 11);
    int fd = mem_fd(in.data, in.len);
    REQUIRE(fd >= 0);
    struct ig_csv_reader *r;
    REQUIRE(ig_csv_open(&r, fd, "big.csv", ',') == 0);
    struct ig_csv_record rec;
    struct ig_error e = {0};
    REQUIRE(ig_csv_next(r, &rec, &e) == 1);
    REQUIRE(rec.nfields == 2);
    CHECK(rec.line == 1);
    CHECK(rec.fields[1].quoted);
    CHECK(rec.fields[1].len == want.len && memcmp(rec.fields[1].p, want.data, want.len) == 0);
    REQUIRE(ig_csv_next(r, &rec, &e) == 1);
    CHECK(rec.nfields == 2 && rec.fields[0].len == 4 && memcmp(rec.fields[0].p, "next", 4) == 0);
    CHECK_EQ_INT(rec.line, 2 + nl);
    CHECK(ig_csv_next(r, &rec, &e) == 0);
    ig_csv_close(r);

    /* The same with a record limit below its size is an error naming its line. */
    lseek(fd, 0, SEEK_SET);
    REQUIRE(ig_csv_open(&r, fd, "big.csv", ',') == 0);
    ig_csv_set_limits(r, 4096, 1u << 20);
    CHECK_EQ_INT(ig_csv_next(r, &rec, &e), -EINVAL);
    CHECK_EQ_STR(e.msg, "big.csv:1: record longer than 1048576 bytes");
    ig_csv_close(r);
    close(fd);
    ig_buf_free(&in);
    ig_buf_free(&want);
}

/* Many small records crossing many buffer boundaries. */
static void test_many_records_small_buffer(void)
{
    struct ig_buf in = IG_BUF_INIT;
    for (int i = 0; i < 20000; i++)
        ig_buf_printf(&in, "%d,\"q%d\"\"x\",%s\r\n", i, i, i % 3 ? "" : "z");
    int fd = mem_fd(in.data, in.len);
    REQUIRE(fd >= 0);
    struct ig_csv_reader *r;
    REQUIRE(ig_csv_open(&r, fd, "m.csv", ',') == 0);
    ig_csv_set_limits(r, 1000, 0);
    struct ig_csv_record rec;
    struct ig_error e = {0};
    int i = 0, bad = 0;
    char want[64];
    while (ig_csv_next(r, &rec, &e) == 1) {
        int n = snprintf(want, sizeof want, "q%d\"x", i);
        if (rec.nfields != 3 || rec.line != (uint64_t)i + 1 || strtol(rec.fields[0].p, NULL, 10) != i ||
            rec.fields[1].len != (size_t)n || memcmp(rec.fields[1].p, want, (size_t)n) != 0 ||
            rec.fields[2].len != (i % 3 ? 0u : 1u))
            bad++;
        i++;
    }
    CHECK_EQ_INT(i, 20000);
    CHECK_EQ_INT(bad, 0);
    ig_csv_close(r);
    close(fd);
    ig_buf_free(&in);
}

/* Reference writer for the property test. */
struct rfield {
    char s[160];
    size_t len;
    bool quoted;
};

static void test_random_roundtrip(void)
{
    static const char alpha[] = "ab,\"\n\r x\xc3\xa9";
    uint64_t s = check_seed;
    for (int it = 0; it < 3000; it++) {
        struct rfield f[40][6];
        size_t nf[40];
        size_t nrec = test_rand(&s) % 40;
        struct ig_buf in = IG_BUF_INIT;
        bool crlf = test_rand(&s) & 1;
        for (size_t r = 0; r < nrec; r++) {
            nf[r] = 1 + test_rand(&s) % 6;
            for (size_t k = 0; k < nf[r]; k++) {
                struct rfield *x = &f[r][k];
                /* some past 64 bytes: the tokenizer's scan takes 64 a step */
                x->len = test_rand(&s) % 8 == 0 ? 60 + test_rand(&s) % 100 : test_rand(&s) % 6;
                bool needs = false;
                for (size_t i = 0; i < x->len; i++) {
                    x->s[i] = alpha[test_rand(&s) % (sizeof alpha - 1)];
                    needs |= x->s[i] == ',' || x->s[i] == '"' || x->s[i] == '\n' ||
                             x->s[i] == '\r';
                }
                x->quoted = needs || (test_rand(&s) % 4 == 0);
                /* A record that is one empty unquoted field at the very end
                 * would be an empty last line, which is not a record. */
                if (r == nrec - 1 && nf[r] == 1 && x->len == 0) x->quoted = true;
                if (k) ig_buf_append_byte(&in, ',');
                if (x->quoted) ig_buf_append_byte(&in, '"');
                for (size_t i = 0; i < x->len; i++) {
                    if (x->s[i] == '"') ig_buf_append_byte(&in, '"');
                    ig_buf_append_byte(&in, (uint8_t)x->s[i]);
                }
                if (x->quoted) ig_buf_append_byte(&in, '"');
            }
            if (r < nrec - 1 || test_rand(&s) & 1) ig_buf_append(&in, crlf ? "\r\n" : "\n", crlf ? 2 : 1);
        }
        size_t most = test_rand(&s) & 1 ? 64 : 1024, bufsize = 1 + test_rand(&s) % most;
        int fd = mem_fd(in.data ? (const char *)in.data : "", in.len);
        REQUIRE(fd >= 0);
        struct ig_csv_reader *rd;
        REQUIRE(ig_csv_open(&rd, fd, "r.csv", ',') == 0);
        ig_csv_set_limits(rd, bufsize, 0);
        struct ig_csv_record rec;
        struct ig_error e = {0};
        size_t got = 0;
        bool ok = true;
        int rc;
        while ((rc = ig_csv_next(rd, &rec, &e)) == 1) {
            if (got >= nrec || rec.nfields != nf[got]) {
                ok = false;
                break;
            }
            for (size_t k = 0; k < rec.nfields; k++) {
                struct rfield *x = &f[got][k];
                if (rec.fields[k].quoted != x->quoted || rec.fields[k].len != x->len ||
                    memcmp(rec.fields[k].p, x->s, x->len) != 0)
                    ok = false;
            }
            got++;
        }
        if (rc < 0) fprintf(stderr, "  error: %s\n", e.msg);
        if (!ok || rc != 0 || got != nrec) {
            fprintf(stderr, "  iteration %d (bufsize %zu): mismatch at record %zu\n", it, bufsize,
                    got);
            check_failures++;
            it = 1 << 30;
        }
        ig_csv_close(rd);
        close(fd);
        ig_buf_free(&in);
    }
}

/* ---- property test against a reference parser --------------------------
 * Random inputs, well-formed and not, go through the reader (at several
 * buffer sizes, so refills land inside fields) and through ref_parse, a
 * byte-at-a-time transcription of the contract in csv.h; the two must agree
 * on every record, field, `quoted` flag, line number and error message.
 * With AVX-512 this checks the 64-byte field scan, and scripts/test runs it
 * again with INGOT_NO_AVX512=1 for the scalar one. */

/* Unambiguous rendering shared by both sides: "L<line>:" per record, then
 * per field 'q' or 'u', its length, ':' and its bytes; "!msg" on error. */
static void put_rec_start(struct ig_buf *o, uint64_t line)
{
    ig_buf_printf(o, "L%llu:", (unsigned long long)line);
}

static void put_field(struct ig_buf *o, const char *p, size_t len, bool quoted)
{
    ig_buf_printf(o, "%c%zu:", quoted ? 'q' : 'u', len);
    ig_buf_append(o, p, len);
}

static bool is_stop(char c, char delim)
{
    return c == delim || c == '"' || c == '\r' || c == '\n';
}

/* The reference: appends records to o as they complete, then "!msg". */
static void ref_parse(const char *d, size_t n, char delim, struct ig_buf *o)
{
    size_t pos = n >= 3 && memcmp(d, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    uint64_t line = 1;
    struct ig_buf rec = IG_BUF_INIT, val = IG_BUF_INIT;
    char msg[160] = "";
    while (pos < n && !msg[0]) {
        ig_buf_reset(&rec);
        put_rec_start(&rec, line);
        for (size_t nf = 1;; nf++) {
            ig_buf_reset(&val);
            bool quoted = pos < n && d[pos] == '"';
            if (quoted) {
                uint64_t open_line = line;
                size_t i = pos + 1;
                for (;;) {
                    if (i == n) break;
                    if (d[i] == '"' && !(i + 1 < n && d[i + 1] == '"')) break;
                    if (d[i] == '\n') line++;
                    ig_buf_append_byte(&val, (uint8_t)d[i]);
                    i += d[i] == '"' ? 2 : 1;
                }
                if (i == n) {
                    snprintf(msg, sizeof msg, "t.csv:%llu: unterminated quoted field",
                             (unsigned long long)open_line);
                    break;
                }
                pos = i + 1;
            } else {
                while (pos < n && !is_stop(d[pos], delim))
                    ig_buf_append_byte(&val, (uint8_t)d[pos++]);
            }
            put_field(&rec, (const char *)val.data, val.len, quoted);
            if (pos == n) break;
            unsigned char c = (unsigned char)d[pos];
            if (c == (unsigned char)delim) {
                pos++;
                continue;
            }
            if (c == '\n' || (c == '\r' && pos + 1 < n && d[pos + 1] == '\n')) {
                pos += c == '\r' ? 2 : 1;
                line++;
                break;
            }
            unsigned long long l = line;
            if (c == '\r')
                snprintf(msg, sizeof msg,
                         "t.csv:%llu: carriage return not followed by a line feed %s field %zu", l,
                         quoted ? "after" : "in unquoted", nf);
            else if (!quoted)
                snprintf(msg, sizeof msg, "t.csv:%llu: '\"' in the middle of unquoted field %zu", l,
                         nf);
            else if (c >= 0x20 && c < 0x7F)
                snprintf(msg, sizeof msg,
                         "t.csv:%llu: unexpected '%c' after the closing quote of field %zu", l, c,
                         nf);
            else
                snprintf(msg, sizeof msg,
                         "t.csv:%llu: unexpected byte 0x%02x after the closing quote of field %zu",
                         l, c, nf);
            break;
        }
        if (!msg[0]) ig_buf_append(o, rec.data, rec.len);
    }
    if (msg[0]) ig_buf_printf(o, "!%s", msg);
    ig_buf_free(&rec);
    ig_buf_free(&val);
}

/* The reader's answer for data in the same rendering. */
static void reader_parse(const char *d, size_t n, char delim, size_t bufsize, struct ig_buf *o)
{
    int fd = mem_fd(n ? d : "", n);
    struct ig_csv_reader *r;
    if (fd < 0 || ig_csv_open(&r, fd, "t.csv", delim)) {
        ig_buf_printf(o, "!open");
        if (fd >= 0) close(fd);
        return;
    }
    if (bufsize) ig_csv_set_limits(r, bufsize, 0);
    struct ig_csv_record rec;
    struct ig_error e = {0};
    int rc;
    while ((rc = ig_csv_next(r, &rec, &e)) == 1) {
        put_rec_start(o, rec.line);
        for (size_t i = 0; i < rec.nfields; i++)
            put_field(o, rec.fields[i].p, rec.fields[i].len, rec.fields[i].quoted);
    }
    if (rc < 0) ig_buf_printf(o, "!%s", e.msg);
    ig_csv_close(r);
    close(fd);
}

/* A random byte for field content: mostly letters and digits, some spaces,
 * high and control bytes, and the bytes that are special in other dialects. */
static char rand_byte(uint64_t *s)
{
    static const char pool[] = "abcxyz0123456789 .-_,;|\t\x01\x80\xc3\xa9\xff";
    uint64_t k = test_rand(s) % 16;
    if (k == 0) return pool[test_rand(s) % (sizeof pool - 1)];
    if (k == 1) return '\0';
    return pool[test_rand(s) % 16]; /* letters, digits, space */
}

/* Field length: mostly short, some long enough to span 64-byte blocks. */
static size_t rand_len(uint64_t *s)
{
    uint64_t k = test_rand(s) % 10;
    return k < 7 ? test_rand(s) % 12 : k < 9 ? 40 + test_rand(s) % 60 : 100 + test_rand(s) % 200;
}

/* An unquoted field's bytes (no stop bytes). */
static void gen_unquoted(struct ig_buf *in, uint64_t *s, char delim)
{
    size_t len = test_rand(s) % 4 == 0 ? 0 : rand_len(s);
    for (size_t i = 0; i < len; i++) {
        char c = rand_byte(s);
        ig_buf_append_byte(in, (uint8_t)(is_stop(c, delim) ? 'u' : c));
    }
}

/* A quoted field: delimiters, "" escapes, CR LF, LF and lone CR inside. */
static void gen_quoted(struct ig_buf *in, uint64_t *s, char delim)
{
    size_t len = rand_len(s);
    ig_buf_append_byte(in, '"');
    for (size_t i = 0; i < len; i++) {
        switch (test_rand(s) % 12) {
        case 0:
            ig_buf_append_byte(in, (uint8_t)delim);
            break;
        case 1:
            ig_buf_append(in, "\"\"", 2);
            break;
        case 2:
            ig_buf_append(in, "\r\n", 2);
            break;
        case 3:
            ig_buf_append_byte(in, '\n');
            break;
        case 4:
            ig_buf_append_byte(in, test_rand(s) % 4 ? ',' : '\r');
            break;
        default:
            ig_buf_append_byte(in, (uint8_t)rand_byte(s));
            break;
        }
    }
    ig_buf_append_byte(in, '"');
}

/* One malformation: a '"' in an unquoted field, junk after a closing quote,
 * a bare CR (in or after a field), or a quote left open to the end (true:
 * add nothing after it, or a later '"' might close it). */
static bool gen_malformed(struct ig_buf *in, uint64_t *s, char delim)
{
    switch (test_rand(s) % 5) {
    case 0:
        gen_unquoted(in, s, delim);
        ig_buf_append_byte(in, 'm');
        ig_buf_append_byte(in, '"');
        gen_unquoted(in, s, delim);
        break;
    case 1: {
        static const char junk[] = "x \x01\xc3";
        gen_quoted(in, s, delim);
        ig_buf_append_byte(in, (uint8_t)junk[test_rand(s) % 4]);
        break;
    }
    case 2:
        gen_unquoted(in, s, delim);
        ig_buf_append_byte(in, '\r');
        if (test_rand(s) & 1) ig_buf_append_byte(in, 'b');
        break;
    case 3:
        gen_quoted(in, s, delim);
        ig_buf_append_byte(in, '\r');
        ig_buf_append_byte(in, (uint8_t)delim);
        break;
    default:
        ig_buf_append_byte(in, '"');
        gen_unquoted(in, s, delim);
        ig_buf_append(in, "\n\"\"tail", 7);
        return true;
    }
    return false;
}

/* Records of random fields; about one input in six has a malformation. */
static void gen_csv(struct ig_buf *in, uint64_t *s, char delim)
{
    if (test_rand(s) % 16 == 0) ig_buf_append(in, "\xEF\xBB\xBF", 3);
    size_t nrec = test_rand(s) % 24;
    size_t bad_rec = test_rand(s) % 6 == 0 ? test_rand(s) % (nrec + 1) : SIZE_MAX;
    for (size_t r = 0; r < nrec; r++) {
        size_t nf = 1 + test_rand(s) % 14;
        size_t bad_f = r == bad_rec ? test_rand(s) % nf : SIZE_MAX;
        for (size_t k = 0; k < nf; k++) {
            if (k) ig_buf_append_byte(in, (uint8_t)delim);
            if (k == bad_f) {
                if (gen_malformed(in, s, delim)) return;
            } else if (test_rand(s) % 5 == 0)
                gen_quoted(in, s, delim);
            else
                gen_unquoted(in, s, delim);
        }
        uint64_t t = test_rand(s) % 8;
        if (r + 1 < nrec || t < 6) ig_buf_append(in, t & 1 ? "\r\n" : "\n", t & 1 ? 2 : 1);
    }
}

/* b's bytes on stderr after label, with C escapes for the unprintable. */
static void print_escaped(const char *label, const struct ig_buf *b)
{
    fputs(label, stderr);
    for (size_t i = 0; i < b->len; i++) {
        uint8_t c = b->data[i];
        if (c >= 0x20 && c < 0x7F && c != '\\')
            fputc(c, stderr);
        else
            fprintf(stderr, "\\x%02x", c);
    }
}

static void test_random_vs_reference(void)
{
    static const char delims[] = {',', ',', ',', '\t', ';', '|', '\0', '\xff'};
    uint64_t s = check_seed ^ 0x5eed;
    int bad = 0;
    for (int it = 0; it < 2500 && bad < 3; it++) {
        char delim = delims[test_rand(&s) % sizeof delims];
        struct ig_buf in = IG_BUF_INIT, want = IG_BUF_INIT;
        gen_csv(&in, &s, delim);
        ref_parse((const char *)in.data, in.len, delim, &want);
        ig_buf_append_byte(&want, '\0');
        /* default buffer, tiny ones, one around a 64-byte block, a random one */
        const size_t sizes[] = {0, 1, 3, 63 + test_rand(&s) % 3, 1 + test_rand(&s) % 700};
        for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
            struct ig_buf got = IG_BUF_INIT;
            reader_parse((const char *)in.data, in.len, delim, sizes[k], &got);
            ig_buf_append_byte(&got, '\0');
            if (got.len != want.len || memcmp(got.data, want.data, got.len) != 0) {
                fprintf(stderr,
                        "  iteration %d, delimiter 0x%02x, bufsize %zu, %zu input bytes:", it,
                        (unsigned char)delim, sizes[k], in.len);
                print_escaped("\n    input ", &in);
                print_escaped("\n    got   ", &got);
                print_escaped("\n    want  ", &want);
                fputc('\n', stderr);
                check_failures++;
                bad++;
            }
            ig_buf_free(&got);
        }
        ig_buf_free(&in);
        ig_buf_free(&want);
    }
}

/* A field cut one byte off either way must show: fields ending at every
 * offset around 64-byte block edges, checked field by field. */
static void test_field_ends_around_blocks(void)
{
    for (size_t pre = 0; pre < 70; pre++) {
        for (size_t len = 0; len < 140; len += 1 + len / 16) {
            struct ig_buf in = IG_BUF_INIT, want = IG_BUF_INIT, got = IG_BUF_INIT;
            for (size_t i = 0; i < pre; i++)
                ig_buf_append_byte(&in, (uint8_t)('a' + i % 26));
            ig_buf_append_byte(&in, ',');
            for (size_t i = 0; i < len; i++)
                ig_buf_append_byte(&in, (uint8_t)('0' + i % 10));
            ig_buf_append(&in, ",\"q,\"\"\",z\n", 10);
            ref_parse((const char *)in.data, in.len, ',', &want);
            ig_buf_append_byte(&want, '\0');
            reader_parse((const char *)in.data, in.len, ',', 0, &got);
            ig_buf_append_byte(&got, '\0');
            if (strcmp((char *)got.data, (char *)want.data) != 0) {
                fprintf(stderr, "  pre %zu len %zu: got %s, want %s\n", pre, len, (char *)got.data,
                        (char *)want.data);
                check_failures++;
            }
            ig_buf_free(&in);
            ig_buf_free(&want);
            ig_buf_free(&got);
        }
    }
}

static void test_rewind(void)
{
    const char data[] = "\xEF\xBB\xBFh1,h2\n1,\"a\"\"b\"\n2,c\n";
    int fd = mem_fd(data, sizeof data - 1);
    REQUIRE(fd >= 0);
    struct ig_csv_reader *r;
    REQUIRE(ig_csv_open(&r, fd, "t", ',') == 0);
    struct ig_csv_record rec;
    REQUIRE(ig_csv_next(r, &rec, NULL) == 1);
    REQUIRE(ig_csv_next(r, &rec, NULL) == 1);
    CHECK(rec.line == 2);
    CHECK_EQ_INT(ig_csv_rewind(r), 0);
    REQUIRE(ig_csv_next(r, &rec, NULL) == 1);
    CHECK(rec.line == 1 && rec.fields[0].len == 2 && memcmp(rec.fields[0].p, "h1", 2) == 0);
    int n = 1;
    while (ig_csv_next(r, &rec, NULL) == 1)
        n++;
    CHECK_EQ_INT(n, 3);
    CHECK(rec.line == 3);
    CHECK_EQ_INT(ig_csv_rewind(r), 0); /* after EOF too */
    REQUIRE(ig_csv_next(r, &rec, NULL) == 1);
    CHECK(rec.line == 1 && memcmp(rec.fields[0].p, "h1", 2) == 0);
    ig_csv_close(r);

    /* Past the first buffer the reader has to seek; it returns to the fd's
     * position at open time, not to offset 0. */
    struct ig_buf in = IG_BUF_INIT;
    ig_buf_append(&in, "JUNK", 4);
    for (int i = 0; i < 5000; i++)
        ig_buf_printf(&in, "row%d,x\n", i);
    close(fd);
    fd = mem_fd(in.data, in.len);
    REQUIRE(fd >= 0);
    lseek(fd, 4, SEEK_SET);
    REQUIRE(ig_csv_open(&r, fd, "t", ',') == 0);
    ig_csv_set_limits(r, 256, 0);
    int count = 0;
    while (ig_csv_next(r, &rec, NULL) == 1)
        count++;
    CHECK_EQ_INT(count, 5000);
    CHECK_EQ_INT(ig_csv_rewind(r), 0);
    REQUIRE(ig_csv_next(r, &rec, NULL) == 1);
    CHECK(rec.line == 1 && rec.fields[0].len == 4 && memcmp(rec.fields[0].p, "row0", 4) == 0);
    ig_csv_close(r);
    close(fd);
    ig_buf_free(&in);
}

/* Run `fn` on the read end of a pipe fed by a child writing data in small
 * pieces, so reads come back short. */
static int with_pipe(const char *data, size_t n, int (*fn)(int fd, void *ctx), void *ctx)
{
    int p[2];
    if (pipe(p)) return -1;
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        close(p[0]);
        size_t off = 0, step = 1;
        while (off < n) {
            size_t k = n - off < step ? n - off : step;
            if (write(p[1], data + off, k) != (ssize_t)k) _exit(1);
            off += k;
            step = step * 3 % 1000 + 1;
        }
        _exit(0);
    }
    close(p[1]);
    int rc = fn(p[0], ctx);
    close(p[0]);
    int st;
    waitpid(pid, &st, 0);
    return rc;
}

struct pipe_ctx {
    size_t records;
    uint64_t last_line;
    int rewind_rc;
    size_t after_rewind;
    size_t sample;
};

static int count_csv(int fd, void *vctx)
{
    struct pipe_ctx *c = vctx;
    struct ig_csv_reader *r;
    if (ig_csv_open(&r, fd, "pipe", ',')) return -1;
    struct ig_csv_record rec;
    struct ig_error e = {0};
    int rc;
    size_t seen = 0;
    while (seen < c->sample && (rc = ig_csv_next(r, &rec, &e)) == 1)
        seen++;
    c->rewind_rc = ig_csv_rewind(r);
    if (c->rewind_rc == 0) {
        while ((rc = ig_csv_next(r, &rec, &e)) == 1) {
            c->records++;
            c->last_line = rec.line;
        }
    } else {
        rc = 0;
    }
    ig_csv_close(r);
    return rc;
}

static void test_pipe_input(void)
{
    struct ig_buf in = IG_BUF_INIT;
    for (int i = 0; i < 3000; i++)
        ig_buf_printf(&in, "%d,\"multi\nline %d\"\n", i, i);
    /* Sampling 100 records then rewinding works on a pipe: nothing has been
     * dropped from the buffer yet. */
    struct pipe_ctx c = {0};
    c.sample = 100;
    CHECK_EQ_INT(with_pipe((const char *)in.data, in.len, count_csv, &c), 0);
    CHECK_EQ_INT(c.rewind_rc, 0);
    CHECK_EQ_INT(c.records, 3000);
    CHECK_EQ_INT(c.last_line, 2 * 2999 + 1);
    /* Reading past the buffer first makes rewinding impossible. */
    ig_buf_reset(&in);
    for (int i = 0; i < 200000; i++)
        ig_buf_printf(&in, "%d,abcdefghij\n", i);
    memset(&c, 0, sizeof c);
    c.sample = 199999;
    with_pipe((const char *)in.data, in.len, count_csv, &c);
    CHECK_EQ_INT(c.rewind_rc, -ESPIPE);
    ig_buf_free(&in);
}

static void test_read_error(void)
{
    int fd = open("/", O_RDONLY | O_DIRECTORY);
    REQUIRE(fd >= 0);
    struct ig_csv_reader *r;
    REQUIRE(ig_csv_open(&r, fd, "dir", ',') == 0);
    struct ig_csv_record rec;
    struct ig_error e = {0};
    CHECK_EQ_INT(ig_csv_next(r, &rec, &e), -EISDIR);
    CHECK(strncmp(e.msg, "dir:1: read failed", 18) == 0);
    ig_csv_close(r);
    close(fd);
}

/* ---- lines --------------------------------------------------------------- */

static char *dump_lines(const char *data, size_t n, size_t bufsize, size_t max)
{
    int fd = mem_fd(data, n);
    struct ig_lines_reader *r;
    if (fd < 0 || ig_lines_open(&r, fd, "t.jsonl")) return strdup("!open");
    ig_lines_set_limits(r, bufsize, max);
    struct ig_buf o = IG_BUF_INIT;
    const char *line;
    size_t len;
    uint64_t no;
    struct ig_error e = {0};
    int rc;
    while ((rc = ig_lines_next(r, &line, &len, &no, &e)) == 1) {
        ig_buf_printf(&o, "%llu:", (unsigned long long)no);
        for (size_t i = 0; i < len; i++)
            if (line[i] == '\r')
                ig_buf_append(&o, "\\r", 2);
            else
                ig_buf_append_byte(&o, (uint8_t)line[i]);
        ig_buf_append_byte(&o, ';');
    }
    if (rc < 0) ig_buf_printf(&o, "!%s", e.msg);
    ig_buf_append_byte(&o, '\0');
    ig_lines_close(r);
    close(fd);
    return (char *)o.data;
}

#define EXPECT_LINES(data, want)                                                               \
    do {                                                                                       \
        static const size_t sz_[] = {0, 1, 2, 3, 7};                                           \
        for (size_t k_ = 0; k_ < sizeof sz_ / sizeof *sz_; k_++) {                             \
            char *got_ = dump_lines(data, sizeof(data) - 1, sz_[k_], 0);                       \
            CHECK_EQ_STR(got_, want);                                                          \
            free(got_);                                                                        \
        }                                                                                      \
    } while (0)

static void test_lines(void)
{
    EXPECT_LINES("a\nbb\nccc\n", "1:a;2:bb;3:ccc;");
    EXPECT_LINES("a\r\nbb\r\n", "1:a;2:bb;");
    EXPECT_LINES("a\nlast", "1:a;2:last;");
    EXPECT_LINES("a\n\nb\n", "1:a;2:;3:b;");
    EXPECT_LINES("\n", "1:;");
    EXPECT_LINES("", "");
    EXPECT_LINES("a\rb\n\r", "1:a\\rb;2:\\r;"); /* lone CR is content */
    EXPECT_LINES("\xEF\xBB\xBF{}\n", "1:{};");
    EXPECT_LINES("\xEF\xBB\xBF", "");
    char *got = dump_lines("short\nthis line is too long\n", 28, 4, 8);
    CHECK_EQ_STR(got, "1:short;!t.jsonl:2: line longer than 8 bytes");
    free(got);

    /* A 5 MiB line. */
    size_t big = 5u << 20;
    char *data = malloc(big + 3);
    REQUIRE(data);
    memset(data, 'x', big);
    memcpy(data + big, "\ny", 2);
    int fd = mem_fd(data, big + 2);
    REQUIRE(fd >= 0);
    struct ig_lines_reader *r;
    REQUIRE(ig_lines_open(&r, fd, "big") == 0);
    const char *line;
    size_t len;
    uint64_t no;
    REQUIRE(ig_lines_next(r, &line, &len, &no, NULL) == 1);
    CHECK(len == big && no == 1 && line[0] == 'x' && line[big - 1] == 'x');
    REQUIRE(ig_lines_next(r, &line, &len, &no, NULL) == 1);
    CHECK(len == 1 && line[0] == 'y' && no == 2);
    CHECK(ig_lines_next(r, &line, &len, &no, NULL) == 0);
    CHECK_EQ_INT(ig_lines_rewind(r), 0);
    REQUIRE(ig_lines_next(r, &line, &len, &no, NULL) == 1);
    CHECK(len == big && no == 1);
    ig_lines_close(r);
    close(fd);
    free(data);
}

TEST_MAIN(T(test_basic_records), T(test_quoted_fields), T(test_embedded_newlines),
          T(test_empty_fields), T(test_bom), T(test_delimiters),
          T(test_errors_with_line_numbers), T(test_record_longer_than_buffer),
          T(test_many_records_small_buffer), T(test_random_roundtrip),
          T(test_random_vs_reference), T(test_field_ends_around_blocks), T(test_rewind),
          T(test_pipe_input), T(test_read_error), T(test_lines))
