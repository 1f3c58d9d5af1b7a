/* plan.h - which files a column has, and how each is laid out in pieces.
 *
 * A column view (columns/NAME, NAME.npy, NAME.valid.npy, _rowid.npy, the list
 * and fp16 arrays) is the concatenation of one piece per page of its scope,
 * preceded by a fixed header for the NumPy ones. The plan says which leaf's pages
 * make the pieces and how many bytes a live row (or value) takes, so every
 * piece's length — and the file's size — comes from the footer alone. */
#ifndef IG_FS_PLAN_H
#define IG_FS_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "format/ops/reader.h"
#include "inode.h"
#include "session.h"
#include "generations.h"

#define FS_NPY_HEADER 128

/* One page's piece of a file. */
struct fs_span {
    uint32_t part, page;
    uint32_t group, page_index; /* global row group; the page's index in its chunk */
    uint64_t group_first_row;   /* part-local row of the page's group */
    uint64_t start;             /* byte offset of this page's piece in the file */
    uint64_t values_before;     /* live values in earlier pieces (offsets.npy) */
};

/* How a column view is laid out: which leaf's pages are its pieces, and how many
 * bytes each live row (or value) takes. */
struct fs_plan {
    struct ig_column_ref ref;
    uint32_t piece_leaf;   /* leaf index whose pages define the pieces */
    uint32_t first_col;    /* its column id */
    bool whole;            /* text of a whole nested column (extras' node text) */
    bool per_value;        /* sized by live values (values.npy), else by live rows */
    uint32_t width;        /* bytes per unit */
    uint32_t dim;          /* vector dimension (2-D arrays), else 0 */
    uint32_t header;       /* bytes before the first piece */
    const char *descr;
};

/* Does column `col` have view v, and how is it laid out? */
bool fs_plan_view(struct fs_session *s, uint32_t col, enum fs_view v, struct fs_plan *vp);
bool fs_column_has_view(struct fs_session *s, uint32_t col, enum fs_view v);

/* Does this view keep its shape in an older generation (generations.h)? A row has
 * a fixed width there, so an erased row can be shown in its erased form. */
bool fs_plan_keeps_shape(const struct fs_plan *vp, enum fs_view v);

/* Walk the pages of node n's view in file order as generation `ver` had it,
 * giving each piece's length. -ENOENT if the view or scope does not exist,
 * -ESTALE for an older generation of a view that cannot keep its shape, -EIO if
 * the footer is corrupt. */
typedef int (*fs_span_fn)(void *ctx, const struct fs_span *sp, uint64_t len);
int fs_walk_spans(struct fs_session *s, const struct fs_node *n, const struct fs_generation *ver,
                  fs_span_fn fn, void *ctx);
/* Span walkers: sum the lengths into *(uint64_t *)ctx; collect the spans. */
int fs_add_len(void *ctx, const struct fs_span *sp, uint64_t len);
struct fs_span_list {
    struct fs_span *v;
    uint32_t n, cap;
};
int fs_push_span(void *ctx, const struct fs_span *sp, uint64_t len);

/* The 128-byte NumPy 1.0 header of `count` elements of descr (2-D when dim > 0). */
void fs_npy_header(uint8_t *h, const char *descr, uint64_t count, uint32_t dim);

#endif
