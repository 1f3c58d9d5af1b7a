/* inode.h - every node of the mounted namespace, encoded in its inode number.
 *
 * The namespace is a pure function of the table, so an inode number carries all
 * there is to know about its node and the daemon keeps no inode table: memory
 * stays flat however many columns or rows the table has, and FORGET has nothing
 * to free. Layout (bits):
 *
 *     63..60 kind
 *     DIR      39..32 directory type, 31..0 argument (row group)
 *     SPECIAL  15..8 generation, 7..0 which file (README, schema.json, ...)
 *     VIEW     59..57 view, 56..33 column id (< 2^24), 32..8 scope (0 = all, g + 1;
 *              < 2^25), 7..0 generation (parquet/G.parquet: view 7, column 0, scope G + 1;
 *              arrow/G.arrow: column 1; jsonl/G.jsonl: column 2)
 *     ROW      59..0 global row id
 *     BLOB_*   59..52 blob column ordinal, 51..16 row id (< 2^36), 15..0 object (< 2^16)
 *     STAGE    59..0 the stage's number (staging.h)
 *     LINK     59..0 the version a tag names (tags/NAME -> ../versions/N)
 *     SUB      59..0 a number handed out for a node of a version's table
 *              under versions/N/ (subtables.h: those nodes are counted)
 *
 * Views and generated files change with the table (an erase, an append); their
 * version bits name the table generation they show (generations.h), so each
 * generation of a file is its own inode. Rows and blob objects never change
 * (an erased one is gone), nor do directories' inodes.
 *
 * The root is inode 1 (FUSE_ROOT_ID). */
#ifndef IG_FS_INODE_H
#define IG_FS_INODE_H

#include <stdbool.h>
#include <stdint.h>

enum fs_kind {
    FS_K_ROOT = 0,
    FS_K_DIR = 1,
    FS_K_SPECIAL = 2,
    FS_K_VIEW = 3,
    FS_K_ROW = 4,
    FS_K_BLOB_DIR = 5, /* blobs/COL */
    FS_K_BLOB_ROW = 6, /* blobs/COL/ID (list<blob>) */
    FS_K_BLOB = 7,     /* blobs/COL/ID.ext or blobs/COL/ID/K.ext */
    FS_K_STAGE = 8,    /* columns/NAME.npy being written as a new column (staging.h) */
    FS_K_LINK = 9,     /* tags/NAME: a symbolic link to ../versions/N */
    FS_K_SUB = 10,     /* a node of versions/N/, served by that version's session (subtables.h) */
};

enum fs_dir {
    FS_D_COLUMNS = 1,
    FS_D_GROUPS = 2,
    FS_D_ROWS = 3,
    FS_D_GROUP = 4,
    FS_D_CONTROL = 5,
    FS_D_BLOBS = 6,
    FS_D_PARQUET = 7, /* parquet/: a Parquet file per row group */
    FS_D_ARROW = 8,   /* arrow/: an Arrow IPC file per row group */
    FS_D_JSONL = 9,   /* jsonl/: a JSON Lines file of rows per row group */
    FS_D_VERSIONS = 10, /* versions/: N/ for every version kept */
    FS_D_TAGS = 11,     /* tags/: NAME for every tag, a link to ../versions/N */
    FS_D_VERSION = 12,  /* versions/N (argument N): where version N's table is shown; the
                           glue enters that table's session there (subtables.h) */
};

/* The column id of a row group's file (view FS_V_PARQUET): which format. */
enum fs_group_file { FS_GF_PARQUET = 0, FS_GF_ARROW = 1, FS_GF_JSONL = 2 };
/* A row group's file: its extension, the directory that lists it, and back. */
static inline const char *group_file_ext(uint32_t gf)
{
    return gf == FS_GF_ARROW ? "arrow" : gf == FS_GF_JSONL ? "jsonl" : "parquet";
}
static inline uint32_t group_file_dir(uint32_t gf)
{
    return gf == FS_GF_ARROW ? FS_D_ARROW : gf == FS_GF_JSONL ? FS_D_JSONL : FS_D_PARQUET;
}
static inline uint32_t group_file_of(uint32_t dir)
{
    return dir == FS_D_ARROW ? FS_GF_ARROW : dir == FS_D_JSONL ? FS_GF_JSONL : FS_GF_PARQUET;
}

enum fs_special {
    FS_S_README = 1,
    FS_S_SCHEMA = 2,
    FS_S_ERASE = 3,
    FS_S_ERASURES = 4,
    FS_S_GENERATION = 5, /* .ingot/generation */
};

#include "format/model/fs_view.h"

#define FS_MAX_COLUMNS (1u << 24)
#define FS_MAX_GROUPS ((1u << 25) - 1) /* scope = group + 1 must fit 25 bits */
#define FS_SCOPE_ALL 0u

struct fs_node {
    enum fs_kind kind;
    uint32_t dir;      /* enum fs_dir */
    uint32_t special;  /* enum fs_special */
    uint32_t view;     /* enum fs_view */
    uint32_t col;
    uint32_t scope;    /* FS_SCOPE_ALL or group + 1 */
    uint64_t row;
    uint32_t blob;     /* blob column ordinal (BLOB_*) */
    uint32_t k;        /* object within a list<blob> row */
    uint32_t gen_bits; /* VIEW, SPECIAL: the table generation's low bits (generations.h) */
};

/* Does this kind of node change with the table (and so carry a version)? */
static inline bool fs_node_generational(const struct fs_node *n)
{
    return n->kind == FS_K_VIEW || n->kind == FS_K_SPECIAL;
}

/* A row group's Parquet or Arrow file (parquet/G.parquet, arrow/G.arrow)? */
static inline bool fs_node_is_group_file(const struct fs_node *n)
{
    return n->kind == FS_K_VIEW && n->view == FS_V_PARQUET;
}

/* Does the kernel always cache this node's name (ops.c entry_times)? Every
 * name but those of column views and generated files, which are looked up at
 * every open so that a path leads to the current generation at once and files
 * read together show one generation (generations.h). A row group's Parquet or
 * Arrow file is cached too (engines open each several times a query): an older
 * generation's one answers ESTALE rather than mixing, and a reload drops these
 * names before it shows the new generation (invalidate.h). With the session's
 * view_names_cached, other views that answer ESTALE when old are cached as
 * well (ops.c view_name_cacheable). */
static inline bool fs_node_name_cached(const struct fs_node *n)
{
    return !fs_node_generational(n) || fs_node_is_group_file(n);
}

#define FS_MAX_BLOB_COLUMNS 256
#define FS_MAX_BLOB_ROW (1ULL << 36)
#define FS_MAX_BLOB_K (1u << 16)

#define FS_ROOT_INO 1 /* FUSE_ROOT_ID */

uint64_t fs_ino(const struct fs_node *n);
bool fs_node_of(uint64_t ino, struct fs_node *n);

static inline uint64_t fs_ino_dir(enum fs_dir d, uint32_t arg)
{
    struct fs_node n = {.kind = FS_K_DIR, .dir = d, .scope = arg};
    return fs_ino(&n);
}

#endif
