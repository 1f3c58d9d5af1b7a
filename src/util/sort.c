#include "sort.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void ig_sort_u64_with(uint64_t *v, size_t n, uint64_t *tmp)
{
    if (n < 2) return;
    if (n <= 32) { /* insertion sort: small dictionaries are common */
        for (size_t i = 1; i < n; i++) {
            uint64_t x = v[i];
            size_t j = i;
            for (; j && v[j - 1] > x; j--)
                v[j] = v[j - 1];
            v[j] = x;
        }
        return;
    }
    uint64_t *a = v, *b = tmp;
    uint64_t and_all = ~0ULL, or_all = 0;
    for (size_t i = 0; i < n; i++) {
        and_all &= v[i];
        or_all |= v[i];
    }
    uint64_t differ = and_all ^ or_all; /* the bytes some values differ in */
    for (unsigned sh = 0; sh < 64; sh += 8) {
        if (!((differ >> sh) & 0xFF)) continue;
        size_t cnt[257] = {0};
        for (size_t i = 0; i < n; i++)
            cnt[((a[i] >> sh) & 0xFF) + 1]++;
        for (int j = 0; j < 256; j++)
            cnt[j + 1] += cnt[j];
        for (size_t i = 0; i < n; i++)
            b[cnt[(a[i] >> sh) & 0xFF]++] = a[i];
        uint64_t *t = a;
        a = b;
        b = t;
    }
    if (a != v) memcpy(v, a, n * sizeof *v); /* an odd number of passes: the result is in tmp */
}

int ig_sort_u64(uint64_t *v, size_t n)
{
    if (n <= 32) {
        ig_sort_u64_with(v, n, NULL);
        return 0;
    }
    uint64_t *tmp = malloc(n * sizeof *tmp);
    if (!tmp) return -ENOMEM;
    ig_sort_u64_with(v, n, tmp);
    free(tmp);
    return 0;
}
