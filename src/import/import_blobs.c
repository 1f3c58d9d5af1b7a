/* import_blobs.c - the objects on object storage an input's blob values
 * name, fetched several at a time before its rows are read (blob_fetch.h),
 * so that converting a row copies its objects from a local file. */
#include "import_int.h"
#include "blob_fetch.h"
#include "store/store.h"
#include "util/error.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Fetches at once: each waits on the network, not on a core. */
#define BLOB_FETCH_THREADS 16

/* Value p[0, n) of a blob column: wanted when it names an object. */
static int want(struct import_run *r, struct ig_blob_fetch *f, struct ig_buf *path, const char *p, size_t n,
                struct ig_error *err)
{
    if (!n || ig_convert_blob_path(&r->cc, p, n, path)) return 0;
    const char *name = (const char *)path->data;
    return ig_store_is_remote(name) ? ig_blob_fetch_want(f, name, path->len, err) : 0;
}

/* A top-level blob column's id in r->schema, or -1. */
static long blob_column(const struct import_run *r, const char *name, size_t len)
{
    long c = ig_schema_find(&r->schema, name, len);
    if (c < 0 || r->schema.cols[c].parent != IG_SCHEMA_NONE || r->schema.cols[c].type != IG_T_BLOB) return -1;
    return c;
}

/* The input's blob values, read by a reader of its own (a parse error ends
 * the scan: the rows' reading reports it, with its line). */
static int scan_jsonl(struct import_run *r, int fd, struct ig_blob_fetch *f, struct ig_buf *path,
                      struct ig_error *err)
{
    struct ig_lines_reader *lr = NULL;
    struct ig_json_doc doc;
    ig_json_doc_init(&doc);
    int rc = ig_lines_open(&lr, fd, r->input) ? 0 : 1;
    while (rc == 1) {
        const char *line;
        size_t len;
        uint64_t lineno;
        struct ig_error sub = {0};
        if (ig_lines_next(lr, &line, &len, &lineno, &sub) <= 0) break;
        if (!len) continue;
        if (ig_json_parse(&doc, line, len, &sub) || ig_json_root(&doc)->type != IG_JSON_OBJECT) break;
        for (const struct ig_json_node *m = ig_json_first_child(&doc, ig_json_root(&doc)); m && rc == 1;
             m = ig_json_next_sibling(&doc, m)) {
            long c = blob_column(r, m->key, m->keylen);
            if (c < 0) continue;
            if (m->type == IG_JSON_STRING && (rc = want(r, f, path, m->str, m->len, err)) == 0) rc = 1;
            for (const struct ig_json_node *e = m->type == IG_JSON_ARRAY ? ig_json_first_child(&doc, m) : NULL;
                 e && rc == 1; e = ig_json_next_sibling(&doc, e))
                if (e->type == IG_JSON_STRING && (rc = want(r, f, path, e->str, e->len, err)) == 0) rc = 1;
        }
    }
    if (lr) ig_lines_close(lr);
    ig_json_doc_free(&doc);
    return rc == 1 ? 0 : rc;
}

static int scan_csv(struct import_run *r, int fd, struct ig_blob_fetch *f, struct ig_buf *path,
                    struct ig_error *err)
{
    struct ig_csv_reader *csv = NULL;
    if (ig_csv_open(&csv, fd, r->input, r->delim)) return 0;
    struct ig_csv_record rec;
    struct ig_error sub = {0};
    bool *is_blob = NULL;
    size_t nfields = 0;
    int rc = 0;
    if (ig_csv_next(csv, &rec, &sub) == 1 && (is_blob = calloc(rec.nfields, sizeof *is_blob))) {
        nfields = rec.nfields;
        for (size_t i = 0; i < nfields; i++)
            is_blob[i] = blob_column(r, rec.fields[i].p, rec.fields[i].len) >= 0;
        while (!rc && ig_csv_next(csv, &rec, &sub) == 1)
            for (size_t i = 0; i < rec.nfields && i < nfields && !rc; i++)
                if (is_blob[i]) rc = want(r, f, path, rec.fields[i].p, rec.fields[i].len, err);
    }
    free(is_blob);
    ig_csv_close(csv);
    return rc;
}

int import_prefetch_blobs(struct import_run *r, enum ig_input_format fmt, struct ig_error *err)
{
    bool blobs = false;
    for (uint32_t t = 0; t < r->schema.ntops && !blobs; t++)
        blobs = r->schema.cols[r->schema.tops[t]].type == IG_T_BLOB;
    if (!blobs || (fmt != IG_INPUT_CSV && fmt != IG_INPUT_JSONL)) return 0;
    /* a descriptor of its own: the rows' reader reads from r->in_fd's offset */
    char self[64];
    snprintf(self, sizeof self, "/proc/self/fd/%d", r->in_fd);
    int fd = open(self, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0; /* no scan: each row fetches its own */
    struct ig_blob_fetch *f = NULL;
    struct ig_buf path = IG_BUF_INIT;
    int rc = ig_blob_fetch_new(&f, err);
    if (!rc) rc = fmt == IG_INPUT_JSONL ? scan_jsonl(r, fd, f, &path, err) : scan_csv(r, fd, f, &path, err);
    close(fd);
    ig_buf_free(&path);
    if (!rc && ig_blob_fetch_count(f)) rc = ig_blob_fetch_run(f, BLOB_FETCH_THREADS, r->o->cancel, err);
    if (rc || !ig_blob_fetch_count(f)) {
        ig_blob_fetch_free(f);
        return rc;
    }
    r->fetched = f;
    r->cc.fetched = f;
    return 0;
}

void import_prefetched_free(struct import_run *r)
{
    ig_blob_fetch_free(r->fetched);
    r->fetched = NULL;
    r->cc.fetched = NULL;
}
