/* parquet_view.h - a row group as a Parquet file, laid out from the footer.
 *
 * The mount's parquet/G.parquet: the live rows of row group G, every column, as
 * one Parquet file that DuckDB, pyarrow, pandas or Spark read in place. Layout:
 *
 *     "PAR1" | pages of leaf 0 | pages of leaf 1 | ... | FileMetaData | u32 | "PAR1"
 *
 * One Parquet data page (version 1, RLE/bit-packed levels, no compression)
 * per ingot page of each leaf, so a read at any offset decodes only the ingot
 * pages it covers (ig_pqv_render), but for dictionaries (below). Values are PLAIN, but for a string or
 * binary leaf whose chunk record counts its distinct values (format 6, when
 * they are at most half of them): its chunk is then a dictionary page (those
 * values, in the order the live rows first show them) and data pages of
 * RLE_DICTIONARY codes, as Parquet writers store such columns and engines read
 * fastest (DuckDB's `len()` over a dictionary of 10,000 captions is four times
 * faster than over 65,536 PLAIN values). Its codes are one data page for all
 * the chunk's ingot pages (DuckDB keeps a dictionary as such only while a
 * vector of 2,048 values lies in one page). Rendering either page needs the
 * chunk's dictionary: every ingot page of the chunk decoded once
 * (ig_pqv_dict_new), which the caller keeps for the other.
 *
 * Sizes come from the footer alone: a page's level count is its live rows
 * (flat leaves) or its entry count (nested leaves), and its values get room by
 * bounds the footer proves: live values x width for fixed-width types (exact
 * when the page has no NULL), 4 bytes + the text length for byte strings (a
 * value's text is never shorter than its bytes), a code of the dictionary's
 * width per live value. Room the values do not fill is zero: readers decode
 * num_values values and never look past them. A dictionary page holds exactly
 * the bytes the chunk record counts: erasing rows only removes values, and
 * what the live rows no longer use is made up by unused entries of spaces. Only two
 * kinds of page are decoded to be laid out: a nested page with erased rows (its
 * live entries are not in the footer) and a top-level list<blob> page (its
 * object count is not), each once per layout.
 *
 * Types: bool BOOLEAN; int8/16/32 and uint8/16/32 INT32 with INT_n/UINT_n;
 * int64 INT64; uint64 INT64 UINT_64; float32 FLOAT (quantised columns as the
 * float32 they read back as); float64 DOUBLE; string BYTE_ARRAY UTF8; binary
 * BYTE_ARRAY; blob a group (path: the object's mount path, size: int64); lists
 * the 3-level LIST form (group (LIST) { repeated group list { element } }),
 * structs groups; vector<float32, D> a LIST of D required FLOATs (a list of
 * vectors a LIST of them). A nullable field is OPTIONAL, else REQUIRED, so
 * Parquet's levels are ingot's own (checked leaf by leaf), but for a
 * vector's: one level deeper, made up from ingot's (a present vector is D
 * entries, their count from the footer's live values and entry count).
 *
 * The footer is not written by the layout, only counted (ig_pqv_tail writes
 * it when it is read), and the schema both need is built once per table
 * (ig_pqv_schema_new), so laying out a group of a 10,000-column table costs a
 * walk over its page records and no more.
 *
 * Statistics: null_count = 0 where the footer proves no live value is NULL,
 * and min_value/max_value of a flat numeric leaf whose chunk record bounds it
 * (format 9: bounds as written, taken again by an erase that reaches one;
 * deleted rows may leave them wider than the live rows, never narrower). No page
 * indexes. A group whose rows are all erased has no pages and its file no
 * row group (a chunk's data_page_offset would point at no page). An older
 * generation of the table is not laid out (the mount answers ESTALE). */
#ifndef IG_FORMAT_EXPORT_PARQUET_VIEW_H
#define IG_FORMAT_EXPORT_PARQUET_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "format/ops/reader.h"
#include "format/part/table.h"
#include "util/buf.h"
#include "util/error.h"

/* What a Parquet page of the view holds. */
enum ig_pqv_kind {
    IG_PQV_PLAIN = 0, /* levels and PLAIN values of one ingot page */
    IG_PQV_DICT = 1,  /* a chunk's dictionary page (its live values, numbered) */
    IG_PQV_CODES = 2, /* levels and dictionary codes of one ingot page */
};

/* One Parquet page: an ingot page as one Parquet leaf shows it, or a chunk's
 * dictionary. */
struct ig_pqv_page {
    uint64_t start, len;  /* its bytes in the file, header included */
    uint32_t page;        /* the ingot page (in the group's part); a dictionary: the chunk's first */
    uint32_t page_end;    /* IG_PQV_CODES: the ingot pages [page, page_end) (all the chunk's);
                             else page + 1 */
    uint32_t col;         /* the ingot leaf column */
    uint32_t entries;     /* level entries of its live rows (num_values) */
    uint32_t header_len;
    uint8_t sub;          /* a blob leaf shows as two: 0 path, 1 size */
    uint8_t phys;         /* Parquet physical type */
    uint8_t max_rep, max_def;
    bool no_nulls;        /* the footer proves no live value is NULL (statistics) */
    uint8_t kind;         /* enum ig_pqv_kind */
    uint8_t code_width;   /* IG_PQV_CODES: bits per code */
    uint8_t bound_len;    /* bytes of each of its leaf's min/max statistics, 0: none (every page of the leaf) */
    uint32_t dict;        /* not PLAIN: index of the chunk's dictionary page in ig_pqv.pages */
    uint32_t slots;       /* IG_PQV_CODES: codes the page has room for (>= its live values);
                             IG_PQV_DICT: the dictionary's entries */
    uint32_t dict_bytes;  /* IG_PQV_DICT: its entries' bytes together */
};

struct ig_pqv {
    uint32_t group, part;      /* global row group; its part */
    uint32_t part_group;       /* the group's number in its part */
    uint64_t group_first_row;  /* part-local */
    uint64_t rows;             /* live rows */
    uint64_t size;             /* the whole file */
    struct ig_pqv_page *pages;
    uint32_t npages;
    uint64_t tail_len;         /* FileMetaData, its u32 length, "PAR1": the file's last bytes */
};

/* The table's Parquet schema: its SchemaElements and leaves, the same for
 * every row group (built once, shared by their layouts; it points into t's
 * footer, so it lives no longer than t stays open). */
struct ig_pqv_schema;
int ig_pqv_schema_new(const struct ig_table *t, struct ig_pqv_schema **out, struct ig_error *err);
void ig_pqv_schema_free(struct ig_pqv_schema *s);
size_t ig_pqv_schema_bytes(const struct ig_pqv_schema *s); /* memory it holds */

/* Lay out row group `group` of t as it is now. r decodes the few pages that
 * need it. -EIO with a message on a footer that does not add up. */
int ig_pqv_layout(const struct ig_table *t, const struct ig_pqv_schema *s, uint32_t group, struct ig_reader *r,
                  struct ig_pqv *out, struct ig_error *err);
void ig_pqv_free(struct ig_pqv *v);

/* The file's last v->tail_len bytes (FileMetaData, its length, "PAR1")
 * appended to out. The layout counts them without writing them (a wide
 * table's footer is half the cost of laying it out, and the first bytes of a
 * file do not need it); -EIO if what is written differs from that count. */
int ig_pqv_tail(const struct ig_table *t, const struct ig_pqv_schema *s, const struct ig_pqv *v, struct ig_buf *out,
                struct ig_error *err);

/* A chunk's dictionary: the distinct values its live rows show, numbered in
 * the order they first come. Built from the chunk's ingot pages (every one
 * decoded through r) for v->pages[i], the chunk's IG_PQV_DICT page; -EIO if
 * they hold more than its chunk record counts. Read-only once built: threads
 * may share it. */
struct ig_pqv_dict;
int ig_pqv_dict_new(const struct ig_table *t, const struct ig_pqv *v, uint32_t i, struct ig_reader *r,
                    struct ig_pqv_dict **out, struct ig_error *err);
void ig_pqv_dict_free(struct ig_pqv_dict *d);
size_t ig_pqv_dict_mem(const struct ig_pqv_dict *d); /* memory it holds */

/* The page's bytes, exactly pg->len of them, appended to out: its ingot page is
 * loaded through r. A page that is not IG_PQV_PLAIN needs its chunk's
 * dictionary (v->pages[pg->dict]'s, ig_pqv_dict_new); else d may be NULL. */
int ig_pqv_render(const struct ig_table *t, const struct ig_pqv *v, const struct ig_pqv_page *pg,
                  const struct ig_pqv_dict *d, struct ig_reader *r, struct ig_buf *out, struct ig_error *err);

/* The leading "PAR1". */
#define IG_PQV_HEAD 4

#endif
