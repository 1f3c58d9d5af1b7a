#include "csv_rows.h"
#include "csv_cut.h"
#include "lines.h"
#include "stripe.h"
#include "format/model/parse_value.h"
#include "format/model/types.h"
#include "format/part/writer.h"
#include "util/error.h"
#include "util/parse.h"
#include "util/utf8.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the header and one record ------------------------------------------- */

/* The conversion a column's type takes (enum ig_csv_kind). */
static uint8_t kind_of(const struct ig_column_def *cd)
{
    if (cd->lt.kind && cd->lt.kind != IG_LT_FLOAT16) return IG_CSV_OTHER; /* ig_logical_parse */
    switch (cd->type) {
    case IG_T_INT64: return IG_CSV_INT64;
    case IG_T_FLOAT64: return IG_CSV_FLOAT64;
    case IG_T_FLOAT32: return IG_CSV_FLOAT32;
    case IG_T_BOOL: return IG_CSV_BOOL;
    case IG_T_INT8:
    case IG_T_INT16:
    case IG_T_INT32:
    case IG_T_UINT8:
    case IG_T_UINT16:
    case IG_T_UINT32:
    case IG_T_UINT64: return IG_CSV_LANE;
    case IG_T_STRING: return IG_CSV_STRING;
    default: return IG_CSV_OTHER;
    }
}

int ig_csv_map_header(struct ig_csv_map *m, const struct ig_schema *s, const struct ig_csv_record *header,
                      const char *path, const char *hint, struct ig_error *err)
{
    *m = (struct ig_csv_map){.schema = s, .path = path, .hint = hint, .nfields = header->nfields};
    m->cols = calloc(s->n ? s->n : 1, sizeof *m->cols);
    if (!m->cols) return ig_err(err, -ENOMEM, "out of memory");
    for (uint32_t c = 0; c < s->n; c++)
        m->cols[c] = (struct ig_csv_col){.def = &s->cols[c], .leaf = s->cols[c].leaf, .kind = IG_CSV_ABSENT};
    for (size_t f = 0; f < header->nfields; f++) {
        const struct ig_csv_field *fl = &header->fields[f];
        long c = ig_schema_find(s, fl->p, fl->len);
        if (c < 0)
            return ig_err(err, -EINVAL, "%s:%" PRIu64 ": header field '%.*s' is not a column of the schema", path,
                          header->line, (int)(fl->len > 200 ? 200 : fl->len), fl->p);
        if (m->cols[c].kind != IG_CSV_ABSENT)
            return ig_err(err, -EINVAL, "%s:%" PRIu64 ": header names column '%s' twice", path, header->line,
                          s->cols[c].name);
        m->cols[c].field = (uint32_t)f;
        m->cols[c].kind = kind_of(&s->cols[c]);
    }
    for (uint32_t c = 0; c < s->n; c++) {
        const struct ig_column_def *cd = &s->cols[c], *top = &s->cols[cd->top];
        if (!ig_column_is_flat(cd)) { /* CSV cannot give one; absent, it is NULL */
            if (m->cols[c].kind != IG_CSV_ABSENT)
                return ig_err(err, -EINVAL, "%s: column '%s' is nested: nested columns need JSON Lines input",
                              path, cd->name);
            if (!top->nullable && !top->hidden) /* hidden: ig_stripe_absent */
                return ig_err(err, -EINVAL, "%s: non-nullable column '%s' is missing from the header", path,
                              top->name);
            m->cols[c].kind = cd->leaf != IG_SCHEMA_NONE ? IG_CSV_NULL_ROWS : IG_CSV_NODE;
            continue;
        }
        if (m->cols[c].kind == IG_CSV_ABSENT && !s->cols[c].nullable && !s->cols[c].hidden)
            return ig_err(err, -EINVAL, "%s: non-nullable column '%s' is missing from the header", path,
                          s->cols[c].name);
    }
    return 0;
}

void ig_csv_map_free(struct ig_csv_map *m)
{
    free(m->cols);
    m->cols = NULL;
}

static int no_memory(struct ig_error *sub) { return ig_err(sub, -ENOMEM, "out of memory"); }

/* Column k's field of rec into v, which has room for it (ig_values_put_*):
 * the calls the generic conversion (ig_convert_text -> ig_parse_value ->
 * ig_parse_lane) ends in for the column's type, with the same errors. An
 * unquoted empty field (NULL, an empty string, or an error), a column not in
 * the header (NULL) and the rarer types take the generic way itself. */
static inline int convert_field(const struct ig_csv_col *k, struct ig_values *v, const struct ig_csv_record *rec,
                                const struct ig_convert_ctx *cc, struct ig_error *sub)
{
    /* a column not in the header reads field 0 here, which is there: it
     * ends up NULL either way */
    const struct ig_csv_field *f = &rec->fields[k->field];
    const char *p = f->p;
    size_t n = f->len;
    if (n == 0 && !f->quoted) return ig_convert_text(k->def, v, "", 0, false, cc, sub);
    int rc;
    switch (k->kind) {
    case IG_CSV_ABSENT: return ig_convert_text(k->def, v, "", 0, false, cc, sub);
    case IG_CSV_INT64: {
        int64_t x;
        if ((rc = ig_parse_i64(p, n, &x, sub))) return rc;
        ig_values_put_lane(v, (uint64_t)x);
        return 0;
    }
    case IG_CSV_FLOAT64: {
        double d;
        uint64_t lane;
        if ((rc = ig_parse_f64(p, n, &d, sub))) return rc;
        memcpy(&lane, &d, 8);
        ig_values_put_lane(v, lane);
        return 0;
    }
    case IG_CSV_FLOAT32: {
        float x;
        uint32_t b;
        if ((rc = ig_parse_f32(p, n, &x, sub))) return rc;
        memcpy(&b, &x, 4);
        ig_values_put_lane(v, b);
        return 0;
    }
    case IG_CSV_BOOL: {
        bool b;
        if ((rc = ig_parse_bool(p, n, &b, sub))) return rc;
        ig_values_put_lane(v, b);
        return 0;
    }
    case IG_CSV_LANE: {
        uint64_t lane;
        if ((rc = ig_parse_lane(k->def->type, p, n, &lane, sub))) return rc;
        ig_values_put_lane(v, lane);
        return 0;
    }
    case IG_CSV_STRING:
        if (!ig_utf8_valid((const uint8_t *)p, n)) return ig_err(sub, -EINVAL, "invalid UTF-8");
        return ig_values_put_bytes(v, p, n) ? no_memory(sub) : 0;
    default: return ig_convert_text(k->def, v, p, n, f->quoted, cc, sub);
    }
}

/* One record's values into cols, which have room for them. sub is clear
 * (a field that converts leaves it alone). */
static int convert_record(const struct ig_csv_map *m, const struct ig_csv_record *rec, struct ig_values *cols,
                          const struct ig_convert_ctx *cc, struct ig_error *sub, struct ig_error *err)
{
    if (rec->nfields != m->nfields)
        return ig_err(err, -EINVAL, "%s:%" PRIu64 ": %zu fields, but the header has %zu", m->path, rec->line,
                      rec->nfields, m->nfields);
    const struct ig_csv_col *k = m->cols, *end = k + m->schema->n;
    for (; k < end; k++) {
        if (k->kind >= IG_CSV_NULL_ROWS) continue; /* ig_csv_null_rows */
        if (convert_field(k, &cols[k->leaf], rec, cc, sub))
            return ig_err(err, sub->code ? sub->code : -EINVAL, "%s:%" PRIu64 ": column '%s': %s%s", m->path,
                          rec->line, k->def->name, sub->msg, m->hint);
    }
    return 0;
}

static struct ig_values *leaf_in(void *cols, uint32_t leaf) { return &((struct ig_values *)cols)[leaf]; }

int ig_csv_null_rows(const struct ig_csv_map *m, struct ig_values *cols, size_t rows, struct ig_error *err)
{
    const struct ig_schema *s = m->schema;
    for (uint32_t t = 0; t < s->ntops; t++) {
        uint32_t c = s->tops[t];
        int rc = m->cols[c].kind >= IG_CSV_NULL_ROWS ? ig_stripe_absent(s, c, leaf_in, cols, rows, err) : 0;
        if (rc) return rc;
    }
    return 0;
}

int ig_csv_convert_rows(const struct ig_csv_map *m, struct ig_csv_reader *csv, struct ig_values *cols,
                        size_t max, const struct ig_convert_ctx *cc, size_t *rows, struct ig_error *err)
{
    *rows = 0;
    for (uint32_t l = 0; l < m->schema->nleaves; l++)
        if (ig_values_reserve(&cols[l], cols[l].n + max)) return ig_err(err, -ENOMEM, "out of memory");
    struct ig_error sub;
    ig_err_clear(&sub);
    struct ig_csv_record rec;
    size_t got = 0;
    int rc = 0;
    while (got < max && (rc = ig_csv_next(csv, &rec, err)) > 0) {
        rc = convert_record(m, &rec, cols, cc, &sub, err);
        if (rc) break;
        got++;
    }
    *rows = got;
    return rc < 0 ? rc : 0;
}

/* ---- pieces on threads ------------------------------------------------------ */

enum piece_state { PIECE_FREE, PIECE_QUEUED, PIECE_PARSING, PIECE_DONE };

/* A stretch of whole records and, once a thread has converted it, its rows. */
struct piece {
    char *buf;
    size_t cap, len;
    uint64_t line;      /* line of buf[0] */
    uint64_t read_to;   /* bytes of fd read when the piece was cut */
    enum piece_state state;
    struct ig_values *cols; /* by leaf */
    size_t rows;        /* rows converted whole (before the error, if any) */
    int rc;
    struct ig_error err;
};

struct rows_run {
    const struct ig_csv_map *m;
    const struct ig_csv_rows_opts *o;
    uint32_t nleaves;
    struct piece *pieces;
    unsigned npieces;
    unsigned next_parse; /* the piece threads take next (they take them in order) */
    bool stop;
    pthread_mutex_t mu;
    pthread_cond_t queued, done;
};

/* Convert piece p with reader csv (the thread's own). */
static void convert_piece(const struct rows_run *run, struct piece *p, struct ig_csv_reader *csv,
                          const struct ig_convert_ctx *cc)
{
    for (uint32_t l = 0; l < run->nleaves; l++)
        ig_values_reset(&p->cols[l]);
    p->rows = 0;
    p->rc = 0;
    ig_err_clear(&p->err);
    ig_csv_borrow(csv, p->buf, p->len, p->line);
    size_t got;
    int rc;
    do {
        rc = ig_csv_convert_rows(run->m, csv, p->cols, IG_CSV_BATCH, cc, &got, &p->err);
        p->rows += got;
    } while (!rc && got == IG_CSV_BATCH);
    p->rc = rc;
}

static void *converter(void *arg)
{
    struct rows_run *run = arg;
    struct ig_buf scratch = {0}, path = {0};
    struct ig_convert_ctx cc = {.scratch = &scratch, .path = &path};
    struct ig_csv_reader *csv = NULL;
    bool ok = ig_csv_open(&csv, -1, run->m->path, run->o->delimiter) == 0;
    pthread_mutex_lock(&run->mu);
    for (;;) {
        struct piece *p = &run->pieces[run->next_parse];
        while (!run->stop && p->state != PIECE_QUEUED) {
            pthread_cond_wait(&run->queued, &run->mu);
            p = &run->pieces[run->next_parse];
        }
        if (run->stop) break;
        p->state = PIECE_PARSING;
        run->next_parse = (run->next_parse + 1) % run->npieces;
        pthread_mutex_unlock(&run->mu);
        if (ok) {
            convert_piece(run, p, csv, &cc);
        } else {
            p->rows = 0;
            p->rc = ig_err(&p->err, -ENOMEM, "out of memory");
        }
        pthread_mutex_lock(&run->mu);
        p->state = PIECE_DONE;
        pthread_cond_broadcast(&run->done);
    }
    pthread_mutex_unlock(&run->mu);
    ig_csv_close(csv);
    ig_buf_free(&scratch);
    ig_buf_free(&path);
    return NULL;
}

/* What the caller's thread keeps while it reads fd and cuts pieces. */
struct cutter {
    int fd;
    const char *path;
    size_t piece, max_record;
    /* input not in a piece yet, before what fd still holds: what the header's
     * reader had read, then what followed a piece's cut */
    char *carry;
    size_t carry_pos, carry_len, carry_cap;
    uint64_t line;      /* line of carry[carry_pos] */
    uint64_t read_to;
    bool eof, done;
};

static int reserve(char **b, size_t *cap, size_t need)
{
    if (need <= *cap) return 0;
    char *nb = realloc(*b, need);
    if (!nb) return -ENOMEM;
    *b = nb;
    *cap = need;
    return 0;
}

/* The input's next bytes into b[*len..want): the carried ones, then fd's,
 * until want or the end of fd. */
static int take_input(struct cutter *c, char *b, size_t *len, size_t want, struct ig_error *err)
{
    size_t k = c->carry_len - c->carry_pos;
    if (k > want - *len) k = want - *len;
    memcpy(b + *len, c->carry + c->carry_pos, k);
    *len += k;
    c->carry_pos += k;
    while (*len < want && !c->eof) {
        ssize_t n = read(c->fd, b + *len, want - *len);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0)
            return ig_err(err, -errno, "%s:%" PRIu64 ": read failed: %s", c->path, c->line, strerror(errno));
        if (n == 0) c->eof = true;
        *len += (size_t)n;
        c->read_to += (uint64_t)n;
    }
    return 0;
}

static bool input_ended(const struct cutter *c) { return c->eof && c->carry_pos == c->carry_len; }

/* Fill p with up to a piece of input and cut it after its last whole record;
 * what follows the cut goes back to the front of the carried bytes. At the
 * end of the input the piece takes everything (the last record may lack its
 * line feed, and a broken one is the parser's to report). c->done once
 * nothing is left. */
static int cut_piece(struct cutter *c, struct piece *p, struct ig_error *err)
{
    size_t want = c->piece;
    if (reserve(&p->buf, &p->cap, want)) return ig_err(err, -ENOMEM, "out of memory");
    p->len = 0;
    p->line = c->line;
    size_t cut;
    uint64_t lines = 0;
    for (;;) {
        int rc = take_input(c, p->buf, &p->len, want, err);
        if (rc) return rc;
        if (input_ended(c)) {
            cut = p->len;
            break;
        }
        cut = ig_csv_cut(p->buf, p->len, &lines);
        if (cut) break;
        /* one record longer than the piece: grow, as the one-thread reader does */
        if (want >= c->max_record)
            return ig_err(err, -EINVAL, "%s:%" PRIu64 ": record longer than %zu bytes", c->path, c->line,
                          c->max_record);
        want = want > c->max_record / 2 ? c->max_record : want * 2;
        if (reserve(&p->buf, &p->cap, want)) return ig_err(err, -ENOMEM, "out of memory");
    }
    size_t back = p->len - cut, rest = c->carry_len - c->carry_pos;
    if (reserve(&c->carry, &c->carry_cap, back + rest)) return ig_err(err, -ENOMEM, "out of memory");
    memmove(c->carry + back, c->carry + c->carry_pos, rest);
    memcpy(c->carry, p->buf + cut, back);
    c->carry_pos = 0;
    c->carry_len = back + rest;
    p->len = cut;
    p->read_to = c->read_to;
    c->line += lines;
    c->done = c->eof && c->carry_len == 0;
    return 0;
}

/* Hand piece p's rows to the writer in stretches that end where the writer's
 * room does, so its groups end where one row at a time would end them. */
static int hand_over(const struct rows_run *run, struct piece *p, struct ig_part_writer *w,
                     struct ig_error *err)
{
    for (size_t i = 0; i < p->rows;) {
        size_t k = ig_part_writer_room(w);
        if (k > p->rows - i) k = p->rows - i;
        for (uint32_t l = 0; l < run->nleaves; l++)
            if (run->m->cols[run->m->schema->leaves[l]].kind != IG_CSV_NULL_ROWS &&
                ig_values_append_rows(ig_part_writer_column(w, l), &p->cols[l], i, k))
                return ig_err(err, -ENOMEM, "out of memory");
        int rc = ig_csv_null_rows(run->m, ig_part_writer_columns(w), k, err);
        if (!rc) rc = ig_part_writer_end_rows(w, (uint32_t)k, err);
        if (rc) return rc;
        i += k;
    }
    if (p->rc) {
        *err = p->err;
        return p->rc;
    }
    return run->o->after ? run->o->after(run->o->ctx, p->read_to, err) : 0;
}

/* Cut, queue, wait for and hand over pieces in order until the input ends. */
static int drive(struct rows_run *run, struct cutter *c, struct ig_part_writer *w, struct ig_error *err)
{
    unsigned head = 0, tail = 0, inflight = 0;
    int rc = 0;
    while (!rc) {
        while (!rc && !c->done && inflight < run->npieces) {
            struct piece *p = &run->pieces[tail];
            rc = cut_piece(c, p, err);
            if (rc || p->len == 0) break;
            pthread_mutex_lock(&run->mu);
            p->state = PIECE_QUEUED;
            pthread_cond_broadcast(&run->queued);
            pthread_mutex_unlock(&run->mu);
            tail = (tail + 1) % run->npieces;
            inflight++;
        }
        if (rc || inflight == 0) break;
        struct piece *p = &run->pieces[head];
        pthread_mutex_lock(&run->mu);
        while (p->state != PIECE_DONE)
            pthread_cond_wait(&run->done, &run->mu);
        pthread_mutex_unlock(&run->mu);
        rc = hand_over(run, p, w, err);
        p->state = PIECE_FREE; /* no thread looks at a piece the caller has not queued */
        head = (head + 1) % run->npieces;
        inflight--;
    }
    return rc;
}

int ig_csv_rows_threads(const struct ig_csv_map *m, struct ig_csv_reader *csv, int fd,
                        struct ig_part_writer *w, const struct ig_csv_rows_opts *o,
                        struct ig_error *err)
{
    const struct ig_schema *s = m->schema;
    unsigned nthreads = o->threads ? o->threads : 1;
    struct rows_run run = {.m = m, .o = o, .nleaves = s->nleaves, .npieces = 2 * nthreads + 2};
    struct cutter c = {.fd = fd, .path = m->path, .piece = o->piece ? o->piece : IG_CSV_PIECE,
                       .max_record = o->max_record ? o->max_record : IG_INPUT_MAX_RECORD};
    const char *rest;
    bool eof;
    c.carry_len = ig_csv_unparsed(csv, &rest, &c.line, &eof);
    c.eof = eof;
    c.done = eof && c.carry_len == 0;
    pthread_t *threads = calloc(nthreads, sizeof *threads);
    run.pieces = calloc(run.npieces, sizeof *run.pieces);
    int rc = threads && run.pieces && !reserve(&c.carry, &c.carry_cap, c.carry_len + 1) ? 0 : -ENOMEM;
    if (!rc) memcpy(c.carry, rest, c.carry_len);
    for (unsigned i = 0; !rc && i < run.npieces; i++) {
        struct piece *p = &run.pieces[i];
        p->cols = calloc(s->nleaves ? s->nleaves : 1, sizeof *p->cols);
        if (!p->cols) rc = -ENOMEM;
        for (uint32_t l = 0; !rc && l < s->nleaves; l++)
            ig_values_init(&p->cols[l], s->cols[s->leaves[l]].type);
    }
    if (rc) rc = ig_err(err, rc, "out of memory");
    pthread_mutex_init(&run.mu, NULL);
    pthread_cond_init(&run.queued, NULL);
    pthread_cond_init(&run.done, NULL);
    unsigned started = 0;
    for (; !rc && started < nthreads; started++)
        if (pthread_create(&threads[started], NULL, converter, &run))
            rc = ig_err(err, -EAGAIN, "%s: cannot start converting threads", m->path);
    if (!rc) rc = drive(&run, &c, w, err);
    pthread_mutex_lock(&run.mu);
    run.stop = true;
    pthread_cond_broadcast(&run.queued);
    pthread_mutex_unlock(&run.mu);
    for (unsigned i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    pthread_cond_destroy(&run.done);
    pthread_cond_destroy(&run.queued);
    pthread_mutex_destroy(&run.mu);
    for (unsigned i = 0; run.pieces && i < run.npieces; i++) {
        for (uint32_t l = 0; run.pieces[i].cols && l < s->nleaves; l++)
            ig_values_free(&run.pieces[i].cols[l]);
        free(run.pieces[i].cols);
        free(run.pieces[i].buf);
    }
    free(run.pieces);
    free(threads);
    free(c.carry);
    return rc;
}
