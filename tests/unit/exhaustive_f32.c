/* Every float32 through the shortest formatter (util/shortest.c via
 * ig_format_f32) and through the printf/strtof search (ig_format_f32_exact):
 * the texts must be equal, and ig_format_f32_len must count it. `exhaustive_f32 STRIDE` checks the floats whose bit
 * pattern is a multiple of STRIDE (the test suite runs a stride of 1021, a few
 * seconds; STRIDE 1, all 2^32 patterns, takes about 25 minutes on two cores and
 * is recorded in docs/BENCHMARKS.md). Threads: one per online core. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/model/render.h"

static uint64_t stride = 1;
static long nthreads = 1;

struct slice {
    long id;
    uint64_t checked, differ;
};

static void *check_slice(void *arg)
{
    struct slice *sl = arg;
    char a[IG_FLOAT_TEXT_MAX], b[IG_FLOAT_TEXT_MAX];
    for (uint64_t u = (uint64_t)sl->id * stride; u < 0x100000000ull; u += stride * (uint64_t)nthreads) {
        uint32_t bits = (uint32_t)u;
        float f;
        memcpy(&f, &bits, 4);
        ig_format_f32(a, f);
        size_t nb = ig_format_f32_exact(b, f);
        sl->checked++;
        if ((strcmp(a, b) || ig_format_f32_len(f) != nb) && sl->differ++ < 5) fprintf(stderr, "%08x: shortest %s, search %s\n", bits, a, b);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1) stride = strtoull(argv[1], NULL, 10);
    if (stride == 0) stride = 1;
    nthreads = sysconf(_SC_NPROCESSORS_ONLN);
    if (nthreads < 1 || nthreads > 64) nthreads = 1;
    pthread_t t[64];
    struct slice sl[64];
    for (long i = 0; i < nthreads; i++) {
        sl[i] = (struct slice){i, 0, 0};
        if (pthread_create(&t[i], NULL, check_slice, &sl[i])) return 2;
    }
    uint64_t checked = 0, differ = 0;
    for (long i = 0; i < nthreads; i++) {
        pthread_join(t[i], NULL);
        checked += sl[i].checked;
        differ += sl[i].differ;
    }
    printf("%s exhaustive_f32 (stride %llu): %llu floats, %llu differ\n", differ ? "FAIL" : "PASS",
           (unsigned long long)stride, (unsigned long long)checked, (unsigned long long)differ);
    return differ != 0;
}
