/* render.h - values as text: the bytes of `ingot cat` and of columns/NAME.
 *
 * One line per live row, in PostgreSQL COPY text format: NULL is \N; strings
 * escape \\ \n \r \t; binary is \x + lowercase hex; integers in decimal; bool
 * t/f; floats in the shortest form that round-trips (float_text.h), laid out
 * like Python's repr (1.0, 0.1, 1e+16, 1.5e-07), with NaN, Infinity,
 * -Infinity. float32 values use the shortest form that round-trips through
 * float32.
 *
 * JSON rendering (rows/ID) writes the same values as JSON: strings escaped per
 * RFC 8259, binary as "\\x..." hex strings, NaN/Infinity as strings.
 *
 * render.c renders, render_len.c measures without rendering, render_fixed.c
 * writes fixed-width values as NumPy's little-endian elements. */
#ifndef IG_FORMAT_RENDER_H
#define IG_FORMAT_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/model/values.h"

struct ig_buf;

/* The length ig_render_json_value would append for value i, when that needs
 * no rendering (a non-NULL number, bool, string or binary; not a blob, nor a
 * logical type rendered from bytes): true and *len; else false. */
bool ig_render_json_len(const struct ig_values *v, size_t i, size_t *len);
/* The same for values [i, i + n), added up: true when every one of them needs
 * no rendering. One call per vector or list instead of one per value. */
bool ig_render_json_len_run(const struct ig_values *v, size_t i, size_t n, uint64_t *len);
/* Each of values [i, i + n)'s JSON length added to acc[0..n): false (nothing
 * added) where one is not a number or is NULL. Float32s eight at a time where
 * the CPU can (float_len_x8.h). */
bool ig_render_json_lens_add(const struct ig_values *v, size_t i, size_t n, uint64_t *acc);

/* The length of k distinct fixed-width values of type `type` (given as
 * lanes; of logical type lt when not NULL), each counted counts[j] times (a census of a page's values,
 * enc/codec.h), as ig_render_text_lines writes them (without newlines) or,
 * with json, as JSON (ig_render_json_value). Float32 lengths come from this
 * thread's memo of recent floats, as a run's do. */
uint64_t ig_render_lanes_len_counted(uint8_t type, const struct ig_logical *lt, const uint64_t *lanes,
                                     const uint32_t *counts, size_t k, bool json);

/* Append value i of v (no newline). */
int ig_render_text_value(struct ig_buf *out, const struct ig_values *v, size_t i);
/* Append one line per value whose bit in `deleted` (NULL = none) is clear. */
int ig_render_text_lines(struct ig_buf *out, const struct ig_values *v, const uint8_t *deleted);
/* Length of ig_render_text_lines output without keeping it (uses scratch). */
int ig_render_text_len(const struct ig_values *v, const uint8_t *deleted, struct ig_buf *scratch,
                       uint64_t *len);

/* Append the live values as little-endian elements of `width` bytes (the type's
 * NumPy form: bool as 0/1 bytes, NULL as 0 or a quiet NaN), or with
 * as_validity one byte per live value, 1 when not NULL. */
int ig_render_fixed(struct ig_buf *out, const struct ig_values *v, const uint8_t *deleted,
                    bool as_validity);
/* Value i of a fixed-width v as one such element (NULL as 0 or NaN), at o. */
void ig_render_fixed_at(uint8_t *o, const struct ig_values *v, size_t i);
/* The same into an empty out, taking v's lanes as out's bytes when they already
 * are them (8-byte little-endian values, no NULL, nothing deleted): no copy. v is
 * left empty then. */
int ig_render_fixed_move(struct ig_buf *out, struct ig_values *v, const uint8_t *deleted);
/* The low 32 bits of n lanes as little-endian elements at o (float32 and
 * int32 lanes as NumPy holds them): one loop, which the compiler
 * vectorises; what every float32 scan narrows its decoded lanes with. */
void ig_lanes_put32(uint8_t *o, const uint64_t *lanes, size_t n);

/* The live values as the .npy file of their column holds them: a logical
 * type's NumPy element where it has one (logical.h, ig_logical_npy: dates
 * and timestamps as datetime64 counts, NULL NaT; decimals as float64), else
 * as ig_render_fixed. With move, v's lanes may become out's bytes, as
 * ig_render_fixed_move's. */
int ig_render_npy(struct ig_buf *out, struct ig_values *v, const uint8_t *deleted, bool move);

/* Append value i as a JSON value. */
int ig_render_json_value(struct ig_buf *out, const struct ig_values *v, size_t i);
/* Append a JSON string literal for the given bytes (escaping; invalid UTF-8 as \ufffd). */
int ig_render_json_string(struct ig_buf *out, const uint8_t *p, size_t n);
/* The length ig_render_json_string appends for p[0..n), counted. */
size_t ig_render_json_string_len(const uint8_t *p, size_t n);

#endif
