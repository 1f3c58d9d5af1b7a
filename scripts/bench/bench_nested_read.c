/* bench_nested_read - decode one leaf of a nested column in process, timed, and
 * take a sliding-window column's pages apart. Used by scripts/bench/sparse_sequences
 * and scripts/bench/embeddings.
 *
 * The public API (include/ingot.h) has no call that hands back a list or vector
 * column's values (ingot_read_fixed is for flat fixed-width columns; see
 * ingot_column_type). This program therefore uses libingot's internal reader
 * (src/format/ops/reader.h): the same ig_reader_load (pread of the page's stored
 * bytes, XXH3 checksum check, decode into levels + 64-bit value lanes) that the
 * mount daemon and `ingot cat` call for every page. It is the decoder's own
 * speed, without FUSE or text rendering.
 *
 *   bench_nested_read decode TABLE LEAF [--runs N] [--f32]
 *       Every page of leaf column LEAF in every row group, N times (default 5)
 *       after one untimed pass, one thread, one ig_reader and ig_values reused.
 *       --f32: also convert each page's lanes to a float32 array (what the
 *       mount's .npy view does for vector and quantised columns) inside the
 *       timed part. Prints one line: runs=.. pages=.. rows=.. values=..
 *       stored_bytes=.. secs_med=.. secs_min=.. secs_max=.. out_bytes=..
 *       (values x 8, or values x 4 with --f32) gbps_med=.. (out_bytes / secs_med)
 *       stored_gbps_med=.. sum=.. (sum of the value lanes, of the lengths for a
 *       string or binary leaf, for cross-checks)
 *   bench_nested_read public TABLE LEAF [--runs N]
 *       The same through the public API: ingot_open once, then per run one
 *       ingot_read_fixed(all groups) into a buffer sized for every value of the
 *       leaf (for a list column it returns the list elements flattened, as the
 *       leaf's type: int64 for list<int64>; quantised and vector columns come
 *       back as float32). Same output line (out_bytes = values x width).
 *   bench_nested_read readfiles FILE...
 *       open + read(2) to the end in 1 MiB pieces + close of each FILE in turn,
 *       timed per file (for the mount: one column file each). Prints n=..
 *       p50_us=.. p90_us=.. p99_us=.. max_us=.. min_us=.. bytes_med=..
 *   bench_nested_read cmpf32 NPY RAW
 *       Compare a float32 .npy (the mount's view; its 128-byte header skipped)
 *       with raw float32 values: count, exact (values bit-identical), max_abs
 *       (largest |a - b|), rms_abs, max_rel and mean_rel (|a - b| / |b| over values
 *       with |b| >= 1e-3).
 *   bench_nested_read slide-stats TABLE LEAF
 *       Bytes of each part of the column's sliding-window pages summed over the
 *       pages (docs/FORMAT.md, "Sliding-window pages"): page headers, each
 *       metadata stream with the scheme the encoder chose, the bulk's length
 *       stream and bits, zstd-compressed pages; one key=value line. */
/* Internal headers, on purpose: no mode but readfiles and cmpf32 can be written
 * with include/ingot.h alone without losing what it measures.
 *   decode       times ig_reader_load itself; through ingot_read_fixed the
 *                figure would include rendering each page at the column's width
 *                and copying it into the caller's buffer (ig_render_fixed).
 *   slide-stats  walks the bytes of sliding-window pages (page records, page
 *                bodies, prefix-code tables): the public API has no page view.
 *   public       sizes its buffer from the pages' live value counts: ingot.h
 *                has no count of a list column's elements (ingot_read_fixed
 *                only says -ENOSPC), nor the stored bytes and pages it reports.
 * Internal names change with refactors; the test suite's release step builds
 * this file (-Dbench=enabled) so such a change cannot break it unseen. */
#include "format/part/footer.h"
#include "format/layout.h"
#include "format/page/page.h"
#include "format/ops/reader.h"
#include "format/part/table.h"
#include "format/model/values.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/pcode.h"
#include "ingot.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static _Noreturn void fail(const char *what, const struct ig_error *e)
{
    fprintf(stderr, "bench_nested_read: %s: %s\n", what, e->msg);
    exit(1);
}

struct pass {
    uint64_t pages, rows, values, stored, sum;
};

/* One pass over every page of the leaf. */
static void decode_pass(struct ig_table *t, const struct ig_column_ref *c, struct ig_reader *r,
                        struct ig_values *v, float *f32, size_t f32_cap, struct pass *ps)
{
    struct ig_error e = {0};
    memset(ps, 0, sizeof *ps);
    for (uint32_t g = 0; g < t->num_groups; g++) {
        uint32_t pi, lg, first, count;
        struct ig_grouprec gr;
        if (ig_table_group(t, g, &pi, &lg) || ig_part_group(&t->parts[pi], lg, &gr, &e) ||
            ig_part_chunk(&t->parts[pi], lg, c->rec.leaf, &first, &count, &e))
            fail("group", &e);
        for (uint32_t pg = first; pg < first + count; pg++) {
            struct ig_pagerec rec;
            const uint8_t *del;
            if (ig_reader_load(r, &(struct ig_page_at){&t->parts[pi], c, pg, gr.first_row}, &rec, v, &del, &e))
                fail("load", &e);
            size_t lanes = v->n; /* value lanes (a vector row holds D of them) */
            if (f32) {
                if (lanes > f32_cap) {
                    fprintf(stderr, "bench_nested_read: page of %zu lanes\n", lanes);
                    exit(1);
                }
                uint64_t s = 0;
                for (size_t i = 0; i < lanes; i++) {
                    uint32_t b = (uint32_t)v->lanes[i];
                    memcpy(&f32[i], &b, 4);
                }
                for (size_t i = 0; i < lanes;
                     i++) { /* consume the output: sum of the bit patterns */
                    uint32_t b;
                    memcpy(&b, &f32[i], 4);
                    s += b;
                }
                ps->sum += s;
            } else if (v->is_bytes) { /* strings and binary: their lengths (no lanes) */
                uint64_t s = 0;
                for (size_t i = 0; i < lanes; i++) {
                    size_t len;
                    ig_values_bytes(v, i, &len);
                    s += len;
                }
                ps->sum += s;
            } else {
                uint64_t s = 0;
                for (size_t i = 0; i < lanes; i++)
                    s += v->lanes[i];
                ps->sum += s;
            }
            ps->pages++;
            ps->rows += rec.row_count;
            ps->values += lanes;
            ps->stored += rec.stored;
        }
    }
}

static int cmd_decode(const char *dir, const char *leaf, int runs, int want_f32)
{
    struct ig_table t;
    struct ig_error e = {0};
    if (ig_table_open(&t, dir, false, &e)) fail(dir, &e);
    struct ig_column_ref c;
    if (ig_table_column(&t, leaf, strlen(leaf), &c, &e)) fail(leaf, &e);
    if (c.rec.leaf == IG_NONE) {
        fprintf(stderr, "bench_nested_read: %s is not a leaf column\n", leaf);
        return 1;
    }
    struct ig_reader r;
    memset(&r, 0, sizeof r);
    struct ig_values v;
    ig_values_init(&v, c.rec.type);
    size_t f32_cap = want_f32 ? (size_t)64 << 20 : 0; /* lanes per page, at most */
    float *f32 = want_f32 ? malloc(f32_cap * sizeof *f32) : NULL;
    if (want_f32 && !f32) return 1;
    struct pass ps;
    decode_pass(&t, &c, &r, &v, f32, f32_cap, &ps); /* untimed: page cache, buffers */
    double *secs = calloc((size_t)runs, sizeof *secs);
    if (!secs) return 1;
    for (int i = 0; i < runs; i++) {
        double t0 = now();
        decode_pass(&t, &c, &r, &v, f32, f32_cap, &ps);
        secs[i] = now() - t0;
    }
    qsort(secs, (size_t)runs, sizeof *secs, cmp_d);
    double med = secs[(runs - 1) / 2];
    uint64_t out = ps.values * (want_f32 ? 4 : 8);
    printf("runs=%d pages=%" PRIu64 " rows=%" PRIu64 " values=%" PRIu64 " stored_bytes=%" PRIu64
           " secs_med=%.5f secs_min=%.5f secs_max=%.5f out_bytes=%" PRIu64 " gbps_med=%.3f"
           " stored_gbps_med=%.3f sum=%" PRIu64 "\n",
           runs, ps.pages, ps.rows, ps.values, ps.stored, med, secs[0], secs[runs - 1], out,
           (double)out / med / 1e9, (double)ps.stored / med / 1e9, ps.sum);
    free(secs);
    free(f32);
    ig_values_free(&v);
    ig_reader_free(&r);
    ig_table_close(&t);
    return 0;
}

/* ---- public: ingot_read_fixed ---- */
static int cmd_public(const char *dir, const char *leaf, int runs)
{
    /* how many values: the page extras' live values of the leaf (internal) */
    struct ig_table it;
    struct ig_error e = {0};
    if (ig_table_open(&it, dir, false, &e)) fail(dir, &e);
    struct ig_column_ref c;
    if (ig_table_column(&it, leaf, strlen(leaf), &c, &e)) fail(leaf, &e);
    uint64_t values = 0, stored = 0, pages = 0;
    for (uint32_t pi = 0; pi < it.nparts; pi++)
        for (uint32_t pg = 0; pg < it.parts[pi].num_pages; pg++) {
            struct ig_pagerec rec;
            struct ig_pagex px;
            if (ig_part_page(&it.parts[pi], pg, &rec, &e) ||
                ig_part_page_extra(&it.parts[pi], pg, &px, &e))
                fail("page", &e);
            if (rec.leaf != c.rec.leaf) continue;
            values += c.li.levels ? (uint64_t)px.live_values : rec.row_count - rec.deleted;
            stored += rec.stored;
            pages++;
        }
    ig_table_close(&it);

    ingot_table *t;
    char eb[512];
    if (ingot_open(dir, &t, eb, sizeof eb)) {
        fprintf(stderr, "bench_nested_read: %s\n", eb);
        return 1;
    }
    uint32_t col;
    enum ingot_type type;
    if (ingot_column_find(t, leaf, &col) || ingot_column_type(t, col, &type, NULL)) {
        fprintf(stderr, "bench_nested_read: no column %s\n", leaf);
        return 1;
    }
    size_t w = ingot_type_width(type), cap = (size_t)values * w;
    uint8_t *out = malloc(cap ? cap : 1);
    if (!out) {
        fprintf(stderr, "bench_nested_read: cannot allocate %zu bytes\n", cap);
        return 1;
    }
    memset(out, 0, cap); /* fault the buffer in: not part of the decode */
    double *secs = calloc((size_t)runs + 1, sizeof *secs);
    int64_t n = 0;
    for (int i = 0; i <= runs; i++) { /* run 0 untimed */
        double t0 = now();
        n = ingot_read_fixed(t, col, INGOT_ALL_GROUPS, out, cap, NULL, eb, sizeof eb);
        secs[i] = now() - t0;
        if (n < 0) {
            fprintf(stderr, "bench_nested_read: ingot_read_fixed: %s\n", eb);
            return 1;
        }
    }
    qsort(secs + 1, (size_t)runs, sizeof *secs, cmp_d);
    double med = secs[1 + (runs - 1) / 2];
    uint64_t sum = 0;
    for (int64_t i = 0; i < n; i++) {
        uint64_t x = 0;
        memcpy(&x, out + (size_t)i * w, w);
        sum += x;
    }
    uint64_t ob = (uint64_t)n * w;
    printf("runs=%d pages=%" PRIu64 " values=%" PRId64 " width=%zu stored_bytes=%" PRIu64
           " secs_med=%.5f secs_min=%.5f secs_max=%.5f out_bytes=%" PRIu64
           " gbps_med=%.3f sum=%" PRIu64 "\n",
           runs, pages, n, w, stored, med, secs[1], secs[runs], ob, (double)ob / med / 1e9, sum);
    free(secs);
    free(out);
    ingot_close(t);
    return 0;
}

/* ---- readfiles ---- */
static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}
static int cmd_readfiles(int n, char **files)
{
    double *us = calloc((size_t)n, sizeof *us);
    uint64_t *bytes = calloc((size_t)n, sizeof *bytes);
    size_t cap = (size_t)1 << 20;
    char *buf = malloc(cap);
    if (!us || !bytes || !buf) return 1;
    for (int i = 0; i < n; i++) {
        double t0 = now();
        int fd = open(files[i], O_RDONLY);
        if (fd < 0) {
            perror(files[i]);
            return 1;
        }
        uint64_t got = 0;
        for (;;) {
            ssize_t k = read(fd, buf, cap);
            if (k < 0) {
                perror(files[i]);
                return 1;
            }
            if (k == 0) break;
            got += (uint64_t)k;
        }
        close(fd);
        us[i] = (now() - t0) * 1e6;
        bytes[i] = got;
    }
    qsort(us, (size_t)n, sizeof *us, cmp_d);
    qsort(bytes, (size_t)n, sizeof *bytes, cmp_u64);
#define PCT(p) us[(size_t)((p) * (n - 1) + 0.5)]
    printf("n=%d p50_us=%.1f p90_us=%.1f p99_us=%.1f max_us=%.1f min_us=%.1f bytes_med=%" PRIu64
           "\n",
           n, PCT(0.5), PCT(0.9), PCT(0.99), us[n - 1], us[0], bytes[(n - 1) / 2]);
#undef PCT
    free(us);
    free(bytes);
    free(buf);
    return 0;
}

/* ---- cmpf32 ---- */
static int cmd_cmpf32(const char *npy, const char *raw)
{
    FILE *a = fopen(npy, "rb"), *b = fopen(raw, "rb");
    if (!a || !b) {
        perror(!a ? npy : raw);
        return 1;
    }
    if (fseek(a, 128, SEEK_SET)) {
        perror(npy);
        return 1;
    }
    enum { N = 1 << 16 };
    static float x[N], y[N];
    uint64_t count = 0, exact = 0, nrel = 0;
    double max_abs = 0, sum_sq = 0, max_rel = 0, sum_rel = 0;
    for (;;) {
        size_t na = fread(x, sizeof *x, N, a), nb = fread(y, sizeof *y, N, b);
        if (na != nb) {
            fprintf(stderr, "bench_nested_read: %s and %s differ in length\n", npy, raw);
            return 1;
        }
        if (!na) break;
        for (size_t i = 0; i < na; i++) {
            double d = fabs((double)x[i] - (double)y[i]);
            exact += memcmp(&x[i], &y[i], 4) == 0;
            if (d > max_abs) max_abs = d;
            sum_sq += d * d;
            if (fabs(y[i]) >= 1e-3) {
                double r = d / fabs(y[i]);
                if (r > max_rel) max_rel = r;
                sum_rel += r;
                nrel++;
            }
        }
        count += na;
    }
    fclose(a);
    fclose(b);
    printf("count=%" PRIu64 " exact=%" PRIu64
           " max_abs=%.3g rms_abs=%.3g max_rel=%.3g mean_rel=%.3g\n",
           count, exact, max_abs, count ? sqrt(sum_sq / (double)count) : 0.0, max_rel,
           nrel ? sum_rel / (double)nrel : 0.0);
    return 0;
}

/* ---- slide-stats ---- */
static const char *const scheme_names[] = {"auto", "plain", "bitpack", "varint",
                                           "rle",  "dict",  "for",     "delta"};
static const char *const part_names[] = {"kind", "len",       "start",      "head",
                                         "tail", "base_rows", "base_value", "base_bit"};
#define NPARTS 8

struct slide_stats {
    uint64_t pages, zstd_pages, stored, body, hdr, meta[NPARTS], bulk_len, bulk_bits, bulk_stream,
        bulk_values, bits_kind_pages, coded_pages, rows, bases, dict_pages, bulk_dict;
    uint64_t scheme[NPARTS + 1][8]; /* pages choosing each scheme, per part (+ bulk lengths) */
};

static int take_stream(const uint8_t **p, const uint8_t *end, uint64_t *bytes,
                       uint64_t *scheme_count)
{
    if (end - *p < 4) return -1;
    uint32_t n = ig_ld32(*p);
    if ((size_t)(end - *p) < 4 + (size_t)n) return -1;
    if (n && (*p)[4] < 8) scheme_count[(*p)[4]]++;
    *bytes += 4 + (uint64_t)n;
    *p += 4 + n;
    return 0;
}

/* A prefix-coded bulk (table, then per value a length code and its low bits):
 * bytes of length codes (the table included) and of low bits, by walking it. */
static int coded_split(const uint8_t *p, const uint8_t *end, uint64_t nvalues, uint64_t *len_bytes,
                       uint64_t *bit_bytes)
{
    if (end - p < IG_PCODE_TABLE_BYTES) return -1;
    struct ig_pcode c;
    ig_pcode_load(p, &c);
    if (ig_pcode_build(&c, 1)) return -1;
    const uint8_t *b = p + IG_PCODE_TABLE_BYTES;
    uint64_t nbits = (uint64_t)(end - b) * 8, pos = 0, code_bits = 0, low_bits = 0;
    for (uint64_t j = 0; j < nvalues && pos < nbits; j++) {
        uint64_t peek = 0;
        for (unsigned q = 0; q < c.max_len && pos + q < nbits; q++)
            peek |= (uint64_t)((b[(pos + q) / 8] >> ((pos + q) % 8)) & 1) << q;
        unsigned n;
        int sym = ig_pcode_decode(&c, peek, &n);
        if (sym < 0) break;
        pos += n + (sym > 1 ? (unsigned)sym - 1 : 0);
        code_bits += n;
        low_bits += sym > 1 ? (unsigned)sym - 1 : 0;
    }
    ig_pcode_free(&c);
    uint64_t total = (uint64_t)(end - p);
    *bit_bytes += low_bits / 8;
    *len_bytes += total - low_bits / 8; /* table, codes and the last byte's padding */
    (void)code_bits;
    return 0;
}

static int cmd_slide_stats(const char *dir, const char *leaf)
{
    struct ig_table t;
    struct ig_error e = {0};
    if (ig_table_open(&t, dir, false, &e)) fail(dir, &e);
    struct ig_column_ref c;
    if (ig_table_column(&t, leaf, strlen(leaf), &c, &e)) fail(leaf, &e);
    struct ig_reader r;
    memset(&r, 0, sizeof r);
    struct slide_stats st;
    memset(&st, 0, sizeof st);
    uint64_t other_pages = 0;
    for (uint32_t g = 0; g < t.num_groups; g++) {
        uint32_t pi, lg, first, count;
        if (ig_table_group(&t, g, &pi, &lg) ||
            ig_part_chunk(&t.parts[pi], lg, c.rec.leaf, &first, &count, &e))
            fail("group", &e);
        for (uint32_t pg = first; pg < first + count; pg++) {
            struct ig_pagerec rec;
            const uint8_t *body;
            if (ig_part_page(&t.parts[pi], pg, &rec, &e) ||
                ig_reader_fetch(&r, &t.parts[pi], pg, &rec, &e) ||
                ig_page_body(r.stored.data, &rec, &r.s, &body, &e))
                fail("page", &e);
            if (rec.encoding != IG_PAGE_ENC_SLIDE) {
                other_pages++;
                continue;
            }
            st.pages++;
            st.zstd_pages += rec.compression == IG_PC_ZSTD;
            st.stored += rec.stored;
            st.body += rec.body_size;
            st.rows += rec.row_count;
            const uint8_t *p = body + IG_BODY_HDR, *end = body + rec.body_size;
            if (end - p < 16) goto bad;
            st.bases += ig_ld32(p + 4);
            int bits_kind = p[8];
            st.bulk_values += ig_ld32(p + 12);
            p += 16;
            st.hdr += IG_BODY_HDR + 16;
            for (int k = 0; k < NPARTS; k++)
                if (take_stream(&p, end, &st.meta[k], st.scheme[k])) goto bad;
            if (bits_kind == 3) { /* the dictionary bulk (format 7): its bytes whole */
                st.dict_pages++;
                st.bulk_dict += (uint64_t)(end - p);
            } else if (bits_kind == 2) {
                st.coded_pages++;
                if (coded_split(p, end, ig_ld32(body + IG_BODY_HDR + 12), &st.bulk_len,
                                &st.bulk_bits))
                    goto bad;
            } else if (bits_kind) {
                st.bits_kind_pages++;
                if (take_stream(&p, end, &st.bulk_len, st.scheme[NPARTS])) goto bad;
                st.bulk_bits += (uint64_t)(end - p);
            } else {
                st.bulk_stream += (uint64_t)(end - p);
            }
        }
    }
    printf("pages=%" PRIu64 " other_pages=%" PRIu64 " zstd_pages=%" PRIu64 " rows=%" PRIu64
           " bases=%" PRIu64 " bulk_values=%" PRIu64 " bits_kind_pages=%" PRIu64
           " coded_pages=%" PRIu64 " stored=%" PRIu64 " body=%" PRIu64 " headers=%" PRIu64,
           st.pages, other_pages, st.zstd_pages, st.rows, st.bases, st.bulk_values,
           st.bits_kind_pages, st.coded_pages, st.stored, st.body, st.hdr);
    for (int k = 0; k < NPARTS; k++)
        printf(" %s=%" PRIu64, part_names[k], st.meta[k]);
    printf(" bulk_lengths=%" PRIu64 " bulk_bits=%" PRIu64 " bulk_stream=%" PRIu64 " dict_pages=%" PRIu64
           " bulk_dict=%" PRIu64,
           st.bulk_len, st.bulk_bits, st.bulk_stream, st.dict_pages, st.bulk_dict);
    for (int k = 0; k <= NPARTS; k++) {
        printf(" %s_schemes=", k < NPARTS ? part_names[k] : "bulk_lengths");
        int any = 0;
        for (int s = 0; s < 8; s++)
            if (st.scheme[k][s])
                printf("%s%s:%" PRIu64, any++ ? "," : "", scheme_names[s], st.scheme[k][s]);
        if (!any) printf("-");
    }
    printf("\n");
    ig_reader_free(&r);
    ig_table_close(&t);
    return 0;
bad:
    fprintf(stderr, "bench_nested_read: a sliding-window page does not parse\n");
    return 1;
}

int main(int argc, char **argv)
{
    if (argc >= 4 && !strcmp(argv[1], "decode")) {
        int runs = 5, f32 = 0;
        for (int i = 4; i < argc; i++) {
            if (!strcmp(argv[i], "--runs") && i + 1 < argc)
                runs = atoi(argv[++i]);
            else if (!strcmp(argv[i], "--f32"))
                f32 = 1;
            else
                goto usage;
        }
        return cmd_decode(argv[2], argv[3], runs < 1 ? 1 : runs, f32);
    }
    if (argc >= 4 && !strcmp(argv[1], "public")) {
        int runs = argc == 6 && !strcmp(argv[4], "--runs") ? atoi(argv[5]) : 5;
        if (argc != 4 && argc != 6) goto usage;
        return cmd_public(argv[2], argv[3], runs < 1 ? 1 : runs);
    }
    if (argc == 4 && !strcmp(argv[1], "cmpf32")) return cmd_cmpf32(argv[2], argv[3]);
    if (argc >= 3 && !strcmp(argv[1], "readfiles")) return cmd_readfiles(argc - 2, argv + 2);
    if (argc == 4 && !strcmp(argv[1], "slide-stats")) return cmd_slide_stats(argv[2], argv[3]);
usage:
    fprintf(stderr, "usage: bench_nested_read decode TABLE LEAF [--runs N] [--f32]\n"
                    "       bench_nested_read public TABLE LEAF [--runs N]\n"
                    "       bench_nested_read readfiles FILE...\n"
                    "       bench_nested_read cmpf32 NPY RAW\n"
                    "       bench_nested_read slide-stats TABLE LEAF\n");
    return 2;
}
