/* reader.h - reading a column's pages out of a table.
 *
 * ig_reader holds one thread's scratch buffers. Loading a page preads exactly its
 * stored bytes, verifies the page checksum (a mismatch is -EIO naming the part,
 * column, group and page), takes the page's slice of the deletion bitmap and
 * decodes. A column is addressed by its column id, which is the same in every
 * part of a table (their schema hashes must match). */
#ifndef IG_FORMAT_READER_H
#define IG_FORMAT_READER_H

#include <stdbool.h>
#include <stdint.h>

#include "format/layout.h"
#include "format/part/footer.h"
#include "format/page/page.h"
#include "format/part/table.h"
#include "format/model/values.h"

struct ig_error;

struct ig_column_ref {
    uint32_t col;
    struct ig_colrec rec;   /* from part 0; name points into its footer */
    uint8_t erase_level;    /* effective: column override or table default */
    char blob_dir[800];     /* blob columns: "blobs/ESCAPED-NAME" (their mount directory) */
    struct ig_leaf_info li; /* how its pages decode (leaves) */
    uint32_t top;           /* column id of the top-level column it belongs to */
    bool nested;            /* part of a nested column (levels, struct, vector) */
};

/* Chunk contexts (format 12) the reader has read, parsed, by the hash and
 * size of their bytes (the chunk record names them), so that the blocks of
 * one chunk read one after the other read its context once, and so that rows
 * taken across many columns (ingot_take, rows/ID) do not read each column's
 * context again for every row: up to IG_READER_CONTEXTS_MOST of them, as many
 * as IG_READER_CONTEXT_BYTES of their bytes hold (unpacked: a packed context's
 * frame may hold many times its size), and always the
 * IG_READER_CONTEXTS used last; the one read last of the others goes first,
 * so that rows across more columns than it keeps still find most of theirs
 * (letting the oldest go, each row read every one again, and kept the
 * memory of 256 parsed contexts to no use: rows/ID of 300 such columns took
 * 1.06x the time they took with eight kept). With eight
 * and no more, a take of 1,000 rows of the
 * package index read 9 of its 16 columns' contexts again for every row once
 * a ninth column had one (1.07x the time). */
#define IG_READER_CONTEXTS 8
#define IG_READER_CONTEXTS_MOST 256 /* a lookup scans their keys: bounded */
#define IG_READER_CONTEXT_BYTES (16u << 20)
struct ig_reader_context { /* its hash is in ig_reader's ctx_keys */
    uint64_t used;         /* the reader's count of contexts asked for, when it last was */
    uint64_t read;         /* the reader's count of contexts read, when it was read */
    uint32_t size;         /* its stored bytes (with its hash, its key); 0: an empty slot */
    uint32_t held;         /* the bytes it counts against IG_READER_CONTEXT_BYTES: its
                            * entries unpacked (format 22), at least its stored bytes */
    struct ig_chunk_ctx *cx; /* allocated alone: stays put while the keys move */
};

struct ig_reader {
    struct ig_page_scratch s;
    struct ig_buf stored;
    struct ig_buf deleted;  /* page's deletion bits */
    struct ig_buf absent;   /* a block's share of them */
    struct ig_values block; /* one block of a page decoded block by block */
    struct ig_reader_context *ctx;
    uint64_t *ctx_keys;     /* each slot's hash, back to back: what a lookup scans (0: empty) */
    size_t nctx, ctx_cap;
    uint64_t ctx_held;      /* their bytes, unpacked (ig_reader_context.held) */
    uint64_t ctx_uses;      /* contexts asked for so far */
    uint64_t ctx_reads;     /* of them, read from their part (tests read it) */
    struct ig_buf ctx_bytes;
    enum ig_ahead ahead; /* its reads' (store.h): the caller's when it fetches ahead itself */
};

/* The context of the chunk holding page `page` of leaf `leaf` (NULL for a
 * chunk without one, and before format 12), read, checked against its
 * record's hash and parsed once, then from r's slots: valid until r has used
 * IG_READER_CONTEXTS others since, or is freed. -EIO naming the part, column, row
 * group and page when it is damaged. */
int ig_reader_context(struct ig_reader *r, const struct ig_part *p, uint32_t page, uint32_t leaf,
                      const struct ig_chunk_ctx **out, struct ig_error *err);

void ig_reader_free(struct ig_reader *r);

/* Look a column up by name (binary search in part 0's name index). -ENOENT with a
 * message if there is no such column. Struct nodes are found too (rec.leaf is
 * IG_NONE): their text is reassembled from their leaves. */
int ig_table_column(const struct ig_table *t, const char *name, size_t len,
                    struct ig_column_ref *out, struct ig_error *err);
/* Same, by column id. */
int ig_table_column_at(const struct ig_table *t, uint32_t col, struct ig_column_ref *out,
                       struct ig_error *err);

/* Where a read is: page `page` (a footer page index) of column c in part p,
 * whose row group starts at part-local row group_first_row. What every load
 * below is asked for, passed as one (SQLite's BtCursor, DuckDB's
 * ColumnScanState carry theirs the same way). */
struct ig_page_at {
    const struct ig_part *p;
    const struct ig_column_ref *c;
    uint32_t page;
    uint64_t group_first_row;
};

/* One page of a chunk: rec gets its record. On success *deleted (may be NULL
 * when no row of the page is deleted) points at the page's deletion bits,
 * valid until the next load. */
int ig_reader_load(struct ig_reader *r, const struct ig_page_at *at, struct ig_pagerec *rec,
                   struct ig_values *out, const uint8_t **deleted, struct ig_error *err);
/* ig_reader_load without the decode: the page's stored bytes read into
 * r->stored with every checksum checked, and its deletion bits (verify's
 * pass over pages it does not need the values of). */
int ig_reader_check(struct ig_reader *r, const struct ig_page_at *at, struct ig_pagerec *rec,
                    const uint8_t **deleted, struct ig_error *err);

/* The values in each row of the page (a sliding-window page:
 * ig_reader_rows_alone) into lens (u64 each, row_count of them) from its row
 * metadata, checked as ig_reader_check, with its deletion bits; -ENOTSUP,
 * without a message, for any other page (decode it instead). */
int ig_reader_row_lengths(struct ig_reader *r, const struct ig_page_at *at, struct ig_pagerec *rec,
                          struct ig_buf *lens, const uint8_t **deleted, struct ig_error *err);

/* Is page rec of column c a sliding-window page, whose rows decode alone from
 * the last base before them? (One block that can span its row group: a row
 * read, a row's file, an erase pick rows rather than decode it whole.) */
static inline bool ig_reader_rows_alone(const struct ig_column_ref *c, const struct ig_pagerec *rec)
{
    return c->li.slide_ok && rec->encoding == IG_PAGE_ENC_SLIDE;
}

/* One block of a page, read alone (rows/ID, a take, an erase): what to read,
 * and what the read found besides the values. */
struct ig_block_load {
    const struct ig_pagerec *rec; /* the page's record (the caller has it) */
    uint32_t block;               /* which of its blocks */
    /* NULL: every row of the block. Else only the rows set here (block-relative)
     * where the leaf reads values alone (flat strings and binary: an erase that
     * needs the erased values' text decodes those items, not the block; a
     * sliding-window page: ig_reader_rows_alone); every row otherwise. Whether
     * out holds only the picked rows: out->n (out->rows for levels) against the
     * block's row count. No labels for picked rows. */
    const uint8_t *pick;
    /* ...and of a flat leaf of fixed-width values too (ig_page_decode_picked's
     * lanes): a row read's; an erase takes those blocks whole */
    bool pick_lanes;
    /* 0, or (no pick) a row read's want of a nested leaf's block: its first
     * `first_rows` rows, which out->rows may then hold alone (the levels
     * decoded as far as them, ig_page_decode_leaf_rows) */
    uint32_t first_rows;
    struct ig_pagerec blk;        /* out: the block's record (first_row within the page) */
    const uint8_t *deleted;       /* out: its rows' deletion bits, NULL when none is set */
    /* out: its body as decoded (blk.body_size bytes, in the reader's buffers
     * until its next load), NULL when the decoder read none whole */
    const uint8_t *body;
};

/* One pread of exactly the block's stored bytes, its checksum, its deletion
 * bits, decoded into out. Pages of an older part are one block: the whole page. */
int ig_reader_load_block(struct ig_reader *r, const struct ig_page_at *at, struct ig_block_load *bl,
                         struct ig_values *out, struct ig_error *err);

/* Read a page's stored bytes and check them against their checksums (no decoding). */
int ig_reader_fetch(struct ig_reader *r, const struct ig_part *p, uint32_t page,
                    const struct ig_pagerec *rec, struct ig_error *err);
/* Check a page's stored bytes (page_bytes, rec->stored long): every block's
 * checksum and the page's, which for format 4 is its block records' hash. */
int ig_block_check(const struct ig_part *p, uint32_t page, const struct ig_pagerec *rec,
                   const uint8_t *page_bytes, struct ig_error *err);

/* Check that page `rec` continues a chunk at row `expected` within a group of
 * `group_rows` rows and belongs to `leaf`. */
int ig_chunk_page_check(const struct ig_part *p, uint32_t page, const struct ig_pagerec *rec,
                        uint32_t leaf, uint32_t expected, uint32_t group_rows,
                        struct ig_error *err);

#endif
