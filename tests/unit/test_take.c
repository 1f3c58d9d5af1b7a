/* Rows by id (ingot_take, format/ops/take.h): what one block yields equals what
 * the whole page yields, for every encoding, with NULLs, empty values, values
 * larger than a block, erased rows and ids out of range. */
#include "check.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "ingot.h"
#include "format/layout.h"
#include "format/enc/codec.h"
#include "format/model/schema.h"
#include "format/model/types.h"
#include "format/ops/erase.h"
#include "format/ops/reader.h"
#include "format/ops/take.h"
#include "format/ops/verify.h"
#include "format/part/table.h"
#include "format/part/writer.h"
#include "import/import.h"
#include "util/buf.h"
#include "util/error.h"

#define ROWS 3000
enum { C_ID, C_SMALL, C_F32, C_TEXT, C_WORD, C_BIN, NCOLS };

static char dir[64];
/* The writer's default blocks, fitted to 4 KiB disk pages (page.h, struct
 * ig_block_fit): one row group, so the text column holds enough to be fitted. */
static bool fitted;

static uint64_t rng;
static uint64_t table_seed; /* make_table's values: check_seed's, or a fixed one */
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Finish a table of one part in d: the writer w's part of `rows` rows, and
 * the MANIFEST naming it. 0 or the error (in err). */
static int finish_one_part(const char *d, struct ig_part_writer *w, uint64_t rows, struct ig_error *err)
{
    int rc = ig_part_writer_finish(w, err);
    ig_part_writer_free(w);
    struct ig_manifest m = {0};
    ig_manifest_add(&m, "part-000000.ingot", 0, rows);
    if (!rc) rc = ig_manifest_write(d, &m, err);
    ig_manifest_free(&m);
    return rc;
}

/* A table whose columns all use `enc` where the type allows it (0: auto), two
 * row groups, small pages of several blocks. */
static int make_table(uint8_t enc)
{
    strcpy(dir, "/tmp/ingot-take-XXXXXX");
    if (!mkdtemp(dir)) return -1;
    struct ig_schema s = {0};
    ig_schema_add(&s, "id", 2, IG_T_INT64, false, NULL);
    ig_schema_add(&s, "small", 5, IG_T_INT32, true, NULL);
    ig_schema_add(&s, "f", 1, IG_T_FLOAT32, true, NULL);
    ig_schema_add(&s, "text", 4, IG_T_STRING, true, NULL);
    ig_schema_add(&s, "word", 4, IG_T_STRING, false, NULL);
    ig_schema_add(&s, "bin", 3, IG_T_BINARY, true, NULL);
    bool ints = enc != IG_ENC_SPLIT && enc != IG_ENC_HUFF;
    for (int c = 0; c < NCOLS; c++) {
        bool bytes = c == C_TEXT || c == C_WORD || c == C_BIN;
        if (enc == IG_ENC_PLAIN || enc == IG_ENC_DICT || (!bytes && ints) ||
            (enc == IG_ENC_HUFF && bytes) ||
            (enc == IG_ENC_SPLIT && (c == C_F32)))
            s.cols[c].encoding = enc;
        s.cols[c].page_size = 16384;
    }
    if (ig_schema_finish(&s, NULL)) return -1;
    struct ig_writer_opts o;
    ig_writer_opts_default(&o);
    o.rows_per_group = fitted ? ROWS : 2000;
    o.block_size = fitted ? 0 : 1024;
    char path[128];
    snprintf(path, sizeof path, "%s/part-000000.ingot", dir);
    struct ig_part_writer *w;
    struct ig_error err = {0};
    if (ig_part_writer_open(&w, path, &s, &o, 0, &err)) return -1;
    rng = ((table_seed ? table_seed : check_seed) ^ 0x5DEECE66DULL) | 1; /* never 0 */
    char big[6000];
    for (uint64_t r = 0; r < ROWS; r++) {
        ig_values_push_lane(ig_part_writer_column(w, C_ID), r * 7 + 1);
        if (r % 5 == 0)
            ig_values_push_null(ig_part_writer_column(w, C_SMALL));
        else
            ig_values_push_lane(ig_part_writer_column(w, C_SMALL), (uint32_t)(int32_t)(r % 50 - 25));
        float fv = (float)(next() % 1000) / 8.0f;
        uint32_t fb;
        memcpy(&fb, &fv, 4);
        if (r % 11 == 3)
            ig_values_push_null(ig_part_writer_column(w, C_F32));
        else
            ig_values_push_lane(ig_part_writer_column(w, C_F32), fb);
        size_t n = r % 97 == 0 ? 5000 + r % 700 : r % 13 == 0 ? 0 : next() % 120;
        for (size_t i = 0; i < n; i++)
            big[i] = (char)('a' + next() % 26);
        if (r % 17 == 1)
            ig_values_push_null(ig_part_writer_column(w, C_TEXT));
        else
            ig_values_push_bytes(ig_part_writer_column(w, C_TEXT), big, n);
        char word[16];
        int wl = snprintf(word, sizeof word, "w%u", (unsigned)(next() % 9));
        ig_values_push_bytes(ig_part_writer_column(w, C_WORD), word, (size_t)wl);
        uint8_t bin[3] = {(uint8_t)r, 0, (uint8_t)(r >> 8)};
        if (r % 7 == 2)
            ig_values_push_null(ig_part_writer_column(w, C_BIN));
        else
            ig_values_push_bytes(ig_part_writer_column(w, C_BIN), bin, r % 3);
        if (ig_part_writer_end_row(w, &err)) return -1;
    }
    int rc = finish_one_part(dir, w, ROWS, &err);
    ig_schema_free(&s);
    if (rc) fprintf(stderr, "  make_table: %s\n", err.msg);
    return rc;
}

/* Every row of column col, decoded page by page (the reference). */
static int whole_column(struct ig_table *t, uint32_t col, struct ig_values *all)
{
    struct ig_column_ref c;
    struct ig_reader r = {0};
    struct ig_values v;
    struct ig_error e = {0};
    ig_values_init(&v, IG_T_INT64);
    int rc = ig_table_column_at(t, col, &c, &e);
    ig_values_retype(all, c.rec.type);
    for (uint32_t g = 0; g < t->num_groups && !rc; g++) {
        uint32_t first = 0, count = 0;
        struct ig_grouprec gr;
        rc = ig_part_group(&t->parts[0], g, &gr, &e);
        if (!rc) rc = ig_part_chunk(&t->parts[0], g, c.rec.leaf, &first, &count, &e);
        for (uint32_t pg = first; !rc && pg < first + count; pg++) {
            struct ig_pagerec rec;
            const uint8_t *del;
            ig_values_reset(&v);
            rc = ig_reader_load(&r, &(struct ig_page_at){&t->parts[0], &c, pg, gr.first_row}, &rec, &v, &del, &e);
            for (size_t i = 0; !rc && i < v.n; i++) {
                size_t len;
                const uint8_t *p;
                if (ig_values_is_null(&v, i))
                    rc = ig_values_push_null(all);
                else if (v.is_bytes)
                    p = ig_values_bytes(&v, i, &len), rc = ig_values_push_bytes(all, p, len);
                else
                    rc = ig_values_push_lane(all, v.lanes[i]);
            }
        }
    }
    if (rc) fprintf(stderr, "  whole_column: %s\n", e.msg);
    ig_values_free(&v);
    ig_reader_free(&r);
    return rc;
}

/* The batch's column k for ids equals the reference at every found row. */
static void compare(const ingot_batch *b, size_t k, const uint64_t *ids, size_t n,
                    const struct ig_values *ref)
{
    const uint8_t *valid = NULL;
    const uint8_t *fixed = ingot_batch_fixed(b, k, &valid);
    const struct ig_type_info *ti = ig_type_info(ref->type);
    for (size_t i = 0; i < n; i++) {
        if (!ingot_batch_found(b, i)) continue;
        uint64_t row = ids[i];
        bool null = ig_values_is_null(ref, row);
        size_t len;
        const uint8_t *p = ingot_batch_value(b, k, i, &len);
        if (ref->is_bytes) {
            CHECK(!fixed);
            size_t rlen;
            const uint8_t *rp = ig_values_bytes(ref, row, &rlen);
            if (null) {
                CHECK(p == NULL);
            } else {
                REQUIRE(p != NULL || rlen == 0);
                CHECK_EQ_INT(len, rlen);
                CHECK(len != rlen || !len || !memcmp(p, rp, len));
            }
            continue;
        }
        REQUIRE(fixed);
        CHECK_EQ_INT(valid[i], !null);
        if (!null) {
            uint64_t lane = 0;
            memcpy(&lane, fixed + i * ti->width, ti->width);
            uint64_t mask = ti->width == 8 ? ~0ULL : (1ULL << (8 * ti->width)) - 1;
            CHECK_EQ_INT(lane, ref->lanes[row] & mask);
        }
    }
}

static void take_matches_pages(uint8_t enc)
{
    REQUIRE(make_table(enc) == 0);
    uint64_t erased[] = {4, 18, 97, 1999, 2000, 2999}; /* 18: a NULL text; 97: one past a block */
    struct ig_erase_request req = {erased, 6, NULL, 0, "test"};
    struct ig_erase_report rep;
    struct ig_error err = {0};
    REQUIRE(ig_erase(dir, &req, &rep, &err) == 0);
    free(rep.ids);
    /* the erase read only the erased values where it could (their text length
     * leaves the page's); a deep verify renders every value and agrees */
    struct ig_verify_hooks deep = {.deep = true};
    struct ig_verify_report vr;
    REQUIRE(ig_verify_table(dir, &deep, &vr, &err) == 0);
    CHECK_EQ_INT(vr.failures, 0);
    CHECK_EQ_INT(vr.unscrubbed, 0);

    struct ig_table t;
    REQUIRE(ig_table_open(&t, dir, false, &err) == 0);
    struct ig_values ref[NCOLS];
    for (int c = 0; c < NCOLS; c++) {
        ig_values_init(&ref[c], IG_T_INT64);
        CHECK(whole_column(&t, (uint32_t)c, &ref[c]) == 0);
        CHECK_EQ_INT(ref[c].n, ROWS); /* erased rows are still decoded, as their erased form */
    }
    ig_table_close(&t);

    ingot_table *it;
    char eb[256];
    REQUIRE(ingot_open(dir, &it, eb, sizeof eb) == 0);
    enum { N = 700 };
    uint64_t ids[N];
    for (size_t i = 0; i < N; i++) /* random, repeated, and the edges */
        ids[i] = i < 6 ? erased[i] : i == 6 ? ROWS : i == 7 ? UINT64_MAX : next() % ROWS;
    uint32_t cols[NCOLS] = {C_TEXT, C_ID, C_SMALL, C_F32, C_WORD, C_BIN};
    for (int round = 0; round < 2; round++) { /* the second reuses the handle's blocks */
        ingot_batch *b;
        REQUIRE(ingot_take(it, ids, N, cols, NCOLS, &b, eb, sizeof eb) == 0);
        CHECK_EQ_INT(ingot_batch_rows(b), N);
        for (size_t i = 0; i < 8; i++)
            CHECK(!ingot_batch_found(b, i));
        size_t found = 0;
        for (size_t i = 8; i < N; i++)
            found += (size_t)ingot_batch_found(b, i);
        CHECK(found > N - 40);
        for (size_t k = 0; k < NCOLS; k++)
            compare(b, k, ids, N, &ref[cols[k]]);
        ingot_batch_free(b);
    }
    /* rows far apart, one to a block: fixed-width values read alone (a lane
     * each, ig_page_decode_picked), NULLs among them (400, 1400) and a row
     * after two erased ones (2001: an rle stream dropped them) */
    uint64_t sparse[] = {4, 400, 900, 1400, 1691, 2001, 2500, 2999};
    size_t ns = sizeof sparse / sizeof *sparse;
    ingot_batch *b;
    REQUIRE(ingot_take(it, sparse, ns, cols, NCOLS, &b, eb, sizeof eb) == 0);
    for (size_t i = 0; i < ns; i++)
        CHECK_EQ_INT(ingot_batch_found(b, i), sparse[i] != 4 && sparse[i] != 2999);
    for (size_t k = 0; k < NCOLS; k++)
        compare(b, k, sparse, ns, &ref[cols[k]]);
    ingot_batch_free(b);
    ingot_close(it);
    for (int c = 0; c < NCOLS; c++)
        ig_values_free(&ref[c]);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
}

/* A byte written into the zeros ahead of the first late block (offset `at`
 * of the part file) fails a verify; zero again, it passes. */
static void gap_checked(uint64_t at)
{
    char path[160];
    snprintf(path, sizeof path, "%s/part-000000.ingot", dir);
    int fd = open(path, O_WRONLY);
    REQUIRE(fd >= 0);
    struct ig_verify_hooks plain = {0};
    struct ig_verify_report vr;
    struct ig_error err = {0};
    for (int k = 0; k < 2; k++) {
        uint8_t b = k ? 0 : 0x5A;
        REQUIRE(pwrite(fd, &b, 1, (off_t)at) == 1);
        REQUIRE(ig_verify_table(dir, &plain, &vr, &err) == 0);
        if (k)
            CHECK_EQ_INT(vr.failures, 0);
        else
            CHECK(vr.failures > 0);
    }
    close(fd);
}

/* Every block of the text column lies inside one 4 KiB page of the file, but
 * for blocks of one row bigger than that; *nblocks: how many there are,
 * *late: pages whose first block starts on a later disk page than the page,
 * *gap_at: where the first of them begins (its zeros). */
static void text_blocks_inside_pages(uint32_t *nblocks, uint32_t *late, uint64_t *gap_at)
{
    struct ig_table t;
    struct ig_error err = {0};
    REQUIRE(ig_table_open(&t, dir, false, &err) == 0);
    const struct ig_part *p = &t.parts[0];
    struct ig_column_ref c;
    REQUIRE(ig_table_column_at(&t, C_TEXT, &c, &err) == 0);
    uint32_t n = 0, straddling = 0, big = 0;
    *late = 0;
    uint64_t total = 0;
    for (uint32_t pg = 0; pg < p->num_pages; pg++) {
        struct ig_pagerec rec, blk;
        REQUIRE(ig_part_page(p, pg, &rec, &err) == 0);
        if (rec.leaf != c.rec.leaf) continue;
        for (uint32_t b = 0; b < ig_page_nblocks(&rec); b++) {
            REQUIRE(ig_part_block(p, pg, &rec, b, &blk, &err) == 0);
            n++;
            if (b == 0 && blk.offset > rec.offset && !(*late)++) *gap_at = rec.offset;
            total += blk.stored;
            if (blk.stored > 4096) {
                CHECK_EQ_INT(blk.row_count, 1);
                big++;
            } else if (blk.offset / 4096 != (blk.offset + blk.stored - 1) / 4096) {
                straddling++;
            }
        }
    }
    CHECK_EQ_INT(straddling, 0);
    /* aimed at a disk page, not at 1 KiB (about 600 bytes stored): pages of
     * 16 KiB of text end in a part-filled block, and a block ends early
     * where a value of 5 KiB does not fit its room, so these average 2.03 to
     * 2.1 KB over seeds 1 to 60 (half a disk page failed seeds 54 and 55) */
    CHECK(total > (uint64_t)(n - big) * 1536);
    ig_table_close(&t);
    *nblocks = n;
}

static void test_take_fitted(void)
{
    fitted = true;
    /* the run's values, and values (seed 6) where a page's first block is too
     * big for what the page before left of its disk page: it starts on the
     * next one, after zeros in its page's extent (it had straddled the two) */
    uint64_t seeds[] = {0, 6};
    for (size_t k = 0; k < 2; k++) {
        table_seed = seeds[k];
        REQUIRE(make_table(0) == 0);
        uint32_t nblocks = 0, late = 0;
        uint64_t gap_at = 0;
        text_blocks_inside_pages(&nblocks, &late, &gap_at);
        CHECK(nblocks > 20);
        if (seeds[k]) CHECK(late > 0);
        if (late) gap_checked(gap_at); /* verify reads the zeros ahead of it */
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        CHECK(system(cmd) == 0);
        take_matches_pages(0); /* take, erase in place and a deep verify over fitted blocks */
    }
    table_seed = 0;
    take_matches_pages(IG_ENC_HUFF);
    fitted = false;
}

/* A reader keeps the contexts of as many chunks as a row of a wide table
 * needs (reader.h, IG_READER_CONTEXT_BYTES): rows taken across 12 columns of
 * FSST strings, each column's chunk with its own symbol table, read each
 * table once, not once a row (with eight slots every use missed: 36 reads).
 * And it keeps no more than IG_READER_CONTEXTS_MOST, whatever their bytes: a
 * lookup scans them, and a row of a table of 20,000 such columns would scan
 * thousands for each column. Cycling through more than that, it keeps most
 * (it lets go of the one read last, not the oldest: then every use missed). */
#define CTX_COLS 264
#define CTX_ROUND_COLS 12
#define CTX_ROWS 500

/* Column c of row r in the table make_fsst_table writes: each column its own
 * letters and tag, so each chunk gets its own symbol table. */
static int ctx_value(int c, uint64_t r, char *v, size_t cap)
{
    static const char *words[] = {"model", "batch", "epoch", "token", "sample", "weight"};
    int n = snprintf(v, cap, "%s %s", words[(r + (uint64_t)c) % 6], words[r % 5]);
    for (int k = 0; k < n; k++)
        if (v[k] != ' ') v[k] = (char)('a' + (v[k] - 'a' + 2 * c) % 26);
    return n + snprintf(v + n, cap - (size_t)n, " q%dq%d", c, c);
}

/* A table of nrows rows of ncols string columns, column c of encoding
 * enc(c) and its value of row r from value(c, r, v, cap) (its length), one
 * row group, in a new directory cdir. */
typedef int (*string_value_fn)(int c, uint64_t r, char *v, size_t cap);
static int make_string_table(char *cdir, int ncols, uint8_t (*enc)(int c), string_value_fn value,
                             uint64_t nrows)
{
    strcpy(cdir, "/tmp/ingot-ctx-XXXXXX");
    if (!mkdtemp(cdir)) return -1;
    struct ig_schema s = {0};
    for (int c = 0; c < ncols; c++) {
        char name[8];
        int n = snprintf(name, sizeof name, "s%d", c);
        ig_schema_add(&s, name, (size_t)n, IG_T_STRING, false, NULL);
        s.cols[c].encoding = enc(c);
    }
    int rc = ig_schema_finish(&s, NULL);
    struct ig_writer_opts o;
    ig_writer_opts_default(&o);
    char path[128];
    snprintf(path, sizeof path, "%s/part-000000.ingot", cdir);
    struct ig_part_writer *w = NULL;
    struct ig_error err = {0};
    if (!rc) rc = ig_part_writer_open(&w, path, &s, &o, 0, &err);
    for (uint64_t r = 0; r < nrows && !rc; r++) {
        for (int c = 0; c < ncols && !rc; c++) {
            char v[96];
            int n = value(c, r, v, sizeof v);
            rc = ig_values_push_bytes(ig_part_writer_column(w, (uint32_t)c), v, (size_t)n);
        }
        if (!rc) rc = ig_part_writer_end_row(w, &err);
    }
    if (!rc)
        rc = finish_one_part(cdir, w, nrows, &err);
    else
        ig_part_writer_free(w);
    ig_schema_free(&s);
    if (rc) fprintf(stderr, "  make_string_table: %s\n", err.msg);
    return rc;
}

static uint8_t all_fsst(int c)
{
    (void)c;
    return IG_ENC_FSST;
}

/* A table of ncols FSST string columns (ctx_value's) and nrows rows, one
 * row group, in a new directory. */
static int make_fsst_table(char *cdir, int ncols, uint64_t nrows)
{
    return make_string_table(cdir, ncols, all_fsst, ctx_value, nrows);
}

static void remove_dir(const char *d)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", d);
    CHECK(system(cmd) == 0);
}

/* make_fsst_table's table in a new directory cdir, opened as t: 0, or -1
 * (the error told). */
static int open_fsst_table(char *cdir, int ncols, uint64_t nrows, struct ig_table *t)
{
    struct ig_error err = {0};
    if (make_fsst_table(cdir, ncols, nrows)) return -1;
    if (!ig_table_open(t, cdir, false, &err)) return 0;
    fprintf(stderr, "  open_fsst_table: %s\n", err.msg);
    return -1;
}

static void close_fsst_table(struct ig_table *t, const char *cdir)
{
    ig_table_close(t);
    remove_dir(cdir);
}

/* Column c's chunk context (row group 0) through reader r. */
static int context_of(struct ig_table *t, struct ig_reader *r, uint32_t c, const struct ig_chunk_ctx **cx)
{
    struct ig_column_ref ref;
    uint32_t first = 0, count = 0;
    struct ig_error err = {0};
    *cx = NULL;
    if (ig_table_column_at(t, c, &ref, &err) || ig_part_chunk(&t->parts[0], 0, ref.rec.leaf, &first, &count, &err))
        return -1;
    return ig_reader_context(r, &t->parts[0], first, ref.rec.leaf, cx, &err);
}

/* few_values' columns: 16 country codes left to the writer, captions of
 * varied words, and the same 16 codes forced to fsst. */
static uint8_t few_values_enc(int c)
{
    return c == 2 ? IG_ENC_FSST : IG_ENC_AUTO;
}

static int few_values(int c, uint64_t r, char *v, size_t cap)
{
    static const char *const words[] = {"red", "ball", "photo", "of", "dog", "on", "green",
                                        "grass", "under", "blue", "sky", "man", "holding", "umbrella"};
    if (c != 1) return snprintf(v, cap, "country-code-%02u", (unsigned)(r % 16));
    int n = 0;
    for (uint64_t k = 0, x = r * 2654435761u; k < 4 + r % 5; k++, x /= 14)
        n += snprintf(v + n, cap - (size_t)n, "%s%s", k ? " " : "", words[x % 14]);
    return n;
}

/* The writer trains no fsst symbol table for a chunk whose values are few
 * (at most one in 16 distinct: a dictionary holds them) when the scheme is
 * its own choice (writer_plan.c, wants_table), but a column that forces fsst
 * gets one with the same few values (its blocks cannot be written without),
 * and a column of varied words beside them gets one. Fails if the skip
 * reaches the forced column. (The skip itself changes no byte here, the few
 * values' blocks never choosing fsst: it shows in import_throughput's time.) */
static void test_few_values_train_no_table(void)
{
    char cdir[64];
    REQUIRE(make_string_table(cdir, 3, few_values_enc, few_values, 20000) == 0);
    struct ig_table t;
    struct ig_error err = {0};
    REQUIRE(ig_table_open(&t, cdir, false, &err) == 0);
    struct ig_reader r = {0};
    const struct ig_chunk_ctx *few, *varied, *forced;
    REQUIRE(context_of(&t, &r, 0, &few) == 0 && context_of(&t, &r, 1, &varied) == 0);
    CHECK(!few || !few->fsst);
    CHECK(varied && varied->fsst);
    REQUIRE(context_of(&t, &r, 2, &forced) == 0);
    CHECK(forced && forced->fsst);
    ig_reader_free(&r);
    close_fsst_table(&t, cdir);
}

/* A reader keeps the contexts of as many chunks as a row of a wide table
 * needs (reader.h, IG_READER_CONTEXT_BYTES): rows taken across 12 columns of
 * FSST strings, each column's chunk with its own symbol table, read each
 * table once, not once a row (with eight slots every use missed: 36 reads).
 * And it keeps no more than IG_READER_CONTEXTS_MOST, whatever their bytes: a
 * lookup scans them, and a row of a table of 20,000 such columns would scan
 * thousands for each column. Cycling through more than that, it keeps most
 * (it lets go of the one read last, not the oldest: then every use missed). */
/* What a reader counts against IG_READER_CONTEXT_BYTES: each context's
 * entries unpacked (a packed one's frame may hold many times its size), at
 * least its stored bytes; how many it holds packed. */
static unsigned check_held(const struct ig_reader *r)
{
    uint64_t held = 0;
    unsigned packed = 0;
    for (size_t i = 0; i < r->nctx; i++) {
        const struct ig_reader_context *x = &r->ctx[i];
        if (!x->size) continue;
        CHECK(x->held >= x->size && x->held >= x->cx->bytes);
        packed += x->cx->bytes > x->size;
        held += x->held;
    }
    CHECK_EQ_INT(r->ctx_held, held);
    CHECK(r->ctx_held <= IG_READER_CONTEXT_BYTES);
    return packed;
}

static void test_reader_keeps_many_contexts(void)
{
    char cdir[64];
    struct ig_table t;
    REQUIRE(open_fsst_table(cdir, CTX_COLS, CTX_ROWS, &t) == 0);
    struct ig_reader r = {0};
    unsigned found = 0;
    for (int round = 0; round < 4; round++)
        for (uint32_t c = 0; c < (round < 3 ? CTX_ROUND_COLS : CTX_COLS); c++) {
            const struct ig_chunk_ctx *cx;
            REQUIRE(context_of(&t, &r, c, &cx) == 0);
            found += cx && cx->fsst;
        }
    CHECK_EQ_INT(found, 3 * CTX_ROUND_COLS + CTX_COLS);
    CHECK_EQ_INT(r.ctx_reads, CTX_COLS); /* the first 12 once, then the others */
    CHECK_EQ_INT(r.nctx, IG_READER_CONTEXTS_MOST);
    CHECK(check_held(&r) > 0); /* format 22: packed, and counted unpacked */
    /* all 264 again: most stay kept (letting the oldest go, none would) */
    for (uint32_t c = 0; c < CTX_COLS; c++) {
        const struct ig_chunk_ctx *cx;
        REQUIRE(context_of(&t, &r, c, &cx) == 0);
        CHECK(cx && cx->fsst);
    }
    CHECK(r.ctx_reads - CTX_COLS <= 2 * (CTX_COLS - IG_READER_CONTEXTS_MOST));
    if (r.ctx_reads - CTX_COLS > 2 * (CTX_COLS - IG_READER_CONTEXTS_MOST))
        fprintf(stderr, "  %llu reads the second time round\n", (unsigned long long)(r.ctx_reads - CTX_COLS));
    ig_reader_free(&r);
    close_fsst_table(&t, cdir);
}

/* What the visit's callback checks: each value equals what was written. */
struct ctx_visit {
    const struct ig_table *t;
    struct ig_take *tk;
    const uint64_t *ids;
    struct ig_column_ref refs[CTX_COLS];
    size_t values, wrong;
};
static int ctx_visit_value(void *ctx, size_t col, size_t i, const struct ig_row_at *at, struct ig_error *err)
{
    struct ctx_visit *cv = ctx;
    const struct ig_block_source *src = ig_take_source(cv->tk);
    struct ig_values *v;
    void *hold;
    size_t index, len;
    int rc = ig_row_leaf(cv->t, &cv->refs[col], at, src, &v, &hold, &index, err);
    if (rc) return rc;
    char want[64];
    int n = ctx_value((int)col, cv->ids[i], want, sizeof want);
    const uint8_t *p = ig_values_bytes(v, index, &len);
    cv->values++;
    cv->wrong += len != (size_t)n || memcmp(p, want, len);
    src->put(src->ctx, hold);
    return 0;
}

/* A take visits its rows column by column (take.h, ig_take_visit): 300 random
 * rows of 264 columns, more than a reader keeps contexts for, read each
 * column's context once (row by row: 538 reads) and return every value
 * as written, an id repeated and one out of range included. */
static void test_take_visits_column_by_column(void)
{
    char cdir[64];
    struct ig_table t;
    struct ig_error err = {0};
    REQUIRE(open_fsst_table(cdir, CTX_COLS, CTX_ROWS, &t) == 0);
    struct ctx_visit cv = {.t = &t};
    for (uint32_t c = 0; c < CTX_COLS; c++)
        REQUIRE(ig_table_column_at(&t, c, &cv.refs[c], &err) == 0);
    REQUIRE(ig_take_new(&t, &cv.tk) == 0);
    enum { N = 300 };
    uint64_t ids[N];
    uint8_t found[N] = {0};
    rng = (check_seed ^ 0xC0C0ULL) | 1;
    for (size_t i = 0; i < N; i++)
        ids[i] = i == 7 ? CTX_ROWS + 5 : i == 8 ? ids[3] : next() % CTX_ROWS;
    cv.ids = ids;
    REQUIRE(ig_take_visit(cv.tk, ids, N, CTX_COLS, found, ctx_visit_value, &cv, &err) == 0);
    size_t live = 0;
    for (size_t i = 0; i < N; i++)
        live += found[i];
    CHECK_EQ_INT(found[7], 0);
    CHECK_EQ_INT(live, N - 1);
    CHECK_EQ_INT(cv.values, (N - 1) * CTX_COLS);
    CHECK_EQ_INT(cv.wrong, 0);
    CHECK_EQ_INT(ig_take_contexts_read(cv.tk), CTX_COLS);
    ig_take_free(cv.tk);
    close_fsst_table(&t, cdir);
}

/* A block source that counts the blocks asked of the one it wraps. */
struct counting_source {
    const struct ig_block_source *inner;
    size_t gets;
};
static int counting_get(void *ctx, const struct ig_column_ref *ref, const struct ig_row_at *at,
                        struct ig_row_block *rb, struct ig_values **vals, void **hold, struct ig_error *err)
{
    struct counting_source *cs = ctx;
    cs->gets++;
    return cs->inner->get(cs->inner->ctx, ref, at, rb, vals, hold, err);
}
static void counting_put(void *ctx, void *hold)
{
    struct counting_source *cs = ctx;
    cs->inner->put(cs->inner->ctx, hold);
}

/* Rows [0, nrows) as JSON Lines, `step` rows asked for a call
 * (ig_rows_render_json, each call's *done rows covered), against the same rows
 * rendered one at a time by a take of their own; *calls: the calls made. The
 * take `tk` gives the blocks of the bulk render; *gets: the blocks it asked
 * for. */
static void rows_render_as_rows(const struct ig_table *t, struct ig_take *tk, uint64_t nrows, size_t step,
                                size_t *calls, size_t *gets)
{
    struct counting_source cs = {ig_take_source(tk), 0};
    const struct ig_block_source src = {counting_get, counting_put, &cs};
    struct ig_take *one;
    struct ig_error err = {0};
    REQUIRE(ig_take_new(t, &one) == 0);
    struct ig_buf bulk = IG_BUF_INIT, rows = IG_BUF_INIT;
    *calls = 0;
    for (uint64_t r = 0; r < nrows;) {
        size_t done = 0;
        REQUIRE(ig_rows_render_json(t, r, step, &src, &bulk, &done, &err) == 0);
        REQUIRE(done > 0);
        r += done;
        ++*calls;
    }
    for (uint64_t r = 0; r < nrows; r++)
        REQUIRE(ig_row_render_json(t, r, NULL, 0, ig_take_source(one), &rows, &err) == 0);
    CHECK_EQ_INT(bulk.len, rows.len);
    CHECK(bulk.len == rows.len && !memcmp(bulk.data, rows.data, bulk.len));
    ig_buf_free(&bulk);
    ig_buf_free(&rows);
    *gets = cs.gets;
    ig_take_free(one);
}

/* A table of ncols FSST columns and nrows rows made, its rows rendered as
 * JSON Lines `step` rows a call and checked against rows rendered one by one
 * (rows_render_as_rows), and removed: the calls it took, the blocks its
 * source was asked for and the chunk contexts the take read. */
static void render_wide(int ncols, uint64_t nrows, size_t step, size_t *calls, size_t *gets,
                        uint64_t *reads)
{
    char cdir[64];
    struct ig_table t;
    REQUIRE(open_fsst_table(cdir, ncols, nrows, &t) == 0);
    struct ig_take *tk;
    REQUIRE(ig_take_new(&t, &tk) == 0);
    *calls = *gets = 0;
    rows_render_as_rows(&t, tk, nrows, step, calls, gets);
    *reads = ig_take_contexts_read(tk);
    ig_take_free(tk);
    close_fsst_table(&t, cdir);
}

/* A range of rows as JSON Lines (a mount's jsonl/G.jsonl) is rendered column
 * by column however wide the table: 500 rows of 264 FSST columns, asked for
 * 97 at a time, take each column's block once for the rows it holds (row by
 * row, as past 64 columns before: once a row and column, 132,000 times), and
 * read each context once (in each later call at most the 8 its reader could
 * not keep), and equal the rows rendered one by one. */
static void test_rows_json_column_by_column(void)
{
    size_t calls, gets;
    uint64_t reads;
    render_wide(CTX_COLS, CTX_ROWS, 97, &calls, &gets, &reads);
    CHECK_EQ_INT(calls, (CTX_ROWS + 96) / 97);
    CHECK(reads >= CTX_COLS && reads <= CTX_COLS + (calls - 1) * (CTX_COLS - IG_READER_CONTEXTS_MOST));
    /* a block a get (a take's source may give a string column's block from
     * the row asked for on), not a row and column a get */
    CHECK(gets < (size_t)CTX_ROWS * CTX_COLS / 20);
    if (gets >= (size_t)CTX_ROWS * CTX_COLS / 20) fprintf(stderr, "  %zu blocks asked for\n", gets);
}

/* So wide a table that its rows' values outnumber what one call keeps (2^20
 * end offsets): 4,200 columns of 260 rows, all asked for at once, come in two
 * calls, the same bytes as row by row. */
static void test_rows_json_bounded_calls(void)
{
    enum { COLS = 4200, NROWS = 260 };
    size_t calls, gets;
    uint64_t reads;
    render_wide(COLS, NROWS, NROWS, &calls, &gets, &reads);
    CHECK_EQ_INT(calls, 2);
}

static void test_take_auto(void) { take_matches_pages(0); }
static void test_take_plain(void) { take_matches_pages(IG_ENC_PLAIN); }
static void test_take_bitpack(void) { take_matches_pages(IG_ENC_BITPACK); }
static void test_take_varint(void) { take_matches_pages(IG_ENC_VARINT); }
static void test_take_rle(void) { take_matches_pages(IG_ENC_RLE); }
static void test_take_dict(void) { take_matches_pages(IG_ENC_DICT); }
static void test_take_for(void) { take_matches_pages(IG_ENC_FOR); }
static void test_take_delta(void) { take_matches_pages(IG_ENC_DELTA); }
static void test_take_split(void) { take_matches_pages(IG_ENC_SPLIT); }
static void test_take_huffman(void) { take_matches_pages(IG_ENC_HUFF); }

/* A JSON column (not fixed, not raw bytes) and a bad column id. */
static void test_take_errors(void)
{
    REQUIRE(make_table(0) == 0);
    ingot_table *it;
    char eb[256] = "";
    REQUIRE(ingot_open(dir, &it, eb, sizeof eb) == 0);
    uint64_t ids[] = {3, 2};
    uint32_t bad = 999;
    ingot_batch *b = NULL;
    CHECK(ingot_take(it, ids, 2, &bad, 1, &b, eb, sizeof eb) < 0);
    CHECK(b == NULL);
    CHECK(eb[0] != '\0');
    ingot_close(it);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
}

/* ingot_read_text's pieces appended to a buffer */
static int append_text(void *ctx, const void *p, size_t n) { return ig_buf_append(ctx, p, n); }

/* Nested columns by id: lists (NULL lists, NULL items), lists of lists and a
 * struct of a field and a list, in blocks of many rows. A take decodes a
 * block's levels only as far as the last row it wants of the block, and the
 * whole block for a row past them: rows clustered in blocks, asked out of
 * order and twice, one at a time and in one call, each read as the column's
 * text (its whole decode) shows it. */
static void test_take_nested_rows(void)
{
    enum { NROWS = 3000 };
    char ldir[] = "/tmp/ingot-take-nested-XXXXXX";
    REQUIRE(mkdtemp(ldir));
    char in[96], tab[96];
    snprintf(in, sizeof in, "%s/in.jsonl", ldir);
    snprintf(tab, sizeof tab, "%s/t", ldir);
    FILE *f = fopen(in, "w");
    REQUIRE(f);
    uint64_t s = check_seed ^ 0x7a4e;
    for (int r = 0; r < NROWS; r++) {
        fprintf(f, "{\"id\":%d,\"l\":", r);
        if (test_rand(&s) % 20 == 0) {
            fputs("null", f);
        } else {
            fputc('[', f);
            for (int k = 0, n = (int)(test_rand(&s) % 9); k < n; k++)
                fprintf(f, k ? ",%s" : "%s", test_rand(&s) % 10 ? "7" : "null");
            fputc(']', f);
        }
        fputs(",\"m\":[", f);
        for (int j = 0, n = (int)(test_rand(&s) % 4); j < n; j++) {
            fputs(j ? ",[" : "[", f);
            for (int k = 0, c = (int)(test_rand(&s) % 4); k < c; k++)
                fprintf(f, k ? ",%d" : "%d", (int)(test_rand(&s) % 100));
            fputc(']', f);
        }
        fprintf(f, "],\"s\":{\"a\":%d,\"b\":[", (int)(test_rand(&s) % 3));
        for (int k = 0, n = (int)(test_rand(&s) % 4); k < n; k++)
            fprintf(f, k ? ",\"w%d\"" : "\"w%d\"", (int)(test_rand(&s) % 50));
        fputs("]}}\n", f);
    }
    fclose(f);
    struct ig_import_opts o = {0};
    ig_writer_opts_default(&o.w);
    o.w.page_size = 2048;
    struct ig_import_result res;
    struct ig_error err = {0};
    int rc = ig_import(in, tab, &o, &res, &err);
    if (rc) fprintf(stderr, "  import: %s\n", err.msg);
    REQUIRE(rc == 0);
    ingot_table *it;
    char eb[256] = "";
    REQUIRE(ingot_open(tab, &it, eb, sizeof eb) == 0);
    static const char *names[] = {"l", "m", "s", "s.b"};
    enum { NC = 4 };
    uint32_t cols[NC];
    struct ig_buf text[NC];
    size_t *line[NC];
    for (int c = 0; c < NC; c++) { /* each row's text: line r of the column's */
        REQUIRE(ingot_column_find(it, names[c], &cols[c]) == 0);
        text[c] = (struct ig_buf)IG_BUF_INIT;
        rc = ingot_read_text(it, cols[c], INGOT_ALL_GROUPS, append_text, &text[c], eb, sizeof eb);
        if (rc) fprintf(stderr, "  read_text %s: %s\n", names[c], eb);
        REQUIRE(rc == 0);
        REQUIRE((line[c] = malloc((NROWS + 1) * sizeof *line[c])));
        size_t n = 0;
        line[c][0] = 0;
        for (size_t i = 0; i < text[c].len && n < NROWS; i++)
            if (text[c].data[i] == '\n') line[c][++n] = i + 1;
        REQUIRE(n == NROWS);
    }
    uint64_t ids[400];
    size_t bad = 0, takes = 0;
    for (int round = 0; round < 12; round++) {
        size_t n = 0;
        while (n < 300) { /* runs of 1-8 rows from random places, then some again */
            uint64_t at = test_rand(&s) % NROWS;
            for (size_t k = 0, run = 1 + test_rand(&s) % 8; k < run && at + k < NROWS; k++)
                ids[n++] = at + k;
        }
        for (size_t k = 0; k < 40; k++, n++)
            ids[n] = ids[test_rand(&s) % n];
        for (size_t i = n - 1; i > 0; i--) { /* shuffled */
            size_t j = test_rand(&s) % (i + 1);
            uint64_t t = ids[i];
            ids[i] = ids[j];
            ids[j] = t;
        }
        /* even rounds: the rows in one call; odd: a few calls on one handle */
        for (size_t from = 0; from < n;) {
            size_t m = round % 2 ? 1 + test_rand(&s) % 30 : n;
            if (m > n - from) m = n - from;
            ingot_batch *b = NULL;
            REQUIRE(ingot_take(it, ids + from, m, cols, NC, &b, eb, sizeof eb) == 0);
            takes++;
            for (size_t i = 0; i < m; i++) {
                uint64_t r = ids[from + i];
                bad += !ingot_batch_found(b, i);
                for (int c = 0; c < NC; c++) {
                    size_t len;
                    const char *v = ingot_batch_value(b, (size_t)c, i, &len);
                    size_t want = line[c][r + 1] - line[c][r] - 1;
                    if (!v || len != want || memcmp(v, text[c].data + line[c][r], len)) {
                        if (bad < 3)
                            fprintf(stderr, "  row %llu, %s: %.*s, not %.*s\n", (unsigned long long)r, names[c],
                                    (int)len, v ? v : "", (int)want, (const char *)text[c].data + line[c][r]);
                        bad++;
                    }
                }
            }
            ingot_batch_free(b);
            from += m;
        }
    }
    CHECK(takes > 12);
    CHECK_EQ_INT(bad, 0);
    for (int c = 0; c < NC; c++) {
        ig_buf_free(&text[c]);
        free(line[c]);
    }
    ingot_close(it);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", ldir);
    CHECK(system(cmd) == 0);
}

TEST_MAIN(T(test_few_values_train_no_table), T(test_take_nested_rows), T(test_take_auto), T(test_reader_keeps_many_contexts), T(test_take_visits_column_by_column),
          T(test_rows_json_column_by_column), T(test_rows_json_bounded_calls), T(test_take_plain), T(test_take_bitpack), T(test_take_varint),
          T(test_take_rle), T(test_take_dict), T(test_take_for), T(test_take_delta),
          T(test_take_split), T(test_take_huffman), T(test_take_fitted),
          T(test_take_errors))
