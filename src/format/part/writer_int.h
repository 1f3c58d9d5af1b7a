/* writer_int.h - inside the part writer: how a row group becomes bytes.
 *
 * A full row group is a job: its values (one ig_values per leaf) and, once
 * encoded, the pages of each top-level column. The job is done as tasks that
 * any thread of the pool takes: first one per column, which plans it (cuts its
 * pages, ig_writer_plan_column), then one per segment of it (a run of whole
 * pages, ig_writer_encode_segment). A large column of one leaf is dealt out in
 * segments of about IG_SEGMENT_BYTES, so a table of one big column (a .npy, an
 * embedding) encodes on every core; the cuts do not depend on the threads, and
 * writer.c commits the segments of each column in order, making offsets and
 * block numbers absolute: the file is the same byte for byte whatever the
 * number of threads. Encoding reads only the job and the schema. */
#ifndef IG_FORMAT_WRITER_INT_H
#define IG_FORMAT_WRITER_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "format/model/schema.h"
#include "format/model/values.h"
#include "format/page/page.h"
#include "format/page/slide.h"
#include "format/part/footer.h"
#include "format/part/writer.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/strset.h"

/* g->slides[l]: sliding-window pages offered (any non-zero value), their bulk
 * in bytes and their pages cut smaller for it (writer_plan.c) */
#define IG_SLIDES_OFFERED 1
#define IG_SLIDES_BYTES 2

/* The encoded pages of one segment of a top-level column, not yet written:
 * page records (layout.h) whose offsets count from the start of `stored` and
 * whose first-block numbers count from the start of `blocks`. */
/* What the blocks of one segment use of a leaf's symbol table (format 12):
 * each symbol's uses, summed over the segments at commit (the table keeps
 * only the symbols the chunk's blocks use, writer.c). */
struct ig_leaf_uses {
    uint32_t leaf;
    uint64_t counts[256];
};

struct ig_column_out {
    struct ig_buf stored, pages, extras, blocks;
    uint32_t npages, nblocks;
    bool fitted; /* blocks fitted to disk pages: the chunk starts on IG_DISK_PAGE */
    struct ig_leaf_uses *uses; /* leaves of the column with a context, as met */
    uint32_t nuses, uses_cap;
};

/* One top-level column of a group: where its pages start (planned once) and
 * its segments' outputs. Segment s holds pages [s * seg_pages, (s + 1) *
 * seg_pages) of each of its leaves. */
struct ig_column_work {
    size_t *cuts;   /* page starts (rows of the group), then the group's rows */
    size_t ncuts;   /* pages per leaf */
    size_t cuts_cap;
    uint32_t l0, l1; /* its leaves */
    uint32_t seg_pages, nsegs;
    struct ig_column_out *segs;
    uint32_t segs_cap;
};

/* A unit of work on a group: plan column `top` (seg UINT32_MAX) or encode
 * one segment of it. */
struct ig_task {
    uint32_t top, seg;
};
#define IG_TASK_PLAN UINT32_MAX

/* A flat string or binary leaf's values numbered by the distinct values of
 * its chunk (chunk_dict, writer_plan.c): equal numbers exactly where the
 * bytes are equal (NULLs as the empty string), so that its blocks' encoders
 * count and collect distinct values without hashing them again
 * (ig_enc_opts.item_ids). valid only when the count ran to the end. */
struct ig_item_ids {
    uint32_t *id;
    size_t cap;
    bool valid;
};

/* A string or binary leaf's values as codes into its chunk's value
 * dictionary (format 14, writer_vdict.c): on when the chunk has one (the
 * context's vdict), code[i] the entry of value i (0: NULL or empty). */
struct ig_vcodes {
    uint32_t *code;
    size_t cap;
    uint32_t k;
    bool on;
};
void ig_vcodes_free(struct ig_vcodes *c);
struct ig_column_def;
struct ig_chunk_dict;
struct ig_strset;
/* Decide whether leaf values v (column cd) get a value dictionary, from the
 * distinct values the planner counted (dict, set, and ids where they are
 * numbered); when they do, cx->vdict holds it with its use counts and out
 * the codes. level: the column's zstd level. block_values: about how many
 * values a block of the leaf will hold where the leaf's own size does not
 * say (a leaf of a nested column cut with its siblings), else 0. -ENOMEM. */
int ig_writer_plan_vdict(const struct ig_column_def *cd, const struct ig_values *v,
                         const struct ig_chunk_dict *dict, const struct ig_item_ids *ids,
                         const struct ig_strset *set, int level, size_t block_values,
                         struct ig_vcodes *out, struct ig_chunk_ctx *cx);

/* One row group on its way to the file. */
struct ig_group_job {
    struct ig_values *cols;      /* one per leaf */
    uint32_t rows;               /* rows in the group */
    uint64_t first_row;          /* rows of the part before it */
    uint32_t index;              /* its number in the part */
    struct ig_column_work *work; /* one per top-level column (schema->tops order) */
    uint32_t *leaf_pages;        /* per leaf: its chunk's page count */
    struct ig_chunk_dict *dicts; /* per leaf: its chunk's distinct values (planning counts them) */
    struct ig_minmax *bounds;    /* per leaf: its chunk's bounds (planning takes them) */
    uint8_t *slides;             /* per leaf: 0, or offered sliding-window pages (planning
                                    decides: ig_writer_slide_candidate), IG_SLIDES_BYTES where
                                    their bulk goes in bytes (writer_plan.c) */
    struct ig_item_ids *ids;     /* per leaf: each value's number among them, when counted to the end */
    struct ig_vcodes *vcodes;    /* per leaf: its values' codes into its chunk's value dictionary */
    struct ig_chunk_ctx *ctx;    /* per leaf: its chunk's context (planning trains a symbol table
                                    for strings that may use one), written and freed at commit */
    /* the pool's queue (under its lock): plans first, segments as planned */
    struct ig_task *tasks;
    size_t ntasks, tasks_cap, next_task, done;
    uint64_t err_at;             /* (top << 32 | seg) of the first failure, or UINT64_MAX */
    struct ig_error err;         /* that task's error */
};
/* g's per-leaf arrays for schema s, its values typed as the leaves are
 * (blob_dirs, per leaf, or NULL: where blob values are read from); -ENOMEM.
 * ig_group_job_free frees what init made, even after a failed init. */
int ig_group_job_init(struct ig_group_job *g, const struct ig_schema *s, char (*blob_dirs)[800]);
void ig_group_job_free(struct ig_group_job *g, const struct ig_schema *s);
/* Short string values (a few bytes: codes, countries, categories) and the
 * numbers a chunk's strset gave them, by their bytes (writer_plan.c,
 * chunk_dict): a direct-mapped cache, a slot overwritten on collision. */
#define IG_SHORT_IDS_BITS 12
struct ig_short_ids {
    uint64_t *key; /* the value's bytes and length; 0: empty */
    uint32_t *id;
};

/* A thread's reusable encoding state. */
struct ig_encoder {
    struct ig_page_scratch scratch;
    struct ig_page_built built;
    size_t *cuts;
    size_t cuts_cap;
    struct ig_strset chunk_set; /* a chunk's distinct strings, counted (kept from chunk to chunk) */
    struct ig_short_ids short_ids; /* the short ones among them, by their bytes */
    struct ig_train_scratch train; /* counters of fsst's and zstd dictionaries' training */
    struct ig_slide_sizer sizer;   /* sliding-window pages measured as they are cut */
};

/* What every encoder reads and nobody writes while jobs run. */
struct ig_writer_conf {
    const struct ig_schema *schema;
    struct ig_writer_opts o;
    uint64_t first_row_id;
    const char *path; /* for messages */
};

/* Plan top-level column number t (an index into schema->tops) of g: its
 * leaves' values made final (quantised floats rounded), its pages cut, its
 * segments counted and their outputs made ready. 0 or an error naming the
 * part, column and row group. */
int ig_writer_plan_column(const struct ig_writer_conf *c, struct ig_group_job *g, uint32_t t,
                          struct ig_encoder *e, struct ig_error *err);

/* Encode segment s of planned column t into g->work[t].segs[s] (and, for a
 * column of one segment, g->leaf_pages); 0 or an error naming the part,
 * column and row group. Segments of a column may run on several threads. */
int ig_writer_encode_segment(const struct ig_writer_conf *c, struct ig_group_job *g, uint32_t t,
                             uint32_t s, struct ig_encoder *e, struct ig_error *err);

/* The page size a leaf's pages aim at (the footer records it). */
uint32_t ig_writer_leaf_page_size(const struct ig_writer_conf *c, uint32_t leaf);
/* A leaf's page size when its schema declares none, `page_size` the writer's. */
uint32_t ig_writer_undeclared_page_size(const struct ig_column_def *cd, uint32_t page_size);

void ig_encoder_free(struct ig_encoder *e);
void ig_column_work_free(struct ig_column_work *cw);

/* What a part's footer is built from once every group is written: the
 * writer's tables of group, chunk, page, extra and block records. */
struct ig_footer_tables {
    const struct ig_writer_conf *conf;
    uint64_t rows;
    const struct ig_buf *groups, *chunks, *pages, *extras, *blocks;
    uint32_t num_groups, num_pages, num_blocks;
};
/* The footer's bytes into f (empty) and the part's Merkle root; -ENOMEM
 * (writer_footer.c). */
int ig_writer_build_footer(const struct ig_footer_tables *t, struct ig_buf *f, uint64_t *root);
/* After a part's pages, ending at offset in fd: padding to 8, the footer and
 * the tail; fsync (the caller closes fd). 0 or an error naming path. */
int ig_writer_write_footer(int fd, uint64_t offset, const struct ig_footer_tables *t, const char *path,
                           struct ig_error *err);

#endif
