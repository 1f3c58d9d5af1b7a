/* erase_journal.c - what an erase's rewrite of a file's bytes (a block, a page,
 * a chunk's context) changed, journaled as ranges: the differing bytes, and
 * zeros where the new image is shorter. */
#include "erase_int.h"
#include "format/part/journal.h"
#include "util/buf.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

/* Journal the bytes where new differs from old over [0, len) (new shorter than
 * old reads as zeros past its end), merged across small gaps. */
int erase_journal_changes(struct erase_ctx *x, const struct ig_part *p, uint64_t base,
                          const uint8_t *old, size_t old_len, const uint8_t *new, size_t new_len)
{
    size_t common = old_len < new_len ? old_len : new_len;
    for (size_t i = ig_first_difference(old, new, 0, common); i < old_len || i < new_len;) {
        /* a changed range: it ends where 33 equal bytes follow (past the shorter
         * buffer's end, where old bytes become zeros, every byte counts as changed
         * unless it is a zero over a zero) */
        size_t start = i, last = i;
        for (i++; i < old_len || i < new_len; i++) {
            uint8_t o = i < old_len ? old[i] : 0, n = i < new_len ? new[i] : 0;
            if (o != n)
                last = i;
            else if (i - last > 32)
                break;
        }
        size_t n = last - start + 1;
        /* what is past the new end is zeros: journaled as a range, not bytes */
        size_t data = start < new_len ? (last < new_len ? n : new_len - start) : 0;
        if (data && ig_journal_add(&x->j, p->name, base + start, new + start, data)) return -ENOMEM;
        if (n > data && ig_journal_zero(&x->j, p->name, base + start + data, n - data)) return -ENOMEM;
        x->rep->bytes_written += n;
        if (i < common) i = ig_first_difference(old, new, i, common);
        while ((i < old_len || i < new_len) && i >= common &&
               (i < old_len ? old[i] : 0) == (i < new_len ? new[i] : 0))
            i++;
    }
    return 0;
}
