#include "journal.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/io.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAGIC "IGJRNL01"
#define END_MAGIC "IGJEND01"
#define KIND_WRITE 1
#define KIND_ZERO 2
#define KIND_END 0

void ig_fault_init(struct ig_fault *f)
{
    const char *s = getenv("INGOT_FAULT_AFTER");
    f->after = s ? strtoull(s, NULL, 10) : 0;
    f->steps = 0;
}

void ig_fault_step(struct ig_fault *f)
{
    if (f && f->after && ++f->steps == f->after) kill(getpid(), SIGKILL);
}

void ig_journal_init(struct ig_journal *j)
{
    memset(j, 0, sizeof *j);
    ig_buf_append(&j->buf, MAGIC, 8);
}

void ig_journal_free(struct ig_journal *j) { ig_buf_free(&j->buf); }

int ig_journal_add(struct ig_journal *j, const char *name, uint64_t offset, const void *data,
                   size_t len)
{
    size_t nl = strlen(name);
    if (nl > 255 || len > UINT32_MAX) return -EINVAL;
    uint8_t hdr[1 + 2 + 8 + 4];
    int rc = ig_buf_reserve(&j->buf, sizeof hdr + nl + len);
    if (rc) return rc;
    hdr[0] = KIND_WRITE;
    ig_st16(hdr + 1, (uint16_t)nl);
    ig_buf_append(&j->buf, hdr, 3);
    ig_buf_append(&j->buf, name, nl);
    ig_st64(hdr, offset);
    ig_st32(hdr + 8, (uint32_t)len);
    ig_buf_append(&j->buf, hdr, 12);
    ig_buf_append(&j->buf, data, len);
    j->records++;
    j->bytes += len;
    return 0;
}

int ig_journal_zero(struct ig_journal *j, const char *name, uint64_t offset, uint64_t len)
{
    size_t nl = strlen(name);
    while (len > 0) { /* lengths are u32: split long runs */
        uint32_t n = len > 0x7FFFFFFFu ? 0x7FFFFFFFu : (uint32_t)len;
        uint8_t hdr[12];
        uint8_t k[3] = {KIND_ZERO, 0, 0};
        ig_st16(k + 1, (uint16_t)nl);
        ig_st64(hdr, offset);
        ig_st32(hdr + 8, n);
        if (ig_buf_append(&j->buf, k, 3) || ig_buf_append(&j->buf, name, nl) ||
            ig_buf_append(&j->buf, hdr, 12))
            return -ENOMEM;
        j->records++;
        offset += n;
        len -= n;
    }
    return 0;
}

static void journal_paths(const char *dir, char *tmp, char *final, char *sub, size_t cap)
{
    snprintf(sub, cap, "%s/.ingot", dir);
    snprintf(tmp, cap, "%s/.ingot/journal.tmp", dir);
    snprintf(final, cap, "%s/.ingot/journal", dir);
}

int ig_journal_commit(struct ig_journal *j, const char *dir, struct ig_fault *f,
                      struct ig_error *err)
{
    char tmp[4200], final[4200], sub[4200];
    journal_paths(dir, tmp, final, sub, sizeof tmp);
    if (mkdir(sub, 0755) && errno != EEXIST) return ig_err(err, -errno, "%s: %s", sub, strerror(errno));
    uint8_t end = KIND_END;
    int rc = ig_buf_append(&j->buf, &end, 1);
    if (!rc) rc = ig_buf_append_u64(&j->buf, ig_hash(j->buf.data, j->buf.len));
    if (!rc) rc = ig_buf_append(&j->buf, END_MAGIC, 8);
    if (rc) return ig_err(err, rc, "out of memory");
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return ig_err(err, -errno, "%s: %s", tmp, strerror(errno));
    rc = ig_write_full(fd, j->buf.data, j->buf.len);
    ig_fault_step(f);
    if (!rc && fsync(fd)) rc = -errno;
    ig_fault_step(f);
    close(fd);
    if (!rc && rename(tmp, final)) rc = -errno;
    ig_fault_step(f);
    if (!rc) rc = ig_fsync_dir(sub);
    ig_fault_step(f);
    if (rc) {
        unlink(tmp);
        return ig_err(err, rc, "%s: writing the journal: %s", dir, strerror(-rc));
    }
    return 0;
}

/* Parse and check a journal file; returns its bytes in *buf. */
static int load(const char *path, struct ig_buf *buf, struct ig_error *err)
{
    char *data;
    size_t len;
    int rc = ig_read_file(path, (size_t)1 << 34, &data, &len, err);
    if (rc) return rc;
    buf->data = (uint8_t *)data;
    buf->len = buf->cap = len;
    if (len < 8 + 1 + 16 || memcmp(data, MAGIC, 8) || memcmp(data + len - 8, END_MAGIC, 8) ||
        ig_ld64(data + len - 16) != ig_hash(data, len - 16))
        return ig_err(err, -EIO, "%s: journal is damaged", path);
    return 0;
}

static int find_fd(const char *dir, const char *name, int *fds, char (*names)[256], int *n)
{
    for (int i = 0; i < *n; i++)
        if (!strcmp(names[i], name)) return fds[i];
    if (*n == 64) return -EMFILE;
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return -errno;
    snprintf(names[*n], 256, "%s", name);
    fds[(*n)++] = fd;
    return fd;
}

int ig_journal_apply(const char *dir, struct ig_fault *f, struct ig_error *err)
{
    char tmp[4200], final[4200], sub[4200];
    journal_paths(dir, tmp, final, sub, sizeof tmp);
    struct ig_buf b = IG_BUF_INIT;
    int rc = load(final, &b, err);
    if (rc) {
        ig_buf_free(&b);
        return rc;
    }
    int fds[64], nfds = 0;
    char names[64][256];
    size_t pos = 8, end = b.len - 16;
    while (!rc && pos < end) {
        uint8_t kind = b.data[pos++];
        if (kind == KIND_END) break;
        if ((kind != KIND_WRITE && kind != KIND_ZERO) || end - pos < 2) {
            rc = ig_err(err, -EIO, "%s: journal record malformed", final);
            break;
        }
        size_t nl = ig_ld16(b.data + pos);
        pos += 2;
        if (end - pos < nl + 12 || nl == 0 || nl > 255) {
            rc = ig_err(err, -EIO, "%s: journal record malformed", final);
            break;
        }
        char name[256];
        memcpy(name, b.data + pos, nl);
        name[nl] = '\0';
        pos += nl;
        uint64_t off = ig_ld64(b.data + pos);
        uint32_t len = ig_ld32(b.data + pos + 8);
        pos += 12;
        if (strchr(name, '/') || name[0] == '.' || (kind == KIND_WRITE && end - pos < len)) {
            rc = ig_err(err, -EIO, "%s: journal record malformed", final);
            break;
        }
        int fd = find_fd(dir, name, fds, names, &nfds);
        if (fd < 0) {
            rc = ig_err(err, fd, "%s/%s: %s", dir, name, strerror(-fd));
            break;
        }
        if (kind == KIND_WRITE) {
            rc = ig_pwrite_full(fd, b.data + pos, len, off);
            pos += len;
        } else {
            static const uint8_t zeros[65536];
            for (uint64_t done = 0; !rc && done < len;) {
                size_t n = len - done < sizeof zeros ? (size_t)(len - done) : sizeof zeros;
                rc = ig_pwrite_full(fd, zeros, n, off + done);
                done += n;
            }
        }
        ig_fault_step(f);
        if (rc) rc = ig_err(err, rc, "%s/%s: write: %s", dir, name, strerror(-rc));
    }
    for (int i = 0; i < nfds; i++) {
        if (!rc && fsync(fds[i])) rc = ig_err(err, -errno, "%s/%s: fsync: %s", dir, names[i],
                                              strerror(errno));
        ig_fault_step(f);
        close(fds[i]);
    }
    ig_buf_free(&b);
    if (rc) return rc;
    if (unlink(final)) return ig_err(err, -errno, "%s: %s", final, strerror(errno));
    ig_fault_step(f);
    rc = ig_fsync_dir(sub);
    ig_fault_step(f);
    return rc ? ig_err(err, rc, "%s: fsync: %s", sub, strerror(-rc)) : 0;
}

bool ig_journal_pending(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/.ingot/journal", dir);
    return access(path, F_OK) == 0;
}

int ig_journal_recover(const char *dir, bool *replayed, struct ig_error *err)
{
    char tmp[4200], final[4200], sub[4200];
    journal_paths(dir, tmp, final, sub, sizeof tmp);
    *replayed = false;
    unlink(tmp); /* never committed: the change never started */
    if (access(final, F_OK)) return 0;
    int rc = ig_journal_apply(dir, NULL, err);
    if (rc) return ig_err_prefix(err, rc, "%s: replaying an interrupted erase", dir);
    *replayed = true;
    return 0;
}
