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
 *       int64_bytes (values x 8: the decoded output).
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
#define SEQ_N 1e7
static uint64_t seq_rank(void)
{
    uint64_t r = (uint64_t)floor(exp(unif() * log(SEQ_N)));
    return r < 1 ? 1 : r > 9999999 ? 9999999 : r;
}
static double seq_bits(uint64_t r) /* -log2 P(r) */
{
    return -log2((log1p(1.0 / (double)r)) / log(SEQ_N));
}

static int gen_seq(long users, long rows, long window)
{
    rng = 0x5e9c0de5eed00001ULL;
    uint64_t *w = malloc((size_t)window * sizeof *w), *tmp = malloc((size_t)window * sizeof *tmp);
    if (!w || !tmp) die("nested_gen: malloc");
    uint64_t new_ids = 0, values = 0, nrows = 0, shifts = 0;
    double floor_bits = 0;
    for (long u = 0; u < users; u++) {
        uint64_t ts = 1700000000 + (uint64_t)u * 17;
        for (long r = 0; r < rows; r++) {
            long k = r == 0 ? window : (long)below(4);
            if (r) shifts++;
            memmove(w + k, w, (size_t)(window - k) * sizeof *w); /* k oldest drop off the tail */
            for (long i = 0; i < k; i++) {                       /* k new at the head */
                w[i] = seq_rank();
                floor_bits += seq_bits(w[i]);
            }
            new_ids += (uint64_t)k;
            ts += 1 + below(3600);
            puts_("{\"user\":");
            put_u64(1000000 + (uint64_t)u);
            puts_(",\"ts\":");
            put_u64(ts);
            puts_(",\"clk\":[");
            for (long i = 0; i < window; i++) {
                if (i) putc_(',');
                put_u64(w[i]);
            }
            puts_("]}\n");
            values += (uint64_t)window;
            nrows++;
        }
    }
    flush();
    double h = 0; /* exact entropy of the rank distribution */
    for (uint64_t r = 1; r < 10000000; r++) {
        double p = log1p(1.0 / (double)r) / log(SEQ_N);
        h -= p * log2(p);
    }
    printf(
        "rows=%" PRIu64 " values=%" PRIu64 " new_ids=%" PRIu64 " floor_bits=%.0f entropy_bits=%.4f "
        "floor_bytes=%.0f floor_bytes_entropy=%.0f meta_bits=%" PRIu64 " int64_bytes=%" PRIu64 "\n",
        nrows, values, new_ids, floor_bits, h, floor_bits / 8, (double)new_ids * h / 8, shifts * 2,
        values * 8);
    free(w);
    free(tmp);
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
    if (argc == 6 && !strcmp(argv[1], "seq")) {
        out = open_out(argv[5]);
        rc = gen_seq(atol(argv[2]), atol(argv[3]), atol(argv[4]));
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
            "       nested_gen wide [--omit-nulls] ROWS OUT.jsonl SCHEMA.txt [DUCK_COLUMNS.txt]\n"
            "       nested_gen emb ROWS DIM OUT.jsonl [OUT.f32]\n");
        return 2;
    }
    if (fclose(out)) die("nested_gen: close");
    free(buf);
    return rc;
}
