#include "npy.h"
#include "format/model/logical.h"
#include "format/model/types.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/io.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *descr;
    uint8_t type, width;
} dtypes[] = {{"<f4", IG_T_FLOAT32, 4}, {"<f8", IG_T_FLOAT64, 8}, {"|i1", IG_T_INT8, 1},
              {"<i1", IG_T_INT8, 1},    {"<i2", IG_T_INT16, 2},   {"<i4", IG_T_INT32, 4},
              {"<i8", IG_T_INT64, 8},   {"|u1", IG_T_UINT8, 1},   {"<u1", IG_T_UINT8, 1},
              {"<u2", IG_T_UINT16, 2},  {"<u4", IG_T_UINT32, 4},  {"<u8", IG_T_UINT64, 8},
              {"|b1", IG_T_BOOL, 1}};

/* datetime64 ('M') and timedelta64 ('m') dtypes by unit: what column they
 * fill and how. */
static const struct {
    char kind;
    const char *unit;
    uint8_t lt, time_unit, type, conv;
    int64_t scale;
} timetypes[] = {
    {'M', "D", IG_LT_DATE, 0, IG_T_INT32, IG_NPY_SCALE, 1},
    {'M', "W", IG_LT_DATE, 0, IG_T_INT32, IG_NPY_SCALE, 7},
    {'M', "M", IG_LT_DATE, 0, IG_T_INT32, IG_NPY_MONTHS, 1},
    {'M', "Y", IG_LT_DATE, 0, IG_T_INT32, IG_NPY_YEARS, 1},
    {'M', "h", IG_LT_TIMESTAMP, IG_UNIT_S, IG_T_INT64, IG_NPY_SCALE, 3600},
    {'M', "m", IG_LT_TIMESTAMP, IG_UNIT_S, IG_T_INT64, IG_NPY_SCALE, 60},
    {'M', "s", IG_LT_TIMESTAMP, IG_UNIT_S, IG_T_INT64, IG_NPY_RAW, 1},
    {'M', "ms", IG_LT_TIMESTAMP, IG_UNIT_MS, IG_T_INT64, IG_NPY_RAW, 1},
    {'M', "us", IG_LT_TIMESTAMP, IG_UNIT_US, IG_T_INT64, IG_NPY_RAW, 1},
    {'M', "ns", IG_LT_TIMESTAMP, IG_UNIT_NS, IG_T_INT64, IG_NPY_RAW, 1},
    {'m', "ms", IG_LT_TIME, IG_UNIT_MS, IG_T_INT32, IG_NPY_SCALE, 1},
    {'m', "us", IG_LT_TIME, IG_UNIT_US, IG_T_INT64, IG_NPY_SCALE, 1},
    {'m', "ns", IG_LT_TIME, IG_UNIT_NS, IG_T_INT64, IG_NPY_SCALE, 1},
};

/* A quoted descr '<M8[unit]' or '<m8[unit]' (d after the opening quote
 * missing): its entry in timetypes, 0 when it is no such dtype at all, or
 * -EINVAL for one whose unit is not taken. */
static int time_dtype(const char *d, size_t *which)
{
    if ((d[0] != '<' && d[0] != '|') || (d[1] != 'M' && d[1] != 'm') || d[2] != '8') return 0;
    if (d[3] != '[') return -EINVAL; /* no unit: generic datetime64 */
    const char *u = d + 4, *end = strchr(u, ']');
    if (!end || end[1] != '\'') return -EINVAL;
    for (size_t k = 0; k < sizeof timetypes / sizeof timetypes[0]; k++)
        if (timetypes[k].kind == d[1] && strlen(timetypes[k].unit) == (size_t)(end - u) &&
            !strncmp(u, timetypes[k].unit, (size_t)(end - u))) {
            *which = k;
            return 1;
        }
    return -EINVAL;
}

int ig_npy_time_lane(const struct ig_npy *n, const uint8_t *p, uint64_t *lane)
{
    int64_t x = (int64_t)ig_ld64(p), v;
    if (x == INT64_MIN) return 1; /* NaT */
    switch (n->conv) {
    case IG_NPY_MONTHS: {
        /* far past what int32 days hold (checked below), before -x + 11 can overflow */
        if (x > 72000000 || x < -72000000) return -ERANGE;
        int64_t y = x >= 0 ? x / 12 : -((-x + 11) / 12), m = x - 12 * y; /* floor */
        v = ig_days_from_civil(1970 + y, (unsigned)m + 1, 1);
        break;
    }
    case IG_NPY_YEARS:
        if (x > 6000000 || x < -6000000) return -ERANGE;
        v = ig_days_from_civil(1970 + x, 1, 1);
        break;
    default:
        if (__builtin_mul_overflow(x, n->scale, &v)) return -ERANGE;
    }
    if (n->lt.kind == IG_LT_TIME) {
        static const int64_t day[] = {0, 86400, 86400000, 86400000000, 86400000000000};
        if (v < 0 || v >= day[n->lt.unit]) return -ERANGE;
    }
    if (n->type == IG_T_INT32 && (v < INT32_MIN || v > INT32_MAX)) return -ERANGE;
    *lane = (uint64_t)v;
    return 0;
}

/* The value of 'key' in the header dict, as the text after "'key': ". */
static const char *dict_value(const char *h, const char *key)
{
    char pat[32];
    snprintf(pat, sizeof pat, "'%s':", key);
    const char *p = strstr(h, pat);
    if (!p) return NULL;
    p += strlen(pat);
    while (*p == ' ') p++;
    return p;
}

/* The header of the .npy at fd, of which `have` bytes exist: -EAGAIN (with
 * partial) when they do not hold all of it yet. */
static int npy_header(int fd, uint64_t size, bool partial, const char *path, struct ig_npy *n, struct ig_error *err)
{
    uint8_t pre[12];
    if (partial && size < 12) return -EAGAIN;
    if (size < 10 || ig_pread_full(fd, pre, 10, 0) || memcmp(pre, "\x93NUMPY", 6))
        return ig_err(err, -EINVAL, "%s: not a NumPy .npy file", path);
    uint64_t hlen, hoff;
    if (pre[6] == 1) {
        hlen = ig_ld16(pre + 8);
        hoff = 10;
    } else if ((pre[6] == 2 || pre[6] == 3) && size >= 12 && !ig_pread_full(fd, pre, 12, 0)) {
        hlen = ig_ld32(pre + 8);
        hoff = 12;
    } else {
        return ig_err(err, -EINVAL, "%s: unsupported .npy version %u.%u", path, pre[6], pre[7]);
    }
    if (hlen > 65536) return ig_err(err, -EINVAL, "%s: .npy header too long", path);
    if (hoff + hlen > size) return partial ? -EAGAIN : ig_err(err, -EINVAL, "%s: .npy header truncated", path);
    char *h = malloc(hlen + 1);
    if (!h) return ig_err(err, -ENOMEM, "out of memory");
    int rc = ig_pread_full(fd, h, hlen, hoff) ? ig_err(err, -EIO, "%s: cannot read the header", path) : 0;
    h[hlen] = '\0';
    const char *d = rc ? NULL : dict_value(h, "descr");
    const char *f = rc ? NULL : dict_value(h, "fortran_order");
    const char *s = rc ? NULL : dict_value(h, "shape");
    if (!rc && (!d || !f || !s)) rc = ig_err(err, -EINVAL, "%s: .npy header lacks descr, fortran_order or shape", path);
    *n = (struct ig_npy){0};
    if (!rc) {
        size_t k = 0, t = 0;
        for (; k < sizeof dtypes / sizeof dtypes[0]; k++)
            if (d[0] == '\'' && !strncmp(d + 1, dtypes[k].descr, 3) && d[4] == '\'') break;
        int time = d[0] == '\'' ? time_dtype(d + 1, &t) : 0;
        if (time > 0) {
            n->type = timetypes[t].type;
            n->width = 8;
            n->lt = (struct ig_logical){.kind = timetypes[t].lt, .unit = timetypes[t].time_unit};
            n->conv = timetypes[t].conv;
            n->scale = timetypes[t].scale;
        } else if (time < 0) {
            const char *q = strchr(d + 1, '\'');
            int len = q && q - d < 24 ? (int)(q - d + 1) : 12;
            rc = ig_err(err, -EINVAL,
                        "%s: dtype %.*s is not supported (datetime64 in D, W, M, Y, h, m, s, ms, us or ns; "
                        "timedelta64 in ms, us or ns)",
                        path, len, d);
        } else if (k == sizeof dtypes / sizeof dtypes[0]) {
            rc = ig_err(err, -EINVAL,
                        "%s: dtype %.12s is not supported (little-endian numbers, bool, datetime64 and "
                        "timedelta64 only)",
                        path, d);
        } else {
            n->type = dtypes[k].type, n->width = dtypes[k].width;
        }
    }
    if (!rc && strncmp(f, "False", 5))
        rc = ig_err(err, -EINVAL, "%s: Fortran-ordered arrays are not supported (np.ascontiguousarray)", path);
    uint64_t dims[3] = {0};
    int nd = 0;
    if (!rc) { /* "(N,)" or "(N, D)" */
        const char *p = s;
        if (*p++ != '(') rc = -EINVAL;
        while (!rc && *p != ')') {
            while (*p == ' ') p++;
            if (*p == ')') break;
            char *end;
            unsigned long long v = strtoull(p, &end, 10);
            if (end == p || nd == 3) {
                rc = -EINVAL;
                break;
            }
            dims[nd++] = v;
            p = end;
            while (*p == ' ') p++;
            if (*p == ',') p++;
        }
        if (rc || nd == 0 || nd > 2) rc = ig_err(err, -EINVAL, "%s: shape %.40s: a 1-D or 2-D array is needed", path, s);
    }
    free(h);
    if (rc) return rc;
    n->rows = dims[0];
    n->data_off = hoff + hlen;
    if (nd == 2) {
        if (n->type != IG_T_FLOAT32 || n->lt.kind || dims[1] == 0 || dims[1] > (1u << 20))
            return ig_err(err, -EINVAL, "%s: a 2-D array must be float32 (rows, D) with 1 <= D <= 1048576", path);
        n->dim = (uint32_t)dims[1];
    }
    return 0;
}

uint64_t ig_npy_row_bytes(const struct ig_npy *n)
{
    return (uint64_t)n->width * (n->dim ? n->dim : 1);
}

int ig_npy_open(int fd, uint64_t size, const char *path, struct ig_npy *n, struct ig_error *err)
{
    int rc = npy_header(fd, size, false, path, n, err);
    if (rc) return rc;
    uint64_t per_row = ig_npy_row_bytes(n);
    if (n->rows > (size - n->data_off) / per_row || n->data_off + n->rows * per_row != size)
        return ig_err(err, -EINVAL, "%s: %" PRIu64 " rows of %" PRIu64 " bytes do not match the file size",
                      path, n->rows, per_row);
    return 0;
}

int ig_npy_size(int fd, uint64_t have, const char *path, struct ig_npy *n, uint64_t *total, struct ig_error *err)
{
    int rc = npy_header(fd, have, true, path, n, err);
    if (rc) return rc;
    uint64_t per_row = ig_npy_row_bytes(n);
    if (n->rows > (UINT64_MAX - n->data_off) / per_row)
        return ig_err(err, -EINVAL, "%s: %" PRIu64 " rows is too many", path, n->rows);
    *total = n->data_off + n->rows * per_row;
    return 0;
}

int ig_npy_type_text(const struct ig_npy *n, char *out, unsigned cap)
{
    const struct ig_type_info *ti = ig_type_info(n->type);
    static const char *const units[] = {"", "s", "ms", "us", "ns"};
    int k = n->dim                           ? snprintf(out, cap, "vector<float32, %u>", n->dim)
            : n->lt.kind == IG_LT_DATE      ? snprintf(out, cap, "date")
            : n->lt.kind == IG_LT_TIMESTAMP ? snprintf(out, cap, "timestamp(%s%s)", units[n->lt.unit],
                                                       n->lt.utc ? ", UTC" : "")
            : n->lt.kind == IG_LT_TIME      ? snprintf(out, cap, "time(%s)", units[n->lt.unit])
                                            : snprintf(out, cap, "%s", ti->name);
    return k > 0 && (unsigned)k < cap ? 0 : -ENAMETOOLONG;
}
