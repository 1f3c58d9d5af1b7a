#include "format/model/types.h"

#include <string.h>

static const struct ig_type_info type_table[] = {
    [IG_T_BOOL] = {"bool", IG_PHYS_LANES, 1, false, false, "|b1"},
    [IG_T_INT8] = {"int8", IG_PHYS_LANES, 1, true, false, "|i1"},
    [IG_T_INT16] = {"int16", IG_PHYS_LANES, 2, true, false, "<i2"},
    [IG_T_INT32] = {"int32", IG_PHYS_LANES, 4, true, false, "<i4"},
    [IG_T_INT64] = {"int64", IG_PHYS_LANES, 8, true, false, "<i8"},
    [IG_T_UINT8] = {"uint8", IG_PHYS_LANES, 1, false, false, "|u1"},
    [IG_T_UINT16] = {"uint16", IG_PHYS_LANES, 2, false, false, "<u2"},
    [IG_T_UINT32] = {"uint32", IG_PHYS_LANES, 4, false, false, "<u4"},
    [IG_T_UINT64] = {"uint64", IG_PHYS_LANES, 8, false, false, "<u8"},
    [IG_T_FLOAT32] = {"float32", IG_PHYS_LANES, 4, false, true, "<f4"},
    [IG_T_FLOAT64] = {"float64", IG_PHYS_LANES, 8, false, true, "<f8"},
    [IG_T_STRING] = {"string", IG_PHYS_BYTES, 0, false, false, NULL},
    [IG_T_BINARY] = {"binary", IG_PHYS_BYTES, 0, false, false, NULL},
};

/* A blob column's values are its rows' references, 24 bytes each (blob.h). */
static const struct ig_type_info blob_info = {"blob", IG_PHYS_BYTES, 0, false, false, NULL};

const struct ig_type_info *ig_type_info(unsigned type)
{
    if (type == IG_T_BLOB) return &blob_info;
    if (!ig_type_is_primitive(type)) return NULL;
    return &type_table[type];
}

unsigned ig_type_from_name(const char *s, size_t n)
{
    for (unsigned t = IG_T_BOOL; t <= IG_T_BINARY; t++)
        if (strlen(type_table[t].name) == n && memcmp(type_table[t].name, s, n) == 0) return t;
    /* common aliases */
    if (n == 6 && !memcmp(s, "double", 6)) return IG_T_FLOAT64;
    if (n == 5 && !memcmp(s, "float", 5)) return IG_T_FLOAT32;
    if (n == 7 && !memcmp(s, "boolean", 7)) return IG_T_BOOL;
    if (n == 4 && !memcmp(s, "text", 4)) return IG_T_STRING;
    if (n == 4 && !memcmp(s, "blob", 4)) return IG_T_BLOB;
    return 0;
}
