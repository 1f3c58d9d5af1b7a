/* writer_job.c - one row group's memory on its way to the file (struct
 * ig_group_job, writer_int.h): its leaves' values as the caller fills them,
 * and what planning and encoding make of them until the group is committed.
 * A writer keeps a few and reuses them group after group. */
#include "format/part/writer_int.h"
#include "format/model/schema.h"

#include <errno.h>
#include <stdlib.h>

int ig_group_job_init(struct ig_group_job *g, const struct ig_schema *s, char (*blob_dirs)[800])
{
    uint32_t nl = s->nleaves ? s->nleaves : 1;
    g->cols = calloc(nl, sizeof *g->cols);
    g->leaf_pages = calloc(nl, sizeof *g->leaf_pages);
    g->dicts = calloc(nl, sizeof *g->dicts);
    g->bounds = calloc(nl, sizeof *g->bounds);
    g->slides = calloc(nl, sizeof *g->slides);
    g->ids = calloc(nl, sizeof *g->ids);
    g->vcodes = calloc(nl, sizeof *g->vcodes);
    g->ctx = calloc(nl, sizeof *g->ctx);
    g->work = calloc(s->ntops ? s->ntops : 1, sizeof *g->work);
    if (!g->cols || !g->leaf_pages || !g->dicts || !g->bounds || !g->slides || !g->ids || !g->vcodes || !g->ctx ||
        !g->work)
        return -ENOMEM;
    for (uint32_t l = 0; l < s->nleaves; l++) {
        const struct ig_column_def *cd = &s->cols[s->leaves[l]];
        ig_values_init(&g->cols[l], cd->type);
        g->cols[l].lt = cd->lt; /* text lengths are the logical type's rendering */
        if (!ig_column_is_flat(cd) && !ig_column_is_blob_list(cd))
            ig_values_set_levels(&g->cols[l], cd->dimension ? cd->dimension : 1);
        if (blob_dirs) {
            g->cols[l].blob_dir = blob_dirs[l];
            g->cols[l].blob_list = ig_column_is_blob_list(cd);
        }
    }
    return 0;
}

void ig_group_job_free(struct ig_group_job *g, const struct ig_schema *s)
{
    if (g->cols)
        for (uint32_t l = 0; l < s->nleaves; l++)
            ig_values_free(&g->cols[l]);
    if (g->work)
        for (uint32_t t = 0; t < s->ntops; t++)
            ig_column_work_free(&g->work[t]);
    free(g->cols);
    free(g->leaf_pages);
    free(g->dicts);
    free(g->bounds);
    free(g->slides);
    if (g->ids)
        for (uint32_t l = 0; l < s->nleaves; l++)
            free(g->ids[l].id);
    free(g->ids);
    if (g->vcodes)
        for (uint32_t l = 0; l < s->nleaves; l++)
            ig_vcodes_free(&g->vcodes[l]);
    free(g->vcodes);
    if (g->ctx)
        for (uint32_t l = 0; l < s->nleaves; l++)
            ig_chunk_ctx_free(&g->ctx[l]);
    free(g->ctx);
    free(g->work);
    free(g->tasks);
}
