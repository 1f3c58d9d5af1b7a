/* test_float_blocks.c - float columns through a page's blocks when the writer
 * chooses their schemes (page_blocks.c, struct block_trials): blocks whose
 * values the full choice left plain twice running are stored plain without
 * weighing the schemes again, but every eighth block weighs them again, and
 * what was learnt is carried from page to page (struct ig_block_fit). These
 * tests hold that this never changes a value read back (bit for bit: NaN
 * payloads, -0.0, denormals, infinities), that it does happen on values that
 * do not compress (Gaussian floats), and that a column whose values turn to
 * decimals goes back to the schemes that hold them. */
#include "check.h"
#include "format/enc/codec.h"
#include "format/layout.h"
#include "format/model/types.h"
#include "format/model/values.h"
#include "format/page/page.h"
#include "format/part/footer.h"
#include "util/error.h"
#include "util/floatbits.h"

#include <math.h>

/* A standard normal draw (Box-Muller) from the test generator. */
static double gauss(uint64_t *seed)
{
    double u = ((double)(test_rand(seed) >> 11) + 1.0) / 9007199254740993.0;
    double v = (double)(test_rand(seed) >> 11) / 9007199254740992.0;
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

enum kind { GAUSS, PRICES, SIXTYFOURTHS, ODD, KINDS };

/* One value of the kind as a lane of the width's float: Gaussian (sd 1/sqrt(768),
 * an embedding's), prices of two places, multiples of 1/64, or the odd ones
 * (NaN with payloads, -0.0, infinities, denormals, the largest finite). */
static uint64_t value_of(enum kind k, bool f64, uint64_t *seed)
{
    double d = 0;
    switch (k) {
    case GAUSS: d = gauss(seed) / sqrt(768.0); break;
    case PRICES: d = (double)(test_rand(seed) % 100000) / 100.0; break;
    case SIXTYFOURTHS: d = (double)(test_rand(seed) % 128) / 64.0; break;
    default: {
        static const uint32_t odd32[] = {0x7fc00001u, 0xffc12345u, 0x80000000u, 0x7f800000u, 0xff800000u,
                                         0x00000001u, 0x007fffffu, 0x7f7fffffu};
        static const uint64_t odd64[] = {0x7ff8000000000001ull, 0xfff0000000000123ull, 0x8000000000000000ull,
                                         0x7ff0000000000000ull, 0x0000000000000001ull, 0x7fefffffffffffffull};
        uint64_t r = test_rand(seed);
        if (r % 4) return value_of(GAUSS, f64, seed); /* a quarter odd, among Gaussian ones */
        return f64 ? odd64[(r >> 8) % 6] : odd32[(r >> 8) % 8];
    }
    }
    return f64 ? ig_f64_lane(d) : ig_f32_lane((float)d);
}

/* A float policy as the writer gives it (decimal and alp offered). */
static struct ig_page_policy float_policy(bool f64)
{
    uint8_t t = f64 ? IG_T_FLOAT64 : IG_T_FLOAT32;
    return (struct ig_page_policy){.type = t, .decimal = true, .alp = true,
                                   .leaf = {.type = t, .per_value = 1}};
}

struct tally {
    size_t blocks, plain, bad, stored, alone;
};

/* Pages of `page_rows` rows, blocks of `block_rows`, one fit carried across
 * them (as the writer carries it); every block decoded and compared bit for
 * bit, and encoded again alone (its own full choice) for the bytes. Per
 * kind of its rows (kinds[r / run]): blocks, how many plain. */
static void encode_column(const struct ig_values *src, bool f64, size_t page_rows, size_t block_rows,
                          const enum kind *kinds, size_t run, struct tally *by_kind, struct ig_block_fit *fit)
{
    struct ig_values v = *src; /* the encoder takes it writable */
    struct ig_page_policy pol = float_policy(f64);
    struct ig_page_scratch scratch = {0};
    struct ig_error err = {0};
    struct ig_page_built page = {0}, one = {0};
    size_t cuts[64];
    for (size_t p0 = 0; p0 < v.n; p0 += page_rows) {
        size_t rows = v.n - p0 < page_rows ? v.n - p0 : page_rows, nc = 0;
        for (size_t r = 0; r < rows && nc + 1 < 64; r += block_rows)
            cuts[nc++] = r;
        cuts[nc] = rows;
        REQUIRE(ig_page_encode_blocks(&pol, &v, p0, rows, cuts, nc, fit, &scratch, &page, &err) == 0);
        for (uint32_t b = 0; b < page.nblocks; b++) {
            const struct ig_block_built *k = &page.blocks[b];
            size_t first = p0 + k->first_row;
            struct tally *t = &by_kind[kinds[first / run]];
            t->blocks++;
            t->plain += k->encoding == IG_ENC_PLAIN;
            t->stored += k->stored;
            struct ig_pagerec rec = {.stored = k->stored, .capacity = k->stored, .row_count = k->row_count,
                                     .entry_count = k->entry_count, .value_count = k->value_count,
                                     .encoding = k->encoding, .compression = k->compression,
                                     .flags = k->flags, .body_size = k->body_size};
            struct ig_values back;
            ig_values_init(&back, pol.type);
            int rc = ig_page_decode(page.stored.data + k->offset, &rec, pol.type, NULL, &scratch, &back, &err);
            bool same = rc == 0 && back.n == k->row_count;
            for (size_t i = 0; same && i < back.n; i++) {
                uint64_t want = v.lanes[first + i], got = back.lanes[i];
                if (!f64) want &= 0xffffffffu, got &= 0xffffffffu;
                same = want == got;
            }
            if (!same && !t->bad)
                fprintf(stderr, "  block at row %zu (encoding %u): %s\n", first, k->encoding, rc ? err.msg : "values differ");
            t->bad += !same;
            ig_values_free(&back);
            REQUIRE(ig_page_encode(&pol, &v, first, k->row_count, &scratch, &one, &err) == 0);
            t->alone += one.stored.len;
        }
    }
    ig_page_built_free(&page);
    ig_page_built_free(&one);
    ig_page_scratch_free(&scratch);
}

/* Random runs of the four kinds, float32 and float64, pages of 2,048 rows in
 * blocks of 256 or 512: every value reads back bit for bit; no kind stores
 * more than an eighth above its blocks' own full choices, but for the 8
 * blocks a run may be settled plain before a recheck; blocks were stored
 * plain without the choice (fit.settled); decimals and 1/64s are held by
 * schemes other than plain in all but a few blocks (after Gaussian runs
 * too). Fails if settling loses a value, never happens, or sticks to plain
 * when the values change. */
static void test_float_blocks_settle_and_round_trip(void)
{
    uint64_t seed = check_seed ^ 0xF10A7;
    for (int round = 0; round < 6; round++) {
        bool f64 = round & 1;
        size_t run = 3000 + (size_t)(test_rand(&seed) % 4000), nruns = 8, block_rows = round & 2 ? 512 : 256;
        enum kind kinds[8];
        kinds[0] = GAUSS; /* settles first, then must come back */
        for (size_t j = 1; j < nruns; j++)
            kinds[j] = (enum kind)(test_rand(&seed) % KINDS);
        kinds[1] = PRICES;
        struct ig_values v;
        ig_values_init(&v, f64 ? IG_T_FLOAT64 : IG_T_FLOAT32);
        for (size_t r = 0; r < run * nruns; r++)
            REQUIRE(ig_values_push_lane(&v, value_of(kinds[r / run], f64, &seed)) == 0);
        struct tally by[KINDS] = {{0}};
        struct ig_block_fit fit = {0};
        encode_column(&v, f64, 2048, block_rows, kinds, run, by, &fit);
        for (int k = 0; k < KINDS; k++) {
            struct tally *t = &by[k];
            size_t runs_of = 0;
            for (size_t j = 0; j < nruns; j++)
                runs_of += kinds[j] == (enum kind)k;
            /* at most 8 blocks of a run stored plain before a recheck sees
             * the change, beyond an eighth over the blocks' own choices */
            size_t bound = t->alone + t->alone / 8 + runs_of * 8 * block_rows * (f64 ? 8 : 4);
            CHECK_EQ_INT(t->bad, 0);
            CHECK(t->stored <= bound);
            if (t->stored > bound)
                fprintf(stderr, "  round %d kind %d: %zu bytes against %zu alone\n", round, k, t->stored, t->alone);
        }
        CHECK(fit.settled >= by[GAUSS].blocks / 2);
        size_t gauss_runs = 0; /* a run's last block may hold the next run's first values */
        for (size_t j = 0; j < nruns; j++)
            gauss_runs += kinds[j] == GAUSS;
        CHECK(by[GAUSS].plain + gauss_runs >= by[GAUSS].blocks);
        if (by[GAUSS].plain + gauss_runs < by[GAUSS].blocks)
            fprintf(stderr, "  round %d: %zu of %zu Gaussian blocks plain\n", round, by[GAUSS].plain, by[GAUSS].blocks);
        /* a block at the start of a run may still be settled plain (cut across
         * two runs, or before the recheck comes round: at most 8 a run) */
        for (int k = PRICES; k <= SIXTYFOURTHS; k++) {
            size_t runs_of = 0;
            for (size_t j = 0; j < nruns; j++)
                runs_of += kinds[j] == (enum kind)k;
            CHECK(by[k].plain <= 9 * runs_of);
            if (by[k].plain > 9 * runs_of)
                fprintf(stderr, "  round %d kind %d: %zu of %zu blocks plain\n", round, k, by[k].plain, by[k].blocks);
        }
        ig_values_free(&v);
    }
}

/* A column of values that compress from the start (prices) never settles:
 * every block weighs the schemes, and none is plain. */
static void test_float_blocks_decimals_never_settle(void)
{
    uint64_t seed = check_seed ^ 0xDEC1;
    struct ig_values v;
    ig_values_init(&v, IG_T_FLOAT64);
    const size_t rows = 20000;
    enum kind kinds[1] = {PRICES};
    for (size_t r = 0; r < rows; r++)
        REQUIRE(ig_values_push_lane(&v, value_of(PRICES, true, &seed)) == 0);
    struct tally by[KINDS] = {{0}};
    struct ig_block_fit fit = {0};
    encode_column(&v, true, 4096, 512, kinds, rows, by, &fit);
    CHECK_EQ_INT(by[PRICES].bad, 0);
    CHECK_EQ_INT(by[PRICES].plain, 0);
    CHECK_EQ_INT(fit.settled, 0);
    CHECK(by[PRICES].stored <= by[PRICES].alone);
    ig_values_free(&v);
}

TEST_MAIN(T(test_float_blocks_settle_and_round_trip), T(test_float_blocks_decimals_never_settle))
