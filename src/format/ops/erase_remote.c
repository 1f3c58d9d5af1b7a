/* erase_remote.c - erasing rows of a table on object storage (remote.h).
 *
 * The same plan as on a file system (the same journal records, planned from
 * pages read by range), then: the journal committed as an object, each part
 * object it names replaced by one with the records applied and its older
 * versions removed, MANIFEST's generation raised, the journal removed, all
 * under the writers' lock object. The audit log names the object versions
 * removed. */
#include "erase_int.h"
#include "format/model/render.h"
#include "format/part/commit.h"
#include "format/part/remote.h"
#include "format/model/types.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/io.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int erase_remote(const char *dir, const struct ig_erase_request *req, struct ig_erase_report *rep,
                 struct ig_error *err)
{
    struct ig_remote_lock l;
    int rc = ig_remote_lock(dir, UINT32_MAX, &l, err);
    if (rc) return rc;
    bool replayed;
    rc = ig_commit_settle_remote(dir, &l, &replayed, err);
    char stage[4096] = "", journal[4300];
    if (!rc) rc = ig_remote_stage_dir(stage, sizeof stage, err);
    snprintf(journal, sizeof journal, "%s/.ingot/journal", stage);
    struct ig_table t;
    bool open_ok = false;
    if (!rc) rc = ig_table_open(&t, dir, false, err);
    open_ok = !rc;
    uint64_t *ids = NULL;
    size_t n = 0;
    if (!rc) rc = ig_erase_resolve(&t, req, &ids, &n, err);
    struct erase_progress prog = {.fn = req->progress, .ctx = req->progress_ctx};
    struct erase_ctx x = {.dir = stage, .rep = rep, .prog = req->progress ? &prog : NULL};
    ig_journal_init(&x.j);
    ig_values_init(&x.v, IG_T_INT64);
    if (!rc) rc = ig_journal_stream(&x.j, stage, err);
    if (!rc) rc = erase_plan_parts(&x, &t, ids, n, err);
    struct ig_fault fault;
    ig_fault_init(&fault);
    struct ig_remote_report rr = {0};
    if (!rc && n) {
        rep->rows = n;
        rep->generation = t.manifest.generation + 1;
        rc = ig_journal_generation(&x.j, rep->generation);
        rep->journal_bytes = x.j.spilled + x.j.buf.len;
        /* durable here first, then the commit point: the journal's object */
        if (!rc) rc = ig_journal_commit(&x.j, stage, NULL, err);
        if (!rc) rc = ig_remote_journal_commit(dir, journal, &fault, err);
        /* the old objects' cached ranges (their values) go with the table */
        ig_table_close(&t);
        open_ok = false;
        if (!rc)
            rc = ig_remote_journal_apply(dir, journal, &l, &fault, req->replace_progress,
                                         req->replace_progress_ctx, &rr, err);
        rep->objects_replaced = rr.objects_replaced;
        rep->bytes_uploaded = rr.bytes_uploaded;
        rep->bytes_copied = rr.bytes_copied;
        rep->versions_removed = rr.versions_removed;
    }
    if (!rc && n) {
        struct ig_buf line = IG_BUF_INIT;
        erase_audit_line(dir, req, rep, &line);
        ig_buf_printf(&line,
                      " objects_replaced=%" PRIu64 " bytes_uploaded=%" PRIu64
                      " bytes_copied=%" PRIu64 " object_versions_removed=%" PRIu64 " removed=",
                      rr.objects_replaced, rr.bytes_uploaded, rr.bytes_copied, rr.versions_removed);
        ig_render_json_string(&line, rr.removed.data ? rr.removed.data : (const uint8_t *)"",
                              rr.removed.len);
        ig_buf_printf(&line, "\n");
        if (ig_buf_append_byte(&line, 0) == 0)
            (void)ig_remote_append_line(dir, ".ingot/erasures", (const char *)line.data, NULL);
        ig_buf_free(&line);
        ig_fault_step(&fault);
    }
    if (!rc) {
        rep->ids = ids;
        ids = NULL;
    }
    free(ids);
    ig_remote_report_free(&rr);
    erase_ctx_free(&x);
    if (open_ok) ig_table_close(&t);
    if (stage[0]) ig_remove_tree(stage);
    ig_remote_unlock(&l);
    return rc;
}
