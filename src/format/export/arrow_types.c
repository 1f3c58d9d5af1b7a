/* arrow_types.c - the Arrow type of a column's values (arrow_view_int.h):
 * its type number and width in the IPC schema, its signedness, and its C Data
 * Interface format string. Which columns are shown, and in what shape, is
 * arrow_shape.c's. */
#include "arrow_view_int.h"

#include "format/model/types.h"

/* The Arrow type of a leaf's values, or false when the view does not show it. */
bool arv_value_type(const struct ig_colrec *c, uint8_t *tt, uint8_t *width)
{
    *width = 0;
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
const char *arv_c_format(const struct ig_colrec *c)
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
