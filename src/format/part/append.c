#include "format/part/append.h"
#include "format/part/versions.h"
#include "format/part/lock.h"
#include "format/part/commit.h"
#include "format/part/remote.h"
#include "store/store.h"
#include "util/error.h"
#include "util/io.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Remove what imports into `base` left in `parent` when they were killed
 * outright (SIGKILL, a crash): `.BASE.importing-PID` directories whose process
 * is gone. A PID that is alive (maybe reused) is left alone. */
static void remove_stale_imports(const char *parent, const char *base)
{
    DIR *d = opendir(parent);
    if (!d) return;
    char prefix[300];
    int plen = snprintf(prefix, sizeof prefix, ".%s.importing-", base);
    if (plen <= 0 || (size_t)plen >= sizeof prefix) {
        closedir(d);
        return;
    }
    struct dirent *de;
    while ((de = readdir(d))) {
        if (strncmp(de->d_name, prefix, (size_t)plen) != 0) continue;
        char *end;
        long pid = strtol(de->d_name + plen, &end, 10);
        if (*end || pid <= 0 || pid == (long)getpid()) continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue; /* alive, or not ours to judge */
        char path[4400];
        if (snprintf(path, sizeof path, "%s/%s", parent, de->d_name) < (int)sizeof path)
            ig_remove_tree(path);
    }
    closedir(d);
}

/* A new table's sibling build directory, made empty. */
static int make_build_dir(struct ig_append *a, struct ig_error *err)
{
    char c1[IG_APPEND_PATH_MAX], c2[IG_APPEND_PATH_MAX];
    snprintf(c1, sizeof c1, "%s", a->table_dir);
    snprintf(c2, sizeof c2, "%s", a->table_dir);
    const char *base = basename(c1), *parent = dirname(c2);
    if (snprintf(a->dir, sizeof a->dir, "%s/.%s.importing-%d", parent, base, (int)getpid()) >=
        (int)sizeof a->dir) {
        a->dir[0] = '\0'; /* never removed: it is not ours */
        return ig_err(err, -ENAMETOOLONG, "%s: path too long", a->table_dir);
    }
    remove_stale_imports(parent, base);
    if (mkdir(a->dir, 0755)) {
        int e = errno;
        a->dir[0] = '\0';
        return ig_err(err, -e, "%s: %s", a->table_dir, strerror(e));
    }
    return 0;
}

/* On object storage: the writers' lock first (two imports into one new
 * table would overwrite each other's part objects), then the table as it is
 * (an interrupted erase or change of columns settled first), and a stage
 * directory. */
static int begin_remote(struct ig_append *a, const char *table_dir, bool create, struct ig_error *err)
{
    a->remote = true;
    int rc = ig_remote_lock(table_dir, UINT32_MAX, &a->rlock, err);
    if (rc) return rc;
    bool replayed;
    rc = ig_commit_settle_remote(table_dir, &a->rlock, &replayed, err);
    if (rc) return rc;
    if (create) {
        struct ig_manifest m;
        struct ig_error probe = {0};
        rc = ig_manifest_read(table_dir, &m, &probe);
        if (!rc) {
            ig_manifest_free(&m);
            return ig_err(err, -EEXIST, "%s: already exists (use --append to add rows)", table_dir);
        }
        if (rc != -ENOENT) return ig_err(err, rc, "%s", probe.msg); /* no bucket, no access */
    } else {
        rc = ig_table_open(&a->table, table_dir, false, err);
        if (rc) return rc;
        a->have_table = true;
        a->first_row = a->table.num_rows;
    }
    return ig_remote_stage_dir(a->dir, sizeof a->dir, err);
}

int ig_append_begin(struct ig_append *a, const char *table_dir, bool create, struct ig_error *err)
{
    memset(a, 0, sizeof *a);
    a->lock_fd = -1;
    a->create = create;
    if (snprintf(a->table_dir, sizeof a->table_dir, "%s", table_dir) >= (int)sizeof a->table_dir)
        return ig_err(err, -ENAMETOOLONG, "%s: path too long", table_dir);
    if (ig_store_is_remote(table_dir)) return begin_remote(a, table_dir, create, err);
    if (create) {
        struct stat st;
        if (stat(table_dir, &st) == 0)
            return ig_err(err, -EEXIST, "%s: already exists (use --append to add rows)", table_dir);
        return make_build_dir(a, err);
    }
    snprintf(a->dir, sizeof a->dir, "%s", table_dir);
    a->lock_fd = ig_table_lock(table_dir, true, err);
    if (a->lock_fd < 0) return a->lock_fd;
    /* what a crash left is settled by this writer, the lock held (the open
     * would wait for the lock to settle it) */
    bool replayed;
    int rc = ig_journal_recover(table_dir, &replayed, err);
    if (!rc) rc = ig_commit_recover(table_dir, err);
    if (!rc) rc = ig_table_open(&a->table, table_dir, false, err);
    if (rc) return rc;
    a->have_table = true;
    a->first_row = a->table.num_rows;
    return 0;
}

/* One past the highest part index listed. */
static uint32_t next_part_index(const struct ig_manifest *m)
{
    uint32_t next = 0;
    for (uint32_t i = 0; i < m->n; i++) {
        uint32_t k = (uint32_t)strtoul(m->parts[i].name + 5, NULL, 10);
        if (k + 1 > next) next = k + 1;
    }
    return next;
}

int ig_append_name(struct ig_append *a, bool blobs, struct ig_error *err)
{
    uint32_t index = a->have_table ? next_part_index(&a->table.manifest) : 0;
    ig_part_file_name(a->part_name, index);
    if (blobs) ig_blob_file_name(a->blob_name, index);
    int n1 = snprintf(a->part_final, sizeof a->part_final, "%s/%s", a->dir, a->part_name);
    int n2 = snprintf(a->part_tmp, sizeof a->part_tmp, "%s/.%s.tmp", a->dir, a->part_name);
    int n3 = snprintf(a->blob_final, sizeof a->blob_final, "%s/%s", a->dir, a->blob_name);
    int n4 = snprintf(a->blob_tmp, sizeof a->blob_tmp, "%s/.%s.tmp", a->dir, a->blob_name);
    if (n1 >= IG_APPEND_PATH_MAX || n2 >= IG_APPEND_PATH_MAX || n3 >= IG_APPEND_PATH_MAX ||
        n4 >= IG_APPEND_PATH_MAX)
        return ig_err(err, -ENAMETOOLONG, "%s: path too long", a->table_dir);
    if (!blobs) a->blob_tmp[0] = a->blob_final[0] = '\0';
    return 0;
}

uint64_t ig_append_part_bytes_default(const char *table_dir)
{
    const char *v = getenv("INGOT_PART_SIZE");
    char *end;
    if (v && *v) { /* bytes; tests run whole suites with tables cut small */
        unsigned long long n = strtoull(v, &end, 10);
        if (!*end) return n;
    }
    return ig_store_is_remote(table_dir) ? IG_REMOTE_PART_BYTES_DEFAULT : 0;
}

int ig_append_next(void *ctx, uint64_t rows_done, char *path, size_t cap, struct ig_error *err)
{
    struct ig_append *a = ctx;
    const char *last = a->nmore ? a->more[a->nmore - 1].name : a->part_name;
    uint32_t index = (uint32_t)strtoul(last + 5, NULL, 10) + 1; /* before a->more moves */
    if (a->nmore)
        a->more[a->nmore - 1].rows = rows_done;
    else
        a->rows0 = rows_done;
    struct ig_append_piece *g = realloc(a->more, (a->nmore + 1) * sizeof *g);
    if (!g) return ig_err(err, -ENOMEM, "out of memory");
    a->more = g;
    struct ig_append_piece *p = &a->more[a->nmore];
    memset(p, 0, sizeof *p);
    ig_part_file_name(p->name, index);
    int n1 = snprintf(p->final, sizeof p->final, "%s/%s", a->dir, p->name);
    int n2 = snprintf(p->tmp, sizeof p->tmp, "%s/.%s.tmp", a->dir, p->name);
    if (n1 >= IG_APPEND_PATH_MAX || n2 >= IG_APPEND_PATH_MAX || (size_t)n2 >= cap)
        return ig_err(err, -ENAMETOOLONG, "%s: path too long", a->table_dir);
    a->nmore++; /* from here on its temporary file is removed by ig_append_end */
    memcpy(path, p->tmp, (size_t)n2 + 1);
    return 0;
}

static int rename_in(char *from, const char *to, struct ig_error *err)
{
    if (rename(from, to)) return ig_err(err, -errno, "%s: %s", to, strerror(errno));
    from[0] = '\0'; /* nothing left to remove */
    return 0;
}

/* The upload's progress: bytes sent of the files' total. */
struct upload_count {
    const struct ig_append *a;
    uint64_t done, total;
};

static void upload_sent(void *ctx, uint64_t bytes)
{
    struct upload_count *u = ctx;
    u->done += bytes;
    u->a->upload_progress(u->a->upload_progress_ctx, u->done, u->total);
}

/* Upload the part (and its blob file), then the version's file, then
 * MANIFEST: only over the one read at begin (If-Match), or for a new table
 * only where there is none. Uploaded objects of a commit that fails are
 * removed again. */
static int commit_remote(struct ig_append *a, const struct ig_manifest *m, struct ig_error *err)
{
    const char **names = malloc((a->nmore + 2) * sizeof *names);
    size_t n = 0;
    if (!names) return ig_err(err, -ENOMEM, "out of memory");
    if (a->blob_name[0]) names[n++] = a->blob_name;
    names[n++] = a->part_name;
    for (uint32_t i = 0; i < a->nmore; i++)
        names[n++] = a->more[i].name;
    int rc = 0;
    struct upload_count u = {.a = a};
    for (size_t i = 0; a->upload_progress && i < n; i++) {
        char path[IG_APPEND_PATH_MAX + IG_PART_NAME_MAX + 2];
        struct stat s;
        snprintf(path, sizeof path, "%s/%s", a->dir, names[i]);
        if (stat(path, &s) == 0) u.total += (uint64_t)s.st_size;
    }
    if (a->upload_progress) /* the upload's line starts with it (its rate counts the first piece) */
        a->upload_progress(a->upload_progress_ctx, 0, u.total);
    /* a part at a time, the lock renewed between them: a table of many
     * parts may take longer to upload than the lock's lease */
    for (size_t i = 0; !rc && i < n; i++) {
        rc = ig_remote_upload(a->dir, a->table_dir, &names[i], 1, a->upload_progress ? upload_sent : NULL, &u,
                              err);
        if (!rc) rc = ig_remote_lock_renew(&a->rlock, err);
    }
    if (!rc) rc = ig_version_save(a->table_dir, m, err);
    if (!rc)
        rc = ig_remote_manifest_publish(a->table_dir, m, a->have_table ? m->etag : NULL, a->create,
                                        err);
    if (rc)
        for (size_t i = 0; i < n; i++)
            (void)ig_remote_remove(a->table_dir, names[i], NULL);
    free(names);
    return rc;
}

/* A local append that failed: its parts (and blob file) out of the table. */
static void unlink_parts(const struct ig_append *a)
{
    unlink(a->part_final);
    if (a->blob_final[0]) unlink(a->blob_final);
    for (uint32_t i = 0; i < a->nmore; i++)
        unlink(a->more[i].final);
}

/* The manifest's entry of each part after the first (cut by the writer):
 * renamed into place, its rows after the one before. */
static int add_more(struct ig_append *a, struct ig_manifest *m, uint64_t rows, struct ig_error *err)
{
    uint64_t first = a->first_row + (a->nmore ? a->rows0 : rows), left = rows - (a->nmore ? a->rows0 : rows);
    if (a->nmore) m->parts[m->n - 1].rows = a->rows0;
    for (uint32_t i = 0; i < a->nmore; i++) {
        struct ig_append_piece *p = &a->more[i];
        if (i + 1 == a->nmore) p->rows = left;
        if (p->rows > left) return ig_err(err, -EIO, "%s: its parts hold more rows than were written", p->name);
        left -= p->rows;
        int rc = rename_in(p->tmp, p->final, err);
        if (rc) return rc;
        if (ig_manifest_add(m, p->name, first, p->rows)) return ig_err(err, -ENOMEM, "out of memory");
        struct stat st;
        m->parts[m->n - 1].footer_end = stat(p->final, &st) ? 0 : (uint64_t)st.st_size;
        first += p->rows;
    }
    return 0;
}

int ig_append_commit(struct ig_append *a, uint64_t rows, struct ig_error *err)
{
    int rc = a->blob_tmp[0] ? rename_in(a->blob_tmp, a->blob_final, err) : 0;
    if (!rc) rc = rename_in(a->part_tmp, a->part_final, err);
    if (rc) return rc;
    struct ig_manifest m = {0};
    if (a->have_table) {
        m = a->table.manifest; /* taken over: freed below */
        a->table.manifest = (struct ig_manifest){0};
        /* parts are read at the footer ends this MANIFEST records from now on */
        for (uint32_t i = 0; i < m.n; i++)
            m.parts[i].footer_end = ig_part_recorded_end(&a->table.parts[i]);
        if (m.format == 1) { /* a table from before versions: its version 1 gets its file */
            snprintf(m.change, sizeof m.change, "%s", "import");
            rc = ig_version_save(a->remote ? a->table_dir : a->dir, &m, err);
            if (rc) return rc;
        }
    }
    m.generation++;
    m.version++;
    m.time = (int64_t)time(NULL);
    snprintf(m.change, sizeof m.change, a->have_table ? "append %" PRIu64 " rows" : "import %" PRIu64 " rows", rows);
    rc = ig_manifest_add(&m, a->part_name, a->first_row, rows) ? -ENOMEM : 0;
    if (!rc) snprintf(m.parts[m.n - 1].blob, IG_PART_NAME_MAX, "%s", a->blob_name);
    struct stat st;
    if (!rc) m.parts[m.n - 1].footer_end = stat(a->part_final, &st) ? 0 : (uint64_t)st.st_size;
    if (rc == -ENOMEM) rc = ig_err(err, rc, "out of memory");
    if (!rc) rc = add_more(a, &m, rows, err);
    if (rc) {
        ig_manifest_free(&m);
        if (!a->create && !a->remote) unlink_parts(a); /* some were renamed into the table */
        return rc;
    }
    if (a->remote) {
        rc = commit_remote(a, &m, err);
        ig_manifest_free(&m);
        if (!rc) a->committed = true;
        return rc;
    }
    rc = ig_version_save(a->dir, &m, err);
    if (!rc) rc = ig_manifest_write(a->dir, &m, err);
    ig_manifest_free(&m);
    if (rc) {
        if (!a->create) { /* MANIFEST unchanged: the table is as it was */
            unlink_parts(a);
        }
        return rc;
    }
    if (a->create) {
        if (rename(a->dir, a->table_dir))
            return ig_err(err, -errno, "%s: %s", a->table_dir,
                          errno == ENOTEMPTY || errno == EEXIST ? "already exists" : strerror(errno));
        a->dir[0] = '\0';
        char copy[IG_APPEND_PATH_MAX];
        snprintf(copy, sizeof copy, "%s", a->table_dir);
        ig_fsync_dir(dirname(copy));
    }
    a->committed = true;
    return 0;
}

void ig_append_end(struct ig_append *a)
{
    if (a->part_tmp[0]) unlink(a->part_tmp);
    if (a->blob_tmp[0]) unlink(a->blob_tmp);
    for (uint32_t i = 0; i < a->nmore; i++)
        if (a->more[i].tmp[0]) unlink(a->more[i].tmp);
    free(a->more);
    a->more = NULL;
    a->nmore = 0;
    if ((a->create || a->remote) && a->dir[0]) ig_remove_tree(a->dir); /* a stage, not the table */
    if (a->have_table) ig_table_close(&a->table);
    a->have_table = false;
    ig_table_unlock(a->lock_fd);
    a->lock_fd = -1;
    ig_remote_unlock(&a->rlock);
}
