/* file.h - one file of the mount as its bytes are laid out (struct fs_file):
 * the node it is, the generation it shows, its size and the pieces or
 * objects its bytes come from. view.c builds and reads it; pieces.c makes a
 * column view's pieces from it, ahead.c reads ahead along its spans. Only the
 * type: what it holds is view.h's. */
#ifndef IG_FS_FILE_H
#define IG_FS_FILE_H

#include <stdint.h>

#include "blob/blob.h"
#include "inode.h"
#include "plan.h"

struct fs_ahead;
struct fs_jsonl;
struct ig_arv;
struct ig_pqv;

/* A file's layout: what its bytes are made of, in the generation it shows. */
struct fs_file {
    struct fs_node node;
    uint64_t gen;     /* the table generation the file shows (generations.h) */
    uint64_t size;
    uint32_t header;          /* npy header bytes at the start (0 for text) */
    uint8_t header_bytes[FS_NPY_HEADER + 8];
    uint32_t nspans;
    struct fs_span *spans;
    struct ig_blob_ref blob;  /* blob objects: the reference and its part */
    uint32_t blob_part;
    struct ig_pqv *pq;        /* parquet/G.parquet: its layout (groupfile.h) */
    struct ig_arv *arrow;     /* arrow/G.arrow: its layout (groupfile.h) */
    struct fs_jsonl *jsonl;   /* jsonl/G.jsonl: its layout (jsonlfile.h) */
    struct fs_ahead *ahead;   /* a column view on object storage: its readahead (ahead.h) */
};

#endif
