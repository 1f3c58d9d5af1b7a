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

/* ---- logical types --------------------------------------------------------
 *
 * What a leaf's stored values mean, beside how they are stored (its type
 * above): a date is an int32 count of days, a timestamp an int64 count of its
 * unit, a decimal a scaled integer, a uuid sixteen bytes. The codecs, pages,
 * erasure and bounds see only the storage type; rendering (text, JSON, .npy),
 * parsing, the Parquet and Arrow views and the schema text see the logical
 * one. The numeric values of both enums are on disk (column record bytes 38,
 * 39, 44..51, format 11): never renumber. model/logical.h has the rest. */
enum ig_logical_kind {
    IG_LT_NONE = 0,      /* the storage type says it all */
    IG_LT_DATE = 1,      /* int32 days since 1970-01-01 */
    IG_LT_TIME = 2,      /* time of day: int32 milliseconds, int64 micro- or nanoseconds */
    IG_LT_TIMESTAMP = 3, /* int64 units since 1970-01-01T00:00:00 (UTC when adjusted) */
    IG_LT_DECIMAL = 4,   /* unscaled integer x 10^-scale: int32 (precision <= 9), int64
                            (<= 18), else 16 bytes little-endian two's complement */
    IG_LT_UUID = 5,      /* binary, every value 16 bytes */
    IG_LT_FIXED = 6,     /* binary, every value `width` bytes */
    IG_LT_FLOAT16 = 7,   /* float32 stored quantize=fp16 (reads as float32) */
};
#define IG_LT_COUNT 8

enum ig_time_unit { IG_UNIT_NONE = 0, IG_UNIT_S = 1, IG_UNIT_MS = 2, IG_UNIT_US = 3, IG_UNIT_NS = 4 };

#define IG_DECIMAL_MAX_PRECISION 38
#define IG_DECIMAL_INT32_DIGITS 9  /* the most digits an int32 decimal holds */
#define IG_DECIMAL_INT64_DIGITS 18 /* and an int64 one; more: 16 bytes */
#define IG_FIXED_MAX_WIDTH 65535   /* fixed_binary(N): N <= this */

struct ig_logical {
    uint8_t kind;      /* enum ig_logical_kind */
    uint8_t unit;      /* enum ig_time_unit: time and timestamp */
    bool utc;          /* timestamp: adjusted to UTC (rendered with Z) */
    uint8_t precision; /* decimal: 1..38 */
    uint8_t scale;     /* decimal: 0..precision */
    uint32_t width;    /* bytes of every value: uuid 16, fixed_binary N, a 16-byte decimal 16; else 0 */
};

/* Does a logical type render differently from its storage type (text, JSON)?
 * float16 reads and renders as the float32 it is stored as, fixed_binary as
 * binary. */
static inline bool ig_logical_renders(const struct ig_logical *lt)
{
    return lt->kind != IG_LT_NONE && lt->kind != IG_LT_FLOAT16 && lt->kind != IG_LT_FIXED;
}

#endif
