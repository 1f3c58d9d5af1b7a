#include "format/part/journal.h"
#include "format/part/manifest.h"
#include "format/part/remote.h"
#include "format/part/versions.h"
#include "store/store.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/varint.h"
#include "util/io.h"

#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAGIC "IGJRNL02"
#define MAGIC_V1 "IGJRNL01" /* left by an older binary's crash: still replayed */
#define END_MAGIC "IGJEND01"
#define KIND_WRITE 1
#define KIND_ZERO 2
#define KIND_GENERATION 3 /* u64: the table generation once applied (MANIFEST) */
#define KIND_FILE 4       /* version 2: the part file of the records that follow */
#define KIND_END 0

void ig_fault_init(struct ig_fault *f)
{
    const char *s = getenv("INGOT_FAULT_AFTER");
    f->after = s ? strtoull(s, NULL, 10) : 0;
    s = getenv("INGOT_PAUSE_AFTER");
    f->pause_after = s ? strtoull(s, NULL, 10) : 0;
    f->steps = 0;
}

void ig_fault_step(struct ig_fault *f)
{
    if (!f) return;
    f->steps++;
    if (f->after && f->steps == f->after) kill(getpid(), SIGKILL);
    if (f->pause_after && f->steps == f->pause_after) kill(getpid(), SIGSTOP);
}

#define SPILL_BYTES ((size_t)8 << 20) /* records kept in memory before they go to the file */

void ig_journal_init(struct ig_journal *j)
{
    memset(j, 0, sizeof *j);
    j->fd = -1;
    ig_buf_append(&j->buf, MAGIC, 8);
}

/* Version 2 records name their file once per run of records on it: u8 4 | u8
 * length | name. (Version 1 named it in every record: 17 bytes of a 32-byte
 * header, a third of an erase's journal when it changes a few bytes in each of
 * twenty columns' blocks per row.) */
static int set_file(struct ig_journal *j, const char *name)
{
    size_t nl = strlen(name);
    if (nl == 0 || nl > 255) return -EINVAL;
    if (!strcmp(j->file, name)) return 0;
    uint8_t k[2] = {KIND_FILE, (uint8_t)nl};
    if (ig_buf_append(&j->buf, k, 2) || ig_buf_append(&j->buf, name, nl)) return -ENOMEM;
    memcpy(j->file, name, nl + 1);
    return 0;
}

/* u8 kind | varint offset | varint length */
static int put_range(struct ig_journal *j, uint8_t kind, uint64_t offset, uint64_t len)
{
    uint8_t h[1 + 10 + 10];
    h[0] = kind;
    size_t n = 1 + ig_varint_put(h + 1, offset);
    n += ig_varint_put(h + n, len);
    return ig_buf_append(&j->buf, h, n) ? -ENOMEM : 0;
}

void ig_journal_free(struct ig_journal *j)
{
    if (j->fd >= 0) {
        close(j->fd);
        unlink(j->tmp); /* never committed */
    }
    ig_buf_free(&j->buf);
    j->fd = -1;
}

/* Move the records so far to the file (hashing them on the way), and on to
 * the disk while the erase goes on: the commit's fsync then waits for the
 * last of them alone (a hint: that fsync reports any failure to write). */
static void spill(struct ig_journal *j)
{
    if (j->fd < 0 || j->write_error || j->buf.len == 0) return;
    ig_hasher_update(&j->hash, j->buf.data, j->buf.len);
    j->write_error = ig_write_full(j->fd, j->buf.data, j->buf.len);
#ifdef SYNC_FILE_RANGE_WRITE
    if (!j->write_error) (void)sync_file_range(j->fd, (off_t)j->spilled, (off_t)j->buf.len, SYNC_FILE_RANGE_WRITE);
#endif
    j->spilled += j->buf.len;
    ig_buf_reset(&j->buf);
}

static void maybe_spill(struct ig_journal *j)
{
    if (j->fd >= 0 && j->buf.len >= SPILL_BYTES) spill(j);
}

int ig_journal_add(struct ig_journal *j, const char *name, uint64_t offset, const void *data,
                   size_t len)
{
    if (len > UINT32_MAX) return -EINVAL;
    int rc = ig_buf_reserve(&j->buf, 2 + 255 + 21 + len);
    if (!rc) rc = set_file(j, name);
    if (!rc) rc = put_range(j, KIND_WRITE, offset, len);
    if (rc) return rc;
    ig_buf_append(&j->buf, data, len);
    j->records++;
    j->bytes += len;
    maybe_spill(j);
    return 0;
}

int ig_journal_take(struct ig_journal *j, struct ig_journal *from)
{
    /* only in-memory journals, whose buffer starts with the magic */
    if (from->fd >= 0 || from->spilled || from->buf.len < 8) return -EINVAL;
    if (ig_buf_append(&j->buf, from->buf.data + 8, from->buf.len - 8)) return -ENOMEM;
    /* from's records began with their own file record: j is now on from's file */
    if (from->file[0]) memcpy(j->file, from->file, sizeof j->file);
    from->file[0] = '\0';
    j->records += from->records;
    j->bytes += from->bytes;
    from->buf.len = 8;
    from->records = 0;
    from->bytes = 0;
    maybe_spill(j);
    return 0;
}

int ig_journal_diff(struct ig_journal *j, const char *name, uint64_t offset, const uint8_t *old,
                    const uint8_t *new, size_t len, uint64_t *written)
{
    /* a footer of megabytes where a few hundred bytes changed: the equal
     * stretches are skipped by memcmp (byte by byte, the comparison was most
     * of a one-row erase of a table of 100 columns and a million rows) */
    for (size_t i = ig_first_difference(old, new, 0, len); i < len; i = ig_first_difference(old, new, i, len)) {
        /* a gap of up to 32 equal bytes costs less inside the range than as
         * another record's header */
        size_t start = i, last = i;
        for (; i < len; i++)
            if (old[i] != new[i])
                last = i;
            else if (i - last > 32)
                break;
        size_t n = last - start + 1;
        if (ig_journal_add(j, name, offset + start, new + start, n)) return -ENOMEM;
        *written += n;
    }
    return 0;
}

int ig_journal_zero(struct ig_journal *j, const char *name, uint64_t offset, uint64_t len)
{
    int rc = set_file(j, name);
    while (!rc && len > 0) { /* lengths are u32 when applied: split long runs */
        uint64_t n = len > 0x7FFFFFFFu ? 0x7FFFFFFFu : len;
        rc = put_range(j, KIND_ZERO, offset, n);
        j->records++;
        offset += n;
        len -= n;
    }
    maybe_spill(j);
    return rc;
}

int ig_journal_generation(struct ig_journal *j, uint64_t generation)
{
    uint8_t rec[9] = {KIND_GENERATION};
    ig_st64(rec + 1, generation);
    if (ig_buf_append(&j->buf, rec, sizeof rec)) return -ENOMEM;
    j->records++;
    maybe_spill(j);
    return 0;
}

/* MANIFEST's generation raised to at least g, atomically (replays write the
 * same number again: idempotent). An erasure is a version of its own
 * (versions.h): the first time, the version moves on too and gets its file. */
static int raise_generation(const char *dir, uint64_t g, struct ig_error *err)
{
    struct ig_manifest m;
    int rc = ig_manifest_read(dir, &m, err);
    if (rc) return rc;
    bool made;
    rc = ig_version_of_erase(dir, &m, g, &made, err);
    if (!rc && made) rc = ig_manifest_write(dir, &m, err);
    ig_manifest_free(&m);
    return rc;
}

static void journal_paths(const char *dir, char *tmp, char *final, char *sub, size_t cap)
{
    snprintf(sub, cap, "%s/.ingot", dir);
    snprintf(tmp, cap, "%s/.ingot/journal.tmp", dir);
    snprintf(final, cap, "%s/.ingot/journal", dir);
}

int ig_journal_stream(struct ig_journal *j, const char *dir, struct ig_error *err)
{
    char final[4200], sub[4200];
    journal_paths(dir, j->tmp, final, sub, sizeof j->tmp);
    if (mkdir(sub, 0755) && errno != EEXIST) return ig_err(err, -errno, "%s: %s", sub, strerror(errno));
    j->fd = open(j->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (j->fd < 0) return ig_err(err, -errno, "%s: %s", j->tmp, strerror(errno));
    ig_hasher_init(&j->hash);
    return 0;
}

int ig_journal_commit(struct ig_journal *j, const char *dir, struct ig_fault *f,
                      struct ig_error *err)
{
    char tmp[4200], final[4200], sub[4200];
    journal_paths(dir, tmp, final, sub, sizeof tmp);
    /* a journal not streamed yet goes to its file now, the same way */
    int rc = j->fd < 0 ? ig_journal_stream(j, dir, err) : 0;
    if (rc) return rc;
    uint8_t end = KIND_END;
    if (ig_buf_append(&j->buf, &end, 1)) rc = -ENOMEM;
    /* the rest of the records, then the hash of them all */
    if (!rc) spill(j);
    if (!rc) rc = j->write_error;
    uint64_t h = ig_hasher_final(&j->hash);
    if (!rc) rc = ig_buf_append_u64(&j->buf, h) || ig_buf_append(&j->buf, END_MAGIC, 8) ? -ENOMEM : 0;
    int fd = j->fd;
    j->fd = -1; /* this function closes it */
    if (!rc) rc = ig_write_full(fd, j->buf.data, j->buf.len);
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

/* A journal is read twice, a buffer at a time (it can be as large as the
 * rewrite): once to check its hash, once to apply its records. */
struct jreader {
    int fd;
    uint64_t pos, end; /* file offsets: next byte, end of the records */
    uint8_t buf[1 << 16];
    size_t have, at;   /* bytes in buf, next unread */
};

static int jr_read(struct jreader *r, void *dst, size_t n)
{
    uint8_t *d = dst;
    while (n > 0) {
        if (r->at == r->have) {
            uint64_t left = r->end - r->pos;
            if (left == 0) return -EIO;
            size_t want = left < sizeof r->buf ? (size_t)left : sizeof r->buf;
            int rc = ig_pread_full(r->fd, r->buf, want, r->pos);
            if (rc) return rc;
            r->pos += want;
            r->have = want;
            r->at = 0;
        }
        size_t take = r->have - r->at < n ? r->have - r->at : n;
        memcpy(d, r->buf + r->at, take);
        r->at += take;
        d += take;
        n -= take;
    }
    return 0;
}

/* A varint from the journal (at most 10 bytes, no overflow). */
static int jr_varint(struct jreader *r, uint64_t *v)
{
    uint8_t b[10];
    for (size_t i = 0; i < sizeof b; i++) {
        if (jr_read(r, &b[i], 1)) return -EIO;
        if (!(b[i] & 0x80)) return ig_varint_get(b, i + 1, v) == i + 1 ? 0 : -EIO;
    }
    return -EIO;
}

/* Check the frame (magics, hash over everything before it); *records_end is
 * where the hash starts, *version the record layout (1 or 2). */
static int check_frame(int fd, const char *path, uint64_t *records_end, int *version,
                       struct ig_error *err)
{
    struct stat st;
    if (fstat(fd, &st)) return ig_err(err, -errno, "%s: %s", path, strerror(errno));
    uint64_t size = (uint64_t)st.st_size;
    uint8_t head[8], tail[16];
    if (size < 8 + 1 + 16 || ig_pread_full(fd, head, 8, 0) || ig_pread_full(fd, tail, 16, size - 16) ||
        (memcmp(head, MAGIC, 8) && memcmp(head, MAGIC_V1, 8)) || memcmp(tail + 8, END_MAGIC, 8))
        return ig_err(err, -EIO, "%s: journal is damaged", path);
    *version = memcmp(head, MAGIC, 8) ? 1 : 2;
    struct ig_hasher h;
    ig_hasher_init(&h);
    static _Thread_local uint8_t chunk[1 << 16];
    for (uint64_t off = 0; off < size - 16;) {
        size_t n = size - 16 - off < sizeof chunk ? (size_t)(size - 16 - off) : sizeof chunk;
        if (ig_pread_full(fd, chunk, n, off)) return ig_err(err, -EIO, "%s: unreadable", path);
        ig_hasher_update(&h, chunk, n);
        off += n;
    }
    if (ig_hasher_final(&h) != ig_ld64(tail)) return ig_err(err, -EIO, "%s: journal is damaged", path);
    *records_end = size - 16;
    return 0;
}

static int fd_slot(const int *fds, int n, int fd)
{
    for (int i = 0; i < n; i++)
        if (fds[i] == fd) return i;
    return 0;
}

static int find_fd(const char *dir, const char *name, int *fds, char (*names)[256], int *n)
{
    for (int i = 0; i < *n; i++)
        if (!strcmp(names[i], name)) return fds[i];
    if (*n == 64) return -EMFILE;
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = ig_open(path, O_RDWR | O_CLOEXEC, 0); /* read too: a window reads its span */
    if (fd < 0) return -errno;
    snprintf(names[*n], 256, "%s", name);
    fds[(*n)++] = fd;
    return fd;
}

/* Records are applied through a window: a span of one part file, patched in
 * memory by every record that falls inside it, in journal order, and written
 * back a run of touched 4 KiB units at a time. A unit is read when a record
 * first touches it without covering it, never again while the window stays,
 * and not at all when no record touches it: whole windows read 19 MB for a
 * one-row erase of 100 columns, from the disk when cold (17 ms of its 50),
 * where the units an erase's records touch are mostly the blocks it read and
 * still in the page cache. An erase of
 * scattered rows journals hundreds of thousands of small ranges, a few bytes
 * each, close together; a pwrite apiece cost more than everything else the
 * erase did. Bytes of a touched unit that no record touches are written back
 * as they were read (the table lock keeps every other writer out); past the
 * end of the file they read as zeros, as the holes they would otherwise be.
 * Units no record touches are not written: a one-row erase of 100 columns
 * touches a few hundred bytes in each of a few windows, and writing each
 * window up to its last record wrote (and dirtied, and synced) 5.6 MB. Not on
 * shared storage: there this host's client may still hold bytes from before
 * another host's erase, and writing them back would undo it; each record is
 * written alone there. */
#define WINDOW_BYTES ((size_t)256 << 10)
#define WINDOW_UNIT ((size_t)4096) /* 64 of them: one bit each in `touched` */
#define WINDOW_SEND_BYTES ((size_t)8 << 20)

struct window {
    int fd;           /* -1: none open */
    uint64_t start;   /* file offset of buf[0] */
    size_t len;       /* bytes [0, len) of buf may be written back */
    uint64_t touched; /* bit u: a record wrote into [u, u + 1) x WINDOW_UNIT */
    uint64_t loaded;  /* bit u: unit u holds the file's bytes (or a record's over all of it) */
    uint8_t *buf;     /* WINDOW_BYTES */
    size_t unsent;    /* bytes written back since the disk was last asked to take them */
};

/* Bytes [at, at + len) of the window (len > 0) were written by a record. */
static void window_touch(struct window *w, size_t at, size_t len)
{
    for (size_t u = at / WINDOW_UNIT; u <= (at + len - 1) / WINDOW_UNIT; u++)
        w->touched |= 1ull << u;
    if (at + len > w->len) w->len = at + len;
}

static bool window_holds(const struct window *w, int fd, uint64_t off, uint64_t len)
{
    return w->fd >= 0 && w->fd == fd && off >= w->start && len <= WINDOW_BYTES &&
           off - w->start <= WINDOW_BYTES - len;
}

static int window_open(struct window *w, int fd, uint64_t off)
{
    if (!w->buf && !(w->buf = malloc(WINDOW_BYTES))) return -ENOMEM;
    w->fd = fd;
    w->start = off;
    w->len = 0;
    w->touched = w->loaded = 0;
    return 0;
}

/* Units [u, v) read from the file (past its end they read as zeros). */
static int window_read(struct window *w, size_t u, size_t v)
{
    size_t got = 0, want = (v - u) * WINDOW_UNIT;
    uint8_t *to = w->buf + u * WINDOW_UNIT;
    while (got < want) {
        ssize_t n = pread(w->fd, to + got, want - got, (off_t)(w->start + u * WINDOW_UNIT + got));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return -errno;
        if (n == 0) break; /* the end of the file: the rest reads as zeros */
        got += (size_t)n;
    }
    memset(to + got, 0, want - got);
    for (size_t k = u; k < v; k++)
        w->loaded |= 1ull << k;
    return 0;
}

/* The units bytes [at, at + len) of the window (len > 0) fall in, loaded
 * before a record is patched over them: read where the record leaves some
 * of a unit's bytes as they are (a run of such units in one read), taken as
 * they come where it covers it. */
static int window_fill(struct window *w, size_t at, size_t len)
{
    size_t last = (at + len - 1) / WINDOW_UNIT;
    for (size_t u = at / WINDOW_UNIT; u <= last; u++) {
        if (w->loaded >> u & 1) continue;
        if (at <= u * WINDOW_UNIT && at + len >= (u + 1) * WINDOW_UNIT) {
            w->loaded |= 1ull << u; /* every byte of it is the record's */
            continue;
        }
        size_t v = u + 1;
        while (v <= last && !(w->loaded >> v & 1))
            v++;
        int rc = window_read(w, u, v);
        if (rc) return rc;
        u = v - 1;
    }
    return 0;
}

static int window_flush(struct window *w, struct ig_fault *f)
{
    if (w->fd < 0) return 0;
    int rc = 0;
    /* each run of touched units, the last cut at len */
    for (size_t u = 0; !rc && u < WINDOW_BYTES / WINDOW_UNIT; u++) {
        if (!(w->touched >> u & 1)) continue;
        size_t v = u;
        while (v + 1 < WINDOW_BYTES / WINDOW_UNIT && (w->touched >> (v + 1) & 1))
            v++;
        size_t lo = u * WINDOW_UNIT, hi = (v + 1) * WINDOW_UNIT < w->len ? (v + 1) * WINDOW_UNIT : w->len;
        if (hi > lo) {
            rc = ig_pwrite_full(w->fd, w->buf + lo, hi - lo, w->start + lo);
            w->unsent += hi - lo;
        }
        u = v;
    }
    /* the written bytes sent to the disk now, while later windows are
     * patched: the fsync at the end waits for little more than the last of
     * them (an erase of 2 % of a million rows writes back 89 MB). Only a
     * hint: that fsync reports any failure to write. */
#ifdef SYNC_FILE_RANGE_WRITE
    if (!rc && w->unsent >= WINDOW_SEND_BYTES) {
        (void)sync_file_range(w->fd, 0, 0, SYNC_FILE_RANGE_WRITE);
        w->unsent = 0;
    }
#endif
    w->fd = -1;
    w->touched = 0;
    ig_fault_step(f);
    return rc;
}

/* The part files a journal's records write to, and the window over one of
 * them, while the journal is applied. */
struct apply {
    const char *dir;
    struct ig_fault *f;
    ig_journal_progress_fn progress; /* NULL: none */
    void *progress_ctx;
    uint64_t done, total;            /* record bytes applied, of all */
    int fds[64], nfds;
    bool shared[64];     /* fds[i] is on shared storage: no window */
    char names[64][256];
    struct window w;
};

/* A version 2 file record's name (of the records after it): a plain file
 * name in dir. True when malformed. */
static bool read_file_name(struct jreader *r, char name[256])
{
    uint8_t nl = 0;
    bool bad = jr_read(r, &nl, 1) || nl == 0 || jr_read(r, name, nl);
    name[bad ? 0 : nl] = '\0';
    return bad || strchr(name, '/') || name[0] == '.' || strlen(name) != nl;
}

/* Where a write or zero record of `kind` goes: *off and *len of file `name`
 * (version 1 names it in each record; version 2 in the file record before).
 * True when malformed. */
static bool read_target(struct jreader *r, int version, uint8_t kind, char name[256], uint64_t *off,
                        uint64_t *len)
{
    if (version == 2)
        return (kind != KIND_WRITE && kind != KIND_ZERO) || !name[0] || jr_varint(r, off) ||
               jr_varint(r, len) || *len > UINT32_MAX;
    uint8_t nlb[2], hdr[12];
    size_t nl = 0;
    bool bad = (kind != KIND_WRITE && kind != KIND_ZERO) || jr_read(r, nlb, 2) ||
               (nl = ig_ld16(nlb)) == 0 || nl > 255 || jr_read(r, name, nl) || jr_read(r, hdr, 12);
    name[bad ? 0 : nl] = '\0';
    if (bad) return true;
    *off = ig_ld64(hdr);
    *len = ig_ld32(hdr + 8);
    return strchr(name, '/') || name[0] == '.' || strlen(name) != nl;
}

/* A record's len bytes (its own, or zeros) at off of fd, longer than a window
 * or on shared storage: straight to the file, a piece at a time. *malformed
 * when the journal ends inside them. */
static int write_through(struct jreader *r, uint8_t kind, int fd, uint64_t off, uint32_t len,
                         struct ig_fault *f, bool *malformed)
{
    static const uint8_t zeros[65536];
    uint8_t *piece = kind == KIND_WRITE ? malloc(sizeof zeros) : NULL;
    int rc = kind == KIND_WRITE && !piece ? -ENOMEM : 0;
    for (uint64_t done = 0; !rc && done < len;) {
        size_t n = len - done < sizeof zeros ? (size_t)(len - done) : sizeof zeros;
        if (kind == KIND_WRITE && jr_read(r, piece, n)) {
            *malformed = true;
            break;
        }
        rc = ig_pwrite_full(fd, kind == KIND_WRITE ? piece : zeros, n, off + done);
        done += n;
    }
    free(piece);
    ig_fault_step(f);
    return rc;
}

/* One write or zero record: len bytes at off of file `name`, patched into
 * the window when they fall inside it, else into a new window (the old one
 * written back first), else straight to the file. */
static int apply_record(struct apply *ap, struct jreader *r, uint8_t kind, const char *name, uint64_t off,
                        uint32_t len, const char *final, struct ig_error *err)
{
    int opened = ap->nfds, fd = find_fd(ap->dir, name, ap->fds, ap->names, &ap->nfds);
    if (fd < 0) return ig_err(err, fd, "%s/%s: %s", ap->dir, name, strerror(-fd));
    if (ap->nfds > opened) ap->shared[opened] = ig_fd_is_shared(fd);
    struct window *w = &ap->w;
    bool malformed = false;
    bool held = window_holds(w, fd, off, len);
    int rc = held ? 0 : window_flush(w, ap->f);
    if (!rc && !held && len <= WINDOW_BYTES && !ap->shared[fd_slot(ap->fds, ap->nfds, fd)]) {
        rc = window_open(w, fd, off);
        held = rc == 0;
    }
    if (held) {
        /* in the window: patched in memory, written with its neighbours */
        size_t in = (size_t)(off - w->start);
        rc = len ? window_fill(w, in, len) : 0;
        if (!rc && kind == KIND_WRITE) malformed = jr_read(r, w->buf + in, len) != 0;
        else if (!rc) memset(w->buf + in, 0, len);
        if (!rc && len) window_touch(w, in, len);
    } else if (!rc) { /* longer than a window: straight to the file */
        rc = write_through(r, kind, fd, off, len, ap->f, &malformed);
    }
    if (malformed) return ig_err(err, -EIO, "%s: journal record malformed", final);
    if (rc) rc = ig_err(err, rc, "%s/%s: write: %s", ap->dir, name, strerror(-rc));
    return rc;
}

/* Every record of the journal r (of format version) applied; *generation
 * the highest generation record. */
static int apply_records(struct apply *ap, struct jreader *r, int version, const char *final,
                         uint64_t *generation, struct ig_error *err)
{
    char name[256] = ""; /* the records' file (version 2: set by file records) */
    for (;;) {
        uint8_t kind;
        if (jr_read(r, &kind, 1)) return ig_err(err, -EIO, "%s: journal record malformed", final);
        if (kind == KIND_END) return 0;
        if (kind == KIND_GENERATION) {
            uint8_t g[8];
            if (jr_read(r, g, 8)) return ig_err(err, -EIO, "%s: journal record malformed", final);
            if (ig_ld64(g) > *generation) *generation = ig_ld64(g);
            continue;
        }
        if (version == 2 && kind == KIND_FILE) {
            if (read_file_name(r, name)) return ig_err(err, -EIO, "%s: journal record malformed", final);
            continue;
        }
        uint64_t off = 0, len = 0;
        if (read_target(r, version, kind, name, &off, &len))
            return ig_err(err, -EIO, "%s: journal record malformed", final);
        int rc = apply_record(ap, r, kind, name, off, (uint32_t)len, final, err);
        if (rc) return rc;
        ap->done += len;
        if (ap->progress) ap->progress(ap->progress_ctx, ap->done, ap->total);
    }
}

/* ig_journal_walk's visitor: the records' bytes summed (the progress's whole). */
static int sum_record(void *ctx, const struct ig_journal_rec *r)
{
    *(uint64_t *)ctx += r->len;
    return 0;
}

/* With missing_ok, a journal that is not there (any more) is nothing to do:
 * -ENOENT is returned without a message. *unread says a failure came before
 * anything was written: the journal itself could not be opened or checked. */
static int apply_journal(const char *dir, struct ig_fault *f, bool missing_ok, bool *unread,
                         ig_journal_progress_fn progress, void *progress_ctx, struct ig_error *err)
{
    char tmp[4200], final[4200], sub[4200];
    journal_paths(dir, tmp, final, sub, sizeof tmp);
    *unread = true;
    int jfd = ig_open(final, O_RDONLY | O_CLOEXEC, 0);
    if (jfd < 0 && missing_ok && (errno == ENOENT || errno == ESTALE)) return -ENOENT;
    if (jfd < 0) return ig_err(err, -errno, "%s: %s", final, strerror(errno));
    struct jreader *r = malloc(sizeof *r);
    if (!r) {
        close(jfd);
        return ig_err(err, -ENOMEM, "out of memory");
    }
    *r = (struct jreader){.fd = jfd, .pos = 8};
    struct apply ap = {.dir = dir, .f = f, .progress = progress, .progress_ctx = progress_ctx, .w = {.fd = -1}};
    int version = 0;
    int rc = check_frame(jfd, final, &r->end, &version, err);
    *unread = rc != 0;
    uint64_t walked_generation = 0; /* (the walk's; the apply takes its own) */
    if (!rc && ap.progress) rc = ig_journal_walk(final, sum_record, &ap.total, &walked_generation, err);
    uint64_t generation = 0;
    if (!rc) rc = apply_records(&ap, r, version, final, &generation, err);
    if (!rc) {
        rc = window_flush(&ap.w, f);
        if (rc) rc = ig_err(err, rc, "%s: applying the journal: %s", dir, strerror(-rc));
    }
    free(ap.w.buf);
    free(r);
    close(jfd);
    for (int i = 0; i < ap.nfds; i++) {
        if (!rc && fsync(ap.fds[i])) rc = ig_err(err, -errno, "%s/%s: fsync: %s", dir, ap.names[i],
                                                 strerror(errno));
        ig_fault_step(f);
        close(ap.fds[i]);
    }
    if (rc) return rc;
    /* the parts are durable: now the table's generation says they changed */
    if (generation) {
        rc = raise_generation(dir, generation, err);
        ig_fault_step(f);
        if (rc) return rc;
    }
    if (unlink(final)) return ig_err(err, -errno, "%s: %s", final, strerror(errno));
    ig_fault_step(f);
    rc = ig_fsync_dir(sub);
    ig_fault_step(f);
    return rc ? ig_err(err, rc, "%s: fsync: %s", sub, strerror(-rc)) : 0;
}

int ig_journal_apply(const char *dir, struct ig_fault *f, struct ig_error *err)
{
    bool unread;
    return apply_journal(dir, f, false, &unread, NULL, NULL, err);
}

int ig_journal_apply_progress(const char *dir, struct ig_fault *f, ig_journal_progress_fn progress,
                              void *ctx, struct ig_error *err)
{
    bool unread;
    return apply_journal(dir, f, false, &unread, progress, ctx, err);
}

/* Is there a committed journal? On shared storage this host's client may still
 * know the name of a journal another host applied and removed a moment ago
 * (GlusterFS keeps names and attributes for a second, and its open-behind
 * answers an open from them): there the directory is listed instead, which
 * the client asks the server for each time. */
static bool journal_listed(const char *final, const char *sub)
{
    if (!ig_fs_is_shared(sub)) return access(final, F_OK) == 0;
    DIR *d = opendir(sub);
    if (!d) return access(final, F_OK) == 0;
    bool found = false;
    for (struct dirent *e; !found && (e = readdir(d));)
        found = !strcmp(e->d_name, "journal");
    closedir(d);
    return found;
}

bool ig_journal_pending(const char *dir)
{
    if (ig_store_is_remote(dir)) return ig_remote_journal_pending(dir);
    char tmp[4200], final[4200], sub[4200];
    journal_paths(dir, tmp, final, sub, sizeof tmp);
    return journal_listed(final, sub);
}

int ig_journal_recover(const char *dir, bool *replayed, struct ig_error *err)
{
    char tmp[4200], final[4200], sub[4200];
    journal_paths(dir, tmp, final, sub, sizeof tmp);
    *replayed = false;
    unlink(tmp); /* never committed: the change never started */
    /* On shared storage a journal that cannot be opened or read, or fails its
     * hash, may be this host's stale view of one another host applied and
     * removed before we got the lock (ESTALE from a remembered name, the old
     * size from cached attributes), not damage. Nothing was written then:
     * look again once the client's caches have lapsed. A journal that is
     * still there and still unreadable after that is reported. */
    static const unsigned pause_ms[] = {50, 200, 500, 1000, 1500};
    bool shared = ig_fs_is_shared(sub);
    for (size_t attempt = 0;; attempt++) {
        if (!journal_listed(final, sub)) return 0;
        bool unread;
        int rc = apply_journal(dir, NULL, true, &unread, NULL, NULL, err);
        if (rc == -ENOENT) return 0;
        if (!rc) break;
        if (!shared || !unread || attempt == sizeof pause_ms / sizeof pause_ms[0])
            return ig_err_prefix(err, rc, "%s: replaying an interrupted erase", dir);
        struct timespec ts = {pause_ms[attempt] / 1000, (long)(pause_ms[attempt] % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
    *replayed = true;
    return 0;
}

/* Skip n bytes of the journal (a write's bytes, when only walking). */
static int jr_skip(struct jreader *r, uint64_t n)
{
    uint64_t in_buf = r->have - r->at;
    if (n <= in_buf) {
        r->at += (size_t)n;
        return 0;
    }
    n -= in_buf;
    if (n > r->end - r->pos) return -EIO;
    r->pos += n;
    r->at = r->have = 0;
    return 0;
}

int ig_journal_walk(const char *path, ig_journal_visit_fn fn, void *ctx, uint64_t *generation,
                    struct ig_error *err)
{
    int jfd = ig_open(path, O_RDONLY | O_CLOEXEC, 0);
    if (jfd < 0) return ig_err(err, -errno, "%s: %s", path, strerror(errno));
    struct jreader *r = malloc(sizeof *r);
    if (!r) {
        close(jfd);
        return ig_err(err, -ENOMEM, "out of memory");
    }
    *r = (struct jreader){.fd = jfd, .pos = 8};
    int version = 0;
    *generation = 0;
    int rc = check_frame(jfd, path, &r->end, &version, err);
    char name[256] = "";
    while (!rc) {
        uint8_t kind;
        if (jr_read(r, &kind, 1)) {
            rc = ig_err(err, -EIO, "%s: journal record malformed", path);
            break;
        }
        if (kind == KIND_END) break;
        if (kind == KIND_GENERATION) {
            uint8_t g[8];
            if (jr_read(r, g, 8)) rc = ig_err(err, -EIO, "%s: journal record malformed", path);
            else if (ig_ld64(g) > *generation) *generation = ig_ld64(g);
            continue;
        }
        if (version == 2 && kind == KIND_FILE) {
            if (read_file_name(r, name)) rc = ig_err(err, -EIO, "%s: journal record malformed", path);
            continue;
        }
        uint64_t off = 0, len = 0;
        if (read_target(r, version, kind, name, &off, &len) || off > UINT64_MAX - len) {
            rc = ig_err(err, -EIO, "%s: journal record malformed", path);
            break;
        }
        struct ig_journal_rec rec = {kind == KIND_ZERO, name, off, len, r->pos - (r->have - r->at)};
        if (kind == KIND_WRITE && jr_skip(r, len)) {
            rc = ig_err(err, -EIO, "%s: journal record malformed", path);
            break;
        }
        rc = fn(ctx, &rec);
    }
    free(r);
    close(jfd);
    return rc;
}
