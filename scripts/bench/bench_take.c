/* bench_take.c - rows by id through the C API (ingot_take), for random_access.
 *
 *   bench_take TABLE IDS_FILE [ROUNDS] [keep]
 * Reads the ids (one per line), then per round opens the table, takes every
 * id's row (all columns) in one call, checks each was found, closes. Prints
 * "ms=<first round> warm_ms=<best later round> found=<n>". With "keep" the
 * table is opened once, before the first round's clock stops, and stays open:
 * later rounds take from what it holds (a table on object storage keeps the
 * ranges it fetched while it is open; closed, they go). */
#include "ingot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_take TABLE IDS_FILE [ROUNDS]\n");
        return 2;
    }
    int rounds = argc > 3 ? atoi(argv[3]) : 3;
    int keep = argc > 4 && !strcmp(argv[4], "keep");
    FILE *f = fopen(argv[2], "r");
    if (!f) return perror(argv[2]), 2;
    size_t n = 0, cap = 1024;
    uint64_t *ids = malloc(cap * sizeof *ids);
    unsigned long long v;
    while (ids && fscanf(f, "%llu", &v) == 1) {
        if (n == cap && !(ids = realloc(ids, (cap *= 2) * sizeof *ids))) break;
        ids[n++] = v;
    }
    fclose(f);
    if (!ids) return 2;
    double first = 0, best = 1e30;
    size_t found = 0;
    for (int r = 0; r < rounds; r++) {
        char eb[512];
        double t0 = now_ms();
        static ingot_table *t;
        if (!t && ingot_open(argv[1], &t, eb, sizeof eb)) return fprintf(stderr, "%s\n", eb), 1;
        uint32_t ncols = ingot_columns(t), *cols = malloc(ncols * sizeof *cols), k = 0;
        for (uint32_t c = 0; c < ncols; c++) /* the top-level columns, as rows/ID shows */
            cols[k++] = c;
        ingot_batch *b;
        if (ingot_take(t, ids, n, cols, k, &b, eb, sizeof eb)) return fprintf(stderr, "%s\n", eb), 1;
        found = 0;
        for (size_t i = 0; i < n; i++)
            found += (size_t)ingot_batch_found(b, i);
        ingot_batch_free(b);
        free(cols);
        if (!keep) {
            ingot_close(t);
            t = NULL;
        }
        double ms = now_ms() - t0;
        if (r == 0) first = ms;
        else if (ms < best) best = ms;
    }
    printf("ms=%.2f warm_ms=%.2f found=%zu\n", first, rounds > 1 ? best : first, found);
    return found == n ? 0 : 1;
}
