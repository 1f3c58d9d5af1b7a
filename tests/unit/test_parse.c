/* Tests for src/util/parse.c, src/util/parse_float.c and src/util/utf8.c. */
#include "check.h"

#include <errno.h>
#include <float.h>
#include <locale.h>
#include <math.h>

#include "util/buf.h"
#include "util/error.h"
#include "util/parse.h"
#include "util/utf8.h"

#define S(lit) (lit), (sizeof(lit) - 1)

static int i64(const char *s, int64_t *v) { return ig_parse_i64(s, strlen(s), v, NULL); }
static int u64(const char *s, uint64_t *v) { return ig_parse_u64(s, strlen(s), v, NULL); }

/* ---- integers ------------------------------------------------------------ */

static void test_i64_boundaries(void)
{
    int64_t v = 0;
    CHECK(i64("9223372036854775807", &v) == 0 && v == INT64_MAX);
    CHECK(i64("-9223372036854775808", &v) == 0 && v == INT64_MIN);
    CHECK(i64("+9223372036854775807", &v) == 0 && v == INT64_MAX);
    CHECK_EQ_INT(i64("9223372036854775808", &v), -ERANGE);
    CHECK_EQ_INT(i64("-9223372036854775809", &v), -ERANGE);
    CHECK_EQ_INT(i64("18446744073709551615", &v), -ERANGE);
    CHECK_EQ_INT(i64("18446744073709551616", &v), -ERANGE);
    CHECK_EQ_INT(i64("99999999999999999999999999", &v), -ERANGE);
    CHECK_EQ_INT(i64("-99999999999999999999999999", &v), -ERANGE);
    CHECK(i64("0", &v) == 0 && v == 0);
    CHECK(i64("-0", &v) == 0 && v == 0);
    CHECK(i64("+5", &v) == 0 && v == 5);
    CHECK(i64("-5", &v) == 0 && v == -5);
    CHECK(i64("007", &v) == 0 && v == 7);
    /* Leading zeros do not count towards overflow. */
    CHECK(i64("0000000000000000000000000000009223372036854775807", &v) == 0 && v == INT64_MAX);
    CHECK(i64("-000000000000000000000000000009223372036854775808", &v) == 0 && v == INT64_MIN);
}

static void test_i64_syntax(void)
{
    static const char *bad[] = {"",    " 5",   "5 ",  "+",   "-",     "--5", "+-5", "1e3",
                                "1.0", "0x10", "12a", "a12", "1_000", "1,0", "\xef\xbc\x91",
                                "5\n", "\t5",  "٣"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int64_t v = 42;
        int rc = i64(bad[i], &v);
        if (rc != -EINVAL) fprintf(stderr, "  input \"%s\": rc %d\n", bad[i], rc);
        CHECK_EQ_INT(rc, -EINVAL);
        CHECK_EQ_INT(v, 42); /* untouched on error */
    }
    /* Syntax errors win over overflow. */
    int64_t v;
    CHECK_EQ_INT(i64("99999999999999999999999x", &v), -EINVAL);
    /* Not NUL-terminated: only n bytes are looked at. */
    CHECK(ig_parse_i64("123456", 3, &v, NULL) == 0 && v == 123);
    CHECK(ig_parse_i64("12", 0, &v, NULL) == -EINVAL);
}

static void test_u64_boundaries(void)
{
    uint64_t v = 0;
    CHECK(u64("18446744073709551615", &v) == 0 && v == UINT64_MAX);
    CHECK_EQ_INT(u64("18446744073709551616", &v), -ERANGE);
    CHECK_EQ_INT(u64("184467440737095516150", &v), -ERANGE);
    CHECK_EQ_INT(u64("-1", &v), -ERANGE);
    CHECK(u64("-0", &v) == 0 && v == 0);
    CHECK(u64("+5", &v) == 0 && v == 5);
    CHECK_EQ_INT(u64("1e3", &v), -EINVAL);
    CHECK_EQ_INT(u64(" 1", &v), -EINVAL);
    CHECK_EQ_INT(u64("", &v), -EINVAL);
}

static void test_int_range(void)
{
    int64_t v;
    CHECK(ig_parse_int_range(S("-128"), INT8_MIN, INT8_MAX, &v, NULL) == 0 && v == -128);
    CHECK(ig_parse_int_range(S("127"), INT8_MIN, INT8_MAX, &v, NULL) == 0 && v == 127);
    CHECK_EQ_INT(ig_parse_int_range(S("128"), INT8_MIN, INT8_MAX, &v, NULL), -ERANGE);
    CHECK_EQ_INT(ig_parse_int_range(S("-129"), INT8_MIN, INT8_MAX, &v, NULL), -ERANGE);
    CHECK_EQ_INT(ig_parse_int_range(S("99999999999999999999"), INT8_MIN, INT8_MAX, &v, NULL),
                 -ERANGE);
    CHECK_EQ_INT(ig_parse_int_range(S("1.5"), INT8_MIN, INT8_MAX, &v, NULL), -EINVAL);
    CHECK(ig_parse_int_range(S("-32768"), INT16_MIN, INT16_MAX, &v, NULL) == 0 && v == -32768);
    CHECK_EQ_INT(ig_parse_int_range(S("32768"), INT16_MIN, INT16_MAX, &v, NULL), -ERANGE);
    CHECK(ig_parse_int_range(S("-2147483648"), INT32_MIN, INT32_MAX, &v, NULL) == 0 &&
          v == INT32_MIN);
    CHECK(ig_parse_int_range(S("2147483647"), INT32_MIN, INT32_MAX, &v, NULL) == 0 &&
          v == INT32_MAX);
    CHECK_EQ_INT(ig_parse_int_range(S("2147483648"), INT32_MIN, INT32_MAX, &v, NULL), -ERANGE);
    CHECK_EQ_INT(ig_parse_int_range(S("-2147483649"), INT32_MIN, INT32_MAX, &v, NULL), -ERANGE);

    uint64_t u;
    CHECK(ig_parse_uint_range(S("255"), 0, UINT8_MAX, &u, NULL) == 0 && u == 255);
    CHECK(ig_parse_uint_range(S("0"), 0, UINT8_MAX, &u, NULL) == 0 && u == 0);
    CHECK_EQ_INT(ig_parse_uint_range(S("256"), 0, UINT8_MAX, &u, NULL), -ERANGE);
    CHECK_EQ_INT(ig_parse_uint_range(S("-1"), 0, UINT8_MAX, &u, NULL), -ERANGE);
    CHECK_EQ_INT(ig_parse_uint_range(S("x"), 0, UINT8_MAX, &u, NULL), -EINVAL);
    CHECK(ig_parse_uint_range(S("4294967295"), 0, UINT32_MAX, &u, NULL) == 0 && u == UINT32_MAX);
    CHECK_EQ_INT(ig_parse_uint_range(S("4294967296"), 0, UINT32_MAX, &u, NULL), -ERANGE);
    CHECK_EQ_INT(ig_parse_uint_range(S("5"), 10, 20, &u, NULL), -ERANGE);
}

static void test_int_messages(void)
{
    struct ig_error e = {0};
    int64_t v;
    CHECK_EQ_INT(ig_parse_i64(S("12a"), &v, &e), -EINVAL);
    CHECK_EQ_STR(e.msg, "invalid integer \"12a\"");
    CHECK_EQ_INT(e.code, -EINVAL);
    CHECK_EQ_INT(ig_parse_i64(S(""), &v, &e), -EINVAL);
    CHECK_EQ_STR(e.msg, "invalid integer: empty value");
    CHECK_EQ_INT(ig_parse_int_range(S("300"), INT8_MIN, INT8_MAX, &v, &e), -ERANGE);
    CHECK_EQ_STR(e.msg, "integer \"300\" out of range [-128, 127]");
    CHECK_EQ_INT(ig_parse_i64(S("9223372036854775808"), &v, &e), -ERANGE);
    CHECK_EQ_STR(e.msg, "integer out of range for int64: \"9223372036854775808\"");
    /* Control bytes are escaped and long values shortened. */
    CHECK_EQ_INT(ig_parse_i64(S("1\n\"2"), &v, &e), -EINVAL);
    CHECK_EQ_STR(e.msg, "invalid integer \"1\\x0a\\\"2\"");
    char big[300];
    memset(big, '7', sizeof big);
    big[299] = 'x';
    CHECK_EQ_INT(ig_parse_i64(big, sizeof big, &v, &e), -EINVAL);
    CHECK(strlen(e.msg) < 100 && strstr(e.msg, "...") != NULL);
}

static void test_int_random_roundtrip(void)
{
    uint64_t s = check_seed;
    char buf[32];
    for (int i = 0; i < 200000; i++) {
        uint64_t r = test_rand(&s);
        /* Mix magnitudes so short numbers are common too. */
        r >>= test_rand(&s) % 64;
        int64_t x = (int64_t)r;
        if (test_rand(&s) & 1) x = -x;
        int n = snprintf(buf, sizeof buf, "%" PRId64, x);
        int64_t v;
        REQUIRE(ig_parse_i64(buf, (size_t)n, &v, NULL) == 0);
        CHECK(v == x);
        n = snprintf(buf, sizeof buf, "%" PRIu64, r);
        uint64_t u;
        REQUIRE(ig_parse_u64(buf, (size_t)n, &u, NULL) == 0);
        CHECK(u == r);
    }
}

/* A byte-at-a-time reference for the integer parsers' grammar: optional
 * sign, at least one digit, nothing else; a syntax error before overflow.
 * Gives the magnitude saturated at 2^64 (anything larger fits no type). */
__extension__ typedef unsigned __int128 ref_u128;
static const ref_u128 ref_big = (ref_u128)1 << 64;

static int ref_mag(const char *p, size_t n, ref_u128 *mag, bool *neg)
{
    size_t i = 0;
    *neg = false;
    if (n && (p[0] == '-' || p[0] == '+')) *neg = p[i++] == '-';
    if (i == n) return -EINVAL;
    for (size_t k = i; k < n; k++)
        if (p[k] < '0' || p[k] > '9') return -EINVAL;
    ref_u128 v = 0;
    for (; i < n; i++) {
        v = v * 10 + (unsigned)(p[i] - '0');
        if (v > ref_big) v = ref_big;
    }
    *mag = v;
    return 0;
}

static int ref_i64(const char *p, size_t n, int64_t *out)
{
    ref_u128 v;
    bool neg;
    int rc = ref_mag(p, n, &v, &neg);
    if (rc) return rc;
    if (neg ? v > (ref_u128)INT64_MAX + 1 : v > INT64_MAX) return -ERANGE;
    *out = neg ? (int64_t)(0 - (uint64_t)v) : (int64_t)v;
    return 0;
}

static int ref_u64(const char *p, size_t n, uint64_t *out)
{
    ref_u128 v;
    bool neg;
    int rc = ref_mag(p, n, &v, &neg);
    if (rc) return rc;
    if (v >= ref_big || (neg && v != 0)) return -ERANGE;
    *out = (uint64_t)v;
    return 0;
}

/* A random integer-like field of up to 63 bytes: the limits and their
 * neighbours, or an optional sign, 0-25 leading zeros (mostly none), 0-25
 * digits, and sometimes one to three junk bytes anywhere -- bytes either side
 * of '0'..'9', their high-bit twins, signs, any byte at all. */
static size_t random_int_text(uint64_t *seed, char *text)
{
    static const char *edges[] = {"9223372036854775807",  "9223372036854775808",
                                  "9223372036854775806",  "-9223372036854775808",
                                  "-9223372036854775809", "-9223372036854775807",
                                  "18446744073709551615", "18446744073709551616",
                                  "18446744073709551614", "99999999999999999999",
                                  "10000000000000000000", "9999999999999999999",
                                  "1000000000000000000",  "-0",
                                  "0",                    "+",
                                  "-",                    ""};
    static const char junk[] = " x./:;?e\xff\x80\xb0\xb9\xba\xaf-+\x06\x0a\x00\x10\x20\x3a\x3f";
    size_t n = 0, zeros = 0;
    uint64_t r = test_rand(seed);
    if (r % 5 == 0) {
        const char *e = edges[test_rand(seed) % (sizeof edges / sizeof edges[0])];
        if (e[0] != '-' && e[0] != '+' && test_rand(seed) % 3 == 0) text[n++] = '+';
        if (test_rand(seed) % 3 == 0) zeros = test_rand(seed) % 26;
        if (e[0] == '-') text[n++] = *e++; /* zeros go after the sign */
        for (size_t k = 0; k < zeros; k++) text[n++] = '0';
        for (; *e; e++) text[n++] = *e;
    } else {
        if (r % 4 == 1) text[n++] = r % 8 == 1 ? '-' : '+';
        if (test_rand(seed) % 8 == 0) zeros = test_rand(seed) % 26;
        size_t digits = test_rand(seed) % 26;
        for (size_t k = 0; k < zeros; k++) text[n++] = '0';
        for (size_t k = 0; k < digits; k++) text[n++] = (char)('0' + test_rand(seed) % 10);
    }
    if (n && test_rand(seed) % 4 == 0) {
        for (uint64_t j = test_rand(seed) % 3; j < 3; j++) {
            uint64_t q = test_rand(seed);
            char c = q % 2 ? junk[q / 2 % (sizeof junk - 1)] : (char)(q >> 8);
            text[test_rand(seed) % n] = c;
        }
    }
    return n;
}

/* Each field is parsed from a heap copy of exactly its length, so that a
 * read past it trips ASan, and compared with the references: ig_parse_i64,
 * ig_parse_u64 and the range parsers (int32 and uint32 bounds), codes, values,
 * outputs left alone on error, which message. Every length from 0 to 51
 * comes up, so the word loads see every head and tail size. */
static void test_int_random_vs_reference(void)
{
    uint64_t seed = check_seed ^ 0x164;
    char text[64];
    for (int t = 0; t < 400000; t++) {
        size_t n = random_int_text(&seed, text);
        char *copy = malloc(n ? n : 1);
        REQUIRE(copy);
        memcpy(copy, text, n);

        struct ig_error e = {0};
        int64_t got = 7, want = 7;
        int rc = ig_parse_i64(copy, n, &got, &e), wrc = ref_i64(copy, n, &want);
        bool same = rc == wrc && got == want;
        if (rc == -EINVAL) same &= strncmp(e.msg, "invalid integer", 15) == 0;
        if (rc == -ERANGE) same &= strncmp(e.msg, "integer out of range for int64:", 31) == 0;

        uint64_t ugot = 7, uwant = 7;
        int urc = ig_parse_u64(copy, n, &ugot, NULL), uwrc = ref_u64(copy, n, &uwant);
        same &= urc == uwrc && ugot == uwant;

        int64_t rgot = 7, rwant = wrc ? 7 : want;
        int rrc = ig_parse_int_range(copy, n, INT32_MIN, INT32_MAX, &rgot, NULL);
        int rwrc = wrc ? wrc : want < INT32_MIN || want > INT32_MAX ? -ERANGE : 0;
        if (rwrc) rwant = 7;
        same &= rrc == rwrc && rgot == rwant;

        uint64_t rugot = 7, ruwant = uwrc ? 7 : uwant;
        int rurc = ig_parse_uint_range(copy, n, 0, UINT32_MAX, &rugot, NULL);
        int ruwrc = uwrc ? uwrc : uwant > UINT32_MAX ? -ERANGE : 0;
        if (ruwrc) ruwant = 7;
        same &= rurc == ruwrc && rugot == ruwant;

        CHECK(same);
        if (!same)
            fprintf(stderr, "  '%.*s' (%zu bytes): i64 %d %lld want %d %lld; u64 %d want %d\n",
                    (int)n, text, n, rc, (long long)got, wrc, (long long)want, urc, uwrc);
        free(copy);
        if (!same) break;
    }
}

/* ---- floats -------------------------------------------------------------- */

static bool same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }
static bool same_bits_f(float a, float b) { return memcmp(&a, &b, sizeof a) == 0; }

static double f64(const char *s, int *rc)
{
    double v = 12345.0;
    *rc = ig_parse_f64(s, strlen(s), &v, NULL);
    return v;
}

static void test_f64_forms(void)
{
    int rc;
    CHECK(f64("1.5", &rc) == 1.5 && rc == 0);
    CHECK(f64("-2.25", &rc) == -2.25 && rc == 0);
    CHECK(f64("+3", &rc) == 3 && rc == 0);
    CHECK(f64(".5", &rc) == 0.5 && rc == 0);
    CHECK(f64("5.", &rc) == 5 && rc == 0);
    CHECK(f64("1e3", &rc) == 1000 && rc == 0);
    CHECK(f64("1E+3", &rc) == 1000 && rc == 0);
    CHECK(f64("25e-2", &rc) == 0.25 && rc == 0);
    CHECK(f64("007.5", &rc) == 7.5 && rc == 0);
    double z = f64("-0", &rc);
    CHECK(rc == 0 && z == 0 && signbit(z));
    z = f64("-0.0e10", &rc);
    CHECK(rc == 0 && z == 0 && signbit(z));
    z = f64("0", &rc);
    CHECK(rc == 0 && z == 0 && !signbit(z));
    CHECK(f64("1e400", &rc) == INFINITY && rc == 0);
    CHECK(f64("-1e400", &rc) == -INFINITY && rc == 0);
    CHECK(f64("1e-400", &rc) == 0 && rc == 0);
    CHECK(f64("1e99999999999999999999", &rc) == INFINITY && rc == 0);
    CHECK(f64("4.9406564584124654e-324", &rc) == 4.9406564584124654e-324 && rc == 0);
    CHECK(f64("1.7976931348623157e308", &rc) == DBL_MAX && rc == 0);
    CHECK(f64("2.2250738585072014e-308", &rc) == DBL_MIN && rc == 0);
    /* 19 and 20 significant digits (fast-path boundary). */
    CHECK(f64("1234567890123456789", &rc) == 1234567890123456789.0 && rc == 0);
    CHECK(f64("12345678901234567890", &rc) == 12345678901234567890.0 && rc == 0);
    CHECK(f64("0.000000000000000000000000000001", &rc) == 1e-30 && rc == 0);
    /* Longer than the on-stack copy in the slow path. */
    char big[400];
    memset(big, '0', sizeof big);
    big[0] = '1';
    big[1] = '.';
    big[399] = '\0';
    CHECK(f64(big, &rc) == 1.0 && rc == 0);
}

static void test_f64_specials(void)
{
    static const char *pinf[] = {"inf", "INF", "Inf", "+inf", "Infinity", "infinity",
                                 "INFINITY", "+Infinity", "iNfInItY"};
    static const char *ninf[] = {"-inf", "-Infinity", "-INF", "-infinity"};
    static const char *nan_[] = {"NaN", "nan", "NAN", "-nan", "+NaN"};
    int rc;
    for (size_t i = 0; i < sizeof pinf / sizeof *pinf; i++)
        CHECK(f64(pinf[i], &rc) == INFINITY && rc == 0);
    for (size_t i = 0; i < sizeof ninf / sizeof *ninf; i++)
        CHECK(f64(ninf[i], &rc) == -INFINITY && rc == 0);
    for (size_t i = 0; i < sizeof nan_ / sizeof *nan_; i++)
        CHECK(isnan(f64(nan_[i], &rc)) && rc == 0);
    float f;
    CHECK(ig_parse_f32(S("-Infinity"), &f, NULL) == 0 && f == -INFINITY);
    CHECK(ig_parse_f32(S("nan"), &f, NULL) == 0 && isnan(f));
}

static void test_f64_rejects(void)
{
    static const char *bad[] = {"",        ".",      "-",    "+",    "e5",     "1e",     "1e+",
                                "1e-",     "0x1p3",  "0x10", "1.2.3", " 1",    "1 ",     "1f",
                                "nan(1)",  "infinit", "infinityy", "--1", "1,5", "1e5.5", "..5",
                                "+-1",     "inff",   "na",   "1d5",  "1.5\n",
                                /* bytes next to the digits, inside and after 8-byte runs */
                                "12345678:", "1234567/8", "0.1234567:89", "123456789012345678:",
                                "1:", "/1", "12345678.123456789/", "1234567\x80",
                                "9999999999999999\xb9"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int rc;
        double v = f64(bad[i], &rc);
        if (rc != -EINVAL) fprintf(stderr, "  input \"%s\": rc %d\n", bad[i], rc);
        CHECK_EQ_INT(rc, -EINVAL);
        CHECK(v == 12345.0);
        float f = 7.0f;
        CHECK_EQ_INT(ig_parse_f32(bad[i], strlen(bad[i]), &f, NULL), -EINVAL);
        CHECK(f == 7.0f);
    }
    /* The embedded NUL case, with its real length. */
    double v;
    CHECK_EQ_INT(ig_parse_f64("1\0", 2, &v, NULL), -EINVAL);
    struct ig_error e = {0};
    CHECK_EQ_INT(ig_parse_f64(S("0x1p3"), &v, &e), -EINVAL);
    CHECK_EQ_STR(e.msg, "invalid number \"0x1p3\"");
}

/* Shortest representation that round-trips through strtod. */
static int shortest(char *buf, size_t cap, double d)
{
    for (int prec = 1; prec <= 17; prec++) {
        int n = snprintf(buf, cap, "%.*g", prec, d);
        if (strtod(buf, NULL) == d) return n;
    }
    return snprintf(buf, cap, "%.17g", d);
}

static void test_f64_roundtrip_vs_strtod(void)
{
    uint64_t s = check_seed;
    char buf[64];
    int mismatches = 0;
    for (int i = 0; i < 200000 && mismatches < 5; i++) {
        uint64_t bits = test_rand(&s);
        double d;
        memcpy(&d, &bits, sizeof d);
        if (!isfinite(d)) continue;
        for (int form = 0; form < 3; form++) {
            int n = form == 0   ? snprintf(buf, sizeof buf, "%.17g", d)
                    : form == 1 ? shortest(buf, sizeof buf, d)
                                : snprintf(buf, sizeof buf, "%.25e", d);
            double v;
            REQUIRE(ig_parse_f64(buf, (size_t)n, &v, NULL) == 0);
            if (!same_bits(v, d) || !same_bits(v, strtod(buf, NULL))) {
                fprintf(stderr, "  %s -> %.17g\n", buf, v);
                mismatches++;
            }
        }
    }
    CHECK_EQ_INT(mismatches, 0);
}

/* Random short decimals: the fast path's territory, where a wrong power of
 * ten or a double-rounding mistake would show up. */
static void test_decimals_vs_strtod(void)
{
    uint64_t s = check_seed ^ 0x5555;
    char buf[64];
    int mismatches = 0;
    for (int i = 0; i < 300000 && mismatches < 5; i++) {
        uint64_t m = test_rand_wide(&s);
        int digits = snprintf(buf, sizeof buf, "%" PRIu64, m);
        int n = digits;
        /* Put a decimal point somewhere, maybe an exponent. */
        int dot = (int)(test_rand(&s) % (uint64_t)(digits + 2));
        if (dot <= digits) {
            memmove(buf + dot + 1, buf + dot, (size_t)(n - dot + 1));
            buf[dot] = '.';
            n++;
        }
        if (test_rand(&s) % 3 == 0)
            n += snprintf(buf + n, sizeof buf - (size_t)n, "e%d",
                          (int)(test_rand(&s) % 80) - 40);
        if (test_rand(&s) & 1) {
            memmove(buf + 1, buf, (size_t)n + 1);
            buf[0] = '-';
            n++;
        }
        if (strcmp(buf, ".") == 0 || strcmp(buf, "-.") == 0 || buf[0] == 'e' ||
            strncmp(buf, "-e", 2) == 0 || strncmp(buf, ".e", 2) == 0 || strncmp(buf, "-.e", 3) == 0)
            continue;
        double v, ref = strtod(buf, NULL);
        float fv, fref = strtof(buf, NULL);
        REQUIRE(ig_parse_f64(buf, (size_t)n, &v, NULL) == 0);
        REQUIRE(ig_parse_f32(buf, (size_t)n, &fv, NULL) == 0);
        if (!same_bits(v, ref) || !same_bits_f(fv, fref)) {
            fprintf(stderr, "  %s -> %.17g (strtod %.17g), %.9g (strtof %.9g)\n", buf, v, ref,
                    (double)fv, (double)fref);
            mismatches++;
        }
    }
    CHECK_EQ_INT(mismatches, 0);
}

static void test_f32_roundtrip_vs_strtof(void)
{
    uint64_t s = check_seed ^ 0xF32;
    char buf[64];
    int mismatches = 0;
    for (int i = 0; i < 200000 && mismatches < 5; i++) {
        uint32_t bits = (uint32_t)test_rand(&s);
        float f;
        memcpy(&f, &bits, sizeof f);
        if (!isfinite(f)) continue;
        int n = snprintf(buf, sizeof buf, (i & 1) ? "%.9g" : "%.6g", (double)f);
        float v;
        REQUIRE(ig_parse_f32(buf, (size_t)n, &v, NULL) == 0);
        if (!same_bits_f(v, strtof(buf, NULL))) {
            fprintf(stderr, "  %s -> %.9g\n", buf, (double)v);
            mismatches++;
        }
    }
    CHECK_EQ_INT(mismatches, 0);
    /* A decimal that rounds differently through double than directly to
     * float: 1 + 2^-24 + 2^-60 (just above a float halfway point). Rounding
     * to double first lands exactly on the halfway point, which then rounds
     * to even (1.0f); the correct float is the next one up. */
    const char *t = "1.00000005960464477539930365700";
    float v;
    REQUIRE(ig_parse_f32(t, strlen(t), &v, NULL) == 0);
    CHECK(same_bits_f(v, strtof(t, NULL)));
    CHECK(v > 1.0f);
}

/* Halfway cases in the exact-integer path (up to 19 digits, |e10| <= 19),
 * where rounding must go to even, and one unit past them. */
static void test_float_ties(void)
{
    static const char *cases[] = {
        "90071992547409930e-1", "90071992547409931e-1", "90071992547409950e-1",
        "9007199254740993000e-3", "9007199254740993001e-3", "18014398509481985e0",
        "1801439850948198500e-2", "1801439850948198501e-2", "4503599627370497e1",
        "167772170e-1", "167772171e-1", "167772190e-1", "3355443300e-2", "3355443299e-2",
        "1.7976931348623157e308", "2.2250738585072011e-308", "0.30000000000000004",
        "123456789012345678e-19", "9999999999999999999e19", "1e-19", "1e19",
        "7.038531e-26", "3.4028235e38", "3.4028236e38", "1.17549435e-38", "1.4e-45",
        "7.0e-46", "0.1", "0.2", "0.3", "2.5", "16777217", "16777219",
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *c = cases[i];
        double v;
        float f;
        REQUIRE(ig_parse_f64(c, strlen(c), &v, NULL) == 0);
        REQUIRE(ig_parse_f32(c, strlen(c), &f, NULL) == 0);
        if (!same_bits(v, strtod(c, NULL)) || !same_bits_f(f, strtof(c, NULL))) {
            fprintf(stderr, "  %s -> %.17g / %.9g\n", c, v, (double)f);
            check_failures++;
        }
    }
    double v;
    CHECK(ig_parse_f64(S("90071992547409930e-1"), &v, NULL) == 0 && v == 9007199254740992.0);
    CHECK(ig_parse_f64(S("90071992547409931e-1"), &v, NULL) == 0 && v == 9007199254740994.0);
    float f;
    CHECK(ig_parse_f32(S("167772170e-1"), &f, NULL) == 0 && f == 16777216.0f);
    CHECK(ig_parse_f32(S("167772171e-1"), &f, NULL) == 0 && f == 16777218.0f);
}

/* ---- floats against the C library --------------------------------------- */

/* The reference every float text is held to: strtod_l/strtof_l in "C". */
static locale_t c_locale(void)
{
    static locale_t c;
    if (c == (locale_t)0) c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    return c;
}

struct vs_libc {
    long checked;
    int mismatches;
};

/* s through ig_parse_f64 and ig_parse_f32, from a heap copy of exactly its
 * length (so ASan catches a read past the field): both must return the C
 * library's bits. */
static void vs_libc(struct vs_libc *t, const char *s)
{
    size_t n = strlen(s);
    char *end;
    double ref = strtod_l(s, &end, c_locale());
    float fref = strtof_l(s, NULL, c_locale());
    char *field = malloc(n ? n : 1);
    if (!field) abort();
    memcpy(field, s, n);
    double v = 0;
    float f = 0;
    int rc = ig_parse_f64(field, n, &v, NULL), rcf = ig_parse_f32(field, n, &f, NULL);
    free(field);
    t->checked++;
    if (*end || rc || rcf || !same_bits(v, ref) || !same_bits_f(f, fref)) {
        if (t->mismatches < 8)
            fprintf(stderr, "  \"%s\": %d %.17g (strtod_l %.17g), %d %.9g (strtof_l %.9g)\n", s, rc,
                    v, ref, rcf, (double)f, (double)fref);
        t->mismatches++;
    }
}

/* Doubles of several kinds: any finite bit pattern, uniform in [0, 1) the way
 * Python's random() makes them (17-digit reprs), and such scaled by a power
 * of ten. */
static double random_double(uint64_t *s)
{
    uint64_t r = test_rand(s);
    double d;
    switch (r % 3) {
    case 0:
        r = test_rand(s);
        if ((r >> 52 & 0x7ff) == 0x7ff) r ^= 1ULL << 62; /* not inf or NaN */
        memcpy(&d, &r, sizeof d);
        return d;
    case 1:
        return (double)(test_rand(s) >> 11) * 0x1p-53;
    default:
        d = (double)(test_rand(s) >> 11) * 0x1p-53;
        return d * pow(10, (double)(test_rand(s) % 60) - 30);
    }
}

/* What printf and the shortest formatter make of random doubles and floats:
 * %.17g, %.15g, %.Ng for N in 1..20, the shortest round trip, %.Ne. */
static void test_float_printf_forms_vs_libc(void)
{
    uint64_t s = check_seed ^ 0x9f1;
    struct vs_libc t = {0};
    char buf[96];
    for (int i = 0; i < 40000 && t.mismatches < 8; i++) {
        double d = random_double(&s);
        if (test_rand(&s) & 1) d = -d;
        snprintf(buf, sizeof buf, "%.17g", d);
        vs_libc(&t, buf);
        snprintf(buf, sizeof buf, "%.15g", d);
        vs_libc(&t, buf);
        snprintf(buf, sizeof buf, "%.*g", 1 + (int)(test_rand(&s) % 20), d);
        vs_libc(&t, buf);
        snprintf(buf, sizeof buf, "%.*e", (int)(test_rand(&s) % 22), d);
        vs_libc(&t, buf);
        shortest(buf, sizeof buf, d);
        vs_libc(&t, buf);
        uint32_t fb = (uint32_t)test_rand(&s);
        float f;
        memcpy(&f, &fb, sizeof f);
        if (!isfinite(f)) continue;
        snprintf(buf, sizeof buf, "%.*g", 1 + (int)(test_rand(&s) % 12), (double)f);
        vs_libc(&t, buf);
    }
    CHECK_EQ_INT(t.mismatches, 0);
}

/* A random decimal text: 1..25 digits, sometimes mostly zeros or nines
 * (where carries and near-ties are), leading zeros, a point anywhere or none,
 * a sign, an exponent small or wide. */
static void random_decimal(uint64_t *s, char *buf)
{
    size_t o = 0;
    uint64_t r = test_rand(s);
    if (r & 1) buf[o++] = (r & 2) ? '-' : '+';
    int zeros = (r >> 2) % 4 == 0 ? (int)((r >> 4) % 6) : 0;
    int nd = 1 + (int)((r >> 8) % 25), style = (int)((r >> 16) % 4);
    char digits[40];
    int total = 0;
    while (total < zeros) digits[total++] = '0';
    for (int k = 0; k < nd; k++) {
        uint64_t x = test_rand(s);
        char c = (char)('0' + x % 10);
        if (style == 1 && x % 16 >= 4) c = '0';
        if (style == 2 && x % 16 >= 4) c = '9';
        if (style == 3 && k > 0 && x % 16 >= 6) c = digits[total - 1];
        digits[total++] = c;
    }
    int dot = (int)(test_rand(s) % (uint64_t)(total + 2)); /* total + 1: no point */
    for (int k = 0; k < total; k++) {
        if (k == dot) buf[o++] = '.';
        buf[o++] = digits[k];
    }
    if (dot == total) buf[o++] = '.';
    r = test_rand(s);
    if (r % 3 == 1)
        o += (size_t)sprintf(buf + o, "%s%d", (r & 8) ? "e" : "E", (int)((r >> 4) % 51) - 25);
    else if (r % 3 == 2) {
        int e = (int)((r >> 4) % 801) - 400;
        o += (size_t)sprintf(buf + o, "e%s%d", (r & 8) && e >= 0 ? "+" : "", e);
    }
    buf[o] = '\0';
}

static void test_float_digit_strings_vs_libc(void)
{
    uint64_t s = check_seed ^ 0xd161;
    struct vs_libc t = {0};
    char buf[96];
    for (int i = 0; i < 300000 && t.mismatches < 8; i++) {
        random_decimal(&s, buf);
        vs_libc(&t, buf);
    }
    CHECK_EQ_INT(t.mismatches, 0);
}

/* n * 10^-k, written "NeK" and, when k > 0, with the point inside n. */
static void two_forms(struct vs_libc *t, uint64_t n, int k)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%" PRIu64 "e%d", n, -k);
    vs_libc(t, buf);
    int len = snprintf(buf, sizeof buf, "%" PRIu64, n);
    if (k > 0 && k < len) {
        memmove(buf + len - k + 1, buf + len - k, (size_t)k + 1);
        buf[len - k] = '.';
        vs_libc(t, buf);
    }
}

/* The exact decimal of x (at most 800 digits after the first), trailing
 * zeros of the digits removed: "d.ddde-308". */
static void exact_decimal(char *buf, size_t cap, long double x)
{
    int len = snprintf(buf, cap, "%.800Le", x);
    char *e = strchr(buf, 'e');
    char *z = e;
    while (z[-1] == '0') z--;
    if (z[-1] == '.') z--;
    memmove(z, e, (size_t)(buf + len - e) + 1);
}

/* Decimals exactly halfway between two neighbouring doubles (or floats),
 * which must round to the even one, and a hair either side of them. Short
 * ones first (up to 21 digits, small exponents: the fast and exact paths'
 * territory), then long exact expansions from all over the range. */
static void test_float_midpoints_vs_libc(void)
{
    uint64_t s = check_seed ^ 0x3a1f;
    struct vs_libc t = {0};
    static const uint64_t pow5[] = {1, 5, 25, 125, 625, 3125, 15625, 78125, 390625, 1953125,
                                    9765625};
    for (int i = 0; i < 30000 && t.mismatches < 8; i++) {
        /* double: (2c + 1) * 2^q with a 53-bit c; float: a 24-bit c */
        bool f32 = i & 1;
        uint64_t c =
            f32 ? (1u << 23) | (test_rand(&s) >> 41) : (1ULL << 52) | (test_rand(&s) >> 12);
        uint64_t odd = 2 * c + 1;
        int q = f32 ? (int)(test_rand(&s) % 41) - 10 : (int)(test_rand(&s) % 15) - 4;
        uint64_t n = q >= 0 ? odd << q : odd * pow5[-q]; /* < 2^64 */
        int k = q >= 0 ? 0 : -q;
        two_forms(&t, n, k);
        two_forms(&t, n - 1, k);
        two_forms(&t, n + 1, k);
        if (n <= UINT64_MAX / 10) two_forms(&t, n * 10 + 1, k + 1); /* 20 or 21 digits */
    }
    if (LDBL_MANT_DIG < 64) { /* the midpoints below are not long doubles */
        CHECK_EQ_INT(t.mismatches, 0);
        SKIP("long double cannot hold a double's midpoint");
    }
    char *buf = malloc(1024), *cut = malloc(1024);
    REQUIRE(buf && cut);
    for (int i = 0; i < 4000 && t.mismatches < 8; i++) {
        double d = fabs(random_double(&s));
        double up = nextafter(d, INFINITY);
        if (!isfinite(up)) continue;
        long double mid = ((long double)d + up) / 2;
        if (i & 1) { /* a float's midpoint instead, and the float itself */
            float f = (float)d, fup = nextafterf(f, INFINITY);
            if (!isfinite(fup)) continue;
            mid = ((long double)f + fup) / 2;
            d = f;
        }
        exact_decimal(buf, 1024, mid);
        vs_libc(&t, buf);
        /* a hair above: one more non-zero digit at the end */
        char *e = strchr(buf, 'e');
        size_t head = (size_t)(e - buf);
        snprintf(cut, 1024, "%.*s1%s", (int)head, buf, e);
        if (!strchr(cut, '.')) snprintf(cut, 1024, "%.*s.01%s", (int)head, buf, e);
        vs_libc(&t, cut);
        /* below: the first few digits only (a truncation of a midpoint with
         * more digits is below it) */
        size_t keep = 1 + (size_t)(test_rand(&s) % 30);
        if (keep < head) {
            snprintf(cut, 1024, "%.*s%s", (int)keep, buf, e);
            vs_libc(&t, cut);
        }
        exact_decimal(buf, 1024, d); /* a representable value, exactly */
        vs_libc(&t, buf);
    }
    free(buf);
    free(cut);
    CHECK_EQ_INT(t.mismatches, 0);
}

/* The edges of each tier: significands about 2^53 and 2^24 (Clinger's limit),
 * 19 and 20 significant digits (what fits m), e10 about +-10, +-19, +-22 and
 * the power table's ends, results about the normal and finite limits. */
static void test_float_fast_path_edges_vs_libc(void)
{
    uint64_t s = check_seed ^ 0xed9e;
    struct vs_libc t = {0};
    char buf[64];
    const uint64_t p53 = 1ULL << 53, p24 = 1u << 24;
    const uint64_t ms[] = {p53 - 2, p53 - 1, p53, p53 + 1, p53 + 2, p53 + 3, 2 * p53 - 1,
                           2 * p53 + 1, p24 - 1, p24, p24 + 1, p24 + 3, 1, 5, 9, 25,
                           1000000000000000000u, 999999999999999999u, 9999999999999999999u,
                           10000000000000000000u,
                           18446744073709551615u, 12345678901234567890u, 9007199254740993000u,
                           4611686018427387904u};
    const int es[] = {-326, -325, -324, -310, -309, -308, -307, -300, -294, -293, -292, -291,
                      -46, -45, -39, -38, -37, 37, 38, 39, 290, 291, 292, 293, 306, 307, 308,
                      309, 323, 324, 325};
    for (size_t i = 0; i < sizeof ms / sizeof *ms; i++) {
        for (int e = -26; e <= 26; e++) {
            snprintf(buf, sizeof buf, "%" PRIu64 "e%d", ms[i], e);
            vs_libc(&t, buf);
        }
        for (size_t j = 0; j < sizeof es / sizeof *es; j++) {
            snprintf(buf, sizeof buf, "%" PRIu64 "e%d", ms[i], es[j]);
            vs_libc(&t, buf);
        }
    }
    static const int near[] = {-23, -22, -21, -20, -19, -18, -17, -12, -11, -10, -9,
                               9,   10,  11,  12,  17,  18,  19,  20,  21,  22,  23};
    for (int i = 0; i < 100000 && t.mismatches < 8; i++) {
        uint64_t r = test_rand(&s);
        int digits = 1 + (int)(r % 20);
        uint64_t m = test_rand(&s) % (digits == 20 ? UINT64_MAX : (uint64_t)pow(10, digits));
        int e;
        switch (r >> 8 & 3) {
        case 0:
            e = near[(r >> 16) % (sizeof near / sizeof *near)];
            break;
        case 1: { /* about the smallest normal and largest finite double or float */
            static const int lim[] = {-308, 308, -38, 38};
            e = lim[(r >> 24) & 3] - digits + (int)((r >> 16) % 13) - 6;
            break;
        }
        case 2:
            e = (int)((r >> 16) % 41) - 20;
            break;
        default:
            e = (int)((r >> 16) % 700) - 350;
        }
        snprintf(buf, sizeof buf, "%s%" PRIu64 "e%d", (r >> 30) & 1 ? "-" : "", m, e);
        vs_libc(&t, buf);
    }
    CHECK_EQ_INT(t.mismatches, 0);
}

static void test_float_locale_independent(void)
{
    /* Locales with a decimal comma make strtod reject "1.5". Try a few; the
     * test is skipped where none is installed. */
    static const char *locs[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "ru_RU.UTF-8"};
    const char *ok = NULL;
    for (size_t i = 0; i < sizeof locs / sizeof *locs && !ok; i++)
        if (setlocale(LC_NUMERIC, locs[i])) ok = locs[i];
    if (!ok) SKIP("no decimal-comma locale installed");
    double v;
    /* 25 digits: forces the strtod_l slow path. */
    int rc = ig_parse_f64(S("1.500000000000000000000001"), &v, NULL);
    int rc2 = ig_parse_f64(S("1,5"), &v, NULL);
    setlocale(LC_NUMERIC, "C");
    CHECK(rc == 0 && v == 1.5);
    CHECK_EQ_INT(rc2, -EINVAL);
}

/* ---- bool / binary ------------------------------------------------------- */

static void test_bool(void)
{
    static const char *t[] = {"true", "TRUE", "True", "tRuE", "t", "T", "1"};
    static const char *f[] = {"false", "FALSE", "False", "f", "F", "0"};
    static const char *bad[] = {"", "yes", "no", "tr", "2", "true ", " true", "truex", "-1",
                                "on", "\x14", "\x11", "\x10", "00"};
    for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
        bool b = false;
        CHECK(ig_parse_bool(t[i], strlen(t[i]), &b, NULL) == 0 && b);
    }
    for (size_t i = 0; i < sizeof f / sizeof *f; i++) {
        bool b = true;
        CHECK(ig_parse_bool(f[i], strlen(f[i]), &b, NULL) == 0 && !b);
    }
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        bool b;
        CHECK_EQ_INT(ig_parse_bool(bad[i], strlen(bad[i]), &b, NULL), -EINVAL);
    }
}

static void test_hex_binary(void)
{
    struct ig_buf b = IG_BUF_INIT;
    CHECK(ig_parse_hex_binary(S("\\x"), &b, NULL) == 0 && b.len == 0);
    CHECK(ig_parse_hex_binary(S("\\x0a1B"), &b, NULL) == 0);
    CHECK(b.len == 2 && b.data[0] == 0x0a && b.data[1] == 0x1b);
    /* Appends. */
    CHECK(ig_parse_hex_binary(S("\\xFFff00"), &b, NULL) == 0);
    CHECK(b.len == 5 && b.data[2] == 0xff && b.data[3] == 0xff && b.data[4] == 0);
    static const char *bad[] = {"", "\\", "x0a", "0a", "\\X0a", "\\x0", "\\x0g", "\\xg0",
                                "\\x 0a", "\\x0a ", "\\\\x0a", "\\x0a0"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        CHECK_EQ_INT(ig_parse_hex_binary(bad[i], strlen(bad[i]), &b, NULL), -EINVAL);
        CHECK_EQ_INT(b.len, 5); /* restored */
    }
    struct ig_error e = {0};
    CHECK_EQ_INT(ig_parse_hex_binary(S("0a"), &b, &e), -EINVAL);
    CHECK(strstr(e.msg, "\\x prefix") != NULL);
    ig_buf_free(&b);
}

static void b64_encode(const uint8_t *p, size_t n, char *out)
{
    static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0, i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
        out[o++] = a[v >> 18];
        out[o++] = a[v >> 12 & 63];
        out[o++] = a[v >> 6 & 63];
        out[o++] = a[v & 63];
    }
    if (n - i == 1) {
        uint32_t v = (uint32_t)p[i] << 16;
        out[o++] = a[v >> 18];
        out[o++] = a[v >> 12 & 63];
        out[o++] = '=';
        out[o++] = '=';
    } else if (n - i == 2) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8;
        out[o++] = a[v >> 18];
        out[o++] = a[v >> 12 & 63];
        out[o++] = a[v >> 6 & 63];
        out[o++] = '=';
    }
    out[o] = '\0';
}

static void test_base64(void)
{
    /* RFC 4648 section 10 vectors. */
    static const char *enc[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
    static const char *dec[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    struct ig_buf b = IG_BUF_INIT;
    for (size_t i = 0; i < sizeof enc / sizeof *enc; i++) {
        ig_buf_reset(&b);
        CHECK(ig_base64_decode(enc[i], strlen(enc[i]), &b, NULL) == 0);
        CHECK(b.len == strlen(dec[i]) && (b.len == 0 || memcmp(b.data, dec[i], b.len) == 0));
    }
    CHECK(ig_base64_decode(S("+/+/"), &b, NULL) == 0);
    static const char *bad[] = {"Zg=",  "Zg",   "Z===", "====", "Zh==",  "Zm9=",    "Zg==Zg==",
                                "Zm9v\n", "Zm-v", "Zm_v", " Zm9v", "Zm9vY", "=Zm9", "Z=m9",
                                "Zm9vYmE", "Zm=v"};
    size_t before = b.len;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int rc = ig_base64_decode(bad[i], strlen(bad[i]), &b, NULL);
        if (rc != -EINVAL) fprintf(stderr, "  input \"%s\": rc %d\n", bad[i], rc);
        CHECK_EQ_INT(rc, -EINVAL);
        CHECK_EQ_INT(b.len, before);
    }
    /* Random round trips against a reference encoder. */
    uint64_t s = check_seed;
    uint8_t raw[64];
    char text[100];
    for (int it = 0; it < 20000; it++) {
        size_t n = test_rand(&s) % sizeof raw;
        for (size_t i = 0; i < n; i++)
            raw[i] = (uint8_t)test_rand(&s);
        b64_encode(raw, n, text);
        ig_buf_reset(&b);
        REQUIRE(ig_base64_decode(text, strlen(text), &b, NULL) == 0);
        CHECK(b.len == n && (n == 0 || memcmp(b.data, raw, n) == 0));
    }
    ig_buf_free(&b);
}

/* ---- utf8 ---------------------------------------------------------------- */

/* Reference: decode code points the slow, obvious way. */
static bool ref_utf8_valid(const uint8_t *p, size_t n)
{
    size_t i = 0;
    while (i < n) {
        uint32_t c = p[i], cp, min;
        size_t len;
        if (c < 0x80) {
            i++;
            continue;
        } else if ((c & 0xE0) == 0xC0) {
            len = 2, cp = c & 0x1F, min = 0x80;
        } else if ((c & 0xF0) == 0xE0) {
            len = 3, cp = c & 0x0F, min = 0x800;
        } else if ((c & 0xF8) == 0xF0) {
            len = 4, cp = c & 0x07, min = 0x10000;
        } else {
            return false;
        }
        if (n - i < len) return false;
        for (size_t k = 1; k < len; k++) {
            if ((p[i + k] & 0xC0) != 0x80) return false;
            cp = cp << 6 | (p[i + k] & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
        i += len;
    }
    return true;
}

static bool u8(const char *s) { return ig_utf8_valid((const uint8_t *)s, strlen(s)); }

static void test_utf8_cases(void)
{
    CHECK(ig_utf8_valid((const uint8_t *)"", 0));
    CHECK(u8("plain ascii text, long enough for the 8-byte fast path"));
    CHECK(u8("\xc2\x80"));             /* U+0080 */
    CHECK(u8("\xdf\xbf"));             /* U+07FF */
    CHECK(u8("\xe0\xa0\x80"));         /* U+0800 */
    CHECK(u8("\xed\x9f\xbf"));         /* U+D7FF */
    CHECK(u8("\xee\x80\x80"));         /* U+E000 */
    CHECK(u8("\xef\xbf\xbf"));         /* U+FFFF */
    CHECK(u8("\xf0\x90\x80\x80"));     /* U+10000 */
    CHECK(u8("\xf4\x8f\xbf\xbf"));     /* U+10FFFF */
    CHECK(u8("h\xc3\xa9llo w\xc3\xb6rld \xe2\x82\xac \xf0\x9f\x98\x80"));
    CHECK(!u8("\x80"));                /* stray continuation */
    CHECK(!u8("\xc0\x80"));            /* overlong NUL */
    CHECK(!u8("\xc1\xbf"));            /* overlong */
    CHECK(!u8("\xe0\x80\x80"));        /* overlong */
    CHECK(!u8("\xe0\x9f\xbf"));        /* overlong U+07FF */
    CHECK(!u8("\xf0\x80\x80\x80"));    /* overlong */
    CHECK(!u8("\xf0\x8f\xbf\xbf"));    /* overlong U+FFFF */
    CHECK(!u8("\xed\xa0\x80"));        /* U+D800 */
    CHECK(!u8("\xed\xbf\xbf"));        /* U+DFFF */
    CHECK(!u8("\xf4\x90\x80\x80"));    /* U+110000 */
    CHECK(!u8("\xf5\x80\x80\x80"));
    CHECK(!u8("\xff"));
    CHECK(!u8("\xe2\x82"));            /* truncated */
    CHECK(!u8("abcdefgh\xe2\x82"));    /* truncated after the fast path */
    CHECK(!u8("\xe2\x28\xa1"));
    CHECK(!u8("\xc3\xa9\xa9"));
    CHECK_EQ_INT(ig_utf8_valid_prefix((const uint8_t *)"abc\xc3\xa9\xff", 6), 5);
    uint8_t nul[3] = {'a', 0, 'b'};
    CHECK(ig_utf8_valid(nul, 3)); /* NUL is a valid code point */
}

static void test_utf8_random_vs_reference(void)
{
    uint64_t s = check_seed;
    uint8_t buf[32];
    int bad = 0;
    for (int it = 0; it < 500000; it++) {
        size_t n = test_rand(&s) % sizeof buf;
        for (size_t i = 0; i < n; i++) {
            uint64_t r = test_rand(&s);
            /* Bias towards interesting bytes: lead bytes and continuations. */
            buf[i] = (r & 3) == 0 ? (uint8_t)(0x80 | (r >> 8 & 0x3F))
                     : (r & 3) == 1 ? (uint8_t)(0xC0 | (r >> 8 & 0x3F))
                                    : (uint8_t)(r >> 8);
        }
        if (ig_utf8_valid(buf, n) != ref_utf8_valid(buf, n)) bad++;
    }
    CHECK_EQ_INT(bad, 0);
}

/* Mostly ASCII, as text is (the validator's 64-byte steps, util/utf8.c): an
 * ASCII run of 0..199 bytes, then a valid two- or three-byte character or a
 * bad byte, then more ASCII; the valid prefix ends exactly at the bad byte. */
static void test_utf8_ascii_runs(void)
{
    uint64_t s = check_seed ^ 0xA5C11;
    uint8_t buf[420];
    for (int it = 0; it < 20000; it++) {
        size_t a = test_rand(&s) % 200, b = test_rand(&s) % 200, n = 0;
        for (size_t i = 0; i < a; i++) buf[n++] = (uint8_t)(0x20 + test_rand(&s) % 0x5f);
        int kind = (int)(test_rand(&s) % 4);
        if (kind == 1) buf[n++] = 0xC3, buf[n++] = 0xA9;
        if (kind == 2) buf[n++] = 0xE2, buf[n++] = 0x82, buf[n++] = 0xAC;
        if (kind == 3) buf[n++] = 0xFF;
        for (size_t i = 0; i < b; i++) buf[n++] = (uint8_t)(0x20 + test_rand(&s) % 0x5f);
        size_t want = kind == 3 ? a : n;
        if (ig_utf8_valid_prefix(buf, n) != want) {
            fprintf(stderr, "  %zu ASCII, kind %d, %zu ASCII: prefix %zu, want %zu\n", a, kind, b,
                    ig_utf8_valid_prefix(buf, n), want);
            check_failures++;
            break;
        }
    }
}

static void test_utf8_encode(void)
{
    uint8_t out[4];
    static const uint32_t cps[] = {0,      0x7F,   0x80,    0x7FF,    0x800,   0xD7FF,
                                   0xE000, 0xFFFF, 0x10000, 0x10FFFF, 0x1F600, 0xFEFF};
    for (size_t i = 0; i < sizeof cps / sizeof *cps; i++) {
        size_t n = ig_utf8_encode(cps[i], out);
        CHECK(n >= 1 && n <= 4);
        CHECK(ig_utf8_valid(out, n));
        CHECK(n == (cps[i] < 0x80 ? 1u : cps[i] < 0x800 ? 2u : cps[i] < 0x10000 ? 3u : 4u));
    }
    CHECK(ig_utf8_encode(0x20AC, out) == 3 && memcmp(out, "\xe2\x82\xac", 3) == 0);
    CHECK_EQ_INT(ig_utf8_encode(0xD800, out), 0);
    CHECK_EQ_INT(ig_utf8_encode(0xDFFF, out), 0);
    CHECK_EQ_INT(ig_utf8_encode(0x110000, out), 0);
    /* Every scalar value round-trips through the validator. */
    int bad = 0;
    for (uint32_t cp = 0; cp <= 0x10FFFF; cp++) {
        size_t n = ig_utf8_encode(cp, out);
        bool surrogate = cp >= 0xD800 && cp <= 0xDFFF;
        if (surrogate ? n != 0 : (n == 0 || !ig_utf8_valid(out, n))) bad++;
    }
    CHECK_EQ_INT(bad, 0);
}

TEST_MAIN(T(test_i64_boundaries), T(test_i64_syntax), T(test_u64_boundaries), T(test_int_range),
          T(test_int_messages), T(test_int_random_roundtrip), T(test_int_random_vs_reference), T(test_f64_forms),
          T(test_f64_specials), T(test_f64_rejects), T(test_f64_roundtrip_vs_strtod),
          T(test_decimals_vs_strtod), T(test_f32_roundtrip_vs_strtof), T(test_float_ties),
          T(test_float_printf_forms_vs_libc), T(test_float_digit_strings_vs_libc),
          T(test_float_midpoints_vs_libc), T(test_float_fast_path_edges_vs_libc),
          T(test_float_locale_independent), T(test_bool), T(test_hex_binary), T(test_base64),
          T(test_utf8_cases), T(test_utf8_random_vs_reference), T(test_utf8_ascii_runs), T(test_utf8_encode))
