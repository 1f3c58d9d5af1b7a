/* erase_run.c - ig_erase: the table locked, the rows resolved, the erasure
 * planned (erase.c) and journaled, applied, and the audit log written; a table
 * on object storage goes to erase_remote.c. */
#include "erase_int.h"
#include "format/ops/erase.h"
#include "format/part/commitlog.h"
#include "format/part/journal.h"
#include "format/part/lock.h"
#include "format/part/manifest.h"
#include "format/part/table.h"
#include "format/model/types.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void audit(const char *dir, const struct ig_erase_request *req,
                  const struct ig_erase_report *rep)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/.ingot/erasures", dir);
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return;
    struct ig_buf b = IG_BUF_INIT;
    erase_audit_line(dir, req, rep, &b);
    ig_buf_printf(&b, "\n");
    if (ig_write_full(fd, b.data, b.len) == 0) fsync(fd);
    close(fd);
    ig_buf_free(&b);
}

/* Erasing writes the table's files in place: say so plainly when we may not. */
static int check_writable(const char *dir, struct ig_error *err)
{
    if (access(dir, W_OK) == 0) {
        struct ig_manifest m;
        if (ig_manifest_read(dir, &m, NULL)) return 0; /* the open will say what is wrong */
        int rc = 0;
        for (uint32_t i = 0; i < m.n && !rc; i++) {
            char path[4200];
            snprintf(path, sizeof path, "%s/%s", dir, m.parts[i].name);
            if (access(path, W_OK) && errno == EACCES)
                rc = ig_err(err, -EACCES, "%s: no write permission on %s: erasing overwrites the "
                                          "table's part files in place (run as their owner)",
                            dir, m.parts[i].name);
        }
        ig_manifest_free(&m);
        return rc;
    }
    if (errno != EACCES && errno != EROFS) return 0; /* the open will say what is wrong */
    struct stat st;
    uid_t owner = stat(dir, &st) == 0 ? st.st_uid : (uid_t)-1;
    return ig_err(err, errno == EROFS ? -EROFS : -EACCES,
                  "%s: %s: erasing rewrites the table's files in place and needs write "
                  "permission on its directory (owner uid %d)",
                  dir, errno == EROFS ? "read-only file system" : "no write permission",
                  (int)owner);
}

int ig_erase(const char *dir, const struct ig_erase_request *req, struct ig_erase_report *rep,
             struct ig_error *err)
{
    memset(rep, 0, sizeof *rep);
    if (ig_store_is_remote(dir)) return erase_remote(dir, req, rep, err);
    int wrc = check_writable(dir, err);
    if (wrc) return wrc;
    int lock = ig_table_lock(dir, true, err);
    if (lock < 0) return lock;
    struct erase_progress prog = {.fn = req->progress, .ctx = req->progress_ctx};
    struct erase_ctx x = {.dir = dir, .rep = rep, .prog = req->progress ? &prog : NULL};
    struct ig_table t;
    bool open_ok = false, replayed;
    uint64_t *ids = NULL;
    size_t n = 0;
    struct ig_fault fault;
    ig_fault_init(&fault);
    int rc = ig_journal_recover(dir, &replayed, err);
    if (!rc) rc = ig_commit_recover(dir, err); /* a change of columns a crash left, settled first */
    /* On shared storage this host's client may hold part pages from before
     * another host's erase: drop them so the erase reads what is there. On a
     * local filesystem the page cache is the file; dropping it only made every
     * erase read cold (a one-row erase took 4x as long). */
    if (!rc && ig_fs_is_shared(dir)) ig_table_forget_cache(dir);
    if (!rc) rc = ig_table_open(&t, dir, false, err);
    open_ok = rc == 0;
    if (!rc) rc = ig_erase_resolve(&t, req, &ids, &n, err);
    ig_journal_init(&x.j);
    if (!rc) rc = ig_journal_stream(&x.j, dir, err);
    ig_values_init(&x.v, IG_T_INT64);
    if (!rc) rc = erase_plan_parts(&x, &t, ids, n, err);
    if (!rc && n) {
        rep->rows = n;
        rc = ig_journal_generation(&x.j, t.manifest.generation + 1);
        rep->generation = t.manifest.generation + 1;
        rep->journal_bytes = x.j.spilled + x.j.buf.len;
        rc = ig_journal_commit(&x.j, dir, &fault, err);
        if (!rc) rc = ig_journal_apply(dir, &fault, err);
    }
    if (!rc) {
        audit(dir, req, rep);
        ig_fault_step(&fault);
        rep->ids = ids;
        ids = NULL;
    }
    free(ids);
    erase_ctx_free(&x);
    if (open_ok) ig_table_close(&t);
    ig_table_unlock(lock);
    return rc;
}
