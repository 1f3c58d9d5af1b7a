/* gc_remote.h - gc's last step on object storage (gc.h): objects deleted.
 *
 * Besides the pages of columns no version kept shows (released as on disk,
 * gc.c), the versions gc lets go leave objects. Once their version files are
 * gone and those pages zeroed (gc.c), the sweep
 * lists every object and every object version under the prefix and deletes:
 *   - a part or blob object that no version kept names (one that only
 *     released versions named, or one a killed import uploaded and never
 *     published), every version of it;
 *   - the older versions of the table's own small objects (MANIFEST,
 *     .ingot/tags, .ingot/versions/N) that a bucket keeping versions holds:
 *     each names parts, and an older MANIFEST is a released version by
 *     another name.
 *   - the multipart uploads under the prefix that were started and never
 *     completed (by an import or an erase killed mid-upload): aborted, as
 *     their parts are stored until then and may hold copies of rows erased
 *     since, which no listing of objects shows.
 *   - the delete markers of writers' lock entries that no version stands
 *     behind (a bucket keeping versions adds one for each entry removed).
 * It leaves the writers' lock entries themselves, the audit log (.ingot/erasures and
 * its versions: it names what was erased, never a value) and an erase's
 * journal (completed before gc starts) alone. Each deletion is one request
 * and idempotent: a gc killed at any point leaves the versions kept readable,
 * and running it again deletes what is left. */
#ifndef IG_FORMAT_OPS_GC_REMOTE_H
#define IG_FORMAT_OPS_GC_REMOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/part/manifest.h"

struct ig_error;
struct ig_fault;
struct ig_writer_hold;

struct ig_gc_sweep {
    uint64_t objects;  /* part and blob objects deleted (every version of each) */
    uint64_t versions; /* object versions deleted, those included */
    uint64_t bytes;    /* their bytes */
    uint64_t uploads;  /* incomplete multipart uploads aborted */
};

/* names: the part and blob objects the versions kept name (n of them, any
 * order; the array is sorted here). dry_run: count, delete nothing (hold
 * NULL). Otherwise the caller holds the writers' lock (hold), renewed here as
 * the deletions go on: one that lapsed stops the sweep (-ESTALE). */
int ig_gc_remote_sweep(const char *dir, char (*names)[IG_PART_NAME_MAX], size_t n, bool dry_run,
                       struct ig_writer_hold *hold, struct ig_fault *f, struct ig_gc_sweep *out,
                       struct ig_error *err);

#endif
