/* Sliding-window pages: random sequence features round-trip exactly, a single
 * row decodes from its base, the encoding beats level streams on sliding data,
 * erased rows come back empty, and hostile bytes never crash the decoder; all
 * of it also for hashed ids (a few popular ids spread over 64 bits), which the
 * dictionary bulk stores. */
#include "check.h"
#include "page_test.h"

#include "format/part/footer.h"
#include "format/layout.h"
#include "format/page/page.h"
#include "format/page/slide.h"
#include "format/page/slide_int.h"
#include "format/model/types.h"
#include "format/model/values.h"
#include "util/endian.h"
#include "util/error.h"

#include <zstd.h>

/* Sign-extend x to the lane of a `bits`-wide signed or unsigned integer. */
static uint64_t lane_of(uint64_t x, unsigned bits, bool sgn)
{
    if (bits == 64) return x;
    x &= (1ull << bits) - 1;
    if (sgn && (x >> (bits - 1))) x |= ~0ull << bits;
    return x;
}

/* Whether random_id may return negative ids (signed types): pages without
 * one store their ids without zigzag. */
static bool negatives = true;

/* Whether random_id draws hashed ids: from a pool of random 64-bit ids, the
 * first ones far more often (popular ids that are not small numbers). */
static bool hashed;

/* Whether the leaf's items may be NULL (list<T?>, format 18): make_rows'
 * max_def then counts their level too (none of its rows holds a NULL item). */
static bool item_nulls;

/* Whether random_id draws readings (lists of floats, format 21): float32 bits
 * of a Gaussian-like reading (bits 32) or float64 bits of a price of two
 * decimals (bits 64), which the float schemes store in the bulk's stream. */
static bool readings;

/* An id spread over many magnitudes, as ad ids are (or a hashed one). */
static uint64_t random_id(uint64_t *s, unsigned bits, bool sgn)
{
    if (readings) {
        double u = (double)(test_rand(s) % 1000000) / 1e6, w = (double)(test_rand(s) % 1000000) / 1e6;
        if (bits == 32) {
            float f = (float)((u + w - 1.0) * 3.0);
            uint32_t b;
            memcpy(&b, &f, 4);
            return b;
        }
        double d = (double)(1000 + test_rand(s) % 900000) / 100.0;
        uint64_t b;
        memcpy(&b, &d, 8);
        return b;
    }
    if (hashed) {
        double u = (double)(test_rand(s) % 1000000) / 1e6;
        uint64_t k = (uint64_t)(3000 * u * u * u), x = k * 0x9E3779B97F4A7C15ull ^ 0x5bd1e995ull;
        x ^= x >> 29;
        if (sgn && !negatives) x &= ~0ull >> (65 - bits); /* below the sign bit */
        return lane_of(x, bits, sgn);
    }
    unsigned mag = 1 + (unsigned)(test_rand(s) % bits);
    uint64_t x = test_rand(s) & (mag == 64 ? ~0ull : (1ull << mag) - 1);
    if (sgn && !negatives) x &= mag >= bits ? ~0ull >> (65 - bits) : ~0ull; /* below the sign bit */
    if (sgn && negatives && (test_rand(s) & 3) == 0) x = 0 - x;
    return lane_of(x, bits, sgn);
}

/* Rows that slide: each keeps most of its predecessor, shifted by a few values
 * at either end; now and then a reset, an empty list or (nullable) a NULL. */
static void make_rows(uint64_t *s, struct ig_values *v, size_t rows, unsigned bits, bool sgn,
                      uint8_t max_def)
{
    uint64_t win[300], next[300];
    size_t wn = 0;
    uint8_t empty = (uint8_t)(max_def - 1 - item_nulls); /* 1: the list may be NULL */
    for (size_t r = 0; r < rows; r++) {
        unsigned pick = (unsigned)(test_rand(s) % 100);
        size_t nn = 0;
        if (pick < 4 && empty == 1) {
            ig_values_push_entry(v, 0, 0); /* NULL list */
            ig_values_end_row(v);
            continue;
        } else if (pick < 8) {
            nn = 0; /* empty */
        } else if (pick < 14 || wn == 0) {
            nn = 1 + (size_t)(test_rand(s) % 256); /* reset: all new */
            for (size_t k = 0; k < nn; k++)
                next[k] = random_id(s, bits, sgn);
        } else {
            size_t drop_head = (size_t)(test_rand(s) % 4), drop_tail = (size_t)(test_rand(s) % 3);
            size_t add_head = (size_t)(test_rand(s) % 4), add_tail = (size_t)(test_rand(s) % 3);
            if (drop_head + drop_tail > wn) drop_head = drop_tail = 0;
            for (size_t k = 0; k < add_head; k++)
                next[nn++] = random_id(s, bits, sgn);
            for (size_t k = drop_head; k < wn - drop_tail && nn < 290; k++)
                next[nn++] = win[k];
            for (size_t k = 0; k < add_tail && nn < 300; k++)
                next[nn++] = random_id(s, bits, sgn);
        }
        if (nn == 0) {
            ig_values_push_entry(v, 0, empty);
        } else {
            for (size_t k = 0; k < nn; k++) {
                ig_values_push_entry(v, k ? 1 : 0, max_def);
                ig_values_push_lane(v, next[k]);
            }
        }
        ig_values_end_row(v);
        memcpy(win, next, nn * sizeof *win);
        wn = nn;
    }
}

/* Do rows of a and b match exactly (levels and values)? */
static bool same_rows(const struct ig_values *a, const struct ig_values *b)
{
    if (a->rows != b->rows || a->nent != b->nent || a->n != b->n) return false;
    if (memcmp(a->reps, b->reps, a->nent) || memcmp(a->defs, b->defs, a->nent)) return false;
    if (a->n && memcmp(a->lanes, b->lanes, a->n * sizeof *a->lanes)) return false;
    for (size_t r = 0; r <= a->rows; r++)
        if (a->row_ent[r] != b->row_ent[r] || a->row_val[r] != b->row_val[r]) return false;
    return true;
}

static const struct {
    uint8_t type;
    unsigned bits;
    bool sgn;
} types[] = {{IG_T_INT64, 64, true},
             {IG_T_UINT64, 64, false},
             {IG_T_INT32, 32, true},
             {IG_T_UINT16, 16, false},
             {IG_T_INT8, 8, true},
             /* format 21: lists of floats, their lanes' bits as they are */
             {IG_T_FLOAT32, 32, false},
             {IG_T_FLOAT64, 64, false}};

/* Random pages of every type, nullable or not, compressed or not, decoded
 * whole and row by row; pages[k] counts the uncompressed ones of bulk kind k. */
static void round_trips(int *pages)
{
    uint64_t s = check_seed;
    struct ig_page_scratch scratch = {0};
    struct ig_page_built built = {0};
    struct ig_buf row = IG_BUF_INIT;
    struct ig_values whole = {0}; /* small pages' picked rows decode here, reused */
    for (int iter = 0; iter < 84; iter++) {
        size_t t = (size_t)iter % (sizeof types / sizeof types[0]);
        /* list<T>, list<T>?, and (format 18) list<T?>, list<T?>? */
        item_nulls = iter % 4 >= 2;
        uint8_t max_def = (uint8_t)((iter % 2 ? 2 : 1) + item_nulls);
        size_t rows = 1 + (size_t)(test_rand(&s) % 400);
        struct ig_leaf_info li = {.type = types[t].type,
                                  .max_rep = 1,
                                  .max_def = max_def,
                                  .levels = true,
                                  .per_value = 1,
                                  .slide_ok = true,
                                  .item_nulls = item_nulls};
        REQUIRE(ig_slide_fits(&li, 1, (iter % 2 ? 1u : 0u) | (item_nulls ? 2u : 0u)));
        struct ig_values v, out;
        ig_values_init(&v, li.type);
        ig_values_set_levels(&v, 1);
        ig_values_init(&out, li.type);
        negatives = iter % 4 < 2;
        make_rows(&s, &v, rows, types[t].bits, types[t].sgn, max_def);
        negatives = true;
        bool any_negative = false;
        for (size_t k = 0; k < v.n && types[t].sgn; k++)
            any_negative |= (int64_t)v.lanes[k] < 0;
        struct ig_page_policy pol = {.type = li.type,
                                     .encoding = IG_PAGE_ENC_SLIDE,
                                     .compression = iter % 3 ? IG_COMP_NONE : IG_COMP_ZSTD,
                                     .leaf = li};
        struct ig_error err = {0};
        REQUIRE(ig_page_encode(&pol, &v, 0, rows, &scratch, &built, &err) == 0);
        CHECK_EQ_INT(built.encoding, IG_PAGE_ENC_SLIDE);
        struct ig_pagerec rec = test_rec_of(&built, rows);
        int rc = ig_page_decode_leaf(built.stored.data, &rec, &li, NULL, &scratch, &out, &err);
        if (rc) fprintf(stderr, "  decode: %s\n", err.msg);
        REQUIRE(rc == 0);
        CHECK(same_rows(&v, &out));
        /* every row alone, from its base */
        if (built.compression == IG_PC_NONE) {
            const uint8_t *body = built.stored.data + IG_BODY_HDR;
            size_t blen = built.body_size - IG_BODY_HDR;
            /* the header says whether signed ids went without zigzag */
            CHECK_EQ_INT(body[9], types[t].sgn && !any_negative);
            pages[body[8] & 3]++;
            /* floats' bulk is never a dictionary (their pages are decoded whole for a row) */
            if (ig_type_info(li.type)->is_float) CHECK(body[IG_SLIDE_BULK_KIND] != IG_SLIDE_BULK_DICT);
            /* the row lengths from the row metadata alone */
            uint64_t lens[400];
            REQUIRE(rows <= 400 && ig_slide_lengths(body, blen, rows, lens, &err) == 0);
            int bad = 0;
            for (size_t r = 0; r < rows; r++)
                bad += lens[r] != v.row_val[r + 1] - v.row_val[r];
            CHECK_EQ_INT(bad, 0);
            /* a random subset of rows in one walk equals those rows */
            uint8_t pick[400 / 8 + 1] = {0};
            for (size_t r = 0; r < rows; r++)
                if (test_rand(&s) % 4 == 0) pick[r / 8] |= (uint8_t)(1u << (r % 8));
            struct ig_values sub;
            ig_values_init(&sub, li.type);
            ig_values_set_levels(&sub, 1);
            REQUIRE(ig_slide_picked(body, blen, rows, pick, &li, iter % 2 ? &whole : NULL, &sub, &err) == 0);
            size_t j = 0;
            for (size_t r = 0; r < rows; r++) {
                if (!((pick[r / 8] >> (r % 8)) & 1)) continue;
                size_t a0 = v.row_val[r], a1 = v.row_val[r + 1], b0 = sub.row_val[j], b1 = sub.row_val[j + 1];
                bad += j >= sub.rows || a1 - a0 != b1 - b0 || memcmp(v.lanes + a0, sub.lanes + b0, (a1 - a0) * 8) ||
                       v.defs[v.row_ent[r]] != sub.defs[sub.row_ent[j]];
                j++;
            }
            bad += j != sub.rows;
            ig_values_free(&sub);
            CHECK_EQ_INT(bad, 0);
            for (size_t r = 0; r < rows; r++) {
                size_t n = 0;
                bool is_null = false;
                REQUIRE(ig_slide_row(body, blen, rows, r, &li, &row, &n, &is_null, &err) == 0);
                size_t v0 = v.row_val[r], v1 = v.row_val[r + 1];
                bool want_null = ig_slide_empty_def(&li) == 1 && v.defs[v.row_ent[r]] == 0;
                bad += is_null != want_null || n != v1 - v0 ||
                       (n && memcmp(row.data, v.lanes + v0, n * 8) != 0);
            }
            CHECK_EQ_INT(bad, 0);
        }
        ig_values_free(&v);
        ig_values_free(&out);
    }
    item_nulls = false;
    ig_values_free(&whole);
    ig_buf_free(&row);
    ig_page_built_free(&built);
    ig_page_scratch_free(&scratch);
}

static void test_round_trip_random(void)
{
    int pages[4] = {0};
    round_trips(pages);
    /* most pages of ids spread over magnitudes code their lengths by entropy;
     * small ones cannot pay for the code table */
    fprintf(stderr, "  bulk kinds: %d prefix-coded, %d bit-length, %d dictionary pages\n", pages[2], pages[1],
            pages[3]);
    CHECK(pages[2] >= 10);
    CHECK(pages[1] >= 1);
}

static void test_dict_round_trip(void)
{
    int pages[4] = {0};
    hashed = true;
    round_trips(pages);
    hashed = false;
    /* hashed ids recur: most pages store them once, in a dictionary */
    fprintf(stderr, "  hashed ids, bulk kinds: %d dictionary, %d prefix-coded, %d bit-length pages\n", pages[3],
            pages[2], pages[1]);
    CHECK(pages[3] >= 10);
}

/* Whether rows slide (the writer's test before it offers a list of floats
 * sliding-window pages): windows that slide do, lists drawn afresh each row
 * do not, and rows without values are passed over. */
static void test_rows_slide(void)
{
    uint64_t s = check_seed ^ 0x5117;
    struct ig_values v;
    ig_values_init(&v, IG_T_FLOAT32);
    ig_values_set_levels(&v, 1);
    make_rows(&s, &v, 256, 32, false, 2);
    CHECK(ig_slide_rows_slide(&v, 0, v.rows));
    ig_values_free(&v);
    ig_values_init(&v, IG_T_FLOAT32);
    ig_values_set_levels(&v, 1);
    for (size_t r = 0; r < 256; r++) { /* boxes: four fresh values a row, two of them alike */
        if (r % 3 == 0) ig_values_push_entry(&v, 0, 0); /* a NULL list */
        for (size_t k = 0; k < 4 && r % 3; k++) {
            ig_values_push_entry(&v, k ? 1 : 0, 2);
            ig_values_push_lane(&v, k < 2 ? test_rand(&s) >> 32 : 0x42000000u);
        }
        ig_values_end_row(&v);
    }
    CHECK(!ig_slide_rows_slide(&v, 0, v.rows));
    ig_values_free(&v);
}

static void test_smaller_than_level_streams(void)
{
    uint64_t s = check_seed;
    struct ig_page_scratch scratch = {0};
    struct ig_page_built built = {0};
    struct ig_leaf_info li = {.type = IG_T_INT64,
                              .max_rep = 1,
                              .max_def = 1,
                              .levels = true,
                              .per_value = 1,
                              .slide_ok = true};
    struct ig_values v;
    ig_values_init(&v, li.type);
    ig_values_set_levels(&v, 1);
    make_rows(&s, &v, 2000, 64, true, 1);
    struct ig_error err = {0};
    struct ig_page_policy pol = {.type = li.type, .compression = IG_COMP_NONE, .leaf = li};
    REQUIRE(ig_page_encode(&pol, &v, 0, v.rows, &scratch, &built, &err) == 0);
    CHECK_EQ_INT(built.encoding, IG_PAGE_ENC_SLIDE); /* auto picks it */
    uint32_t slide = built.body_size;
    pol.leaf.slide_ok = false;
    REQUIRE(ig_page_encode(&pol, &v, 0, v.rows, &scratch, &built, &err) == 0);
    fprintf(stderr, "  2000 sliding rows: slide %u bytes, level streams %u bytes (%.1fx)\n", slide,
            built.body_size, (double)built.body_size / slide);
    CHECK(slide * 4 < built.body_size); /* windows shift by a few ids: most values are shared */
    ig_values_free(&v);
    ig_page_built_free(&built);
    ig_page_scratch_free(&scratch);
}

/* Is x (a nonzero id) among the values of a live row? */
static bool live_holds(const struct ig_values *v, const uint8_t *del, uint64_t x)
{
    for (size_t r = 0; r < v->rows; r++) {
        if ((del[r / 8] >> (r % 8)) & 1) continue;
        for (size_t k = v->row_val[r]; k < v->row_val[r + 1]; k++)
            if (v->lanes[k] == x) return true;
    }
    return false;
}

/* How many entries of an uncompressed dictionary page's dictionary no live row
 * of v holds (0 and copies of live ones are fine); -1 if it is not one. */
/* Whether an uncompressed page's bulk is one int stream in a float scheme
 * (decimal, alp or expo: the stream's first byte). */
static bool float_scheme(const struct ig_page_built *b)
{
    const uint8_t *body = b->stored.data + IG_BODY_HDR;
    size_t pos = IG_SLIDE_HDR;
    if (body[IG_SLIDE_BULK_KIND] != IG_SLIDE_BULK_STREAM) return false;
    for (int k = 0; k < IG_SLIDE_STREAMS; k++)
        pos += 4 + ig_ld32(body + pos);
    return body[pos] == IG_ENC_DECIMAL || body[pos] == IG_ENC_ALP || body[pos] == IG_ENC_EXPO;
}

static int dict_entries_not_live(const struct ig_page_built *b, size_t rows, const struct ig_values *v,
                                 const uint8_t *del)
{
    const uint8_t *body = b->stored.data + IG_BODY_HDR;
    size_t len = b->body_size - IG_BODY_HDR, pos = IG_SLIDE_HDR;
    if (b->compression != IG_PC_NONE || body[IG_SLIDE_BULK_KIND] != IG_SLIDE_BULK_DICT) return -1;
    for (int k = 0; k < IG_SLIDE_STREAMS; k++)
        pos += 4 + ig_ld32(body + pos);
    struct ig_slide_dict d;
    struct ig_error err = {0};
    if (ig_slide_dict_parse(body + pos, len - pos, ig_ld32(body + IG_SLIDE_BULK_VALUES), &d, &err) ||
        rows != v->rows)
        return 1000000; /* fails the caller's check */
    uint64_t *entries = malloc((d.nentries + 1) * sizeof *entries);
    int bad = !entries || ig_slide_dict_entries(&d, entries, &err) ? 1000000 : 0;
    for (size_t e = 0; !bad && e < d.nentries; e++) {
        uint64_t x = unzz(entries[e], !body[IG_SLIDE_RAW]); /* int64 lanes */
        bad += x && !live_holds(v, del, x);
    }
    free(entries);
    return bad;
}

/* Erase in two rounds; after each, live rows read back unchanged, verify's check
 * passes, and a deleted row still shows only ids some live row holds (so does
 * a dictionary page's dictionary). Half the pages hold hashed ids. */
static void test_erase_keeps_live_rows(void)
{
    uint64_t s = check_seed ^ 0x51de;
    struct ig_page_scratch scratch = {0};
    struct ig_page_built built = {0}, erased = {0};
    int dict_pages = 0, float_schemes = 0;
    for (int iter = 0; iter < 56; iter++) {
        hashed = iter >= 20 && iter < 40;
        item_nulls = iter % 4 >= 2; /* list<T?>(?) leaves too (format 18) */
        uint8_t max_def = (uint8_t)((iter % 2 ? 2 : 1) + item_nulls);
        /* lists of floats from format 21 (their bulk never a dictionary, readings
         * in half of them: the bulk's stream in a float scheme) */
        uint8_t type = iter < 40 ? IG_T_INT64 : iter < 48 ? IG_T_FLOAT32 : IG_T_FLOAT64;
        readings = iter >= 40 && iter % 2;
        struct ig_leaf_info li = {.type = type,
                                  .max_rep = 1,
                                  .max_def = max_def,
                                  .levels = true,
                                  .per_value = 1,
                                  .slide_ok = true,
                                  .item_nulls = item_nulls};
        size_t rows = 50 + (size_t)(test_rand(&s) % 300);
        struct ig_values v, out;
        ig_values_init(&v, li.type);
        ig_values_set_levels(&v, 1);
        ig_values_init(&out, li.type);
        make_rows(&s, &v, rows, type == IG_T_FLOAT32 ? 32 : 64, type == IG_T_INT64, max_def);
        struct ig_error err = {0};
        struct ig_page_policy pol = {.type = li.type,
                                     .encoding = IG_PAGE_ENC_SLIDE,
                                     .compression = iter % 4 == 3 ? IG_COMP_ZSTD : IG_COMP_NONE,
                                     .leaf = li};
        REQUIRE(ig_page_encode(&pol, &v, 0, rows, &scratch, &built, &err) == 0);
        struct ig_pagerec rec = test_rec_of(&built, rows);
        uint8_t del[64] = {0}, kill[64];
        for (int round = 0; round < 2; round++) {
            memset(kill, 0, sizeof kill);
            for (int k = 0; k < 6; k++) { /* single rows and runs of neighbours */
                size_t r = (size_t)(test_rand(&s) % rows), run = 1 + (size_t)(test_rand(&s) % 3);
                for (size_t q = r; q < r + run && q < rows; q++)
                    if (!((del[q / 8] >> (q % 8)) & 1)) kill[q / 8] |= (uint8_t)(1u << (q % 8));
            }
            int rc = ig_page_erase_leaf(built.stored.data, &rec, &li, kill, del, 3, &scratch,
                                        &erased, &err);
            if (rc) fprintf(stderr, "  erase: %s\n", err.msg);
            REQUIRE(rc == 0);
            for (size_t i = 0; i < sizeof del; i++)
                del[i] |= kill[i];
            if (built.compression == IG_PC_NONE) CHECK(erased.stored.len <= built.stored.len);
            struct ig_pagerec rec2 = test_rec_of(&erased, rows);
            REQUIRE(ig_page_decode_leaf(erased.stored.data, &rec2, &li, NULL, &scratch, &out,
                                        &err) == 0);
            CHECK(ig_page_check_erased_leaf(erased.stored.data, &rec2, &li, del, &scratch, &err) ==
                  0);
            /* the unerased page fails the same check (the check can fail) */
            CHECK(ig_page_check_erased_leaf(built.stored.data, &rec, &li, del, &scratch, &err) !=
                  0);
            REQUIRE(out.rows == rows);
            int bad = 0;
            for (size_t r = 0; r < rows; r++) {
                size_t a0 = v.row_val[r], a1 = v.row_val[r + 1], b0 = out.row_val[r],
                       b1 = out.row_val[r + 1];
                if ((del[r / 8] >> (r % 8)) & 1) {
                    for (size_t k = b0; k < b1; k++)
                        bad += out.lanes[k] && !live_holds(&v, del, out.lanes[k]);
                    continue;
                }
                bad +=
                    a1 - a0 != b1 - b0 || memcmp(v.lanes + a0, out.lanes + b0, (a1 - a0) * 8) != 0;
                bad += v.defs[v.row_ent[r]] != out.defs[out.row_ent[r]];
            }
            CHECK_EQ_INT(bad, 0);
            int not_live = dict_entries_not_live(&erased, rows, &v, del);
            dict_pages += not_live >= 0;
            CHECK(not_live <= 0);
            /* the next round erases the erased page */
            struct ig_page_built t = built;
            built = erased;
            erased = t;
            rec = rec2;
        }
        float_schemes += readings && built.compression == IG_PC_NONE && float_scheme(&built);
        ig_values_free(&v);
        ig_values_free(&out);
    }
    hashed = readings = false;
    fprintf(stderr, "  %d erased dictionary pages checked, %d of readings in a float scheme\n", dict_pages,
            float_schemes);
    CHECK(dict_pages >= 10);
    CHECK(float_schemes >= 4);
    ig_page_built_free(&built);
    ig_page_built_free(&erased);
    ig_page_scratch_free(&scratch);
    item_nulls = false;
}

/* Erasing one row never grows the page, whichever row it is, for each bulk
 * kind that erases in place (the prefix-coded bulk, the dictionary). */
static void erase_does_not_grow(int want_kind)
{
    uint64_t s = check_seed ^ 0x9e0;
    struct ig_page_scratch scratch = {0};
    struct ig_page_built built = {0}, erased = {0};
    struct ig_leaf_info li = {.type = IG_T_INT64,
                              .max_rep = 1,
                              .max_def = 2,
                              .levels = true,
                              .per_value = 1,
                              .slide_ok = true};
    struct ig_values v;
    ig_values_init(&v, li.type);
    ig_values_set_levels(&v, 1);
    make_rows(&s, &v, 1000, 64, true, 2);
    struct ig_error err = {0};
    struct ig_page_policy pol = {.type = li.type, .compression = IG_COMP_NONE, .leaf = li};
    REQUIRE(ig_page_encode(&pol, &v, 0, v.rows, &scratch, &built, &err) == 0);
    REQUIRE(built.encoding == IG_PAGE_ENC_SLIDE);
    CHECK_EQ_INT(built.stored.data[IG_BODY_HDR + 8], want_kind); /* the bulk erased */
    struct ig_pagerec rec = test_rec_of(&built, v.rows);
    int grew = 0;
    long worst = 0;
    uint8_t kill[128];
    for (size_t r = 0; r < v.rows; r += 3) {
        memset(kill, 0, sizeof kill);
        kill[r / 8] |= (uint8_t)(1u << (r % 8));
        REQUIRE(ig_page_erase_leaf(built.stored.data, &rec, &li, kill, NULL, 3, &scratch, &erased,
                                   &err) == 0);
        long d = (long)erased.stored.len - (long)built.stored.len;
        grew += d > 0;
        if (d > worst) worst = d;
    }
    fprintf(stderr, "  %d of %zu single-row erasures grew the page (worst +%ld bytes)\n", grew,
            (v.rows + 2) / 3, worst);
    CHECK_EQ_INT(grew, 0);
    ig_values_free(&v);
    ig_page_built_free(&built);
    ig_page_built_free(&erased);
    ig_page_scratch_free(&scratch);
}

static void test_erase_does_not_grow(void)
{
    erase_does_not_grow(IG_SLIDE_BULK_CODED);
}

static void test_dict_erase_does_not_grow(void)
{
    hashed = true;
    erase_does_not_grow(IG_SLIDE_BULK_DICT);
    hashed = false;
}

/* Flip and truncate a valid page: errors only, never a crash (ASan watches). */
static void hostile_bytes(int want_kind)
{
    uint64_t s = check_seed ^ 0xbad;
    struct ig_page_scratch scratch = {0};
    struct ig_page_built built = {0};
    struct ig_leaf_info li = {.type = IG_T_INT64,
                              .max_rep = 1,
                              .max_def = 2,
                              .levels = true,
                              .per_value = 1,
                              .slide_ok = true};
    struct ig_values v, out;
    ig_values_init(&v, li.type);
    ig_values_set_levels(&v, 1);
    ig_values_init(&out, li.type);
    make_rows(&s, &v, 200, 64, true, 2);
    struct ig_error err = {0};
    struct ig_page_policy pol = {
        .type = li.type, .encoding = IG_PAGE_ENC_SLIDE, .compression = IG_COMP_NONE, .leaf = li};
    REQUIRE(ig_page_encode(&pol, &v, 0, v.rows, &scratch, &built, &err) == 0);
    CHECK_EQ_INT(built.stored.data[IG_BODY_HDR + IG_SLIDE_BULK_KIND], want_kind);
    size_t len = built.stored.len;
    uint8_t *copy = malloc(len);
    struct ig_buf row = IG_BUF_INIT;
    int errors = 0;
    for (int i = 0; i < 3000; i++) {
        memcpy(copy, built.stored.data, len);
        size_t at = IG_BODY_HDR + (size_t)(test_rand(&s) % (len - IG_BODY_HDR));
        copy[at] ^= (uint8_t)(1u << (test_rand(&s) % 8));
        struct ig_pagerec rec = test_rec_of(&built, v.rows);
        if (i % 3 == 0)
            rec.body_size = rec.stored =
                (uint32_t)(IG_BODY_HDR + test_rand(&s) % (len - IG_BODY_HDR));
        errors += ig_page_decode_leaf(copy, &rec, &li, NULL, &scratch, &out, &err) != 0;
        size_t n;
        bool is_null;
        ig_slide_row(copy + IG_BODY_HDR, rec.body_size - IG_BODY_HDR, v.rows,
                     (size_t)(test_rand(&s) % v.rows), &li, &row, &n, &is_null, &err);
        uint8_t del[32];
        for (size_t q = 0; q < sizeof del; q++)
            del[q] = (uint8_t)test_rand(&s);
        ig_buf_reset(&row);
        ig_slide_erase(copy + IG_BODY_HDR, rec.body_size - IG_BODY_HDR, v.rows, li.type, del, &row, &err);
        ig_slide_check_erased(copy + IG_BODY_HDR, rec.body_size - IG_BODY_HDR, v.rows, li.type, del, &err);
        uint64_t lens[200];
        ig_slide_lengths(copy + IG_BODY_HDR, rec.body_size - IG_BODY_HDR, v.rows, lens, &err);
        ig_values_reset(&out);
        ig_slide_picked(copy + IG_BODY_HDR, rec.body_size - IG_BODY_HDR, v.rows, del, &li, NULL, &out, &err);
    }
    CHECK(errors > 500); /* most damage is noticed (bulk bit flips may decode to other ids) */
    free(copy);
    ig_buf_free(&row);
    ig_values_free(&v);
    ig_values_free(&out);
    ig_page_built_free(&built);
    ig_page_scratch_free(&scratch);
}

static void test_hostile_bytes(void)
{
    hostile_bytes(IG_SLIDE_BULK_CODED);
}

static void test_dict_hostile_bytes(void)
{
    hashed = true;
    hostile_bytes(IG_SLIDE_BULK_DICT);
    hashed = false;
}

/* A list<int64?>? leaf (format 18): a page without a NULL item is a
 * sliding-window page (forced, and by choice where smaller), its empty and
 * NULL lists read back at their levels; the same rows with one NULL item
 * become level streams even when slide is forced, and read back whole. */
static void test_item_nulls_pages(void)
{
    uint64_t s = check_seed ^ 0x17e5;
    struct ig_page_scratch scratch = {0};
    struct ig_page_built built = {0};
    struct ig_leaf_info li = {.type = IG_T_INT64, .max_rep = 1, .max_def = 3, .levels = true,
                              .per_value = 1, .slide_ok = true, .item_nulls = true};
    REQUIRE(ig_slide_fits(&li, 1, 3) && !ig_slide_fits(&li, 1, 1));
    CHECK_EQ_INT(ig_slide_empty_def(&li), 1);
    item_nulls = true;
    for (int iter = 0; iter < 8; iter++) {
        size_t rows = 100 + (size_t)(test_rand(&s) % 300);
        struct ig_values v, out;
        ig_values_init(&v, li.type);
        ig_values_set_levels(&v, 1);
        ig_values_init(&out, li.type);
        make_rows(&s, &v, rows, 64, true, 3);
        struct ig_error err = {0};
        for (int forced = 0; forced < 2; forced++) {
            struct ig_page_policy pol = {.type = li.type, .encoding = forced ? IG_PAGE_ENC_SLIDE : IG_ENC_AUTO,
                                         .compression = IG_COMP_NONE, .leaf = li};
            REQUIRE(ig_page_encode(&pol, &v, 0, rows, &scratch, &built, &err) == 0);
            CHECK_EQ_INT(built.encoding, IG_PAGE_ENC_SLIDE);
            struct ig_pagerec rec = test_rec_of(&built, rows);
            REQUIRE(ig_page_decode_leaf(built.stored.data, &rec, &li, NULL, &scratch, &out, &err) == 0);
            CHECK(same_rows(&v, &out));
        }
        /* one item of a row with values made NULL: no sliding window holds it */
        size_t r = 0;
        while (r < rows && v.row_val[r + 1] == v.row_val[r]) r++;
        REQUIRE(r < rows);
        struct ig_values w;
        ig_values_init(&w, li.type);
        ig_values_set_levels(&w, 1);
        for (size_t q = 0; q < rows; q++) {
            for (size_t e = v.row_ent[q], k = v.row_val[q]; e < v.row_ent[q + 1]; e++) {
                bool null_item = q == r && e == v.row_ent[q];
                ig_values_push_entry(&w, v.reps[e], null_item ? 2 : v.defs[e]);
                if (v.defs[e] == 3 && !null_item) ig_values_push_lane(&w, v.lanes[k]);
                k += v.defs[e] == 3;
            }
            ig_values_end_row(&w);
        }
        CHECK(!ig_slide_page_fits(&li, &w, 0, rows) && ig_slide_page_fits(&li, &v, 0, rows));
        struct ig_page_policy pol = {.type = li.type, .encoding = IG_PAGE_ENC_SLIDE, .compression = IG_COMP_NONE,
                                     .leaf = li};
        REQUIRE(ig_page_encode(&pol, &w, 0, rows, &scratch, &built, &err) == 0);
        CHECK(built.encoding != IG_PAGE_ENC_SLIDE);
        struct ig_pagerec rec = test_rec_of(&built, rows);
        REQUIRE(ig_page_decode_leaf(built.stored.data, &rec, &li, NULL, &scratch, &out, &err) == 0);
        CHECK(same_rows(&w, &out));
        ig_values_free(&w);
        ig_values_free(&v);
        ig_values_free(&out);
    }
    item_nulls = false;
    ig_page_built_free(&built);
    ig_page_scratch_free(&scratch);
}

/* The encoder keeps its buffers from page to page (struct ig_slide_scratch,
 * the sizer's map): a page built after larger ones, of hashed or of small
 * ids, signed or not, is byte for byte the page a fresh scratch builds. */
static void test_reused_scratch_builds_the_same_page(void)
{
    uint64_t s = check_seed ^ 0x5eed;
    struct ig_page_scratch kept = {0};
    struct ig_page_built a = {0}, b = {0};
    int differ = 0, dict_pages = 0;
    for (int iter = 0; iter < 40; iter++) {
        hashed = iter % 3 != 0; /* dictionary bulks (hashed ids) beside bit-length ones */
        size_t t = (size_t)iter % (sizeof types / sizeof types[0]);
        size_t rows = iter % 2 ? 1500 : 1 + (size_t)(test_rand(&s) % 60); /* large, then small */
        struct ig_leaf_info li = {.type = types[t].type, .max_rep = 1, .max_def = 2, .levels = true,
                                  .per_value = 1, .slide_ok = true};
        struct ig_values v;
        ig_values_init(&v, li.type);
        ig_values_set_levels(&v, 1);
        make_rows(&s, &v, rows, types[t].bits, types[t].sgn, li.max_def);
        struct ig_page_policy pol = {.type = li.type, .encoding = IG_PAGE_ENC_SLIDE,
                                     .compression = IG_COMP_NONE, .leaf = li};
        struct ig_page_scratch fresh = {0};
        struct ig_error err = {0};
        REQUIRE(ig_page_encode(&pol, &v, 0, rows, &kept, &a, &err) == 0);
        REQUIRE(ig_page_encode(&pol, &v, 0, rows, &fresh, &b, &err) == 0);
        differ += a.stored.len != b.stored.len || memcmp(a.stored.data, b.stored.data, a.stored.len) != 0;
        dict_pages += a.stored.data[IG_BODY_HDR + 8] == IG_SLIDE_BULK_DICT;
        ig_page_scratch_free(&fresh);
        ig_values_free(&v);
    }
    hashed = false;
    CHECK_EQ_INT(differ, 0);
    CHECK(dict_pages > 0); /* the dictionary's arrays were reused too */
    ig_page_built_free(&a);
    ig_page_built_free(&b);
    ig_page_scratch_free(&kept);
}

/* The word-at-a-time bit writer lays down the bits a bit-by-bit one does,
 * at every width (0..64) and offset, and its flush touches no byte past its
 * bits (a group's low bits are followed by its upper bits in the same buffer). */
static void test_bitwriter_matches_bit_by_bit(void)
{
    uint64_t s = check_seed ^ 0xb17;
    int bad = 0;
    for (int iter = 0; iter < 200; iter++) {
        uint8_t got[1200], want[1200];
        memset(got, 0, sizeof got);
        memset(want, 0, sizeof want);
        size_t n = (size_t)(test_rand(&s) % 120);
        struct ig_bitwriter bw = {.dst = got};
        uint64_t pos = 0;
        for (size_t k = 0; k < n; k++) {
            unsigned w = (unsigned)(test_rand(&s) % 65);
            uint64_t x = test_rand(&s);
            ig_bw_put(&bw, x, w);
            for (unsigned b = 0; b < w; b++, pos++)
                if ((x >> b) & 1) want[pos / 8] |= (uint8_t)(1u << (pos % 8));
        }
        size_t used = (size_t)((pos + 7) / 8);
        memset(got + used, 0xEE, 16); /* someone else's bytes right after the bits */
        ig_bw_flush(&bw);
        bad += bw.pos != pos || memcmp(got, want, used) != 0;
        for (size_t k = used; k < used + 16; k++)
            bad += got[k] != 0xEE;
    }
    CHECK_EQ_INT(bad, 0);
}

/* Rows of text's tokens (ids of a vocabulary of `vocab`, phrases recurring
 * across rows, nothing sliding): a compressed page stores its bulk as plain
 * lanes of `width` bytes (ig_slide_encode_bytes), smaller under zstd than the
 * bit codes its encoder weighs alone; it decodes whole and row by row, and
 * erasing rows zeroes them, keeps the rest and never widens the lanes. */
/* `rows` rows of 64-263 token ids: phrases of a vocabulary of `vocab` (Zipf-like:
 * most ids small) recurring across rows. */
static void make_token_rows(uint64_t *s, struct ig_values *v, size_t rows, double vocab)
{
    uint64_t phrases[200][20];
    size_t plen[200];
    for (size_t p = 0; p < 200; p++) {
        plen[p] = 5 + (size_t)(test_rand(s) % 16);
        for (size_t k = 0; k < plen[p]; k++) {
            double u = (double)(test_rand(s) % 1000000) / 1e6;
            phrases[p][k] = (uint64_t)(vocab * u * u * u);
        }
    }
    for (size_t r = 0; r < rows; r++) {
        size_t want = 64 + (size_t)(test_rand(s) % 200), n = 0;
        if (r % 3 == 1) /* a row that goes on from the one before (a delta in bit codes) */
            for (size_t k = v->row_val[r - 1]; k < v->row_val[r]; k++, n++) {
                ig_values_push_entry(v, n ? 1 : 0, 2);
                ig_values_push_lane(v, v->lanes[k]);
            }
        while (n < want) {
            size_t p = (size_t)(test_rand(s) % 200);
            for (size_t k = 0; k < plen[p]; k++, n++) {
                ig_values_push_entry(v, n ? 1 : 0, 2);
                ig_values_push_lane(v, phrases[p][k]);
            }
        }
        ig_values_end_row(v);
    }
}

/* Bytes of p[0..n) under zstd at level; 0 where it failed. */
static size_t zstd_len_at(const uint8_t *p, size_t n, int level)
{
    size_t bound = ZSTD_compressBound(n);
    uint8_t *z = malloc(bound);
    size_t len = z ? ZSTD_compress(z, bound, p, n, level) : 0;
    free(z);
    return ZSTD_isError(len) ? 0 : len;
}

static void token_rows_in_bytes(double vocab, unsigned width)
{
    uint64_t s = check_seed ^ 0x70c ^ width;
    struct ig_leaf_info li = {.type = IG_T_INT64, .max_rep = 1, .max_def = 2, .levels = true, .per_value = 1,
                              .slide_ok = true};
    struct ig_values v, out;
    ig_values_init(&v, li.type);
    ig_values_set_levels(&v, 1);
    ig_values_init(&out, li.type);
    size_t rows = 300; /* about 50,000 values: at most 2 x IG_SLIDE_BYTES_LANES */
    make_token_rows(&s, &v, rows, vocab);
    struct ig_page_scratch scratch = {0};
    struct ig_page_built built = {0}, bare = {0}, erased = {0};
    struct ig_error err = {0};
    struct ig_page_policy pol = {.type = li.type, .encoding = IG_PAGE_ENC_SLIDE, .compression = IG_COMP_NONE,
                                 .leaf = li};
    /* the bulk the encoder weighs alone, then that body under zstd */
    REQUIRE(ig_page_encode(&pol, &v, 0, rows, &scratch, &bare, &err) == 0);
    CHECK(bare.stored.data[IG_BODY_HDR + IG_SLIDE_BULK_KIND] != IG_SLIDE_BULK_STREAM);
    size_t bound = ZSTD_compressBound(bare.stored.len);
    uint8_t *z = malloc(bound);
    REQUIRE(z);
    size_t bits_zstd = ZSTD_compress(z, bound, bare.stored.data, bare.stored.len, 3);
    REQUIRE(!ZSTD_isError(bits_zstd));
    free(z);
    pol.compression = IG_COMP_ZSTD;
    REQUIRE(ig_page_encode(&pol, &v, 0, rows, &scratch, &built, &err) == 0);
    REQUIRE(built.compression == IG_PC_ZSTD);
    CHECK(built.slide_bytes);
    fprintf(stderr, "  %zu token ids of %.0f: bit codes %u bytes, under zstd %zu; plain lanes under zstd %zu\n", v.n,
            vocab, bare.body_size, bits_zstd, built.stored.len);
    CHECK(built.stored.len < bits_zstd);
    struct ig_pagerec rec = test_rec_of(&built, rows);
    const uint8_t *body;
    REQUIRE(ig_page_body(built.stored.data, &rec, &scratch, &body, &err) == 0);
    body += IG_BODY_HDR;
    size_t blen = built.body_size - IG_BODY_HDR;
    CHECK_EQ_INT(body[IG_SLIDE_BULK_KIND], IG_SLIDE_BULK_STREAM);
    /* sealed at the bytes' level, not the policy's (3 here): a row read
     * decompresses it as fast, and real text's ids store about a tenth less */
    CHECK_EQ_INT(built.stored.len, zstd_len_at(body - IG_BODY_HDR, built.body_size, IG_SLIDE_BYTES_ZSTD_LEVEL));
    /* its bases' bit offsets, which no reader of a bulk of one stream reads, are zeros */
    struct ig_slide_page sl0;
    REQUIRE(ig_slide_parse(body, blen, rows, &sl0, &err) == 0);
    CHECK_EQ_INT(sl0.sl[7], 2); /* bitpack of width 0 */
    /* every row a base: zstd finds what a row repeats of the one before */
    CHECK_EQ_INT(sl0.nbases, rows);
    struct ig_buf row = IG_BUF_INIT;
    int bad = 0;
    for (size_t r = 0; r < rows; r++) {
        size_t n = 0;
        bool is_null = false;
        REQUIRE(ig_slide_row(body, blen, rows, r, &li, &row, &n, &is_null, &err) == 0);
        size_t v0 = v.row_val[r], v1 = v.row_val[r + 1];
        bad += is_null || n != v1 - v0 || memcmp(row.data, v.lanes + v0, n * 8) != 0;
    }
    CHECK_EQ_INT(bad, 0);
    REQUIRE(ig_page_decode_leaf(built.stored.data, &rec, &li, NULL, &scratch, &out, &err) == 0);
    CHECK(same_rows(&v, &out));
    uint8_t del[300 / 8 + 1] = {0}, kill[sizeof del];
    for (int round = 0; round < 2; round++) {
        memset(kill, 0, sizeof kill);
        for (int k = 0; k < 12; k++) {
            size_t r = (size_t)(test_rand(&s) % rows);
            if (!((del[r / 8] >> (r % 8)) & 1)) kill[r / 8] |= (uint8_t)(1u << (r % 8));
        }
        int rc = ig_page_erase_leaf(built.stored.data, &rec, &li, kill, del, 3, &scratch, &erased, &err);
        if (rc) fprintf(stderr, "  erase: %s\n", err.msg);
        REQUIRE(rc == 0);
        for (size_t i = 0; i < sizeof del; i++) del[i] |= kill[i];
        CHECK(erased.body_size <= built.body_size); /* the lanes never widen */
        struct ig_pagerec rec2 = test_rec_of(&erased, rows);
        /* the bulk stays plain 2-byte lanes (not re-encoded in bit codes zstd cannot read) */
        struct ig_slide_page sl;
        REQUIRE(ig_page_body(erased.stored.data, &rec2, &scratch, &body, &err) == 0);
        REQUIRE(ig_slide_parse(body + IG_BODY_HDR, erased.body_size - IG_BODY_HDR, rows, &sl, &err) == 0);
        REQUIRE(sl.bulk_len >= 2);
        CHECK_EQ_INT(sl.bulk[0], IG_ENC_PLAIN);
        CHECK_EQ_INT(sl.bulk[1], width);
        CHECK_EQ_INT(sl.sl[7], 2);
        /* and sealed again at the bytes' level (or harder, to fit), not the erase's (3) */
        CHECK(erased.stored.len <= zstd_len_at(body, erased.body_size, IG_SLIDE_BYTES_ZSTD_LEVEL));
        REQUIRE(ig_page_decode_leaf(erased.stored.data, &rec2, &li, NULL, &scratch, &out, &err) == 0);
        CHECK(ig_page_check_erased_leaf(erased.stored.data, &rec2, &li, del, &scratch, &err) == 0);
        CHECK(ig_page_check_erased_leaf(built.stored.data, &rec, &li, del, &scratch, &err) != 0);
        for (size_t r = 0; r < rows; r++) {
            size_t a0 = v.row_val[r], a1 = v.row_val[r + 1], b0 = out.row_val[r], b1 = out.row_val[r + 1];
            if ((del[r / 8] >> (r % 8)) & 1) { /* zeros, or values a live row holds */
                for (size_t k = b0; k < b1; k++) bad += out.lanes[k] && !live_holds(&v, del, out.lanes[k]);
                continue;
            }
            bad += a1 - a0 != b1 - b0 || memcmp(v.lanes + a0, out.lanes + b0, (a1 - a0) * 8) != 0;
        }
        CHECK_EQ_INT(bad, 0);
        struct ig_page_built t = built;
        built = erased;
        erased = t;
        rec = rec2;
    }
    ig_buf_free(&row);
    ig_values_free(&v);
    ig_values_free(&out);
    ig_page_built_free(&built);
    ig_page_built_free(&bare);
    ig_page_built_free(&erased);
    ig_page_scratch_free(&scratch);
}

/* 1-byte lanes (a byte-level vocabulary), 2 (ids past 32,767: never sign-extended),
 * 4 (past 65,535) */
static void test_token_rows_in_bytes(void)
{
    token_rows_in_bytes(250, 1);
    token_rows_in_bytes(60000, 2);
    token_rows_in_bytes(200000, 4);
    /* a page of more than 2 x IG_SLIDE_BYTES_LANES values keeps its bit codes
     * (a row read decompresses its page whole) */
    uint64_t s = check_seed ^ 0xb16;
    struct ig_leaf_info li = {.type = IG_T_INT64, .max_rep = 1, .max_def = 2, .levels = true, .per_value = 1,
                              .slide_ok = true};
    struct ig_values v;
    ig_values_init(&v, li.type);
    ig_values_set_levels(&v, 1);
    make_token_rows(&s, &v, 700, 60000);
    REQUIRE(v.n > 2 * IG_SLIDE_BYTES_LANES);
    struct ig_page_scratch scratch = {0};
    struct ig_page_built built = {0};
    struct ig_error err = {0};
    struct ig_page_policy pol = {.type = li.type, .encoding = IG_PAGE_ENC_SLIDE, .compression = IG_COMP_ZSTD,
                                 .leaf = li};
    REQUIRE(ig_page_encode(&pol, &v, 0, v.rows, &scratch, &built, &err) == 0);
    CHECK(!built.slide_bytes);
    ig_values_free(&v);
    ig_page_built_free(&built);
    ig_page_scratch_free(&scratch);
}

TEST_MAIN({"slide_round_trip_random", test_round_trip_random},
          {"slide_token_rows_in_bytes", test_token_rows_in_bytes},
          {"slide_rows_slide", test_rows_slide},
          {"slide_dict_round_trip", test_dict_round_trip},
          {"slide_dict_erase_does_not_grow", test_dict_erase_does_not_grow},
          {"slide_dict_hostile_bytes", test_dict_hostile_bytes},
          {"slide_smaller_than_level_streams", test_smaller_than_level_streams},
          {"slide_erase_keeps_live_rows", test_erase_keeps_live_rows},
          {"slide_erase_does_not_grow", test_erase_does_not_grow},
          {"slide_hostile_bytes", test_hostile_bytes},
          {"slide_item_nulls_pages", test_item_nulls_pages},
          {"slide_reused_scratch_builds_the_same_page", test_reused_scratch_builds_the_same_page},
          {"slide_bitwriter_matches_bit_by_bit", test_bitwriter_matches_bit_by_bit})
