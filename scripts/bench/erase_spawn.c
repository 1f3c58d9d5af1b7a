// erase_spawn.c - run a command, report its wall time and peak RSS (used by erase_cost).
//
//   erase_spawn REPORT-FILE COMMAND [ARGS...]
//
// Writes "WALL_NS MAXRSS_KB" to REPORT-FILE; the exit status is the command's.
// Why not measure from Python directly: Python starts children with vfork, and Linux
// carries the parent's peak RSS over exec into the child's ru_maxrss, so a child
// of a 130 MB Python reports >= 130 MB. This small process fork()s, so its child
// starts from a ~1 MB high-water mark. The child's /proc io counters are credited
// to this process when it is reaped, and to the caller when this one is.
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: erase_spawn REPORT-FILE COMMAND [ARGS...]\n");
        return 2;
    }
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    pid_t pid = fork();
    if (pid < 0) return perror("fork"), 2;
    if (pid == 0) {
        execvp(argv[2], argv + 2);
        perror(argv[2]);
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) < 0) return perror("wait4"), 2;
    clock_gettime(CLOCK_MONOTONIC, &b);
    FILE *f = fopen(argv[1], "w");
    if (!f) return perror(argv[1]), 2;
    fprintf(f, "%lld %ld\n", (long long)(b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec),
            ru.ru_maxrss);
    fclose(f);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
