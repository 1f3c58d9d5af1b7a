/* pqview.h - parquet/G.parquet in the mount: row group G as a Parquet file.
 *
 * The glue between the format's Parquet view (format/export/parquet_view.h,
 * which lays the file out from the footer and renders one page at a time) and
 * the daemon: layouts are built per inode and cached with the file's layout,
 * rendered pages are cached pieces like any view's. FUSE-free.
 *
 * A Parquet file shows the current generation only: once an erase or append
 * lands, reads of one opened before answer ESTALE (view.c). */
#ifndef IG_FS_PQVIEW_H
#define IG_FS_PQVIEW_H

#include "cache.h"
#include "format/export/parquet_view.h"
#include "session.h"

/* Lay out row group `group` now (caller holds the table lock for reading). */
int fs_pq_layout(struct fs_session *s, uint32_t group, struct ig_pqv **out);
void fs_pq_free(struct ig_pqv *v);

/* The bytes of page i of v (exactly its len), cached. */
int fs_pq_piece(struct fs_session *s, const struct ig_pqv *v, uint32_t i, struct fs_entry **out);

#endif
