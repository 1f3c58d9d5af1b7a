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

/* floor((g1 * 2^63 + g0) * cp / 2^127), with bit 0 set when the division was
 * not exact (the sticky bit that keeps comparisons with it exact). */
static inline uint64_t round_odd_product(uint64_t g1, uint64_t g0, uint64_t cp)
{
    uint64_t x1 = mul_high(g0, cp);
    ig_u128 y = (ig_u128)g1 * cp;
    uint64_t y0 = (uint64_t)y, y1 = (uint64_t)(y >> 64);
    uint64_t z = (y0 >> 1) + x1;
    uint64_t vbp = y1 + (z >> 63);
    return vbp | (((z & 0x7fffffffffffffffu) + 0x7fffffffffffffffu) >> 63);
}

static inline void strip_zeros(uint64_t *d, int *e)
{
    while (*d % 10 == 0) {
        *d /= 10;
        (*e)++;
    }
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
static int integer_digits(int q, uint64_t c, int p, uint64_t *digits, int *exp10)
{
    if (q >= 0 || q <= -p || (c >> -q) << -q != c) return 0;
    *digits = c >> -q;
    *exp10 = 0;
    strip_zeros(digits, exp10);
    return 1;
}

/* The shortest nearest decimal in the interval of c * 2^q (c >= 1). */
static void schubfach64(int q, uint64_t c, int lower_half_gap, uint64_t *digits, int *exp10)
{
    struct interval iv = interval_of(q, c, lower_half_gap);
    int h = q + flog2_pow10(-iv.k) + 2;
    const uint64_t *g = ig_shortest_g[iv.k - IG_SHORTEST_K_MIN];
    uint64_t vb = round_odd_product(g[0], g[1], iv.cb << h);
    uint64_t vbl = round_odd_product(g[0], g[1], iv.cbl << h);
    uint64_t vbr = round_odd_product(g[0], g[1], iv.cbr << h);
    *digits = pick_digits(vb, vbl, vbr, iv.out);
    *exp10 = iv.k;
    strip_zeros(digits, exp10);
}

void ig_shortest_f64(double v, uint64_t *digits, int *exp10)
{
    uint64_t bits;
    memcpy(&bits, &v, 8);
    uint64_t t = bits & ((1ull << 52) - 1);
    int bq = (int)((bits >> 52) & 0x7ff);
    if (bq == 0) { /* subnormal: c = t, q = -1074, even gaps */
        schubfach64(-1074, t, 0, digits, exp10);
        return;
    }
    uint64_t c = (1ull << 52) | t;
    int q = bq - 1075;
    if (integer_digits(q, c, 53, digits, exp10)) return;
    schubfach64(q, c, t == 0 && bq > 1, digits, exp10);
}

/* binary32: the top 63 bits of g suffice (the paper, section 9) */
static inline uint32_t round_odd_product32(uint64_t g, uint64_t cp)
{
    uint64_t x1 = mul_high(g, cp);
    uint64_t vbp = x1 >> 31;
    return (uint32_t)(vbp | (((x1 & 0xffffffffu) + 0xffffffffu) >> 32));
}

void ig_shortest_f32(float v, uint64_t *digits, int *exp10)
{
    uint32_t bits;
    memcpy(&bits, &v, 4);
    uint32_t t = bits & ((1u << 23) - 1);
    int bq = (int)((bits >> 23) & 0xff);
    uint32_t c;
    int q, lower_half_gap = 0;
    if (bq == 0) {
        c = t;
        q = -149;
    } else {
        c = (1u << 23) | t;
        q = bq - 150;
        lower_half_gap = t == 0 && bq > 1;
        if (integer_digits(q, c, 24, digits, exp10)) return;
    }
    struct interval iv = interval_of(q, c, lower_half_gap);
    int h = q + flog2_pow10(-iv.k) + 33;
    uint64_t g = ig_shortest_g[iv.k - IG_SHORTEST_K_MIN][0] + 1;
    uint64_t vb = round_odd_product32(g, iv.cb << h);
    uint64_t vbl = round_odd_product32(g, iv.cbl << h);
    uint64_t vbr = round_odd_product32(g, iv.cbr << h);
    *digits = pick_digits(vb, vbl, vbr, iv.out);
    *exp10 = iv.k;
    strip_zeros(digits, exp10);
}

static const char two_digits[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                    "8081828384858687888990919293949596979899";

size_t ig_u64_digits(char *out, uint64_t d)
{
    char tmp[20];
    char *p = tmp + sizeof tmp;
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
    size_t n = (size_t)(tmp + sizeof tmp - p);
    memcpy(out, p, n);
    return n;
}
