/* npy.h - NumPy .npy files as import input.
 *
 * A .npy holds one array: a 1-D array becomes one column of its dtype, a 2-D
 * float32 array (rows, D) one vector<float32, D> column (embeddings). Only
 * C-ordered, little-endian (or byte-sized) dtypes: <f4 <f8 |i1 <i2 <i4 <i8 |u1
 * <u2 <u4 <u8 |b1. Format versions 1.0, 2.0 and 3.0 (header length 2 or 4
 * bytes); the header is checked strictly, and the data must be exactly
 * rows x D x itemsize bytes. */
#ifndef IG_IMPORT_NPY_H
#define IG_IMPORT_NPY_H

#include <stdint.h>

struct ig_error;

struct ig_npy {
    uint8_t type;       /* enum ig_type */
    uint8_t width;      /* bytes per element */
    uint32_t dim;       /* 0 for a 1-D array, else D (2-D float32 only) */
    uint64_t rows;
    uint64_t data_off;  /* where the elements start */
};

/* Read and check the header of the .npy open on fd (size bytes long). */
int ig_npy_open(int fd, uint64_t size, const char *path, struct ig_npy *n, struct ig_error *err);

/* The size the .npy being written to fd will have once whole, from the
 * `have` bytes written so far: 0 (n and *total filled), -EAGAIN while its
 * header is not all there, -EINVAL (with a message) for what is no .npy an
 * import takes. */
int ig_npy_size(int fd, uint64_t have, const char *path, struct ig_npy *n, uint64_t *total, struct ig_error *err);

/* The schema type text for it: "float32", "vector<float32, 768>", ... */
int ig_npy_type_text(const struct ig_npy *n, char *out, unsigned cap);

#endif
