/* bench_open_list.c - small files as a loader reads them, for random_access.
 *
 *   bench_open_list < PATHS
 * For each path on standard input: open, read to the end, close. Prints the
 * milliseconds all of it took (paths are read first, not timed). A file that
 * cannot be read is an error (exit 1). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(void)
{
    size_t n = 0, cap = 1024;
    char **paths = malloc(cap * sizeof *paths), line[4096];
    while (paths && fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = '\0';
        if (!line[0]) continue;
        if (n == cap && !(paths = realloc(paths, (cap *= 2) * sizeof *paths))) return 2;
        paths[n++] = strdup(line);
    }
    if (!paths) return 2;
    static char buf[1 << 20];
    double t0 = now_ms();
    for (size_t i = 0; i < n; i++) {
        int fd = open(paths[i], O_RDONLY);
        if (fd < 0) return perror(paths[i]), 1;
        ssize_t r;
        while ((r = read(fd, buf, sizeof buf)) > 0) {
        }
        close(fd);
        if (r < 0) return perror(paths[i]), 1;
    }
    printf("%.1f\n", now_ms() - t0);
    return 0;
}
