/* import_schema.c - the schema an import writes its rows with: a schema
 * file's, the table's (an append), the input's own (Parquet's, a .npy's
 * dtype, inferred from a sample), or one made from every input's
 * (import_int.h). */
#include "import_int.h"
#include "infer.h"
#include "format/part/columns.h"
#include "schema_union.h"
#include "spool.h"
#include "widen.h"
#include "util/error.h"
#include "util/io.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Does column cin of `in` go into column ct of the table as the table's type
 * is: its leaves widen into the table's (a narrower type, widen.h), and a
 * struct of it may lack fields the table's has (they hold NULL in its rows,
 * so the table's must be nullable there)? A field the table's lacks, or a
 * wider leaf, would change the table's type. */
static int widens_into(const struct ig_schema *in, uint32_t cin, const struct ig_schema *table, uint32_t ct,
                       bool *fits)
{
    *fits = ig_widen_column(in, cin, table, ct);
    if (*fits) return 0;
    struct ig_buf both = IG_BUF_INIT, have = IG_BUF_INIT;
    int rc = ig_widen_union(table, ct, in, cin, &both, fits);
    if (!rc && *fits) rc = ig_schema_type_text(table, ct, &have);
    if (!rc && *fits) *fits = both.len == have.len && !memcmp(both.data, have.data, have.len);
    ig_buf_free(&both);
    ig_buf_free(&have);
    return rc;
}

/* Do the input's top-level columns fit the table's (the same type, whatever
 * may be NULL: values are read by the table's schema, and a NULL where it
 * cannot hold one is refused as the rows are read)? */
int import_schema_fits(const struct ig_schema *in, const struct ig_schema *table, bool widens, const char *what,
                       struct ig_error *err)
{
    struct ig_buf want = IG_BUF_INIT, have = IG_BUF_INIT;
    int rc = 0;
    for (uint32_t k = 0; k < in->ntops && !rc; k++) {
        const struct ig_column_def *cd = &in->cols[in->tops[k]];
        long node = ig_schema_find(table, cd->name, cd->name_len);
        if (node < 0)
            rc = ig_err(err, -EINVAL, "%s: column '%s' is not in the table", what, cd->name);
        else if (ig_schema_type_text_bare(in, in->tops[k], &want) ||
                 ig_schema_type_text_bare(table, (uint32_t)node, &have))
            rc = ig_err(err, -ENOMEM, "out of memory");
        else if (want.len == have.len && !memcmp(want.data, have.data, want.len))
            continue;
        bool fits = false;
        if (!rc && widens && widens_into(in, in->tops[k], table, (uint32_t)node, &fits))
            rc = ig_err(err, -ENOMEM, "out of memory");
        if (!rc && !fits)
            rc = ig_err(err, -EINVAL, "%s: column '%s' is %.*s in the table, %.*s here: a column keeps its type "
                                      "(a narrower one is widened into it; ingot replace-column --retype "
                                      "changes it)",
                        what, cd->name, (int)have.len, (const char *)have.data, (int)want.len,
                        (const char *)want.data);
    }
    ig_buf_free(&want);
    ig_buf_free(&have);
    return rc;
}

static bool table_shows(void *t, uint32_t col)
{
    return ig_table_shows(t, col);
}

/* The table's schema an append reads its input by: every record the parts
 * have, those the version hides (a column replaced or dropped: older versions
 * show them) under names no input gives, so the new part holds NULL there. */
static int append_schema(const struct ig_table *t, struct ig_schema *s, struct ig_error *err)
{
    return ig_schema_from_part_hiding(&t->parts[0], table_shows, (void *)t, s, err);
}

/* Can rows be appended to a table whose version hides some records? Its new
 * part has every record (all parts do) and leaves the hidden ones NULL
 * (ig_column_def.hidden: CSV and JSON Lines never name them, a Parquet file's
 * columns go to the shown ones), or where one cannot be NULL its least value
 * (ig_stripe_absent), then released (release_hidden). A .npy is one column:
 * a table with more does not take it. */
static int check_hidden(const struct ig_table *t, enum ig_input_format fmt, struct ig_error *err)
{
    if (ig_table_columns_shown(t) == t->parts[0].num_columns || fmt != IG_INPUT_NPY) return 0;
    return ig_err(err, -ENOTSUP, "%s: its older versions show columns this one does not (a column "
                                 "replaced or dropped); appending a .npy to it is not supported",
                  t->dir);
}

/* Copies kept for the import: the inputs it must (read once) and, of those
 * the inference copied whole anyway (small ones), this many, of at most
 * these bytes together (the disk under $TMPDIR holds them at once). */
#define KEPT_COPIES_MAX 64
#define KEPT_BYTES_MAX (256ull << 20)

/* What the schema of several inputs is made from as each is read: CSV and
 * JSON Lines samples (infer.h), Parquet schemas (schema_union.h). */
struct schema_of_all {
    enum ig_input_format fmt;
    uint32_t sample;
    struct ig_infer *g;
    struct ig_schema_union u;
};

/* Input r's part of it (r open: csv, lr or r->pq). */
static int take_in(struct schema_of_all *all, struct import_run *r, struct ig_csv_reader *csv,
                   struct ig_lines_reader *lr, struct ig_error *err)
{
    if (all->fmt == IG_INPUT_CSV) return ig_infer_csv_more(all->g, csv, r->input, all->sample, r->cut, err);
    if (all->fmt == IG_INPUT_JSONL) return ig_infer_jsonl_more(all->g, lr, r->input, all->sample, err);
    struct ig_schema s = {0};
    int rc = ig_parquet_schema(r->pq, &s, err);
    if (!rc) rc = ig_schema_union_add(&all->u, &s, r->input, err);
    ig_schema_free(&s);
    return rc;
}

/* One thread's share of the later inputs, [from, to): read into its own
 * schema_of_all (`all`), each copy it keeps in r->kept (its own indices). */
struct sampler {
    struct import_run *r;
    const struct ig_import_opts *quiet; /* r's options without a progress line */
    struct schema_of_all all;
    size_t from, to;
    size_t kept_max, kept;
    uint64_t kept_bytes_max, kept_bytes;
    int rc;
    struct ig_error err;
    _Atomic bool *stop; /* the other thread failed: its error is told first */
    _Atomic uint64_t *sampled; /* inputs sampled by both threads */
    bool reports;              /* this one tells o->sample_progress (the caller's thread) */
};

static int sample_input(struct sampler *sm, size_t k)
{
    struct import_run *r = sm->r;
    bool parquet = sm->all.fmt == IG_INPUT_PARQUET;
    /* a CSV's or JSON Lines' head (a CSV's header and sample), a Parquet
     * object's tail (its footer: 1 MiB holds most, 32 MiB one of tens of
     * thousands of columns; else the whole object) */
    static const uint64_t parquet_tails[] = {1ull << 20, 32ull << 20, 0 /* whole */};
    int rc = 0;
    for (size_t attempt = 0; attempt < 3; attempt++) {
        struct import_run p = {.inputs = r->inputs, .ninputs = r->ninputs, .spool_fd = -1, .o = sm->quiet,
                               .in_fd = -1, .head_lines = parquet ? 0 : (uint64_t)sm->all.sample + 1,
                               .tail_bytes = parquet ? parquet_tails[attempt] : 0};
        struct ig_csv_reader *pc = NULL;
        struct ig_lines_reader *pl = NULL;
        enum ig_input_format f = sm->all.fmt;
        struct ig_error sub = {0};
        rc = import_check_cancel(r, &sm->err);
        if (!rc) rc = import_begin_input(&p, k, &f, &sm->err);
        if (!rc) rc = import_open_input(&p, f, &pc, &pl, p.tail_bytes && p.cut ? &sub : &sm->err);
        if (!rc && f == IG_INPUT_CSV) r->delims[k] = p.delim; /* for its rows, if streamed */
        if (!rc) rc = take_in(&sm->all, &p, pc, pl, p.tail_bytes && p.cut ? &sub : &sm->err);
        bool again = rc && p.tail_bytes && p.cut && rc != -EINTR && rc != -ENOMEM;
        bool once = !rc && p.spool_fd >= 0 && !p.cut && ig_spool_read_once(r->inputs[k]);
        if (!rc && p.spool_fd >= 0 && !p.cut &&
            (once || (sm->kept < sm->kept_max && sm->kept_bytes + p.in_size <= sm->kept_bytes_max))) {
            r->kept[k] = p.spool_fd; /* the import reads this copy: not copied again */
            p.spool_fd = -1;
            sm->kept += !once;
            sm->kept_bytes += once ? 0 : p.in_size;
        }
        import_end_input(&p, &pc, &pl);
        if (rc && !again && p.tail_bytes && p.cut) sm->err = sub;
        if (!again) break;
    }
    return rc;
}

static void tell_sampled(const struct sampler *sm)
{
    const struct ig_import_opts *o = sm->r->o;
    if (sm->reports && o->sample_progress) o->sample_progress(o->sample_progress_ctx, *sm->sampled, sm->r->ninputs);
}

static void *sample_inputs(void *arg)
{
    struct sampler *sm = arg;
    for (size_t k = sm->from; k < sm->to && !sm->rc && !*sm->stop; k++) {
        sm->rc = sample_input(sm, k);
        *sm->sampled += !sm->rc;
        tell_sampled(sm);
    }
    return NULL;
}

/* Several inputs without a schema file: one schema from them all (CSV and
 * JSON Lines: columns by name, typed by the values of every input; Parquet:
 * columns by name, those some file lacks nullable). r is at its first input,
 * open (csv, lr, r->pq); each later one is read by a run of its own, of its
 * head alone where it is copied and can be read again (CSV, JSON Lines), its
 * copy kept for the import where it is whole (r->kept). CSV and JSON Lines
 * inputs are sampled on two threads, the later half apart, then merged (the
 * rows' encoding has not begun: the second core is idle). known: as
 * ig_infer_jsonl's. */
static int schema_of_all(struct import_run *r, enum ig_input_format fmt, struct ig_csv_reader *csv,
                         struct ig_lines_reader *lr, const struct ig_schema *known, struct ig_schema *out,
                         struct ig_error *err)
{
    bool parquet = fmt == IG_INPUT_PARQUET;
    /* the import's progress line counts the rows' reading, not the samples' */
    struct ig_import_opts quiet = *r->o;
    quiet.progress = NULL;
    struct sampler sm[2];
    _Atomic bool stop = false, never = false;
    _Atomic uint64_t sampled = 0;
    for (int t = 0; t < 2; t++) {
        sm[t] = (struct sampler){.r = r, .quiet = &quiet, .kept_max = KEPT_COPIES_MAX / 2,
                                 .kept_bytes_max = KEPT_BYTES_MAX / 2, .stop = t ? &stop : &never,
                                 .sampled = &sampled, .reports = t == 0};
        sm[t].all = (struct schema_of_all){.fmt = fmt,
                                           .sample = r->o->sample_rows ? r->o->sample_rows : IG_INFER_SAMPLE};
        ig_schema_union_init(&sm[t].all.u);
    }
    /* the later half on a thread of its own: two or more later inputs of text */
    size_t mid = !parquet && r->ninputs >= 3 ? 1 + (r->ninputs - 1) / 2 : r->ninputs;
    sm[0].from = 1, sm[0].to = mid;
    sm[1].from = mid, sm[1].to = r->ninputs;
    int rc = 0;
    for (int t = 0; t < 2 && !rc && !parquet; t++)
        if (!(sm[t].all.g = ig_infer_new(known))) rc = ig_err(err, -ENOMEM, "out of memory");
    if (!rc && !r->kept && !(r->kept = malloc(r->ninputs * sizeof *r->kept)))
        rc = ig_err(err, -ENOMEM, "out of memory");
    if (!rc && !r->delims && !(r->delims = calloc(r->ninputs, 1))) rc = ig_err(err, -ENOMEM, "out of memory");
    if (!rc && fmt == IG_INPUT_CSV) r->delims[0] = r->delim;
    for (size_t k = 0; !rc && k < r->ninputs; k++)
        r->kept[k] = -1;
    pthread_t later;
    bool threaded = !rc && mid < r->ninputs && pthread_create(&later, NULL, sample_inputs, &sm[1]) == 0;
    if (!rc) rc = take_in(&sm[0].all, r, csv, lr, err);
    sampled += !rc;
    if (!rc) tell_sampled(&sm[0]);
    if (!rc) {
        sample_inputs(&sm[0]);
        if ((rc = sm[0].rc)) *err = sm[0].err;
    }
    stop = rc != 0;
    if (threaded) pthread_join(later, NULL);
    else if (!rc && mid < r->ninputs) sample_inputs(&sm[1]); /* no thread to be had */
    if (!rc) tell_sampled(&sm[0]); /* the later thread's too */
    if (!rc && (rc = sm[1].rc)) *err = sm[1].err;
    if (!rc && sm[1].all.g) rc = ig_infer_merge(sm[0].all.g, sm[1].all.g, err);
    if (!rc) {
        rc = parquet ? ig_schema_union_end(&sm[0].all.u, out, err)
                     : ig_infer_end(sm[0].all.g, fmt == IG_INPUT_JSONL, out, &r->sampled, err);
        sm[0].all.g = NULL; /* ig_infer_end frees it */
    }
    for (int t = 0; t < 2; t++) {
        ig_infer_free(sm[t].all.g);
        ig_schema_union_free(&sm[t].all.u);
    }
    return rc;
}

/* Is the schema made from every input (schema_of_all)? Where there are
 * several of a format that gives columns by name, or one to stream (typed,
 * as the others, from a copy of its head), and no schema file. */
static bool schema_from_all(const struct import_run *r, enum ig_input_format fmt)
{
    return (r->ninputs > 1 || r->first_head) && !r->o->schema_path &&
           (fmt == IG_INPUT_CSV || fmt == IG_INPUT_JSONL || fmt == IG_INPUT_PARQUET);
}

/* The schema the rows are written with: the schema file's; appending, the
 * table's; else the input's own (Parquet's, a .npy's dtype, inferred), or
 * of every input (schema_of_all). */
int import_choose_schema(struct import_run *r, enum ig_input_format fmt,
                         const struct ig_table *existing, struct ig_csv_reader *csv,
                         struct ig_lines_reader *lr, struct ig_error *err)
{
    int rc;
    if (existing && (rc = check_hidden(existing, fmt, err))) return rc;
    if (r->o->schema_path) {
        char *text;
        size_t len;
        rc = ig_read_file(r->o->schema_path, 16u << 20, &text, &len, err);
        if (rc) return rc;
        rc = ig_schema_parse(&r->schema, text, len, r->o->schema_path, err);
        free(text);
        if (rc) return rc;
        if (fmt == IG_INPUT_PARQUET && (rc = ig_parquet_check_schema(r->pq, &r->schema, err)))
            return rc;
        if (existing) {
            struct ig_schema have;
            rc = append_schema(existing, &have, err);
            if (rc) return rc;
            /* page sizes are stored resolved; compare with the declared default */
            for (uint32_t c = 0; c < r->schema.n && c < have.n; c++)
                if (!r->schema.cols[c].page_size) r->schema.cols[c].page_size = have.cols[c].page_size;
            bool same = ig_schema_equal(&have, &r->schema);
            /* the table's own schema, with the file's columns among its
             * columns (schema_fits says which do not fit); the rest NULL */
            if (!same) rc = import_schema_fits(&r->schema, &have, fmt != IG_INPUT_NPY, r->o->schema_path, err);
            if (!rc && !same) {
                ig_schema_free(&r->schema);
                r->schema = have;
                have = (struct ig_schema){0};
                if (fmt == IG_INPUT_PARQUET) rc = ig_parquet_check_schema(r->pq, &r->schema, err);
            }
            ig_schema_free(&have);
            if (rc) return rc;
        }
        return 0;
    }
    if (existing) {
        rc = append_schema(existing, &r->schema, err);
        if (!rc && fmt == IG_INPUT_PARQUET) rc = ig_parquet_check_schema(r->pq, &r->schema, err);
        return rc;
    }
    if (schema_from_all(r, fmt)) {
        rc = schema_of_all(r, fmt, csv, lr, r->known, &r->schema, err);
        /* the first input too may give a column in a narrower type */
        if (!rc && fmt == IG_INPUT_PARQUET) rc = ig_parquet_check_schema(r->pq, &r->schema, err);
        return rc;
    }
    if (fmt == IG_INPUT_PARQUET) return ig_parquet_schema(r->pq, &r->schema, err);
    if (fmt == IG_INPUT_NPY) { /* one column, named after the file */
        if (!r->plain_name)
            return ig_err(err, -EINVAL, "%s: a .npy array names its column by its file name, and this "
                                        "input has none; save it as NAME.npy and import that",
                          r->input);
        char type[64];
        const char *base = strrchr(r->plain_name, '/');
        base = base ? base + 1 : r->plain_name;
        size_t len = strlen(base);
        len = len > 4 && !strcmp(base + len - 4, ".npy") ? len - 4 : len; /* without ".npy" */
        rc = ig_npy_type_text(&r->npy, type, sizeof type - 1);
        if (!rc && r->npy.lt.kind) strcat(type, "?"); /* NaT is NULL */
        if (!rc) rc = ig_schema_add_typed(&r->schema, base, len ? len : 1, type, strlen(type), err);
        return rc ? rc : ig_schema_finish(&r->schema, err);
    }
    uint32_t sample = r->o->sample_rows ? r->o->sample_rows : IG_INFER_SAMPLE;
    if (fmt == IG_INPUT_CSV) return ig_infer_csv(csv, r->input, sample, &r->schema, &r->sampled, err);
    return ig_infer_jsonl(lr, r->input, sample, r->known, &r->schema, &r->sampled, err);
}
