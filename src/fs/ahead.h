/* ahead.h - readahead of a column view's pages on object storage.
 *
 * A column file read front to back (cat columns/x, np.load of x.npy) needs
 * its pages in file order; on object storage each page missed is a round
 * trip the decoder waits for. The store's own readahead follows byte offsets
 * in the part object, which a column's pages do not (other columns' chunks
 * lie between its row groups, so each group restarted it). Here the pages of
 * the file's own leaf that come next, and their chunks' contexts, are asked
 * for by their footer ranges in the background: a window of stored bytes
 * that starts at 4 MiB and doubles to INGOT_S3_READAHEAD_MB (32), topped up
 * when half of it has been read, so decoding page i overlaps fetching the
 * pages after it in range GETs of 8 MiB, four in flight (store.h:
 * INGOT_S3_AHEAD_PIECE_MB).
 *
 * A read counts as sequential when it starts at the file's start or within
 * a few MiB of where the file's last read ended (the kernel's readahead
 * sends reads a little out of order from several threads); any other read
 * (a jump: np.load with mmap_mode, a random reader) ends the window, so
 * random access fetches only what it reads. Local parts are left to the
 * kernel. Memory: what is fetched goes into the store's bounded range cache
 * (INGOT_S3_CACHE_MB), at most about one and a half windows ahead of each
 * file being read (a top-up asks for a window when half the last is read).
 * Two readers of one file at different places read as jumps: neither is read
 * ahead for.
 *
 * The state is advice: threads that find another one updating it skip it. */
#ifndef IG_FS_AHEAD_H
#define IG_FS_AHEAD_H

#include <stdint.h>

#include "session.h"

struct fs_ahead;
struct fs_file;

/* State for one file's layout (NULL when out of memory: no readahead). */
struct fs_ahead *fs_ahead_new(void);
void fs_ahead_free(struct fs_ahead *a);

/* A read of [off, off + n) of view file f, whose first span is `span`:
 * fetch ahead of it if reads of f run sequentially. */
void fs_ahead_read(struct fs_session *s, const struct fs_file *f, struct fs_ahead *a, uint32_t span,
                   uint64_t off, uint64_t n);

#endif
