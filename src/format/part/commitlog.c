/* commitlog.c - the record of a commit at work; recovery (commitlog.h). */
#include "format/part/commitlog.h"
#include "format/part/remote.h"
#include "format/part/versions.h"
#include "util/buf.h"
#include "store/store.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/io.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int ig_commitlog_write(const char *dir, uint64_t version, const struct ig_commitlog_part *parts,
                       size_t n, struct ig_error *err)
{
    struct ig_buf b = IG_BUF_INIT;
    int rc = ig_buf_printf(&b, "ingot-commit 1\nversion %" PRIu64 "\n", version);
    for (size_t i = 0; i < n && !rc; i++)
        rc = parts[i].blob ? ig_buf_printf(&b, "blob %s %" PRIu64 "\n", parts[i].name, parts[i].size)
                           : ig_buf_printf(&b, "part %s %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
                                           parts[i].name, parts[i].size, parts[i].footer_off,
                                           parts[i].footer_end);
    if (!rc) rc = ig_buf_printf(&b, "end %016" PRIx64 "\n", ig_hash(b.data, b.len));
    char ingot[4200];
    snprintf(ingot, sizeof ingot, "%s/.ingot", dir);
    if (!rc && ig_store_is_remote(dir))
        rc = ig_remote_file_write(dir, IG_COMMIT_FILE, b.data, b.len, err);
    else if (!rc)
        rc = ig_write_file_atomic(ingot, "commit", b.data, b.len, err);
    else
        rc = ig_err(err, rc, "out of memory");
    ig_buf_free(&b);
    return rc;
}

int ig_commitlog_parse(char *text, size_t len, const char *what, uint64_t *version,
                       struct ig_commitlog_part **parts, size_t *n, struct ig_error *err)
{
    *parts = NULL;
    *n = 0;
    *version = 0;
    /* the text ends at its first NUL: what a hash covers must be text */
    char *end = memchr(text, '\0', len) ? NULL : strstr(text, "\nend ");
    if (!end || ig_hash(text, (size_t)(end + 1 - text)) != strtoull(end + 5, NULL, 16))
        return ig_err(err, -EIO, "%s: damaged (its hash does not match)", what);
    end[1] = '\0';
    size_t cap = 0;
    char *save = NULL;
    unsigned line = 0;
    int rc = 0;
    bool have_version = false;
    for (char *ln = strtok_r(text, "\n", &save); ln && !rc; ln = strtok_r(NULL, "\n", &save)) {
        struct ig_commitlog_part rp = {0};
        char name[IG_PART_NAME_MAX + 1];
        if (++line == 1) {
            if (strcmp(ln, "ingot-commit 1"))
                rc = ig_err(err, -EIO, "%s: unsupported header", what);
        } else if (sscanf(ln, "version %" SCNu64, version) == 1) {
            have_version = true;
        } else if ((sscanf(ln, "part %64s %" SCNu64 " %" SCNu64 " %" SCNu64, name, &rp.size,
                           &rp.footer_off, &rp.footer_end) == 4 ||
                    (rp.blob = sscanf(ln, "blob %64s %" SCNu64, name, &rp.size) == 2)) &&
                   strlen(name) < IG_PART_NAME_MAX && !strchr(name, '/') && name[0] != '.') {
            memcpy(rp.name, name, strlen(name) + 1);
            if (*n == cap) {
                cap = cap ? cap * 2 : 16;
                struct ig_commitlog_part *p = realloc(*parts, cap * sizeof *p);
                if (!p) {
                    rc = ig_err(err, -ENOMEM, "out of memory");
                    break;
                }
                *parts = p;
            }
            (*parts)[(*n)++] = rp;
        } else {
            rc = ig_err(err, -EIO, "%s: cannot parse '%.200s'", what, ln);
        }
    }
    if (!rc && !have_version) rc = ig_err(err, -EIO, "%s: no version line", what);
    if (rc) {
        free(*parts);
        *parts = NULL;
        *n = 0;
    }
    return rc;
}

int ig_commitlog_read(const char *dir, uint64_t *version, struct ig_commitlog_part **parts,
                      size_t *n, struct ig_error *err)
{
    char *text;
    size_t len;
    *parts = NULL;
    *n = 0;
    int rc = ig_table_file_read(dir, IG_COMMIT_FILE, 16u << 20, &text, &len, err);
    if (rc) return rc;
    char what[4200];
    snprintf(what, sizeof what, "%s/%s", dir, IG_COMMIT_FILE);
    rc = ig_commitlog_parse(text, len, what, version, parts, n, err);
    free(text);
    if (rc == -EIO && err) { /* what it means for the table */
        char was[IG_ERROR_MSG_MAX];
        snprintf(was, sizeof was, "%s", err->msg);
        rc = ig_err(err, rc, "%s: the record of a change of columns a writer did not finish; the table reads as "
                             "its MANIFEST says, and no change can be made until the record reads again or is "
                             "removed (docs/FORMAT.md, \"Commits are all or nothing\")", was);
    }
    return rc;
}

void ig_commitlog_remove(const char *dir)
{
    char ingot[4200], path[4300];
    snprintf(ingot, sizeof ingot, "%s/.ingot", dir);
    snprintf(path, sizeof path, "%s/commit", ingot);
    unlink(path);
    ig_fsync_dir(ingot);
}

bool ig_commit_pending(const char *dir)
{
    if (ig_store_is_remote(dir)) return false; /* writers settle a bucket's (commit_remote.c) */
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, IG_COMMIT_FILE);
    return access(path, F_OK) == 0;
}

/* Zero [from, to) of an open file (in 1 MiB writes). */
static int zero_range(int fd, uint64_t from, uint64_t to)
{
    static const uint8_t zeros[1 << 16];
    for (uint64_t at = from; at < to;) {
        size_t n = to - at < sizeof zeros ? (size_t)(to - at) : sizeof zeros;
        int rc = ig_pwrite_full(fd, zeros, n, at);
        if (rc) return rc;
        at += n;
    }
    return 0;
}

/* A part's bytes past `size` zeroed (a commit's new columns), the file cut
 * back; size 0 (a blob file the commit made): zeroed and removed. */
static int cut_back(const char *dir, const char *name, uint64_t size, struct ig_error *err)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = ig_open(path, O_WRONLY | O_CLOEXEC, 0);
    if (fd < 0) return errno == ENOENT ? 0 : ig_err(err, -errno, "%s: %s", path, strerror(errno));
    struct stat st;
    int rc = fstat(fd, &st) ? -errno : 0;
    if (!rc && (uint64_t)st.st_size > size) {
        rc = zero_range(fd, size, (uint64_t)st.st_size);
        if (!rc && fsync(fd)) rc = -errno;
        if (!rc && ftruncate(fd, (off_t)size)) rc = -errno;
        if (!rc && fsync(fd)) rc = -errno;
    }
    /* a blob file the commit made: nothing of it stays */
    if (!rc && size == 0 && unlink(path)) rc = -errno;
    close(fd);
    return rc ? ig_err(err, rc, "%s: rolling back a commit: %s", path, strerror(-rc)) : 0;
}

/* A superseded footer (and its tail) zeroed. */
int ig_commitlog_zero_footer(const char *dir, const char *name, uint64_t from, uint64_t to,
                             struct ig_error *err)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = ig_open(path, O_WRONLY | O_CLOEXEC, 0);
    if (fd < 0) return ig_err(err, -errno, "%s: %s", path, strerror(errno));
    int rc = zero_range(fd, from, to);
    if (!rc && fsync(fd)) rc = -errno;
    close(fd);
    return rc ? ig_err(err, rc, "%s: zeroing its old footer: %s", path, strerror(-rc)) : 0;
}

/* Where MANIFEST puts part `name`'s footer now (0 if it has no such part). */
static uint64_t footer_end_in(const struct ig_manifest *m, const char *name)
{
    for (uint32_t i = 0; i < m->n; i++)
        if (!strcmp(m->parts[i].name, name)) return m->parts[i].footer_end;
    return 0;
}

int ig_commitlog_settle(const char *dir, const struct ig_commitlog_ops *ops, void *ctx,
                        struct ig_error *err)
{
    uint64_t version = 0;
    struct ig_commitlog_part *parts;
    size_t n;
    int rc = ig_commitlog_read(dir, &version, &parts, &n, err);
    if (rc == -ENOENT) return 0;
    if (rc) return rc;
    struct ig_manifest m;
    rc = ig_manifest_read(dir, &m, err);
    if (rc) {
        free(parts);
        return rc;
    }
    if (m.version >= version) {
        /* it committed: what it superseded goes */
        for (size_t i = 0; i < n && !rc; i++) {
            if (parts[i].blob) continue; /* its new objects are the version's */
            uint64_t now = footer_end_in(&m, parts[i].name);
            if (now && now != parts[i].footer_end)
                rc = ops->zero_footer(ctx, parts[i].name, parts[i].footer_off, parts[i].footer_end,
                                      err);
        }
        if (!rc) rc = ops->done(ctx, err);
    } else {
        /* it did not: cut every part back, forget the version's file */
        for (size_t i = 0; i < n && !rc; i++)
            rc = ops->cut_back(ctx, &parts[i], err);
        if (!rc) rc = ops->done(ctx, err);
        if (!rc) rc = ig_version_remove(dir, version, err);
    }
    ig_manifest_free(&m);
    free(parts);
    if (!rc) rc = ops->remove_record(ctx, err);
    return rc;
}

/* A directory's files changed as recovery says, at once. */
static int local_zero_footer(void *ctx, const char *name, uint64_t from, uint64_t to,
                             struct ig_error *err)
{
    return ig_commitlog_zero_footer(ctx, name, from, to, err);
}

static int local_cut_back(void *ctx, const struct ig_commitlog_part *rp, struct ig_error *err)
{
    return cut_back(ctx, rp->name, rp->size, err);
}

static int local_done(void *ctx, struct ig_error *err)
{
    (void)ctx;
    (void)err;
    return 0;
}

static int local_remove_record(void *ctx, struct ig_error *err)
{
    (void)err;
    ig_commitlog_remove(ctx);
    return 0;
}

int ig_commit_recover(const char *dir, struct ig_error *err)
{
    static const struct ig_commitlog_ops local = {local_zero_footer, local_cut_back, local_done,
                                                  local_remove_record};
    return ig_commitlog_settle(dir, &local, (void *)dir, err);
}
