/* verify.h - prove a table is intact, naming everything that is not.
 *
 * For each part: the magic, the tail, every footer section (schema hash, chunk
 * hash, name index order, column records), every row group (contiguity, Merkle
 * hash), every chunk and page record (bounds, continuity, extents that do not
 * overlap), every page's bytes (checksum, zero slack, decodes, text length and
 * deleted count match the footer), that every row erased at compliance level 2
 * holds no data in any page (the codecs' check_erased rules), the deletion
 * bitmap, the root hash, and each blob file (every referenced object's checksum,
 * no overlaps, every unreferenced byte zero). Pages `ingot gc` released are
 * checked to hold zeros and to belong to columns no version kept shows (their
 * records telling nothing of the values: footer.c). An interrupted erase is
 * replayed first (on object storage, a change of columns settled too). On object storage also every object and older version under
 * the table's prefix (verify_remote.c).
 * Each failure is reported through `fail` as one line naming the part, column,
 * row group and page. Verification goes on after a failure so every problem is
 * listed. */
#ifndef IG_FORMAT_VERIFY_H
#define IG_FORMAT_VERIFY_H

#include <stdbool.h>
#include <stdint.h>

struct ig_error;
struct ig_part;

struct ig_verify_hooks {
    void (*fail)(void *ctx, const char *msg);
    void (*progress)(void *ctx, uint64_t done, uint64_t total);
    void *ctx;
    /* also render every value to check the text lengths the footer records
     * (what the mount's text views are sized by): a check of the writer, not
     * of storage, whose bytes the checksums already cover; it costs most of a
     * verify's time (float formatting), so it is asked for (verify --deep) */
    bool deep;
    /* drop this host's cached copy of the files first, to read what the disk
     * holds (verify --cold); done anyway on shared storage (ig_fs_is_shared),
     * where the cached copy can be older than what another host wrote */
    bool cold;
};

struct ig_verify_report {
    uint32_t parts;
    uint64_t rows, groups, pages, page_bytes;
    uint64_t failures;
    uint64_t erased_rows;   /* rows marked deleted */
    uint64_t unscrubbed;    /* level-2 erased rows whose slots still hold data */
    uint64_t blob_objects, blob_bytes;
    /* pages `ingot gc` released (their column shown by no version kept),
     * checked to hold zeros, and their extents' bytes */
    uint64_t released_pages, released_bytes;
    /* a table on object storage: the objects and older object versions listed
     * under its prefix, none of which may hold an erased value */
    uint64_t objects, object_versions;
};

/* The footer alone: schema and chunk hashes, every group's Merkle hash and the
 * root. Reads no page data (cost proportional to the footer); the mount runs it
 * before serving so a damaged footer fails the mount. */
int ig_part_check_footer(const struct ig_part *p, struct ig_error *err);

/* 0 when verification ran (see report->failures); negative only when the table
 * could not be examined at all (also reported through `fail`). */
int ig_verify_table(const char *dir, const struct ig_verify_hooks *h,
                    struct ig_verify_report *report, struct ig_error *err);

#endif
