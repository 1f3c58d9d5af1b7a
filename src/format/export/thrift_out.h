/* thrift_out.h - a writer of Thrift's compact protocol, the encoding of
 * Parquet's page headers and footer, into a growable buffer.
 *
 * Only what Parquet's structures use: bool, i32/i64 fields, binary/string fields,
 * lists of i32, strings and structs, nested structs. Field ids must grow
 * within a struct (Parquet's structs are written in id order). Errors (out of
 * memory) are sticky: check tw.err once at the end.
 *
 * What it does not do: read (src/import/parquet/thrift.c reads), maps, sets,
 * doubles. */
#ifndef IG_FORMAT_EXPORT_THRIFT_OUT_H
#define IG_FORMAT_EXPORT_THRIFT_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

enum { TW_TRUE = 1, TW_FALSE = 2, TW_I32 = 5, TW_I64 = 6, TW_BINARY = 8, TW_LIST = 9, TW_STRUCT = 12 };

#define TW_MAX_DEPTH 16

struct tw {
    struct ig_buf *out;
    int16_t last[TW_MAX_DEPTH]; /* last field id written, per open struct */
    int depth;
    int err;
};

void tw_init(struct tw *w, struct ig_buf *out);
void tw_i32(struct tw *w, int16_t id, int32_t v);
/* A bool field: one byte, its value in the header's type nibble. */
void tw_bool(struct tw *w, int16_t id, bool v);
void tw_i64(struct tw *w, int16_t id, int64_t v);
void tw_binary(struct tw *w, int16_t id, const void *p, size_t n);
/* A struct field: fields follow, then tw_end. */
void tw_struct(struct tw *w, int16_t id);
void tw_end(struct tw *w);
/* A list field of n elements of elem_type; then n tw_elem_* calls (a struct
 * element: tw_elem_struct, its fields, tw_end). */
void tw_list(struct tw *w, int16_t id, uint8_t elem_type, uint32_t n);
void tw_elem_i32(struct tw *w, int32_t v);
void tw_elem_binary(struct tw *w, const void *p, size_t n);
void tw_elem_struct(struct tw *w);
/* The outermost struct's stop byte (tw_init opens it). */
void tw_finish(struct tw *w);

/* Bytes of v as an unsigned LEB128 varint, and writing it. */
size_t tw_varint_len(uint64_t v);
void tw_varint(struct tw *w, uint64_t v);

#endif
