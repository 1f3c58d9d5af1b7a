/* flatbuf_out.h - a forward writer of FlatBuffers, the encoding of Arrow IPC's
 * metadata (Schema, RecordBatch and Footer), into a growable buffer.
 *
 * FlatBuffers are usually built back to front; this writer goes forward, which
 * is all Arrow's few fixed tables need: a table is written with its scalar
 * fields and a slot for each reference field (a table, vector or string), and
 * whatever a slot refers to is written after it and patched in (uoffsets only
 * point forward). Every table has its own vtable, written just before it.
 * Positions are relative to the buffer's start (fbw_init), which the caller
 * keeps 8-byte aligned in the file: scalars, tables and vectors are aligned
 * to their size from there, as FlatBuffers' verifiers require.
 *
 * Errors (out of memory) are sticky: check w.err once at the end.
 *
 * What it does not do: read, share vtables, unions of more than a type tag
 * and a table, or default-value elision (every field given is written). */
#ifndef IG_FORMAT_EXPORT_FLATBUF_OUT_H
#define IG_FORMAT_EXPORT_FLATBUF_OUT_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

struct fbw {
    struct ig_buf *out;
    size_t base; /* where the flatbuffer starts in out */
    int err;
};

enum fb_kind { FB_U8, FB_I16, FB_I32, FB_I64, FB_REF };

/* A field of a table: id (its slot in the vtable), kind, value (scalars). */
struct fb_field {
    uint8_t id, kind;
    int64_t v;
};

#define FB_MAX_FIELDS 8

/* Start a flatbuffer at the end of out: its root reference, to be patched
 * with the root table's position (fbw_patch(w, 0, table)). */
void fbw_init(struct fbw *w, struct ig_buf *out);

/* A table of n fields. Returns its position; slots[i] is the position of
 * field i's reference when it is FB_REF (patch it with fbw_patch). */
size_t fbw_table(struct fbw *w, const struct fb_field *f, unsigned n, size_t *slots);

/* A vector of n elements of `size` bytes aligned to `align`: returns the
 * position of its length (what a reference points to); its elements follow
 * at +4, zeroed, for the caller to fill at fbw_at(). */
size_t fbw_vector(struct fbw *w, uint32_t n, size_t size, size_t align);
/* A string (length, bytes, NUL). */
size_t fbw_string(struct fbw *w, const char *s, size_t len);

/* Point the reference at `slot` to `target`. */
void fbw_patch(struct fbw *w, size_t slot, size_t target);
/* The bytes at a position (valid until the next write). */
uint8_t *fbw_at(struct fbw *w, size_t pos);
/* Zeros to a multiple of 8 bytes from the start; the length written. */
size_t fbw_finish(struct fbw *w);

#endif
