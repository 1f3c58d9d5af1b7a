/* staging.h - columns written through the mount.
 *
 *     np.save(mnt + '/columns/score.npy', a)    a new column (a new version)
 *     cp new.npy mnt/columns/score.npy          an existing one's values replaced
 *     rm mnt/columns/score                      the column dropped
 *     mv mnt/columns/score mnt/columns/label    the column renamed
 *
 * A write is staged: its bytes go to TABLE/.ingot/stage-N.npy as they come,
 * and the .npy header is checked as soon as it is whole (a dtype the column
 * cannot hold, or a row count other than the table's live rows: EINVAL on
 * that write, nothing changes). The write that completes the array commits it
 * (import/columns.h, one new version) before it returns, so its errno is the
 * commit's: np.save raises on it. The daemon serves no OPEN and hears of no
 * close of an existing file, so the end of the array, not a close, is what
 * commits; a stage that stops short is dropped when the file it was created
 * as is closed, after STAGE_IDLE_S seconds without a write, or at unmount, and
 * the daemon's log says so.
 *
 * Who may: what the erase rules allow (entry.h fs_may_change); the glue asks.
 * What it does not do: serve reads of a file being written (the kernel holds
 * the bytes it was given; a reader that had the old file open may see them
 * before the commit) or take more than FS_STAGE_MAX writes at once. */
#ifndef IG_FS_STAGING_H
#define IG_FS_STAGING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fs_session;

#define FS_STAGE_MAX    64
#define FS_STAGE_IDLE_S 120

struct fs_staging;

/* The session's stages (session.h holds them; the glue makes them at mount). */
struct fs_staging *fs_staging_new(void);
/* Drops every stage left (their files removed). */
void fs_staging_free(struct fs_staging *g);

/* A new file NAME.npy in columns/: a stage for column NAME (replacing it if
 * the table has it). *ino: the staging inode the kernel gets for it. -EINVAL
 * for a name that is not NAME.npy, -EBUSY with every stage taken. */
int fs_stage_create(struct fs_session *s, const char *file, uint64_t *ino);
/* columns/NAME.npy of column col truncated (opened to be rewritten): a stage
 * replacing its values, keyed by the view's inode. */
int fs_stage_rewrite(struct fs_session *s, uint32_t col, uint64_t ino);
/* Bytes at off of the file staged as ino: 0 (or the commit's result when they
 * complete the array). -ENOENT if ino is not being staged. */
int fs_stage_write(struct fs_session *s, uint64_t ino, uint64_t off, const void *buf, size_t n);
/* The file created as ino was closed: if its array is not whole, dropped. */
void fs_stage_closed(struct fs_session *s, uint64_t ino);
/* A staging inode's size so far; false if ino is no stage. */
bool fs_stage_size(struct fs_session *s, uint64_t ino, uint64_t *size);
/* Is ino a staging inode (FS_K_STAGE), whatever its state? */
bool fs_stage_is_inode(uint64_t ino);

/* rm columns/NAME (or any of its views): the column dropped, a new version
 * (format/ops/evolve.h). -ENOENT for no such column. */
int fs_column_drop(struct fs_session *s, uint32_t col);
/* mv columns/NAME columns/NEW, view `view` of column col to the file to_file
 * (the same view of NEW: NAME.npy to NEW.npy): the column renamed, a new
 * version (evolve.h). -EPERM when to_file is another view or no column's
 * file name, or col a struct's field; -EEXIST when a column answers to NEW already, -ENOENT for no
 * such column. */
int fs_column_rename(struct fs_session *s, uint32_t col, uint32_t view, const char *to_file);
/* renameat2(RENAME_EXCHANGE) of two files of one view in columns/: columns a
 * and b swap names in one version. -EPERM for a struct's field. */
int fs_column_exchange(struct fs_session *s, uint32_t a, uint32_t b);

#endif
