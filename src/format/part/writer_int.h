/* writer_int.h - inside the part writer: how a row group becomes bytes.
 *
 * A full row group is a job: its values (one ig_values per leaf) and, once
 * encoded, one column_out per top-level column. Encoding a column
 * (ig_writer_encode_column, writer_encode.c) reads only the job and the
 * schema, so the columns of a group are encoded by several threads at once
 * while the importer fills the next group; writer.c then commits the outputs
 * in column order, making offsets and block numbers absolute. The file is the
 * same byte for byte whatever the number of threads. */
#ifndef IG_FORMAT_WRITER_INT_H
#define IG_FORMAT_WRITER_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "format/model/schema.h"
#include "format/model/values.h"
#include "format/page/page.h"
#include "format/part/writer.h"
#include "util/buf.h"
#include "util/error.h"

/* The encoded pages of one top-level column of a group, not yet written:
 * page records (layout.h) whose offsets count from the start of `stored` and
 * whose first-block numbers count from the start of `blocks`. */
struct ig_column_out {
    struct ig_buf stored, pages, extras, blocks;
    uint32_t npages, nblocks;
    bool fitted; /* blocks fitted to disk pages: the chunk starts on IG_DISK_PAGE */
    int rc;
};

/* One row group on its way to the file. */
struct ig_group_job {
    struct ig_values *cols;      /* one per leaf */
    uint32_t rows;               /* rows in the group */
    uint64_t first_row;          /* rows of the part before it */
    uint32_t index;              /* its number in the part */
    struct ig_column_out *outs;  /* one per top-level column (schema->tops order) */
    uint32_t *leaf_pages;        /* per leaf: its chunk's page count */
    uint32_t next_top, done;     /* the pool's progress (under its lock) */
    uint32_t err_top;            /* the first column that failed, or UINT32_MAX */
    struct ig_error err;         /* that column's error */
};

/* A thread's reusable encoding state. */
struct ig_encoder {
    struct ig_page_scratch scratch;
    struct ig_page_built built;
    size_t *cuts;
    size_t cuts_cap;
};

/* What every encoder reads and nobody writes while jobs run. */
struct ig_writer_conf {
    const struct ig_schema *schema;
    struct ig_writer_opts o;
    uint64_t first_row_id;
    const char *path; /* for messages */
};

/* Encode top-level column number t (an index into schema->tops) of g into
 * g->outs[t] and g->leaf_pages; 0 or an error naming the part, column and row
 * group. */
int ig_writer_encode_column(const struct ig_writer_conf *c, struct ig_group_job *g, uint32_t t,
                            struct ig_encoder *e, struct ig_error *err);

/* The page size a leaf's pages aim at (the footer records it). */
uint32_t ig_writer_leaf_page_size(const struct ig_writer_conf *c, uint32_t leaf);

void ig_encoder_free(struct ig_encoder *e);
void ig_column_out_free(struct ig_column_out *o);

#endif
