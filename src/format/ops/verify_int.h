/* verify_int.h - what verify's sources share (not a public interface). */
#ifndef IG_FORMAT_VERIFY_INT_H
#define IG_FORMAT_VERIFY_INT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/model/values.h"
#include "format/ops/reader.h"
#include "format/part/table.h"
#include "util/buf.h"

struct ig_error;

/* Every object and version under a remote table's prefix (verify_remote.c):
 * each that may hold a value no erase reached is reported through fail.
 * *objects: current objects listed, *versions: older versions. */
int ig_verify_objects(const char *dir, const struct ig_table *t,
                      void (*fail)(void *ctx, const char *msg), void *ctx, uint64_t *objects,
                      uint64_t *versions, struct ig_error *err);

/* A blob reference met in a page: checked per blob file once all are met. */
struct objref {
    uint64_t offset, size, hash, row;
    uint32_t col, k;
};

/* One verification's state: the report, the reader and buffers of one thread. */
struct vctx {
    struct objref *objs;
    size_t nobjs, objs_cap;
    const struct ig_verify_hooks *h;
    struct ig_verify_report *rep;
    uint64_t bytes_total, bytes_done;
    struct ig_reader r;
    struct ig_values v;
    struct ig_buf text;
    bool deep;
    /* a helper thread's share of the pages (check_chunks): its failures are
     * kept per row group and reported in group order once all are done, and
     * the bytes it checked count towards one shared progress */
    struct ig_buf *group_msgs;
    uint32_t group;
    atomic_uint_fast64_t *done;
    bool quiet; /* only one thread reports progress */
    /* by part: the column records some kept version that lists the part
     * shows (NULL: unknown, a version's file unreadable; kept_every: one
     * shows every record) */
    const struct ig_idset *kept;
    const bool *kept_every;
    /* the chunk being checked has a context that failed its checks: its
     * blocks that need it cannot be checked for erased rows (said once) */
    bool ctx_failed;
    /* a page or block of the chunk being checked could not be read or
     * decoded: what is recounted over its blocks (symbol uses, dictionary
     * entries' uses, dictionary segments found) is incomplete, not compared
     * (the failure that stopped it is the one reported) */
    bool chunk_partial;
    /* per page of the part being checked: 1 where the page's own check
     * already reported it unreadable (its records, checksums or decoding),
     * so that the checks that read it again (a nested column's text) do not
     * report the same damage twice. Each page is checked by one thread. */
    uint8_t *unreadable;
    /* --deep, a flat chunk with a zstd dictionary (format 13): the segments
     * its live values are searched for (codec.h, ig_zdict_find), NULL otherwise */
    struct ig_zdict_find *zl;
    uint64_t *vuses; /* a chunk's value dictionary's entries' uses, recounted over its blocks */
};

/* A failure: reported now, or by a helper thread kept for its row group. */
__attribute__((format(printf, 2, 3))) void ig_verify_fail(struct vctx *x, const char *fmt, ...);
/* A blob reference kept for the blob files' pass; -ENOMEM (dropped: fewer
 * objects checked) when it does not fit. */
int ig_verify_add_obj(struct vctx *x, const struct objref *o);

/* The chunks of row group g of part pi of t (verify_chunk.c): every leaf's
 * pages in order. */
void ig_verify_group_chunks(struct vctx *x, const struct ig_table *t, uint32_t pi, uint32_t g);

#endif
