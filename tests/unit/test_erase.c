/* Erase: the level-2 proof in verify can fail, the journal replays idempotently,
 * erasing plain pages never moves them. */
#include "check.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "format/ops/erase.h"
#include "format/part/footer.h"
#include "format/part/journal.h"
#include "format/part/manifest.h"
#include "format/layout.h"
#include "format/part/merkle.h"
#include "format/ops/reader.h"
#include "format/model/schema.h"
#include "format/part/table.h"
#include "format/model/types.h"
#include "format/ops/verify.h"
#include "format/part/writer.h"
#include "util/cpu.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/io.h"

static char dir[64];

/* A new table directory `dir` and a writer of its one part (schema s,
 * finished here), or NULL. */
static struct ig_part_writer *open_part(struct ig_schema *s, const struct ig_writer_opts *o)
{
    strcpy(dir, "/tmp/ingot-erase-XXXXXX");
    struct ig_error err = {0};
    struct ig_part_writer *w = NULL;
    char path[128];
    if (!mkdtemp(dir) || ig_schema_finish(s, &err)) return NULL;
    snprintf(path, sizeof path, "%s/part-000000.ingot", dir);
    return ig_part_writer_open(&w, path, s, o, 0, &err) ? NULL : w;
}

/* w's part of `rows` rows finished and listed in MANIFEST: 0, or -1. */
static int close_part(struct ig_part_writer *w, uint64_t rows)
{
    struct ig_error err = {0};
    int rc = ig_part_writer_finish(w, &err);
    ig_part_writer_free(w);
    struct ig_manifest m = {0};
    if (!rc) rc = ig_manifest_add(&m, "part-000000.ingot", 0, rows) || ig_manifest_write(dir, &m, &err) ? -1 : 0;
    ig_manifest_free(&m);
    return rc;
}

static void make_table(uint8_t encoding)
{
    struct ig_schema s = {0};
    ig_schema_add(&s, "v", 1, IG_T_INT64, false, NULL);
    ig_schema_add(&s, "name", 4, IG_T_STRING, false, NULL);
    for (int c = 0; c < 2; c++) {
        s.cols[c].encoding = encoding;
        s.cols[c].compression = IG_COMP_NONE;
    }
    struct ig_writer_opts o;
    ig_writer_opts_default(&o);
    o.rows_per_group = 500;
    o.page_size = 1024;
    struct ig_part_writer *w = open_part(&s, &o);
    struct ig_error err = {0};
    for (uint64_t r = 0; w && r < 1000; r++) {
        ig_values_push_lane(ig_part_writer_column(w, 0), 1000000 + r * 3);
        char b[32];
        int n = snprintf(b, sizeof b, "name-%llu", (unsigned long long)r % 17);
        ig_values_push_bytes(ig_part_writer_column(w, 1), b, (size_t)n);
        ig_part_writer_end_row(w, &err);
    }
    if (w) close_part(w, 1000);
    ig_schema_free(&s);
}

static uint64_t verify_failures(uint64_t *unscrubbed)
{
    struct ig_verify_report rep;
    struct ig_error err = {0};
    ig_verify_table(dir, NULL, &rep, &err);
    if (unscrubbed) *unscrubbed = rep.unscrubbed;
    return rep.failures;
}

static int erase_rows(const uint64_t *rows, size_t n, struct ig_erase_report *rep)
{
    struct ig_erase_request req = {rows, n, NULL, 0, "test"};
    struct ig_error err = {0};
    int rc = ig_erase(dir, &req, rep, &err);
    if (rc) fprintf(stderr, "  erase: %s\n", err.msg);
    free(rep->ids);
    rep->ids = NULL;
    return rc;
}

/* Record in MANIFEST where the part's footer ends, as every writer since
 * format 10 does (make_table writes a format-1 list without it). */
static void record_footer_end(const char *path, uint64_t *end)
{
    struct stat made;
    struct ig_manifest m = {0};
    struct ig_error err = {0};
    REQUIRE(stat(path, &made) == 0 && ig_manifest_read(dir, &m, &err) == 0);
    *end = m.parts[0].footer_end = (uint64_t)made.st_size;
    REQUIRE(ig_manifest_write(dir, &m, &err) == 0);
    ig_manifest_free(&m);
}

/* Format 17: a part has no deletion bitmap until its first erase, which writes
 * one past the footer (where MANIFEST records the footer's end, the footer
 * stays; where it records none, the footer moves past the bitmap); the next
 * erase changes its bytes in place, the file no longer growing. */
static void test_deletion_bitmap_written_by_first_erase(void)
{
    for (int recorded = 1; recorded >= 0; recorded--) {
        make_table(1 /* plain: pages erased in place */);
        char path[128];
        snprintf(path, sizeof path, "%s/part-000000.ingot", dir);
        uint64_t end = 0;
        if (recorded) record_footer_end(path, &end);
        struct ig_part p;
        struct ig_error err = {0};
        REQUIRE(ig_part_open_at(&p, path, end, false, &err) == 0);
        CHECK(p.version == IG_FORMAT_VERSION && p.sec_size[IG_SEC_DELETION] == 0 && p.deletion_at == 0);
        CHECK(ig_part_deletion(&p) == NULL);
        CHECK(!ig_part_row_deleted(&p, 10));
        uint64_t bm = ig_part_deletion_bytes(&p), footer_was = p.footer_offset;
        CHECK(bm == 128); /* 1,000 rows */
        ig_part_close(&p);
        struct stat s0, s1, s2;
        REQUIRE(stat(path, &s0) == 0);
        uint64_t rows[2] = {10, 999};
        struct ig_erase_report rep;
        REQUIRE(erase_rows(rows, 2, &rep) == 0);
        CHECK(rep.pages_moved == 0);
        REQUIRE(stat(path, &s1) == 0);
        uint64_t grew = (uint64_t)(s1.st_size - s0.st_size);
        CHECK(grew >= bm && grew <= bm + 7);
        REQUIRE(ig_part_open_at(&p, path, end, false, &err) == 0);
        CHECK(p.deletion_at && p.sec_size[IG_SEC_DELETION] == 0);
        if (recorded)
            CHECK(p.deletion_at >= end && p.footer_offset == footer_was);
        else
            CHECK(p.deletion_at >= footer_was && p.deletion_at + bm <= p.footer_offset);
        CHECK(p.deleted_rows == 2 && ig_part_row_deleted(&p, 10) && ig_part_row_deleted(&p, 999) &&
              !ig_part_row_deleted(&p, 11));
        CHECK(ig_part_check_footer(&p, &err) == 0);
        uint64_t at = p.deletion_at;
        ig_part_close(&p);
        uint64_t row = 11;
        REQUIRE(erase_rows(&row, 1, &rep) == 0);
        REQUIRE(stat(path, &s2) == 0);
        CHECK(s2.st_size == s1.st_size);
        REQUIRE(ig_part_open_at(&p, path, end, false, &err) == 0);
        CHECK(p.deletion_at == at && p.deleted_rows == 3 && ig_part_row_deleted(&p, 11));
        CHECK(ig_part_check_footer(&p, &err) == 0);
        ig_part_close(&p);
        CHECK(verify_failures(NULL) == 0);
        ig_remove_tree(dir);
    }
}

/* A damaged place for the bitmap is a corrupt footer naming the part: never a
 * read out of bounds or an allocation of what the header claims. */
static void test_deletion_bitmap_damage_named(void)
{
    make_table(1);
    char path[128];
    snprintf(path, sizeof path, "%s/part-000000.ingot", dir);
    uint64_t end, row = 10;
    record_footer_end(path, &end);
    struct ig_erase_report rep;
    REQUIRE(erase_rows(&row, 1, &rep) == 0);
    struct ig_part p;
    struct ig_error err = {0};
    REQUIRE(ig_part_open_at(&p, path, end, false, &err) == 0);
    uint64_t at = p.deletion_at, field = p.footer_offset + IG_HDR_DELETION_AT;
    uint64_t bad[] = {at + 4, p.footer_offset + 256, end - 8, UINT64_MAX - 7, 1ULL << 60, 0};
    ig_part_close(&p);
    int fd = open(path, O_RDWR);
    REQUIRE(fd >= 0);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        uint8_t b[8];
        ig_st64(b, bad[i]);
        REQUIRE(pwrite(fd, b, 8, (off_t)field) == 8);
        err.msg[0] = 0;
        CHECK(ig_part_open_at(&p, path, end, false, &err) == -EIO);
        CHECK(strstr(err.msg, "part-000000.ingot") != NULL);
        CHECK(strstr(err.msg, bad[i] ? "deletion bitmap out of bounds" : "deleted rows but no deletion bitmap") != NULL);
    }
    close(fd);
    ig_remove_tree(dir);
}

/* Write a value back into the erased slot of a plain int64 page and re-seal
 * every hash (page checksum, group hash, root, tail): only the level-2 check
 * can still see it. */
static void tamper_and_reseal(uint64_t row)
{
    char path[128];
    snprintf(path, sizeof path, "%s/part-000000.ingot", dir);
    struct ig_part p;
    struct ig_error err = {0};
    REQUIRE(ig_part_open(&p, path, false, &err) == 0);
    uint32_t g = (uint32_t)(row / 500), first, count;
    REQUIRE(ig_part_chunk(&p, g, 0, &first, &count, &err) == 0);
    uint32_t page = first;
    struct ig_pagerec rec;
    for (; page < first + count; page++) {
        REQUIRE(ig_part_page(&p, page, &rec, &err) == 0);
        if (row % 500 >= rec.first_row && row % 500 < rec.first_row + rec.row_count) break;
    }
    /* the block holding the row: [hdr][1][w=8][lanes] (a plain int stream) */
    uint32_t b;
    struct ig_pagerec blk;
    REQUIRE(ig_part_block_of_row(&p, page, &rec, (uint32_t)(row % 500 - rec.first_row), &b, &blk,
                                 &err) == 0);
    uint8_t *buf = malloc(blk.stored);
    REQUIRE(ig_pread_full(p.fd, buf, blk.stored, blk.offset) == 0);
    REQUIRE(buf[4] == 1);
    size_t slot = 4 + 2 + 8 * (row % 500 - rec.first_row - blk.first_row);
    ig_st64(buf + slot, 4242424242ULL);
    uint8_t *footer = malloc(p.footer_size);
    memcpy(footer, p.footer, p.footer_size);
    uint8_t *pr = footer + p.sec_off[IG_SEC_PAGES] + (uint64_t)page * IG_PG_SIZE;
    if (rec.nblocks) { /* the block's checksum, then the page's: its records' hash */
        uint8_t *br = footer + p.sec_off[IG_SEC_BLOCKS] + (uint64_t)(rec.first_block + b) * IG_BLK_SIZE;
        ig_st64(br + IG_BLK_CHECKSUM, ig_hash(buf, blk.stored));
        ig_st64(pr + IG_PG_CHECKSUM,
                ig_hash(footer + p.sec_off[IG_SEC_BLOCKS] + (uint64_t)rec.first_block * IG_BLK_SIZE,
                        (size_t)rec.nblocks * IG_BLK_SIZE));
    } else {
        ig_st64(pr + IG_PG_CHECKSUM, ig_hash(buf, blk.stored));
    }
    uint8_t *gr = footer + p.sec_off[IG_SEC_GROUPS] + (uint64_t)g * IG_GRP_SIZE;
    ig_st64(gr + IG_GRP_HASH, ig_footer_group_hash(&p, footer, ig_ld32(gr + IG_GRP_FIRST_PAGE),
                                                   ig_ld32(gr + IG_GRP_PAGE_COUNT)));
    uint64_t root = ig_part_root(&p, footer, ig_part_deletion(&p));
    uint8_t tail[IG_TAIL_SIZE];
    REQUIRE(ig_pread_full(p.fd, tail, sizeof tail, p.file_size - IG_TAIL_SIZE) == 0);
    ig_st64(tail + IG_TAIL_ROOT, root);
    ig_st64(tail + IG_TAIL_HASH, ig_hash(tail, IG_TAIL_HASH));
    int fd = open(path, O_WRONLY);
    ig_pwrite_full(fd, buf, blk.stored, blk.offset);
    ig_pwrite_full(fd, footer, p.footer_size, p.footer_offset);
    ig_pwrite_full(fd, tail, sizeof tail, p.file_size - IG_TAIL_SIZE);
    close(fd);
    free(buf);
    free(footer);
    ig_part_close(&p);
}

static void test_verify_catches_unscrubbed_slot(void)
{
    make_table(1 /* plain */);
    uint64_t rows[] = {123, 777};
    struct ig_erase_report rep;
    REQUIRE(erase_rows(rows, 2, &rep) == 0);
    CHECK(rep.rows == 2 && rep.pages_moved == 0);
    uint64_t unscrubbed = 0;
    CHECK(verify_failures(&unscrubbed) == 0);
    tamper_and_reseal(777);
    uint64_t failures = verify_failures(&unscrubbed);
    CHECK(failures == 1);
    CHECK(unscrubbed == 1);
    ig_remove_tree(dir);
}

/* The footer's bytes hold no 8-byte little-endian copy of v. */
static bool footer_lacks(uint64_t v)
{
    char path[128];
    snprintf(path, sizeof path, "%s/part-000000.ingot", dir);
    struct ig_part p;
    struct ig_error err = {0};
    if (ig_part_open(&p, path, false, &err)) return false;
    uint8_t b[8];
    ig_st64(b, v);
    bool found = memmem(p.footer, p.footer_size, b, 8) != NULL;
    ig_part_close(&p);
    return !found;
}

static struct ig_minmax bounds_of(uint32_t g)
{
    char path[128];
    snprintf(path, sizeof path, "%s/part-000000.ingot", dir);
    struct ig_part p;
    struct ig_error err = {0};
    struct ig_minmax m = {0};
    if (ig_part_open(&p, path, false, &err)) return (struct ig_minmax){true, 1, 0}; /* fails every check */
    if (ig_part_chunk_minmax(&p, g, 0, &m, &err)) m = (struct ig_minmax){true, 1, 0};
    ig_part_close(&p);
    return m;
}

/* An erase keeps a chunk's bounds while every value it removes lies strictly
 * inside them; when one lies on a bound it takes that chunk's bounds again
 * over the rows that stay (not the rows deleted before, not the ones it
 * erases): the footer then holds no erased value, and every hash agrees
 * (verify, --deep holding each live value to them). A chunk whose every row
 * is erased is left unbounded. Both when pages stay and when compressed pages
 * may move. Fails if an erased extreme survives in the chunk record, an
 * interior erase changes bounds, or the new bounds take a deleted row's
 * value. v = 1,000,000 + 3 row, 500 rows a group. */
static void test_erase_takes_bounds_again(void)
{
    for (uint8_t enc = 0; enc <= 1; enc++) {
        make_table(enc);
        struct ig_minmax m0 = bounds_of(0), m1 = bounds_of(1);
        CHECK(m0.bounded && m0.min == 1000000 && m0.max == 1000000 + 3 * 499);
        CHECK(m1.bounded && m1.min == 1000000 + 3 * 500 && m1.max == 1000000 + 3 * 999);
        uint64_t inside[] = {1, 250, 498, 600, 998};
        struct ig_erase_report rep;
        REQUIRE(erase_rows(inside, 5, &rep) == 0);
        struct ig_minmax a0 = bounds_of(0), a1 = bounds_of(1);
        CHECK(a0.bounded && a0.min == m0.min && a0.max == m0.max);
        CHECK(a1.bounded && a1.min == m1.min && a1.max == m1.max);
        uint64_t top[] = {499}; /* row 498, the next below, went before */
        REQUIRE(erase_rows(top, 1, &rep) == 0);
        a0 = bounds_of(0), a1 = bounds_of(1);
        CHECK(a0.bounded && a0.min == m0.min && a0.max == 1000000 + 3 * 497);
        CHECK(a1.bounded && a1.min == m1.min && a1.max == m1.max);
        CHECK(footer_lacks(m0.max) && footer_lacks(1000000 + 3 * 498) && !footer_lacks(m1.max));
        uint64_t bottom[] = {500, 501};
        REQUIRE(erase_rows(bottom, 2, &rep) == 0);
        a1 = bounds_of(1);
        CHECK(a1.bounded && a1.min == 1000000 + 3 * 502 && a1.max == m1.max);
        CHECK(footer_lacks(m1.min) && footer_lacks(1000000 + 3 * 501));
        uint64_t rest[500];
        size_t n = 0;
        for (uint64_t r = 0; r < 500; r++)
            if (r != 1 && r != 250 && r < 498) rest[n++] = r;
        REQUIRE(erase_rows(rest, n, &rep) == 0);
        a0 = bounds_of(0);
        CHECK(!a0.bounded && !a0.min && !a0.max);
        CHECK(verify_failures(NULL) == 0);
        struct ig_verify_report vr;
        struct ig_verify_hooks h = {.deep = true};
        struct ig_error err = {0};
        CHECK(ig_verify_table(dir, &h, &vr, &err) == 0 && vr.failures == 0);
        ig_remove_tree(dir);
    }
}

/* erase --where reads only the row groups whose bounds can hold a value: with
 * a page of group 0 damaged, a value of group 1 is found and erased (group 0
 * never read), a value of group 0 fails on the damage, and a NULL target,
 * which bounds cannot exclude, reads group 0 too. Fails if the scan reads
 * every group (the first erase would meet the damage). */
static void test_where_skips_groups_by_bounds(void)
{
    make_table(1 /* plain: the damaged byte is a value's */);
    char path[128];
    snprintf(path, sizeof path, "%s/part-000000.ingot", dir);
    struct ig_part p;
    struct ig_error err = {0};
    REQUIRE(ig_part_open(&p, path, false, &err) == 0);
    uint32_t first, count;
    struct ig_pagerec rec;
    REQUIRE(ig_part_chunk(&p, 0, 0, &first, &count, &err) == 0);
    REQUIRE(ig_part_page(&p, first, &rec, &err) == 0);
    ig_part_close(&p);
    int fd = open(path, O_RDWR);
    REQUIRE(fd >= 0);
    uint8_t b;
    REQUIRE(pread(fd, &b, 1, (off_t)(rec.offset + rec.stored / 2)) == 1);
    b ^= 0x40;
    REQUIRE(pwrite(fd, &b, 1, (off_t)(rec.offset + rec.stored / 2)) == 1);
    close(fd);
    struct ig_erase_where w1 = {"v", "1002100"}; /* row 700, group 1 */
    struct ig_erase_request req = {NULL, 0, &w1, 1, "test"};
    struct ig_erase_report rep = {0};
    CHECK(ig_erase(dir, &req, &rep, &err) == 0 && rep.rows == 1);
    free(rep.ids);
    struct ig_erase_where w0 = {"v", "1000030"}; /* row 10, group 0 */
    req.where = &w0;
    memset(&rep, 0, sizeof rep);
    CHECK(ig_erase(dir, &req, &rep, &err) != 0 && strstr(err.msg, "checksum"));
    free(rep.ids);
    struct ig_erase_where wn = {"v", "\\N"};
    req.where = &wn;
    memset(&rep, 0, sizeof rep);
    err.msg[0] = 0;
    CHECK(ig_erase(dir, &req, &rep, &err) != 0 && strstr(err.msg, "checksum"));
    free(rep.ids);
    ig_remove_tree(dir);
}

/* Each stored block's checksum and first row, page by page, for column col
 * (one row group); *got: how many (0 where the table could not be read). */
static void block_sums(uint32_t col, uint64_t *sums, uint32_t *first_rows, size_t cap, size_t *got)
{
    *got = 0;
    struct ig_table t;
    struct ig_error err = {0};
    REQUIRE(ig_table_open(&t, dir, false, &err) == 0);
    struct ig_column_ref c;
    REQUIRE(ig_table_column_at(&t, col, &c, &err) == 0);
    size_t n = 0;
    for (uint32_t g = 0; g < t.num_groups; g++) {
        uint32_t first, count;
        REQUIRE(ig_part_chunk(&t.parts[0], g, c.rec.leaf, &first, &count, &err) == 0);
        for (uint32_t pg = first; pg < first + count; pg++) {
            struct ig_pagerec rec, blk;
            REQUIRE(ig_part_page(&t.parts[0], pg, &rec, &err) == 0);
            for (uint32_t b = 0; b < ig_page_nblocks(&rec) && n < cap; b++, n++) {
                REQUIRE(ig_part_block(&t.parts[0], pg, &rec, b, &blk, &err) == 0);
                sums[n] = blk.checksum;
                first_rows[n] = rec.first_row + blk.first_row; /* one group */
            }
        }
    }
    ig_table_close(&t);
    *got = n;
}

/* An erase rewrites the blocks that hold its rows and no other: the kill
 * bitmap is cut to each block's rows wherever the block starts in a byte of
 * it (blocks of a few dozen rows, rows at a block's start and end). */
static void test_erase_touches_only_its_blocks(void)
{
    /* one group of 2,000 strings in pages of ~80 blocks of 512 bytes */
    struct ig_schema s = {0};
    ig_schema_add(&s, "v", 1, IG_T_STRING, false, NULL);
    s.cols[0].compression = IG_COMP_NONE;
    struct ig_writer_opts o;
    ig_writer_opts_default(&o);
    o.rows_per_group = 2000;
    o.block_size = 512;
    struct ig_part_writer *w = open_part(&s, &o);
    REQUIRE(w);
    struct ig_error err = {0};
    for (uint64_t r = 0; r < 2000; r++) {
        char b[32];
        int len = snprintf(b, sizeof b, "value %llu of %llu", (unsigned long long)r * 7919 % 2000,
                           (unsigned long long)r % 3 * 1000);
        ig_values_push_bytes(ig_part_writer_column(w, 0), b, (size_t)len);
        REQUIRE(ig_part_writer_end_row(w, &err) == 0);
    }
    REQUIRE(close_part(w, 2000) == 0);
    ig_schema_free(&s);
    enum { CAP = 4096 };
    static uint64_t before[CAP], after[CAP];
    static uint32_t first[CAP], first2[CAP];
    size_t n, n2;
    block_sums(0, before, first, CAP, &n);
    REQUIRE(n > 8 && n < CAP);
    /* the first row of every third block but the first, and the last row of the block after */
    uint64_t rows[CAP];
    size_t nr = 0;
    bool hit[CAP] = {false};
    for (size_t k = 3; k + 1 < n; k += 3) {
        rows[nr++] = first[k];
        hit[k] = true;
        rows[nr++] = first[k + 2] - 1;
        hit[k + 1] = true;
    }
    REQUIRE(nr > 4);
    struct ig_erase_report rep;
    REQUIRE(erase_rows(rows, nr, &rep) == 0);
    CHECK_EQ_INT(rep.pages_rewritten, nr); /* a block image each (a neighbour left as it was is not written) */
    block_sums(0, after, first2, CAP, &n2);
    CHECK(n2 == n);
    int wrong = 0;
    for (size_t k = 0; k < n; k++)
        wrong += first[k] != first2[k] || (before[k] != after[k]) != hit[k];
    CHECK_EQ_INT(wrong, 0);
    CHECK(verify_failures(NULL) == 0);
    ig_remove_tree(dir);
}

static void test_plain_pages_never_move(void)
{
    for (uint8_t enc = 1; enc <= 7; enc++) {
        make_table(enc == 5 || enc == 1 ? enc : 0 /* strings: plain or dict; ints as forced */);
        uint64_t rows[40];
        for (int i = 0; i < 40; i++)
            rows[i] = (uint64_t)i * 25;
        struct ig_erase_report rep;
        REQUIRE(erase_rows(rows, 40, &rep) == 0);
        CHECK(rep.rows == 40);
        CHECK(rep.pages_moved == 0); /* uncompressed pages never grow */
        CHECK(verify_failures(NULL) == 0);
        ig_remove_tree(dir);
    }
}

static void test_journal_replay_is_idempotent(void)
{
    make_table(0);
    /* journal one change by hand and apply it twice (as a crash after applying
     * would, on the next open) */
    struct ig_journal j;
    ig_journal_init(&j);
    struct ig_table t;
    struct ig_error err = {0};
    REQUIRE(ig_table_open(&t, dir, false, &err) == 0);
    struct ig_part *p = &t.parts[0];
    uint8_t zero[8] = {0};
    CHECK(ig_journal_add(&j, p->name, 8, zero, 8) == 0); /* scribble page 0's first bytes */
    uint8_t *f = malloc(p->footer_size);
    memcpy(f, p->footer, p->footer_size);
    ig_table_close(&t);
    CHECK(ig_journal_commit(&j, dir, NULL, &err) == 0);
    CHECK(ig_journal_pending(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/.ingot/journal", dir);
    /* keep a copy, apply, put it back, open (which replays again) */
    char *data;
    size_t len;
    REQUIRE(ig_read_file(path, 1 << 20, &data, &len, &err) == 0);
    CHECK(ig_journal_apply(dir, NULL, &err) == 0);
    CHECK(!ig_journal_pending(dir));
    char sub[128];
    snprintf(sub, sizeof sub, "%s/.ingot", dir);
    CHECK(ig_write_file_atomic(sub, "journal", data, len, &err) == 0);
    CHECK(ig_journal_pending(dir));
    REQUIRE(ig_table_open(&t, dir, false, &err) == 0); /* replays */
    CHECK(!ig_journal_pending(dir));
    uint8_t b[8];
    CHECK(ig_pread_full(t.parts[0].fd, b, 8, 8) == 0 && memcmp(b, zero, 8) == 0);
    ig_table_close(&t);
    /* a damaged journal is refused, loudly */
    data[len / 2] ^= 1;
    CHECK(ig_write_file_atomic(sub, "journal", data, len, &err) == 0);
    CHECK(ig_table_open(&t, dir, false, &err) == -EIO);
    CHECK(strstr(err.msg, "journal") != NULL);
    free(data);
    free(f);
    ig_journal_free(&j);
    ig_remove_tree(dir);
}

/* A scratch table directory holding one part file, and a journal for it. */
struct journal_scratch {
    char d[64];
    int fd; /* on the part file, for reading back; -1: not made */
    struct ig_journal j;
};

/* x's directory made from pattern, its part file holding the given bytes. */
static void journal_scratch(struct journal_scratch *x, const char *pattern, const uint8_t *bytes,
                            size_t size)
{
    x->fd = -1;
    ig_journal_init(&x->j);
    snprintf(x->d, sizeof x->d, "%s", pattern);
    REQUIRE(mkdtemp(x->d));
    char path[128];
    snprintf(path, sizeof path, "%s/part-000000.ingot", x->d);
    x->fd = open(path, O_RDWR | O_CREAT, 0644);
    REQUIRE(x->fd >= 0);
    REQUIRE(ig_pwrite_full(x->fd, bytes, size, 0) == 0);
}

/* One random record of n bytes at off, a zero range one time in `zeros`,
 * journaled and done to want as applying must. */
static void journal_random_record(struct ig_journal *j, uint64_t *s, unsigned zeros, uint8_t *want,
                                  uint64_t off, size_t n, uint8_t *piece)
{
    if (test_rand(s) % zeros == 0) {
        CHECK(ig_journal_zero(j, "part-000000.ingot", off, n) == 0);
        memset(want + off, 0, n);
    } else {
        for (size_t i = 0; i < n; i++) piece[i] = (uint8_t)test_rand(s);
        CHECK(ig_journal_add(j, "part-000000.ingot", off, piece, n) == 0);
        memcpy(want + off, piece, n);
    }
}

/* x's journal committed and applied; its part file must then be want's
 * `end` bytes, no more, and no journal left. */
static void journal_apply_check(struct journal_scratch *x, const uint8_t *want, size_t end)
{
    struct ig_error err = {0};
    REQUIRE(ig_journal_commit(&x->j, x->d, NULL, &err) == 0);
    int rc = ig_journal_apply(x->d, NULL, &err);
    if (rc) fprintf(stderr, "  apply: %s\n", err.msg);
    CHECK(rc == 0);
    struct stat st;
    REQUIRE(fstat(x->fd, &st) == 0);
    CHECK((size_t)st.st_size == end);
    uint8_t *got = malloc(end);
    REQUIRE(got && ig_pread_full(x->fd, got, end, 0) == 0);
    size_t bad = 0;
    while (bad < end && got[bad] == want[bad])
        bad++;
    if (bad < end) fprintf(stderr, "  first wrong byte at %zu of %zu\n", bad, end);
    CHECK(bad == end);
    CHECK(!ig_journal_pending(x->d));
    free(got);
    close(x->fd);
    ig_journal_free(&x->j);
    ig_remove_tree(x->d);
}

/* A large journal streams to its file as it grows (memory stays flat) and applies
 * from the file a buffer at a time: every byte lands, in order, zero ranges too. */
static void test_streamed_journal_applies_everything(void)
{
    const size_t size = 24u << 20; /* three spills' worth */
    uint8_t *want = malloc(size);
    REQUIRE(want);
    memset(want, 0xAB, size);
    struct journal_scratch x;
    journal_scratch(&x, "/tmp/ingot-jrnl-XXXXXX", want, size);
    REQUIRE(x.fd >= 0);
    struct ig_error err = {0};
    REQUIRE(ig_journal_stream(&x.j, x.d, &err) == 0);
    uint64_t s = check_seed;
    uint8_t piece[70000];
    for (size_t off = 0; off < size;) {
        size_t n = 1 + (size_t)(test_rand(&s) % sizeof piece);
        if (n > size - off) n = size - off;
        journal_random_record(&x.j, &s, 4, want, off, n, piece);
        off += n;
    }
    CHECK(x.j.spilled > 0 && x.j.buf.len < (9u << 20)); /* most of it went to the file */
    journal_apply_check(&x, want, size);
    free(want);
}

/* Scattered records, as an erase journals them: a few bytes to a few units
 * long, in no order, overlapping, some of zeros, some past the file's end.
 * The window reads a unit only where a record leaves some of it as it was:
 * every byte no record wrote must read back as before, every record's bytes
 * as the last record over them wrote them, and the file end where the last
 * record ends. */
static void test_journal_window_keeps_untouched_bytes(void)
{
    const size_t size = (3u << 20) + 1234, room = size + (64u << 10);
    uint8_t *want = calloc(room, 1);
    REQUIRE(want);
    uint64_t s = check_seed ^ 0x5eed;
    for (size_t i = 0; i < size; i++) want[i] = (uint8_t)test_rand(&s);
    struct journal_scratch x;
    journal_scratch(&x, "/tmp/ingot-jwin-XXXXXX", want, size);
    REQUIRE(x.fd >= 0);
    size_t end = size;
    uint8_t piece[3 * 4096 + 100];
    uint64_t off = 0;
    for (int k = 0; k < 4000; k++) {
        /* mostly near the last record (a window's worth), sometimes anywhere */
        uint64_t r = test_rand(&s) % 8;
        if (r == 0) off = test_rand(&s) % size;
        else if (r < 7) off = (off + test_rand(&s) % (300u << 10)) % size;
        else off = size - 100 + test_rand(&s) % 20000; /* across and past the end */
        size_t n = test_rand(&s) % 2 ? 1 + test_rand(&s) % 64 : 1 + test_rand(&s) % sizeof piece;
        if (off + n > room) n = room - off;
        journal_random_record(&x.j, &s, 5, want, off, n, piece);
        if (off + n > end) end = off + n;
    }
    journal_apply_check(&x, want, end);
    free(want);
}

/* Frame a journal's records as a committed journal file (hash, end magic). */
static void write_journal(const char *d, const char *magic, const uint8_t *rec, size_t n)
{
    struct ig_buf b = IG_BUF_INIT;
    ig_buf_append(&b, magic, 8);
    ig_buf_append(&b, rec, n);
    ig_buf_append_byte(&b, 0);
    uint64_t h = ig_hash(b.data, b.len);
    ig_buf_append_u64(&b, h);
    ig_buf_append(&b, "IGJEND01", 8);
    char sub[128];
    snprintf(sub, sizeof sub, "%s/.ingot", d);
    mkdir(sub, 0755);
    struct ig_error err = {0};
    CHECK(ig_write_file_atomic(sub, "journal", b.data, b.len, &err) == 0);
    ig_buf_free(&b);
}

/* Records name their file once per run (version 2): records alternating
 * between two files, some made by a helper journal and taken, land in the right
 * file; a version-1 journal (a file name in every record, left by an older
 * binary's crash) still replays; a write before any file record, or a file
 * name with a slash, is refused as malformed and writes nothing. */
static void test_journal_files_and_versions(void)
{
    char d[64];
    strcpy(d, "/tmp/ingot-jrnl-XXXXXX");
    REQUIRE(mkdtemp(d));
    const char *names[2] = {"part-000000.ingot", "part-000001.ingot"};
    int fds[2];
    uint8_t want[2][4096];
    for (int f = 0; f < 2; f++) {
        char path[128];
        snprintf(path, sizeof path, "%s/%s", d, names[f]);
        fds[f] = open(path, O_RDWR | O_CREAT, 0644);
        REQUIRE(fds[f] >= 0);
        memset(want[f], 0x11 * (f + 1), sizeof want[f]);
        REQUIRE(ig_pwrite_full(fds[f], want[f], sizeof want[f], 0) == 0);
    }
    struct ig_journal j, helper;
    ig_journal_init(&j);
    ig_journal_init(&helper);
    struct ig_error err = {0};
    uint64_t s = check_seed;
    for (int i = 0; i < 200; i++) {
        int f = (int)(test_rand(&s) % 2);
        size_t off = (size_t)(test_rand(&s) % 4000), n = 1 + (size_t)(test_rand(&s) % 90);
        uint8_t piece[96];
        for (size_t k = 0; k < n; k++)
            piece[k] = (uint8_t)test_rand(&s);
        struct ig_journal *into = i % 3 == 0 ? &helper : &j;
        if (i % 7 == 0) {
            CHECK(ig_journal_zero(into, names[f], off, n) == 0);
            memset(want[f] + off, 0, n);
        } else {
            CHECK(ig_journal_add(into, names[f], off, piece, n) == 0);
            memcpy(want[f] + off, piece, n);
        }
        if (i % 3 == 0) CHECK(ig_journal_take(&j, &helper) == 0); /* in order, as erase does */
    }
    REQUIRE(ig_journal_commit(&j, d, NULL, &err) == 0);
    CHECK(ig_journal_apply(d, NULL, &err) == 0);
    for (int f = 0; f < 2; f++) {
        uint8_t got[4096];
        REQUIRE(ig_pread_full(fds[f], got, sizeof got, 0) == 0);
        CHECK(memcmp(got, want[f], sizeof got) == 0);
    }
    ig_journal_free(&j);
    ig_journal_free(&helper);

    /* version 1: u8 1 | u16 name length | name | u64 offset | u32 length | bytes */
    uint8_t v1[64], *q = v1;
    *q++ = 1;
    ig_st16(q, 17), q += 2;
    memcpy(q, names[1], 17), q += 17;
    ig_st64(q, 100), q += 8;
    ig_st32(q, 3), q += 4;
    memcpy(q, "abc", 3), q += 3;
    write_journal(d, "IGJRNL01", v1, (size_t)(q - v1));
    CHECK(ig_journal_apply(d, NULL, &err) == 0);
    uint8_t got[3];
    REQUIRE(ig_pread_full(fds[1], got, 3, 100) == 0);
    CHECK(memcmp(got, "abc", 3) == 0);

    /* hostile version 2: a write before any file record; a name with a slash */
    const uint8_t orphan[] = {1, 100, 3, 'x', 'y', 'z'};
    write_journal(d, "IGJRNL02", orphan, sizeof orphan);
    CHECK(ig_journal_apply(d, NULL, &err) == -EIO);
    CHECK(strstr(err.msg, "malformed") != NULL);
    uint8_t slash[32] = {4, 5, '.', '.', '/', 'e', 't', 1, 100, 3, 'x', 'y', 'z'};
    write_journal(d, "IGJRNL02", slash, 13);
    CHECK(ig_journal_apply(d, NULL, &err) == -EIO);
    REQUIRE(ig_pread_full(fds[1], got, 3, 100) == 0);
    CHECK(memcmp(got, "abc", 3) == 0); /* nothing written */
    for (int f = 0; f < 2; f++)
        close(fds[f]);
    ig_remove_tree(d);
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* On shared storage (forced here: p.shared) another host erases in place while
 * this one reads. A footer copy is one generation's: its tail's generation and
 * root come with it (a tail read at open, before another host's erase, once
 * stood beside the newer footer); a copy whose root disagrees is refused. A
 * page read under an older footer gives up at once when the part moved on,
 * instead of waiting ~1.9 s for a stale cache to expire (a mount's reload
 * waited behind such a read). */
static void test_shared_footer_copy_is_one_generation(void)
{
    make_table(0);
    char path[128];
    snprintf(path, sizeof path, "%s/part-000000.ingot", dir);
    struct ig_error err = {0};
    /* MANIFEST records where the footer ends: an erase leaves the footer
     * where it is (the first puts the deletion bitmap past it), so an older
     * copy's place stays true */
    uint64_t end;
    record_footer_end(path, &end);
    struct ig_erase_report rep;
    struct ig_part p1, p2, p3;
    REQUIRE(ig_part_open_at(&p1, path, end, false, &err) == 0);
    CHECK(p1.generation == 0);
    uint64_t r10 = 10, r11 = 11;
    REQUIRE(erase_rows(&r10, 1, &rep) == 0); /* between the tail's read and the copy */
    p1.shared = true;
    CHECK(ig_part_copy_footer(&p1, &err) == 0);
    CHECK(p1.generation == 1); /* the copy's own tail */
    CHECK(p1.deleted_rows == 1 && ig_part_row_deleted(&p1, 10));
    CHECK(!ig_part_rewritten(&p1));
    ig_part_close(&p1);

    REQUIRE(ig_part_open_at(&p2, path, end, false, &err) == 0);
    p2.shared = true;
    REQUIRE(ig_part_copy_footer(&p2, &err) == 0);
    CHECK(!ig_part_rewritten(&p2));
    REQUIRE(erase_rows(&r11, 1, &rep) == 0);
    CHECK(ig_part_rewritten(&p2));
    struct ig_pagerec rec;
    REQUIRE(ig_part_page(&p2, 0, &rec, &err) == 0); /* rows 0.. of v: row 11 is in it */
    struct ig_reader r = {0};
    double t0 = now_s();
    CHECK(ig_reader_fetch(&r, &p2, 0, &rec, &err) == -EIO);
    CHECK(now_s() - t0 < 1.0);
    ig_reader_free(&r);
    ig_part_close(&p2);

    /* a tail whose root is not the footer's (its own hash made good) */
    int fd = open(path, O_RDWR);
    REQUIRE(fd >= 0);
    uint8_t tail[IG_TAIL_SIZE];
    REQUIRE(ig_pread_full(fd, tail, sizeof tail, end - IG_TAIL_SIZE) == 0);
    ig_st64(tail + IG_TAIL_ROOT, ig_ld64(tail + IG_TAIL_ROOT) ^ 1);
    ig_st64(tail + IG_TAIL_HASH, ig_hash(tail, IG_TAIL_HASH));
    REQUIRE(pwrite(fd, tail, sizeof tail, (off_t)(end - IG_TAIL_SIZE)) == (ssize_t)sizeof tail);
    close(fd);
    REQUIRE(ig_part_open_at(&p3, path, end, false, &err) == 0);
    p3.shared = true;
    CHECK(ig_part_copy_footer(&p3, &err) == -EIO);
    CHECK(strstr(err.msg, "root hash") != NULL);
    ig_part_close(&p3);
    REQUIRE(ig_part_open_at(&p3, path, end, false, &err) == 0); /* local storage: not checked at open */
    CHECK(ig_part_copy_footer(&p3, &err) == 0);
    ig_part_close(&p3);
    ig_remove_tree(dir);
}

/* The progress an erase reports (ig_erase_request.progress): the stored bytes
 * of the chunks holding its rows, every leaf's in each touched row group and
 * no other group's, counted up to that whole by the calling thread. */
struct progress_seen {
    uint64_t calls, last, total;
    bool backwards;
};

static void on_progress(void *ctx, uint64_t done, uint64_t total)
{
    struct progress_seen *s = ctx;
    if (done < s->last || (s->calls && total != s->total)) s->backwards = true;
    s->calls++;
    s->last = done;
    s->total = total;
}

/* Stored bytes of group g's chunks, read from the footer before the erase. */
static uint64_t group_bytes(uint32_t g)
{
    char path[128];
    snprintf(path, sizeof path, "%s/part-000000.ingot", dir);
    struct ig_part p;
    struct ig_error err = {0};
    uint64_t bytes = 0;
    if (ig_part_open(&p, path, false, &err)) return 0;
    for (uint32_t leaf = 0; leaf < p.num_leaves; leaf++) {
        uint32_t first = 0, count = 0;
        CHECK(ig_part_chunk(&p, g, leaf, &first, &count, &err) == 0);
        for (uint32_t pg = first; pg < first + count; pg++) {
            struct ig_pagerec rec;
            CHECK(ig_part_page(&p, pg, &rec, &err) == 0);
            bytes += rec.stored;
        }
    }
    ig_part_close(&p);
    return bytes;
}

static void test_erase_reports_progress(void)
{
    make_table(IG_ENC_AUTO); /* 1,000 rows in two groups of 500 */
    uint64_t g0 = group_bytes(0), g1 = group_bytes(1);
    REQUIRE(g0 > 0 && g1 > 0);
    struct progress_seen seen = {0};
    uint64_t rows[] = {3, 250};
    struct ig_erase_request req = {rows, 2, NULL, 0, "test", -1, -1, on_progress, &seen};
    struct ig_erase_report rep;
    struct ig_error err = {0};
    /* on one core the calling thread erases both leaves itself and tells
     * each (with helpers it may be told of both at once) */
    cpu_set_t all, one;
    REQUIRE(sched_getaffinity(0, sizeof all, &all) == 0);
    CPU_ZERO(&one);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &all)) {
            CPU_SET(c, &one);
            break;
        }
    REQUIRE(sched_setaffinity(0, sizeof one, &one) == 0);
    CHECK_EQ_INT(ig_cpu_cores(), 1);
    int erc = ig_erase(dir, &req, &rep, &err);
    REQUIRE(sched_setaffinity(0, sizeof all, &all) == 0);
    unsigned limit = ig_cpu_limit_at("/proc/self/cgroup", "/sys/fs/cgroup"); /* a CPU limit binds too */
    CHECK_EQ_INT(ig_cpu_cores(), limit && limit < (unsigned)CPU_COUNT(&all) ? limit : (unsigned)CPU_COUNT(&all));
    REQUIRE(erc == 0);
    free(rep.ids);
    CHECK(seen.calls >= 2); /* a leaf at a time */
    CHECK(!seen.backwards);
    CHECK_EQ_INT(seen.total, g0); /* group 1 holds none of the rows */
    CHECK_EQ_INT(seen.last, seen.total);
    /* both groups now */
    uint64_t g0_after = group_bytes(0);
    seen = (struct progress_seen){0};
    uint64_t more[] = {4, 700};
    req.rows = more;
    REQUIRE(ig_erase(dir, &req, &rep, &err) == 0);
    free(rep.ids);
    CHECK(!seen.backwards);
    CHECK_EQ_INT(seen.total, g0_after + g1);
    CHECK_EQ_INT(seen.last, seen.total);
    CHECK_EQ_INT(verify_failures(NULL), 0);
    ig_remove_tree(dir);
}

TEST_MAIN(T(test_erase_reports_progress), T(test_streamed_journal_applies_everything), T(test_journal_window_keeps_untouched_bytes), T(test_erase_takes_bounds_again), T(test_where_skips_groups_by_bounds), T(test_journal_files_and_versions), T(test_verify_catches_unscrubbed_slot), T(test_plain_pages_never_move),
          T(test_erase_touches_only_its_blocks),
          T(test_shared_footer_copy_is_one_generation), T(test_deletion_bitmap_written_by_first_erase),
          T(test_deletion_bitmap_damage_named),
          T(test_journal_replay_is_idempotent))
