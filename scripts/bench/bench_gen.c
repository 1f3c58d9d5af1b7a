/* bench_gen - deterministic CSV inputs for the benchmarks (scripts/bench/).
 *
 *   bench_gen wide COLUMNS ROWS OUT.csv
 *       header c00000,c00001,...; every value an int64 that depends on (row, col)
 *   bench_gen mixed ROWS OUT.csv
 *       a realistic mixed table: ids, timestamps, floats, low-cardinality strings,
 *       free text (some quoted, some empty = NULL), bools
 *   bench_gen int64 ROWS OUT.csv
 *       id (0..ROWS-1), v (uniform random over all of int64: stays plain), g (0..15)
 *
 * The same arguments always give the same bytes (splitmix64, fixed seed);
 * INGOT_BENCH_SEED=N draws other data of the same shape (a goal measured on
 * more than the one sample). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen_util.h"

static const char *const countries[] = {"US", "DE", "FR", "GB", "JP", "BR", "IN", "CN", "CA", "AU",
                                        "ES", "IT", "NL", "SE", "PL", "MX", "KR", "AR", "ZA", "NG",
                                        "EG", "TR", "RU", "UA", "CH", "AT", "BE", "DK", "NO", "FI"};
static const char *const devices[] = {"desktop", "mobile", "tablet", "tv", "console"};
static const char *const words[] = {
    "the",      "model",   "training", "data",     "fast",     "column", "table", "value",
    "learn",    "batch",   "epoch",    "loss",     "gradient", "sample", "token", "vector",
    "image",    "label",   "review",   "great",    "product",  "would",  "again", "never",
    "shipping", "quality", "price",    "small",    "large",    "blue",   "red",   "green",
    "works",    "broken",  "return",   "support",  "happy",    "slow",   "quick", "order",
    "weather",  "city",    "river",    "mountain", "music",    "movie",  "book",  "story"};
#define NWORDS (sizeof words / sizeof *words)

static void put_words(unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        if (i) putc_(' ');
        puts_(words[below(NWORDS)]);
    }
}

static int gen_wide(long cols, long rows)
{
    for (long c = 0; c < cols; c++) {
        char h[16];
        int n = snprintf(h, sizeof h, "%sc%05ld", c ? "," : "", c);
        put(h, (size_t)n);
    }
    putc_('\n');
    for (long r = 0; r < rows; r++) {
        for (long c = 0; c < cols; c++) {
            if (c) putc_(',');
            /* a hash of (row, column): no pattern an encoder could exploit beyond
             * the value range (about 21 bits), like a column of integer features */
            uint64_t h = (uint64_t)r * 0x9E3779B97F4A7C15ULL ^ (uint64_t)c * 0xC2B2AE3D27D4EB4FULL;
            h = (h ^ (h >> 29)) * 0xBF58476D1CE4E5B9ULL;
            h ^= h >> 32;
            put_i64((int64_t)(h % 2000001u) - 1000000);
        }
        putc_('\n');
    }
    return 0;
}

static int gen_mixed(long rows)
{
    puts_("id,user_id,ts_ms,price,score,quantity,country,device,category,clicked,title,comment\n");
    uint64_t ts = 1700000000000ULL;
    for (long r = 0; r < rows; r++) {
        char t[64];
        put_i64(r);
        putc_(',');
        put_u64(1 + below(1000000));
        putc_(',');
        ts += below(200);
        put_u64(ts);
        putc_(',');
        uint64_t units = below(500), cents = below(100); /* in this order, whatever the compiler */
        int n = snprintf(t, sizeof t, "%" PRIu64 ".%02" PRIu64, units, cents);
        put(t, (size_t)n);
        putc_(',');
        n = snprintf(t, sizeof t, "%.17g", (double)(next() >> 11) / 9007199254740992.0);
        put(t, (size_t)n);
        putc_(',');
        put_u64(1 + below(10));
        putc_(',');
        puts_(countries[below(30) * below(30) / 30]); /* skewed */
        putc_(',');
        puts_(devices[below(5)]);
        putc_(',');
        n = snprintf(t, sizeof t, "cat_%03" PRIu64, below(200));
        put(t, (size_t)n);
        putc_(',');
        puts_(below(10) < 3 ? "true" : "false");
        putc_(',');
        put_words(2 + (unsigned)below(5));
        putc_(',');
        uint64_t k = below(10);
        if (k < 2) {
            /* empty: NULL */
        } else if (k < 4) {
            putc_('"');
            put_words(1 + (unsigned)below(3));
            puts_(", \"\"really\"\" ");
            put_words(1 + (unsigned)below(4));
            putc_('"');
        } else {
            put_words(1 + (unsigned)below(8));
        }
        putc_('\n');
    }
    return 0;
}

static int gen_int64(long rows)
{
    puts_("id,v,g\n");
    for (long r = 0; r < rows; r++) {
        put_i64(r);
        putc_(',');
        put_i64((int64_t)next());
        putc_(',');
        put_u64(below(16));
        putc_('\n');
    }
    return 0;
}

static _Noreturn void usage(void)
{
    fputs("usage: bench_gen wide COLUMNS ROWS OUT.csv | mixed ROWS OUT.csv | int64 ROWS OUT.csv\n",
          stderr);
    exit(2);
}

int main(int argc, char **argv)
{
    if (argc < 2) usage();
    const char *mode = argv[1];
    int nargs = !strcmp(mode, "wide") ? 3 : 2;
    if (argc != 2 + nargs) usage();
    rng = 0x5eed5eed12345678ULL;
    const char *seed = getenv("INGOT_BENCH_SEED");
    if (seed && *seed) rng ^= strtoull(seed, NULL, 0) * 0x9E3779B97F4A7C15ULL;
    buf = malloc(cap);
    if (!buf) die("bench_gen");
    out = open_out(argv[argc - 1]);
    int rc = 0;
    if (!strcmp(mode, "wide"))
        rc = gen_wide(atol(argv[2]), atol(argv[3]));
    else if (!strcmp(mode, "mixed"))
        rc = gen_mixed(atol(argv[2]));
    else if (!strcmp(mode, "int64"))
        rc = gen_int64(atol(argv[2]));
    else
        usage();
    flush();
    if (fclose(out)) {
        perror("bench_gen: close");
        return 1;
    }
    free(buf);
    return rc;
}
