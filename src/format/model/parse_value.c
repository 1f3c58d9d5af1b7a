#include "format/model/parse_value.h"
#include "format/model/types.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/parse.h"
#include "util/utf8.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

void ig_type_int_range(uint8_t type, int64_t *min, int64_t *max)
{
    switch (type) {
    case IG_T_INT8: *min = INT8_MIN, *max = INT8_MAX; break;
    case IG_T_INT16: *min = INT16_MIN, *max = INT16_MAX; break;
    case IG_T_INT32: *min = INT32_MIN, *max = INT32_MAX; break;
    default: *min = INT64_MIN, *max = INT64_MAX;
    }
}

uint64_t ig_type_uint_max(uint8_t type)
{
    switch (type) {
    case IG_T_UINT8: return UINT8_MAX;
    case IG_T_UINT16: return UINT16_MAX;
    case IG_T_UINT32: return UINT32_MAX;
    default: return UINT64_MAX;
    }
}

int ig_parse_lane(uint8_t type, const char *p, size_t n, uint64_t *lane, struct ig_error *err)
{
    int rc;
    switch (type) {
    case IG_T_BOOL: {
        bool b;
        rc = ig_parse_bool(p, n, &b, err);
        if (!rc) *lane = b; /* b is unset after an error */
        return rc;
    }
    case IG_T_INT8:
    case IG_T_INT16:
    case IG_T_INT32:
    case IG_T_INT64: {
        int64_t min, max, x;
        ig_type_int_range(type, &min, &max);
        rc = type == IG_T_INT64 ? ig_parse_i64(p, n, &x, err)
                                : ig_parse_int_range(p, n, min, max, &x, err);
        if (!rc) *lane = (uint64_t)x;
        return rc;
    }
    case IG_T_UINT8:
    case IG_T_UINT16:
    case IG_T_UINT32:
    case IG_T_UINT64: {
        uint64_t x;
        rc = type == IG_T_UINT64 ? ig_parse_u64(p, n, &x, err)
                                 : ig_parse_uint_range(p, n, 0, ig_type_uint_max(type), &x, err);
        if (!rc) *lane = x;
        return rc;
    }
    case IG_T_FLOAT32: {
        float f;
        uint32_t b;
        rc = ig_parse_f32(p, n, &f, err);
        if (rc) return rc;
        memcpy(&b, &f, 4);
        *lane = b;
        return 0;
    }
    case IG_T_FLOAT64: {
        double d;
        rc = ig_parse_f64(p, n, &d, err);
        if (!rc) memcpy(lane, &d, 8);
        return rc;
    }
    default: return ig_err(err, -EINVAL, "not a number or bool type");
    }
}

int ig_parse_value(uint8_t type, const char *p, size_t n, struct ig_values *v,
                   struct ig_buf *scratch, struct ig_error *err)
{
    int rc;
    switch (type) {
    case IG_T_STRING:
        if (!ig_utf8_valid((const uint8_t *)p, n)) return ig_err(err, -EINVAL, "invalid UTF-8");
        rc = ig_values_push_bytes(v, p, n);
        break;
    case IG_T_BINARY:
        ig_buf_reset(scratch);
        rc = ig_parse_hex_binary(p, n, scratch, err);
        if (rc) return rc;
        rc = ig_values_push_bytes(v, scratch->data, scratch->len);
        break;
    default: {
        uint64_t lane;
        rc = ig_parse_lane(type, p, n, &lane, err);
        if (rc) return rc;
        rc = ig_values_push_lane(v, lane);
    }
    }
    return rc ? ig_err(err, -ENOMEM, "out of memory") : 0;
}
