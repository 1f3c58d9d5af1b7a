/* libFuzzer target for src/import/csv.c and src/import/lines.c.
 *
 * Build (not wired into meson):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -I include -I src \
 *     tests/fuzz/fuzz_csv.c src/import/csv.c src/import/csv_cut.c src/import/lines.c \
 *     src/util/error.c src/util/buf.c src/util/cpu.c -o fuzz_csv
 *
 * The first input byte picks the delimiter and a small buffer size; the rest
 * is the file. Oracles, beyond the sanitizers:
 *   - parsing with a 64 KiB buffer (larger than any input the fuzzer makes,
 *     and cheaper per run than the default 1 MiB) and with a 1..32-byte buffer
 *     (which forces a refill inside nearly every token) gives the same
 *     records, line numbers and error message;
 *   - rewinding and reading again gives the same result;
 *   - cutting the input between records (csv_cut.h) and parsing the pieces
 *     apart, as a threaded import does, gives the same records, line numbers
 *     and first error;
 *   - when the input parses, writing the records back out as CSV and parsing
 *     that gives the same fields (values and quoted flags);
 *   - the line reader agrees across buffer sizes too. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create (meson passes it too) */
#endif
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "import/csv.h"
#include "import/csv_cut.h"
#include "import/lines.h"
#include "util/buf.h"
#include "util/error.h"

enum { BIG = 64 * 1024 };

static int mem_fd(const uint8_t *p, size_t n)
{
    int fd = memfd_create("fuzz", 0);
    if (fd < 0) abort();
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w <= 0) abort();
        p += w;
        n -= (size_t)w;
    }
    lseek(fd, 0, SEEK_SET);
    return fd;
}

struct out {
    struct ig_buf full;   /* line numbers, fields, error */
    struct ig_buf fields; /* fields only, one entry per record */
    struct ig_buf csv;    /* records written back as CSV */
    size_t nrec;
};

static void out_free(struct out *o)
{
    ig_buf_free(&o->full);
    ig_buf_free(&o->fields);
    ig_buf_free(&o->csv);
}

/* r's records appended to o; the last ig_csv_next's code, its error in e. */
static int read_records(struct ig_csv_reader *r, char delim, struct out *o, struct ig_error *e)
{
    struct ig_csv_record rec;
    int rc;
    while ((rc = ig_csv_next(r, &rec, e)) == 1) {
        if (rec.nfields < 1 || rec.line < 1) abort();
        ig_buf_printf(&o->full, "@%llu", (unsigned long long)rec.line);
        ig_buf_printf(&o->fields, "#%zu", rec.nfields);
        for (size_t i = 0; i < rec.nfields; i++) {
            const struct ig_csv_field *f = &rec.fields[i];
            ig_buf_printf(&o->fields, "[%d:%zu]", f->quoted, f->len);
            ig_buf_append(&o->fields, f->p, f->len);
            if (i) ig_buf_append_byte(&o->csv, (uint8_t)delim);
            if (f->quoted) ig_buf_append_byte(&o->csv, '"');
            for (size_t k = 0; k < f->len; k++) {
                if (!f->quoted && (f->p[k] == '"' || f->p[k] == '\n' || f->p[k] == '\r' || f->p[k] == delim))
                    abort(); /* impossible in an unquoted field */
                if (f->p[k] == '"') ig_buf_append_byte(&o->csv, '"');
                ig_buf_append_byte(&o->csv, (uint8_t)f->p[k]);
            }
            if (f->quoted) ig_buf_append_byte(&o->csv, '"');
        }
        ig_buf_append_byte(&o->csv, '\n');
        o->nrec++;
    }
    return rc;
}

/* o->full: the line of every record, then their fields, then the error. */
static void finish(struct out *o, int rc, const struct ig_error *e)
{
    ig_buf_append(&o->full, o->fields.data, o->fields.len);
    if (rc < 0) ig_buf_printf(&o->full, "!%d %s", rc, e->msg);
}

static int read_all(struct ig_csv_reader *r, char delim, struct out *o)
{
    memset(o, 0, sizeof *o);
    struct ig_error e = {0};
    int rc = read_records(r, delim, o, &e);
    finish(o, rc, &e);
    return rc;
}

/* The input cut between records (ig_csv_cut) into pieces of about `piece`
 * bytes, each parsed by a reader that borrows it, as the threaded importer
 * does (csv_rows.c); one reader over the whole input must give the same
 * records, lines and first error. */
static int parse_pieces(const uint8_t *p, size_t n, char delim, size_t piece, struct out *o)
{
    memset(o, 0, sizeof *o);
    struct ig_error e = {0};
    struct ig_csv_reader *r;
    if (ig_csv_open(&r, -1, "f", delim)) abort();
    size_t pos = n >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3) ? 3 : 0; /* the reader skips a BOM */
    uint64_t line = 1;
    int rc = 0;
    while (pos < n && rc >= 0) {
        size_t want = piece, cut;
        uint64_t lines = 0;
        for (;;) {
            size_t len = n - pos < want ? n - pos : want;
            if (pos + len == n) {
                cut = len; /* the last piece takes the rest */
                break;
            }
            cut = ig_csv_cut((const char *)p + pos, len, &lines);
            if (cut) break;
            want *= 2;
        }
        ig_csv_borrow(r, (const char *)p + pos, cut, line);
        rc = read_records(r, delim, o, &e);
        pos += cut;
        line += lines;
    }
    finish(o, rc, &e);
    ig_csv_close(r);
    return rc;
}

static void same(const struct ig_buf *a, const struct ig_buf *b)
{
    if (a->len != b->len || (a->len && memcmp(a->data, b->data, a->len) != 0)) abort();
}

static int parse_fd(int fd, char delim, size_t bufsize, bool rewind, struct out *o)
{
    struct ig_csv_reader *r;
    if (ig_csv_open(&r, fd, "f", delim)) abort();
    if (bufsize) ig_csv_set_limits(r, bufsize, 0);
    int rc = read_all(r, delim, o);
    if (rewind) {
        struct out again;
        if (ig_csv_rewind(r) != 0) abort();
        read_all(r, delim, &again);
        same(&o->full, &again.full);
        out_free(&again);
    }
    ig_csv_close(r);
    return rc;
}

static void dump_lines(int fd, size_t bufsize, struct ig_buf *o)
{
    struct ig_lines_reader *r;
    if (ig_lines_open(&r, fd, "f")) abort();
    if (bufsize) ig_lines_set_limits(r, bufsize, 0);
    const char *line;
    size_t len;
    uint64_t no, expect = 1;
    struct ig_error e = {0};
    int rc;
    while ((rc = ig_lines_next(r, &line, &len, &no, &e)) == 1) {
        if (no != expect++) abort();
        if (memchr(line, '\n', len)) abort();
        ig_buf_printf(o, "%zu:", len);
        ig_buf_append(o, line, len);
    }
    if (rc < 0) ig_buf_printf(o, "!%s", e.msg);
    ig_lines_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    static const char delims[] = {',', ';', '\t', '|', ' ', 'a', '\0', (char)0xC3};
    char delim = delims[data[0] & 7];
    size_t small = 1 + (data[0] >> 3); /* 1..32 */
    data++;
    size--;

    int fd = mem_fd(data, size);
    struct out a, b;
    int rc = parse_fd(fd, delim, BIG, false, &a);
    lseek(fd, 0, SEEK_SET);
    parse_fd(fd, delim, small, true, &b);
    same(&a.full, &b.full);
    struct out c;
    parse_pieces(data, size, delim, small * 3, &c);
    same(&a.full, &c.full);
    out_free(&c);

    if (rc == 0) {
        /* Write back and re-parse. Every record is written with a '\n'
         * terminator, so even a record that is one empty unquoted field (an
         * empty line) survives. Output starting with a BOM would have it
         * skipped, so protect it with another BOM. */
        struct ig_buf csv = IG_BUF_INIT;
        if (a.csv.len >= 3 && memcmp(a.csv.data, "\xEF\xBB\xBF", 3) == 0)
            ig_buf_append(&csv, "\xEF\xBB\xBF", 3);
        ig_buf_append(&csv, a.csv.data, a.csv.len);
        int fd2 = mem_fd(csv.data ? csv.data : (const uint8_t *)"", csv.len);
        struct out x;
        if (parse_fd(fd2, delim, small, false, &x) != 0) abort();
        same(&a.fields, &x.fields);
        out_free(&x);
        ig_buf_free(&csv);
        close(fd2);
    }
    out_free(&a);
    out_free(&b);

    struct ig_buf la = IG_BUF_INIT, lb = IG_BUF_INIT;
    lseek(fd, 0, SEEK_SET);
    dump_lines(fd, BIG, &la);
    lseek(fd, 0, SEEK_SET);
    dump_lines(fd, small, &lb);
    same(&la, &lb);
    ig_buf_free(&la);
    ig_buf_free(&lb);
    close(fd);
    return 0;
}
