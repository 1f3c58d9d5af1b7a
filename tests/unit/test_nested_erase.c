/* Erasing rows of nested (level-stream) pages: random lists and strings, random
 * rows erased, the levels in two streams or one joint stream (format 19); the
 * page never grows past its extent (an uncompressed one never grows, a zstd
 * one fits the slack a writer leaves after it), erased rows hold nothing, live
 * rows stay. */
#include "check.h"
#include "page_test.h"

#include "format/part/footer.h"
#include "format/layout.h"
#include "format/page/page.h"
#include "format/model/types.h"
#include "format/model/values.h"
#include "util/error.h"

/* list<T>? rows (max_def 3: null list, empty, null element, value) of a given style */
static void make_rows(uint64_t *s, struct ig_values *v, size_t rows, int style, bool strings)
{
    for (size_t r = 0; r < rows; r++) {
        unsigned pick = (unsigned)(test_rand(s) % 100);
        if (pick < 5) {
            ig_values_push_entry(v, 0, 0); /* NULL list */
        } else if (pick < 10) {
            ig_values_push_entry(v, 0, 1); /* empty */
        } else {
            size_t n = 1 + (size_t)(test_rand(s) % (style == 0 ? 3 : 40));
            for (size_t k = 0; k < n; k++) {
                if (style == 2 && test_rand(s) % 7 == 0) {
                    ig_values_push_entry(v, k ? 1 : 0, 2); /* NULL element */
                    continue;
                }
                ig_values_push_entry(v, k ? 1 : 0, 3);
                uint64_t x = style == 1 ? test_rand(s) % 4 : test_rand_wide(s);
                if (strings) {
                    char buf[32];
                    int len = snprintf(buf, sizeof buf, "v%llu", (unsigned long long)x);
                    ig_values_push_bytes(v, buf, (size_t)len);
                } else {
                    ig_values_push_lane(v, x);
                }
            }
        }
        ig_values_end_row(v);
    }
}

static void test_erase_never_grows(void)
{
    uint64_t s = check_seed ^ 0x1e5;
    struct ig_page_scratch scratch = {0};
    struct ig_page_built built = {0}, erased = {0};
    int grew = 0, grew_zstd = 0, tries = 0;
    long worst = 0;
    for (int iter = 0; iter < 120; iter++) {
        bool strings = iter % 2;
        uint8_t type = strings ? IG_T_STRING : IG_T_INT64;
        struct ig_leaf_info li = {
            .type = type, .max_rep = 1, .max_def = 3, .levels = true, .per_value = 1,
            .joint_levels = iter / 2 % 2}; /* format 19's joint level stream, or two */
        size_t rows = 20 + (size_t)(test_rand(&s) % 500);
        struct ig_values v, out;
        ig_values_init(&v, type);
        ig_values_set_levels(&v, 1);
        ig_values_init(&out, type);
        make_rows(&s, &v, rows, iter % 3, strings);
        struct ig_error err = {0};
        struct ig_page_policy pol = {
            .type = type, .compression = iter % 5 == 4 ? IG_COMP_ZSTD : IG_COMP_NONE, .leaf = li};
        REQUIRE(ig_page_encode(&pol, &v, 0, rows, &scratch, &built, &err) == 0);
        struct ig_pagerec rec = test_rec_of(&built, rows);
        rec.capacity += (uint32_t)ig_block_slack(&built); /* its extent, as a writer leaves it */
        uint8_t kill[(20 + 500) / 8 + 1] = {0};
        size_t nk = 1 + (size_t)(test_rand(&s) % 8);
        for (size_t k = 0; k < nk; k++) {
            size_t r = (size_t)(test_rand(&s) % rows);
            kill[r / 8] |= (uint8_t)(1u << (r % 8));
        }
        int rc = ig_page_erase_leaf(built.stored.data, &rec, &li, kill, NULL, 3, &scratch, &erased,
                                    &err);
        if (rc) fprintf(stderr, "  erase: %s\n", err.msg);
        REQUIRE(rc == 0);
        tries++;
        /* an uncompressed page never grows; a zstd one is recompressed,
         * harder where it must, to fit the slack after it, else it moves
         * (ERASURE.md): 1 of the 7,200 zstd pages over seeds 1 to 300 came
         * out 6 bytes over (seed 86) */
        long d = (long)erased.stored.len - (long)rec.capacity;
        bool zstd = built.compression != IG_PC_NONE;
        grew += d > 0 && !zstd;
        grew_zstd += d > 0 && zstd;
        if (d > worst) worst = d;
        struct ig_pagerec rec2 = test_rec_of(&erased, rows);
        CHECK(ig_page_check_erased_leaf(erased.stored.data, &rec2, &li, kill, &scratch, &err) == 0);
        bool had_data = false;            /* then the unerased page must fail the check */
        for (size_t r = 0; r < rows; r++) /* a killed row with a nonzero value */
            for (size_t k = v.row_val[r]; ((kill[r / 8] >> (r % 8)) & 1) && k < v.row_val[r + 1];
                 k++) {
                size_t bl = 0;
                had_data |= strings ? (ig_values_bytes(&v, k, &bl), bl > 0) : v.lanes[k] != 0;
            }
        if (had_data)
            CHECK(ig_page_check_erased_leaf(built.stored.data, &rec, &li, kill, &scratch, &err) !=
                  0);
        REQUIRE(ig_page_decode_leaf(erased.stored.data, &rec2, &li, NULL, &scratch, &out, &err) ==
                0);
        int bad = 0;
        for (size_t r = 0; r < rows; r++) {
            if ((kill[r / 8] >> (r % 8)) & 1) continue;
            size_t a0 = v.row_ent[r], a1 = v.row_ent[r + 1], b0 = out.row_ent[r],
                   b1 = out.row_ent[r + 1];
            bad += a1 - a0 != b1 - b0 || memcmp(v.defs + a0, out.defs + b0, a1 - a0) != 0;
            size_t x0 = v.row_val[r], x1 = v.row_val[r + 1], y0 = out.row_val[r];
            for (size_t k = 0; k < x1 - x0 && !bad; k++) {
                if (strings) {
                    size_t la, lb;
                    const uint8_t *pa = ig_values_bytes(&v, x0 + k, &la),
                                  *pb = ig_values_bytes(&out, y0 + k, &lb);
                    bad += la != lb || memcmp(pa, pb, la) != 0;
                } else {
                    bad += v.lanes[x0 + k] != out.lanes[y0 + k];
                }
            }
        }
        CHECK_EQ_INT(bad, 0);
        ig_values_free(&v);
        ig_values_free(&out);
    }
    fprintf(stderr, "  %d of %d erasures grew the page past its extent (worst +%ld bytes)\n",
            grew + grew_zstd, tries, worst);
    CHECK_EQ_INT(grew, 0);
    CHECK(grew_zstd <= 2);
    ig_page_built_free(&built);
    ig_page_built_free(&erased);
    ig_page_scratch_free(&scratch);
}

TEST_MAIN({"nested_erase_never_grows", test_erase_never_grows})
