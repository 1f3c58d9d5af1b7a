/* fuzz_levels - joint level streams (format 19) straight into their decoder:
 * the first 4 bytes choose the leaf's maxima, the entry count and how many
 * rows a row read wants. A stream that decodes must give levels within their
 * maxima, the row read's levels as far as it went, and the encoder's stream
 * of those levels must decode to them again. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format/page/joint_levels.h"
#include "util/buf.h"
#include "util/endian.h"
#include "util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4) return 0;
    uint8_t max_rep = data[0] % 8, max_def = data[1] % 31;
    size_t n = ig_ld16(data + 2) % 5000;
    if (!ig_joint_levels_alphabet(max_rep, max_def)) return 0;
    static uint8_t reps[5000], defs[5000], r2[5000], d2[5000], r3[5000], d3[5000];
    struct ig_error err = {0};
    size_t rows = (size_t)(data[0] >> 3) * n / 32, got = 0;
    int part = ig_joint_levels_decode_rows(data + 4, size - 4, n, max_rep, max_def, rows, r3, d3, &got, &err);
    if (!part && got > n) abort();
    for (size_t i = 0; !part && i < got; i++)
        if (d3[i] > max_def || (max_rep && r3[i] > max_rep)) abort();
    if (ig_joint_levels_decode(data + 4, size - 4, n, max_rep, max_def, reps, defs, &err)) return 0;
    for (size_t i = 0; i < n; i++)
        if (defs[i] > max_def || (max_rep && reps[i] > max_rep)) abort();
    if (part || memcmp(defs, d3, got) || (max_rep && memcmp(reps, r3, got))) abort();
    struct ig_buf b = IG_BUF_INIT;
    if (ig_joint_levels_encode(reps, defs, n, max_rep, max_def, &b, &err) ||
        ig_joint_levels_decode(b.data, b.len, n, max_rep, max_def, r2, d2, &err) ||
        memcmp(defs, d2, n) || (max_rep && memcmp(reps, r2, n)))
        abort();
    ig_buf_free(&b);
    return 0;
}
