/* bench_fileread - read files the way a client of the mount would, and time it.
 *
 *   bench_fileread seq FILE [BLOCK_KIB]
 *       read FILE start to end with read(2) in BLOCK_KIB pieces (default 1024,
 *       as `cat` does on the mount, whose st_blksize is 1 MiB); prints
 *       bytes=.. secs=.. gbps=..  (GB = 1e9 bytes)
 *   bench_fileread rand FILE COUNT [SEED]
 *       COUNT preads of 4 KiB at uniformly random 4 KiB-aligned offsets; prints
 *       n=.. p50_us=.. p90_us=.. p99_us=.. max_us=.. mean_us=..
 *   bench_fileread first FILE...
 *       for each file: open(2), then read(2) of up to 4 KiB; the time from
 *       before open to the return of the first read; prints the same fields
 *       (and the per-file times with -v before the mode).
 *   bench_fileread evict FILE...
 *       drop these files' pages from the page cache (posix_fadvise DONTNEED)
 *
 * Everything goes through the page cache (no O_DIRECT), like cat or NumPy. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

static void stats(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
#define P(p) v[(size_t)((p) * (double)(n - 1) + 0.5)]
    printf("n=%zu p50_us=%.1f p90_us=%.1f p99_us=%.1f max_us=%.1f mean_us=%.1f\n", n, P(0.5),
           P(0.9), P(0.99), v[n - 1], sum / (double)n);
#undef P
}

static uint64_t rng = 0x9E3779B97F4A7C15ULL;
static uint64_t next(void)
{
    uint64_t z = (rng += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static int open_or_die(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        fprintf(stderr, "bench_fileread: %s: %s\n", path, strerror(errno));
        exit(1);
    }
    return fd;
}

static int do_seq(const char *path, size_t block)
{
    char *buf = aligned_alloc(4096, block);
    if (!buf) return 1;
    double t0 = now_us();
    int fd = open_or_die(path);
    uint64_t total = 0;
    for (;;) {
        ssize_t n = read(fd, buf, block);
        if (n < 0) {
            if (errno == EINTR) continue;
            fprintf(stderr, "bench_fileread: %s: %s\n", path, strerror(errno));
            return 1;
        }
        if (n == 0) break;
        total += (uint64_t)n;
    }
    close(fd);
    double secs = (now_us() - t0) / 1e6;
    printf("bytes=%" PRIu64 " secs=%.4f gbps=%.3f\n", total, secs, (double)total / secs / 1e9);
    free(buf);
    return 0;
}

static int do_rand(const char *path, size_t count)
{
    int fd = open_or_die(path);
    struct stat st;
    if (fstat(fd, &st) || st.st_size < 8192) {
        fprintf(stderr, "bench_fileread: %s: too small\n", path);
        return 1;
    }
    uint64_t blocks = (uint64_t)st.st_size / 4096;
    char buf[4096];
    double *lat = malloc(sizeof *lat * count);
    for (size_t i = 0; i < count; i++) {
        off_t off = (off_t)(next() % blocks) * 4096;
        double t0 = now_us();
        ssize_t n = pread(fd, buf, sizeof buf, off);
        lat[i] = now_us() - t0;
        if (n != (ssize_t)sizeof buf) {
            fprintf(stderr, "bench_fileread: %s: short read at %lld\n", path, (long long)off);
            return 1;
        }
    }
    close(fd);
    stats(lat, count);
    free(lat);
    return 0;
}

static int do_first(char **files, int n, int verbose)
{
    double *lat = malloc(sizeof *lat * (size_t)n);
    char buf[4096];
    for (int i = 0; i < n; i++) {
        double t0 = now_us();
        int fd = open_or_die(files[i]);
        ssize_t got = read(fd, buf, sizeof buf);
        lat[i] = now_us() - t0;
        close(fd);
        if (got <= 0) {
            fprintf(stderr, "bench_fileread: %s: no first byte\n", files[i]);
            return 1;
        }
        if (verbose) fprintf(stderr, "%s %.1f\n", files[i], lat[i]);
    }
    stats(lat, (size_t)n);
    free(lat);
    return 0;
}

static int do_evict(char **files, int n)
{
    for (int i = 0; i < n; i++) {
        int fd = open_or_die(files[i]);
        fdatasync(fd);
        int rc = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
        close(fd);
        if (rc) {
            fprintf(stderr, "bench_fileread: %s: fadvise: %s\n", files[i], strerror(rc));
            return 1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    int verbose = argc > 1 && !strcmp(argv[1], "-v");
    if (verbose) {
        argv++;
        argc--;
    }
    if (argc >= 3 && !strcmp(argv[1], "seq"))
        return do_seq(argv[2], (argc > 3 ? (size_t)atol(argv[3]) : 1024) * 1024);
    if (argc >= 4 && !strcmp(argv[1], "rand")) {
        if (argc > 4) rng = strtoull(argv[4], NULL, 10);
        return do_rand(argv[2], (size_t)atol(argv[3]));
    }
    if (argc >= 3 && !strcmp(argv[1], "first")) return do_first(argv + 2, argc - 2, verbose);
    if (argc >= 3 && !strcmp(argv[1], "evict")) return do_evict(argv + 2, argc - 2);
    fputs("usage: bench_fileread [-v] seq FILE [BLOCK_KIB] | rand FILE COUNT [SEED] | "
          "first FILE... | evict FILE...\n",
          stderr);
    return 2;
}
