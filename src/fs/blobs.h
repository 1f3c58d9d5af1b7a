/* blobs.h - the blobs/ directory of the mount.
 *
 *     blobs/COL/ID.ext        the object of row ID of a blob column
 *     blobs/COL/ID/K.ext      object K of row ID of a list<blob> column
 *
 * The extension comes from the object's magic bytes (kept in its reference at
 * import); none when unknown. A file's size is the object's size; reading it is
 * a pread of that range of the part's blob file, nothing else. The object's
 * checksum is verified the first time it is opened (then it is served from that
 * read); a mismatch or a truncated blob file is EIO for that object only. */
#ifndef IG_FS_BLOBS_H
#define IG_FS_BLOBS_H

#include <stdbool.h>
#include <stdint.h>

#include "blob/blob.h"
#include "inode.h"

struct fs_session;
struct fs_entry;

/* Column id of blob column `ordinal` (fs_blob_columns, session.h), or UINT32_MAX. */
uint32_t fs_blob_column(struct fs_session *s, uint32_t ordinal); /* column id */

/* The references of row `row` of blob column `ordinal`: -ENOENT if the row is
 * erased, out of range or NULL. *count objects at refs (24 bytes each); the
 * returned entry holds them until released. */
int fs_blob_row(struct fs_session *s, uint32_t ordinal, uint64_t row, const uint8_t **refs,
                uint32_t *count, struct fs_entry **hold);
/* One object of a row. */
int fs_blob_object(struct fs_session *s, uint32_t ordinal, uint64_t row, uint32_t k,
                   struct ig_blob_ref *ref, unsigned *kind, uint32_t *part);

/* Parse "ID[.ext]" / "K[.ext]": the number, and whether the extension matches. */
bool fs_blob_parse_name(const char *name, uint64_t *id, const char **ext);

/* Has this object been verified already? Marks it. */
bool fs_blob_verified(struct fs_session *s, uint32_t part, uint64_t offset, bool mark);

#endif
