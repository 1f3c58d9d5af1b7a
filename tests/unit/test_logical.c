/* Tests for src/format/model/logical.c: the calendar, logical values as text
 * and JSON and back, decimals, uuids, type names in schemas, NumPy elements. */
#include "check.h"

#include <errno.h>
#include <math.h>

#include "format/model/logical.h"
#include "format/model/render.h"
#include "format/model/schema.h"
#include "format/model/values.h"
#include "util/buf.h"
#include "util/error.h"

static struct ig_logical lt_of(const char *type)
{
    struct ig_schema s = {0};
    struct ig_error e = {0};
    struct ig_logical lt = {0};
    if (ig_schema_add_typed(&s, "c", 1, type, strlen(type), &e) == 0)
        lt = s.cols[0].lt;
    else
        fprintf(stderr, "  %s: %s\n", type, e.msg);
    ig_schema_free(&s);
    return lt;
}

/* The text (or JSON) of a lane-stored value, checked against its length. */
static const char *fmt(const struct ig_logical *lt, uint64_t lane, bool json)
{
    static char out[IG_LOGICAL_TEXT_MAX + 1];
    size_t n = ig_logical_format_lane(lt, lane, json, out);
    out[n] = '\0';
    CHECK_EQ_INT(ig_logical_lane_len(lt, lane, json), n);
    return out;
}

static int64_t parse_lane(const struct ig_logical *lt, const char *s, int *rc)
{
    uint64_t lane = 0;
    struct ig_error e = {0};
    *rc = ig_logical_parse_lane(lt, s, strlen(s), &lane, &e);
    return (int64_t)lane;
}

/* ---- calendar ------------------------------------------------------------ */

static void test_calendar_walk(void)
{
    /* day after day from year -2738 to 7446: each a valid date one after the
     * one before, and back to the same count */
    int64_t y0;
    unsigned m0, d0;
    ig_civil_from_days(-1000001, &y0, &m0, &d0);
    for (int64_t z = -1000000; z <= 2000000; z++) {
        int64_t y;
        unsigned m, d;
        ig_civil_from_days(z, &y, &m, &d);
        bool next_day = y == y0 && m == m0 && d == d0 + 1;
        bool next_month = y == y0 && m == m0 + 1 && d == 1;
        bool next_year = y == y0 + 1 && m == 1 && d == 1 && m0 == 12 && d0 == 31;
        if (!(next_day || next_month || next_year) || ig_days_from_civil(y, m, d) != z) {
            CHECK(!"calendar walk");
            fprintf(stderr, "  day %lld: %lld-%u-%u after %lld-%u-%u\n", (long long)z, (long long)y,
                    m, d, (long long)y0, m0, d0);
            return;
        }
        y0 = y, m0 = m, d0 = d;
    }
    CHECK_EQ_INT(ig_days_from_civil(1970, 1, 1), 0);
    CHECK_EQ_INT(ig_days_from_civil(2024, 1, 1), 19723);
    CHECK_EQ_INT(ig_days_from_civil(0, 1, 1), -719528);
}

static void test_leap_days(void)
{
    struct ig_logical d = lt_of("date");
    int rc;
    int64_t v = parse_lane(&d, "2024-02-29", &rc);
    CHECK(rc == 0 && v == ig_days_from_civil(2024, 2, 29));
    parse_lane(&d, "2000-02-29", &rc);
    CHECK_EQ_INT(rc, 0);
    parse_lane(&d, "1900-02-29", &rc); /* not a leap year: divisible by 100 */
    CHECK_EQ_INT(rc, -EINVAL);
    parse_lane(&d, "2023-02-29", &rc);
    CHECK_EQ_INT(rc, -EINVAL);
    v = parse_lane(&d, "-0004-02-29", &rc); /* astronomical year -4 (5 BC) is a leap year */
    CHECK(rc == 0 && strcmp(fmt(&d, (uint64_t)v, false), "-0004-02-29") == 0);
    parse_lane(&d, "-0100-02-29", &rc);
    CHECK_EQ_INT(rc, -EINVAL);
    parse_lane(&d, "2024-04-31", &rc);
    CHECK_EQ_INT(rc, -EINVAL);
}

/* ---- rendering ------------------------------------------------------------ */

static void test_date_text(void)
{
    struct ig_logical d = lt_of("date");
    CHECK_EQ_STR(fmt(&d, 0, false), "1970-01-01");
    CHECK_EQ_STR(fmt(&d, 19723, false), "2024-01-01");
    CHECK_EQ_STR(fmt(&d, 19723, true), "\"2024-01-01\"");
    CHECK_EQ_STR(fmt(&d, (uint64_t)-1, false), "1969-12-31");
    CHECK_EQ_STR(fmt(&d, (uint64_t)(int64_t)-719528, false), "0000-01-01");
    CHECK_EQ_STR(fmt(&d, (uint64_t)(int64_t)-719529, false), "-0001-12-31");
    CHECK_EQ_STR(fmt(&d, 2932896, false), "9999-12-31");
    CHECK_EQ_STR(fmt(&d, 2932897, false), "10000-01-01");
    CHECK_EQ_STR(fmt(&d, (uint64_t)(int64_t)INT32_MAX, false), "5881580-07-11");
    CHECK_EQ_STR(fmt(&d, (uint64_t)(int64_t)INT32_MIN, false), "-5877641-06-23");
    /* lanes as a decoder gives them: int32 sign-extended (or not) */
    CHECK_EQ_STR(fmt(&d, 0xFFFFFFFFu, false), "1969-12-31");
}

static void test_timestamp_text(void)
{
    struct ig_logical us = lt_of("timestamp(us, UTC)"), ns = lt_of("timestamp(ns)"),
                      s = lt_of("timestamp(s)"), ms = lt_of("timestamp(ms, utc)");
    CHECK(us.utc && !ns.utc && ms.utc);
    CHECK_EQ_STR(fmt(&us, 1704141296123456ull, false), "2024-01-01T20:34:56.123456Z");
    CHECK_EQ_STR(fmt(&us, 1704141296123456ull, true), "\"2024-01-01T20:34:56.123456Z\"");
    CHECK_EQ_STR(fmt(&us, (uint64_t)-1, false), "1969-12-31T23:59:59.999999Z");
    CHECK_EQ_STR(fmt(&ns, (uint64_t)INT64_MAX, false), "2262-04-11T23:47:16.854775807");
    CHECK_EQ_STR(fmt(&ns, (uint64_t)INT64_MIN, false), "1677-09-21T00:12:43.145224192");
    CHECK_EQ_STR(fmt(&s, 0, false), "1970-01-01T00:00:00");
    CHECK_EQ_STR(fmt(&ms, 1000, false), "1970-01-01T00:00:01.000Z");
    /* seconds reach years far beyond 9999 either way */
    CHECK_EQ_STR(fmt(&s, (uint64_t)INT64_MAX, false), "292277026596-12-04T15:30:07");
    CHECK_EQ_STR(fmt(&s, (uint64_t)INT64_MIN, false), "-292277022657-01-27T08:29:52");
    struct ig_logical t = lt_of("time(ms)"), tn = lt_of("time(ns)");
    CHECK_EQ_STR(fmt(&t, 74096123, false), "20:34:56.123");
    CHECK_EQ_STR(fmt(&t, 0, true), "\"00:00:00.000\"");
    CHECK_EQ_STR(fmt(&tn, 86399999999999ull, false), "23:59:59.999999999");
    /* outside the day (not written by an importer): shown, never a crash */
    CHECK_EQ_STR(fmt(&t, (uint64_t)(int64_t)-1000, false), "-00:00:01.000");
    CHECK_EQ_STR(fmt(&t, 90000000, false), "25:00:00.000");
}

static void test_lengths_match_text(void)
{
    const char *types[] = {"date",           "time(ms)",           "time(us)",
                           "time(ns)",       "timestamp(s)",       "timestamp(ms, UTC)",
                           "timestamp(us)",  "timestamp(ns, UTC)", "decimal(9, 3)",
                           "decimal(18, 0)", "decimal(5, 5)"};
    uint64_t seed = check_seed;
    for (size_t k = 0; k < sizeof types / sizeof *types; k++) {
        struct ig_logical lt = lt_of(types[k]);
        for (int i = 0; i < 20000; i++) {
            uint64_t lane = test_rand(&seed);
            if (i % 4 == 1) lane >>= test_rand(&seed) % 64; /* small values too */
            if (i % 4 == 2) lane = (uint64_t) - (int64_t)(lane >> (test_rand(&seed) % 64));
            char a[IG_LOGICAL_TEXT_MAX];
            for (int json = 0; json < 2; json++) {
                size_t n = ig_logical_format_lane(&lt, lane, json, a);
                if (ig_logical_lane_len(&lt, lane, json) != n) {
                    CHECK(!"length differs from the text");
                    fprintf(stderr, "  %s lane %llx: %.*s\n", types[k], (unsigned long long)lane,
                            (int)n, a);
                    return;
                }
            }
        }
    }
}

/* ---- parsing -------------------------------------------------------------- */

static void test_round_trips(void)
{
    const char *types[] = {"date",           "time(ms)",           "time(us)",
                           "time(ns)",       "timestamp(s)",       "timestamp(ms, UTC)",
                           "timestamp(us)",  "timestamp(ns, UTC)", "decimal(9, 3)",
                           "decimal(18, 0)", "decimal(18, 18)"};
    uint64_t seed = check_seed;
    for (size_t k = 0; k < sizeof types / sizeof *types; k++) {
        struct ig_logical lt = lt_of(types[k]);
        for (int i = 0; i < 20000; i++) {
            uint64_t r = test_rand(&seed);
            int64_t v;
            switch (lt.kind) {
            case IG_LT_DATE:
                v = (int32_t)r;
                break;
            case IG_LT_TIME:
                v = (int64_t)(r % (uint64_t)(86400 * ig_unit_per_second(lt.unit)));
                break;
            case IG_LT_TIMESTAMP:
                /* seconds: the years a date parses (12 digits at most) */
                v = lt.unit == IG_UNIT_S ? (int64_t)(r % 60000000000000000ull) - 30000000000000000ll
                                         : (int64_t)r;
                break;
            default:
                v = lt.precision <= 9
                        ? (int64_t)(r % 1999999999ull) - 999999999
                        : (int64_t)(r % 1999999999999999999ull) - 999999999999999999ll;
            }
            if (lt.kind == IG_LT_DATE || (lt.kind == IG_LT_TIME && lt.unit == IG_UNIT_MS) ||
                (lt.kind == IG_LT_DECIMAL && lt.precision <= 9))
                v = (int32_t)v;
            char text[IG_LOGICAL_TEXT_MAX + 1];
            size_t n = ig_logical_format_lane(&lt, (uint64_t)v, false, text);
            text[n] = '\0';
            int rc;
            int64_t back = parse_lane(&lt, text, &rc);
            if (rc || back != v) {
                CHECK(!"round trip");
                fprintf(stderr, "  %s: %lld -> %s -> %lld (rc %d)\n", types[k], (long long)v, text,
                        (long long)back, rc);
                return;
            }
        }
    }
}

static void test_timestamp_offsets(void)
{
    struct ig_logical utc = lt_of("timestamp(us, UTC)"), local = lt_of("timestamp(ms)");
    int rc;
    int64_t base = parse_lane(&utc, "2023-12-31T23:30:00Z", &rc);
    CHECK_EQ_INT(rc, 0);
    const char *same[] = {"2024-01-01T00:30:00+01:00",  "2024-01-01 00:30:00+01",
                          "2024-01-01T00:30+0100",      "2023-12-31T18:00:00-05:30",
                          "2023-12-31 23:30:00 UTC",    "2023-12-31t23:30:00.000000z",
                          "2023-12-31 23:30:00 +00:00", "2023-12-31T23:30Z"};
    for (size_t i = 0; i < sizeof same / sizeof *same; i++) {
        int64_t v = parse_lane(&utc, same[i], &rc);
        if (rc || v != base) fprintf(stderr, "  %s: rc %d, %lld\n", same[i], rc, (long long)v);
        CHECK(rc == 0 && v == base);
    }
    /* no zone: the wall clock as it is; a date alone: midnight */
    CHECK_EQ_INT(parse_lane(&local, "1970-01-01T00:00:01", &rc), 1000);
    CHECK_EQ_INT(parse_lane(&local, "1970-01-02", &rc), 86400000);
    CHECK_EQ_INT(parse_lane(&local, "1970-01-01T00:00:00.5", &rc), 500);
    /* an offset across the epoch and a leap day */
    CHECK_EQ_INT(parse_lane(&local, "1970-01-01T01:00:00+02:00", &rc), -3600000);
    CHECK_EQ_STR(fmt(&utc, (uint64_t)parse_lane(&utc, "2024-03-01T01:00:00+03:00", &rc), false),
                 "2024-02-29T22:00:00.000000Z");
    CHECK_EQ_STR(fmt(&utc, (uint64_t)parse_lane(&utc, "1900-03-01T00:00:00+00:01", &rc), false),
                 "1900-02-28T23:59:00.000000Z");
    /* before 1970 and before year 0 */
    CHECK_EQ_STR(fmt(&utc, (uint64_t)parse_lane(&utc, "-0001-12-31T23:59:59.999999Z", &rc), false),
                 "-0001-12-31T23:59:59.999999Z");
    CHECK_EQ_STR(fmt(&utc, (uint64_t)parse_lane(&utc, "1969-07-20T20:17:40Z", &rc), false),
                 "1969-07-20T20:17:40.000000Z");
}

static void test_bad_times(void)
{
    struct ig_logical ms = lt_of("timestamp(ms)"), ns = lt_of("timestamp(ns)"),
                      t = lt_of("time(us)");
    const char *bad[] = {"2024-1-01",
                         "2024-01-01T",
                         "2024-01-01T25:00:00",
                         "2024-13-01",
                         "2024-01-00",
                         "2024-01-01T10:61",
                         "24-01-01",
                         "2024-01-01T10:00:00+25:00",
                         "2024-01-01T10:00:00X",
                         "2024-01-01T10:00:00.",
                         "2024-01-01T10:00:00.1234",
                         "",
                         "now",
                         "2024-01-01T10:00:00 +",
                         "2024/01/01"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int rc;
        parse_lane(&ms, bad[i], &rc);
        if (rc != -EINVAL) fprintf(stderr, "  accepted '%s'\n", bad[i]);
        CHECK_EQ_INT(rc, -EINVAL);
    }
    int rc;
    /* nanoseconds end in 2262 */
    parse_lane(&ns, "2262-04-11T23:47:16.854775807", &rc);
    CHECK_EQ_INT(rc, 0);
    parse_lane(&ns, "2262-04-11T23:47:16.854775808", &rc);
    CHECK_EQ_INT(rc, -EINVAL);
    parse_lane(&ns, "1677-09-21T00:12:43.145224192", &rc);
    CHECK_EQ_INT(rc, 0);
    parse_lane(&ns, "1677-09-21T00:12:43.145224191", &rc);
    CHECK_EQ_INT(rc, -EINVAL);
    /* zeros past the unit are fine, digits are not */
    CHECK_EQ_INT(parse_lane(&ms, "1970-01-01T00:00:00.123000000", &rc), 123);
    CHECK_EQ_INT(rc, 0);
    CHECK_EQ_INT(parse_lane(&t, "00:00:01.0000010", &rc), 1000001);
    parse_lane(&t, "00:00:01.0000011", &rc);
    CHECK_EQ_INT(rc, -EINVAL);
    parse_lane(&t, "24:00:00", &rc);
    CHECK_EQ_INT(rc, -EINVAL);
}

static void test_decimals(void)
{
    struct ig_logical d = lt_of("decimal(12, 2)");
    int rc;
    CHECK_EQ_INT(parse_lane(&d, "1234.5", &rc), 123450);
    CHECK_EQ_STR(fmt(&d, 123450, false), "1234.50");
    CHECK_EQ_STR(fmt(&d, 123450, true), "1234.50");
    CHECK_EQ_INT(parse_lane(&d, "-0.05", &rc), -5);
    CHECK_EQ_STR(fmt(&d, (uint64_t)-5, false), "-0.05");
    CHECK_EQ_INT(parse_lane(&d, "1e3", &rc), 100000);
    CHECK_EQ_INT(parse_lane(&d, "+.5", &rc), 50);
    CHECK_EQ_INT(parse_lane(&d, "0012.300", &rc), 1230);
    CHECK_EQ_INT(parse_lane(&d, "9999999999.99", &rc), 999999999999);
    CHECK_EQ_INT(rc, 0);
    parse_lane(&d, "1.005", &rc); /* a third place: not rounded */
    CHECK_EQ_INT(rc, -EINVAL);
    parse_lane(&d, "10000000000", &rc); /* 11 digits before the point, 10 fit */
    CHECK_EQ_INT(rc, -EINVAL);
    parse_lane(&d, "1.2.3", &rc);
    CHECK_EQ_INT(rc, -EINVAL);
    parse_lane(&d, "abc", &rc);
    CHECK_EQ_INT(rc, -EINVAL);
    parse_lane(&d, "", &rc);
    CHECK_EQ_INT(rc, -EINVAL);
    struct ig_logical z = lt_of("decimal(3, 0)");
    CHECK_EQ_STR(fmt(&z, (uint64_t)-999, false), "-999");
    CHECK_EQ_INT(parse_lane(&z, "1.000", &rc), 1);
}

/* 38 digits in 16 bytes, both ways, and the double nearest */
static void test_wide_decimals(void)
{
    struct ig_logical d = lt_of("decimal(38, 10)");
    CHECK(d.width == 16);
    struct ig_values v;
    ig_values_init(&v, IG_T_BINARY);
    v.lt = d;
    struct ig_buf scratch = IG_BUF_INIT, out = IG_BUF_INIT;
    struct ig_error e = {0};
    const char *ok[] = {"9999999999999999999999999999.9999999999",
                        "-9999999999999999999999999999.9999999999", "0.0000000001",
                        "-12345678901234567890.0123456789", "0.0000000000"};
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++)
        CHECK_EQ_INT(ig_logical_parse(&d, IG_T_BINARY, ok[i], strlen(ok[i]), &v, &scratch, &e), 0);
    REQUIRE(v.n == 5);
    for (size_t i = 0; i < v.n; i++) {
        ig_buf_reset(&out);
        CHECK_EQ_INT(ig_render_text_value(&out, &v, i), 0);
        ig_buf_append_byte(&out, 0);
        CHECK_EQ_STR((const char *)out.data, ok[i]);
    }
    const char *bad[] = {"99999999999999999999999999999", "1e30", "0.00000000001"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        CHECK_EQ_INT(ig_logical_parse(&d, IG_T_BINARY, bad[i], strlen(bad[i]), &v, &scratch, &e),
                     -EINVAL);
    /* NumPy's float64: the nearest double */
    uint8_t el[8];
    double x;
    ig_logical_npy_at(el, &v, 3);
    memcpy(&x, el, 8);
    CHECK(x == -12345678901234567890.0123456789);
    ig_values_push_null(&v);
    ig_logical_npy_at(el, &v, v.n - 1);
    memcpy(&x, el, 8);
    CHECK(isnan(x));
    struct ig_logical max = lt_of("decimal(38, 0)");
    ig_values_reset(&v);
    v.lt = max;
    CHECK_EQ_INT(ig_logical_parse(&max, IG_T_BINARY, "99999999999999999999999999999999999999", 38,
                                  &v, &scratch, &e),
                 0);
    CHECK_EQ_INT(ig_logical_parse(&max, IG_T_BINARY, "100000000000000000000000000000000000000", 39,
                                  &v, &scratch, &e),
                 -EINVAL);
    ig_buf_free(&scratch);
    ig_buf_free(&out);
    ig_values_free(&v);
}

static void test_uuids(void)
{
    struct ig_logical u = lt_of("uuid");
    struct ig_values v;
    ig_values_init(&v, IG_T_BINARY);
    v.lt = u;
    struct ig_error e = {0};
    const char *same[] = {"6ba7b810-9dad-11d1-80b4-00c04fd430c8",
                          "6BA7B8109DAD11D180B400C04FD430C8",
                          "{6ba7b810-9dad-11d1-80b4-00c04fd430c8}"};
    for (size_t i = 0; i < 3; i++)
        CHECK_EQ_INT(ig_logical_parse(&u, IG_T_BINARY, same[i], strlen(same[i]), &v, NULL, &e), 0);
    const char *bad[] = {"6ba7b810-9dad-11d1-80b4-00c04fd430c",
                         "6ba7b8109-dad-11d1-80b4-00c04fd430c8",
                         "gba7b810-9dad-11d1-80b4-00c04fd430c8", ""};
    for (size_t i = 0; i < 4; i++)
        CHECK_EQ_INT(ig_logical_parse(&u, IG_T_BINARY, bad[i], strlen(bad[i]), &v, NULL, &e),
                     -EINVAL);
    REQUIRE(v.n == 3);
    struct ig_buf out = IG_BUF_INIT;
    for (size_t i = 0; i < 3; i++) {
        size_t n;
        const uint8_t *p = ig_values_bytes(&v, i, &n);
        CHECK(n == 16 && p[0] == 0x6b && p[15] == 0xc8);
        ig_buf_reset(&out);
        ig_render_json_value(&out, &v, i);
        ig_buf_append_byte(&out, 0);
        CHECK_EQ_STR((const char *)out.data, "\"6ba7b810-9dad-11d1-80b4-00c04fd430c8\"");
    }
    ig_buf_free(&out);
    ig_values_free(&v);
}

/* Text lengths the writer stores: measured as rendered, NULLs and all */
static void test_text_len(void)
{
    const char *types[] = {"date", "timestamp(us, UTC)", "decimal(12, 2)", "uuid", "time(ns)"};
    const char *vals[][3] = {{"2024-01-01", "-0044-03-15", "10000-01-01"},
                             {"2024-01-01T20:34:56.123456Z", "1969-12-31T23:59:59Z", "0001-01-01"},
                             {"-0.05", "1234.5", "0"},
                             {"6ba7b810-9dad-11d1-80b4-00c04fd430c8",
                              "00000000000000000000000000000000",
                              "ffffffff-ffff-ffff-ffff-ffffffffffff"},
                             {"00:00:00", "23:59:59.999999999", "12:00"}};
    for (size_t k = 0; k < 5; k++) {
        struct ig_logical lt = lt_of(types[k]);
        uint8_t type, q;
        ig_logical_storage(&lt, &type, &q);
        struct ig_values v;
        ig_values_init(&v, type);
        v.lt = lt;
        struct ig_buf scratch = IG_BUF_INIT, text = IG_BUF_INIT;
        struct ig_error e = {0};
        for (int j = 0; j < 3; j++) {
            CHECK_EQ_INT(
                ig_logical_parse(&lt, type, vals[k][j], strlen(vals[k][j]), &v, &scratch, &e), 0);
            ig_values_push_null(&v);
        }
        uint64_t len = 0;
        CHECK_EQ_INT(ig_render_text_len(&v, NULL, &scratch, &len), 0);
        CHECK_EQ_INT(ig_render_text_lines(&text, &v, NULL), 0);
        CHECK_EQ_INT(len, text.len);
        ig_buf_free(&scratch);
        ig_buf_free(&text);
        ig_values_free(&v);
    }
}

/* ---- types ---------------------------------------------------------------- */

static void test_type_names(void)
{
    const char *good[][2] = {{"date", "date"},
                             {"time( us )", "time(us)"},
                             {"timestamp(us, UTC)", "timestamp(us, UTC)"},
                             {"timestamp(ns,utc)?", "timestamp(ns, UTC)?"},
                             {"decimal(12,2)", "decimal(12, 2)"},
                             {"decimal(7)", "decimal(7, 0)"},
                             {"uuid?", "uuid?"},
                             {"fixed_binary(20)", "fixed_binary(20)"},
                             {"float16", "float16"},
                             {"list<date?>", "list<date?>"},
                             {"struct<at:timestamp(ms, UTC), amount:decimal(30, 4)?>",
                              "struct<at:timestamp(ms, UTC), amount:decimal(30, 4)?>"}};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        struct ig_schema s = {0};
        struct ig_error e = {0};
        struct ig_buf b = IG_BUF_INIT;
        int rc = ig_schema_add_typed(&s, "c", 1, good[i][0], strlen(good[i][0]), &e);
        if (rc) fprintf(stderr, "  %s: %s\n", good[i][0], e.msg);
        CHECK_EQ_INT(rc, 0);
        if (!rc && !ig_schema_finish(&s, &e) && !ig_schema_type_text(&s, 0, &b)) {
            ig_buf_append_byte(&b, 0);
            CHECK_EQ_STR((const char *)b.data, good[i][1]);
        }
        ig_buf_free(&b);
        ig_schema_free(&s);
    }
    const char *bad[][2] = {{"timestamp(sec)", "unknown timestamp unit 'sec'"},
                            {"timestamp", "expected timestamp(UNIT)"},
                            {"timestamp(us, Europe/Paris)", "time zone 'Europe/Paris'"},
                            {"time(s)", "unknown time unit 's'"},
                            {"decimal(5, 7)", "scale is above the precision"},
                            {"decimal(39, 0)", "precision 39"},
                            {"decimal(0, 0)", "precision 0"},
                            {"decimal", "expected decimal(PRECISION, SCALE)"},
                            {"fixed_binary(0)", "fixed_binary(BYTES)"},
                            {"date(1)", "takes no arguments"},
                            {"timestamp(us", "expected ')'"}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct ig_schema s = {0};
        struct ig_error e = {0};
        CHECK_EQ_INT(ig_schema_add_typed(&s, "c", 1, bad[i][0], strlen(bad[i][0]), &e), -EINVAL);
        if (!strstr(e.msg, bad[i][1])) fprintf(stderr, "  %s: '%s'\n", bad[i][0], e.msg);
        CHECK(strstr(e.msg, bad[i][1]) != NULL);
        ig_schema_free(&s);
    }
    /* a schema file: names the file and line; quantize on float16 only as fp16 */
    struct ig_schema s = {0};
    struct ig_error e = {0};
    const char *text = "a int64\nb timestamp(us, UTC)? erase=1\nc decimal(12, 2)\n";
    CHECK_EQ_INT(ig_schema_parse(&s, text, strlen(text), "s.txt", &e), 0);
    ig_schema_free(&s);
    const char *typo = "a int64\nb timestamp(us, CET)\n";
    CHECK_EQ_INT(ig_schema_parse(&s, typo, strlen(typo), "s.txt", &e), -EINVAL);
    CHECK(strstr(e.msg, "s.txt:2:") && strstr(e.msg, "'CET'"));
    ig_schema_free(&s);
    const char *q = "h float16 quantize=bf16\n";
    CHECK_EQ_INT(ig_schema_parse(&s, q, strlen(q), "s.txt", &e), -EINVAL);
    ig_schema_free(&s);
}

static void test_storage_checks(void)
{
    struct ig_logical d = lt_of("date"), dec = lt_of("decimal(20, 2)"), h = lt_of("float16");
    CHECK(ig_logical_check(&d, IG_T_INT32, 0) == NULL);
    CHECK(ig_logical_check(&d, IG_T_INT64, 0) != NULL);
    CHECK(ig_logical_check(&dec, IG_T_BINARY, 0) == NULL);
    CHECK(ig_logical_check(&h, IG_T_FLOAT32, 1) == NULL);
    CHECK(ig_logical_check(&h, IG_T_FLOAT32, 0) != NULL);
    struct ig_logical bad = dec;
    bad.scale = 21;
    CHECK(ig_logical_check(&bad, IG_T_BINARY, 0) != NULL);
    bad = (struct ig_logical){.kind = 9};
    CHECK(ig_logical_check(&bad, IG_T_INT32, 0) != NULL);
    bad = (struct ig_logical){.kind = IG_LT_TIMESTAMP, .unit = 7};
    CHECK(ig_logical_check(&bad, IG_T_INT64, 0) != NULL);
    bad = (struct ig_logical){.kind = IG_LT_DATE, .utc = true};
    CHECK(ig_logical_check(&bad, IG_T_INT32, 0) != NULL);
}

/* NumPy elements: datetime64 counts, NaT for NULL */
static void test_npy(void)
{
    struct ig_logical d = lt_of("date"), ts = lt_of("timestamp(us)");
    const char *descr;
    uint32_t w;
    CHECK(ig_logical_npy(&d, &descr, &w) && w == 8 && !strcmp(descr, "<M8[D]"));
    CHECK(ig_logical_npy(&ts, &descr, &w) && !strcmp(descr, "<M8[us]"));
    struct ig_logical t = lt_of("time(ms)");
    CHECK(ig_logical_npy(&t, &descr, &w) && !strcmp(descr, "<m8[ms]"));
    struct ig_logical u = lt_of("uuid");
    CHECK(!ig_logical_npy(&u, &descr, &w));
    struct ig_values v;
    ig_values_init(&v, IG_T_INT32);
    v.lt = d;
    ig_values_push_lane(&v, (uint64_t)(int64_t)-5);
    ig_values_push_null(&v);
    uint8_t el[8];
    int64_t x;
    ig_logical_npy_at(el, &v, 0);
    memcpy(&x, el, 8);
    CHECK_EQ_INT(x, -5);
    ig_logical_npy_at(el, &v, 1);
    memcpy(&x, el, 8);
    CHECK(x == INT64_MIN); /* NaT */
    ig_values_free(&v);
    /* a .npy of dates or timestamps with rows deleted (an erased table's):
     * the live values, each as ig_logical_npy_at writes it, with and without
     * NULLs, given away (move) or copied */
    uint64_t seed = check_seed;
    for (int round = 0; round < 40; round++) {
        ig_values_init(&v, round % 2 ? IG_T_INT64 : IG_T_INT32);
        v.lt = round % 2 ? ts : d;
        size_t n = 1 + (size_t)(test_rand(&seed) % 200);
        uint8_t del[26] = {0};
        for (size_t i = 0; i < n; i++) {
            uint64_t r = test_rand(&seed);
            if (round % 4 == 3 && r % 7 == 0) ig_values_push_null(&v);
            else ig_values_push_lane(&v, (uint64_t)((int64_t)(r % 100000) - 50000));
            if ((r >> 40) % 5 == 0) del[i / 8] |= (uint8_t)(1u << (i % 8));
        }
        struct ig_buf want = IG_BUF_INIT, got = IG_BUF_INIT;
        for (size_t i = 0; i < n; i++)
            if (!(del[i / 8] >> (i % 8) & 1)) {
                uint8_t *o = ig_buf_extend(&want, 8);
                REQUIRE(o);
                ig_logical_npy_at(o, &v, i);
            }
        CHECK(ig_render_npy(&got, &v, del, round % 3 == 0) == 0);
        CHECK(got.len == want.len && (!want.len || memcmp(got.data, want.data, want.len) == 0));
        ig_buf_free(&want);
        ig_buf_free(&got);
        ig_values_free(&v);
    }
    /* a 16-byte decimal's NAME.valid.npy: the NULL mask of bytes-stored values */
    struct ig_values b;
    ig_values_init(&b, IG_T_BINARY);
    b.lt = lt_of("decimal(30, 4)");
    uint8_t sixteen[16] = {1};
    CHECK(ig_values_push_bytes(&b, sixteen, 16) == 0 && ig_values_push_null(&b) == 0 &&
          ig_values_push_bytes(&b, sixteen, 16) == 0);
    struct ig_buf mask = IG_BUF_INIT;
    CHECK(ig_render_fixed(&mask, &b, NULL, true) == 0);
    CHECK(mask.len == 3 && mask.data[0] == 1 && mask.data[1] == 0 && mask.data[2] == 1);
    ig_buf_free(&mask);
    ig_values_free(&b);
}

/* ig_render_fixed against ig_render_fixed_at value by value: every width,
 * with and without NULLs and deleted values (none, scattered, runs, all), and
 * the validity form. The element loop runs per width over runs of live values. */
static void test_render_fixed_matches_each_value(void)
{
    static const uint8_t types[] = {IG_T_BOOL,  IG_T_INT8,  IG_T_UINT16, IG_T_INT32,
                                    IG_T_FLOAT32, IG_T_INT64, IG_T_FLOAT64};
    uint64_t seed = check_seed;
    for (size_t round = 0; round < 400; round++) {
        uint8_t type = types[round % sizeof types];
        size_t n = (size_t)(test_rand(&seed) % 300);
        unsigned nulls = (unsigned)(round / 7 % 2), del_kind = (unsigned)(round / 14 % 4);
        struct ig_values v;
        ig_values_init(&v, type);
        uint8_t *del = calloc(n / 8 + 1, 1);
        REQUIRE(del);
        for (size_t i = 0; i < n; i++) {
            uint64_t r = test_rand(&seed);
            if (nulls && r % 5 == 0) REQUIRE(ig_values_push_null(&v) == 0);
            else REQUIRE(ig_values_push_lane(&v, type == IG_T_BOOL ? r % 3 : r) == 0);
            bool gone = del_kind == 1 ? (r >> 32) % 9 == 0 : del_kind == 2 ? (i / 13) % 2 : del_kind == 3;
            if (gone) del[i / 8] |= (uint8_t)(1u << (i % 8));
        }
        for (int as_validity = 0; as_validity < 2; as_validity++) {
            struct ig_buf got = IG_BUF_INIT, want = IG_BUF_INIT;
            const uint8_t *d = del_kind ? del : NULL;
            CHECK(ig_render_fixed(&got, &v, d, as_validity) == 0);
            uint32_t w = as_validity ? 1 : ig_type_info(type)->width;
            for (size_t i = 0; i < n; i++) {
                if (d && (d[i / 8] >> (i % 8) & 1)) continue;
                uint8_t *o = ig_buf_extend(&want, w);
                REQUIRE(o);
                if (as_validity) *o = !ig_values_is_null(&v, i);
                else ig_render_fixed_at(o, &v, i);
            }
            CHECK(got.len == want.len && (!want.len || memcmp(got.data, want.data, want.len) == 0));
            ig_buf_free(&got);
            ig_buf_free(&want);
        }
        free(del);
        ig_values_free(&v);
    }
}

static void test_guess(void)
{
    struct ig_time_guess g;
    CHECK(ig_logical_guess("2024-01-01", 10, &g) && g.date && !g.timestamp);
    CHECK(ig_logical_guess("2024-01-01 10:00:00", 19, &g) && g.timestamp && !g.zoned &&
          g.frac_digits == 0);
    CHECK(ig_logical_guess("2024-01-01T10:00:00.123456789+02:00", 35, &g) && g.timestamp &&
          g.zoned && g.frac_digits == 9);
    CHECK(!ig_logical_guess("20240101", 8, &g));
    CHECK(!ig_logical_guess("2024-02-30", 10, &g));
    CHECK(!ig_logical_guess("hello", 5, &g));
    CHECK(!ig_logical_guess("2024-01-01 and more", 19, &g));
}

TEST_MAIN(T(test_calendar_walk), T(test_leap_days), T(test_date_text), T(test_timestamp_text),
          T(test_lengths_match_text), T(test_round_trips), T(test_timestamp_offsets),
          T(test_bad_times), T(test_decimals), T(test_wide_decimals), T(test_uuids),
          T(test_text_len), T(test_type_names), T(test_storage_checks), T(test_npy), T(test_guess),
          T(test_render_fixed_matches_each_value))
