/* arrowview.h - arrow/G.arrow in the mount: row group G as an Arrow IPC file.
 *
 * The glue between the format's Arrow view (format/export/arrow_view.h, which
 * lays the file out and renders one piece at a time) and the daemon: layouts
 * are built per inode and cached with the file's layout, rendered pieces are
 * cached like any view's. FUSE-free. Like parquet/G.parquet it shows the
 * current generation only (view.c answers ESTALE once an erase lands). */
#ifndef IG_FS_ARROWVIEW_H
#define IG_FS_ARROWVIEW_H

#include "cache.h"
#include "format/export/arrow_view.h"
#include "session.h"

/* Lay out row group `group` now (caller holds the table lock for reading). */
int fs_arrow_layout(struct fs_session *s, uint32_t group, struct ig_arv **out);
void fs_arrow_free(struct ig_arv *v);

/* The bytes of piece i of v (exactly its len), cached: pieces that decode a
 * page (not IG_ARV_ZERO or IG_ARV_END, whose bytes the layout holds). */
int fs_arrow_piece(struct fs_session *s, const struct ig_arv *v, uint32_t i, struct fs_entry **out);

#endif
