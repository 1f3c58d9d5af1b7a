/* layout.h - the part file's bytes: sizes and field offsets (docs/FORMAT.md).
 *
 * A part file is
 *
 *     "INGOTP01" | page extents ... | footer | tail (64 bytes)
 *
 * The footer is flat little-endian arrays read in place: a 256-byte header whose
 * section table locates fixed-size record arrays. Every field below is read with
 * ig_ld* at these offsets, never by casting to a struct. Change nothing here
 * without bumping IG_FORMAT_VERSION. */
#ifndef IG_FORMAT_LAYOUT_H
#define IG_FORMAT_LAYOUT_H

/* What writers write. 22: chunk contexts packed under zstd; 21: sliding-window
 * pages in lists of floats; 20: float32 lanes as Huffman-coded exponents, the
 * expo scheme; 19: level streams of nested leaves as one rANS-coded stream;
 * 18: sliding-window pages where list items may be NULL; 17: no deletion
 * bitmap until the first erase; 16: plain bytes by their lengths where zstd
 * follows; 15: huffman's slots; 14: chunk value dictionaries; 13: chunk zstd
 * dictionaries; 12: chunk contexts, fsst, alp. */
#define IG_FORMAT_VERSION     22u
#define IG_FORMAT_VERSIONED 10u  /* names may repeat; moved pages may lie after the tail */
#define IG_FORMAT_MIN_VERSION 2u /* the oldest readers read: 3 only adds page encodings */
#define IG_FORMAT_BLOCKS 4u      /* the first version whose pages are made of blocks */
#define IG_FORMAT_CHUNK_DICT 6u  /* the first version whose chunk records count distinct values */
#define IG_FORMAT_CHUNK_STATS 9u /* the first version whose chunk records bound numeric values */
#define IG_FORMAT_LOGICAL 11u    /* the first version whose column records carry logical types */
#define IG_FORMAT_CHUNK_CTX 12u  /* the first version whose chunk records locate a chunk context */
#define IG_FORMAT_ZDICT 13u      /* the first whose blocks may be compressed with their chunk's zstd dictionary */
#define IG_FORMAT_VDICT 14u      /* the first whose chunk contexts may hold a value dictionary (vdict blocks) */
#define IG_FORMAT_HUFF_SLOTS 15u /* the first whose huffman streams may hold their items in slots */
#define IG_FORMAT_LAZY_DELETION 17u /* the first whose deletion bitmap may be absent (no row deleted) or past the footer */
#define IG_FORMAT_SLIDE_ITEM_NULLS 18u /* the first whose sliding-window pages may lie in a list<T?> leaf (pages with no NULL item) */
#define IG_FORMAT_JOINT_LEVELS 19u /* the first whose nested pages may hold their levels as one joint stream (IG_BODY_JOINT) */
#define IG_FORMAT_EXPO 20u       /* the first whose float32 streams may be expo (exponents under a Huffman code) */
#define IG_FORMAT_SLIDE_FLOATS 21u /* the first whose sliding-window pages may lie in a list of float32 or float64 */
/* the first whose chunk contexts may hold their entries as one zstd frame */
#define IG_FORMAT_CTX_ZSTD 22u
#define IG_PART_MAGIC "INGOTP01"
#define IG_PART_MAGIC_LEN 8
#define IG_NONE 0xFFFFFFFFu /* "no column/leaf/parent" in u32 fields */

/* ---- tail: the last 64 bytes of the file ---- */
#define IG_TAIL_SIZE 64
#define IG_TAIL_FOOTER_OFFSET 0 /* u64 */
#define IG_TAIL_FOOTER_SIZE 8   /* u64 */
#define IG_TAIL_ROOT 16         /* u64 Merkle root */
#define IG_TAIL_VERSION 24      /* u32 */
#define IG_TAIL_FLAGS 28        /* u32, 0 */
#define IG_TAIL_GENERATION 32   /* u64, bumped by every in-place change */
#define IG_TAIL_RESERVED 40     /* u64, 0 */
#define IG_TAIL_HASH 48         /* u64 XXH3 of bytes [0, 48) */
#define IG_TAIL_MAGIC 56        /* 8 bytes */
#define IG_TAIL_MAGIC_STR "INGOTEND"

/* ---- footer header ---- */
#define IG_HDR_SIZE 256
#define IG_HDR_MAGIC 0          /* 8 bytes */
#define IG_HDR_MAGIC_STR "IGFOOTER"
#define IG_HDR_VERSION 8        /* u32 */
#define IG_HDR_HEADER_SIZE 12   /* u32 = 256 */
#define IG_HDR_NUM_ROWS 16      /* u64 */
#define IG_HDR_DELETED_ROWS 24  /* u64 */
#define IG_HDR_FIRST_ROW_ID 32  /* u64 global id of this part's row 0 */
#define IG_HDR_NUM_COLUMNS 40   /* u32 schema nodes */
#define IG_HDR_NUM_LEAVES 44    /* u32 */
#define IG_HDR_NUM_GROUPS 48    /* u32 */
#define IG_HDR_NUM_PAGES 52     /* u32 */
#define IG_HDR_ERASE_LEVEL 56   /* u8 table default compliance level (1 or 2) */
#define IG_HDR_SCHEMA_HASH 64   /* u64 XXH3(columns|names|name_index|leaves) */
#define IG_HDR_CHUNKS_HASH 72   /* u64 XXH3(chunks) */
#define IG_HDR_SECTIONS 80      /* IG_SEC_COUNT x (u64 offset, u64 size) */
#define IG_HDR_NUM_BLOCKS 240   /* u32 block records (version 4), else 0 */
#define IG_HDR_DELETION_AT 248  /* u64 file offset of the deletion bitmap when it is not in the
                                  footer (version 17: put past the footer by the first erase);
                                  0: in the footer, or none (no row deleted) */

enum ig_section {
    IG_SEC_COLUMNS = 0,    /* num_columns x IG_COL_SIZE */
    IG_SEC_NAMES = 1,      /* name heap (UTF-8, no terminators) */
    IG_SEC_NAME_INDEX = 2, /* num_columns x u32, column ids ordered by name bytes */
    IG_SEC_LEAVES = 3,     /* num_leaves x u32, column id of each leaf */
    IG_SEC_GROUPS = 4,     /* num_groups x IG_GRP_SIZE */
    IG_SEC_CHUNKS = 5,     /* num_groups x num_leaves x IG_CHK_SIZE */
    IG_SEC_PAGES = 6,      /* num_pages x IG_PG_SIZE */
    IG_SEC_DELETION = 7,   /* ceil(num_rows / 64) x u64, bit r = row r deleted */
    IG_SEC_EXTRA = 8,      /* num_pages x IG_PX_SIZE page extras, parallel to the pages */
    IG_SEC_BLOCKS = 9,     /* num_blocks x IG_BLK_SIZE block records (version 4; empty before) */
    IG_SEC_COUNT = 10
};

/* ---- column record (schema node, pre-order) ---- */
#define IG_COL_SIZE 64
#define IG_COL_NAME_OFF 0       /* u32 into the name heap */
#define IG_COL_NAME_LEN 4       /* u32 */
#define IG_COL_PARENT 8         /* u32 column id or IG_NONE */
#define IG_COL_LEAF 12          /* u32 leaf index or IG_NONE */
#define IG_COL_TYPE 16          /* u8 enum ig_type */
#define IG_COL_FLAGS 17         /* u8 IG_COLF_* */
#define IG_COL_MAX_REP 18       /* u8 */
#define IG_COL_MAX_DEF 19       /* u8 */
#define IG_COL_ENCODING 20      /* u8 forced scheme, 0 = auto */
#define IG_COL_COMPRESSION 21   /* u8 enum ig_compression_policy */
#define IG_COL_ERASE_LEVEL 22   /* u8 0 = table default, else 1 or 2 */
#define IG_COL_QUANTIZE 23      /* u8 0 = none (reserved: 1 fp16 2 bf16 3 fp8_e4m3 4 fp8_e5m2) */
#define IG_COL_PAGE_SIZE 24     /* u32 target page bytes */
#define IG_COL_DIMENSION 28     /* u32 vector dimension, else 0 */
#define IG_COL_NUM_CHILDREN 32  /* u32 */
#define IG_COL_LISTS 36         /* u8 list levels around the inner type */
#define IG_COL_NULL_MASK 37     /* u8 bit j: level j may be null (bit 0 = the field) */
#define IG_COL_LOGICAL 38       /* u8 enum ig_logical_kind (version 11; 0 before) */
#define IG_COL_UNIT 39          /* u8 enum ig_time_unit of a time or timestamp, else 0 */
#define IG_COL_BLOCK_SIZE 40    /* u32 target block bytes the schema asked for, 0 = the
                                   writer's choice, 0xFFFFFFFF = one block per page */
#define IG_COL_LFLAGS 44        /* u8 IG_COLL_*: a timestamp's zone */
#define IG_COL_PRECISION 45     /* u8 decimal precision 1..38, else 0 */
#define IG_COL_SCALE 46         /* u8 decimal scale 0..precision, else 0 */
/* byte 47 reserved, zero */
#define IG_COL_WIDTH 48         /* u32 bytes of every value of a binary leaf that has a
                                   width (uuid 16, fixed_binary N, a 16-byte decimal), else 0 */
/* bytes 52..63 reserved, zero */

#define IG_COLL_UTC 0x01        /* a timestamp adjusted to UTC */

#define IG_COLF_NULLABLE 0x01
#define IG_COLF_REPEATED 0x02

enum ig_compression_policy { IG_COMP_AUTO = 0, IG_COMP_NONE = 1, IG_COMP_ZSTD = 2 };

/* ---- row group record ---- */
#define IG_GRP_SIZE 32
#define IG_GRP_FIRST_ROW 0      /* u64 within the part */
#define IG_GRP_ROW_COUNT 8      /* u32 */
#define IG_GRP_FIRST_PAGE 12    /* u32 */
#define IG_GRP_PAGE_COUNT 16    /* u32 */
#define IG_GRP_HASH 24          /* u64 XXH3 of its page records */

/* ---- chunk record: (group, leaf) -> page range ---- */
#define IG_CHK_SIZE 64          /* version 12; 40 in 9 to 11, 16 in 6 to 8, 8 before (the first two) */
#define IG_CHK_SIZE_V10 40
#define IG_CHK_SIZE_V8 16
#define IG_CHK_SIZE_V5 8
#define IG_CHK_FIRST_PAGE 0     /* u32 */
#define IG_CHK_PAGE_COUNT 4     /* u32 */
#define IG_CHK_DICT_COUNT 8     /* u32 distinct non-NULL values of a string or binary leaf
                                   as written, when at most half its values (the writer
                                   records it at a quarter at most); else 0 */
#define IG_CHK_DICT_BYTES 12    /* u32 their bytes together (0 with a count of 0) */
#define IG_CHK_STATS_FLAGS 16   /* u8 IG_CHKS_* (version 9); bytes 17..23 reserved, zero */
#define IG_CHK_MIN 24           /* u64 the smallest value as a lane (codec.h), when bounded */
#define IG_CHK_MAX 32           /* u64 the largest, likewise; both 0 when not bounded */
#define IG_CHK_CTX_OFFSET 40    /* u64 where the chunk's context lies in the file (version 12);
                                   0 with a size of 0: none */
#define IG_CHK_CTX_SIZE 48      /* u32 its bytes: its entries, then zeros (codec.h) */
/* bytes 52..55 reserved, zero */
#define IG_CHK_CTX_HASH 56      /* u64 XXH3 of its bytes */
#define IG_MAX_CTX_SIZE (1u << 20) /* a context is never larger (a reader refuses more) */

/* A flat numeric leaf's chunk is bounded when it has a non-NULL value that is
 * not NaN: min and max over those (floats: -0.0 as min, +0.0 as max when the
 * bound is zero). An erase that removes a value at or past a bound takes them
 * again over the rows that stay (model/minmax.h). */
#define IG_CHKS_BOUNDED 0x01

/* ---- page record ---- */
#define IG_PG_SIZE 64
#define IG_PG_OFFSET 0          /* u64 file offset of the extent */
#define IG_PG_CAPACITY 8        /* u32 extent bytes; [stored, capacity) are zero */
#define IG_PG_STORED 12         /* u32 stored (possibly compressed) bytes */
#define IG_PG_FIRST_ROW 16      /* u32 within the group */
#define IG_PG_ROW_COUNT 20      /* u32 */
#define IG_PG_ENTRY_COUNT 24    /* u32 level entries (= rows for flat columns) */
#define IG_PG_VALUE_COUNT 28    /* u32 slots in the values stream */
#define IG_PG_ENCODING 32       /* u8 scheme of the values stream (informational) */
#define IG_PG_COMPRESSION 33    /* u8 0 none, 1 zstd */
#define IG_PG_FLAGS 34          /* u8 IG_PGF_* */
#define IG_PG_DELETED 36        /* u32 deleted rows in this page */
#define IG_PG_CHECKSUM 40       /* u64 XXH3 of the stored bytes */
#define IG_PG_TEXT_LEN 48       /* u64 bytes of the text rendering of live rows */
#define IG_PG_BODY_SIZE 56      /* u32 body bytes before compression */
#define IG_PG_LEAF 60           /* u32 leaf index (cross-check) */

/* ---- page extras: what the page record has no room for ---- */
#define IG_PX_SIZE 16
#define IG_PX_LIVE_VALUES 0     /* u32 value slots belonging to live rows */
#define IG_PX_FIRST_BLOCK 4     /* u32 index of the page's first block record (version 4;
                                   0 before); the next page's first block ends its blocks */
#define IG_PX_NODE_TEXT 8       /* u64 text of the whole nested column for these rows (on
                                   the page of the column's first leaf), else 0 */

/* ---- block record (version 4): a page is blocks back to back in its extent,
 * each decoded on its own (the page body layout below, for its rows only) and
 * checked by its own checksum; the page record's checksum is then the hash of
 * its block records, so the Merkle path runs root -> group -> page -> block. */
#define IG_BLK_SIZE 40
#define IG_BLK_OFFSET 0         /* u32 from the start of the page's extent */
#define IG_BLK_STORED 4         /* u32 stored (possibly compressed) bytes */
#define IG_BLK_BODY_SIZE 8      /* u32 body bytes before compression */
#define IG_BLK_FIRST_ROW 12     /* u32 within the page */
#define IG_BLK_ROW_COUNT 16     /* u32 (>= 1) */
#define IG_BLK_ENTRY_COUNT 20   /* u32 level entries (= rows for flat columns) */
#define IG_BLK_VALUE_COUNT 24   /* u32 value slots */
#define IG_BLK_COMPRESSION 28   /* u8 enum ig_page_compression */
#define IG_BLK_ENCODING 29      /* u8 scheme of its values stream (informational) */
#define IG_BLK_FLAGS 30         /* u8 IG_PGF_HAS_NULLS */
#define IG_BLK_RESERVED 31      /* u8, 0 */
#define IG_BLK_CHECKSUM 32      /* u64 XXH3 of the block's stored bytes */
/* the block's capacity runs to the next block's offset (the last: to the page's) */

#define IG_PGF_HAS_NULLS 0x01
#define IG_PGF_MOVED 0x02       /* relocated by an erase */
/* Format 10: `ingot gc` released the page (no version kept shows its column).
 * Its extent [offset, offset + capacity) holds zeros (or a hole), and its
 * record keeps only offset, capacity, first_row, row_count, leaf and this flag
 * (every other field zero), its extras only first_block, its block records
 * nothing (all zero): no value, bound, checksum or length of what it held. A
 * chunk's pages are released together, and its record then has no dictionary
 * counts and no bounds. */
#define IG_PGF_RELEASED 0x04

/* 2: zstd against the chunk's dictionary (context kind 2; blocks of format 13) */
enum ig_page_compression { IG_PC_NONE = 0, IG_PC_ZSTD = 1, IG_PC_ZSTD_DICT = 2 };

/* ---- page body (after decompression) ----
 *   u8 body flags (IG_BODY_*) | u8 0 | u16 0
 *   [validity bitmap, ceil(entries/8) bytes, 1 = present]   if IG_BODY_VALIDITY
 *   [u32 len | rep-level int stream]                         if IG_BODY_REP
 *   [u32 len | def-level int stream]                         if IG_BODY_DEF
 *   (with IG_BODY_JOINT the two level streams are one: [u32 len | joint
 *   levels], page/joint_levels.h; REP and DEF still say which levels exist)
 *   values stream (int or bytes stream, codec.h) to the end of the body */
#define IG_BODY_HDR 4
#define IG_BODY_VALIDITY 0x01
#define IG_BODY_REP 0x02
#define IG_BODY_DEF 0x04
#define IG_BODY_BLOB 0x08 /* blob references (page_blob.h) instead of one values stream */
#define IG_BODY_SLIDE 0x10 /* sliding-window list (page_slide.h) instead of levels + values */
#define IG_BODY_JOINT 0x20 /* format 19: the levels as one rANS-coded stream (page/joint_levels.h) */
#define IG_PAGE_ENC_SLIDE 8 /* page record encoding byte of a sliding-window page */

/* ---- sliding-window page (body flag IG_BODY_SLIDE; page/slide.h) ----
 *   header (IG_SLIDE_HDR bytes), then IG_SLIDE_STREAMS metadata streams, each
 *   u32 len | int stream, then the bulk as its kind says */
#define IG_SLIDE_ROWS 0          /* u32 rows (= the page record's row count) */
#define IG_SLIDE_BASES 4         /* u32 rows stored whole (bases) */
#define IG_SLIDE_BULK_KIND 8     /* u8 IG_SLIDE_BULK_* */
#define IG_SLIDE_RAW 9           /* u8 1: a signed column's values stored without zigzag */
#define IG_SLIDE_RESERVED 10     /* 2 bytes, 0 */
#define IG_SLIDE_BULK_VALUES 12  /* u32 values in the bulk */
#define IG_SLIDE_HDR 16
#define IG_SLIDE_STREAMS 8       /* kind, length, start, head, tail | base row, value, bit */
/* row kinds (the kind stream) */
#define IG_SLIDE_KIND_BASE 0
#define IG_SLIDE_KIND_DELTA 1
#define IG_SLIDE_KIND_NULL 2     /* a NULL list: no values, the window carries over */
#define IG_SLIDE_KIND_EMPTY 3    /* an empty list: likewise */
/* bulk kinds */
#define IG_SLIDE_BULK_STREAM 0   /* one int stream of the values */
#define IG_SLIDE_BULK_BITS 1     /* u32 len | int stream of bit lengths L, then each value's L - 1 low bits */
#define IG_SLIDE_BULK_CODED 2    /* a 33-byte code table (util/pcode.h), then per value the prefix code
                                    of its L and its L - 1 low bits, one bit stream */
#define IG_SLIDE_BULK_DICT 3     /* the distinct values once (a dictionary), then each value as its
                                    index, both coded by bit length (page/slide_dict.c); version 7 */
/* the dictionary bulk: header, the entries (IG_SLIDE_DICT_BYTES long), the codes' bit stream */
#define IG_SLIDE_DICT_ENTRIES 0  /* u32 entries */
#define IG_SLIDE_DICT_BYTES 4    /* u32 bytes of the entries */
#define IG_SLIDE_DICT_TABLE 8    /* the codes' 33-byte length-code table (util/pcode.h) */
#define IG_SLIDE_DICT_HDR 41
/* the entries: per group (2^g entries; the last, the rest) this header, its low
 * bits (n x l, bytes rounded up), its upper bits (u, bytes rounded up) */
#define IG_SLIDE_GROUP_LOW 0     /* u8 l: low bits per entry, 0..63 */
#define IG_SLIDE_GROUP_UPPER 1   /* u32 u: bits of the upper part */
#define IG_SLIDE_GROUP_HDR 5
#define IG_PAGE_ENC_COUNT 16 /* codec schemes (enum ig_enc, which leaves 8 to slide) */

/* Limits that keep hostile sizes from turning into huge allocations. */
#define IG_MAX_PAGE_BODY (1u << 30)  /* 1 GiB */
#define IG_MAX_NAME_LEN 4096

#endif
