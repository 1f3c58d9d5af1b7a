/* bench_open_read - time ingot_open + ingot_column_find + ingot_read_fixed +
 * ingot_close of one int64 column, in process, through the public API only.
 *
 *   bench_open_read [--warm N] [--cold N] TABLE COLUMN
 *
 * warm: one untimed run, then N timed runs back to back (page cache warm).
 * cold: N single runs, each after `sync; echo 3 > /proc/sys/vm/drop_caches`
 *       (needs root). Every run opens the table afresh: nothing is kept between
 *       runs inside the process either.
 *
 * Prints one line per regime, in µs:
 *   warm n=N total_med=.. total_p10=.. total_p90=.. total_min=.. open_med=.. find_med=..
 *        read_med=.. close_med=.. disk_kib_med=.. minflt_med=..
 * (disk_kib: KiB this process caused to be read from storage, /proc/self/io;
 *  minflt: minor page faults per run, getrusage)
 * and `sum S`, the sum of the values read (checked against the peer's). */
#include "ingot.h"

#include <fcntl.h>
#include <inttypes.h>
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

static double pct(double *v, int n, double p)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    int i = (int)(p * (n - 1) + 0.5);
    return v[i];
}

struct sample {
    double open, find, read, close, total, read_kib, minflt;
};

static double minflt(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_minflt;
}

/* Bytes this process caused to be fetched from storage (readahead included). */
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

static int64_t sum; /* of the values of the last run: checked against DuckDB */
static int64_t *buf;
static size_t buf_bytes;

static int one_run(const char *table, const char *column, struct sample *s)
{
    char err[512];
    ingot_table *t;
    uint32_t col;
    double io0 = io_read_kib(), f0 = minflt();
    double t0 = now_us();
    if (ingot_open(table, &t, err, sizeof err)) {
        fprintf(stderr, "bench_open_read: %s\n", err);
        return -1;
    }
    double t1 = now_us();
    if (ingot_column_find(t, column, &col)) {
        fprintf(stderr, "bench_open_read: no column %s\n", column);
        ingot_close(t);
        return -1;
    }
    double t2 = now_us();
    int64_t n = ingot_read_fixed(t, col, INGOT_ALL_GROUPS, buf, buf_bytes, NULL, err, sizeof err);
    double t3 = now_us();
    if (n < 0) {
        fprintf(stderr, "bench_open_read: %s\n", err);
        ingot_close(t);
        return -1;
    }
    ingot_close(t);
    double t4 = now_us();
    sum = 0;
    for (int64_t i = 0; i < n; i++)
        sum += buf[i];
    double f1 = minflt();
    *s = (struct sample){t1 - t0, t2 - t1, t3 - t2, t4 - t3, t4 - t0, io_read_kib() - io0, f1 - f0};
    return 0;
}

static void drop_caches(void)
{
    sync();
    int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
    if (fd < 0 || write(fd, "3\n", 2) != 2) {
        perror("bench_open_read: /proc/sys/vm/drop_caches (cold runs need root)");
        exit(1);
    }
    close(fd);
}

static void report(const char *name, struct sample *s, int n)
{
    double *v = malloc(sizeof *v * (size_t)n);
    double med[7];
    for (int k = 0; k < 7; k++) {
        for (int i = 0; i < n; i++)
            v[i] = ((double *)&s[i])[k];
        med[k] = pct(v, n, 0.5);
    }
    for (int i = 0; i < n; i++)
        v[i] = s[i].total;
    printf("%s n=%d total_med=%.2f total_p10=%.2f total_p90=%.2f total_min=%.2f open_med=%.2f "
           "find_med=%.2f read_med=%.2f close_med=%.2f disk_kib_med=%.0f minflt_med=%.0f\n",
           name, n, med[4], pct(v, n, 0.1), pct(v, n, 0.9), pct(v, n, 0.0), med[0], med[1], med[2],
           med[3], med[5], med[6]);
    free(v);
}

int main(int argc, char **argv)
{
    int warm = 1000, cold = 0, i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "--warm") && i + 1 < argc)
            warm = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--cold") && i + 1 < argc)
            cold = atoi(argv[++i]);
        else
            break;
    }
    if (argc - i != 2) {
        fputs("usage: bench_open_read [--warm N] [--cold N] TABLE COLUMN\n", stderr);
        return 2;
    }
    const char *table = argv[i], *column = argv[i + 1];
    char err[512];
    ingot_table *t;
    if (ingot_open(table, &t, err, sizeof err)) {
        fprintf(stderr, "bench_open_read: %s\n", err);
        return 1;
    }
    buf_bytes = ingot_live_rows(t) * 8 + 8;
    ingot_close(t);
    buf = malloc(buf_bytes);
    if (!buf) return 1;

    struct sample s0;
    if (warm > 0) {
        struct sample *s = calloc((size_t)warm, sizeof *s);
        if (one_run(table, column, &s0)) return 1; /* untimed: warms the caches */
        for (int k = 0; k < warm; k++)
            if (one_run(table, column, &s[k])) return 1;
        report("warm", s, warm);
        free(s);
    }
    if (cold > 0) {
        struct sample *s = calloc((size_t)cold, sizeof *s);
        for (int k = 0; k < cold; k++) {
            drop_caches();
            if (one_run(table, column, &s[k])) return 1;
        }
        report("cold", s, cold);
        free(s);
    }
    printf("sum %" PRId64 "\n", sum);
    free(buf);
    return 0;
}
