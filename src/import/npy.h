/* npy.h - NumPy .npy files as import input.
 *
 * A .npy holds one array: a 1-D array becomes one column of its dtype, a 2-D
 * float32 array (rows, D) one vector<float32, D> column (embeddings). Only
 * C-ordered, little-endian (or byte-sized) dtypes: <f4 <f8 |i1 <i2 <i4 <i8 |u1
 * <u2 <u4 <u8 |b1, and 1-D datetime64 and timedelta64 arrays as the table's
 * dates, timestamps and times (the dtypes a mount's columns/NAME.npy shows
 * them as, and the other units NumPy writes):
 *   <M8[D] date; <M8[W], <M8[M], <M8[Y] date (the week's, month's, year's
 *   first day); <M8[s|ms|us|ns] timestamp(unit); <M8[h], <M8[m]
 *   timestamp(s); <m8[ms|us|ns] time(unit) (0 <= value < one day);
 *   NaT is NULL. Units finer than ns and datetime64 without a unit are
 *   refused; a value a date (int32 days) or timestamp(s) cannot hold is an
 *   error naming its row.
 * Format versions 1.0, 2.0 and 3.0 (header length 2 or 4 bytes); the header
 * is checked strictly, and the data must be exactly rows x D x itemsize
 * bytes. */
#ifndef IG_IMPORT_NPY_H
#define IG_IMPORT_NPY_H

#include <stdint.h>

struct ig_error;

#include "format/model/types.h"

/* How an element becomes a lane (datetime64 and timedelta64). */
enum ig_npy_conv {
    IG_NPY_RAW = 0,    /* the element's bytes (little-endian) */
    IG_NPY_SCALE = 1,  /* int64 times `scale` (h, m to s; weeks to days), checked */
    IG_NPY_MONTHS = 2, /* int64 months since 1970-01: the month's first day */
    IG_NPY_YEARS = 3,  /* int64 years since 1970: the year's first day */
};

struct ig_npy {
    uint8_t type;       /* enum ig_type: the column's storage type */
    uint8_t width;      /* bytes per element (in the file) */
    struct ig_logical lt; /* datetime64, timedelta64: date, timestamp, time; else none */
    uint8_t conv;       /* enum ig_npy_conv */
    int64_t scale;      /* IG_NPY_SCALE's factor */
    uint32_t dim;       /* 0 for a 1-D array, else D (2-D float32 only) */
    uint64_t rows;
    uint64_t data_off;  /* where the elements start */
};

/* Bytes of one row in the file: an element, or D of them. */
uint64_t ig_npy_row_bytes(const struct ig_npy *n);

/* Read and check the header of the .npy open on fd (size bytes long). */
int ig_npy_open(int fd, uint64_t size, const char *path, struct ig_npy *n, struct ig_error *err);

/* The size the .npy being written to fd will have once whole, from the
 * `have` bytes written so far: 0 (n and *total filled), -EAGAIN while its
 * header is not all there, -EINVAL (with a message) for what is no .npy an
 * import takes. */
int ig_npy_size(int fd, uint64_t have, const char *path, struct ig_npy *n, uint64_t *total, struct ig_error *err);

/* The schema type text for it: "float32", "vector<float32, 768>",
 * "timestamp(us)", ... */
int ig_npy_type_text(const struct ig_npy *n, char *out, unsigned cap);

/* The lane of a datetime64 or timedelta64 element (conv and range applied):
 * 0, 1 for NaT (a NULL), or -ERANGE for a value the column's type cannot
 * hold. */
int ig_npy_time_lane(const struct ig_npy *n, const uint8_t *p, uint64_t *lane);

#endif
