/* test_fs_namespace.c - the mount's names without a mount (fs/namespace.h):
 * every name a listing shows is found by a lookup, as the same node; the way
 * back from a node gives its directory and name; names that do not exist are
 * not found; the sizes a rows/ listing takes from the runs measured ahead
 * (fs/rowsizes.h) are the rows' own. A small table: 10 rows in groups of 4, a
 * string, a list, a blob column and a list<blob>; row 5 erased. */
#include "check.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/ops/erase.h"
#include "fs/attr.h"
#include "fs/namespace.h"
#include "fs/rows.h"
#include "fs/session.h"
#include "fs/subtables.h"
#include "format/part/versions.h"
#include "import/import.h"
#include "util/error.h"

#define ROWS  10
#define GROUP 4

static char dir[] = "/tmp/ingot-unit-XXXXXX";
static char table[4200];

static int make_table(bool blobs)
{
    if (!mkdtemp(dir)) return -1;
    char in[4200], schema[4200], obj[4200];
    snprintf(in, sizeof in, "%s/in.jsonl", dir);
    snprintf(schema, sizeof schema, "%s/schema.txt", dir);
    snprintf(table, sizeof table, "%s/t%s", dir, blobs ? "b" : "");
    FILE *f = fopen(schema, "w");
    if (!f) return -1;
    fprintf(f, "id int64\nname string?\ntags list<int64>\n%s",
            blobs ? "photo blob?\nclips list<blob>\n" : "");
    fclose(f);
    snprintf(obj, sizeof obj, "%s/o.jpg", dir);
    f = fopen(obj, "wb");
    if (!f) return -1;
    fwrite("\xff\xd8\xff\xe0 not really a jpeg", 1, 22, f);
    fclose(f);
    f = fopen(in, "w");
    if (!f) return -1;
    for (int r = 0; r < ROWS; r++) {
        fprintf(f, "{\"id\": %d, \"name\": \"n%d\", \"tags\": [%d, %d]", r, r, r, r + 1);
        if (blobs)
            fprintf(f, ", \"photo\": %s%s%s, \"clips\": [\"%s\", \"%s\"]", r % 3 ? "\"" : "",
                    r % 3 ? obj : "null", r % 3 ? "\"" : "", obj, obj);
        fputs("}\n", f);
    }
    fclose(f);
    struct ig_import_opts o = {.schema_path = schema};
    ig_import_opts_default(&o);
    o.schema_path = schema;
    o.w.rows_per_group = GROUP;
    struct ig_import_result res;
    struct ig_error err = {0};
    int rc = ig_import(in, table, &o, &res, &err);
    if (rc) {
        fprintf(stderr, "  import: %s\n", err.msg);
        return rc;
    }
    uint64_t five = 5;
    struct ig_erase_request req = {&five, 1, NULL, 0, "cli", -1, -1};
    struct ig_erase_report rep;
    rc = ig_erase(table, &req, &rep, &err);
    if (rc)
        fprintf(stderr, "  erase: %s\n", err.msg);
    else
        free(rep.ids);
    return rc;
}

static void remove_tree(void)
{
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd)) {
    }
}

static bool same_node(const struct fs_node *a, const struct fs_node *b)
{
    return a->kind == b->kind && a->dir == b->dir && a->special == b->special &&
           a->view == b->view && a->col == b->col && a->scope == b->scope && a->row == b->row &&
           a->blob == b->blob && a->k == b->k;
}

/* Every entry of d (and, below it, of every directory it lists) is found by a
 * lookup of its name as the same node, and a node with a place names it back.
 * Returns the entries seen (not counting . and ..). */
static int walk(struct fs_session *s, const struct fs_node *d, int depth)
{
    int seen = 0;
    char name[FS_NS_NAME_MAX];
    struct fs_node n;
    int64_t last = 1;
    for (int64_t idx = 2; (idx = fs_ns_entry(s, d, idx, name, sizeof name, &n)) >= 0; idx++) {
        CHECK(idx > last); /* offsets only move forward */
        last = idx;
        seen++;
        struct fs_node found;
        CHECK_EQ_INT(fs_ns_lookup(s, d, name, &found), 0);
        CHECK(same_node(&found, &n));
        uint64_t parent;
        char back[FS_NS_NAME_MAX];
        if (fs_ns_place(s, &n, &parent, back, sizeof back)) {
            CHECK_EQ_INT(parent, fs_ino(d));
            CHECK_EQ_STR(back, name);
        }
        bool is_dir = n.kind == FS_K_DIR || n.kind == FS_K_BLOB_DIR || n.kind == FS_K_BLOB_ROW;
        if (is_dir && depth < 4) walk(s, &n, depth + 1);
    }
    return seen;
}

static int count_entries(struct fs_session *s, const struct fs_node *d)
{
    char name[FS_NS_NAME_MAX];
    struct fs_node n;
    int seen = 0;
    for (int64_t idx = 2; (idx = fs_ns_entry(s, d, idx, name, sizeof name, &n)) >= 0; idx++)
        seen++;
    return seen;
}

static void test_listing_and_lookup_agree(void)
{
    REQUIRE(make_table(true) == 0);
    struct fs_session s;
    struct ig_error err = {0};
    REQUIRE(fs_session_init(&s, table, 0, 0, &err) == 0);
    struct fs_node root = {.kind = FS_K_ROOT};
    CHECK(walk(&s, &root, 0) == 12); /* README ... jsonl, blobs/, versions/, tags/ */
    struct fs_node rows = {.kind = FS_K_DIR, .dir = FS_D_ROWS};
    CHECK_EQ_INT(count_entries(&s, &rows), ROWS - 1); /* row 5 erased */
    struct fs_node groups = {.kind = FS_K_DIR, .dir = FS_D_GROUPS};
    CHECK_EQ_INT(count_entries(&s, &groups), 3);
    struct fs_node pq = {.kind = FS_K_DIR, .dir = FS_D_PARQUET};
    CHECK_EQ_INT(count_entries(&s, &pq), 3);
    struct fs_node blobs = {.kind = FS_K_DIR, .dir = FS_D_BLOBS};
    CHECK_EQ_INT(count_entries(&s, &blobs), 2);
    fs_session_destroy(&s);
}

/* A run measured ahead holds each row's size as measuring it alone gives
 * (across row groups, 0 for the erased row), only for its generation, and
 * none is measured past the table's end. (Runs after runs: the 10,000 rows
 * of test_versions.sh listed_sizes_follow_each_version.) */
static void test_listed_sizes_measured_ahead(void)
{
    struct fs_session s;
    struct ig_error err = {0};
    REQUIRE(fs_session_init(&s, table, 0, 0, &err) == 0);
    struct fs_rowsizes *r = &s.rowsizes;
    REQUIRE(r->run[0].size && r->run[1].size);
    uint64_t want[ROWS], got[ROWS], sizes[ROWS];
    struct ig_buf scratch = {0};
    for (uint64_t row = 0; row < ROWS; row++) {
        size_t done = 0;
        REQUIRE(fs_rows_sizes(&s, row, 1, &scratch, &want[row], &done) == 0 && done == 1);
        ig_buf_reset(&scratch);
        CHECK(row == 5 ? want[row] == 0 : fs_row_render(&s, row, &scratch) == 0 && scratch.len == want[row]);
    }
    ig_buf_free(&scratch);
    CHECK_EQ_INT(fs_rowsizes_take(r, s.generation, 0, got, ROWS), 0); /* nothing measured yet */
    fs_rows_listed_ahead(&s, 2);
    CHECK(r->measuring == -1 && r->run[0].first == 2 && r->run[0].n == ROWS - 2);
    CHECK_EQ_INT(fs_rowsizes_take(r, s.generation, 1, got, ROWS), 0);
    CHECK_EQ_INT(fs_rowsizes_take(r, s.generation, 3, got, 4), 4);
    CHECK(!memcmp(got, want + 3, 4 * sizeof *got));
    CHECK_EQ_INT(fs_rowsizes_take(r, s.generation, 2, sizes, ROWS), ROWS - 2);
    CHECK(!memcmp(sizes, want + 2, (ROWS - 2) * sizeof *sizes));
    CHECK_EQ_INT(fs_rowsizes_take(r, s.generation + 1, 3, got, ROWS), 0); /* another table's */
    /* the table's last rows are in the run: nothing more to measure */
    struct fs_rowsizes_run before = r->run[1];
    fs_rows_listed_ahead(&s, 9);
    CHECK(r->run[1].first == before.first && r->run[1].want == before.want);
    fs_session_destroy(&s);
}

static void test_names_that_are_not_there(void)
{
    struct fs_session s;
    struct ig_error err = {0};
    REQUIRE(fs_session_init(&s, table, 0, 0, &err) == 0);
    struct fs_node root = {.kind = FS_K_ROOT}, n;
    struct fs_node rows = {.kind = FS_K_DIR, .dir = FS_D_ROWS};
    struct fs_node cols = {.kind = FS_K_DIR, .dir = FS_D_COLUMNS};
    struct fs_node groups = {.kind = FS_K_DIR, .dir = FS_D_GROUPS};
    struct fs_node pq = {.kind = FS_K_DIR, .dir = FS_D_PARQUET};
    CHECK_EQ_INT(fs_ns_lookup(&s, &root, "nope", &n), -ENOENT);
    CHECK_EQ_INT(fs_ns_lookup(&s, &rows, "10", &n), -ENOENT);  /* past the end */
    CHECK_EQ_INT(fs_ns_lookup(&s, &rows, "007", &n), -ENOENT); /* not canonical */
    CHECK_EQ_INT(fs_ns_lookup(&s, &rows, "-1", &n), -ENOENT);
    CHECK_EQ_INT(fs_ns_lookup(&s, &rows, "99999999999999999999", &n), -ENOENT); /* overflows */
    CHECK_EQ_INT(fs_ns_lookup(&s, &groups, "3", &n), -ENOENT);
    CHECK_EQ_INT(fs_ns_lookup(&s, &pq, "3.parquet", &n), -ENOENT);
    CHECK_EQ_INT(fs_ns_lookup(&s, &pq, "0.arrow", &n), -ENOENT); /* another directory's */
    CHECK_EQ_INT(fs_ns_lookup(&s, &cols, "missing.npy", &n), -ENOENT);
    CHECK_EQ_INT(fs_ns_lookup(&s, &cols, "name.npy", &n), -ENOENT); /* strings have no array */
    CHECK_EQ_INT(fs_ns_lookup(&s, &cols, "id.npy", &n), 0);
    struct fs_node g7 = {.kind = FS_K_DIR, .dir = FS_D_GROUP, .scope = 8};
    CHECK(!fs_ns_dir_exists(&s, &g7));
    CHECK_EQ_INT(fs_ns_lookup(&s, &g7, "id", &n), -ENOENT);
    /* the erased row is still a name (reads answer ENOENT), but not listed */
    CHECK_EQ_INT(fs_ns_lookup(&s, &rows, "5", &n), 0);
    fs_session_destroy(&s);
    remove_tree();
}

static void test_no_blobs_directory_without_blob_columns(void)
{
    strcpy(dir, "/tmp/ingot-unit-XXXXXX");
    REQUIRE(make_table(false) == 0);
    struct fs_session s;
    struct ig_error err = {0};
    REQUIRE(fs_session_init(&s, table, 0, 0, &err) == 0);
    struct fs_node root = {.kind = FS_K_ROOT}, n;
    CHECK_EQ_INT(count_entries(&s, &root), 11);
    CHECK_EQ_INT(fs_ns_lookup(&s, &root, "blobs", &n), -ENOENT);
    struct fs_node blobs = {.kind = FS_K_DIR, .dir = FS_D_BLOBS};
    CHECK(!fs_ns_dir_exists(&s, &blobs));
    CHECK(walk(&s, &root, 0) == 11);
    fs_session_destroy(&s);
}

/* versions/ lists the versions kept (import, erase: 1 and 2), tags/ the tags
 * as links; a version's own table lists neither and cannot be erased from */
static void test_versions_and_tags(void)
{
    struct fs_session s, v;
    struct ig_error err = {0};
    REQUIRE(fs_session_init(&s, table, 0, 0, &err) == 0);
    struct fs_node versions = {.kind = FS_K_DIR, .dir = FS_D_VERSIONS}, n;
    struct fs_node tags = {.kind = FS_K_DIR, .dir = FS_D_TAGS};
    CHECK_EQ_INT(count_entries(&s, &versions), 2);
    CHECK_EQ_INT(fs_ns_lookup(&s, &versions, "2", &n), 0);
    CHECK(n.kind == FS_K_DIR && n.dir == FS_D_VERSION && n.scope == 2);
    CHECK_EQ_INT(fs_ns_lookup(&s, &versions, "3", &n), -ENOENT);
    CHECK_EQ_INT(fs_ns_lookup(&s, &versions, "0", &n), -ENOENT);
    CHECK_EQ_INT(fs_ns_lookup(&s, &versions, "01", &n), -ENOENT);
    CHECK_EQ_INT(count_entries(&s, &tags), 0);
    struct ig_tag tag = {.name = "first", .version = 1};
    REQUIRE(ig_tags_save(table, &tag, 1, NULL, &err) == 0);
    CHECK_EQ_INT(count_entries(&s, &tags), 1);
    CHECK_EQ_INT(fs_ns_lookup(&s, &tags, "first", &n), 0);
    char target[64];
    CHECK_EQ_INT(fs_ns_link_target(&n, target, sizeof target), 13);
    CHECK_EQ_STR(target, "../versions/1");
    CHECK_EQ_INT(fs_ns_lookup(&s, &tags, "second", &n), -ENOENT);

    REQUIRE(fs_session_init(&v, table, 1, 0, &err) == 0);
    v.read_only = true;
    struct fs_node root = {.kind = FS_K_ROOT}, control = {.kind = FS_K_DIR, .dir = FS_D_CONTROL};
    CHECK_EQ_INT(count_entries(&v, &root), 9);
    CHECK_EQ_INT(fs_ns_lookup(&v, &root, "versions", &n), -ENOENT);
    CHECK_EQ_INT(fs_ns_lookup(&v, &control, "erase", &n), -ENOENT);
    CHECK_EQ_INT(fs_ns_lookup(&v, &control, "generation", &n), 0);
    struct fs_node rows = {.kind = FS_K_DIR, .dir = FS_D_ROWS};
    CHECK_EQ_INT(count_entries(&v, &rows), ROWS - 1); /* the erase reaches version 1 */
    fs_session_destroy(&v);
    fs_session_destroy(&s);
}

/* Numbers for a version's nodes: handed out once per node, counted as the
 * kernel counts them, gone when it forgets them */
static void test_version_numbers(void)
{
    struct fs_session s;
    struct ig_error err = {0};
    REQUIRE(fs_session_init(&s, table, 0, 0, &err) == 0);
    REQUIRE(fs_subtables_start(&s) == 0);
    struct fs_target t, u, w;
    CHECK_EQ_INT(fs_subtables_enter(&s, 9, &t), -ENOENT);
    REQUIRE(fs_subtables_enter(&s, 1, &t) == 0);
    CHECK(t.s != &s && t.s->version == 1 && t.ino == FS_ROOT_INO && t.slot == 0);
    REQUIRE(fs_subtables_enter(&s, 1, &u) == 0);
    CHECK(u.s == t.s); /* one session per version */
    struct fs_node row = {.kind = FS_K_ROW, .row = 3};
    uint64_t inner = fs_ino(&row);
    uint64_t a = fs_target_hold(&s, &t, inner, 2);
    CHECK(a != 0 && a != inner);
    CHECK_EQ_INT(fs_target_hold(&s, &t, inner, 1), a); /* the same node, the same number */
    uint64_t b = fs_target_hold(&s, &t, FS_ROOT_INO, 1);
    CHECK(b != a);
    CHECK(fs_target_of(&s, a, &w) && w.s == t.s && w.ino == inner);
    CHECK_EQ_INT(fs_target_peek(&s, &t, inner), a);
    fs_target_release(&s, a, 2);
    CHECK(fs_target_of(&s, a, &w)); /* one reference left */
    fs_target_release(&s, a, 5);    /* more than it holds: all of them */
    CHECK(!fs_target_of(&s, a, &w));
    CHECK_EQ_INT(fs_target_peek(&s, &t, inner), 0);
    /* the table's own numbers stay its own */
    CHECK(fs_target_of(&s, inner, &w) && w.s == &s && w.ino == inner && w.slot == -1);
    CHECK_EQ_INT(fs_target_hold(&s, &w, inner, 1), inner);
    fs_subtables_stop(&s);
    fs_session_destroy(&s);
    remove_tree();
}

TEST_MAIN(T(test_listing_and_lookup_agree), T(test_listed_sizes_measured_ahead), T(test_names_that_are_not_there),
          T(test_no_blobs_directory_without_blob_columns), T(test_versions_and_tags), T(test_version_numbers))
