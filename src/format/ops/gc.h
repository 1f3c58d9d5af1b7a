/* gc.h - `ingot gc`: old versions let go, and the column records no version
 * kept shows any more released: their pages zeroed in place, the space given
 * back to the file system, their records in the footers emptied
 * (part/release.h).
 *
 * Which versions go: every one but the current version and the tagged ones,
 * as the request narrows it: --keep N keeps the newest N, --older-than D lets
 * only versions older than D go; with both, a version goes only if both let
 * it. A version's age is its `time` (one written before versions had times:
 * its file's, which is no older than the version).
 *
 * Under the table lock, after finishing what a crash left:
 *   1. the versions' files are removed (reading one then says gc removed it)
 *   2. the column records no version kept shows (the current one, the
 *      tagged ones and those the rules keep) are released in every part:
 *      each of their pages zero-filled, the blob objects they reference
 *      zero-filled, their records rewritten, the footers' hashes and tails
 *      taken again, all in one journal (journal.h): a crash completes it on
 *      the next open, and the journal holds only zeros and records, never a
 *      value
 *   3. the released extents' and objects' space is given back
 *      (fallocate PUNCH_HOLE) where the file system can
 * A crash after 1 leaves records no version shows, not yet released: the next
 * gc releases them. Step 3 runs over every released extent each time (a later
 * erase may write a hole's zeros back while rewriting a neighbouring page).
 *
 * On object storage (s3://) the same versions go, under the writers' lock
 * object (an interrupted erase or change of columns settled first); step 2's
 * journal is written as the object .ingot/journal and applied by replacing
 * each part and blob object it names (remote.h: the older versions of each
 * removed; a crash completes it at the next writer), and step 3 deletes
 * objects instead (gc_remote.h): the part and blob objects no version kept
 * names, and the older object versions of the table's own files.
 *
 * What it does not do: make a version (MANIFEST is not touched, and the
 * versions kept read as before), remove a column record (ids never change), or
 * release pages in a part older than format 10 (an older release's table a
 * column was dropped from since: counted in old_parts, left as it is). */
#ifndef IG_FORMAT_OPS_GC_H
#define IG_FORMAT_OPS_GC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ig_error;

struct ig_gc_request {
    bool keep_set;      /* --keep: */
    uint64_t keep;      /* the newest `keep` versions stay */
    bool age_set;       /* --older-than: */
    int64_t older_than; /* only versions older than this many seconds go */
    bool dry_run;       /* say what would go, change nothing */
    int64_t now;        /* seconds since 1970 (0: the clock) */
    /* while released pages and objects are zero-filled (the long part): the
     * bytes written so far of all of them, footers included (NULL: not told) */
    void (*progress)(void *ctx, uint64_t done, uint64_t total);
    void *progress_ctx;
};

struct ig_gc_report {
    uint64_t *removed, *kept; /* versions (malloc'd, ascending): removed (or, dry run,
                                 that would be) and kept */
    size_t nremoved, nkept;
    uint64_t current;
    uint32_t columns;                  /* top-level columns whose records were released */
    uint32_t records;                  /* their column records (struct fields included) */
    uint64_t pages, page_bytes;        /* pages released (every part) and their extents' bytes */
    uint64_t blob_objects, blob_bytes; /* blob objects zero-filled */
    uint64_t disk_before, disk_after;  /* the part and blob files' blocks on disk, bytes */
    bool holes;                        /* the file system took the space back (fallocate) */
    uint32_t old_parts;                /* parts older than format 10 keeping such pages */
    /* object storage (gc_remote.h): part and blob objects deleted, the object
     * versions deleted (theirs and older versions of MANIFEST, tags and
     * version files), and those versions' bytes */
    uint64_t objects, object_versions, object_bytes;
    uint64_t uploads; /* incomplete multipart uploads aborted there */
    /* and the part and blob objects replaced to zero-fill released pages and
     * blob objects: the bytes uploaded, and copied by the store */
    uint64_t objects_replaced, bytes_uploaded, bytes_copied;
};

/* 0, or a negative errno with err saying why; a request with neither rule is
 * -EINVAL (say which versions go). */
int ig_gc(const char *dir, const struct ig_gc_request *req, struct ig_gc_report *rep,
          struct ig_error *err);
void ig_gc_report_free(struct ig_gc_report *rep);

#endif
