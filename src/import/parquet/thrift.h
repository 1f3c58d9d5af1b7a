/* thrift.h - a reader of Thrift's compact protocol, for Parquet's footer and
 * page headers.
 *
 * Just enough Thrift: structs are walked field by field (ig_tc_field), the
 * caller picks the fields it knows and skips the rest (ig_tc_skip), so a footer
 * written by a newer Parquet writer with fields we have never heard of still
 * reads. It does NOT write Thrift, does not know any IDL, and reads no sets or
 * maps beyond skipping them.
 *
 * Hostile input: every length, count and varint is checked against the buffer;
 * nesting is bounded (IG_TC_MAX_DEPTH); a failure makes the cursor sticky-bad
 * (c->bad), every later call returns 0 / nothing, and the caller turns c->bad
 * into one error naming the file. Nothing is allocated. */
#ifndef IG_IMPORT_PARQUET_THRIFT_H
#define IG_IMPORT_PARQUET_THRIFT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IG_TC_MAX_DEPTH 32

enum ig_tc_type {
    IG_TC_STOP = 0,
    IG_TC_TRUE = 1, /* a bool field's value is in its type */
    IG_TC_FALSE = 2,
    IG_TC_I8 = 3,
    IG_TC_I16 = 4,
    IG_TC_I32 = 5,
    IG_TC_I64 = 6,
    IG_TC_DOUBLE = 7,
    IG_TC_BINARY = 8,
    IG_TC_LIST = 9,
    IG_TC_SET = 10,
    IG_TC_MAP = 11,
    IG_TC_STRUCT = 12,
};

struct ig_tc {
    const uint8_t *p, *end;
    bool bad;
    const char *why; /* what was wrong, when bad */
};

static inline void ig_tc_init(struct ig_tc *c, const void *p, size_t len)
{
    c->p = p;
    c->end = c->p + len;
    c->bad = false;
    c->why = NULL;
}

/* The next field of the struct being read: 1 and its id and type, or 0 at the
 * struct's end (or when bad). *last carries the previous field id of this
 * struct (start it at 0): ids are stored as deltas. */
int ig_tc_field(struct ig_tc *c, int16_t *last, int16_t *id, uint8_t *type);

/* Values. A field of type IG_TC_TRUE/FALSE has its value in its type: use
 * ig_tc_bool_of(type). Integers accept the narrower types (an i32 field read
 * as i64), as Thrift's compact form is the same zigzag varint for all. */
int64_t ig_tc_int(struct ig_tc *c, uint8_t type);
static inline bool ig_tc_bool_of(uint8_t type) { return type == IG_TC_TRUE; }
/* A bool inside a list: one byte, 1 true, anything else false. */
bool ig_tc_list_bool(struct ig_tc *c);
double ig_tc_double(struct ig_tc *c);
/* A binary/string: pointer into the buffer and its length (not terminated). */
const uint8_t *ig_tc_binary(struct ig_tc *c, size_t *len);
/* A list or set header: element type and count (count checked against the
 * bytes left: each element takes at least one byte). */
uint32_t ig_tc_list(struct ig_tc *c, uint8_t *elem_type);

/* Skip a value of the given type (nested structs, lists, maps included). */
void ig_tc_skip(struct ig_tc *c, uint8_t type);

/* Mark the cursor bad with a reason (for the caller's own checks). */
void ig_tc_fail(struct ig_tc *c, const char *why);

#endif
