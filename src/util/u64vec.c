#include "u64vec.h"

#include <errno.h>
#include <stdlib.h>

int ig_u64vec_push(struct ig_u64vec *a, uint64_t x)
{
    if (a->n == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 64;
        uint64_t *p = realloc(a->v, cap * sizeof *p);
        if (!p) return -ENOMEM;
        a->v = p;
        a->cap = cap;
    }
    a->v[a->n++] = x;
    return 0;
}

int ig_u64vec_size(struct ig_u64vec *a, size_t n)
{
    if (n > a->cap) {
        size_t cap = a->cap ? a->cap : 64;
        while (cap < n)
            cap *= 2;
        uint64_t *p = realloc(a->v, cap * sizeof *p);
        if (!p) return -ENOMEM;
        a->v = p;
        a->cap = cap;
    }
    a->n = n;
    return 0;
}

void ig_u64vec_free(struct ig_u64vec *a)
{
    free(a->v);
    *a = (struct ig_u64vec){0};
}
