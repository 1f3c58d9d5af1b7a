/* parquet_view_int.h - inside the Parquet view (parquet_view.h): what its
 * files share.
 *
 *   parquet_schema.c   the table's Parquet schema: elements, leaves, paths
 *   parquet_view.c     the layout: a row group's pages placed, sized from the
 *                      footer alone
 *   parquet_footer.c   the FileMetaData: its length at layout, its bytes when
 *                      read (ig_pqv_tail)
 *   parquet_entries.c  a decoded page's live rows as Parquet's levels and the
 *                      values they show
 *   parquet_render.c   a page's bytes; a chunk's dictionary and its codes
 *
 * The sizes below are the layout's and the renderer's both: what the layout
 * counts is what the renderer must write. Nothing here is for other modules. */
#ifndef IG_FORMAT_EXPORT_PARQUET_VIEW_INT_H
#define IG_FORMAT_EXPORT_PARQUET_VIEW_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "parquet_view.h"
#include "thrift_out.h"
#include "format/model/values.h"

/* Parquet's numbers (parquet.thrift) */
enum { PQ_BOOLEAN = 0, PQ_INT32 = 1, PQ_INT64 = 2, PQ_FLOAT = 4, PQ_DOUBLE = 5, PQ_BYTE_ARRAY = 6, PQ_FLBA = 7 };
enum { PQ_REQUIRED = 0, PQ_OPTIONAL = 1, PQ_REPEATED = 2 };
enum {
    PQ_CT_NONE = -1,
    PQ_CT_UTF8 = 0,
    PQ_CT_LIST = 3,
    PQ_CT_DECIMAL = 5,
    PQ_CT_DATE = 6,
    PQ_CT_TIMESTAMP_MILLIS = 9,
    PQ_CT_TIMESTAMP_MICROS = 10,
    PQ_CT_UINT_8 = 11,
    PQ_CT_UINT_16 = 12,
    PQ_CT_UINT_32 = 13,
    PQ_CT_UINT_64 = 14,
    PQ_CT_INT_8 = 15,
    PQ_CT_INT_16 = 16,
};
enum { PQ_ENC_PLAIN = 0, PQ_ENC_RLE = 3, PQ_ENC_RLE_DICTIONARY = 8 };
enum { PQ_DATA_PAGE = 0, PQ_DICTIONARY_PAGE = 2 };

struct pq_elem {
    const char *name;
    uint32_t name_len;
    int32_t type; /* -1: a group */
    int32_t rep, nchild, conv;
    uint32_t type_length; /* FIXED_LEN_BYTE_ARRAY: its bytes */
    struct ig_logical lt; /* a leaf's logical type: its LogicalType (and the decimal's scale, precision) */
};

struct pq_name {
    const char *p;
    uint32_t n;
};

/* A Parquet leaf: the ingot leaf it shows, its levels and its path. */
struct pq_leaf {
    uint32_t col;
    uint8_t sub, phys, max_rep, max_def;
    bool blob_list; /* a top-level list<blob> of the first layout: levels made up */
    bool nested;    /* under a list or struct: a page's values are its live_values */
    bool strings;   /* string or binary values: may show as a dictionary */
    uint32_t path0, npath;
    uint32_t leaf;  /* the ingot leaf index (its chunks) */
    uint32_t dim;   /* a vector<float32, D> shown as a list of D floats: D */
    uint32_t width; /* FIXED_LEN_BYTE_ARRAY: bytes a value */
    bool seconds;   /* a timestamp(s): shown as milliseconds (Parquet has no seconds), bounds too */
};

struct ig_pqv_schema {
    const struct ig_part *p;
    struct pq_elem *e;
    size_t ne, ecap;
    struct pq_leaf *l;
    size_t nl, lcap;
    struct pq_name *paths;
    size_t np, pcap;
    size_t elements_len; /* the footer's list of SchemaElements, in bytes */
    /* while it is built: */
    struct pq_name stack[256];
    uint32_t depth;
    struct ig_error *err;
};

static inline unsigned bit_width(unsigned max)
{
    unsigned w = 0;
    while (max >> w) w++;
    return w;
}

/* A level section of n entries: u32 length, then one run. Its length must be
 * known from the footer alone, so the run's kind depends on what the footer
 * proves, not on the levels: when every entry is the maximum (a flat page the
 * footer says holds no NULL) one RLE run (varint n << 1, the value in
 * ceil(width / 8) bytes), which readers take as "all valid" (DuckDB sums such
 * an int32 view in half the time of a bit-packed one); else one bit-packed run
 * of ceil(n / 8) groups of 8. */
static inline uint64_t levels_len(uint64_t n, unsigned width, bool all_max)
{
    if (!width) return 0;
    if (all_max) return 4 + tw_varint_len(n << 1) + (width + 7) / 8;
    uint64_t groups = (n + 7) / 8;
    return 4 + tw_varint_len(groups << 1 | 1) + groups * width;
}

/* page_header's length without writing it (a wide table's layout has tens of
 * thousands of pages): one byte per field header and stop, i32s as zigzag
 * varints; the page type and the encodings take one byte each. ig_pqv_render
 * checks the header it writes against this. */
static inline uint32_t page_header_len(uint8_t kind, uint32_t body, uint32_t entries)
{
    size_t body_len = 1 + tw_varint_len((uint64_t)body << 1);
    size_t fields = (1 + tw_varint_len((uint64_t)entries << 1)) + (kind == IG_PQV_DICT ? 1 : 3) * 2;
    return (uint32_t)(2 + 2 * body_len + 1 + fields + 1 + 1);
}

/* Room for the values of a page: count values of the leaf's type, bytes of
 * strings no more than the page's text. */
static inline uint64_t values_room(const struct pq_leaf *l, uint64_t count, uint64_t text)
{
    switch (l->phys) {
    case PQ_BOOLEAN: return (count + 7) / 8;
    case PQ_INT32:
    case PQ_FLOAT: return count * 4;
    case PQ_INT64:
    case PQ_DOUBLE: return count * 8;
    case PQ_FLBA: return count * l->width;
    default: return count * 4 + text;
    }
}

/* Dictionary codes of `slots` values: the bit width, then one bit-packed run
 * of ceil(slots / 8) groups of 8 (codes past the live values are zero). */
static inline uint64_t codes_len(uint64_t slots, unsigned width)
{
    uint64_t groups = (slots + 7) / 8;
    return 1 + tw_varint_len(groups << 1 | 1) + groups * width;
}

/* The page's live entries: levels, and for each defined one the value (and,
 * in a top-level list<blob>, the object within it) it shows. */
struct pq_entries {
    uint8_t *rep, *def;
    uint32_t *val, *obj;
    uint64_t *row; /* the row id of each value (blob paths) */
    size_t n, nval, cap, vcap;
};

/* ---- parquet_schema.c ---- */

/* A top-level list<blob> whose elements are never NULL: its rows' references
 * are stored as one value, and the view makes up its levels. */
bool pqv_is_top_blob_list(const struct ig_colrec *c);

/* ---- parquet_entries.c ---- */

/* The live entries of decoded page v (its deleted rows in del) of leaf l,
 * appended to e; -ENOMEM. */
int pqv_live_entries(const struct pq_leaf *l, const struct ig_values *v, const uint8_t *del,
                     struct pq_entries *e);
void pqv_entries_free(struct pq_entries *e);

/* ---- parquet_footer.c ---- */

/* The bytes of the footer's list of SchemaElements (kept in the schema). */
size_t pqv_schema_elements_len(const struct ig_pqv_schema *s);
/* The bytes of each of leaf l's min and max statistics in group lg of p, 0
 * when its chunk record holds no bounds. */
uint8_t pqv_bound_len(const struct ig_part *p, uint32_t lg, const struct pq_leaf *l);
/* The FileMetaData's length for the laid-out pages (without the u32 length
 * and "PAR1" after it). */
size_t pqv_footer_len(const struct ig_pqv *pv, const struct ig_pqv_schema *s);

#endif
