/* Every float32 through the shortest formatter (util/shortest.c via
 * ig_format_f32) and through the printf/strtof search (ig_format_f32_exact):
 * the texts must be equal, and ig_format_f32_len must count it. `exhaustive_f32 STRIDE` checks the floats whose bit
 * pattern is a multiple of STRIDE (the test suite runs a stride of 1021, a few
 * seconds; STRIDE 1, all 2^32 patterns, takes about 25 minutes on two cores).
 * Threads: one per online core.
 *
 * The same floats, eight at a time, through ig_f32_len_x8 (the AVX-512 text
 * length, where the CPU has it): its lengths must equal ig_format_f32_len's.
 * `exhaustive_f32 STRIDE len` checks lengths only, without the printf search:
 * ig_format_f32_len (which finds the decimal's shape, not its digits) against
 * the length of ig_format_f32's text, and the x8 lengths (all 2^32: a few
 * minutes on two cores). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/model/float_len_x8.h"
#include "format/model/float_text.h"
#include "format/model/render.h"

static uint64_t stride = 1;
static long nthreads = 1;
static int only_len; /* skip the printf search */
static int x8;       /* ig_f32_len_x8 runs here */

struct slice {
    long id;
    uint64_t checked, differ;
    uint64_t lanes[8];
    int nlanes;
};

/* The batch through ig_f32_len_x8 against the scalar length. */
static void check_x8(struct slice *sl)
{
    uint8_t len[8];
    unsigned theirs = ig_f32_len_x8(sl->lanes, len);
    for (int i = 0; i < sl->nlanes; i++) {
        float f;
        uint32_t bits = (uint32_t)sl->lanes[i];
        memcpy(&f, &bits, 4);
        size_t want = ig_format_f32_len(f);
        if (theirs >> i & 1) {
            /* only zero, NaN, infinities and the search-form powers of two */
            if ((bits & 0x7fffffffu) && ((bits >> 23) & 0xff) != 0xff && (bits & 0x7fffff)) {
                if (sl->differ++ < 5) fprintf(stderr, "%08x: x8 left it to the caller\n", bits);
            }
            continue;
        }
        if (len[i] != want && sl->differ++ < 5) fprintf(stderr, "%08x: x8 length %u, scalar %zu\n", bits, len[i], want);
    }
    sl->nlanes = 0;
}

static void *check_slice(void *arg)
{
    struct slice *sl = arg;
    char a[IG_FLOAT_TEXT_MAX], b[IG_FLOAT_TEXT_MAX];
    for (uint64_t u = (uint64_t)sl->id * stride; u < 0x100000000ull; u += stride * (uint64_t)nthreads) {
        uint32_t bits = (uint32_t)u;
        if (x8) {
            sl->lanes[sl->nlanes++] = bits | (uint64_t)0xdead << 40; /* the high half is not the float's */
            if (sl->nlanes == 8) check_x8(sl);
        }
        float f;
        memcpy(&f, &bits, 4);
        if (only_len) {
            sl->checked++;
            if (ig_format_f32(a, f) != ig_format_f32_len(f) && sl->differ++ < 5)
                fprintf(stderr, "%08x: text %s, counted %zu\n", bits, a, ig_format_f32_len(f));
            continue;
        }
        ig_format_f32(a, f);
        size_t nb = ig_format_f32_exact(b, f);
        sl->checked++;
        if ((strcmp(a, b) || ig_format_f32_len(f) != nb) && sl->differ++ < 5) fprintf(stderr, "%08x: shortest %s, search %s\n", bits, a, b);
    }
    if (x8 && sl->nlanes) check_x8(sl);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1) stride = strtoull(argv[1], NULL, 10);
    if (stride == 0) stride = 1;
    only_len = argc > 2 && strcmp(argv[2], "len") == 0;
    x8 = ig_f32_len_x8_usable();
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
    printf("%s exhaustive_f32 (stride %llu%s; eight at a time %s): %llu floats, %llu differ\n",
           differ ? "FAIL" : "PASS", (unsigned long long)stride, only_len ? ", lengths only" : "",
           x8 ? "too" : "not on this CPU", (unsigned long long)checked, (unsigned long long)differ);
    return differ != 0;
}
