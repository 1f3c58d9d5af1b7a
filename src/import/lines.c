#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* strdup (meson passes it too) */
#endif
#include "lines.h"
#include "../util/error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- ig_inbuf ------------------------------------------------------------ */

int ig_inbuf_init(struct ig_inbuf *b, int fd, const char *path)
{
    memset(b, 0, sizeof *b);
    b->path = strdup(path ? path : "<input>");
    if (!b->path) return -ENOMEM;
    b->fd = fd;
    b->init_cap = IG_INPUT_BUFSIZE;
    b->max_record = IG_INPUT_MAX_RECORD;
    b->line = 1;
    b->unit = "line";
    b->at_start = true;
    /* Remember where we started so rewind does not assume offset 0 (the
     * caller may have consumed a prefix itself). Pipes give -1. */
    b->start_off = lseek(fd, 0, SEEK_CUR);
    return 0;
}

void ig_inbuf_free(struct ig_inbuf *b)
{
    if (!b->borrowed) free(b->buf);
    free(b->path);
    b->buf = NULL;
    b->path = NULL;
}

int ig_inbuf_fill(struct ig_inbuf *b, struct ig_error *err)
{
    if (b->eof) return 0;
    if (!b->buf) {
        b->buf = malloc(b->init_cap);
        if (!b->buf) return ig_err(err, -ENOMEM, "%s: out of memory for the read buffer", b->path);
        b->cap = b->init_cap;
    }
    if (b->len == b->cap) {
        if (b->pos > 0) {
            memmove(b->buf, b->buf + b->pos, b->len - b->pos);
            b->len -= b->pos;
            b->pos = 0;
            b->discarded = true;
        }
        /* Grow when the pending record fills more than half the buffer:
         * compacting alone would leave little new room and the consumer
         * would re-parse the record for a few bytes of progress. */
        if (b->len > b->cap / 2) {
            if (b->cap >= b->max_record)
                return ig_err(err, -EINVAL, "%s:%llu: %s longer than %zu bytes", b->path,
                              (unsigned long long)b->line, b->unit, b->max_record);
            size_t ncap = b->cap > b->max_record / 2 ? b->max_record : b->cap * 2;
            char *nb = realloc(b->buf, ncap);
            if (!nb)
                return ig_err(err, -ENOMEM, "%s:%llu: out of memory for a %zu-byte record",
                              b->path, (unsigned long long)b->line, ncap);
            b->buf = nb;
            b->cap = ncap;
        }
    }
    /* Read until the buffer is full (or EOF) rather than once: pipes deliver
     * 64 KiB or less per read, and every refill may re-parse the pending
     * record, so small refills would make long records quadratic. */
    size_t added = 0;
    while (b->len < b->cap) {
        ssize_t r = read(b->fd, b->buf + b->len, b->cap - b->len);
        if (r < 0) {
            if (errno == EINTR) continue;
            int e = errno;
            return ig_err(err, -e, "%s:%llu: read failed: %s", b->path,
                          (unsigned long long)b->line, strerror(e));
        }
        if (r == 0) {
            b->eof = true;
            break;
        }
        b->len += (size_t)r;
        added += (size_t)r;
    }
    return added > 0;
}

int ig_inbuf_start(struct ig_inbuf *b, struct ig_error *err)
{
    if (!b->at_start) return 0;
    while (b->len - b->pos < 3 && !b->eof) {
        int rc = ig_inbuf_fill(b, err);
        if (rc < 0) return rc;
    }
    if (b->len - b->pos >= 3 && memcmp(b->buf + b->pos, "\xEF\xBB\xBF", 3) == 0) b->pos += 3;
    b->at_start = false;
    return 0;
}

void ig_inbuf_borrow(struct ig_inbuf *b, const char *p, size_t len, uint64_t line)
{
    if (!b->borrowed) free(b->buf);
    b->buf = (char *)p; /* only read: borrowed buffers are never filled */
    b->cap = b->len = len;
    b->pos = 0;
    b->line = line;
    b->eof = b->borrowed = true;
    b->at_start = false;
}

int ig_inbuf_rewind(struct ig_inbuf *b)
{
    if (b->borrowed) return -ESPIPE; /* a borrowed input is parsed once */
    if (b->discarded) {
        if (b->start_off < 0) return -ESPIPE;
        if (lseek(b->fd, b->start_off, SEEK_SET) < 0) return -errno;
        b->len = 0;
        b->eof = false;
        b->discarded = false;
    }
    /* Otherwise buf[0..len) still is the stream from its start: re-parse it. */
    b->pos = 0;
    b->line = 1;
    b->at_start = true;
    return 0;
}

/* ---- ig_lines_reader ----------------------------------------------------- */

struct ig_lines_reader {
    struct ig_inbuf in;
    size_t scanned; /* bytes after in.pos known to hold no '\n' */
};

int ig_lines_open(struct ig_lines_reader **r, int fd, const char *path)
{
    struct ig_lines_reader *lr = calloc(1, sizeof *lr);
    if (!lr) return -ENOMEM;
    int rc = ig_inbuf_init(&lr->in, fd, path);
    if (rc) {
        free(lr);
        return rc;
    }
    *r = lr;
    return 0;
}

void ig_lines_set_limits(struct ig_lines_reader *r, size_t bufsize, size_t max_line)
{
    if (bufsize) r->in.init_cap = bufsize;
    if (max_line) r->in.max_record = max_line;
    if (r->in.max_record < r->in.init_cap) r->in.max_record = r->in.init_cap;
    if (r->in.max_record < 4) r->in.max_record = 4; /* room to look for a BOM */
}

int ig_lines_next(struct ig_lines_reader *r, const char **line, size_t *len, uint64_t *lineno,
                  struct ig_error *err)
{
    struct ig_inbuf *in = &r->in;
    int rc = ig_inbuf_start(in, err);
    if (rc < 0) return rc;
    for (;;) {
        char *s = in->buf + in->pos;
        size_t avail = in->len - in->pos;
        char *nl = avail > r->scanned ? memchr(s + r->scanned, '\n', avail - r->scanned) : NULL;
        if (nl) {
            size_t l = (size_t)(nl - s);
            in->pos += l + 1;
            if (l && s[l - 1] == '\r') l--;
            *line = s;
            *len = l;
            *lineno = in->line++;
            r->scanned = 0;
            return 1;
        }
        r->scanned = avail;
        if (in->eof) {
            if (avail == 0) return 0;
            /* Last line without a terminator. */
            in->pos = in->len;
            *line = s;
            *len = avail;
            *lineno = in->line++;
            r->scanned = 0;
            return 1;
        }
        rc = ig_inbuf_fill(in, err);
        if (rc < 0) return rc;
    }
}

int ig_lines_rewind(struct ig_lines_reader *r)
{
    r->scanned = 0;
    return ig_inbuf_rewind(&r->in);
}

void ig_lines_close(struct ig_lines_reader *r)
{
    if (!r) return;
    ig_inbuf_free(&r->in);
    free(r);
}
