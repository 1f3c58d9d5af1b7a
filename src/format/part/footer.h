/* footer.h - a part file opened for reading: the footer used in place.
 *
 * Opening reads the 64-byte tail with one pread and maps the footer (one mmap, no
 * copy, no deserialisation). Only the header and the section table are checked at
 * open, so opening costs the same for 100 or 100,000 columns and allocates only
 * this struct. Every record is bounds-checked when it is read: the accessors below
 * return -EIO with a message naming the part and the record for anything that does
 * not fit the file, and decode fields into small caller-owned structs.
 *
 * Finding a column by name is a binary search over the name index. */
#ifndef IG_FORMAT_FOOTER_H
#define IG_FORMAT_FOOTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "blob/blob.h"
#include "format/layout.h"
#include "format/model/types.h"
#include "format/model/minmax.h"
#include "format/page/pagerec.h"
#include "store/store.h"

struct ig_error;
struct ig_obj;

struct ig_part {
    int fd;
    int blob_fd;          /* the part's blob file, or -1 (set by table.c) */
    struct ig_obj *obj;   /* a part on object storage (s3://, store.h): its object, read by
                             range through the store's cache; fd is then -1 and the footer a
                             private copy (one ranged GET of the tail and footer at open) */
    struct ig_obj *blob_obj; /* its blob object, or NULL (blob_fd is -1 for remote parts) */
    bool shared;          /* on shared storage (ig_fs_is_shared): stale copies happen */
    char *path;           /* for messages, owned */
    const char *name;     /* basename within path */
    uint64_t file_size;   /* at open */
    uint64_t tail_end;    /* where the tail read ends: file_size, or the end MANIFEST records */
    bool end_recorded;    /* MANIFEST records tail_end (its footer never moves: an erase
                             puts moved pages past the file's end instead) */
    uint8_t *map;         /* mmap of [map_offset, file_size), or a private copy */
    bool map_copied;      /* map is malloc'ed (ig_part_copy_footer), not mapped */
    size_t map_len;
    uint64_t map_offset;
    uint8_t *footer;      /* footer start inside map (writable only for erase) */
    const uint8_t *data;  /* mmap of [0, data_len) after ig_part_map_data, else NULL */
    size_t data_len;      /* footer_offset, or file_size for a part whose pages may lie after its tail */
    uint64_t footer_offset, footer_size;
    uint32_t version; /* format version of this part (IG_FORMAT_MIN_VERSION..IG_FORMAT_VERSION) */
    uint64_t root, generation; /* from the tail */
    /* header fields, copied once */
    uint64_t num_rows, deleted_rows, first_row_id;
    uint32_t num_columns, num_leaves, num_groups, num_pages, num_blocks;
    uint8_t erase_level;
    uint64_t schema_hash, chunks_hash;
    uint64_t sec_off[IG_SEC_COUNT], sec_size[IG_SEC_COUNT];
    /* The deletion bitmap when it is not in the footer (version 17: a part is
     * written without one, and its first erase puts it past the footer):
     * its file offset (0: in the footer, or none while no row is deleted)
     * and a copy read at open (one more read, for erased parts only). */
    uint64_t deletion_at;
    uint8_t *deletion_copy;
    /* The names the opened version gives records in place of the footer's (a
     * renamed column and its fields: MANIFEST's `name` lines), owned by the
     * table that opened the part (table.c); NULL: every record's own. */
    const struct ig_part_names *names;
};

struct ig_part_names {
    uint32_t n;
    uint32_t *col; /* ascending */
    char **name; /* NUL-terminated, in `arena` */
    uint32_t *len;
    char *arena;
    uint32_t *by_name; /* entries in (name, col) order: a lookup by name is a binary
                          search however many records a version renamed */
};

struct ig_colrec {
    const char *name;     /* points into the footer; NOT NUL-terminated */
    uint32_t name_len;
    uint32_t parent, leaf;
    uint8_t type, flags, max_rep, max_def, encoding, compression, erase_level, quantize;
    uint32_t page_size, dimension, num_children, block_size;
    uint8_t lists, null_mask;
    struct ig_logical lt; /* what a leaf's values mean (format 11; none before) */
};

struct ig_grouprec {
    uint64_t first_row;
    uint32_t row_count, first_page, page_count;
    uint64_t hash;
};

/* writable: map the footer read-write (erase); readers pass false. */
int ig_part_open(struct ig_part *p, const char *path, bool writable, struct ig_error *err);
/* The same with the tail ending at footer_end (MANIFEST's footer=; 0: the end
 * of the file): bytes a commit appended beyond it are not looked at. */
int ig_part_open_at(struct ig_part *p, const char *path, uint64_t footer_end, bool writable,
                    struct ig_error *err);
void ig_part_close(struct ig_part *p);
/* Replace the footer's mapping with a private copy read by pread: a long-lived
 * reader (the mount daemon) then survives the part file being truncated or
 * rewritten under it (a mapping would raise SIGBUS). Read-only parts only. */
int ig_part_copy_footer(struct ig_part *p, struct ig_error *err);
/* Map the page extents too (read-only), for a reader that serves page bytes in
 * place instead of copying them out (the mount daemon). Bounds are those of the
 * page records: every extent lies in [8, footer_offset). */
int ig_part_map_data(struct ig_part *p, struct ig_error *err);
/* What MANIFEST records as where part p's footer ends: its tail's end from
 * version 10 on (a footer that never moves; commits append past it), 0 for
 * an older part (an erase may move its footer: its tail is at the end of
 * the file). */
uint64_t ig_part_recorded_end(const struct ig_part *p);
/* Has the file on disk moved on from what p describes (another process erased
 * in place or appended: the tail's generation or the file's size differ, or the
 * tail cannot be read)? Then bytes failing p's checksums are newer bytes under
 * an older footer, not a stale cached copy. Reads the tail (on shared storage
 * this host's cached copy of it dropped first). */
bool ig_part_rewritten(const struct ig_part *p);

/* The part file's size now (fstat, or the object's size): past the size at
 * open where an erase or a commit has appended since. */
uint64_t ig_part_size_now(const struct ig_part *p);
/* Bytes [off, off + n) of the part file: one pread, or for a part on object
 * storage a range read of its object (cached, fetched only when not). A short
 * file is -EIO ("read failed: file truncated"). */
int ig_part_read(const struct ig_part *p, void *buf, size_t n, uint64_t off, struct ig_error *err);
/* The same, saying who reads ahead of it on object storage (store.h): a
 * mount's column view fetches its pages ahead itself. */
int ig_part_read_by(const struct ig_part *p, void *buf, size_t n, uint64_t off, enum ig_ahead ahead,
                    struct ig_error *err);
/* The part's blob file: is there one, its size, and [off, off + n) of one
 * object (ig_blob_read's bounds check), or raw bytes of the file (verify). */
bool ig_part_has_blob(const struct ig_part *p);
uint64_t ig_part_blob_size(const struct ig_part *p);
int ig_part_blob_read(const struct ig_part *p, const struct ig_blob_ref *ref, uint64_t off,
                      void *buf, size_t n, enum ig_ahead ahead);
int ig_part_blob_raw(const struct ig_part *p, void *buf, size_t n, uint64_t off);
/* Advice that [off, off + len) of the part (or its blob file) will be read:
 * posix_fadvise, or a background fetch into the store's cache. */
void ig_part_advise(const struct ig_part *p, bool blob, uint64_t off, uint64_t len);

/* Column record col, named as the opened version names it (p->names). */
int ig_part_column(const struct ig_part *p, uint32_t col, struct ig_colrec *out,
                   struct ig_error *err);
/* The same, named as the footer stores it (the name index's order, verify). */
int ig_part_column_stored(const struct ig_part *p, uint32_t col, struct ig_colrec *out,
                          struct ig_error *err);
/* Column id of leaf index `leaf`. */
int ig_part_leaf_column(const struct ig_part *p, uint32_t leaf, uint32_t *col,
                        struct ig_error *err);
/* Binary search: 0 and *col on success, -ENOENT if absent, -EIO if the index is corrupt. */
int ig_part_find(const struct ig_part *p, const char *name, size_t len, uint32_t *col,
                 struct ig_error *err);
/* The first column named name (in column id order: from version 10 a name may
 * repeat, a replaced column's record staying beside its replacement) that ok
 * accepts (NULL: any); -ENOENT if none. Names as the opened version gives
 * them: a renamed record is found by its new name only. */
int ig_part_find_where(const struct ig_part *p, const char *name, size_t len,
                       bool (*ok)(void *ctx, uint32_t col), void *ctx, uint32_t *col, struct ig_error *err);
int ig_part_group(const struct ig_part *p, uint32_t g, struct ig_grouprec *out,
                  struct ig_error *err);
/* Page range of (group, leaf), checked to lie inside the group's pages. */
int ig_part_chunk(const struct ig_part *p, uint32_t g, uint32_t leaf, uint32_t *first_page,
                  uint32_t *page_count, struct ig_error *err);
/* The same with group g's record already read (ig_part_group): a walk over a
 * group's 10,000 leaves reads it once. */
int ig_part_group_chunk(const struct ig_part *p, uint32_t g, const struct ig_grouprec *gr, uint32_t leaf,
                        uint32_t *first_page, uint32_t *page_count, struct ig_error *err);
/* What a chunk record counts of its leaf's values as written (version 6;
 * zeros before, and for leaves that are not strings or binary, or whose
 * distinct values were more than half of them): the distinct non-NULL values
 * and their bytes. Erasing rows only removes values, so the live rows' distinct
 * values are never more, nor their bytes (a Parquet view's dictionary page is
 * sized by these). */
struct ig_chunk_dict {
    uint32_t count, bytes;
};
int ig_part_chunk_dict(const struct ig_part *p, uint32_t g, uint32_t leaf, struct ig_chunk_dict *out,
                       struct ig_error *err);
/* A chunk's bounds (format 9; unbounded before, and for leaves that keep
 * none: model/minmax.h). -EIO on flags or reserved bytes this reader does not
 * know; their order is verify's to check. */
int ig_part_chunk_minmax(const struct ig_part *p, uint32_t g, uint32_t leaf, struct ig_minmax *out,
                         struct ig_error *err);
/* The chunk record of (g, leaf) in a footer image of part p (the mapped one,
 * or an erase's copy being edited: writable as the footer given is, like
 * strchr's result), and the bounds written into one (format 9 records only). */
uint8_t *ig_chunk_record(const struct ig_part *p, const uint8_t *footer, uint32_t g, uint32_t leaf);
size_t ig_chunk_record_size(const struct ig_part *p);
/* Where a chunk's context lies (format 12; layout.h): size 0 when it has none
 * (and before version 12). -EIO for a record out of bounds or with stray
 * bytes. */
struct ig_ctxrec {
    uint64_t offset, hash;
    uint32_t size;
};
int ig_part_chunk_ctx(const struct ig_part *p, uint32_t g, uint32_t leaf, struct ig_ctxrec *out,
                      struct ig_error *err);
/* The row group holding page `page` (binary search over the groups). */
int ig_part_page_group(const struct ig_part *p, uint32_t page, uint32_t *group, struct ig_error *err);
void ig_chunk_minmax_put(uint8_t *rec, const struct ig_minmax *m);
/* The page record, checked against the file (extent inside the data region, sizes). */
int ig_part_page(const struct ig_part *p, uint32_t page, struct ig_pagerec *out,
                 struct ig_error *err);

/* Has `ingot gc` released leaf `leaf`'s pages (layout.h, IG_PGF_RELEASED:
 * no version kept shows its column; its pages hold zeros)? Read from its
 * first chunk's first page: gc releases a leaf's every chunk at once
 * (verify checks that the others agree). */
bool ig_part_leaf_released(const struct ig_part *p, uint32_t leaf);
static inline bool ig_page_released(const struct ig_pagerec *rec)
{
    return (rec->flags & IG_PGF_RELEASED) != 0;
}

/* A page's blocks: each is read, checked and decoded on its own (layout.h,
 * "block record"). A page of a part older than format 4 is one block, the page
 * itself. */
uint32_t ig_page_nblocks(const struct ig_pagerec *page);
/* Block b of page `page` (whose record is rec): offset in the file, capacity up
 * to the next block, first row within the page, its counts, compression and
 * checksum, checked to lie inside the page. A released page has no blocks to
 * read: -ENODATA, saying so. */
int ig_part_block(const struct ig_part *p, uint32_t page, const struct ig_pagerec *rec, uint32_t b,
                  struct ig_pagerec *out, struct ig_error *err);
/* The block holding page-relative row `row` (binary search). */
int ig_part_block_of_row(const struct ig_part *p, uint32_t page, const struct ig_pagerec *rec,
                         uint32_t row, uint32_t *b, struct ig_pagerec *out, struct ig_error *err);

/* Deletion bitmap: row is part-local. Out-of-range rows read as not deleted. */
bool ig_part_row_deleted(const struct ig_part *p, uint64_t row);
/* Copy `count` bits starting at part-local row `first` into dst (LSB-first bytes).
 * Returns true if any bit is set. */
bool ig_part_deleted_bits(const struct ig_part *p, uint64_t first, uint32_t count, uint8_t *dst);

struct ig_pagex {
    uint32_t live_values;
    uint64_t node_text_len;
};
int ig_part_page_extra(const struct ig_part *p, uint32_t page, struct ig_pagex *out,
                       struct ig_error *err);

/* Merkle hash of row group pages [first, first + count) of a footer image (the
 * mapped one, or a copy being edited by an erase): records and extras. */
uint64_t ig_footer_group_hash(const struct ig_part *p, const uint8_t *footer, uint32_t first,
                              uint32_t count);

/* Raw section bytes (already bounds-checked at open). The deletion bitmap is
 * read through ig_part_deletion: it may not be in the footer. */
static inline const uint8_t *ig_part_section(const struct ig_part *p, enum ig_section s)
{
    return p->footer + p->sec_off[s];
}

/* The deletion bitmap's size when the part has one: ceil(num_rows / 64) u64 words. */
static inline uint64_t ig_part_deletion_bytes(const struct ig_part *p)
{
    return (p->num_rows / 64 + (p->num_rows % 64 != 0)) * 8;
}

/* The deletion bitmap (bit r of byte r / 8, LSB first: row r deleted) of the
 * footer image `footer` (the part's own, or a copy an erase or gc edits): in
 * its section 7, or the copy read from past the footer, or NULL for a part of
 * version 17 or later that has none. A part with deleted rows always has one
 * (open refuses it otherwise), of ig_part_deletion_bytes(p). */
static inline const uint8_t *ig_part_deletion_in(const struct ig_part *p, const uint8_t *footer)
{
    return p->sec_size[IG_SEC_DELETION] ? footer + p->sec_off[IG_SEC_DELETION] : p->deletion_copy;
}

static inline const uint8_t *ig_part_deletion(const struct ig_part *p)
{
    return ig_part_deletion_in(p, p->footer);
}

/* The Merkle root of the footer image `footer` with the deletion bitmap bm
 * (NULL: none): XXH3(header | row group records | bitmap), as the tail holds it. */
uint64_t ig_part_root(const struct ig_part *p, const uint8_t *footer, const uint8_t *bm);

#endif
