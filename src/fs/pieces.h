/* pieces.h - a page's bytes as a column view shows them.
 *
 * A column view (columns/NAME, NAME.npy, the valid, values, offsets and f16
 * arrays, _rowid.npy, and the same under groups/G/) is laid out in pieces,
 * one per page (view.h, plan.h); a piece is made when a read first needs it
 * and kept in the session's cache under (part, page) and the view's variant
 * (cache.h). A plain page of a flat fixed-width column is copied from the
 * part's mapping; every other page is decoded through the block cache's
 * reader and rendered. An older generation's array keeps its shape: the rows
 * erased since read as their erased form (generations.h).
 *
 * What it does not do: lay files out or answer reads (view.c). */
#ifndef IG_FS_PIECES_H
#define IG_FS_PIECES_H

#include "cache.h"
#include "file.h"
#include "session.h"

/* The piece of file f over span sp, from the cache or made: held until
 * released (fs_cache_release). */
int fs_piece_get(struct fs_session *s, const struct fs_file *f, const struct fs_span *sp,
                 struct fs_entry **out);

#endif
