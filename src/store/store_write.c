/* store_write.c - writing a whole object: to a local file (through a
 * temporary, fsynced, renamed or linked when it must not exist yet, checked
 * against an ETag when asked), or to S3 in one PUT or in parts of 64 MiB,
 * from memory or from a file. */
#include "store/store.h"
#include "store/s3.h"
#include "store/store_int.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/io.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PART_BYTES ((size_t)64 << 20) /* multipart upload part */

static int local_write(struct ig_store *st, const char *name, const void *data, size_t len,
                       const struct ig_store_cond *cond, struct ig_obj_info *info,
                       struct ig_error *err)
{
    char path[4096], tmp[4200], dir[4096];
    int rc = store_local_path(st, name, path, sizeof path, err);
    if (rc) return rc;
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    snprintf(tmp, sizeof tmp, "%s.tmp-%d", path, (int)getpid());
    if (cond && cond->if_match) {
        struct stat s;
        char now[IG_ETAG_MAX];
        if (stat(path, &s)) return ig_err(err, -ESTALE, "%s: gone (changed since read)", path);
        store_local_etag(&s, now);
        if (strcmp(now, cond->if_match))
            return ig_err(err, -ESTALE, "%s: changed since read", path);
    }
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return ig_err(err, -errno, "%s: %s", tmp, strerror(errno));
    rc = ig_write_full(fd, data, len);
    if (!rc && fsync(fd)) rc = -errno;
    if (close(fd) && !rc) rc = -errno;
    if (!rc) {
        if (cond && cond->if_absent) {
            /* link refuses an existing name: create-only, atomically */
            if (link(tmp, path)) rc = errno == EEXIST ? -EEXIST : -errno;
            unlink(tmp);
        } else if (rename(tmp, path)) {
            rc = -errno;
        }
    }
    if (rc) {
        unlink(tmp);
        return ig_err(err, rc, "%s: %s", path, rc == -EEXIST ? "exists already" : strerror(-rc));
    }
    rc = ig_fsync_dir(dir);
    if (rc) return ig_err(err, rc, "%s: fsync: %s", dir, strerror(-rc));
    if (info) {
        struct stat s;
        memset(info, 0, sizeof *info);
        info->size = len;
        if (stat(path, &s) == 0) store_local_etag(&s, info->etag);
    }
    return 0;
}

/* A remote object from memory: one PUT, or parts of PART_BYTES. */
static int s3_write(struct ig_store *st, const char *key, const void *data, size_t len,
                    const struct ig_store_cond *cond, struct ig_s3_info *si, struct ig_error *err)
{
    struct ig_s3_cond c = {cond ? cond->if_match : NULL, cond && cond->if_absent};
    if (len <= PART_BYTES) return ig_s3_put(st->s3, st->bucket, key, data, len, &c, si, err);
    if (c.if_match || c.if_none_match)
        return ig_err(err, -EINVAL, "s3://%s/%s: a conditional write of over 64 MiB", st->bucket,
                      key);
    char upload[1024];
    int rc = ig_s3_mpu_start(st->s3, st->bucket, key, upload, sizeof upload, err);
    if (rc) return rc;
    unsigned nparts = (unsigned)((len + PART_BYTES - 1) / PART_BYTES);
    char(*etags)[IG_ETAG_MAX] = calloc(nparts, IG_ETAG_MAX);
    if (!etags) rc = ig_err(err, -ENOMEM, "out of memory");
    for (unsigned i = 0; !rc && i < nparts; i++) {
        size_t off = (size_t)i * PART_BYTES, n = len - off < PART_BYTES ? len - off : PART_BYTES;
        rc = ig_s3_mpu_put(st->s3, st->bucket, key, upload, i + 1, (const uint8_t *)data + off, n,
                           etags[i], err);
    }
    if (!rc) rc = ig_s3_mpu_complete(st->s3, st->bucket, key, upload, etags, nparts, si, err);
    if (rc) ig_s3_mpu_abort(st->s3, st->bucket, key, upload);
    free(etags);
    return rc;
}

int ig_store_write(struct ig_store *st, const char *name, const void *data, size_t len,
                   const struct ig_store_cond *cond, struct ig_obj_info *info, struct ig_error *err)
{
    if (!st->remote) return local_write(st, name, data, len, cond, info, err);
    char key[IG_S3_KEY_LEN_MAX];
    int rc = store_key_of(st, name, key, sizeof key, err);
    struct ig_s3_info si;
    if (!rc) rc = s3_write(st, key, data, len, cond, &si, err);
    if (!rc) store_info_from_s3(info, &si, name);
    return rc;
}

int ig_store_write_file(struct ig_store *st, const char *name, const char *path,
                        ig_store_sent_fn sent, void *sent_ctx, const struct ig_store_cond *cond,
                        struct ig_obj_info *info, struct ig_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return ig_err(err, -errno, "%s: %s", path, strerror(errno));
    struct stat s;
    int rc = fstat(fd, &s) ? ig_err(err, -errno, "%s: %s", path, strerror(errno)) : 0;
    uint64_t size = rc ? 0 : (uint64_t)s.st_size;
    if (!rc && (!st->remote || size <= PART_BYTES)) {
        /* small enough to hold: one write */
        uint8_t *data = malloc(size ? (size_t)size : 1);
        rc = data ? ig_pread_full(fd, data, (size_t)size, 0) : -ENOMEM;
        if (rc) rc = ig_err(err, rc, "%s: %s", path, strerror(-rc));
        if (!rc) rc = ig_store_write(st, name, data, (size_t)size, cond, info, err);
        if (!rc && sent) sent(sent_ctx, size);
        free(data);
        close(fd);
        return rc;
    }
    char key[IG_S3_KEY_LEN_MAX], upload[1024];
    if (!rc) rc = store_key_of(st, name, key, sizeof key, err);
    if (!rc && cond && (cond->if_match || cond->if_absent))
        rc =
            ig_err(err, -EINVAL, "s3://%s/%s: a conditional write of over 64 MiB", st->bucket, key);
    if (!rc) rc = ig_s3_mpu_start(st->s3, st->bucket, key, upload, sizeof upload, err);
    if (rc) {
        close(fd);
        return rc;
    }
    unsigned nparts = (unsigned)((size + PART_BYTES - 1) / PART_BYTES);
    char(*etags)[IG_ETAG_MAX] = calloc(nparts, IG_ETAG_MAX);
    uint8_t *buf = malloc(PART_BYTES);
    if (!etags || !buf) rc = ig_err(err, -ENOMEM, "out of memory");
    for (unsigned i = 0; !rc && i < nparts; i++) {
        uint64_t off = (uint64_t)i * PART_BYTES;
        size_t n = size - off < PART_BYTES ? (size_t)(size - off) : PART_BYTES;
        rc = ig_pread_full(fd, buf, n, off);
        if (rc)
            rc = ig_err(err, rc, "%s: %s", path, strerror(-rc));
        else
            rc = ig_s3_mpu_put(st->s3, st->bucket, key, upload, i + 1, buf, n, etags[i], err);
        if (!rc && sent) sent(sent_ctx, n);
    }
    struct ig_s3_info si;
    if (!rc) rc = ig_s3_mpu_complete(st->s3, st->bucket, key, upload, etags, nparts, &si, err);
    if (rc)
        ig_s3_mpu_abort(st->s3, st->bucket, key, upload);
    else
        store_info_from_s3(info, &si, name);
    free(buf);
    free(etags);
    close(fd);
    return rc;
}
