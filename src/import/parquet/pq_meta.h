/* pq_meta.h - a Parquet file's footer (FileMetaData), read and checked.
 *
 * The footer is the Thrift-compact FileMetaData before the trailing 4-byte length
 * and "PAR1". pq_meta_read takes the whole file's size, reads the footer with one
 * pread and decodes the parts an importer needs: the schema tree (flattened,
 * pre-order, with each leaf's repetition and definition levels worked out), and
 * per row group the byte range and codec of every column chunk. Encrypted
 * footers ("PARE") and column chunks stored in other files are refused with a
 * message saying so.
 *
 * Every offset and size is checked against the file's size here, so the page
 * reader can trust a chunk's range to lie inside the file. */
#ifndef IG_IMPORT_PARQUET_PQ_META_H
#define IG_IMPORT_PARQUET_PQ_META_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ig_error;

/* Parquet's enums, by their numbers in parquet.thrift */
enum pq_type { PQ_BOOLEAN = 0, PQ_INT32, PQ_INT64, PQ_INT96, PQ_FLOAT, PQ_DOUBLE, PQ_BYTE_ARRAY, PQ_FLBA };
enum pq_rep { PQ_REQUIRED = 0, PQ_OPTIONAL = 1, PQ_REPEATED = 2 };
enum pq_codec { PQ_UNCOMPRESSED = 0, PQ_SNAPPY, PQ_GZIP, PQ_LZO, PQ_BROTLI, PQ_LZ4, PQ_ZSTD, PQ_LZ4_RAW };

/* What a leaf's values mean (logical or converted type), reduced to what the
 * importer maps differently. */
enum pq_logical {
    PQ_L_NONE = 0,
    PQ_L_STRING,  /* UTF8, ENUM, JSON, STRING */
    PQ_L_INT,     /* INTEGER(bits, signed) or INT_8..UINT_64 */
    PQ_L_DECIMAL, /* scale, precision */
    PQ_L_DATE,
    PQ_L_TIME,      /* unit */
    PQ_L_TIMESTAMP, /* unit */
    PQ_L_FLOAT16,
    PQ_L_UUID,
    PQ_L_LIST, /* groups */
    PQ_L_MAP,
    PQ_L_OTHER, /* BSON, INTERVAL, ...: kept as its physical type */
};
enum pq_unit { PQ_UNIT_NONE = 0, PQ_MILLIS, PQ_MICROS, PQ_NANOS };

struct pq_node {
    char name[256];
    uint32_t name_len;
    int32_t type;     /* enum pq_type, -1 for a group */
    int32_t type_length;
    uint8_t rep;      /* enum pq_rep */
    uint32_t nchildren;
    uint32_t parent;  /* index into nodes; UINT32_MAX for the root */
    uint8_t logical;  /* enum pq_logical */
    uint8_t int_bits;
    bool int_signed;
    uint8_t unit;     /* enum pq_unit */
    bool utc;         /* TIME, TIMESTAMP: isAdjustedToUTC (the legacy converted types are) */
    int32_t scale, precision;
    /* leaves: levels and position among the leaves */
    uint8_t max_rep, max_def;
    uint32_t leaf;    /* UINT32_MAX for groups */
};

struct pq_chunk {
    int32_t type;     /* physical type, as the chunk's metadata says */
    uint8_t codec;    /* enum pq_codec */
    int64_t num_values;
    uint64_t start;   /* first page (dictionary page if any) */
    uint64_t size;    /* total_compressed_size */
};

struct pq_row_group {
    int64_t num_rows;
    struct pq_chunk *chunks; /* one per leaf, in leaf order */
};

struct pq_meta {
    struct pq_node *nodes; /* pre-order; nodes[0] is the root */
    uint32_t nnodes;
    uint32_t *leaves;      /* node index of each leaf */
    uint32_t nleaves;
    int64_t num_rows;
    struct pq_row_group *groups;
    uint32_t ngroups;
    char created_by[128];
};

/* Read the footer of the Parquet file open on fd (size bytes). Errors name path. */
int pq_meta_read(int fd, uint64_t size, const char *path, struct pq_meta *m, struct ig_error *err);
/* Decode a footer already in memory (fuzzing); file_size bounds the chunks. */
int pq_meta_decode(const uint8_t *p, size_t len, uint64_t file_size, const char *path,
                   struct pq_meta *m, struct ig_error *err);
void pq_meta_free(struct pq_meta *m);

/* "a.b.c": a node's dotted path below the root, into out (cap bytes). */
void pq_node_path(const struct pq_meta *m, uint32_t node, char *out, size_t cap);

const char *pq_codec_name(unsigned codec);
const char *pq_type_name(int type);

#endif
