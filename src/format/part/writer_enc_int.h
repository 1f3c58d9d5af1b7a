/* writer_enc_int.h - what planning a column (writer_plan.c) and encoding it
 * (writer_encode.c) share: the state of one column's encoding and the cuts
 * encoding asks the plan for. Not a public interface. */
#ifndef IG_FORMAT_WRITER_ENC_INT_H
#define IG_FORMAT_WRITER_ENC_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/model/schema.h"
#include "format/model/values.h"
#include "format/part/writer_int.h"

/* The encoding of one column: shared settings, its group, this thread's state,
 * and where its pages go. */
struct enc {
    const struct ig_writer_conf *c;
    struct ig_group_job *g;
    struct ig_encoder *e;
    struct ig_column_out *out;
    struct ig_block_fit fit; /* fitted blocks: what the pages before showed (ratio, layout) */
    double cut_ratio;        /* a column of one leaf: stored per plain byte of its page before
                                (block_target) */
    bool cut_dict;           /* ...and that page's blocks were all `dict`, each with a
                                dictionary of its own */
    uint32_t page_deleted;   /* a graft: rows of the page deleted already (its record's count) */
};

/* Leaf l's column definition. */
static inline const struct ig_column_def *leaf_def(const struct enc *w, uint32_t l)
{
    return &w->c->schema->cols[w->c->schema->leaves[l]];
}

/* The page policy leaf l's blocks are encoded under (its chunk's contexts
 * included). */
void ig_writer_leaf_policy(const struct enc *w, uint32_t l, struct ig_page_policy *pol);

/* The plain bytes a block of the column of leaves [l0, l1) aims at. */
uint32_t ig_writer_block_target(const struct enc *w, uint32_t l0, uint32_t l1);

/* Whether the blocks of the column of leaves [l0, l1) grow by the ratio of
 * the page before (ig_writer_block_target). */
bool ig_writer_blocks_grow(const struct enc *w, uint32_t l0, uint32_t l1);

/* The page of rows [a, b) of leaf l just encoded (w->e->built): what it
 * stored per plain byte, for the blocks of the next page. */
void ig_writer_page_ratio(struct enc *w, uint32_t l, size_t a, size_t b);

/* Whether leaf l's blocks are fitted to disk pages (struct ig_block_fit). */
bool ig_writer_leaf_fitted(const struct enc *w, uint32_t l);

/* Cut rows [a, b) of leaves [l0, l1) into blocks of about `target` plain
 * bytes: w->e->cuts gets the block starts relative to a, then b - a; returns
 * the number of blocks (with first_only, the first block alone). */
size_t ig_writer_block_cuts(struct enc *w, uint32_t l0, uint32_t l1, size_t a, size_t b,
                            uint32_t target, bool first_only, int *rc);

#endif
