/* test_zdict_grain.c - the frames a chunk's zstd dictionary is used in, as
 * the writer chooses them (writer_plan.c, blocks_zstd and dict_pays;
 * page_blocks.c, dict_small). A string column whose blocks zstd compresses
 * whole (paths of words, whose repeats huffman cannot hold) gets a dictionary
 * whose blocks fill a disk page as they would without one; a column whose
 * blocks would be huffman (captions of random-letter words) keeps frames of at
 * most IG_ZDICT_FRAME_PLAIN plain bytes. Both: no block straddles a disk page,
 * rows taken by id read what was written, an erase of 2 % of the rows never
 * grows a block (each stays inside its room, no page moves, the file keeps
 * its length; the table has no integer column, whose erased form may move a
 * delta-coded page), verify --deep passes, and the rows left read as before.
 * Fails if grain frames are lost where the blocks are zstd anyway (the
 * package index's 5 %), or if they come back where blocks were per item (a
 * take 3.6x as long). */
#include "check.h"

#include <sys/stat.h>

#include "format/enc/codec.h"
#include "format/layout.h"
#include "format/model/schema.h"
#include "format/model/types.h"
#include "format/ops/erase.h"
#include "format/ops/verify.h"
#include "format/part/footer.h"
#include "format/part/table.h"
#include "format/part/writer.h"
#include "ingot.h"
#include "util/buf.h"
#include "util/error.h"

enum { ROWS = 40000, C_PATH = 0, C_CAPTION = 1 };

static char dir[64];
static uint64_t seed = 20261202;

/* n words of random letters, 4..10 long */
static char (*vocab(size_t n))[11]
{
    char (*v)[11] = calloc(n, sizeof *v);
    for (size_t w = 0; v && w < n; w++) {
        int len = 4 + (int)(test_rand(&seed) % 7);
        for (int i = 0; i < len; i++)
            v[w][i] = (char)('a' + test_rand(&seed) % 26);
    }
    return v;
}

/* Row r's path and caption into a and b. */
static void row_values(char (*pv)[11], char (*cv)[11], struct ig_buf *a, struct ig_buf *b)
{
    ig_buf_reset(a);
    ig_buf_reset(b);
    const char *s = pv[test_rand(&seed) % 3000], *p = pv[test_rand(&seed) % 3000];
    char t[160];
    unsigned major = (unsigned)(test_rand(&seed) % 20), minor = (unsigned)(test_rand(&seed) % 10),
             rev = (unsigned)(test_rand(&seed) % 5);
    int n = snprintf(t, sizeof t, "pool/main/%c/%s/%s-%s_%u.%u-%u_amd64.deb", p[0], p, p, s, major,
                     minor, rev);
    ig_buf_append(a, t, (size_t)n);
    for (int w = 0; w < 12; w++) {
        if (w) ig_buf_append_byte(b, ' ');
        const char *c = cv[test_rand(&seed) % 5000];
        ig_buf_append(b, c, strlen(c));
    }
}

/* The written table; each row's path and caption kept in ref (2 per row). */
static void make_table(struct ig_buf *ref, uint64_t *offs)
{
    strcpy(dir, "/tmp/ingot-zgrain-XXXXXX");
    REQUIRE(mkdtemp(dir) != NULL);
    struct ig_schema s = {0};
    ig_schema_add(&s, "path", 4, IG_T_STRING, false, NULL);
    ig_schema_add(&s, "caption", 7, IG_T_STRING, false, NULL);
    REQUIRE(ig_schema_finish(&s, NULL) == 0);
    struct ig_writer_opts o;
    ig_writer_opts_default(&o);
    o.rows_per_group = ROWS;
    char path[128];
    snprintf(path, sizeof path, "%s/part-000000.ingot", dir);
    struct ig_part_writer *w;
    struct ig_error err = {0};
    REQUIRE(ig_part_writer_open(&w, path, &s, &o, 0, &err) == 0);
    char (*pv)[11] = vocab(3000), (*cv)[11] = vocab(5000);
    REQUIRE(pv && cv);
    struct ig_buf a = IG_BUF_INIT, b = IG_BUF_INIT;
    for (uint64_t r = 0; r < ROWS; r++) {
        row_values(pv, cv, &a, &b);
        ig_values_push_bytes(ig_part_writer_column(w, C_PATH), a.data, a.len);
        ig_values_push_bytes(ig_part_writer_column(w, C_CAPTION), b.data, b.len);
        offs[2 * r] = ref->len;
        ig_buf_append(ref, a.data, a.len);
        offs[2 * r + 1] = ref->len;
        ig_buf_append(ref, b.data, b.len);
        REQUIRE(ig_part_writer_end_row(w, &err) == 0);
    }
    offs[2 * ROWS] = ref->len;
    REQUIRE(ig_part_writer_finish(w, &err) == 0);
    ig_part_writer_free(w);
    struct ig_manifest m = {0};
    ig_manifest_add(&m, "part-000000.ingot", 0, ROWS);
    REQUIRE(ig_manifest_write(dir, &m, &err) == 0);
    ig_manifest_free(&m);
    ig_schema_free(&s);
    ig_buf_free(&a);
    ig_buf_free(&b);
    free(pv);
    free(cv);
}

struct blocks {
    size_t n, framed, big, straddle;
    uint64_t max_small; /* the largest body of a framed block of several rows */
    uint64_t *offset, *stored, *capacity;
};

/* Every block of leaf `leaf` (one row group). */
static void blocks_of(uint32_t leaf, struct blocks *out)
{
    free(out->offset);
    free(out->stored);
    free(out->capacity);
    memset(out, 0, sizeof *out);
    char path[128];
    snprintf(path, sizeof path, "%s/part-000000.ingot", dir);
    struct ig_part p;
    struct ig_error err = {0};
    REQUIRE(ig_part_open(&p, path, false, &err) == 0);
    uint32_t first, count;
    REQUIRE(ig_part_chunk(&p, 0, leaf, &first, &count, &err) == 0);
    size_t cap = 0;
    for (uint32_t pg = first; pg < first + count; pg++) {
        struct ig_pagerec rec, blk;
        REQUIRE(ig_part_page(&p, pg, &rec, &err) == 0);
        for (uint32_t b = 0; b < ig_page_nblocks(&rec); b++) {
            REQUIRE(ig_part_block(&p, pg, &rec, b, &blk, &err) == 0);
            if (out->n == cap) {
                cap = cap ? 2 * cap : 256;
                out->offset = realloc(out->offset, cap * sizeof *out->offset);
                out->stored = realloc(out->stored, cap * sizeof *out->stored);
                out->capacity = realloc(out->capacity, cap * sizeof *out->capacity);
                REQUIRE(out->offset && out->stored && out->capacity);
            }
            out->offset[out->n] = blk.offset;
            out->stored[out->n] = blk.stored;
            out->capacity[out->n] = blk.capacity;
            out->n++;
            if (blk.stored && blk.offset / 4096 != (blk.offset + blk.stored - 1) / 4096) out->straddle++;
            if (blk.compression != IG_PC_ZSTD_DICT) continue;
            out->framed++;
            if (blk.body_size > 2 * IG_ZDICT_FRAME_PLAIN) out->big++;
            if (blk.row_count > 1 && blk.body_size > out->max_small) out->max_small = blk.body_size;
        }
    }
    ig_part_close(&p);
}

/* Rows ids[0..n) through ingot_take: erased ones not found, the others as written. */
static size_t take_bad(const uint64_t *ids, size_t n, const uint8_t *gone, const struct ig_buf *ref,
                       const uint64_t *offs)
{
    ingot_table *it;
    char eb[256];
    if (ingot_open(dir, &it, eb, sizeof eb)) return n;
    uint32_t cols[2] = {C_PATH, C_CAPTION};
    ingot_batch *b;
    if (ingot_take(it, ids, n, cols, 2, &b, eb, sizeof eb)) {
        ingot_close(it);
        return n;
    }
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        if (gone && gone[ids[i]]) {
            bad += (size_t)ingot_batch_found(b, i);
            continue;
        }
        for (size_t k = 0; k < 2; k++) {
            size_t len;
            const uint8_t *v = ingot_batch_value(b, k, i, &len);
            size_t j = 2 * ids[i] + k;
            if (!ingot_batch_found(b, i) || len != offs[j + 1] - offs[j] || memcmp(v, ref->data + offs[j], len))
                bad++;
        }
    }
    ingot_batch_free(b);
    ingot_close(it);
    return bad;
}

static void test_zdict_grain_frames(void)
{
    struct ig_buf ref = IG_BUF_INIT;
    uint64_t *offs = malloc((2 * ROWS + 1) * sizeof *offs);
    REQUIRE(offs);
    make_table(&ref, offs);
    struct blocks path = {0}, cap = {0};
    blocks_of(C_PATH, &path);
    blocks_of(C_CAPTION, &cap);
    fprintf(stderr, "  path: %zu blocks, %zu framed, %zu over 3 KiB; caption: %zu blocks, %zu framed, largest %llu\n",
            path.n, path.framed, path.big, cap.n, cap.framed, (unsigned long long)cap.max_small);
    /* paths: blocks framed against the dictionary, filling a grain (~8 KiB of paths) */
    CHECK(path.framed >= path.n / 2);
    CHECK(path.big >= path.framed * 3 / 4);
    CHECK_EQ_INT(path.straddle, 0);
    /* captions: 1.5 KiB frames, several to a page */
    CHECK(cap.framed >= cap.n / 2);
    CHECK(cap.max_small <= IG_ZDICT_FRAME_PLAIN + 64);
    CHECK_EQ_INT(cap.straddle, 0);

    uint64_t ids[1000];
    for (size_t i = 0; i < 1000; i++)
        ids[i] = test_rand(&seed) % ROWS;
    CHECK_EQ_INT(take_bad(ids, 1000, NULL, &ref, offs), 0);

    /* erase 2 % of the rows at random */
    uint8_t *gone = calloc(ROWS, 1);
    uint64_t *kill = malloc(ROWS / 50 * sizeof *kill);
    REQUIRE(gone && kill);
    size_t nk = 0;
    while (nk < ROWS / 50) {
        uint64_t r = test_rand(&seed) % ROWS;
        if (!gone[r]) gone[r] = 1, nk++;
    }
    nk = 0;
    for (uint64_t r = 0; r < ROWS; r++)
        if (gone[r]) kill[nk++] = r;
    char pf[128];
    snprintf(pf, sizeof pf, "%s/part-000000.ingot", dir);
    struct stat st0, st1;
    REQUIRE(stat(pf, &st0) == 0);
    struct ig_erase_request req = {kill, nk, NULL, 0, "test"};
    struct ig_erase_report rep = {0};
    struct ig_error err = {0};
    int rc = ig_erase(dir, &req, &rep, &err);
    if (rc) fprintf(stderr, "  erase: %s\n", err.msg);
    REQUIRE(rc == 0);
    free(rep.ids);
    CHECK_EQ_INT(rep.rows, nk);
    CHECK_EQ_INT(rep.pages_moved, 0);
    REQUIRE(stat(pf, &st1) == 0);
    /* the blocks never grow; the part's first erase adds its deletion bitmap
     * past the footer (format 17) */
    CHECK(st1.st_size <= st0.st_size + (ROWS + 63) / 64 * 8 + 8);
    /* never grows: every block where it was, inside its room */
    uint32_t leaves[2] = {C_PATH, C_CAPTION};
    struct blocks *before[2] = {&path, &cap};
    for (int k = 0; k < 2; k++) {
        struct blocks after = {0};
        blocks_of(leaves[k], &after);
        CHECK_EQ_INT(after.n, before[k]->n);
        size_t moved = 0, over = 0;
        for (size_t i = 0; i < after.n && i < before[k]->n; i++) {
            moved += after.offset[i] != before[k]->offset[i];
            over += after.stored[i] > before[k]->capacity[i];
        }
        CHECK_EQ_INT(moved, 0);
        CHECK_EQ_INT(over, 0);
        free(before[k]->offset);
        free(before[k]->stored);
        free(before[k]->capacity);
        free(after.offset);
        free(after.stored);
        free(after.capacity);
    }
    struct ig_verify_hooks deep = {.deep = true};
    struct ig_verify_report vr;
    REQUIRE(ig_verify_table(dir, &deep, &vr, &err) == 0);
    CHECK_EQ_INT(vr.failures, 0);
    for (size_t i = 0; i < 1000; i++) /* erased ones among them */
        ids[i] = i % 10 ? test_rand(&seed) % ROWS : kill[test_rand(&seed) % nk];
    CHECK_EQ_INT(take_bad(ids, 1000, gone, &ref, offs), 0);

    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
    free(gone);
    free(kill);
    free(offs);
    ig_buf_free(&ref);
}

TEST_MAIN(T(test_zdict_grain_frames))
