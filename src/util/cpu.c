#include "util/cpu.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
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

unsigned ig_cpu_cores(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int n = CPU_COUNT(&set);
        if (n > 0) return (unsigned)n;
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN); /* a mask larger than cpu_set_t: what is online */
    return n > 0 ? (unsigned)n : 1;
}
