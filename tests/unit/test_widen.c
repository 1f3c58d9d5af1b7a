/* Widening one scalar type into another (widen.h): which pairs widen, the
 * common type of two, and random values of every source type converted or
 * refused exactly as arithmetic in 128 bits says. */
#include "check.h"
#include "format/model/logical.h"
#include "format/model/schema.h"
#include "import/widen.h"
#include "util/buf.h"
#include "util/error.h"

#include <math.h>

static uint64_t rng;
static uint64_t check_rand(void)
{
    if (!rng) rng = check_seed | 1;
    return test_rand(&rng);
}

static struct ig_scalar plain(uint8_t type) { return (struct ig_scalar){.type = type}; }

static struct ig_scalar logical(const char *text)
{
    struct ig_scalar s = {0};
    char msg[128];
    const char *open = strchr(text, '(');
    size_t n = open ? (size_t)(open - text) : strlen(text);
    unsigned kind = ig_logical_kind_from_name(text, n);
    const char *args = open ? open + 1 : NULL;
    size_t an = open ? strlen(args) - 1 : 0;
    CHECK(ig_logical_from_args(kind, args, an, &s.lt, msg, sizeof msg) == 0);
    uint8_t q;
    ig_logical_storage(&s.lt, &s.type, &q);
    return s;
}

static struct ig_scalar named(const char *text)
{
    unsigned t = ig_type_from_name(text, strlen(text));
    return t ? plain((uint8_t)t) : logical(text);
}

static const char *text_of(const struct ig_scalar *s)
{
    static char out[64];
    struct ig_buf b = IG_BUF_INIT; /* as a schema spells it */
    if (s->lt.kind) CHECK(ig_logical_text(&s->lt, &b) == 0);
    else CHECK(ig_buf_append(&b, ig_type_info(s->type)->name, strlen(ig_type_info(s->type)->name)) == 0);
    snprintf(out, sizeof out, "%.*s", (int)b.len, (const char *)b.data);
    ig_buf_free(&b);
    return out;
}

/* from -> to: 0 refused, 1 widens with a check of each value, 2 widens exactly */
static void test_which_pairs_widen(void)
{
    static const struct {
        const char *from, *to;
        int how;
    } cases[] = {
        {"int8", "int16", 2}, {"int32", "int64", 2}, {"int64", "int32", 0}, {"uint8", "uint64", 2},
        {"uint16", "int32", 2}, {"uint32", "int32", 0}, {"int8", "uint64", 0}, {"uint64", "int64", 0},
        {"int16", "float32", 2}, {"int32", "float32", 1}, {"int32", "float64", 2}, {"uint32", "float64", 2},
        {"int64", "float64", 1}, {"uint64", "float64", 1}, {"float32", "float64", 2}, {"float64", "float32", 0},
        {"float16", "float32", 2}, {"float16", "float64", 2}, {"float32", "float16", 0}, {"int8", "float16", 0},
        {"float32", "int64", 0}, {"bool", "int8", 0}, {"string", "binary", 0}, {"int32", "string", 0},
        {"time(ms)", "time(us)", 2}, {"time(us)", "time(ns)", 1}, {"time(ns)", "time(us)", 0},
        {"timestamp(ms)", "timestamp(us)", 1}, {"timestamp(s)", "timestamp(ns)", 1},
        {"timestamp(us)", "timestamp(ms)", 0}, {"timestamp(ms, UTC)", "timestamp(us)", 0},
        {"timestamp(ms, UTC)", "timestamp(ns, UTC)", 1}, {"date", "timestamp(us)", 1},
        {"date", "timestamp(s)", 2}, {"date", "timestamp(ms)", 2}, {"date", "timestamp(ms, UTC)", 0},
        {"timestamp(s)", "date", 0}, {"date", "time(ms)", 0}, {"date", "int64", 0},
        {"decimal(9, 2)", "decimal(12, 4)", 2}, {"decimal(9, 2)", "decimal(10, 4)", 0},
        {"decimal(9, 4)", "decimal(9, 2)", 0}, {"decimal(18, 0)", "decimal(38, 10)", 2},
        {"int32", "decimal(18, 2)", 0}, {"decimal(9, 2)", "float64", 0}, {"uuid", "binary", 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        struct ig_scalar a = named(cases[k].from), b = named(cases[k].to);
        struct ig_widen w;
        bool ok = ig_widen_plan(&a, &b, &w);
        int how = !ok ? 0 : w.exact ? 2 : 1;
        if (how != cases[k].how) fprintf(stderr, "  %s -> %s: %d, not %d\n", cases[k].from, cases[k].to, how, cases[k].how);
        CHECK(how == cases[k].how);
        /* a type widens into itself, as it is */
        CHECK(ig_widen_plan(&a, &a, &w) && w.op == IG_WIDEN_NONE && w.exact);
    }
}

static void test_common_type(void)
{
    static const char *const cases[][3] = {
        {"int32", "int64", "int64"}, {"int32", "uint32", "int64"}, {"int8", "uint16", "int32"},
        {"uint8", "int8", "int16"}, {"int64", "uint64", NULL}, {"int64", "float64", "float64"},
        {"int16", "float32", "float32"}, {"int32", "float32", "float64"}, {"uint64", "float32", "float64"},
        {"float16", "float64", "float64"}, {"float16", "int8", "float32"}, {"string", "int64", NULL},
        {"timestamp(ms)", "timestamp(ns)", "timestamp(ns)"}, {"timestamp(ms)", "timestamp(ms, UTC)", NULL},
        {"time(ms)", "time(us)", "time(us)"}, {"decimal(9, 2)", "decimal(12, 4)", "decimal(12, 4)"},
        {"decimal(9, 2)", "decimal(6, 4)", "decimal(11, 4)"}, {"decimal(38, 0)", "decimal(10, 2)", NULL},
        {"decimal(17, 2)", "decimal(18, 10)", "decimal(25, 10)"}, {"date", "timestamp(us)", "timestamp(us)"},
        {"timestamp(ns)", "date", "timestamp(ns)"}, {"date", "timestamp(us, UTC)", NULL},
        {"bool", "int8", NULL},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        struct ig_scalar a = named(cases[k][0]), b = named(cases[k][1]), c, d;
        bool ok = ig_widen_common(&a, &b, &c), ok2 = ig_widen_common(&b, &a, &d);
        CHECK(ok == (cases[k][2] != NULL));
        CHECK(ok == ok2); /* in either order */
        if (!ok || !cases[k][2]) continue;
        if (strcmp(text_of(&c), cases[k][2])) fprintf(stderr, "  %s + %s: %s\n", cases[k][0], cases[k][1], text_of(&c));
        CHECK(!strcmp(text_of(&c), cases[k][2]));
        CHECK(!strcmp(text_of(&d), cases[k][2]));
        /* both widen into it, and it is a valid type */
        struct ig_widen w;
        CHECK(ig_widen_plan(&a, &c, &w) && ig_widen_plan(&b, &c, &w));
        CHECK(ig_logical_check(&c.lt, c.type, c.lt.kind == IG_LT_FLOAT16) == NULL);
    }
}

/* A random value of an integer type, as its lane (sign- or zero-extended),
 * edges often. */
static uint64_t random_lane(uint8_t type)
{
    const struct ig_type_info *ti = ig_type_info(type);
    unsigned bits = 8u * ti->width;
    uint64_t r = check_rand();
    switch (check_rand() % 6) {
    case 0: r = 0; break;
    case 1: r = ~(uint64_t)0; break;                      /* -1, or the largest */
    case 2: r = (uint64_t)1 << (check_rand() % bits); break; /* powers of two */
    case 3: r = ((uint64_t)1 << (check_rand() % bits)) + 1; break;
    default: break;
    }
    if (bits < 64) r &= ((uint64_t)1 << bits) - 1;
    if (ti->is_signed && bits < 64 && (r >> (bits - 1)) & 1) r |= ~(uint64_t)0 << bits;
    return r;
}

static __int128 lane_value(uint8_t type, uint64_t lane)
{
    return ig_type_info(type)->is_signed ? (__int128)(int64_t)lane : (__int128)lane;
}

/* integers into integers and floats: taken iff the target holds the value,
 * and then as that value */
static void test_integers_exactly_or_refused(void)
{
    static const uint8_t ints[] = {IG_T_INT8, IG_T_INT16, IG_T_INT32, IG_T_INT64,
                                   IG_T_UINT8, IG_T_UINT16, IG_T_UINT32, IG_T_UINT64};
    static const uint8_t targets[] = {IG_T_INT16, IG_T_INT32, IG_T_INT64, IG_T_UINT16,
                                      IG_T_UINT32, IG_T_UINT64, IG_T_FLOAT32, IG_T_FLOAT64};
    for (size_t a = 0; a < sizeof ints; a++)
        for (size_t b = 0; b < sizeof targets; b++) {
            struct ig_scalar from = plain(ints[a]), to = plain(targets[b]);
            struct ig_widen w;
            if (!ig_widen_plan(&from, &to, &w)) continue;
            for (int i = 0; i < 20000; i++) {
                uint64_t lane = random_lane(ints[a]), out = 0;
                __int128 x = lane_value(ints[a], lane);
                bool ok = ig_widen_lane(&w, lane, &out);
                if (w.exact) CHECK(ok);
                if (targets[b] == IG_T_FLOAT64) {
                    double d;
                    memcpy(&d, &out, 8);
                    long double want = (long double)x; /* 64-bit mantissa here: exact */
                    CHECK(ok == ((long double)(double)want == want && x < ((__int128)1 << 64)));
                    if (ok) CHECK((long double)d == want);
                } else if (targets[b] == IG_T_FLOAT32) {
                    float f;
                    uint32_t bits = (uint32_t)out;
                    memcpy(&f, &bits, 4);
                    long double want = (long double)x;
                    CHECK(ok == ((long double)(float)want == want));
                    if (ok) CHECK((long double)f == want);
                } else {
                    CHECK(ok);
                    CHECK(lane_value(targets[b], out) == x); /* the same value in the wider lane */
                }
            }
        }
    /* edges named */
    struct ig_widen w;
    struct ig_scalar i64 = plain(IG_T_INT64), u64 = plain(IG_T_UINT64), f64 = plain(IG_T_FLOAT64),
                     i32 = plain(IG_T_INT32), f32 = plain(IG_T_FLOAT32);
    uint64_t out;
    CHECK(ig_widen_plan(&i64, &f64, &w));
    CHECK(ig_widen_lane(&w, (uint64_t)1 << 53, &out));
    CHECK(!ig_widen_lane(&w, ((uint64_t)1 << 53) + 1, &out)); /* 2^53 + 1 never becomes 2^53 */
    CHECK(!ig_widen_lane(&w, (uint64_t)INT64_MAX, &out));      /* rounds to 2^63, out of range */
    CHECK(ig_widen_lane(&w, (uint64_t)INT64_MIN, &out));       /* -2^63 is a double */
    CHECK(ig_widen_plan(&u64, &f64, &w));
    CHECK(!ig_widen_lane(&w, UINT64_MAX, &out));
    CHECK(ig_widen_lane(&w, (uint64_t)1 << 63, &out));
    CHECK(ig_widen_plan(&i32, &f32, &w));
    CHECK(ig_widen_lane(&w, (uint64_t)(int64_t)-(1 << 24), &out));
    CHECK(!ig_widen_lane(&w, (1 << 24) + 1, &out));
}

static void test_floats_and_units(void)
{
    struct ig_widen w;
    struct ig_scalar f32 = plain(IG_T_FLOAT32), f64 = plain(IG_T_FLOAT64);
    CHECK(ig_widen_plan(&f32, &f64, &w));
    for (int i = 0; i < 100000; i++) {
        uint32_t bits = (uint32_t)check_rand();
        float f;
        memcpy(&f, &bits, 4);
        uint64_t out;
        double d;
        CHECK(ig_widen_lane(&w, bits, &out));
        memcpy(&d, &out, 8);
        CHECK(isnan(f) ? isnan(d) != 0 : d == (double)f && !signbit(d) == !signbit(f));
    }
    /* timestamps: ms into ns times 10^6, refused past ns's range (year 2262) */
    struct ig_scalar ms = named("timestamp(ms)"), ns = named("timestamp(ns)"), tms = named("time(ms)"),
                     tus = named("time(us)");
    CHECK(ig_widen_plan(&ms, &ns, &w) && w.op == IG_WIDEN_SCALE && w.digits == 6);
    for (int i = 0; i < 100000; i++) {
        int64_t x = (int64_t)check_rand() >> (check_rand() % 64);
        uint64_t out;
        __int128 want = (__int128)x * 1000000;
        bool fits = want >= INT64_MIN && want <= INT64_MAX;
        CHECK(ig_widen_lane(&w, (uint64_t)x, &out) == fits);
        if (fits) CHECK((int64_t)out == (int64_t)want);
    }
    uint64_t out;
    CHECK(ig_widen_lane(&w, (uint64_t)(int64_t)9223372036854LL, &out));   /* 2262-04-11 */
    CHECK(!ig_widen_lane(&w, (uint64_t)(int64_t)9223372036855LL, &out));  /* a millisecond later */
    CHECK(ig_widen_plan(&tms, &tus, &w) && w.exact);
    CHECK(ig_widen_lane(&w, (uint64_t)(int64_t)86399999, &out) && (int64_t)out == 86399999000LL);
    /* a date: its midnight; ns refused past 2262 */
    struct ig_scalar date = named("date"), ts_us = named("timestamp(us)");
    CHECK(ig_widen_plan(&date, &ts_us, &w) && w.op == IG_WIDEN_DAYS);
    CHECK(ig_widen_lane(&w, (uint64_t)(int64_t)-1, &out) && (int64_t)out == -86400000000LL);
    CHECK(ig_widen_lane(&w, 20000, &out) && (int64_t)out == 20000LL * 86400000000LL);
    CHECK(ig_widen_plan(&date, &ns, &w));
    CHECK(ig_widen_lane(&w, 106751, &out) && !ig_widen_lane(&w, 106752, &out)); /* 2262-04-11, 12 */
    /* decimals: the unscaled value times 10^(scale difference); 128 bits */
    struct ig_scalar d92 = named("decimal(9, 2)"), d124 = named("decimal(12, 4)"), d380 = named("decimal(38, 0)"),
                     d382 = named("decimal(38, 2)");
    __int128 u;
    CHECK(ig_widen_plan(&d92, &d124, &w) && w.digits == 2);
    CHECK(ig_widen_unscaled(&w, -12345, &u) && u == -1234500);
    CHECK(!ig_widen_plan(&d380, &d382, &w)); /* 38 digits left of the point do not fit 36 */
    struct ig_scalar d360 = named("decimal(36, 0)");
    CHECK(ig_widen_plan(&d360, &d382, &w) && w.digits == 2);
    __int128 big = (__int128)1 << 126;
    CHECK(!ig_widen_unscaled(&w, big, &u)); /* past 128 bits: refused, not wrapped */
}

/* ig_widen_union of two columns given as type texts: the union's text, or
 * NULL where no type holds both. */
static char *united(const char *a, const char *b)
{
    struct ig_schema sa = {0}, sb = {0};
    struct ig_error err;
    ig_err_clear(&err);
    CHECK(ig_schema_add_typed(&sa, "c", 1, a, strlen(a), &err) == 0 && ig_schema_finish(&sa, &err) == 0);
    CHECK(ig_schema_add_typed(&sb, "c", 1, b, strlen(b), &err) == 0 && ig_schema_finish(&sb, &err) == 0);
    struct ig_buf out = IG_BUF_INIT;
    bool ok;
    CHECK(ig_widen_union(&sa, 0, &sb, 0, &out, &ok) == 0);
    char *text = NULL;
    if (ok) {
        struct ig_schema su = {0}; /* the union is a type */
        CHECK(ig_schema_add_typed(&su, "c", 1, (const char *)out.data, out.len, &err) == 0);
        ig_schema_free(&su);
        text = strndup((const char *)out.data, out.len);
        CHECK(text);
    }
    ig_buf_free(&out);
    ig_schema_free(&sa);
    ig_schema_free(&sb);
    return text;
}

static void test_structs_united_by_name(void)
{
    static const char *const cases[][3] = {
        /* a field the second adds comes after the first's; one a side lacks may be NULL */
        {"struct<a:int32, b:string>", "struct<a:int32, c:float64>", "struct<a:int32, b:string?, c:float64?>"},
        {"struct<a:int32, c:float64>?", "struct<c:float64?, a:int64>", "struct<a:int64, c:float64>?"},
        /* inside lists, and deeper */
        {"list<struct<x:int32?, y:list<int32>>?>?", "list<struct<z:decimal(2, 1)?, x:int64?>?>?",
         "list<struct<x:int64?, y:list<int32>?, z:decimal(2, 1)?>?>?"},
        {"struct<s:struct<p:int32?>?, a:int32?>", "struct<a:int32?, s:struct<q:list<string?>?, p:int32?>?>",
         "struct<s:struct<p:int32?, q:list<string?>?>?, a:int32?>"},
        {"struct<\"a b\":int32>", "struct<\"a?\":int32>", "struct<\"a b\":int32?, \"a?\":int32?>"},
        {"struct<a:int32>", "struct<a:int32>", "struct<a:int32>"},
        /* no type holds both */
        {"struct<a:int32>", "struct<a:string>", NULL},
        {"struct<a:int32>", "struct<a:list<int32>>", NULL},
        {"struct<a:int32>", "list<struct<a:int32>>", NULL},
        {"struct<a:int32>", "int32", NULL},
        {"struct<a:int32, v:vector<float32, 4>>", "struct<a:int32>", NULL}, /* a vector cannot be NULL */
        {"struct<a:int64>", "struct<a:uint64>", NULL},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char *u = united(cases[k][0], cases[k][1]);
        if (!cases[k][2] ? u != NULL : !u || strcmp(u, cases[k][2])) {
            fprintf(stderr, "case %zu: %s + %s gave %s\n", k, cases[k][0], cases[k][1], u ? u : "(none)");
            CHECK(0);
        }
        free(u);
    }
}

TEST_MAIN(T(test_which_pairs_widen), T(test_structs_united_by_name), T(test_common_type), T(test_integers_exactly_or_refused),
          T(test_floats_and_units))
