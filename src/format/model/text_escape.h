/* text_escape.h - a string in the text rendering (render.h): a backslash
 * before each \, newline, CR and tab (\\ \n \r \t), every other byte as it is.
 * Counting and copying only; JSON's escaping is render.c's. */
#ifndef IG_FORMAT_MODEL_TEXT_ESCAPE_H
#define IG_FORMAT_MODEL_TEXT_ESCAPE_H

#include <stddef.h>
#include <stdint.h>

/* Bytes p[0..n)'s text form adds: one per escaped byte, eight bytes a step
 * (for one string; the last few bytes a byte at a time). */
size_t ig_text_escapes(const uint8_t *p, size_t n);
/* The same over many strings' bytes at once: 64 bytes a step where the CPU
 * has AVX-512, else 16 with SSE2 on x86-64 (the same count). */
size_t ig_text_escapes_bulk(const uint8_t *p, size_t n);
/* p[0..n)'s text form written at o, which has room for 2n bytes; returns the
 * end of what was written. */
uint8_t *ig_text_copy_escaped(uint8_t *o, const uint8_t *p, size_t n);

#endif
