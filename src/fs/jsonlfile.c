/* jsonlfile.c - a row group's rows as one JSON Lines file (jsonlfile.h). */
#include "jsonlfile.h"
#include "rows.h"
#include "util/error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

int fs_jsonl_layout(struct fs_session *s, uint32_t group, struct fs_jsonl **out)
{
    uint32_t part, local;
    struct ig_grouprec gr;
    struct ig_error err = {0};
    if (ig_table_group(&s->table, group, &part, &local)) return -ENOENT;
    if (ig_part_group(&s->table.parts[part], local, &gr, &err))
        return fs_page_failed(s, part, 0, err.msg, -EIO);
    struct fs_jsonl *v = calloc(1, sizeof *v);
    uint64_t *lens = malloc(((size_t)gr.row_count + 1) * sizeof *lens);
    struct ig_buf scratch = IG_BUF_INIT;
    int rc = v && lens ? 0 : -ENOMEM;
    if (!rc) {
        v->first_row = s->table.parts[part].first_row_id + gr.first_row;
        v->rows = gr.row_count;
        v->nruns = (gr.row_count + FS_JSONL_RUN - 1) / FS_JSONL_RUN;
        v->start = malloc(((size_t)v->nruns + 1) * sizeof *v->start);
        if (!v->start) rc = -ENOMEM;
    }
    /* the rows' lengths, a stretch at a time (a call stops where it must) */
    for (size_t at = 0; !rc && at < gr.row_count;) {
        size_t done = 0;
        rc = fs_rows_sizes(s, v->first_row + at, gr.row_count - at, &scratch, lens + at, &done);
        if (!rc && !done) rc = -EIO;
        at += done;
    }
    if (!rc) {
        uint64_t pos = 0;
        for (uint32_t r = 0; r < v->nruns; r++) {
            v->start[r] = pos;
            size_t end = (size_t)(r + 1) * FS_JSONL_RUN < gr.row_count ? (size_t)(r + 1) * FS_JSONL_RUN : gr.row_count;
            for (size_t i = (size_t)r * FS_JSONL_RUN; i < end; i++)
                pos += lens[i];
        }
        v->start[v->nruns] = v->size = pos;
    }
    ig_buf_free(&scratch);
    free(lens);
    if (rc) {
        fs_jsonl_free(v);
        return rc;
    }
    *out = v;
    return 0;
}

void fs_jsonl_free(struct fs_jsonl *v)
{
    if (v) free(v->start);
    free(v);
}

int fs_jsonl_run(struct fs_session *s, const struct fs_jsonl *v, uint64_t ino, uint32_t i,
                 struct fs_entry **out)
{
    uint64_t k2 = KEY_JSONL_RUN(i);
    struct fs_entry *e = fs_cache_get(&s->cache, ino, k2);
    if (e) {
        *out = e;
        return 0;
    }
    if (!(e = fs_entry_new(ino, k2))) return -ENOMEM;
    uint64_t first = v->first_row + (uint64_t)i * FS_JSONL_RUN;
    uint64_t end = v->first_row + v->rows < first + FS_JSONL_RUN ? v->first_row + v->rows : first + FS_JSONL_RUN;
    /* its length is known (measured when the file was sized): reserved
     * once, the rows are rendered in place instead of into a buffer that
     * doubles, copies and faults in fresh pages as it goes */
    int rc = ig_buf_reserve(&e->data, (size_t)(v->start[i + 1] - v->start[i])) ? -ENOMEM : 0;
    for (uint64_t row = first; row < end && !rc;) {
        size_t done = 0;
        rc = fs_rows_render(s, row, (size_t)(end - row), &e->data, &done);
        if (!rc && !done) rc = -EIO;
        row += done;
    }
    if (!rc && e->data.len != v->start[i + 1] - v->start[i]) {
        char msg[160];
        snprintf(msg, sizeof msg, "rows %llu..%llu of jsonl render to %zu bytes, measured %llu",
                 (unsigned long long)first, (unsigned long long)end - 1, e->data.len,
                 (unsigned long long)(v->start[i + 1] - v->start[i]));
        rc = fs_page_failed(s, 0x7FFFFFFFu, (uint32_t)first, msg, -EIO); /* EAGAIN if it moved */
    }
    if (rc) {
        fs_entry_free(e);
        return rc;
    }
    *out = fs_cache_put(&s->cache, e);
    return 0;
}
