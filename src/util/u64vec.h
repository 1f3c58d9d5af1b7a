/* u64vec.h - a growable array of uint64_t (row ids, stream values being built). */
#ifndef IG_UTIL_U64VEC_H
#define IG_UTIL_U64VEC_H

#include <stddef.h>
#include <stdint.h>

struct ig_u64vec {
    uint64_t *v;
    size_t n, cap;
};

/* Append x, doubling the capacity when full. 0, or -ENOMEM (v unchanged). */
int ig_u64vec_push(struct ig_u64vec *a, uint64_t x);
/* Room for n values, a->n = n; what it held before is kept up to n, the rest
 * unset. Memory is kept between uses. 0, or -ENOMEM (a unchanged). */
int ig_u64vec_size(struct ig_u64vec *a, size_t n);
void ig_u64vec_free(struct ig_u64vec *a);

#endif
