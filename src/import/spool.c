/* spool.c - standard input and compressed inputs copied into an unnamed
 * temporary file (spool.h). */
#include "spool.h"
#include "parquet/pq_codecs.h"
#include "util/error.h"
#include "util/io.h"
#include "store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#define CHUNK (1u << 20)
/* Output a head is decompressed in between counts of its lines: it stops
 * near the lines it needs, not a MiB past them. */
#define HEAD_STEP (64u << 10)

enum codec { PLAIN, GZIP, ZSTD };

bool ig_name_ends_with(const char *name, const char *suffix)
{
    size_t n = strlen(name), m = strlen(suffix);
    return n > m && strcasecmp(name + n - m, suffix) == 0;
}

void ig_spool_plain_name(const char *path, char *out, size_t cap)
{
    size_t n = strlen(path);
    if (ig_name_ends_with(path, ".gz"))
        n -= 3;
    else if (ig_name_ends_with(path, ".zst"))
        n -= 4;
    else if (ig_name_ends_with(path, ".zstd"))
        n -= 5;
    snprintf(out, cap, "%.*s", (int)n, path);
}

static enum codec codec_of(const uint8_t *head, size_t n)
{
    if (n >= 2 && head[0] == 0x1f && head[1] == 0x8b) return GZIP;
    if (n >= 4 && !memcmp(head, "\x28\xb5\x2f\xfd", 4)) return ZSTD;
    return PLAIN;
}

/* An unnamed file under $TMPDIR (else /var/tmp); where the file system has no
 * O_TMPFILE, a named one removed at once. */
int ig_spool_temp_file(char *dir, size_t cap, struct ig_error *err)
{
    const char *t = getenv("TMPDIR");
    snprintf(dir, cap, "%s", t && *t ? t : "/var/tmp");
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0) return fd;
    char path[4200];
    snprintf(path, sizeof path, "%s/.ingot-input-XXXXXX", dir);
    fd = mkostemp(path, O_CLOEXEC);
    if (fd < 0) return ig_err(err, -errno, "%s: cannot make a temporary file for the input: %s", dir, strerror(errno));
    unlink(path);
    return fd;
}

/* The input read a chunk at a time, the first bytes (read to tell the codec)
 * handed out first. */
struct source {
    int fd;
    struct ig_obj *obj; /* an object on object storage, read from `at` (fd -1) */
    uint64_t at;
    const char *name;
    const struct ig_spool_opts *o; /* o->cancel: a signal stops a read that waits (no SA_RESTART) */
    uint64_t size;                 /* the input's, 0 on a pipe (the progress's total) */
    uint8_t *buf;
    size_t len;     /* bytes in buf */
    uint64_t taken; /* bytes of the input handed out before buf */
    bool eof;
};

static int cancelled(const volatile sig_atomic_t *cancel, const char *name, struct ig_error *err)
{
    return cancel && *cancel ? ig_err(err, -EINTR, "%s: interrupted; nothing was written", name) : 0;
}

/* Read into buf[len, want): what one read gives (a pipe gives what it has). */
static int read_some(struct source *s, size_t want, struct ig_error *err)
{
    for (;;) {
        int rc = cancelled(s->o->cancel, s->name, err);
        if (rc) return rc;
        if (s->obj) { /* range GETs, the store reading ahead of them */
            size_t n = want - s->len;
            if (n > s->size - s->at) n = (size_t)(s->size - s->at);
            if (n && (rc = ig_obj_read(s->obj, s->buf + s->len, n, s->at, err))) return rc;
            s->at += n;
            s->len += n;
            s->eof = n == 0;
            return 0;
        }
        ssize_t n = read(s->fd, s->buf + s->len, want - s->len);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return ig_err(err, -errno, "%s: read: %s", s->name, strerror(errno));
        s->eof = n == 0;
        s->len += (size_t)n;
        return 0;
    }
}

/* The next chunk of the input into buf (len 0: its end). */
static int fill(struct source *s, struct ig_error *err)
{
    s->taken += s->len;
    s->len = 0;
    if (s->o->progress) s->o->progress(s->o->progress_ctx, s->taken, s->size, 0);
    return s->eof ? 0 : read_some(s, CHUNK, err);
}

struct sink {
    int fd;
    const char *dir;
    uint64_t written;
    uint64_t head_lines; /* 0: copy everything */
    uint64_t lines;      /* newlines written */
    uint64_t line_end;   /* bytes written up to the last newline */
    bool full;           /* head_lines lines written: the copy stops */
};

static int put(struct sink *k, const void *data, size_t n, struct ig_error *err)
{
    int rc = ig_write_full(k->fd, data, n);
    if (rc && !k->dir) return rc == -EPIPE ? rc : ig_err(err, rc, "writing into the import: %s", strerror(-rc));
    if (rc) return ig_err(err, rc, "%s: writing the input's temporary copy: %s", k->dir, strerror(-rc));
    for (const char *p = data, *e = p + n; k->head_lines && p < e;) {
        const char *nl = memchr(p, '\n', (size_t)(e - p));
        if (!nl) break;
        k->line_end = k->written + (uint64_t)(nl + 1 - (const char *)data);
        p = nl + 1;
        k->full |= ++k->lines >= k->head_lines;
    }
    k->written += n;
    return 0;
}

static int copy_plain(struct source *s, struct sink *k, struct ig_error *err)
{
    int rc = 0;
    while (!rc && s->len && !k->full) {
        rc = put(k, s->buf, s->len, err);
        if (!rc) rc = fill(s, err);
    }
    return rc;
}

static int copy_gzip(struct source *s, struct sink *k, uint8_t *out, struct ig_error *err)
{
    const char *name = s->name;
    char why[400] = "";
    const struct pq_zlib *z = pq_zlib(why, sizeof why);
    if (!z) return ig_err(err, -ENOSYS, "%s: %s", name, why);
    z_stream st;
    memset(&st, 0, sizeof st);
    /* 15 + 16: gzip's header and trailer (its CRC checked) */
    if (z->inflate_init2(&st, 15 + 16, ZLIB_VERSION, (int)sizeof st) != Z_OK)
        return ig_err(err, -ENOMEM, "%s: cannot start gzip", name);
    int rc = 0;
    bool in_member = true; /* inside a gzip member, whose end is still to come */
    size_t at = 0;         /* bytes of buf consumed */
    while (!rc && !k->full) {
        if (at == s->len) {
            if ((rc = fill(s, err))) break;
            at = 0;
            if (!s->len) break; /* the input's end */
        }
        if (!in_member) { /* another member follows (cat a.gz b.gz), or data that is not gzip */
            if (s->buf[at] != 0x1f) {
                rc = ig_err(err, -EINVAL, "%s: byte %" PRIu64 ": not gzip after the end of a gzip member", name,
                            s->taken + at);
                break;
            }
            z->inflate_reset(&st);
            in_member = true;
        }
        st.next_in = s->buf + at;
        st.avail_in = (uInt)(s->len - at);
        uInt step = k->head_lines ? HEAD_STEP : CHUNK;
        st.next_out = out;
        st.avail_out = step;
        size_t was = at;
        int zr = z->inflate(&st, Z_NO_FLUSH);
        at = s->len - st.avail_in;
        if (zr == Z_BUF_ERROR && at == was && st.avail_out == step && at < s->len) /* no way on */
            zr = Z_DATA_ERROR;
        if (zr == Z_STREAM_END)
            in_member = false;
        else if (zr != Z_OK && zr != Z_BUF_ERROR) {
            rc = ig_err(err, -EINVAL, "%s: damaged gzip data near byte %" PRIu64 " (%s)", name, s->taken + at,
                        st.msg ? st.msg : "inflate failed");
            break;
        }
        rc = put(k, out, step - st.avail_out, err);
    }
    if (!rc && in_member && !k->full)
        rc = ig_err(err, -EINVAL, "%s: the gzip data ends early, at byte %" PRIu64 " (a truncated file?)", name,
                    s->taken);
    z->inflate_end(&st);
    return rc;
}

static int copy_zstd(struct source *s, struct sink *k, uint8_t *out, struct ig_error *err)
{
    const char *name = s->name;
    ZSTD_DCtx *d = ZSTD_createDCtx();
    if (!d) return ig_err(err, -ENOMEM, "out of memory");
    int rc = 0;
    size_t left = 0; /* nonzero: inside a frame */
    ZSTD_inBuffer in = {s->buf, s->len, 0};
    while (!rc && !k->full) {
        if (in.pos == in.size) {
            if ((rc = fill(s, err))) break;
            in = (ZSTD_inBuffer){s->buf, s->len, 0};
            if (!s->len) break;
        }
        ZSTD_outBuffer o = {out, k->head_lines ? HEAD_STEP : CHUNK, 0};
        left = ZSTD_decompressStream(d, &o, &in);
        if (ZSTD_isError(left)) {
            rc = ig_err(err, -EINVAL, "%s: damaged zstd data near byte %" PRIu64 " (%s)", name, s->taken + in.pos,
                        ZSTD_getErrorName(left));
            break;
        }
        rc = put(k, out, o.pos, err);
    }
    if (!rc && left && !k->full)
        rc = ig_err(err, -EINVAL, "%s: the zstd data ends early, at byte %" PRIu64 " (a truncated file?)", name,
                    s->taken);
    ZSTD_freeDCtx(d);
    return rc;
}

/* The object's last n bytes (n < its size) at their offsets in the copy, the
 * rest a hole: what reading its end needs, at the disk cost of those bytes. */
static int copy_tail(struct source *s, struct sink *k, uint64_t n, struct ig_error *err)
{
    if (ftruncate(k->fd, (off_t)s->size) < 0)
        return ig_err(err, -errno, "%s: writing the input's temporary copy: %s", k->dir, strerror(errno));
    for (uint64_t at = s->size - n; at < s->size;) {
        size_t want = s->size - at < CHUNK ? (size_t)(s->size - at) : CHUNK;
        int rc = cancelled(s->o->cancel, s->name, err);
        if (!rc) rc = ig_obj_read(s->obj, s->buf, want, at, err);
        if (rc) return rc;
        if ((rc = ig_pwrite_full(k->fd, s->buf, want, at)))
            return ig_err(err, rc, "%s: writing the input's temporary copy: %s", k->dir, strerror(-rc));
        at += want;
    }
    return 0;
}

/* An object on object storage (s3://BUCKET/KEY) opened for reading. */
static int open_object(struct source *s, const char *path, struct ig_error *err)
{
    char location[4096];
    const char *name;
    if (ig_store_split(path, location, sizeof location, &name))
        return ig_err(err, -EINVAL, "%s: not an object's path (s3://BUCKET/KEY)", path);
    struct ig_store *st;
    struct ig_error sub = {0};
    int rc = ig_store_at(location, &st, &sub);
    if (!rc) rc = ig_obj_open(st, name, NULL, &s->obj, &sub);
    if (rc && strstr(sub.msg, path)) return ig_err(err, rc, "%s", sub.msg); /* it names the object */
    if (rc) return ig_err(err, rc, "%s: %s", path, sub.msg);
    s->size = ig_obj_size(s->obj);
    return 0;
}

/* path's bytes (decompressed unless o->raw) into `into` (>= 0: a pipe, fed
 * whatever the input is; *written its bytes), else into a temporary file
 * made here where the input is not a plain file to read where it lies (*fd,
 * -1 when it is). */
static int spool(const char *path, const struct ig_spool_opts *o, int into, int *fd, uint64_t *written,
                 struct ig_error *err)
{
    *fd = -1;
    bool stdin_ = !strcmp(path, "-"), remote = ig_store_is_remote(path);
    const char *name = stdin_ ? "standard input" : path;
    struct source s = {.fd = -1, .name = name, .o = o};
    int rc = remote ? open_object(&s, path, err) : 0;
    if (rc) return rc;
    bool regular = false; /* else a pipe (<(zcat x.gz), /dev/stdin): read once, so copied */
    if (!remote) {
        s.fd = stdin_ ? STDIN_FILENO : ig_open(path, O_RDONLY | O_CLOEXEC, 0);
        if (s.fd < 0) return ig_err(err, -errno, "%s: %s", path, strerror(errno));
        struct stat st;
        regular = fstat(s.fd, &st) == 0 && S_ISREG(st.st_mode);
        if (regular) s.size = (uint64_t)st.st_size;
    }
    uint8_t *out = NULL;
    struct sink k = {.fd = -1};
    char dir[4096];
    if (!(s.buf = malloc(CHUNK)) || !(out = malloc(CHUNK))) rc = ig_err(err, -ENOMEM, "out of memory");
    /* the first bytes tell the codec; a plain file is read where it lies */
    while (!rc && s.len < 4 && !s.eof)
        rc = read_some(&s, 4, err);
    enum codec c = o->raw ? PLAIN : codec_of(s.buf, s.len);
    if (!rc && into >= 0) {
        k.fd = into;
        k.dir = NULL; /* a pipe to the import */
    } else if (!rc && (stdin_ || !regular || c != PLAIN)) {
        k.fd = ig_spool_temp_file(dir, sizeof dir, err);
        k.dir = dir;
        if (k.fd < 0) rc = k.fd;
    }
    /* a head is copied of what can be read again; a pipe is read once */
    k.head_lines = into < 0 && (remote || (regular && !stdin_)) ? o->head_lines : 0;
    bool tail = into < 0 && remote && c == PLAIN && o->tail_bytes && o->tail_bytes < s.size;
    if (!rc && k.fd >= 0)
        rc = tail        ? copy_tail(&s, &k, o->tail_bytes, err)
             : c == GZIP ? copy_gzip(&s, &k, out, err)
             : c == ZSTD ? copy_zstd(&s, &k, out, err)
                         : copy_plain(&s, &k, err);
    if (written) *written = k.written;
    if (into >= 0) k.fd = -1; /* the caller's */
    if (!rc && k.full && ftruncate(k.fd, (off_t)k.line_end) < 0)
        rc = ig_err(err, -errno, "%s: ftruncate: %s", dir, strerror(errno));
    if (o->cut) *o->cut = k.full || tail;
    if (!rc && k.fd >= 0 && lseek(k.fd, 0, SEEK_SET) < 0) rc = ig_err(err, -errno, "%s: lseek: %s", dir, strerror(errno));
    if (!rc) {
        *fd = k.fd;
        k.fd = -1;
    }
    if (k.fd >= 0) close(k.fd);
    if (s.fd >= 0 && !stdin_) close(s.fd);
    if (s.obj) ig_obj_close(s.obj);
    free(s.buf);
    free(out);
    return rc;
}

int ig_spool_input(const char *path, const struct ig_spool_opts *o, int *fd, struct ig_error *err)
{
    return spool(path, o, -1, fd, NULL, err);
}

/* ---- streams ---- */

bool ig_spool_streams(const char *path)
{
    if (ig_store_is_remote(path)) return true;
    if (!strcmp(path, "-")) return false;
    int fd = ig_open(path, O_RDONLY | O_CLOEXEC, 0);
    if (fd < 0) return false;
    struct stat st;
    uint8_t head[4];
    bool yes = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && pread(fd, head, sizeof head, 0) == (ssize_t)sizeof head &&
               codec_of(head, sizeof head) != PLAIN;
    close(fd);
    return yes;
}

struct ig_spool_stream {
    pthread_t thread;
    char *path;
    struct ig_spool_opts o;
    int wfd;                /* the pipe's write end, the thread's */
    _Atomic uint64_t done;  /* input bytes consumed */
    _Atomic uint64_t total; /* the input's size (0: unknown) */
    uint64_t written;       /* bytes through the pipe (once the thread ended) */
    int rc;
    struct ig_error err;
};

static void stream_progress(void *ctx, uint64_t done, uint64_t total, uint64_t rows)
{
    struct ig_spool_stream *st = ctx;
    (void)rows;
    atomic_store_explicit(&st->done, done, memory_order_relaxed);
    atomic_store_explicit(&st->total, total, memory_order_relaxed);
}

static void *stream_run(void *arg)
{
    struct ig_spool_stream *st = arg;
    /* a reader that stops early closes its end: writes then fail with EPIPE
     * instead of killing the process */
    sigset_t pipe_sig;
    sigemptyset(&pipe_sig);
    sigaddset(&pipe_sig, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_sig, NULL);
    int unused;
    st->rc = spool(st->path, &st->o, st->wfd, &unused, &st->written, &st->err);
    close(st->wfd); /* the reader's end of input */
    st->wfd = -1;
    return NULL;
}

int ig_spool_stream_open(const char *path, const struct ig_spool_opts *o, int *fd, struct ig_spool_stream **out,
                         struct ig_error *err)
{
    *fd = -1;
    *out = NULL;
    struct ig_spool_stream *st = calloc(1, sizeof *st);
    if (!st || !(st->path = strdup(path))) {
        free(st);
        return ig_err(err, -ENOMEM, "out of memory");
    }
    st->o = (struct ig_spool_opts){.cancel = o ? o->cancel : NULL, .progress = stream_progress, .progress_ctx = st};
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0) {
        int e = errno;
        free(st->path);
        free(st);
        return ig_err(err, -e, "%s: cannot make a pipe: %s", path, strerror(e));
    }
    fcntl(p[1], F_SETPIPE_SZ, (int)CHUNK); /* a MiB in flight: fewer switches (best effort) */
    st->wfd = p[1];
    int e = pthread_create(&st->thread, NULL, stream_run, st);
    if (e) {
        close(p[0]);
        close(p[1]);
        free(st->path);
        free(st);
        return ig_err(err, -e, "%s: cannot start a thread to read it: %s", path, strerror(e));
    }
    *fd = p[0];
    *out = st;
    return 0;
}

uint64_t ig_spool_stream_done(const struct ig_spool_stream *st, uint64_t *total)
{
    if (total) *total = atomic_load_explicit(&st->total, memory_order_relaxed);
    return atomic_load_explicit(&st->done, memory_order_relaxed);
}

int ig_spool_stream_close(struct ig_spool_stream *st, uint64_t *written, struct ig_error *err)
{
    if (!st) return 0;
    pthread_join(st->thread, NULL);
    int rc = st->rc == -EPIPE ? 0 : st->rc; /* the reader stopped first: its own error says why */
    if (rc) *err = st->err;
    if (written) *written = st->written;
    free(st->path);
    free(st);
    return rc;
}

bool ig_spool_read_once(const char *path)
{
    struct stat st;
    return !strcmp(path, "-") || (!ig_store_is_remote(path) && (stat(path, &st) || !S_ISREG(st.st_mode)));
}
