/* types.h - logical column types and how each is stored.
 *
 * The numeric values of enum ig_type are on disk (column record byte 16): never
 * renumber. Nested and blob types are reserved here so that adding them does not
 * change the footer layout. */
#ifndef IG_FORMAT_TYPES_H
#define IG_FORMAT_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ig_type {
    IG_T_BOOL = 1,
    IG_T_INT8 = 2,
    IG_T_INT16 = 3,
    IG_T_INT32 = 4,
    IG_T_INT64 = 5,
    IG_T_UINT8 = 6,
    IG_T_UINT16 = 7,
    IG_T_UINT32 = 8,
    IG_T_UINT64 = 9,
    IG_T_FLOAT32 = 10,
    IG_T_FLOAT64 = 11,
    IG_T_STRING = 12,
    IG_T_BINARY = 13,
    /* reserved for later issues; their records already fit the layout */
    IG_T_LIST = 32,   /* repeated node; one child */
    IG_T_STRUCT = 33, /* group node; children follow in pre-order */
    IG_T_VECTOR = 34, /* fixed-size list (dimension in the column record) */
    IG_T_BLOB = 35,   /* references into the part's blob file (blob.h); with the
                         repeated flag a list<blob> */
};

/* How values of a type travel through the codecs. */
enum ig_phys {
    IG_PHYS_NONE = 0,  /* non-leaf (struct/list) */
    IG_PHYS_LANES = 1, /* fixed width, as uint64 lanes */
    IG_PHYS_BYTES = 2, /* variable length */
};

struct ig_type_info {
    const char *name;  /* schema spelling: "int64", "float32", ... */
    enum ig_phys phys;
    uint8_t width;     /* bytes in plain/npy form; 0 for bytes types */
    bool is_signed;    /* signed integer (lanes sign-extended) */
    bool is_float;
    const char *npy;   /* NumPy dtype descr ("<i8", "|b1", ...) or NULL */
};

/* NULL for an unknown or reserved type value. */
const struct ig_type_info *ig_type_info(unsigned type);
/* Types a leaf column can hold: the primitives and blob references. */
static inline bool ig_type_is_leaf(unsigned t) { return (t >= 1 && t <= 13) || t == 35; }
/* Parse a primitive type name; returns the type or 0. */
unsigned ig_type_from_name(const char *s, size_t n);
static inline bool ig_type_is_primitive(unsigned t) { return t >= IG_T_BOOL && t <= IG_T_BINARY; }
/* The type a leaf's values read back as: a quantised leaf (fp16, bf16, fp8
 * stored) reads as float32, every other as its own type. */
static inline uint8_t ig_read_type(unsigned type, unsigned quantize)
{
    return (uint8_t)(quantize ? IG_T_FLOAT32 : type);
}

#endif
