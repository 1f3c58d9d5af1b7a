#include "util/cpu.h"

#include <limits.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* INGOT_NO_AVX512 set (and not "0"): the plain paths everywhere. */
static bool turned_off(void)
{
    const char *off = getenv("INGOT_NO_AVX512");
    return off && *off && *off != '0';
}

bool ig_cpu_avx512(void)
{
    static atomic_int known = -1; /* the same answer for every thread: racing first calls agree */
    int k = atomic_load_explicit(&known, memory_order_relaxed);
    if (k >= 0) return k;
    k = 0;
#if IG_HAVE_X8
    __builtin_cpu_init();
    k = !turned_off() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512bw");
#endif
    atomic_store_explicit(&known, k, memory_order_relaxed);
    return k;
}

bool ig_cpu_bmi2(void)
{
    static atomic_int known = -1;
    int k = atomic_load_explicit(&known, memory_order_relaxed);
    if (k >= 0) return k;
    k = 0;
#if IG_HAVE_X8
    __builtin_cpu_init();
    k = !turned_off() && __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2");
#endif
    atomic_store_explicit(&known, k, memory_order_relaxed);
    return k;
}

/* Cores that a CPU bandwidth of quota per period lets run: rounded up (1.5
 * cores: 2 threads, each idle part of the time); 0 when unlimited. */
static unsigned quota_cores(long long quota, long long period)
{
    if (quota <= 0 || period <= 0) return 0;
    long long n = (quota + period - 1) / period;
    return n > 4096 ? 4096 : (unsigned)n;
}

static bool read_line(const char *dir, const char *file, char *out, size_t cap)
{
    char path[PATH_MAX];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, file) >= sizeof path) return false;
    FILE *f = fopen(path, "re");
    if (!f) return false;
    bool ok = fgets(out, (int)cap, f) != NULL;
    fclose(f);
    return ok;
}

/* The limit of the cgroup at dir: v2's cpu.max ("max 100000" or
 * "QUOTA PERIOD"), v1's cpu.cfs_quota_us (-1: none) and cpu.cfs_period_us. */
static unsigned cgroup_limit(const char *dir, bool v2)
{
    char a[64], b[64];
    long long quota = 0, period = 0;
    if (v2) {
        if (!read_line(dir, "cpu.max", a, sizeof a) || sscanf(a, "%lld %lld", &quota, &period) != 2) return 0;
    } else if (!read_line(dir, "cpu.cfs_quota_us", a, sizeof a) || !read_line(dir, "cpu.cfs_period_us", b, sizeof b) ||
               sscanf(a, "%lld", &quota) != 1 || sscanf(b, "%lld", &period) != 1) {
        return 0;
    }
    return quota_cores(quota, period);
}

/* The tightest limit on cgroup `path` under the hierarchy mounted at root and
 * on each of its ancestors (a parent's limit binds its children). Where the
 * path is not under root (a container that sees its own cgroup as the root
 * of the mount), the walk up reaches the mount's root, which is then that
 * container's cgroup. */
static unsigned limit_along(const char *root, const char *path, bool v2)
{
    char p[PATH_MAX], dir[PATH_MAX];
    if ((size_t)snprintf(p, sizeof p, "%s", path) >= sizeof p) return 0;
    unsigned best = 0;
    for (;;) {
        size_t n = strlen(p);
        while (n > 1 && p[n - 1] == '/') p[--n] = '\0';
        if ((size_t)snprintf(dir, sizeof dir, "%s%s", root, strcmp(p, "/") ? p : "") < sizeof dir) {
            unsigned c = cgroup_limit(dir, v2);
            if (c && (!best || c < best)) best = c;
        }
        char *slash = strrchr(p, '/');
        if (!slash || slash == p) {
            if (!strcmp(p, "/") || !*p) break;
            strcpy(p, "/");
        } else {
            *slash = '\0';
        }
    }
    return best;
}

/* Is `name` one of the comma-separated controllers in list? */
static bool has_controller(const char *list, size_t len, const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; i < len;) {
        size_t j = i;
        while (j < len && list[j] != ',') j++;
        if (j - i == n && !memcmp(list + i, name, n)) return true;
        i = j + 1;
    }
    return false;
}

unsigned ig_cpu_limit_at(const char *proc_cgroup, const char *sys_cgroup)
{
    FILE *f = fopen(proc_cgroup, "re");
    if (!f) return 0;
    char line[PATH_MAX + 128], root[PATH_MAX], probe[PATH_MAX];
    unsigned best = 0;
    while (fgets(line, sizeof line, f)) {
        /* ID:CONTROLLERS:PATH */
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2) continue;
        char *path = c2 + 1;
        path[strcspn(path, "\n")] = '\0';
        bool v2 = c2 == c1 + 1 && !strncmp(line, "0:", 2);
        if (v2) {
            /* the unified hierarchy: at the mount itself, or beside the v1
             * ones (a hybrid system) */
            snprintf(probe, sizeof probe, "%s/cgroup.controllers", sys_cgroup);
            if (access(probe, R_OK) == 0)
                snprintf(root, sizeof root, "%s", sys_cgroup);
            else
                snprintf(root, sizeof root, "%s/unified", sys_cgroup);
        } else if (has_controller(c1 + 1, (size_t)(c2 - c1 - 1), "cpu")) {
            /* mounted as cpu, or with cpuacct under their joint name (where
             * no cpu link beside it names that) */
            static const char *const names[] = {"cpu", "cpu,cpuacct", "cpuacct,cpu"};
            for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
                snprintf(root, sizeof root, "%s/%s", sys_cgroup, names[k]);
                if (access(root, X_OK) == 0) break;
            }
        } else {
            continue;
        }
        unsigned c = limit_along(root, path, v2);
        if (c && (!best || c < best)) best = c;
    }
    fclose(f);
    return best;
}

unsigned ig_cpu_cores(void)
{
    unsigned n = 0;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) n = (unsigned)CPU_COUNT(&set);
    if (!n) { /* a mask larger than cpu_set_t: what is online */
        long on = sysconf(_SC_NPROCESSORS_ONLN);
        n = on > 0 ? (unsigned)on : 1;
    }
    unsigned limit = ig_cpu_limit_at("/proc/self/cgroup", "/sys/fs/cgroup");
    return limit && limit < n ? limit : n;
}
