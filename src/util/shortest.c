/* shortest.c - Schubfach for binary64 and binary32; see shortest.h.
 *
 * Notation (the paper's): v = c * 2^q with integer c. The rounding interval of
 * v runs from (c - 1/2) * 2^q to (c + 1/2) * 2^q, except for a power of two,
 * where the gap below is half the gap above: from (c - 1/4) * 2^q. Both ends
 * belong to it when c is even (a parser rounds a midpoint to the even
 * neighbour). With cb = 4c the bounds are cbl = cb - 2 (or cb - 1) and
 * cbr = cb + 2, all integers. k is chosen so that 10^k is at most the
 * interval's width; then s = floor(v / 10^k) and s + 1 bracket v, at least one
 * of them lies in the interval, and of the two multiples of 10 that bracket v
 * at most one does. The scaling by 10^-k uses g ~ 10^-k * 2^-r (126 bits);
 * rop() returns floor of the product with a sticky bit, which the paper shows
 * is enough to compare every candidate with the bounds exactly. */
#include "util/shortest.h"

#include <stdbool.h>
#include <string.h>

#include "util/shortest_table.h"

__extension__ typedef unsigned __int128 ig_u128;

static inline uint64_t mul_high(uint64_t a, uint64_t b)
{
    return (uint64_t)(((ig_u128)a * b) >> 64);
}

/* floor(e * log10(2)), floor(e * log10(3/4 * 2)) ... valid for |e| <= 5,456 */
static inline int flog10_pow2(int e)
{
    return (int)(((int64_t)e * 661971961083LL) >> 41);
}
static inline int flog10_three_quarters_pow2(int e)
{
    return (int)(((int64_t)e * 661971961083LL - 274743187321LL) >> 41);
}
/* floor(e * log2(10)) for |e| <= 1,233 */
static inline int flog2_pow10(int e)
{
    return (int)(((int64_t)e * 913124641741LL) >> 38);
}

/* (g1 * 2^63 + g0) * cp / 2^127 times 2^63, as round_odd_product takes it:
 * without the low 64 bits of g0 * cp and the last bit of g1 * cp, so less
 * than 1.5 below the exact product (g0 < 2^63: no carry out of 128 bits). */
static inline ig_u128 fine_product(uint64_t g1, uint64_t g0, uint64_t cp)
{
    return (((ig_u128)g1 * cp) >> 1) + mul_high(g0, cp);
}

/* floor((g1 * 2^63 + g0) * cp / 2^127), with bit 0 set when the division was
 * not exact (the sticky bit that keeps comparisons with it exact). */
static inline uint64_t round_odd_product(uint64_t g1, uint64_t g0, uint64_t cp)
{
    ig_u128 z = fine_product(g1, g0, cp);
    return (uint64_t)(z >> 63) | ((uint64_t)z << 1 != 0);
}

static inline void strip_zeros(uint64_t *d, int *e)
{
    while (*d % 10 == 0) {
        *d /= 10;
        (*e)++;
    }
}

/* Trailing decimal zeros of d > 0: d is a multiple of 10 when it is even and
 * d * 5^-1 (mod 2^64) is at most (2^64 - 1) / 5, one multiplication a step. */
static inline int trailing_zeros10(uint64_t d)
{
    int z = 0;
    for (;;) {
        uint64_t fifth = d * 0xcccccccccccccccdu;
        if ((d & 1) || fifth > 0x3333333333333333u) return z;
        d = fifth >> 1;
        z++;
    }
}

/* The shape of digits d * 10^k: significant digits once trailing zeros go, and
 * the power of ten of the first. */
static inline void shape_of(uint64_t d, int k, int *ndigits, int *first)
{
    int n = ig_u64_digit_count(d);
    *ndigits = n - trailing_zeros10(d);
    *first = k + n - 1;
}

/* From v's scaled value vb and interval bounds vbl, vbr (all times 4, with
 * sticky bits; `out` 1 when the bounds are excluded): the digits of the
 * shortest decimal in the interval, the nearer of two (a tie to even). */
static uint64_t pick_digits(uint64_t vb, uint64_t vbl, uint64_t vbr, uint64_t out)
{
    uint64_t s = vb >> 2;
    /* one digit fewer: the multiples of ten either side of v */
    uint64_t sp10 = s / 10 * 10, tp10 = sp10 + 10;
    int upin = vbl + out <= sp10 << 2, wpin = (tp10 << 2) + out <= vbr;
    if (upin != wpin) return upin ? sp10 : tp10;
    uint64_t t = s + 1;
    int uin = vbl + out <= s << 2, win = (t << 2) + out <= vbr;
    if (uin != win) return uin ? s : t;
    int64_t cmp = (int64_t)(vb - ((s + t) << 1)); /* both in: the nearer */
    return cmp < 0 || (cmp == 0 && (s & 1) == 0) ? s : t;
}

/* pick_digits' shape without its digits, from whether the multiples of ten
 * either side of s, sp10 and sp10 + 10, lie in the interval. When neither
 * does, the answer is s or s + 1 and neither ends in 0 (it would be one of
 * those multiples), so both have s's digit count (s + 1 has one more only
 * when it is a power of ten, a multiple of ten): no nearest to choose, no
 * zeros to strip. */
static void shape_from(uint64_t s, uint64_t sp10, int upin, int wpin, int k, int *ndigits, int *first)
{
    if (upin != wpin) {
        shape_of(upin ? sp10 : sp10 + 10, k, ndigits, first);
        return;
    }
    *ndigits = ig_u64_digit_count(s);
    *first = k + *ndigits - 1;
}

static void pick_shape(uint64_t vb, uint64_t vbl, uint64_t vbr, uint64_t out, int k, int *ndigits, int *first)
{
    uint64_t s = vb >> 2;
    uint64_t sp10 = s / 10 * 10, tp10 = sp10 + 10;
    int upin = vbl + out <= sp10 << 2, wpin = (tp10 << 2) + out <= vbr;
    shape_from(s, sp10, upin, wpin, k, ndigits, first);
}

/* The rounding interval of c * 2^q, times 4 (see the top), and the k whose
 * 10^k is at most its width. */
struct interval {
    uint64_t cb, cbl, cbr, out;
    int k;
};

static struct interval interval_of(int q, uint64_t c, int lower_half_gap)
{
    struct interval iv = {.cb = c << 2, .out = c & 1};
    iv.cbr = iv.cb + 2;
    iv.cbl = lower_half_gap ? iv.cb - 1 : iv.cb - 2;
    iv.k = lower_half_gap ? flog10_three_quarters_pow2(q) : flog10_pow2(q);
    return iv;
}

/* c * 2^q when it is an integer below 2^p (0 < -q < p): its own digits are
 * the shortest. */
static int is_small_integer(int q, uint64_t c, int p)
{
    return q < 0 && q > -p && (c >> -q) << -q == c;
}

static int integer_digits(int q, uint64_t c, int p, uint64_t *digits, int *exp10)
{
    if (!is_small_integer(q, c, p)) return 0;
    *digits = c >> -q;
    *exp10 = 0;
    strip_zeros(digits, exp10);
    return 1;
}

/* v's interval scaled by 10^-k: vb, vbl, vbr as pick_digits takes them. */
struct scaled {
    uint64_t vb, vbl, vbr, out;
    int k;
};

static struct scaled scale64(int q, uint64_t c, int lower_half_gap)
{
    struct interval iv = interval_of(q, c, lower_half_gap);
    int h = q + flog2_pow10(-iv.k) + 2;
    const uint64_t *g = ig_shortest_g[iv.k - IG_SHORTEST_K_MIN];
    return (struct scaled){.vb = round_odd_product(g[0], g[1], iv.cb << h),
                           .vbl = round_odd_product(g[0], g[1], iv.cbl << h),
                           .vbr = round_odd_product(g[0], g[1], iv.cbr << h),
                           .out = iv.out,
                           .k = iv.k};
}

/* A double as c * 2^q: subnormals have c = t, q = -1074 and even gaps. */
static void split64(double v, uint64_t *c, int *q, int *lower_half_gap)
{
    uint64_t bits;
    memcpy(&bits, &v, 8);
    uint64_t t = bits & ((1ull << 52) - 1);
    int bq = (int)((bits >> 52) & 0x7ff);
    *c = bq ? (1ull << 52) | t : t;
    *q = bq ? bq - 1075 : -1074;
    *lower_half_gap = bq > 1 && t == 0;
}

void ig_shortest_f64(double v, uint64_t *digits, int *exp10)
{
    uint64_t c;
    int q, lower;
    split64(v, &c, &q, &lower);
    if (integer_digits(q, c, 53, digits, exp10)) return;
    struct scaled sc = scale64(q, c, lower);
    *digits = pick_digits(sc.vb, sc.vbl, sc.vbr, sc.out);
    *exp10 = sc.k;
    strip_zeros(digits, exp10);
}

/* pick_shape's answer for c * 2^q from vb's product alone, but for the few
 * values with an end of their interval within a hair of a multiple of ten
 * (those take all three products, as scale64 makes them).
 *
 * pick_shape asks whether vbl + out <= N = 4 * sp10 and whether
 * 4 * tp10 + out <= vbr. vbl is the fine product F of cbl << h
 * (fine_product) cut to an integer with a sticky bit, and N is even, so the
 * first holds exactly when F < N, whatever out, unless F is N itself; the
 * second, likewise, exactly when vbr's fine product is above 4 * tp10. Those
 * two fine products need no multiplication: cbl << h and cbr << h are
 * cb << h less (cb - cbl) << h and plus 2 << h, and g times a power of two is
 * g shifted, so they are z less dl and z plus dr, g's top word shifted, to
 * within 3 units of 2^-63 (what each product leaves out, and the shift).
 * Counted in units of 2^-55 from N (r, below 40 << 55, fits in 64 bits), a
 * bound more than 4 units from N or 4 * tp10 lies on the same side of it as
 * its exact fine product (the cuts to whole units err by less than 2).
 * Within 4 the exact products decide: about one double in 2,000 of random
 * bits, none of 20 million uniform doubles, but often integers above 2^53
 * (test_shortest.c, test_f64_shape_equals_digits, takes all of them). */
static void shape64(int q, uint64_t c, int lower_half_gap, int *ndigits, int *first)
{
    struct interval iv = interval_of(q, c, lower_half_gap);
    int h = q + flog2_pow10(-iv.k) + 2; /* 2..5 */
    const uint64_t *g = ig_shortest_g[iv.k - IG_SHORTEST_K_MIN];
    ig_u128 z = fine_product(g[0], g[1], iv.cb << h);
    uint64_t s = (uint64_t)(z >> 65); /* vb >> 2 */
    uint64_t sp10 = s / 10 * 10;
    uint64_t r = (uint64_t)((z - ((ig_u128)sp10 << 65)) >> 8);
    uint64_t dr = g[0] >> (8 - h), dl = lower_half_gap ? dr >> 1 : dr;
    const uint64_t ten = 40ull << 55;
    bool near = r - dl + 4 <= 8 || r + dr - ten + 4 <= 8; /* within 4 units, either side */
    if (near) {
        uint64_t vb = round_odd_product(g[0], g[1], iv.cb << h);
        uint64_t vbl = round_odd_product(g[0], g[1], iv.cbl << h);
        uint64_t vbr = round_odd_product(g[0], g[1], iv.cbr << h);
        pick_shape(vb, vbl, vbr, iv.out, iv.k, ndigits, first);
        return;
    }
    shape_from(s, sp10, r < dl, r + dr > ten, iv.k, ndigits, first);
}

/* Not inlined (into ig_shortest_f64_shape_guided): its registers would be
 * saved on every call of the guided path, whose decimals need none of them. */
__attribute__((noinline)) void ig_shortest_f64_shape(double v, int *ndigits, int *first)
{
    uint64_t c;
    int q, lower;
    split64(v, &c, &q, &lower);
    if (is_small_integer(q, c, 53)) {
        shape_of(c >> -q, 0, ndigits, first);
        return;
    }
    shape64(q, c, lower, ndigits, first);
}

/* 10^0 .. 10^15, each exact as a double */
static const double pow10_f64[16] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};

void ig_shortest_f64_shape_guided(double v, int *places, int *ndigits, int *first)
{
    int p = *places;
    if (p >= 0 && p <= 15) {
        double scaled = v * pow10_f64[p];
        if (scaled < 1e15) { /* m has at most 15 digits (false for NaN too) */
            uint64_t m = (uint64_t)(scaled + 0.5);
            /* m and 10^p are exact, so the quotient is m * 10^-p correctly
             * rounded: equal to v when that decimal reads back as v */
            if (m && (double)m / pow10_f64[p] == v) {
                shape_of(m, -p, ndigits, first);
                return;
            }
        }
    }
    ig_shortest_f64_shape(v, ndigits, first);
    int shown = *ndigits - 1 - *first; /* places after the point, when positive */
    *places = *ndigits <= 15 && shown <= 15 ? (shown > 0 ? shown : 0) : -1;
}

/* binary32: the top 63 bits of g suffice (the paper, section 9) */
static inline uint32_t round_odd_product32(uint64_t g, uint64_t cp)
{
    uint64_t x1 = mul_high(g, cp);
    uint64_t vbp = x1 >> 31;
    return (uint32_t)(vbp | (((x1 & 0xffffffffu) + 0xffffffffu) >> 32));
}

static struct scaled scale32(int q, uint64_t c, int lower_half_gap)
{
    struct interval iv = interval_of(q, c, lower_half_gap);
    int h = q + flog2_pow10(-iv.k) + 33;
    uint64_t g = ig_shortest_g[iv.k - IG_SHORTEST_K_MIN][0] + 1;
    return (struct scaled){.vb = round_odd_product32(g, iv.cb << h),
                           .vbl = round_odd_product32(g, iv.cbl << h),
                           .vbr = round_odd_product32(g, iv.cbr << h),
                           .out = iv.out,
                           .k = iv.k};
}

/* A float as c * 2^q: subnormals have c = t, q = -149 and even gaps. */
static void split32(float v, uint64_t *c, int *q, int *lower_half_gap)
{
    uint32_t bits;
    memcpy(&bits, &v, 4);
    uint32_t t = bits & ((1u << 23) - 1);
    int bq = (int)((bits >> 23) & 0xff);
    *c = bq ? (1u << 23) | t : t;
    *q = bq ? bq - 150 : -149;
    *lower_half_gap = bq > 1 && t == 0;
}

void ig_shortest_f32(float v, uint64_t *digits, int *exp10)
{
    uint64_t c;
    int q, lower;
    split32(v, &c, &q, &lower);
    if (integer_digits(q, c, 24, digits, exp10)) return;
    struct scaled sc = scale32(q, c, lower);
    *digits = pick_digits(sc.vb, sc.vbl, sc.vbr, sc.out);
    *exp10 = sc.k;
    strip_zeros(digits, exp10);
}

void ig_shortest_f32_shape(float v, int *ndigits, int *first)
{
    uint64_t c;
    int q, lower;
    split32(v, &c, &q, &lower);
    if (is_small_integer(q, c, 24)) {
        shape_of(c >> -q, 0, ndigits, first);
        return;
    }
    struct scaled sc = scale32(q, c, lower);
    pick_shape(sc.vb, sc.vbl, sc.vbr, sc.out, sc.k, ndigits, first);
}

static const char two_digits[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                    "8081828384858687888990919293949596979899";

size_t ig_u64_digits(char *out, uint64_t d)
{
    /* counted first, then written from the last digit back in place: a copy
     * from a local array of a length known only at run time is a call */
    size_t n = (size_t)ig_u64_digit_count(d);
    char *p = out + n;
    while (d >= 100) {
        unsigned r = (unsigned)(d % 100);
        d /= 100;
        p -= 2;
        memcpy(p, two_digits + 2 * r, 2);
    }
    if (d >= 10) {
        p -= 2;
        memcpy(p, two_digits + 2 * d, 2);
    } else {
        *--p = (char)('0' + d);
    }
    return n;
}
