#include "blob.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int ig_blob_writer_open(struct ig_blob_writer *w, const char *path, struct ig_error *err)
{
    memset(w, 0, sizeof *w);
    w->fd = -1;
    w->path = strdup(path);
    if (!w->path) return ig_err(err, -ENOMEM, "out of memory");
    /* read-write: importers sniff each object's first bytes back */
    w->fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (w->fd < 0) return ig_err(err, -errno, "%s: %s", path, strerror(errno));
    int rc = ig_pwrite_full(w->fd, IG_BLOB_MAGIC, IG_BLOB_HEADER, 0);
    if (rc) return ig_err(err, rc, "%s: write: %s", path, strerror(-rc));
    w->end = IG_BLOB_HEADER;
    return 0;
}

static uint64_t place(struct ig_blob_writer *w, uint64_t size)
{
    uint64_t at = w->end;
    if (size >= IG_BLOB_ALIGN_FROM) at = (at + IG_BLOB_ALIGN - 1) / IG_BLOB_ALIGN * IG_BLOB_ALIGN;
    return at;
}

int ig_blob_writer_add(struct ig_blob_writer *w, const void *p, size_t n, struct ig_blob_ref *ref,
                       struct ig_error *err)
{
    uint64_t at = place(w, n);
    int rc = ig_pwrite_full(w->fd, p, n, at);
    if (rc) return ig_err(err, rc, "%s: write: %s", w->path, strerror(-rc));
    *ref = (struct ig_blob_ref){at, n, ig_hash(p, n)};
    w->end = at + n;
    w->objects++;
    return 0;
}

/* Copy size bytes from fd at src_off into the blob file as one object
 * (1 MiB at a time, hashed on the way). `what` names the source in errors. */
static int copy_object(struct ig_blob_writer *w, int fd, uint64_t src_off, uint64_t size, const char *what,
                       struct ig_blob_ref *ref, struct ig_error *err)
{
    uint64_t at = place(w, size);
    struct ig_hasher h;
    ig_hasher_init(&h);
    size_t cap = 1 << 20;
    uint8_t *buf = malloc(cap);
    int rc = buf ? 0 : -ENOMEM;
    uint64_t done = 0;
    while (!rc && done < size) {
        size_t n = size - done < cap ? (size_t)(size - done) : cap;
        rc = ig_pread_full(fd, buf, n, src_off + done);
        if (rc) {
            rc = ig_err(err, rc, "cannot read '%s': %s", what,
                        rc == -EIO ? "file shrank while reading" : strerror(-rc));
            break;
        }
        ig_hasher_update(&h, buf, n);
        rc = ig_pwrite_full(w->fd, buf, n, at + done);
        if (rc) rc = ig_err(err, rc, "%s: write: %s", w->path, strerror(-rc));
        done += n;
    }
    free(buf);
    if (rc == -ENOMEM) return ig_err(err, rc, "out of memory");
    if (rc) return rc;
    *ref = (struct ig_blob_ref){at, size, ig_hasher_final(&h)};
    w->end = at + size;
    w->objects++;
    return 0;
}

int ig_blob_writer_add_range(struct ig_blob_writer *w, int fd, uint64_t off, uint64_t size, const char *src,
                             struct ig_blob_ref *ref, struct ig_error *err)
{
    if (size > IG_BLOB_MAX_OBJECT) return ig_err(err, -EFBIG, "cannot read '%s': %s", src, strerror(EFBIG));
    return copy_object(w, fd, off, size, src, ref, err);
}

int ig_blob_writer_add_fd(struct ig_blob_writer *w, int fd, const char *src, struct ig_blob_ref *ref,
                          struct ig_error *err)
{
    off_t size = lseek(fd, 0, SEEK_END);
    if (size < 0 || (uint64_t)size > IG_BLOB_MAX_OBJECT) {
        int e = size < 0 ? errno : EFBIG;
        return ig_err(err, -e, "cannot read '%s': %s", src, strerror(e));
    }
    return copy_object(w, fd, 0, (uint64_t)size, src, ref, err);
}

int ig_blob_writer_add_file(struct ig_blob_writer *w, const char *src, struct ig_blob_ref *ref,
                            struct ig_error *err)
{
    int fd = open(src, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return ig_err(err, -errno, "cannot read '%s': %s", src, strerror(errno));
    int rc = ig_blob_writer_add_fd(w, fd, src, ref, err);
    close(fd);
    return rc;
}

int ig_blob_writer_add_object(struct ig_blob_writer *w, int src_fd, const char *src_path,
                              const struct ig_blob_ref *src, struct ig_blob_ref *ref, struct ig_error *err)
{
    if (src->size > IG_BLOB_MAX_OBJECT || src->offset > UINT64_MAX - src->size)
        return ig_err(err, -EIO, "%s: object at %llu: size out of range", src_path,
                      (unsigned long long)src->offset);
    int rc = copy_object(w, src_fd, src->offset, src->size, src_path, ref, err);
    if (!rc && ref->hash != src->hash)
        rc = ig_err(err, -EIO, "%s: object at %llu (%llu bytes): checksum mismatch", src_path,
                    (unsigned long long)src->offset, (unsigned long long)src->size);
    return rc;
}

int ig_blob_writer_open_append(struct ig_blob_writer *w, const char *path, struct ig_error *err)
{
    memset(w, 0, sizeof *w);
    w->fd = -1;
    w->path = strdup(path);
    if (!w->path) return ig_err(err, -ENOMEM, "out of memory");
    w->fd = open(path, O_RDWR | O_CLOEXEC);
    if (w->fd < 0 && errno == ENOENT) { /* the part's first blob column */
        ig_blob_writer_free(w);
        return ig_blob_writer_open(w, path, err);
    }
    if (w->fd < 0) return ig_err(err, -errno, "%s: %s", path, strerror(errno));
    char magic[IG_BLOB_HEADER];
    off_t size = lseek(w->fd, 0, SEEK_END);
    if (size < IG_BLOB_HEADER || ig_pread_full(w->fd, magic, sizeof magic, 0) ||
        memcmp(magic, IG_BLOB_MAGIC, IG_BLOB_HEADER)) {
        close(w->fd);
        w->fd = -1;
        w->finished = true; /* not ours to remove */
        return ig_err(err, -EIO, "%s: not a blob file", path);
    }
    w->base = w->end = (uint64_t)size;
    w->existed = true;
    return 0;
}

int ig_blob_writer_finish(struct ig_blob_writer *w, struct ig_error *err)
{
    int rc = fsync(w->fd) ? -errno : 0;
    if (close(w->fd) && !rc) rc = -errno;
    w->fd = -1;
    if (rc) return ig_err(err, rc, "%s: %s", w->path, strerror(-rc));
    w->finished = true;
    return 0;
}

void ig_blob_writer_free(struct ig_blob_writer *w)
{
    /* not finished: what was written goes (an appended file is cut back to
     * what it held; a commit's record cuts it back too, the objects zeroed
     * first, should this fail or not run) */
    if (!w->finished && w->existed && w->fd >= 0 && ftruncate(w->fd, (off_t)w->base) != 0) {
        /* best effort: see above */
    }
    if (w->fd >= 0) close(w->fd);
    if (!w->finished && !w->existed && w->path) unlink(w->path);
    free(w->path);
    memset(w, 0, sizeof *w);
    w->fd = -1;
}

int ig_blob_read(int fd, const struct ig_blob_ref *ref, uint64_t off, void *buf, size_t n)
{
    if (off > ref->size || n > ref->size - off) return -EINVAL;
    if (ref->offset > UINT64_MAX - ref->size) return -EIO;
    return ig_pread_full(fd, buf, n, ref->offset + off);
}

int ig_blob_verify(int fd, const struct ig_blob_ref *ref, struct ig_error *err)
{
    struct ig_hasher h;
    ig_hasher_init(&h);
    size_t cap = 1 << 20;
    uint8_t *buf = malloc(cap);
    if (!buf) return ig_err(err, -ENOMEM, "out of memory");
    int rc = 0;
    for (uint64_t done = 0; !rc && done < ref->size;) {
        size_t n = ref->size - done < cap ? (size_t)(ref->size - done) : cap;
        rc = ig_blob_read(fd, ref, done, buf, n);
        if (!rc) ig_hasher_update(&h, buf, n);
        done += n;
    }
    free(buf);
    if (rc)
        return ig_err(err, -EIO, "object at %llu (%llu bytes): %s", (unsigned long long)ref->offset,
                      (unsigned long long)ref->size, rc == -EIO ? "blob file truncated" : strerror(-rc));
    if (ig_hasher_final(&h) != ref->hash)
        return ig_err(err, -EIO, "object at %llu (%llu bytes): checksum mismatch",
                      (unsigned long long)ref->offset, (unsigned long long)ref->size);
    return 0;
}

static bool has(const uint8_t *p, size_t n, size_t at, const char *s)
{
    size_t m = strlen(s);
    return n >= at + m && memcmp(p + at, s, m) == 0;
}

/* Search for a short ASCII marker within the first bytes (Matroska DocType). */
static bool contains(const uint8_t *p, size_t n, const char *s)
{
    size_t m = strlen(s);
    for (size_t i = 0; i + m <= n; i++)
        if (memcmp(p + i, s, m) == 0) return true;
    return false;
}

const char *ig_blob_sniff(const uint8_t *p, size_t n)
{
    if (n >= 3 && p[0] == 0xFF && p[1] == 0xD8 && p[2] == 0xFF) return "jpg";
    if (has(p, n, 0, "\x89PNG\r\n\x1a\n")) return "png";
    if (has(p, n, 0, "GIF87a") || has(p, n, 0, "GIF89a")) return "gif";
    if (has(p, n, 0, "RIFF") && has(p, n, 8, "WEBP")) return "webp";
    if (has(p, n, 0, "RIFF") && has(p, n, 8, "WAVE")) return "wav";
    if (has(p, n, 0, "fLaC")) return "flac";
    if (has(p, n, 4, "ftyp")) return has(p, n, 8, "qt  ") ? "mov" : "mp4";
    if (n >= 4 && p[0] == 0x1A && p[1] == 0x45 && p[2] == 0xDF && p[3] == 0xA3)
        return contains(p, n, "webm") ? "webm" : "mkv";
    if (has(p, n, 0, "ID3") || (n >= 2 && p[0] == 0xFF && (p[1] & 0xE0) == 0xE0)) return "mp3";
    return "";
}

static const char *const kinds[] = {"",    "jpg", "png", "webp", "gif", "mp4",
                                    "mov", "mkv", "webm", "wav", "mp3", "flac"};

unsigned ig_blob_kind(const char *ext)
{
    for (unsigned k = 1; k < sizeof kinds / sizeof kinds[0]; k++)
        if (!strcmp(kinds[k], ext)) return k;
    return 0;
}

const char *ig_blob_kind_ext(unsigned kind)
{
    return kind < sizeof kinds / sizeof kinds[0] ? kinds[kind] : "";
}

void ig_blob_ref_store(uint8_t *p, const struct ig_blob_ref *r, unsigned kind)
{
    ig_st64(p, r->offset);
    ig_st64(p + 8, r->size | (uint64_t)(kind & 0xFF) << 56);
    ig_st64(p + 16, r->hash);
}

void ig_blob_ref_load(const uint8_t *p, struct ig_blob_ref *r, unsigned *kind)
{
    uint64_t sz = ig_ld64(p + 8);
    r->offset = ig_ld64(p);
    r->size = sz & ((1ull << 56) - 1);
    r->hash = ig_ld64(p + 16);
    if (kind) *kind = (unsigned)(sz >> 56);
}
