/* An import cut into parts of bounded size (writer.h part_bytes, append.h):
 * the same rows and values as the import in one part, whatever the bound and
 * the threads; every part a table's part of its own (ids following on,
 * verify passing), none past the bound unless it holds one group; and an
 * import that fails after cutting leaves nothing of itself in the table. */
#include "check.h"

#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/ops/column_text.h"
#include "format/ops/verify.h"
#include "format/part/manifest.h"
#include "format/part/remote.h"
#include "format/part/table.h"
#include "import/import.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/io.h"

static char *make_dir(void)
{
    static char dir[64];
    strcpy(dir, "/tmp/ingot-parts-XXXXXX");
    return mkdtemp(dir);
}

/* A CSV of `rows` rows (id, a word, a float), values from the seed. */
static void write_csv(const char *path, uint64_t rows, uint64_t seed, bool bad_last)
{
    FILE *f = fopen(path, "w");
    REQUIRE(f);
    fprintf(f, "id,word,x\n");
    for (uint64_t r = 0; r < rows; r++) {
        uint64_t v = test_rand(&seed);
        if (bad_last && r + 1 == rows)
            fprintf(f, "oops,w,1.5\n"); /* not an int64: the import fails at its end */
        else
            fprintf(f, "%" PRIu64 ",w%" PRIu64 ",%.6f\n", r, v % 5000, (double)(v % 100000) / 7.0);
    }
    fclose(f);
}

static int hash_lines(void *ctx, const void *p, size_t n)
{
    uint64_t *h = ctx;
    *h = ig_hash(p, n) ^ (*h * 0x9E3779B97F4A7C15ULL);
    return 0;
}

/* Every column's text, hashed in order (what `ingot cat` prints); 0 when
 * the table does not read. */
static uint64_t table_text_hash(const char *dir)
{
    struct ig_table t;
    struct ig_error err = {0};
    if (ig_table_open(&t, dir, false, &err)) return 0;
    uint64_t h = 1;
    static const char *cols[] = {"id", "word", "x"};
    for (int c = 0; c < 3 && h; c++) {
        struct ig_column_ref ref;
        if (ig_table_column(&t, cols[c], strlen(cols[c]), &ref, &err) ||
            ig_column_text(&t, &ref, UINT32_MAX, hash_lines, &h, &err))
            h = 0;
    }
    ig_table_close(&t);
    return h;
}

static int import_csv(const char *csv, const char *dir, bool append, uint32_t group_rows, uint64_t part_bytes,
                      unsigned threads, struct ig_import_result *res, struct ig_error *err)
{
    struct ig_import_opts o;
    ig_import_opts_default(&o);
    o.append = append;
    o.w.rows_per_group = group_rows;
    o.w.threads = threads;
    o.part_bytes = part_bytes;
    o.part_bytes_set = true;
    return ig_import(csv, dir, &o, res, err);
}

static void test_cut_imports_read_as_one(void)
{
    char *base = make_dir();
    REQUIRE(base);
    char csv[256], one[256], cut[512];
    snprintf(csv, sizeof csv, "%s/in.csv", base);
    snprintf(one, sizeof one, "%s/one", base);
    uint64_t seed = check_seed;
    uint64_t rows = 20000 + test_rand(&seed) % 40000;
    uint32_t group = 1024u << (test_rand(&seed) % 3);
    write_csv(csv, rows, seed, false);
    struct ig_import_result res;
    struct ig_error err = {0};
    REQUIRE(import_csv(csv, one, false, group, 0, 1, &res, &err) == 0);
    CHECK_EQ_INT(res.parts, 1);
    uint64_t want = table_text_hash(one);
    CHECK(want != 0);
    struct stat st;
    snprintf(cut, sizeof cut, "%s/part-000000.ingot", one);
    REQUIRE(stat(cut, &st) == 0);
    uint64_t whole = (uint64_t)st.st_size;
    for (int round = 0; round < 6; round++) {
        /* from "every group a part of its own" (1 byte) to a few parts */
        uint64_t bound = round == 0 ? 1 : whole / (2 + test_rand(&seed) % 10);
        unsigned threads = 1 + (unsigned)(test_rand(&seed) % 3);
        snprintf(cut, sizeof cut, "%s/cut%d", base, round);
        int rc = import_csv(csv, cut, false, group, bound, threads, &res, &err);
        if (rc) fprintf(stderr, "  %s\n", err.msg);
        REQUIRE(rc == 0);
        CHECK(res.rows == rows);
        struct ig_table t;
        REQUIRE(ig_table_open(&t, cut, false, &err) == 0);
        CHECK_EQ_INT(t.nparts, res.parts);
        CHECK(t.nparts >= 2);
        if (round == 0) CHECK_EQ_INT(t.nparts, t.num_groups);
        uint64_t next = 0;
        for (uint32_t i = 0; i < t.nparts; i++) {
            const struct ig_part *p = &t.parts[i];
            CHECK(p->first_row_id == next);
            CHECK(t.manifest.parts[i].first_row == next);
            CHECK(t.manifest.parts[i].rows == p->num_rows);
            next += p->num_rows;
            /* pages within the bound, or one group past it alone */
            if (p->num_groups > 1) CHECK(p->footer_offset <= bound + 8);
        }
        CHECK(next == rows);
        ig_table_close(&t);
        CHECK(table_text_hash(cut) == want);
        struct ig_verify_report rep;
        CHECK(ig_verify_table(cut, NULL, &rep, &err) == 0);
        CHECK_EQ_INT(rep.failures, 0);
    }
    ig_remove_tree(base);
}

/* The names in dir, sorted, one a line. */
static void list_dir(const char *dir, char *out, size_t cap)
{
    struct dirent **names;
    int n = scandir(dir, &names, NULL, alphasort);
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        size_t len = strlen(out);
        snprintf(out + len, cap - len, "%s\n", names[i]->d_name);
        free(names[i]);
    }
    free(names);
}

static void test_failed_cut_append_leaves_nothing(void)
{
    char *base = make_dir();
    REQUIRE(base);
    char csv[256], bad[256], dir[256], before[4096], after[4096];
    snprintf(csv, sizeof csv, "%s/in.csv", base);
    snprintf(bad, sizeof bad, "%s/bad.csv", base);
    snprintf(dir, sizeof dir, "%s/t", base);
    write_csv(csv, 5000, 1, false);
    write_csv(bad, 30000, 2, true);
    struct ig_import_result res;
    struct ig_error err = {0};
    REQUIRE(import_csv(csv, dir, false, 1024, 0, 1, &res, &err) == 0);
    uint64_t want = table_text_hash(dir);
    list_dir(dir, before, sizeof before);
    /* parts of one group each, cut and finished before the last row fails */
    CHECK(import_csv(bad, dir, true, 1024, 1, 2, &res, &err) != 0);
    CHECK(strstr(err.msg, "oops") != NULL || strstr(err.msg, "id") != NULL);
    list_dir(dir, after, sizeof after);
    CHECK_EQ_STR(after, before);
    CHECK(table_text_hash(dir) == want);
    /* and a new table that fails so is not made at all */
    char fresh[256];
    snprintf(fresh, sizeof fresh, "%s/fresh", base);
    CHECK(import_csv(bad, fresh, false, 1024, 1, 2, &res, &err) != 0);
    struct stat st;
    CHECK(stat(fresh, &st) != 0);
    list_dir(base, after, sizeof after);
    CHECK(strstr(after, "importing") == NULL);
    ig_remove_tree(base);
}

/* What MANIFEST accepts as a part's or a blob file's name is what gc on
 * object storage takes for one of the table's objects (gc_remote.c). */
static void test_part_names(void)
{
    char part[IG_PART_NAME_MAX], blob[IG_PART_NAME_MAX];
    ig_part_file_name(part, 7);
    ig_blob_file_name(blob, 7);
    CHECK(ig_part_name_valid(part) && !ig_blob_name_valid(part));
    CHECK(ig_blob_name_valid(blob) && !ig_part_name_valid(blob));
    const char *not_ours[] = {"part-notes.ingot",      "part-.ingot",    "part-1x.blob",
                              "part-000001.ingot.tmp", "part-1/2.ingot", "xpart-000001.ingot",
                              "part-000001.blob.ingot"};
    for (size_t i = 0; i < sizeof not_ours / sizeof *not_ours; i++)
        CHECK(!ig_part_name_valid(not_ours[i]) && !ig_blob_name_valid(not_ours[i]));
}

/* A writers' lock found taken over stays lost: the erase's threads share one
 * lock, and each must hear -ESTALE, not only the first that renewed it (a
 * later renewal saying 0 would let that thread go on replacing objects under
 * another writer's lock). */
static void test_lost_lock_stays_lost(void)
{
    struct ig_remote_lock l = {.lost = true};
    snprintf(l.dir, sizeof l.dir, "s3://b/t");
    for (int i = 0; i < 2; i++) {
        struct ig_error err = {0};
        CHECK(ig_remote_lock_renew(&l, &err) == -ESTALE);
        CHECK(strstr(err.msg, "s3://b/t: the writers' lock lapsed") != NULL);
    }
    struct ig_remote_lock none = {0}; /* never held (a local table): nothing to renew */
    CHECK(ig_remote_lock_renew(&none, NULL) == 0);
}

TEST_MAIN(T(test_cut_imports_read_as_one), T(test_failed_cut_append_leaves_nothing),
          T(test_part_names), T(test_lost_lock_stays_lost))
