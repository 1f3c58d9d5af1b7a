// erase_gen.c - the input of scripts/bench/erase_cost: a deterministic CSV of
// USERS x ROWS_PER_USER rows and 100 columns, sorted by user id.
//
//   erase_gen USERS ROWS_PER_USER > t.csv   (built by scripts/bench/meson.build)
//
// Columns (100):
//   user_id   int64, 100000 + user number (the sort key: a user's rows are contiguous)
//   event_id  int64, the global row number (0 .. rows-1: equals the ingot row id, so
//             the Parquet side can delete "the same rows" by event_id)
//   ts        int64, epoch seconds, increasing within a user
//   c00..c36  int64 counters: small, medium, large and skewed ranges, some negative
//   f00..f39  float64 features: Gaussian-ish values printed with 6-9 significant digits
//   s00..s11  low-cardinality strings (3 .. 500 distinct values: country, device, plan..)
//   t00..t07  free text: 2..12 words from a 2,048-word vocabulary; t00 mentions the
//             user's e-mail address (the kind of value an erasure must remove)
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next(void) { // splitmix64
    uint64_t z = (rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static double unif(void) { return (next() >> 11) * (1.0 / 9007199254740992.0); }
static double gauss(void) { // sum of 4 uniforms, centred: cheap, bell-shaped
    return (unif() + unif() + unif() + unif() - 2.0) * 1.7320508;
}

static char vocab[2048][12];
static const char *countries[] = {"DE", "FR", "US", "GB", "NL", "SE", "ES", "IT", "PL", "JP", "BR", "IN", "CA", "AU", "NO", "DK", "FI", "AT", "CH", "BE"};
static const char *devices[] = {"ios", "android", "web", "tv", "desktop"};
static const char *plans[] = {"free", "plus", "pro"};

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: erase_gen USERS ROWS_PER_USER > out.csv\n");
        return 2;
    }
    long users = atol(argv[1]), per = atol(argv[2]);
    static const char cons[] = "bcdfghjklmnprstvwz", vow[] = "aeiou";
    for (int i = 0; i < 2048; i++) {
        int len = 2 + (int)(next() % 4); // syllables
        char *p = vocab[i];
        for (int s = 0; s < len && s < 5; s++) {
            *p++ = cons[next() % 18];
            *p++ = vow[next() % 5];
        }
        *p = 0;
    }
    static char buf[1 << 16];
    setvbuf(stdout, NULL, _IOFBF, 1 << 20);
    fputs("user_id,event_id,ts", stdout);
    for (int i = 0; i < 37; i++) printf(",c%02d", i);
    for (int i = 0; i < 40; i++) printf(",f%02d", i);
    for (int i = 0; i < 12; i++) printf(",s%02d", i);
    for (int i = 0; i < 8; i++) printf(",t%02d", i);
    fputc('\n', stdout);
    int64_t row = 0;
    for (long u = 0; u < users; u++) {
        int64_t uid = 100000 + u;
        int64_t ts = 1700000000 + (int64_t)(next() % 10000000);
        const char *country = countries[next() % 20], *device = devices[next() % 5];
        for (long k = 0; k < per; k++, row++) {
            ts += 1 + (int64_t)(next() % 7200);
            char *p = buf;
            p += sprintf(p, "%" PRId64 ",%" PRId64 ",%" PRId64, uid, row, ts);
            for (int i = 0; i < 37; i++) {
                int64_t v;
                switch (i % 6) {
                case 0: v = (int64_t)(next() % 10); break;              // tiny counter
                case 1: v = (int64_t)(next() % 1000); break;            // small
                case 2: v = (int64_t)(next() % 1000000); break;         // medium
                case 3: v = (int64_t)(next() % 4000000000ull) - 2000000000; break; // wide, signed
                case 4: v = (next() % 10) ? 0 : (int64_t)(next() % 100); break;  // mostly zero
                default: v = (int64_t)(k * 3 + (int64_t)(next() % 5)); break;   // grows within a user
                }
                p += sprintf(p, ",%" PRId64, v);
            }
            for (int i = 0; i < 40; i++) {
                double x = gauss() * (i % 4 == 0 ? 1000.0 : 1.0) + (i % 5);
                p += sprintf(p, i % 3 == 0 ? ",%.9g" : ",%.6g", x);
            }
            for (int i = 0; i < 12; i++) {
                const char *s;
                char tmp[32];
                switch (i % 4) {
                case 0: s = i == 0 ? country : countries[next() % 20]; break;
                case 1: s = i == 1 ? device : devices[next() % 5]; break;
                case 2: s = plans[next() % 3]; break;
                default: snprintf(tmp, sizeof tmp, "seg_%03u", (unsigned)(next() % 500)); s = tmp;
                }
                p += sprintf(p, ",%s", s);
            }
            for (int i = 0; i < 8; i++) {
                int words = 2 + (int)(next() % 11);
                *p++ = ',';
                if (i == 0) p += sprintf(p, "user%" PRId64 "@example.com ", uid);
                for (int w = 0; w < words; w++) {
                    const char *v = vocab[next() % 2048];
                    size_t n = strlen(v);
                    if (w) *p++ = ' ';
                    memcpy(p, v, n);
                    p += n;
                }
            }
            *p++ = '\n';
            fwrite(buf, 1, (size_t)(p - buf), stdout);
        }
    }
    return fflush(stdout) ? 1 : 0;
}
