/* groupfile.h - a row group as one file: parquet/G.parquet and arrow/G.arrow.
 *
 * The glue between the format's file views (format/export/parquet_view.h and
 * arrow_view.h, which lay a file out from the footer and render one page or
 * piece at a time) and the daemon: layouts are built per inode and cached with
 * the file's layout, rendered pages and pieces are cached like any view's.
 * FUSE-free.
 *
 * Both show the current generation only: once an erase or append lands, reads
 * of a file opened before answer ESTALE (view.c). */
#ifndef IG_FS_GROUPFILE_H
#define IG_FS_GROUPFILE_H

#include "cache.h"
#include "format/export/arrow_view.h"
#include "format/export/parquet_view.h"
#include "session.h"

/* Lay out row group `group` now (caller holds the table lock for reading). */
int fs_pq_layout(struct fs_session *s, uint32_t group, struct ig_pqv **out);
int fs_arrow_layout(struct fs_session *s, uint32_t group, struct ig_arv **out);
void fs_pq_free(struct ig_pqv *v);
void fs_arrow_free(struct ig_arv *v);

/* The bytes of Parquet page i of v (exactly its len), cached. */
int fs_pq_piece(struct fs_session *s, const struct ig_pqv *v, uint32_t i, struct fs_entry **out);
/* The view's footer (ig_pqv_tail), held in *out; ino and gen: the view file's
 * inode and the generation of its layout. */
int fs_pq_tail(struct fs_session *s, const struct ig_pqv *v, uint64_t ino, uint64_t gen, struct fs_entry **out);
/* The bytes of Arrow piece i of v (exactly its len), cached: pieces that decode
 * a page (not IG_ARV_ZERO or IG_ARV_END, whose bytes the layout holds). */
int fs_arrow_piece(struct fs_session *s, const struct ig_arv *v, uint32_t i, struct fs_entry **out);

#endif
