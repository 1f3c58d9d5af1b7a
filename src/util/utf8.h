/* utf8.h - strict UTF-8 validation and encoding.
 *
 * "Strict" means exactly the well-formed sequences of Unicode 15 table 3-7:
 * no overlong forms, no UTF-16 surrogates (U+D800..U+DFFF), nothing above
 * U+10FFFF, no stray continuation bytes, no truncated sequences. String columns
 * hold only valid UTF-8, so every importer runs its text through this.
 *
 * ig_utf8_valid skips runs of ASCII eight bytes at a time (64 at the start
 * where the CPU has AVX-512, util/cpu.h), and takes a string of up to 16
 * bytes, or the last few bytes of a longer one, in one test when it is all
 * ASCII: training text is mostly ASCII, and the validator sits on the import
 * hot path (a CSV import asks it once a field). */
#ifndef IG_UTIL_UTF8_H
#define IG_UTIL_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* True when p[0..n) is entirely well-formed UTF-8 (n == 0 is valid). */
bool ig_utf8_valid(const uint8_t *p, size_t n);

/* Length of the longest valid UTF-8 prefix of p[0..n): equals n when the whole
 * buffer is valid, otherwise the offset of the first byte of the first bad
 * sequence (for "invalid UTF-8 at byte N" messages). */
size_t ig_utf8_valid_prefix(const uint8_t *p, size_t n);

/* Length (2..4) of the well-formed multi-byte sequence starting at p[0] (which
 * must be >= 0x80) given n >= 1 bytes available, or 0 if it is not one. Used by
 * scanners that handle ASCII themselves (the JSON string scanner). */
size_t ig_utf8_seq_len(const uint8_t *p, size_t n);

/* Encode code point cp into out (room for 4 bytes). Returns the number of bytes
 * written (1..4), or 0 without writing if cp is a surrogate or above U+10FFFF. */
size_t ig_utf8_encode(uint32_t cp, uint8_t out[4]);

#endif
