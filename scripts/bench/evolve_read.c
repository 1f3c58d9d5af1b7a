/* evolve_read - one column of a table version read through the public API, in
 * process, timed (scripts/bench/evolve).
 *
 *   evolve_read all   [--warm N] [--cold N] [--version V] [--row-bytes B] TABLE COLUMN
 *   evolve_read first [--warm N] [--cold N] [--version V] [--row-bytes B] TABLE COLUMN
 *
 * all:   ingot_open_version + ingot_column_find + ingot_read_fixed of every row
 *        group + ingot_close: the whole column (any fixed-width column, vectors
 *        included), to compare a column added to a table with one written at
 *        import.
 * first: the same with row group 0 only: the time until a reader holds the
 *        column's first values, to compare an old version with the current one.
 * --version V: 0 (default) is the current version.
 * --row-bytes B: bytes of a row's values (8 for int64, 3072 for a
 * vector<float32, 768>); without it the buffer is sized by an untimed run.
 * warm: one untimed run, then N timed runs; cold: N runs, each after
 * `sync; echo 3 > /proc/sys/vm/drop_caches` (root). Every run opens the table
 * afresh. On a shared machine, run it once per sample and alternate the
 * tables compared, so that the load falls on both alike.
 *
 * Prints one line per regime, times in microseconds:
 *   warm n=N med=.. min=.. max=.. cpu_med=.. open_med=.. read_med=.. disk_kib_med=..
 * (cpu: user + system time of the run, which the machine's other work
 * inflates less than the wall time)
 * and `values V hash H`: how many values the last run read and an FNV-1a hash
 * of their bytes (not timed), so that two tables' columns can be checked equal. */
#include "ingot.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* KiB this process caused to be read from storage (readahead included). */
static double io_read_kib(void)
{
    FILE *f = fopen("/proc/self/io", "r");
    char line[128];
    unsigned long long v = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "read_bytes: %llu", &v) == 1) break;
    if (f) fclose(f);
    return (double)v / 1024.0;
}

static double cpu_us(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

struct sample {
    double total, open, read, disk_kib, cpu;
};

struct job {
    const char *table, *column;
    uint64_t version;
    uint32_t group; /* INGOT_ALL_GROUPS or 0 */
    uint8_t *buf;
    size_t cap;
    int64_t values; /* of the last run */
};

static int one_run(struct job *j, struct sample *s)
{
    char err[512];
    ingot_table *t;
    uint32_t col;
    double io0 = io_read_kib(), c0 = cpu_us(), t0 = now_us();
    if (ingot_open_version(j->table, j->version, &t, err, sizeof err)) {
        fprintf(stderr, "evolve_read: %s\n", err);
        return -1;
    }
    double t1 = now_us();
    if (ingot_column_find(t, j->column, &col)) {
        fprintf(stderr, "evolve_read: version %" PRIu64 " shows no column %s\n", j->version,
                j->column);
        ingot_close(t);
        return -1;
    }
    int64_t n = ingot_read_fixed(t, col, j->group, j->buf, j->cap, NULL, err, sizeof err);
    double t2 = now_us();
    ingot_close(t);
    double t3 = now_us();
    if (n == -ENOSPC) return -ENOSPC;
    if (n < 0) {
        fprintf(stderr, "evolve_read: %s\n", err);
        return -1;
    }
    j->values = n;
    *s = (struct sample){t3 - t0, t1 - t0, t2 - t1, io_read_kib() - io0, cpu_us() - c0};
    return 0;
}

/* The untimed first run, which also sizes the buffer: a vector's values are
 * D per row, a width the public API does not name, so the buffer grows until
 * the column fits. */
static int sized_run(struct job *j, struct sample *s)
{
    for (;;) {
        int rc = one_run(j, s);
        if (rc != -ENOSPC) return rc;
        free(j->buf);
        j->cap *= 2;
        j->buf = malloc(j->cap);
        if (!j->buf) return -1;
    }
}

static void drop_caches(void)
{
    sync();
    int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
    if (fd < 0 || write(fd, "3\n", 2) != 2) {
        perror("evolve_read: /proc/sys/vm/drop_caches (cold runs need root)");
        exit(1);
    }
    close(fd);
}

static double median_of(const struct sample *s, int n, size_t field)
{
    double *v = malloc(sizeof *v * (size_t)n);
    for (int i = 0; i < n; i++)
        v[i] = *(const double *)((const char *)&s[i] + field);
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    double m = v[(n - 1) / 2];
    free(v);
    return m;
}

static void report(const char *name, const struct sample *s, int n)
{
    double lo = s[0].total, hi = s[0].total;
    for (int i = 1; i < n; i++) {
        if (s[i].total < lo) lo = s[i].total;
        if (s[i].total > hi) hi = s[i].total;
    }
    printf("%s n=%d med=%.1f min=%.1f max=%.1f cpu_med=%.1f open_med=%.1f read_med=%.1f "
           "disk_kib_med=%.0f\n",
           name, n, median_of(s, n, offsetof(struct sample, total)), lo, hi,
           median_of(s, n, offsetof(struct sample, cpu)),
           median_of(s, n, offsetof(struct sample, open)),
           median_of(s, n, offsetof(struct sample, read)),
           median_of(s, n, offsetof(struct sample, disk_kib)));
}

static int usage(void)
{
    fputs("usage: evolve_read all|first [--warm N] [--cold N] [--version V] [--row-bytes B] "
          "TABLE COLUMN\n",
          stderr);
    return 2;
}

int main(int argc, char **argv)
{
    if (argc < 2) return usage();
    struct job j = {0};
    if (!strcmp(argv[1], "all"))
        j.group = INGOT_ALL_GROUPS;
    else if (!strcmp(argv[1], "first"))
        j.group = 0;
    else
        return usage();
    int warm = 5, cold = 0, i = 2;
    size_t row_bytes = 0;
    for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
        if (!strcmp(argv[i], "--warm"))
            warm = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--cold"))
            cold = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--version"))
            j.version = strtoull(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--row-bytes"))
            row_bytes = strtoull(argv[i + 1], NULL, 10);
        else
            return usage();
    }
    if (argc - i != 2) return usage();
    j.table = argv[i];
    j.column = argv[i + 1];
    j.cap = 1 << 20;
    if (row_bytes) {
        char err[512];
        ingot_table *t;
        if (ingot_open_version(j.table, j.version, &t, err, sizeof err)) {
            fprintf(stderr, "evolve_read: %s\n", err);
            return 1;
        }
        j.cap = (size_t)ingot_live_rows(t) * row_bytes + 1;
        ingot_close(t);
    }
    j.buf = malloc(j.cap);
    if (!j.buf) return 1;

    /* the untimed run: it sizes the buffer, and warms the caches for the warm runs */
    struct sample s0;
    if ((warm > 0 || !row_bytes) && sized_run(&j, &s0)) return 1;
    int most = warm > cold ? warm : cold;
    struct sample *s = calloc((size_t)(most ? most : 1), sizeof *s);
    if (!s) return 1;
    if (warm > 0) {
        for (int k = 0; k < warm; k++)
            if (one_run(&j, &s[k])) return 1;
        report("warm", s, warm);
    }
    if (cold > 0) {
        for (int k = 0; k < cold; k++) {
            drop_caches();
            if (one_run(&j, &s[k])) return 1;
        }
        report("cold", s, cold);
    }
    /* FNV-1a over the bytes of the values read */
    size_t bytes = 0;
    {
        char err[512];
        ingot_table *t;
        uint32_t col;
        if (ingot_open_version(j.table, j.version, &t, err, sizeof err) ||
            ingot_column_find(t, j.column, &col))
            return 1;
        enum ingot_type type;
        ingot_column_type(t, col, &type, NULL);
        size_t w = ingot_type_width(type);
        bytes = (size_t)j.values * (w ? w : 1);
        ingot_close(t);
    }
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t k = 0; k < bytes && k < j.cap; k++)
        h = (h ^ j.buf[k]) * 0x100000001b3ull;
    printf("values %" PRId64 " hash %016" PRIx64 "\n", j.values, h);
    free(s);
    free(j.buf);
    return 0;
}
