/* api_take.c - ingot_take (include/ingot.h): rows by id into a batch.
 *
 * Rows are visited in id order, not the caller's, so rows that share a block
 * follow each other and the take handle's one-block-per-column slots decode it
 * once; results land at the caller's positions. */
#include "api_int.h"
#include "format/layout.h"
#include "format/model/render.h"
#include "format/model/types.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum batch_kind { BATCH_FIXED, BATCH_BYTES, BATCH_JSON };

struct batch_column {
    struct ig_column_ref ref;
    enum batch_kind kind;
    size_t width;   /* BATCH_FIXED */
    uint8_t *fixed; /* n x width */
    uint8_t *valid; /* n */
    uint64_t *span; /* BATCH_BYTES/JSON: n x (offset, length) in arena; length ~0 = none */
};

struct ingot_batch {
    size_t n, ncols;
    uint8_t *found;
    struct batch_column *cols;
    struct ig_buf arena;
};

#define NO_VALUE UINT64_MAX

void ingot_batch_free(ingot_batch *b)
{
    if (!b) return;
    for (size_t k = 0; b->cols && k < b->ncols; k++) {
        free(b->cols[k].fixed);
        free(b->cols[k].valid);
        free(b->cols[k].span);
    }
    free(b->cols);
    free(b->found);
    ig_buf_free(&b->arena);
    free(b);
}

size_t ingot_batch_rows(const ingot_batch *b)
{
    return b->n;
}
int ingot_batch_found(const ingot_batch *b, size_t i)
{
    return i < b->n && b->found[i];
}

const void *ingot_batch_fixed(const ingot_batch *b, size_t k, const uint8_t **valid)
{
    if (k >= b->ncols || b->cols[k].kind != BATCH_FIXED) return NULL;
    if (valid) *valid = b->cols[k].valid;
    return b->cols[k].fixed;
}

const void *ingot_batch_value(const ingot_batch *b, size_t k, size_t i, size_t *len)
{
    *len = 0;
    if (k >= b->ncols || i >= b->n) return NULL;
    const struct batch_column *c = &b->cols[k];
    if (c->kind == BATCH_FIXED) return NULL;
    if (c->span[2 * i + 1] == NO_VALUE) return NULL;
    *len = (size_t)c->span[2 * i + 1];
    return b->arena.data + c->span[2 * i];
}

static int column_setup(const struct ig_table *t, uint32_t col, size_t n, struct batch_column *c,
                        struct ig_error *e)
{
    int rc = ig_table_column_at(t, col, &c->ref, e);
    if (rc) return rc;
    const struct ig_type_info *ti = ig_type_info(c->ref.rec.type);
    bool flat = !c->ref.nested && c->ref.rec.leaf != IG_NONE && ti;
    if (flat && ti->phys == IG_PHYS_LANES) {
        c->kind = BATCH_FIXED;
        c->width = ti->width;
        c->fixed = calloc(n ? n : 1, c->width);
        c->valid = calloc(n ? n : 1, 1);
        return c->fixed && c->valid ? 0 : ig_err(e, -ENOMEM, "out of memory");
    }
    bool raw = flat && (c->ref.rec.type == IG_T_STRING || c->ref.rec.type == IG_T_BINARY);
    c->kind = raw ? BATCH_BYTES : BATCH_JSON;
    c->span = malloc((n ? n : 1) * 2 * sizeof *c->span);
    if (!c->span) return ig_err(e, -ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++)
        c->span[2 * i + 1] = NO_VALUE;
    return 0;
}

/* Column c's value in the row at `at`, stored at batch position i. */
static int take_value(ingot_table *t, struct ingot_batch *b, struct batch_column *c, size_t i,
                      const struct ig_row_at *at, struct ig_error *e)
{
    const struct ig_block_source *src = ig_take_source(t->take);
    size_t start = b->arena.len;
    if (c->kind == BATCH_JSON) {
        int rc = ig_row_value_json(&t->t, c->ref.col, at, src, &b->arena, e);
        if (rc) return rc;
        c->span[2 * i] = start;
        c->span[2 * i + 1] = b->arena.len - start;
        return 0;
    }
    struct ig_values *v;
    void *hold;
    size_t index;
    int rc = ig_row_leaf(&t->t, &c->ref, at, src, &v, &hold, &index, e);
    if (rc) return rc;
    bool null = ig_values_is_null(v, index);
    if (c->kind == BATCH_FIXED) {
        ig_render_fixed_at(c->fixed + i * c->width, v, index);
        c->valid[i] = !null;
    } else if (!null) {
        size_t len;
        const uint8_t *p = ig_values_bytes(v, index, &len);
        rc = ig_buf_append(&b->arena, p, len) ? ig_err(e, -ENOMEM, "out of memory") : 0;
        c->span[2 * i] = start;
        c->span[2 * i + 1] = len;
    }
    src->put(src->ctx, hold);
    return rc;
}

/* ig_take_visit's callback: column k's value of the row at `at` into batch
 * position i. */
struct batch_fill {
    ingot_table *t;
    struct ingot_batch *b;
};
static int fill_value(void *ctx, size_t k, size_t i, const struct ig_row_at *at, struct ig_error *e)
{
    struct batch_fill *f = ctx;
    return take_value(f->t, f->b, &f->b->cols[k], i, at, e);
}

int ingot_take(ingot_table *t, const uint64_t *ids, size_t n, const uint32_t *cols, size_t ncols,
               ingot_batch **out, char *errbuf, size_t errlen)
{
    struct ig_error e = {0};
    *out = NULL;
    if (!t->take && ig_take_new(&t->t, &t->take))
        return ingot_api_fail(errbuf, errlen, &e, ig_err(&e, -ENOMEM, "out of memory"));
    struct ingot_batch *b = calloc(1, sizeof *b);
    int rc = b ? 0 : ig_err(&e, -ENOMEM, "out of memory");
    if (!rc) {
        b->n = n;
        b->ncols = ncols;
        b->found = calloc(n ? n : 1, 1);
        b->cols = calloc(ncols ? ncols : 1, sizeof *b->cols);
        if (!b->found || !b->cols) rc = ig_err(&e, -ENOMEM, "out of memory");
    }
    for (size_t k = 0; k < ncols && !rc; k++)
        rc = column_setup(&t->t, cols[k], n, &b->cols[k], &e);
    if (!rc) ig_take_prefetch(&t->t, ids, n, cols, ncols, NULL, NULL);
    struct batch_fill fill = {t, b};
    if (!rc) rc = ig_take_visit(t->take, ids, n, ncols, b->found, fill_value, &fill, &e);
    if (rc) {
        ingot_batch_free(b);
        return ingot_api_fail(errbuf, errlen, &e, rc);
    }
    *out = b;
    return 0;
}
