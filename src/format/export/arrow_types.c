/* arrow_types.c - the Arrow type of a column's values (arrow_view_int.h):
 * its type number and width in the IPC schema, its signedness, and its C Data
 * Interface format string. Which columns are shown, and in what shape, is
 * arrow_shape.c's. */
#include "arrow_view_int.h"

#include "format/model/quantize.h"
#include "format/model/schema.h"
#include "format/model/types.h"
#include "util/endian.h"

#include <stdio.h>
#include <string.h>

/* The Arrow type of a leaf's values, or false when the view does not show it. */
bool arv_value_type(const struct ig_colrec *c, uint8_t *tt, uint16_t *width)
{
    *width = 0;
    switch (c->lt.kind) { /* a logical type: Arrow's own */
    case IG_LT_DATE: *tt = AT_DATE, *width = 4; return true;
    case IG_LT_TIME: *tt = AT_TIME, *width = c->type == IG_T_INT32 ? 4 : 8; return true;
    case IG_LT_TIMESTAMP: *tt = AT_TIMESTAMP, *width = 8; return true;
    case IG_LT_DECIMAL: *tt = AT_DECIMAL, *width = 16; return true; /* decimal128 */
    case IG_LT_UUID:
    case IG_LT_FIXED: *tt = AT_FSB, *width = (uint16_t)c->lt.width; return true;
    case IG_LT_FLOAT16: *tt = AT_FLOAT, *width = 2; return true;
    default: break;
    }
    switch (ig_read_type(c->type, c->quantize)) {
    case IG_T_BOOL: *tt = AT_BOOL; return true;
    case IG_T_INT8:
    case IG_T_UINT8: *tt = AT_INT, *width = 1; return true;
    case IG_T_INT16:
    case IG_T_UINT16: *tt = AT_INT, *width = 2; return true;
    case IG_T_INT32:
    case IG_T_UINT32: *tt = AT_INT, *width = 4; return true;
    case IG_T_INT64:
    case IG_T_UINT64: *tt = AT_INT, *width = 8; return true;
    case IG_T_FLOAT32: *tt = AT_FLOAT, *width = 4; return true;
    case IG_T_FLOAT64: *tt = AT_FLOAT, *width = 8; return true;
    case IG_T_STRING: *tt = AT_UTF8; return true;
    case IG_T_BINARY: *tt = AT_BINARY; return true;
    default: return false; /* structs, blobs */
    }
}

bool arv_is_signed(uint8_t type)
{
    return type == IG_T_INT8 || type == IG_T_INT16 || type == IG_T_INT32 || type == IG_T_INT64;
}

/* The C Data Interface's format string of a leaf's values (its type, as
 * value_type shows it). */
static const char *plain_format(const struct ig_colrec *c)
{
    switch (ig_read_type(c->type, c->quantize)) {
    case IG_T_BOOL: return "b";
    case IG_T_INT8: return "c";
    case IG_T_UINT8: return "C";
    case IG_T_INT16: return "s";
    case IG_T_UINT16: return "S";
    case IG_T_INT32: return "i";
    case IG_T_UINT32: return "I";
    case IG_T_INT64: return "l";
    case IG_T_UINT64: return "L";
    case IG_T_FLOAT32: return "f";
    case IG_T_FLOAT64: return "g";
    case IG_T_STRING: return "u";
    default: return "z";
    }
}

void arv_c_format(const struct ig_colrec *c, char out[16])
{
    static const char units[] = "smun"; /* by ig_time_unit, from IG_UNIT_S */
    const struct ig_logical *lt = &c->lt;
    char u = lt->unit >= IG_UNIT_S && lt->unit <= IG_UNIT_NS ? units[lt->unit - IG_UNIT_S] : 's';
    switch (lt->kind) {
    case IG_LT_DATE: snprintf(out, 16, "tdD"); break;
    case IG_LT_TIME: snprintf(out, 16, "tt%c", u); break;
    case IG_LT_TIMESTAMP: snprintf(out, 16, "ts%c:%s", u, lt->utc ? "UTC" : ""); break;
    case IG_LT_DECIMAL: snprintf(out, 16, "d:%u,%u", lt->precision, lt->scale); break;
    case IG_LT_UUID:
    case IG_LT_FIXED: snprintf(out, 16, "w:%u", lt->width); break;
    case IG_LT_FLOAT16: snprintf(out, 16, "e"); break;
    default: snprintf(out, 16, "%s", plain_format(c)); break;
    }
}

void arv_put_value(uint8_t *o, const struct ig_values *x, size_t vi, unsigned width)
{
    if (x->is_bytes) { /* uuid, fixed_binary, a 16-byte decimal: little-endian as Arrow's */
        size_t n;
        const uint8_t *p = ig_values_bytes(x, vi, &n);
        if (n == width) memcpy(o, p, n);
        return;
    }
    uint64_t lane = x->lanes[vi];
    if (width == 16) { /* a decimal's int32 or int64, sign-extended (lanes are) */
        ig_st64(o, lane);
        ig_st64(o + 8, (int64_t)lane < 0 ? UINT64_MAX : 0);
        return;
    }
    if (width == 2 && x->lt.kind == IG_LT_FLOAT16) { /* the float32 read back is a half exactly */
        float f;
        uint32_t bits = (uint32_t)lane;
        memcpy(&f, &bits, 4);
        ig_st16(o, (uint16_t)ig_quantize_one(IG_Q_FP16, f));
        return;
    }
    switch (width) {
    case 1: *o = (uint8_t)lane; break;
    case 2: ig_st16(o, (uint16_t)lane); break;
    case 4: ig_st32(o, (uint32_t)lane); break;
    default: ig_st64(o, lane); break;
    }
}
