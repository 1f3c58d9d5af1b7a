/* writer.c - a part file from rows: the file, the row groups in order, the
 * footer. Full row groups are encoded column by column, large columns segment
 * by segment (writer_encode.c), by a pool of threads while the caller fills
 * the next group; a group's pages are written, and its records made absolute,
 * once all its tasks are done, in column order (writer_int.h). Two groups may
 * be in the encoders' hands at once, so that a thread whose group has no task
 * left to take works on the next one instead of waiting for the last task of
 * its own (the caller's thread waited a quarter of a CSV import so). */
#include "format/part/writer.h"
#include "format/part/writer_int.h"
#include "format/part/columns.h"
#include "format/layout.h"
#include "format/model/names.h"
#include "format/model/types.h"
#include "blob/blob.h"
#include "util/buf.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/io.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Encoding threads when the caller asks for more than this: the pool holds
 * IG_WRITER_JOBS groups' worth of output at most. */
#define IG_WRITER_MAX_THREADS 64
/* Groups in memory: the one being filled and up to two being encoded, the
 * second only for groups of at most IG_WRITER_SMALL_GROUP bytes of values:
 * a big group's fresh memory costs more than the wait it saves (a .npy of
 * 200,000 vectors, 64 MiB a group: 1.07x the time with three). */
#define IG_WRITER_JOBS 3
#define IG_WRITER_SMALL_GROUP IG_GROUP_BUDGET

struct ig_part_writer {
    int fd;
    char *path;          /* the file being written (a cut moves it on) */
    char *first_path;    /* the first one, which encoders' messages name */
    bool finished;
    bool graft;          /* pages into an existing part's file (writer.h) */
    const struct ig_schema *schema;
    struct ig_writer_conf conf;
    uint64_t rows;       /* rows handed to jobs, all groups */
    uint32_t group_rows; /* rows in the job being filled */
    uint32_t group_step; /* a group ends only at a multiple of this many rows */
    uint32_t group_max;  /* and at this many at most */
    uint64_t group_cap;  /* sized groups: values that end one at a substep of its first step; 0: exact groups */
    uint64_t offset;     /* next write position */
    uint64_t base_rows;  /* rows in the files cut off before this one (writer.h, part_bytes) */
    uint64_t file_rows;  /* rows committed to this one */
    struct ig_buf pages, extras, groups, chunks, blocks;
    struct ig_buf ctx_bytes;   /* a chunk context being written */
    struct ig_ctxrec *ctxrecs; /* per leaf: where the group being committed put its context */
    uint32_t num_pages, num_groups, num_blocks, handed;
    struct ig_group_job jobs[IG_WRITER_JOBS];
    struct ig_group_job *fill;                         /* the group the caller is filling */
    struct ig_group_job *running[IG_WRITER_JOBS - 1]; /* handed to the encoders, not yet written: oldest first */
    unsigned nrunning;
    struct ig_encoder own; /* the caller's thread helps encode */
    /* the pool: workers take tasks of the oldest running group that has some */
    pthread_t *threads;
    struct ig_encoder *encs;
    unsigned nthreads;
    bool pool_up, stop;
    pthread_mutex_t mu;
    pthread_cond_t work, idle;
    bool has_blobs;
    struct ig_blob_writer blobs;
    char (*blob_dirs)[800];
};

static const struct ig_column_def *leaf_def(const struct ig_part_writer *w, uint32_t l)
{
    return &w->schema->cols[w->schema->leaves[l]];
}

void ig_writer_opts_default(struct ig_writer_opts *o)
{
    *o = (struct ig_writer_opts){
        .page_size = 65536, .zstd_level = 2, .zstd_level_bytes = 1,
        .erase_level = 2};
}

uint32_t ig_writer_default_page_size(const struct ig_column_def *cd)
{
    struct ig_writer_opts o;
    ig_writer_opts_default(&o);
    return ig_writer_undeclared_page_size(cd, o.page_size);
}

/* Queue a task of g (under the pool's lock). */
static int push_task(struct ig_group_job *g, uint32_t top, uint32_t seg)
{
    if (g->ntasks == g->tasks_cap) {
        size_t cap = g->tasks_cap ? g->tasks_cap * 2 : 64;
        struct ig_task *t = realloc(g->tasks, cap * sizeof *t);
        if (!t) return -ENOMEM;
        g->tasks = t;
        g->tasks_cap = cap;
    }
    g->tasks[g->ntasks++] = (struct ig_task){top, seg};
    return 0;
}

/* Do one task; a plan queues its column's segments but the first, which
 * this thread encodes next. */
static int run_task(struct ig_part_writer *w, struct ig_group_job *g, struct ig_task t,
                    struct ig_encoder *e, struct ig_error *err)
{
    if (t.seg != IG_TASK_PLAN) return ig_writer_encode_segment(&w->conf, g, t.top, t.seg, e, err);
    int rc = ig_writer_plan_column(&w->conf, g, t.top, e, err);
    if (rc) return rc;
    uint32_t nsegs = g->work[t.top].nsegs;
    if (nsegs > 1) {
        pthread_mutex_lock(&w->mu);
        for (uint32_t k = 1; k < nsegs && !rc; k++)
            rc = push_task(g, t.top, k);
        pthread_cond_broadcast(&w->work);
        pthread_cond_broadcast(&w->idle); /* the caller, waiting in settle, helps */
        pthread_mutex_unlock(&w->mu);
        if (rc) return ig_err(err, rc, "out of memory");
    }
    return ig_writer_encode_segment(&w->conf, g, t.top, 0, e, err);
}

/* Do the next task of g, if one is left to take (any thread; called and
 * returning under the lock). Whether there was one. */
static bool take_task(struct ig_part_writer *w, struct ig_group_job *g, struct ig_encoder *e)
{
    if (g->next_task == g->ntasks) return false;
    struct ig_task t = g->tasks[g->next_task++];
    pthread_mutex_unlock(&w->mu);
    struct ig_error err = {0};
    int rc = run_task(w, g, t, e, &err);
    pthread_mutex_lock(&w->mu);
    /* the first failing column (and segment), whatever the timing */
    uint64_t at = (uint64_t)t.top << 32 | (t.seg == IG_TASK_PLAN ? 0 : t.seg);
    if (rc && at < g->err_at) {
        g->err_at = at;
        g->err = err;
        if (!g->err.code) g->err.code = rc;
    }
    if (++g->done == g->ntasks) pthread_cond_broadcast(&w->idle);
    return true;
}

/* The oldest running group with a task left to take, or NULL (under the lock). */
static struct ig_group_job *with_tasks(struct ig_part_writer *w)
{
    for (unsigned i = 0; i < w->nrunning; i++)
        if (w->running[i]->next_task < w->running[i]->ntasks) return w->running[i];
    return NULL;
}

static void *worker(void *arg)
{
    struct ig_part_writer *w = ((void **)arg)[0];
    struct ig_encoder *e = ((void **)arg)[1];
    free(arg);
    pthread_mutex_lock(&w->mu);
    while (!w->stop) {
        struct ig_group_job *g = with_tasks(w);
        if (g) {
            while (take_task(w, g, e)) {}
            continue;
        }
        pthread_cond_wait(&w->work, &w->mu);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

/* Workers beside the caller's thread: threads - 1 of them. */
static int pool_start(struct ig_part_writer *w, unsigned threads)
{
    if (pthread_mutex_init(&w->mu, NULL)) return -ENOMEM;
    if (pthread_cond_init(&w->work, NULL) || pthread_cond_init(&w->idle, NULL)) return -ENOMEM;
    w->pool_up = true;
    if (threads > IG_WRITER_MAX_THREADS) threads = IG_WRITER_MAX_THREADS;
    if (threads <= 1) return 0;
    w->threads = calloc(threads - 1, sizeof *w->threads);
    w->encs = calloc(threads - 1, sizeof *w->encs);
    if (!w->threads || !w->encs) return -ENOMEM;
    for (unsigned i = 0; i + 1 < threads; i++) {
        void **arg = malloc(2 * sizeof *arg);
        if (!arg) return -ENOMEM;
        arg[0] = w;
        arg[1] = &w->encs[i];
        if (pthread_create(&w->threads[i], NULL, worker, arg)) {
            free(arg);
            return -EAGAIN;
        }
        w->nthreads++;
    }
    return 0;
}

static void pool_stop(struct ig_part_writer *w)
{
    if (!w->pool_up) return;
    pthread_mutex_lock(&w->mu);
    w->stop = true;
    pthread_cond_broadcast(&w->work);
    pthread_mutex_unlock(&w->mu);
    for (unsigned i = 0; i < w->nthreads; i++)
        pthread_join(w->threads[i], NULL);
    for (unsigned i = 0; w->encs && i < w->nthreads; i++)
        ig_encoder_free(&w->encs[i]);
    free(w->threads);
    free(w->encs);
    pthread_cond_destroy(&w->work);
    pthread_cond_destroy(&w->idle);
    pthread_mutex_destroy(&w->mu);
    w->pool_up = false;
}

/* A new part file at path, its magic written (w->fd, w->offset): the first
 * file, and each one a cut starts. */
static int start_file(struct ig_part_writer *w, const char *path, struct ig_error *err)
{
    w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (w->fd < 0) return ig_err(err, -errno, "%s: %s", path, strerror(errno));
    int rc = ig_write_full(w->fd, IG_PART_MAGIC, IG_PART_MAGIC_LEN);
    if (rc) return ig_err(err, rc, "%s: write: %s", path, strerror(-rc));
    w->offset = IG_PART_MAGIC_LEN;
    return 0;
}

/* A graft's part file, written from byte start on. */
static int open_graft(struct ig_part_writer *w, const char *path, uint64_t start,
                      struct ig_error *err)
{
    w->fd = open(path, O_WRONLY | O_CLOEXEC);
    if (w->fd < 0) return ig_err(err, -errno, "%s: %s", path, strerror(errno));
    if (start % 8 || lseek(w->fd, (off_t)start, SEEK_SET) < 0) {
        int e = start % 8 ? EINVAL : errno;
        return ig_err(err, -e, "%s: cannot write from byte %llu: %s", path,
                      (unsigned long long)start, strerror(e));
    }
    w->offset = start;
    return 0;
}

static int writer_open(struct ig_part_writer **out, const char *path, bool graft, uint64_t start,
                       const struct ig_schema *s, const struct ig_writer_opts *o, uint64_t first_row_id,
                       struct ig_error *err)
{
    struct ig_part_writer *w = calloc(1, sizeof *w);
    if (!w) return ig_err(err, -ENOMEM, "out of memory");
    w->fd = -1;
    w->blobs.fd = -1;
    w->schema = s;
    w->path = strdup(path);
    w->first_path = strdup(path);
    w->conf = (struct ig_writer_conf){.schema = s, .first_row_id = first_row_id, .path = w->first_path};
    struct ig_writer_opts *wo = &w->conf.o;
    if (o)
        *wo = *o;
    else
        ig_writer_opts_default(wo);
    w->group_step = wo->rows_per_group ? wo->rows_per_group : IG_GROUP_STEP;
    w->group_max = wo->rows_per_group ? wo->rows_per_group : IG_GROUP_MAX_ROWS;
    w->group_cap = wo->rows_per_group || wo->group_rows ? 0 : wo->group_cap ? wo->group_cap : IG_GROUP_CAP;
    if (!wo->page_size) wo->page_size = 65536;
    if (!wo->erase_level) wo->erase_level = 2;
    w->ctxrecs = calloc(s->nleaves ? s->nleaves : 1, sizeof *w->ctxrecs);
    if (!w->path || !w->first_path || !s->leaves || !w->ctxrecs) {
        ig_part_writer_free(w);
        return ig_err(err, -ENOMEM, "out of memory (or the schema is not finished)");
    }
    for (uint32_t l = 0; l < s->nleaves; l++)
        w->has_blobs |= leaf_def(w, l)->type == IG_T_BLOB;
    if (w->has_blobs) {
        w->blob_dirs = calloc(s->nleaves, sizeof *w->blob_dirs);
        if (!w->blob_dirs || !wo->blob_path) {
            int rc = w->blob_dirs ? ig_err(err, -EINVAL, "%s: blob columns need a blob file", path)
                                  : ig_err(err, -ENOMEM, "out of memory");
            ig_part_writer_free(w);
            return rc;
        }
        for (uint32_t l = 0; l < s->nleaves; l++) {
            const struct ig_column_def *cd = leaf_def(w, l);
            ig_blob_dir_name(cd->name, cd->name_len, w->blob_dirs[l], 800);
        }
    }
    int rc = 0;
    for (unsigned j = 0; j < IG_WRITER_JOBS && !rc; j++)
        rc = ig_group_job_init(&w->jobs[j], w->schema, w->blob_dirs);
    if (!rc) rc = pool_start(w, wo->threads);
    if (rc) {
        ig_part_writer_free(w);
        return ig_err(err, rc, "%s: %s", path, rc == -EAGAIN ? "cannot start encoding threads" : "out of memory");
    }
    w->fill = &w->jobs[0];
    if (w->has_blobs) {
        /* a graft adds objects to the part's blob file: those there stay put */
        int brc = graft ? ig_blob_writer_open_append(&w->blobs, wo->blob_path, err)
                        : ig_blob_writer_open(&w->blobs, wo->blob_path, err);
        if (brc) {
            ig_part_writer_free(w);
            return brc;
        }
    }
    w->graft = graft;
    rc = graft ? open_graft(w, path, start, err) : start_file(w, path, err);
    if (rc) {
        ig_part_writer_free(w);
        return rc;
    }
    *out = w;
    return 0;
}

int ig_part_writer_open(struct ig_part_writer **out, const char *path, const struct ig_schema *s,
                        const struct ig_writer_opts *o, uint64_t first_row_id, struct ig_error *err)
{
    return writer_open(out, path, false, 0, s, o, first_row_id, err);
}

int ig_part_writer_open_graft(struct ig_part_writer **out, const char *path, uint64_t start,
                              const struct ig_schema *s, const struct ig_writer_opts *o,
                              uint64_t first_row_id, struct ig_error *err)
{
    if (!o || !o->group_rows || !o->ngroups)
        return ig_err(err, -EINVAL, "%s: a graft needs the part's row groups", path);
    return writer_open(out, path, true, start, s, o, first_row_id, err);
}

struct ig_values *ig_part_writer_column(struct ig_part_writer *w, uint32_t leaf)
{
    return leaf < w->schema->nleaves ? &w->fill->cols[leaf] : NULL;
}

struct ig_values *ig_part_writer_columns(struct ig_part_writer *w)
{
    return w->fill->cols;
}

uint64_t ig_part_writer_rows(const struct ig_part_writer *w)
{
    return w->rows + w->group_rows;
}

struct ig_blob_writer *ig_part_writer_blobs(struct ig_part_writer *w)
{
    return w->has_blobs ? &w->blobs : NULL;
}

/* Write one segment's pages after everything before, with its page records
 * made absolute. */
static int commit_out(struct ig_part_writer *w, const struct ig_column_out *o, struct ig_error *err)
{
    int rc = 0;
    if (o->fitted && w->offset % IG_DISK_PAGE) {
        static const uint8_t zeros[IG_DISK_PAGE];
        size_t pad = IG_DISK_PAGE - (size_t)(w->offset % IG_DISK_PAGE);
        rc = ig_write_full(w->fd, zeros, pad);
        w->offset += pad;
    }
    if (!rc) rc = ig_write_full(w->fd, o->stored.data, o->stored.len);
    if (rc) return ig_err(err, rc, "%s: write: %s", w->path, strerror(-rc));
    for (uint32_t p = 0; p < o->npages; p++) {
        uint8_t *r = o->pages.data + (size_t)p * IG_PG_SIZE;
        uint8_t *x = o->extras.data + (size_t)p * IG_PX_SIZE;
        ig_st64(r + IG_PG_OFFSET, ig_ld64(r + IG_PG_OFFSET) + w->offset);
        ig_st32(x + IG_PX_FIRST_BLOCK, ig_ld32(x + IG_PX_FIRST_BLOCK) + w->num_blocks);
    }
    if (ig_buf_append(&w->pages, o->pages.data, o->pages.len) ||
        ig_buf_append(&w->extras, o->extras.data, o->extras.len) ||
        ig_buf_append(&w->blocks, o->blocks.data, o->blocks.len))
        return ig_err(err, -ENOMEM, "out of memory");
    w->offset += o->stored.len;
    w->num_pages += o->npages;
    w->num_blocks += o->nblocks;
    return 0;
}

/* Whether a block of column cw (a flat leaf: its blocks are the leaf's) is
 * compressed against its chunk's dictionary. */
static bool dict_used(const struct ig_column_work *cw)
{
    for (uint32_t k = 0; k < cw->nsegs; k++) {
        const struct ig_column_out *o = &cw->segs[k];
        for (uint32_t b = 0; b < o->nblocks; b++)
            if (o->blocks.data[(size_t)b * IG_BLK_SIZE + IG_BLK_COMPRESSION] == IG_PC_ZSTD_DICT)
                return true;
    }
    return false;
}

/* The file's footer (its rows: those committed to it, from its own first
 * row id) and tail after its pages; fsync and close it. */
static int close_file(struct ig_part_writer *w, struct ig_error *err)
{
    struct ig_writer_conf conf = w->conf;
    conf.first_row_id += w->base_rows;
    struct ig_footer_tables t = {.conf = &conf, .rows = w->file_rows, .groups = &w->groups, .chunks = &w->chunks,
                                 .pages = &w->pages, .extras = &w->extras, .blocks = &w->blocks,
                                 .num_groups = w->num_groups, .num_pages = w->num_pages,
                                 .num_blocks = w->num_blocks};
    int rc = ig_writer_write_footer(w->fd, w->offset, &t, w->path, err);
    if (close(w->fd) && !rc) rc = ig_err(err, -errno, "%s: close: %s", w->path, strerror(errno));
    w->fd = -1;
    return rc;
}

/* The file is full (writer.h, part_bytes): finish it as a part of its own
 * and go on in a new file at the path the caller names, with empty tables. */
static int cut(struct ig_part_writer *w, struct ig_error *err)
{
    char next[4096];
    int rc = close_file(w, err);
    if (!rc) rc = w->conf.o.next_part(w->conf.o.next_ctx, w->file_rows, next, sizeof next, err);
    if (rc) return rc;
    char *p = strdup(next);
    if (!p) return ig_err(err, -ENOMEM, "out of memory");
    free(w->path); /* the file before is finished: the caller's from now on */
    w->path = p;
    rc = start_file(w, p, err);
    if (rc) return rc;
    w->base_rows += w->file_rows;
    w->file_rows = 0;
    w->num_pages = w->num_groups = w->num_blocks = 0;
    ig_buf_reset(&w->pages);
    ig_buf_reset(&w->extras);
    ig_buf_reset(&w->groups);
    ig_buf_reset(&w->chunks);
    ig_buf_reset(&w->blocks);
    return 0;
}

/* Does g start a new file (writer.h, part_bytes)? When the file holds a group
 * already and g's pages would take it past part_bytes: a part holds at most
 * part_bytes of pages, or one group that is larger by itself. */
static bool cut_before(const struct ig_part_writer *w, const struct ig_group_job *g)
{
    const struct ig_writer_opts *o = &w->conf.o;
    if (!o->part_bytes || !o->next_part || w->graft || w->has_blobs || !w->num_groups) return false;
    uint64_t bytes = 0;
    for (uint32_t t = 0; t < w->schema->ntops; t++)
        for (uint32_t k = 0; k < g->work[t].nsegs; k++) /* with a fitted chunk's padding, at most */
            bytes += g->work[t].segs[k].stored.len + (g->work[t].segs[k].fitted ? IG_DISK_PAGE : 0);
    return w->offset + bytes > o->part_bytes;
}

/* The contexts of top-level column cw's chunks in g, written before its pages:
 * each leaf's symbol table with the uses its blocks make of it (summed over
 * the segments); the symbols no block uses are erased, and a table no block
 * uses is not written at all. w->ctxrecs[l] says where each went. */
static int commit_contexts(struct ig_part_writer *w, struct ig_group_job *g,
                           const struct ig_column_work *cw, struct ig_error *err)
{
    for (uint32_t l = cw->l0; l < cw->l1; l++) {
        struct ig_chunk_ctx *cx = &g->ctx[l];
        w->ctxrecs[l] = (struct ig_ctxrec){0};
        if (!cx->fsst && !cx->zdict && !cx->vdict) continue;
        int rc = 0;
        if (cx->fsst) {
            ig_fsst_reset_counts(cx->fsst);
            for (uint32_t k = 0; k < cw->nsegs && !rc; k++)
                for (uint32_t u = 0; u < cw->segs[k].nuses && !rc; u++)
                    if (cw->segs[k].uses[u].leaf == l)
                        rc = ig_fsst_add_uses(cx->fsst, cw->segs[k].uses[u].counts, 1);
            if (rc)
                return ig_err(err, -EIO, "%s: column '%s': blocks use symbols their table lacks",
                              w->path, leaf_def(w, l)->name);
            ig_fsst_prune(cx->fsst);
            if (!ig_fsst_symbols(cx->fsst)) {
                ig_fsst_free(cx->fsst);
                cx->fsst = NULL;
            }
        }
        if (cx->zdict && !dict_used(cw)) {
            ig_zdict_free(cx->zdict);
            cx->zdict = NULL;
        }
        if (cx->fsst || cx->zdict || cx->vdict) {
            ig_buf_reset(&w->ctx_bytes);
            /* packed where that is smaller (format 22): the package index's
             * value dictionaries and zstd dictionaries of text take half */
            if (ig_chunk_ctx_write(cx, &w->ctx_bytes) ||
                ig_chunk_ctx_pack(&w->ctx_bytes, 0, IG_CTX_ZSTD_LEVEL, true))
                return ig_err(err, -ENOMEM, "out of memory");
            rc = ig_write_full(w->fd, w->ctx_bytes.data, w->ctx_bytes.len);
            if (rc) return ig_err(err, rc, "%s: write: %s", w->path, strerror(-rc));
            w->ctxrecs[l] =
                (struct ig_ctxrec){.offset = w->offset,
                                   .size = (uint32_t)w->ctx_bytes.len,
                                   .hash = ig_hash(w->ctx_bytes.data, w->ctx_bytes.len)};
            w->offset += w->ctx_bytes.len;
        }
        ig_chunk_ctx_free(cx);
    }
    return 0;
}

/* Write g's pages after everything before, in column order, with their
 * records made absolute; its chunk and group records; then empty g for reuse. */
static int commit(struct ig_part_writer *w, struct ig_group_job *g, struct ig_error *err)
{
    const struct ig_schema *s = w->schema;
    if (g->err_at != UINT64_MAX) {
        *err = g->err;
        return g->err.code;
    }
    if (cut_before(w, g)) {
        int rc = cut(w, err);
        if (rc) return rc;
    }
    uint32_t first_page = w->num_pages;
    uint64_t first_byte = w->offset;
    for (uint32_t t = 0; t < s->ntops; t++) {
        const struct ig_column_work *cw = &g->work[t];
        if (cw->nsegs > 1) { /* one leaf, its pages in its segments */
            g->leaf_pages[cw->l0] = 0;
            for (uint32_t k = 0; k < cw->nsegs; k++)
                g->leaf_pages[cw->l0] += cw->segs[k].npages;
        }
        int rc = commit_contexts(w, g, cw, err);
        if (rc) return rc;
        for (uint32_t k = 0; k < cw->nsegs; k++) {
            rc = commit_out(w, &cw->segs[k], err);
            if (rc) return rc;
        }
    }
    /* start writing g's pages to disk now, while the next groups encode: the
     * fsync in finish then waits for little more than the last group's pages
     * (it waited ~28 ms with both cores idle for the 71 MB part of a 263 MB
     * CSV; each call costs ~0.4 ms). Only a hint: finish's fsync reports any
     * failure to write. */
#ifdef SYNC_FILE_RANGE_WRITE
    if (w->offset > first_byte)
        (void)sync_file_range(w->fd, (off_t)first_byte, (off_t)(w->offset - first_byte),
                              SYNC_FILE_RANGE_WRITE);
#endif
    /* chunk records in leaf order (the columns' pages are in leaf order) */
    uint32_t page = first_page;
    for (uint32_t l = 0; l < s->nleaves; l++) {
        uint8_t chk[IG_CHK_SIZE] = {0};
        ig_st32(chk + IG_CHK_FIRST_PAGE, page);
        ig_st32(chk + IG_CHK_PAGE_COUNT, g->leaf_pages[l]);
        ig_st32(chk + IG_CHK_DICT_COUNT, g->dicts[l].count);
        ig_st32(chk + IG_CHK_DICT_BYTES, g->dicts[l].bytes);
        ig_chunk_minmax_put(chk, &g->bounds[l]);
        ig_st64(chk + IG_CHK_CTX_OFFSET, w->ctxrecs[l].offset);
        ig_st32(chk + IG_CHK_CTX_SIZE, w->ctxrecs[l].size);
        ig_st64(chk + IG_CHK_CTX_HASH, w->ctxrecs[l].hash);
        page += g->leaf_pages[l];
        if (ig_buf_append(&w->chunks, chk, sizeof chk)) return ig_err(err, -ENOMEM, "out of memory");
        ig_values_reset(&g->cols[l]);
        g->cols[l].type = leaf_def(w, l)->type; /* quantised leaves were read back as float32 */
    }
    uint8_t rec[IG_GRP_SIZE] = {0};
    ig_st64(rec + IG_GRP_FIRST_ROW, g->first_row - w->base_rows);
    ig_st32(rec + IG_GRP_ROW_COUNT, g->rows);
    ig_st32(rec + IG_GRP_FIRST_PAGE, first_page);
    ig_st32(rec + IG_GRP_PAGE_COUNT, w->num_pages - first_page);
    /* the hash is filled in at finish, once the page table is final */
    if (ig_buf_append(&w->groups, rec, sizeof rec)) return ig_err(err, -ENOMEM, "out of memory");
    w->num_groups++;
    w->file_rows += g->rows;
    return 0;
}

/* Finish the oldest running group (this thread encodes what no worker has
 * taken, of it or of the next group) and write it. The caller helps one task
 * at a time and goes back to filling as soon as the oldest group is done:
 * taking every task left of the next group kept it on a title column's
 * ~30 ms task while the worker ran out of work (~6 ms idle a group). */
static int settle(struct ig_part_writer *w, struct ig_error *err)
{
    pthread_mutex_lock(&w->mu);
    struct ig_group_job *g = w->nrunning ? w->running[0] : NULL;
    while (g && g->done < g->ntasks) {
        struct ig_group_job *h = with_tasks(w); /* help: a plan may have queued segments */
        if (h) {
            take_task(w, h, &w->own);
            continue;
        }
        pthread_cond_wait(&w->idle, &w->mu);
    }
    if (g) {
        w->nrunning--;
        memmove(w->running, w->running + 1, w->nrunning * sizeof *w->running);
    }
    pthread_mutex_unlock(&w->mu);
    return g ? commit(w, g, err) : 0;
}

/* Settle every running group, oldest first. */
static int settle_all(struct ig_part_writer *w, struct ig_error *err)
{
    int rc = 0;
    while (!rc && w->nrunning)
        rc = settle(w, err);
    return rc;
}

/* A job neither filled nor running: the next to fill. */
static struct ig_group_job *free_job(struct ig_part_writer *w)
{
    for (unsigned j = 0; j < IG_WRITER_JOBS; j++) {
        struct ig_group_job *g = &w->jobs[j];
        bool busy = g == w->fill;
        for (unsigned i = 0; i < w->nrunning; i++)
            busy |= w->running[i] == g;
        if (!busy) return g;
    }
    return NULL;
}

/* The bytes the values of job g take (lanes, bytes, levels). */
static uint64_t job_bytes(const struct ig_part_writer *w, const struct ig_group_job *g)
{
    uint64_t n = 0;
    for (uint32_t l = 0; l < w->schema->nleaves; l++) {
        const struct ig_values *v = &g->cols[l];
        n += (uint64_t)v->n * 8 + v->data.len + 2 * (uint64_t)v->nent;
    }
    return n;
}

/* Hand the filled group to the encoders and fill a free one (settling the
 * oldest running groups first while as many run as may). */
static int hand_off(struct ig_part_writer *w, struct ig_error *err)
{
    unsigned may_run = job_bytes(w, w->fill) <= IG_WRITER_SMALL_GROUP ? IG_WRITER_JOBS - 1 : 1;
    int rc = 0;
    while (!rc && w->nrunning >= may_run)
        rc = settle(w, err);
    if (rc || w->group_rows == 0) return rc;
    struct ig_group_job *g = w->fill;
    g->rows = w->group_rows;
    g->first_row = w->rows;
    g->index = w->handed++;
    g->ntasks = g->next_task = g->done = 0;
    g->err_at = UINT64_MAX;
    for (uint32_t t = 0; t < w->schema->ntops; t++)
        if (push_task(g, t, IG_TASK_PLAN)) return ig_err(err, -ENOMEM, "out of memory");
    w->rows += w->group_rows;
    w->group_rows = 0;
    pthread_mutex_lock(&w->mu);
    w->running[w->nrunning++] = g;
    pthread_cond_broadcast(&w->work);
    pthread_mutex_unlock(&w->mu);
    /* alone, encode it now: one group of values in memory, not three, and
     * refill that same group, whose buffers are grown and touched already
     * (a second one's first touch cost page faults and zeroing for nothing) */
    if (!w->nthreads) rc = settle_all(w, err);
    w->fill = NULL; /* g is running, or settled and free again */
    w->fill = free_job(w);
    if (!w->fill) return ig_err(err, -EIO, "%s: no row group free to fill", w->path); /* never: one is */
    return rc;
}

int ig_part_writer_end_row(struct ig_part_writer *w, struct ig_error *err)
{
    return ig_part_writer_end_rows(w, 1, err);
}

/* Whether a sized group being filled is inside its first step, where it may
 * end at any substep. */
static bool in_first_step(const struct ig_part_writer *w)
{
    return w->group_cap && w->group_rows < w->group_step;
}

/* Exact groups (a graft): the rows group `handed` must hold. */
static uint32_t exact_group_rows(const struct ig_part_writer *w)
{
    const struct ig_writer_opts *o = &w->conf.o;
    return w->handed < o->ngroups ? o->group_rows[w->handed] : 0;
}

uint32_t ig_part_writer_room(const struct ig_part_writer *w)
{
    if (w->conf.o.group_rows) return exact_group_rows(w) - w->group_rows;
    if (in_first_step(w)) return IG_GROUP_SUBSTEP - w->group_rows % IG_GROUP_SUBSTEP;
    return w->group_step - w->group_rows % w->group_step;
}

/* At the end of a step (or a first step's substep): whether the group being
 * filled ends here (writer.h). */
static bool group_full(const struct ig_part_writer *w)
{
    if (w->group_rows >= w->group_max) return true;
    if (w->group_rows < w->group_step) return job_bytes(w, w->fill) >= w->group_cap;
    if (w->handed < IG_GROUP_RAMP) return true;
    uint64_t steps = w->group_rows / w->group_step;
    return job_bytes(w, w->fill) / steps * (steps + 1) > IG_GROUP_BUDGET;
}

int ig_part_writer_end_rows(struct ig_part_writer *w, uint32_t n, struct ig_error *err)
{
    if (w->conf.o.group_rows && w->handed >= w->conf.o.ngroups && n)
        return ig_err(err, -EINVAL, "%s: more rows than the part's row groups hold", w->path);
    if (n > ig_part_writer_room(w))
        return ig_err(err, -EINVAL, "%u rows end past the row group's room of %u", n, ig_part_writer_room(w));
    uint32_t want = w->group_rows + n;
    for (uint32_t l = 0; l < w->schema->nleaves; l++) {
        const struct ig_values *v = &w->fill->cols[l];
        size_t have = v->levels ? v->rows : v->n;
        if (have != want)
            return ig_err(err, -EINVAL, "column '%s' has %zu rows in a row group of %u rows",
                          leaf_def(w, l)->name, have, want);
    }
    if (w->conf.o.group_rows) { /* exact groups: a group ends where the part's did */
        w->group_rows = want;
        return n && want == exact_group_rows(w) ? hand_off(w, err) : 0;
    }
    bool first_step = in_first_step(w);
    w->group_rows = want;
    bool boundary = first_step ? want % IG_GROUP_SUBSTEP == 0 : want % w->group_step == 0;
    if (n && boundary && group_full(w)) return hand_off(w, err);
    return 0;
}

int ig_part_writer_finish(struct ig_part_writer *w, struct ig_error *err)
{
    int rc = hand_off(w, err);
    if (!rc) rc = settle_all(w, err);
    if (rc) return rc;
    if (w->rows == 0) return ig_err(err, -EINVAL, "%s: no rows to write", w->path);
    if (w->has_blobs) {
        rc = ig_blob_writer_finish(&w->blobs, err);
        if (rc) return rc;
    }
    rc = close_file(w, err);
    if (rc) return rc;
    w->finished = true;
    return 0;
}

int ig_part_writer_finish_graft(struct ig_part_writer *w, struct ig_buf *footer, uint64_t *end,
                                struct ig_error *err)
{
    if (!w->graft) return ig_err(err, -EINVAL, "%s: not a graft", w->path);
    int rc = hand_off(w, err);
    if (!rc) rc = settle_all(w, err);
    if (rc) return rc;
    if (w->num_groups != w->conf.o.ngroups)
        return ig_err(err, -EINVAL, "%s: %u row groups written, the part has %u", w->path, w->num_groups,
                      w->conf.o.ngroups);
    if (w->has_blobs) {
        rc = ig_blob_writer_finish(&w->blobs, err);
        if (rc) return rc;
    }
    if (fsync(w->fd)) return ig_err(err, -errno, "%s: fsync: %s", w->path, strerror(errno));
    uint64_t root;
    ig_buf_reset(footer);
    struct ig_footer_tables tables = {.conf = &w->conf, .rows = w->rows, .groups = &w->groups, .chunks = &w->chunks,
                                 .pages = &w->pages, .extras = &w->extras, .blocks = &w->blocks,
                                 .num_groups = w->num_groups, .num_pages = w->num_pages,
                                 .num_blocks = w->num_blocks};
    rc = ig_writer_build_footer(&tables, footer, &root);
    if (rc) return ig_err(err, rc, "%s: building the footer: out of memory", w->path);
    *end = w->offset;
    w->finished = true;
    return 0;
}

void ig_part_writer_free(struct ig_part_writer *w)
{
    if (!w) return;
    pool_stop(w);
    if (w->fd >= 0) close(w->fd);
    if (!w->finished && w->path && !w->graft) unlink(w->path); /* a graft's file is the caller's */
    for (unsigned j = 0; j < IG_WRITER_JOBS; j++)
        ig_group_job_free(&w->jobs[j], w->schema);
    ig_encoder_free(&w->own);
    free(w->path);
    free(w->first_path);
    ig_buf_free(&w->pages);
    ig_buf_free(&w->extras);
    ig_buf_free(&w->groups);
    ig_buf_free(&w->chunks);
    ig_buf_free(&w->ctx_bytes);
    free(w->ctxrecs);
    ig_buf_free(&w->blocks);
    if (w->has_blobs) {
        if (!w->finished) w->blobs.finished = false; /* remove it with the part */
        ig_blob_writer_free(&w->blobs);
    }
    free(w->blob_dirs);
    free(w);
}
