/* append_release.c - an append's rows released, before its commit, in the
 * column records only older versions show and that cannot be NULL
 * (append.h, ig_append_release). */
#include "format/part/append.h"
#include "format/part/release.h"
#include "util/error.h"
#include "util/io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int zero_fill(int fd, const char *path, uint64_t off, uint64_t len, struct ig_error *err)
{
    static const uint8_t zeros[64 << 10];
    while (len) {
        size_t k = len < sizeof zeros ? (size_t)len : sizeof zeros;
        if (ig_pwrite_full(fd, zeros, k, off))
            return ig_err(err, -errno, "%s: write: %s", path, strerror(errno));
        off += k;
        len -= k;
    }
    return 0;
}

/* Leaf `leaf` of p, every chunk: its pages and context zeroed in the file
 * (fd) and released in nf, the footer's image. */
static int release_leaf(const struct ig_part *p, int fd, uint32_t leaf, uint8_t *nf, struct ig_error *err)
{
    uint64_t pages = 0, bytes = 0;
    int rc = 0;
    for (uint32_t g = 0; !rc && g < p->num_groups; g++) {
        uint32_t first = 0, count = 0;
        struct ig_ctxrec cr;
        rc = ig_part_chunk(p, g, leaf, &first, &count, err);
        if (!rc) rc = ig_part_chunk_ctx(p, g, leaf, &cr, err);
        if (!rc && cr.size) rc = zero_fill(fd, p->path, cr.offset, cr.size, err);
        for (uint32_t pg = first; !rc && pg < first + count; pg++) {
            struct ig_pagerec rec;
            rc = ig_part_page(p, pg, &rec, err);
            if (!rc) rc = zero_fill(fd, p->path, rec.offset, rec.capacity, err);
        }
        if (!rc) rc = ig_release_chunk(p, nf, g, leaf, &pages, &bytes, err);
    }
    return rc;
}

/* The part file at path: the leaves of the records `release` marks. */
static int release_part(const char *path, const uint8_t *release, uint32_t ncols, struct ig_error *err)
{
    struct ig_part p;
    int rc = ig_part_open(&p, path, false, err);
    if (rc) return rc;
    uint8_t *nf = NULL;
    int fd = -1;
    for (uint32_t leaf = 0; !rc && leaf < p.num_leaves; leaf++) {
        uint32_t col;
        rc = ig_part_leaf_column(&p, leaf, &col, err);
        if (rc || col >= ncols || !release[col]) continue;
        if (!nf) {
            nf = malloc(p.footer_size);
            fd = nf ? open(path, O_WRONLY | O_CLOEXEC) : -1;
            if (!nf) rc = ig_err(err, -ENOMEM, "out of memory");
            else if (fd < 0) rc = ig_err(err, -errno, "%s: %s", path, strerror(errno));
            else memcpy(nf, p.footer, p.footer_size);
        }
        if (!rc) rc = release_leaf(&p, fd, leaf, nf, err);
    }
    if (!rc && nf) {
        uint8_t tail[IG_TAIL_SIZE];
        ig_release_seal(&p, nf, tail);
        if (ig_pwrite_full(fd, nf, p.footer_size, p.footer_offset) ||
            ig_pwrite_full(fd, tail, sizeof tail, p.footer_offset + p.footer_size) || fsync(fd))
            rc = ig_err(err, -errno, "%s: write: %s", path, strerror(errno));
    }
    if (fd >= 0) close(fd);
    free(nf);
    ig_part_close(&p);
    return rc;
}

int ig_append_release(struct ig_append *a, const uint8_t *release, uint32_t ncols, struct ig_error *err)
{
    int rc = release_part(a->part_tmp, release, ncols, err);
    for (uint32_t i = 0; !rc && i < a->nmore; i++) rc = release_part(a->more[i].tmp, release, ncols, err);
    return rc;
}
