/* nested_gen - deterministic JSON Lines inputs for the nested benchmarks
 * (scripts/bench/sparse_sequences, wide_nested, embeddings). The same arguments
 * always give the same bytes (splitmix64, fixed seeds).
 *
 *   nested_gen seq USERS ROWS WINDOW OUT.jsonl
 *       Sparse sequences: USERS x ROWS rows {"user":U,"ts":T,"clk":[...]}, sorted
 *       by user and time. clk is a WINDOW-long list of ad ids, most recent first:
 *       a user's first row is WINDOW fresh ids; every later row is the row before
 *       with k new ids pushed at the head and the k oldest dropped at the tail,
 *       k uniform in 0..3. An id is a rank r = floor(exp(U ln 1e7)), U uniform in
 *       [0,1): log-uniform ("Zipf with exponent 1") over 1 .. 9,999,999, so
 *       P(r) = ln((r+1)/r) / ln(1e7).
 *       Prints (stdout) one line of key=value facts: rows, values (ids in all
 *       lists), new_ids (ids new at their row), floor_bits (sum over the new ids
 *       of -log2 P(id)), entropy_bits (H of the id distribution, exact sum over
 *       r), floor_bytes_entropy (new_ids x H / 8), floor_bytes (floor_bits / 8),
 *       meta_bits (the per-row shift counts: rows after a user's first x log2 4),
 *       int64_bytes (values x 8: the decoded output). It is seqd loguniform:1e7 3
 *       below with a seed of its own (and prints seqd's two extra facts too).
 *
 *   nested_gen seqd DIST KMAX USERS ROWS WINDOW OUT.jsonl
 *       The same rows with other id distributions (scripts/bench/sliding_windows):
 *       k uniform in 0..KMAX new ids per row, and DIST one of
 *         loguniform:N   r = floor(exp(U ln N)) over 1 .. N-1 (seq is loguniform:1e7)
 *         uniform:N      uniform over 1 .. N
 *         zipf:S:N       Zipf with exponent S over ranks 1 .. N, the id is the rank
 *         zipfhash:S:N   the same popularity, the id a fixed bijective hash of the
 *                        rank into 1 .. 2^62 (hashed feature ids: no order to exploit)
 *       and prints the same key=value facts, the floor under that distribution,
 *       plus distinct_new (distinct new ids) and dict_floor_bytes (see seen_add).
 *
 *   nested_gen wide [--omit-nulls] ROWS OUT.jsonl SCHEMA.txt [DUCK_COLUMNS.txt]
 *       A table with the column-type mix of Bullion's Table 1 (17,733 columns):
 *       16,256 list<int64> (li00000..), 812 list<float> (lf000..), 277
 *       list<list<int64>> (ll000..), 143 struct<list<int64>, list<float>> (sif000..),
 *       120 struct<list<int64>> (si000..), 46 struct<list<binary>> (sb00..), 29
 *       struct<list<float>> (sf00..), 18 struct<list<binary>, list<binary>>
 *       (sbb00..), 10 struct<list<double>> (sd00..), 8 list<binary> (lb0..), 5
 *       struct<list<list<int64>>> (sll0..), 5 struct<list<binary>, list<float>>
 *       (sbf0..), 3 string (s0..s2), 1 int64 (id). Struct fields are a and b.
 *       Every column but id is nullable; 20% of values are NULL, written as
 *       "key":null, or with --omit-nulls by leaving the key out;
 *       lists hold 0..4 elements (inner lists 0..3); int64 elements log-uniform
 *       below 1e12 (hashed feature ids), floats k/1000 in [-10, 10), doubles with
 *       6 decimals, binary 1..12 random bytes as base64 (ingot decodes base64;
 *       DuckDB reads the string and decodes it with from_base64), strings 5..20
 *       letters. SCHEMA.txt is the ingot schema; DUCK_COLUMNS.txt, if given, lists
 *       `name<TAB>DuckDB type<TAB>kind` per column (kind: plain, or b64 for the
 *       columns holding base64 that DuckDB must decode).
 *
 *   nested_gen emb ROWS DIM OUT.jsonl [OUT.f32]
 *       Embeddings: {"id":I,"emb":[DIM floats]} per row; each value a float32
 *       Gaussian with standard deviation 1/sqrt(DIM) (about unit-norm rows),
 *       printed with 9 significant digits (reads back as the same float32). OUT.f32,
 *       if given, gets the same values as raw little-endian float32, row-major. */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen_util.h"

static double unif(void)
{
    return (double)(next() >> 11) * (1.0 / 9007199254740992.0);
}

/* ---- seq ---- */
static void put_seq_row(long user, uint64_t ts, const uint64_t *w, long window)
{
    puts_("{\"user\":");
    put_u64(1000000 + (uint64_t)user);
    puts_(",\"ts\":");
    put_u64(ts);
    puts_(",\"clk\":[");
    for (long i = 0; i < window; i++) {
        if (i) putc_(',');
        put_u64(w[i]);
    }
    puts_("]}\n");
}

/* ---- seqd: the same sliding windows under other id distributions ---- */
enum seqd_kind { D_LOGUNIFORM, D_UNIFORM, D_ZIPF, D_ZIPFHASH };
static struct {
    enum seqd_kind kind;
    double n, s;
    double *cdf; /* zipf: cdf[r-1] = P(rank <= r) */
    double hnorm; /* zipf: sum of r^-s */
} seqd;

static int seqd_parse(const char *spec)
{
    char name[32];
    double a = 0, b = 0;
    int got = sscanf(spec, "%31[a-z]:%lf:%lf", name, &a, &b);
    if (got == 2 && !strcmp(name, "loguniform")) seqd.kind = D_LOGUNIFORM, seqd.n = a;
    else if (got == 2 && !strcmp(name, "uniform")) seqd.kind = D_UNIFORM, seqd.n = a;
    else if (got == 3 && !strcmp(name, "zipf")) seqd.kind = D_ZIPF, seqd.s = a, seqd.n = b;
    else if (got == 3 && !strcmp(name, "zipfhash")) seqd.kind = D_ZIPFHASH, seqd.s = a, seqd.n = b;
    else return -1;
    if (seqd.n < 2 || seqd.n > 9.2e18 || ((seqd.kind == D_ZIPF || seqd.kind == D_ZIPFHASH) && seqd.n > 1e8))
        return -1;
    if (seqd.kind == D_ZIPF || seqd.kind == D_ZIPFHASH) {
        size_t n = (size_t)seqd.n;
        seqd.cdf = malloc(n * sizeof *seqd.cdf);
        if (!seqd.cdf) die("nested_gen: malloc");
        double acc = 0;
        for (size_t r = 1; r <= n; r++) seqd.cdf[r - 1] = acc += pow((double)r, -seqd.s);
        seqd.hnorm = acc;
        for (size_t r = 0; r < n; r++) seqd.cdf[r] /= acc;
    }
    return 0;
}

/* A bijection of 62-bit values (xorshift-multiply rounds, each invertible mod 2^62). */
static uint64_t hash62(uint64_t x)
{
    const uint64_t m = (1ULL << 62) - 1;
    for (int i = 0; i < 3; i++) {
        x ^= x >> 31;
        x = (x * 0x9E3779B97F4A7C15ULL) & m;
    }
    return x;
}

static uint64_t seqd_draw(double *bits)
{
    if (seqd.kind == D_LOGUNIFORM) {
        uint64_t top = (uint64_t)seqd.n - 1, r = (uint64_t)floor(exp(unif() * log(seqd.n)));
        r = r < 1 ? 1 : r > top ? top : r;
        *bits = -log2(log1p(1.0 / (double)r) / log(seqd.n));
        return r;
    }
    if (seqd.kind == D_UNIFORM) {
        uint64_t n = (uint64_t)seqd.n;
        *bits = log2(seqd.n);
        return 1 + next() % n;
    }
    double u = unif(); /* zipf: the first rank whose cdf exceeds u */
    size_t lo = 0, hi = (size_t)seqd.n - 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (seqd.cdf[mid] > u) hi = mid;
        else lo = mid + 1;
    }
    uint64_t r = lo + 1;
    *bits = seqd.s * log2((double)r) + log2(seqd.hnorm);
    if (seqd.kind == D_ZIPF) return r;
    return hash62(r); /* a bijection with hash62(0) = 0: never 0 for r >= 1 */
}

/* Counts of the new ids (open addressing; ids are never 0), for the dictionary
 * floor: what an encoder that does not know the distribution must at least
 * spend naming each distinct id once, log2 C(RANGE, D) ~ D (log2(RANGE / D) +
 * log2 e), plus the sequence of new ids over that set at its empirical entropy,
 * -sum c log2(c / n). Where ids carry no order (zipfhash, wide uniform) this is
 * the floor a real encoder can approach; the generator's floor assumes the
 * decoder knows the distribution. */
static struct {
    uint64_t *key, *count, cap, used;
} seen;

static void seen_add(uint64_t id)
{
    if (2 * (seen.used + 1) > seen.cap) {
        uint64_t oldcap = seen.cap, *ok = seen.key, *oc = seen.count;
        seen.cap = oldcap ? oldcap * 2 : 1 << 16;
        seen.key = calloc(seen.cap, sizeof *seen.key);
        seen.count = calloc(seen.cap, sizeof *seen.count);
        if (!seen.key || !seen.count) die("nested_gen: malloc");
        seen.used = 0;
        for (uint64_t i = 0; i < oldcap; i++)
            for (uint64_t c = 0; c < oc[i]; c++) seen_add(ok[i]);
        free(ok);
        free(oc);
    }
    uint64_t i = (id * 0x9E3779B97F4A7C15ULL) & (seen.cap - 1);
    while (seen.key[i] && seen.key[i] != id) i = (i + 1) & (seen.cap - 1);
    if (!seen.key[i]) seen.key[i] = id, seen.used++;
    seen.count[i]++;
}

static double dict_floor_bits(uint64_t n, double range)
{
    double d = (double)seen.used, bits = d * (log2(range / d) + M_LOG2E);
    for (uint64_t i = 0; i < seen.cap; i++)
        if (seen.count[i]) bits -= (double)seen.count[i] * log2((double)seen.count[i] / (double)n);
    return bits;
}

static double seqd_entropy(void)
{
    double h = 0;
    if (seqd.kind == D_UNIFORM) return log2(seqd.n);
    if (seqd.kind == D_LOGUNIFORM) {
        for (uint64_t r = 1; r < (uint64_t)seqd.n; r++) {
            double p = log1p(1.0 / (double)r) / log(seqd.n);
            h -= p * log2(p);
        }
        return h;
    }
    for (size_t r = 1; r <= (size_t)seqd.n; r++) {
        double p = pow((double)r, -seqd.s) / seqd.hnorm;
        h -= p * log2(p);
    }
    return h;
}

static int gen_seqd(long kmax, long users, long rows, long window, uint64_t seed)
{
    rng = seed;
    uint64_t *w = malloc((size_t)window * sizeof *w);
    if (!w) die("nested_gen: malloc");
    uint64_t new_ids = 0, values = 0, nrows = 0, shifts = 0;
    double floor_bits = 0, bits;
    for (long u = 0; u < users; u++) {
        uint64_t ts = 1700000000 + (uint64_t)u * 17;
        for (long r = 0; r < rows; r++) {
            long k = r == 0 ? window : (long)below((uint64_t)kmax + 1);
            if (k > window) k = window;
            if (r) shifts++;
            memmove(w + k, w, (size_t)(window - k) * sizeof *w);
            for (long i = 0; i < k; i++) {
                w[i] = seqd_draw(&bits);
                floor_bits += bits;
                seen_add(w[i]);
            }
            new_ids += (uint64_t)k;
            ts += 1 + below(3600);
            put_seq_row(u, ts, w, window);
            values += (uint64_t)window;
            nrows++;
        }
    }
    flush();
    double h = seqd_entropy();
    double range = seqd.kind == D_ZIPFHASH ? 4611686018427387904.0 : seqd.n;
    printf("rows=%" PRIu64 " values=%" PRIu64 " new_ids=%" PRIu64 " floor_bits=%.0f entropy_bits=%.4f "
           "floor_bytes=%.0f floor_bytes_entropy=%.0f meta_bits=%.0f int64_bytes=%" PRIu64
           " distinct_new=%" PRIu64 " dict_floor_bytes=%.0f\n",
           nrows, values, new_ids, floor_bits, h, floor_bits / 8, (double)new_ids * h / 8,
           (double)shifts * log2((double)kmax + 1), values * 8, seen.used,
           dict_floor_bits(new_ids, range) / 8);
    free(seen.key);
    free(seen.count);
    free(w);
    free(seqd.cdf);
    return 0;
}

/* ---- wide ---- */
enum wkind {
    W_LI,
    W_LF,
    W_LL,
    W_SIF,
    W_SI,
    W_SB,
    W_SF,
    W_SBB,
    W_SD,
    W_LB,
    W_SLL,
    W_SBF,
    W_STR,
    W_ID
};
static const struct wspec {
    enum wkind kind;
    int count;
    const char *prefix;
    int digits;
    const char *ingot, *duck;
    int b64; /* holds base64 DuckDB must decode */
} wspecs[] = {
    {W_LI, 16256, "li", 5, "list<int64>?", "BIGINT[]", 0},
    {W_LF, 812, "lf", 3, "list<float32>?", "FLOAT[]", 0},
    {W_LL, 277, "ll", 3, "list<list<int64>>?", "BIGINT[][]", 0},
    {W_SIF, 143, "sif", 3, "struct<a:list<int64>, b:list<float32>>?",
     "STRUCT(a BIGINT[], b FLOAT[])", 0},
    {W_SI, 120, "si", 3, "struct<a:list<int64>>?", "STRUCT(a BIGINT[])", 0},
    {W_SB, 46, "sb", 2, "struct<a:list<binary>>?", "STRUCT(a VARCHAR[])", 1},
    {W_SF, 29, "sf", 2, "struct<a:list<float32>>?", "STRUCT(a FLOAT[])", 0},
    {W_SBB, 18, "sbb", 2, "struct<a:list<binary>, b:list<binary>>?",
     "STRUCT(a VARCHAR[], b VARCHAR[])", 1},
    {W_SD, 10, "sd", 2, "struct<a:list<float64>>?", "STRUCT(a DOUBLE[])", 0},
    {W_LB, 8, "lb", 1, "list<binary>?", "VARCHAR[]", 1},
    {W_SLL, 5, "sll", 1, "struct<a:list<list<int64>>>?", "STRUCT(a BIGINT[][])", 0},
    {W_SBF, 5, "sbf", 1, "struct<a:list<binary>, b:list<float32>>?",
     "STRUCT(a VARCHAR[], b FLOAT[])", 1},
    {W_STR, 3, "s", 1, "string?", "VARCHAR", 0},
    {W_ID, 1, "id", 0, "int64", "BIGINT", 0},
};
#define NWSPECS (sizeof wspecs / sizeof *wspecs)

static void put_int_list(unsigned maxlen)
{
    unsigned n = (unsigned)below(maxlen + 1);
    putc_('[');
    for (unsigned i = 0; i < n; i++) {
        if (i) putc_(',');
        put_u64((uint64_t)floor(exp(unif() * log(1e12))));
    }
    putc_(']');
}
static void put_float_list(void)
{
    unsigned n = (unsigned)below(5);
    putc_('[');
    for (unsigned i = 0; i < n; i++) {
        if (i) putc_(',');
        int64_t k = (int64_t)below(20000) - 10000; /* k / 1000 */
        if (k < 0) putc_('-'), k = -k;
        char t[16];
        int m = snprintf(t, sizeof t, "%" PRId64 ".%03" PRId64, k / 1000, k % 1000);
        put(t, (size_t)m);
    }
    putc_(']');
}
static void put_double_list(void)
{
    unsigned n = (unsigned)below(5);
    putc_('[');
    for (unsigned i = 0; i < n; i++) {
        if (i) putc_(',');
        char t[32];
        int m = snprintf(t, sizeof t, "%.6f", (unif() - 0.5) * 2000);
        put(t, (size_t)m);
    }
    putc_(']');
}
static void put_base64(const uint8_t *p, size_t n)
{
    static const char al[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    putc_('"');
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) |
                     (i + 2 < n ? p[i + 2] : 0);
        putc_(al[v >> 18 & 63]);
        putc_(al[v >> 12 & 63]);
        putc_(i + 1 < n ? al[v >> 6 & 63] : '=');
        putc_(i + 2 < n ? al[v & 63] : '=');
    }
    putc_('"');
}
static void put_binary_list(void)
{
    unsigned n = (unsigned)below(5);
    putc_('[');
    for (unsigned i = 0; i < n; i++) {
        if (i) putc_(',');
        uint8_t b[12];
        size_t len = 1 + below(12);
        for (size_t j = 0; j < len; j++)
            b[j] = (uint8_t)next();
        put_base64(b, len);
    }
    putc_(']');
}
static void put_list_list(void)
{
    unsigned n = (unsigned)below(4);
    putc_('[');
    for (unsigned i = 0; i < n; i++) {
        if (i) putc_(',');
        put_int_list(3);
    }
    putc_(']');
}
static void put_value(enum wkind k, long row)
{
    switch (k) {
    case W_LI:
        put_int_list(4);
        break;
    case W_LF:
        put_float_list();
        break;
    case W_LL:
        put_list_list();
        break;
    case W_SIF:
        puts_("{\"a\":"), put_int_list(4), puts_(",\"b\":"), put_float_list(), putc_('}');
        break;
    case W_SI:
        puts_("{\"a\":"), put_int_list(4), putc_('}');
        break;
    case W_SB:
        puts_("{\"a\":"), put_binary_list(), putc_('}');
        break;
    case W_SF:
        puts_("{\"a\":"), put_float_list(), putc_('}');
        break;
    case W_SBB:
        puts_("{\"a\":"), put_binary_list(), puts_(",\"b\":"), put_binary_list(), putc_('}');
        break;
    case W_SD:
        puts_("{\"a\":"), put_double_list(), putc_('}');
        break;
    case W_LB:
        put_binary_list();
        break;
    case W_SLL:
        puts_("{\"a\":"), put_list_list(), putc_('}');
        break;
    case W_SBF:
        puts_("{\"a\":"), put_binary_list(), puts_(",\"b\":"), put_float_list(), putc_('}');
        break;
    case W_STR: {
        unsigned n = 5 + (unsigned)below(16);
        putc_('"');
        for (unsigned i = 0; i < n; i++)
            putc_((char)('a' + below(26)));
        putc_('"');
        break;
    }
    case W_ID:
        put_i64(row);
        break;
    }
}
static void col_name(const struct wspec *s, int i, char *name, size_t n)
{
    if (s->digits)
        snprintf(name, n, "%s%0*d", s->prefix, s->digits, i);
    else
        snprintf(name, n, "%s", s->prefix);
}

static int gen_wide(long rows, const char *schema_path, const char *duck_path, int omit_nulls)
{
    rng = 0x3dde000000000002ULL;
    FILE *sf = open_out(schema_path), *df = duck_path ? open_out(duck_path) : NULL;
    char name[32];
    for (size_t s = 0; s < NWSPECS; s++)
        for (int i = 0; i < wspecs[s].count; i++) {
            col_name(&wspecs[s], i, name, sizeof name);
            fprintf(sf, "%s %s\n", name, wspecs[s].ingot);
            if (df)
                fprintf(df, "%s\t%s\t%s\n", name, wspecs[s].duck, wspecs[s].b64 ? "b64" : "plain");
        }
    if (fclose(sf) || (df && fclose(df))) die("nested_gen: schema");
    for (long r = 0; r < rows; r++) {
        putc_('{');
        int first = 1;
        for (size_t s = 0; s < NWSPECS; s++)
            for (int i = 0; i < wspecs[s].count; i++) {
                int null = wspecs[s].kind != W_ID && below(5) == 0;
                if (null && omit_nulls) continue; /* NULL: key left out */
                col_name(&wspecs[s], i, name, sizeof name);
                if (!first) putc_(',');
                first = 0;
                putc_('"');
                puts_(name);
                puts_("\":");
                if (null)
                    puts_("null");
                else
                    put_value(wspecs[s].kind, r);
            }
        puts_("}\n");
    }
    flush();
    return 0;
}

/* ---- emb ---- */
static double gauss(void)
{
    static int have;
    static double spare;
    if (have) {
        have = 0;
        return spare;
    }
    double u, v, s;
    do {
        u = 2 * unif() - 1;
        v = 2 * unif() - 1;
        s = u * u + v * v;
    } while (s >= 1 || s == 0);
    double m = sqrt(-2 * log(s) / s);
    spare = v * m;
    have = 1;
    return u * m;
}

static int gen_emb(long rows, long dim, const char *raw_path)
{
    rng = 0xe3bedd1265000003ULL;
    FILE *raw = raw_path ? open_out(raw_path) : NULL;
    float *row = malloc((size_t)dim * sizeof *row);
    if (!row) die("nested_gen: malloc");
    double sd = 1 / sqrt((double)dim);
    for (long r = 0; r < rows; r++) {
        puts_("{\"id\":");
        put_i64(r);
        puts_(",\"emb\":[");
        for (long i = 0; i < dim; i++) {
            float f = (float)(gauss() * sd);
            row[i] = f;
            if (i) putc_(',');
            need(32);
            used += (size_t)snprintf(buf + used, 32, "%.9g", (double)f);
        }
        puts_("]}\n");
        if (raw && fwrite(row, sizeof *row, (size_t)dim, raw) != (size_t)dim) die(raw_path);
    }
    flush();
    if (raw && fclose(raw)) die(raw_path);
    free(row);
    return 0;
}

int main(int argc, char **argv)
{
    buf = malloc(cap);
    if (!buf) die("nested_gen: malloc");
    int rc = 2;
    if (argc == 6 && !strcmp(argv[1], "seq")) { /* seqd loguniform:1e7 3, its own seed */
        out = open_out(argv[5]);
        if (seqd_parse("loguniform:1e7")) goto usage;
        rc = gen_seqd(3, atol(argv[2]), atol(argv[3]), atol(argv[4]), 0x5e9c0de5eed00001ULL);
    } else if (argc == 8 && !strcmp(argv[1], "seqd")) {
        if (seqd_parse(argv[2]) || atol(argv[3]) < 0) goto usage;
        out = open_out(argv[7]);
        rc = gen_seqd(atol(argv[3]), atol(argv[4]), atol(argv[5]), atol(argv[6]), 0x5e9c0de5eed00002ULL);
    } else if (argc >= 5 && argc <= 7 && !strcmp(argv[1], "wide")) {
        int omit = !strcmp(argv[2], "--omit-nulls");
        if (argc - omit < 5 || argc - omit > 6) goto usage;
        out = open_out(argv[3 + omit]);
        rc = gen_wide(atol(argv[2 + omit]), argv[4 + omit],
                      argc - omit == 6 ? argv[5 + omit] : NULL, omit);
    } else if ((argc == 5 || argc == 6) && !strcmp(argv[1], "emb")) {
        out = open_out(argv[4]);
        rc = gen_emb(atol(argv[2]), atol(argv[3]), argc == 6 ? argv[5] : NULL);
    } else {
    usage:
        fprintf(
            stderr,
            "usage: nested_gen seq USERS ROWS WINDOW OUT.jsonl\n"
            "       nested_gen seqd DIST KMAX USERS ROWS WINDOW OUT.jsonl\n"
            "       nested_gen wide [--omit-nulls] ROWS OUT.jsonl SCHEMA.txt [DUCK_COLUMNS.txt]\n"
            "       nested_gen emb ROWS DIM OUT.jsonl [OUT.f32]\n");
        return 2;
    }
    if (fclose(out)) die("nested_gen: close");
    free(buf);
    return rc;
}
