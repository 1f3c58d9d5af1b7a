#include "util/cpu.h"

#include <stdatomic.h>
#include <stdlib.h>

bool ig_cpu_avx512(void)
{
    static atomic_int known = -1; /* the same answer for every thread: racing first calls agree */
    int k = atomic_load_explicit(&known, memory_order_relaxed);
    if (k >= 0) return k;
    k = 0;
#if IG_HAVE_X8
    const char *off = getenv("INGOT_NO_AVX512");
    __builtin_cpu_init();
    k = !(off && *off && *off != '0') && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512bw");
#endif
    atomic_store_explicit(&known, k, memory_order_relaxed);
    return k;
}
