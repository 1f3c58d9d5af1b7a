/* ranges.c - merging, splitting and multipart planning of byte ranges (ranges.h). */
#include "store/ranges.h"

#include <stdlib.h>

static int by_offset(const void *a, const void *b)
{
    const struct ig_range *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

size_t ig_ranges_coalesce(struct ig_range *r, size_t n, uint64_t gap)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (r[i].len) r[k++] = r[i];
    n = k;
    if (n < 2) return n;
    qsort(r, n, sizeof *r, by_offset);
    size_t out = 0;
    for (size_t i = 1; i < n; i++) {
        uint64_t end = r[out].off + r[out].len;
        /* no overflow: a range's end fits in 64 bits by the caller's sizes */
        if (r[i].off <= end || r[i].off - end <= gap) {
            uint64_t e2 = r[i].off + r[i].len;
            if (e2 > end) r[out].len = e2 - r[out].off;
        } else {
            r[++out] = r[i];
        }
    }
    return out + 1;
}

size_t ig_ranges_split(const struct ig_range *r, size_t n, uint64_t piece, struct ig_range *out,
                       size_t cap)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t pieces = piece ? (r[i].len + piece - 1) / piece : 1;
        if (pieces == 0) pieces = 1;
        uint64_t each = (r[i].len + pieces - 1) / pieces;
        for (uint64_t off = 0; off < r[i].len || (off == 0 && r[i].len == 0); off += each) {
            if (k == cap) return SIZE_MAX;
            uint64_t len = r[i].len - off < each ? r[i].len - off : each;
            out[k++] = (struct ig_range){r[i].off + off, len};
            if (!len) break;
        }
    }
    return k;
}

/* Emit [off, off + len) as parts of at most `most` bytes, each but a last
 * short one at least min (most >= 2 min: equal pieces of len / ceil(len /
 * most) >= most / 2 each). */
static bool emit(struct ig_part_plan *out, size_t cap, size_t *k, uint64_t off, uint64_t len,
                 bool upload, uint64_t most)
{
    if (!len) return true;
    uint64_t pieces = (len + most - 1) / most;
    uint64_t each = (len + pieces - 1) / pieces;
    for (uint64_t at = 0; at < len; at += each) {
        if (*k == cap) return false;
        out[(*k)++] = (struct ig_part_plan){off + at, len - at < each ? len - at : each, upload};
    }
    return true;
}

size_t ig_ranges_plan_parts(uint64_t size, uint64_t src_size, const struct ig_range *dirty,
                            size_t n, uint64_t min_part, uint64_t max_copy, uint64_t max_upload,
                            struct ig_part_plan *out, size_t cap)
{
    size_t k = 0, i = 0;
    uint64_t pos = 0;
    /* what can be copied ends where the old object ends */
    uint64_t copy_end = src_size < size ? src_size : size;
    while (pos < size) {
        /* the next byte that must be uploaded at or after pos */
        while (i < n && dirty[i].off + dirty[i].len <= pos)
            i++;
        uint64_t d = i < n ? (dirty[i].off > pos ? dirty[i].off : pos) : copy_end;
        if (d > copy_end) d = copy_end;
        if (d >= size) { /* the rest is clean: copy it (a last part may be short) */
            if (!emit(out, cap, &k, pos, size - pos, false, max_copy)) return SIZE_MAX;
            break;
        }
        if (d - pos >= min_part) { /* a clean run long enough to be a part of its own */
            if (!emit(out, cap, &k, pos, d - pos, false, max_copy)) return SIZE_MAX;
            pos = d;
        }
        /* an uploaded part from pos: every dirty range closer than min_part
         * to it joins (the clean bytes between could not be a part), and it
         * is at least min_part long */
        uint64_t end = d;
        if (i < n && dirty[i].off + dirty[i].len > end) end = dirty[i].off + dirty[i].len;
        if (d >= copy_end) end = size; /* past the old object: all new bytes */
        if (end < pos + min_part) end = pos + min_part;
        for (;;) {
            while (i < n && dirty[i].off < end + min_part) {
                if (dirty[i].off + dirty[i].len > end) end = dirty[i].off + dirty[i].len;
                i++;
            }
            if (end >= copy_end) {
                end = size;
                break;
            }
            if (i < n || copy_end - end >= min_part || copy_end == size) break;
            /* clean bytes left before the new tail, too few to be a part */
            end = size;
            break;
        }
        if (end > size) end = size;
        if (!emit(out, cap, &k, pos, end - pos, true, max_upload)) return SIZE_MAX;
        pos = end;
    }
    return k;
}
