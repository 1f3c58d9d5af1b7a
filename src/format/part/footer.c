/* footer.c - a part opened for reading: the 64-byte tail read with one pread,
 * the footer mapped (or, on object storage, fetched with one ranged GET), its
 * header and section table checked once, and the part's bytes read by range
 * (footer.h). The records inside the footer are read by records.c. */
#include "format/part/footer_int.h"
#include "format/part/merkle.h"
#include "format/model/types.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/buf.h"
#include "util/io.h"
#include "store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>


int ig_part_corrupt(const struct ig_part *p, struct ig_error *err, const char *what)
{
    return ig_err(err, -EIO, "%s: corrupt footer: %s", p->path, what);
}

/* A chunk record's size: version 6 added the dictionary counts, 9 the
 * bounds, 12 the context. */
static uint64_t chunk_size(const struct ig_part *p)
{
    if (p->version >= IG_FORMAT_CHUNK_CTX) return IG_CHK_SIZE;
    if (p->version >= IG_FORMAT_CHUNK_STATS) return IG_CHK_SIZE_V10;
    return p->version >= IG_FORMAT_CHUNK_DICT ? IG_CHK_SIZE_V8 : IG_CHK_SIZE_V5;
}

/* Expected section sizes; false on arithmetic overflow. */
static bool expected_size(const struct ig_part *p, enum ig_section s, uint64_t *out)
{
    uint64_t n;
    switch (s) {
    case IG_SEC_COLUMNS: *out = (uint64_t)p->num_columns * IG_COL_SIZE; return true;
    case IG_SEC_NAME_INDEX: *out = (uint64_t)p->num_columns * 4; return true;
    case IG_SEC_LEAVES: *out = (uint64_t)p->num_leaves * 4; return true;
    case IG_SEC_GROUPS: *out = (uint64_t)p->num_groups * IG_GRP_SIZE; return true;
    case IG_SEC_CHUNKS:
        n = (uint64_t)p->num_groups * p->num_leaves; /* both < 2^32: no overflow */
        *out = n * chunk_size(p); /* n < 2^64 / 16 */
        return true;
    case IG_SEC_PAGES: *out = (uint64_t)p->num_pages * IG_PG_SIZE; return true;
    case IG_SEC_DELETION: *out = ig_part_deletion_bytes(p); return true;
    case IG_SEC_EXTRA: *out = (uint64_t)p->num_pages * IG_PX_SIZE; return true;
    case IG_SEC_BLOCKS: *out = (uint64_t)p->num_blocks * IG_BLK_SIZE; return true;
    default: return false; /* names: any size */
    }
}

/* The deletion bitmap of a part of version 17 or later that is not in its
 * footer: none (no row deleted), or read from where its first erase put it:
 * past the tail MANIFEST records (such a footer never moves), else before the
 * footer (which that erase moved past it). */
static int find_deletion(struct ig_part *p, struct ig_error *err)
{
    free(p->deletion_copy);
    p->deletion_copy = NULL;
    p->deletion_at = 0;
    if (p->version < IG_FORMAT_LAZY_DELETION) return 0;
    uint64_t at = ig_ld64(p->footer + IG_HDR_DELETION_AT);
    if (p->sec_size[IG_SEC_DELETION])
        return at ? ig_part_corrupt(p, err, "a deletion bitmap in the footer and another past it") : 0;
    if (!at) return p->deleted_rows ? ig_part_corrupt(p, err, "deleted rows but no deletion bitmap") : 0;
    uint64_t size = ig_part_deletion_bytes(p);
    /* before the footer, or past the tail and inside the file as it is now
     * (a copy of the footer taken again sees what erases appended since) */
    uint64_t file_now = ig_part_size_now(p);
    bool before = at >= IG_PART_MAGIC_LEN && at <= p->footer_offset && size <= p->footer_offset - at;
    bool after = at >= p->tail_end && at <= file_now && size <= file_now - at;
    if (at % 8 || size == 0 || (!before && !after)) return ig_part_corrupt(p, err, "deletion bitmap out of bounds");
    uint8_t *bm = malloc((size_t)size);
    if (!bm) return ig_err(err, -ENOMEM, "out of memory");
    if (p->shared) /* another host's erase may have changed it: see ig_part_copy_footer */
        (void)posix_fadvise(p->fd, (off_t)at, (off_t)size, POSIX_FADV_DONTNEED);
    int rc = ig_part_read(p, bm, (size_t)size, at, err);
    if (rc) {
        free(bm);
        return ig_err(err, rc, "%s: reading its deletion bitmap at byte %llu: %s", p->path,
                      (unsigned long long)at, strerror(-rc));
    }
    p->deletion_copy = bm;
    p->deletion_at = at;
    return 0;
}

static int check_header(struct ig_part *p, struct ig_error *err)
{
    if (ig_ld32(p->footer + IG_HDR_VERSION) != p->version)
        return ig_part_corrupt(p, err, "header and tail name different versions");
    const uint8_t *h = p->footer;
    if (memcmp(h + IG_HDR_MAGIC, IG_HDR_MAGIC_STR, 8)) return ig_part_corrupt(p, err, "bad header magic");
    uint32_t version = ig_ld32(h + IG_HDR_VERSION);
    if (version < IG_FORMAT_MIN_VERSION || version > IG_FORMAT_VERSION)
        return ig_err(err, -EIO, "%s: unsupported footer version %u", p->path,
                      ig_ld32(h + IG_HDR_VERSION));
    if (ig_ld32(h + IG_HDR_HEADER_SIZE) != IG_HDR_SIZE)
        return ig_part_corrupt(p, err, "bad header size");
    p->num_rows = ig_ld64(h + IG_HDR_NUM_ROWS);
    p->deleted_rows = ig_ld64(h + IG_HDR_DELETED_ROWS);
    p->first_row_id = ig_ld64(h + IG_HDR_FIRST_ROW_ID);
    p->num_columns = ig_ld32(h + IG_HDR_NUM_COLUMNS);
    p->num_leaves = ig_ld32(h + IG_HDR_NUM_LEAVES);
    p->num_groups = ig_ld32(h + IG_HDR_NUM_GROUPS);
    p->num_pages = ig_ld32(h + IG_HDR_NUM_PAGES);
    p->erase_level = h[IG_HDR_ERASE_LEVEL];
    p->num_blocks = version >= IG_FORMAT_BLOCKS ? ig_ld32(h + IG_HDR_NUM_BLOCKS) : 0;
    p->schema_hash = ig_ld64(h + IG_HDR_SCHEMA_HASH);
    p->chunks_hash = ig_ld64(h + IG_HDR_CHUNKS_HASH);
    if (p->num_columns == 0 || p->num_leaves == 0 || p->num_leaves > p->num_columns)
        return ig_part_corrupt(p, err, "bad column counts");
    if (p->deleted_rows > p->num_rows) return ig_part_corrupt(p, err, "more deleted rows than rows");
    if (p->num_rows > (1ULL << 48)) return ig_part_corrupt(p, err, "implausible row count");
    if (p->erase_level < 1 || p->erase_level > 2) return ig_part_corrupt(p, err, "bad erase level");
    if (p->num_rows > 0 && (p->num_groups == 0 || p->num_pages == 0))
        return ig_part_corrupt(p, err, "rows without groups or pages");
    if (version >= IG_FORMAT_BLOCKS && p->num_blocks < p->num_pages)
        return ig_part_corrupt(p, err, "fewer blocks than pages");
    for (int s = 0; s < IG_SEC_COUNT; s++) {
        uint64_t off = ig_ld64(h + IG_HDR_SECTIONS + 16 * s);
        uint64_t size = ig_ld64(h + IG_HDR_SECTIONS + 16 * s + 8);
        if (off % 8 || off < IG_HDR_SIZE || off > p->footer_size || size > p->footer_size - off)
            return ig_err(err, -EIO, "%s: corrupt footer: section %d out of bounds", p->path, s);
        uint64_t want = 0;
        /* from version 17 a part's deletion bitmap may not be in its footer */
        bool elsewhere = s == IG_SEC_DELETION && size == 0 && version >= IG_FORMAT_LAZY_DELETION;
        if (s != IG_SEC_NAMES && !elsewhere && (!expected_size(p, s, &want) || want != size))
            return ig_err(err, -EIO, "%s: corrupt footer: section %d has %llu bytes, expected %llu",
                          p->path, s, (unsigned long long)size, (unsigned long long)want);
        p->sec_off[s] = off;
        p->sec_size[s] = size;
    }
    /* Sections must not overlap: an erase writes one and must not touch another. */
    for (int a = 0; a < IG_SEC_COUNT; a++)
        for (int b = a + 1; b < IG_SEC_COUNT; b++) {
            if (!p->sec_size[a] || !p->sec_size[b]) continue;
            if (p->sec_off[a] < p->sec_off[b] + p->sec_size[b] &&
                p->sec_off[b] < p->sec_off[a] + p->sec_size[a])
                return ig_err(err, -EIO, "%s: corrupt footer: sections %d and %d overlap",
                              p->path, a, b);
        }
    return find_deletion(p, err);
}

/* The tail's fields, checked: magic, hash, version, and a footer that ends
 * where the tail begins. */
static int take_tail(struct ig_part *p, const uint8_t *tail, const char *path, struct ig_error *err)
{
    if (memcmp(tail + IG_TAIL_MAGIC, IG_TAIL_MAGIC_STR, 8))
        return ig_err(err, -EIO, "%s: not an ingot part or truncated (no tail magic)", path);
    if (ig_ld64(tail + IG_TAIL_HASH) != ig_hash(tail, IG_TAIL_HASH))
        return ig_err(err, -EIO, "%s: corrupt tail: checksum mismatch", path);
    uint32_t version = ig_ld32(tail + IG_TAIL_VERSION);
    if (version < IG_FORMAT_MIN_VERSION || version > IG_FORMAT_VERSION)
        return ig_err(err, -EIO, "%s: unsupported format version %u", path, ig_ld32(tail + IG_TAIL_VERSION));
    p->version = version;
    p->footer_offset = ig_ld64(tail + IG_TAIL_FOOTER_OFFSET);
    p->footer_size = ig_ld64(tail + IG_TAIL_FOOTER_SIZE);
    p->root = ig_ld64(tail + IG_TAIL_ROOT);
    p->generation = ig_ld64(tail + IG_TAIL_GENERATION);
    uint64_t body_end = p->tail_end - IG_TAIL_SIZE;
    if (p->footer_offset < IG_PART_MAGIC_LEN || p->footer_size < IG_HDR_SIZE || p->footer_offset > body_end ||
        p->footer_size != body_end - p->footer_offset || p->footer_offset % 8)
        return ig_err(err, -EIO, "%s: corrupt tail: footer out of bounds", path);
    return 0;
}

/* How much of a remote part's end one request fetches at open: the tail and
 * a footer of up to this size (a 1,000,000-row table of a few columns has a
 * footer of ~200 KiB); a larger footer costs one more request. */
#define REMOTE_TAIL_BYTES ((size_t)512 << 10)

/* A part on object storage: one ranged GET of its end gives the tail, the
 * footer (copied, as ig_part_copy_footer would) and the object's size and
 * ETag; pages are read later through the store's cache. */
static int part_open_remote(struct ig_part *p, const char *path, uint64_t footer_end, struct ig_error *err)
{
    char loc[4096];
    const char *name;
    if (ig_store_split(path, loc, sizeof loc, &name)) return ig_err(err, -EINVAL, "%s: not an object path", path);
    struct ig_store *st;
    int rc = ig_store_at(loc, &st, err);
    if (rc) return rc;
    struct ig_buf tail = IG_BUF_INIT;
    uint64_t start = 0;
    rc = ig_obj_open_tail(st, name, footer_end, REMOTE_TAIL_BYTES, &tail, &start, &p->obj, err);
    if (rc) {
        ig_buf_free(&tail);
        return rc;
    }
    p->file_size = ig_obj_size(p->obj);
    p->tail_end = footer_end ? footer_end : p->file_size;
    p->end_recorded = footer_end != 0;
    if (p->tail_end > p->file_size)
        rc = ig_err(err, -EIO, "%s: truncated: MANIFEST puts its footer's end at byte %llu of %llu", path,
                    (unsigned long long)p->tail_end, (unsigned long long)p->file_size);
    else if (p->tail_end < IG_PART_MAGIC_LEN + IG_HDR_SIZE + IG_TAIL_SIZE || p->tail_end - start < IG_TAIL_SIZE ||
             start + tail.len != p->tail_end)
        rc = ig_err(err, -EIO, "%s: not an ingot part (only %llu bytes)", path, (unsigned long long)p->tail_end);
    if (!rc) rc = take_tail(p, tail.data + (p->tail_end - IG_TAIL_SIZE - start), path, err);
    if (!rc) {
        p->map_offset = p->footer_offset;
        p->map_len = (size_t)(p->tail_end - p->map_offset);
        p->map = malloc(p->map_len);
        if (!p->map) rc = ig_err(err, -ENOMEM, "out of memory");
    }
    if (!rc) {
        p->map_copied = true;
        p->footer = p->map;
        /* the footer's head, when larger than the first request took */
        uint64_t have = p->footer_offset >= start ? p->footer_offset : start;
        if (have > p->footer_offset) rc = ig_obj_read(p->obj, p->map, (size_t)(have - p->footer_offset), p->footer_offset, err);
        if (!rc) memcpy(p->map + (have - p->footer_offset), tail.data + (have - start), (size_t)(p->tail_end - have));
    }
    ig_buf_free(&tail);
    return rc ? rc : check_header(p, err);
}

static int part_open_once(struct ig_part *p, const char *path, uint64_t footer_end, bool writable,
                          struct ig_error *err)
{
    memset(p, 0, sizeof *p);
    p->fd = p->blob_fd = -1;
    p->path = strdup(path);
    if (!p->path) return ig_err(err, -ENOMEM, "out of memory");
    const char *slash = strrchr(p->path, '/');
    p->name = slash ? slash + 1 : p->path;
    int rc;
    if (ig_store_is_remote(path)) {
        /* objects are never changed in place: an erase writes a new one */
        rc = writable ? ig_err(err, -EROFS, "%s: parts on object storage are not written in place", path)
                      : part_open_remote(p, path, footer_end, err);
        if (rc) goto fail;
        return 0;
    }
    p->fd = ig_open(path, (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC, 0);
    if (p->fd < 0) {
        rc = ig_err(err, -errno, "%s: %s", path, strerror(errno));
        goto fail;
    }
    p->shared = ig_fd_is_shared(p->fd);
    struct stat st;
    if (fstat(p->fd, &st)) {
        rc = ig_err(err, -errno, "%s: %s", path, strerror(errno));
        goto fail;
    }
    p->file_size = (uint64_t)st.st_size;
    p->tail_end = footer_end ? footer_end : p->file_size;
    p->end_recorded = footer_end != 0;
    if (p->tail_end > p->file_size) {
        rc = ig_err(err, -EIO, "%s: truncated: MANIFEST puts its footer's end at byte %llu of %llu", path,
                    (unsigned long long)p->tail_end, (unsigned long long)p->file_size);
        goto fail;
    }
    if (p->tail_end < IG_PART_MAGIC_LEN + IG_HDR_SIZE + IG_TAIL_SIZE) {
        rc = ig_err(err, -EIO, "%s: not an ingot part (only %llu bytes)", path,
                    (unsigned long long)p->tail_end);
        goto fail;
    }
    uint8_t tail[IG_TAIL_SIZE];
    if (p->shared) /* see ig_part_copy_footer */
        (void)posix_fadvise(p->fd, (off_t)(p->tail_end - IG_TAIL_SIZE), IG_TAIL_SIZE, POSIX_FADV_DONTNEED);
    rc = ig_pread_full(p->fd, tail, sizeof tail, p->tail_end - IG_TAIL_SIZE);
    if (rc) {
        rc = ig_err(err, rc, "%s: reading the tail: %s", path, strerror(-rc));
        goto fail;
    }
    rc = take_tail(p, tail, path, err);
    if (rc) goto fail;
    long pagesz = sysconf(_SC_PAGESIZE);
    p->map_offset = p->footer_offset - p->footer_offset % (uint64_t)pagesz;
    p->map_len = (size_t)(p->tail_end - p->map_offset);
    void *m = mmap(NULL, p->map_len, PROT_READ | (writable ? PROT_WRITE : 0), MAP_SHARED, p->fd,
                   (off_t)p->map_offset);
    if (m == MAP_FAILED) {
        rc = ig_err(err, -errno, "%s: mmap: %s", path, strerror(errno));
        goto fail;
    }
    /* A lookup touches a few footer pages; without this a cold open faults in
     * the disk's whole readahead window (megabytes) around each one. */
    (void)madvise(m, p->map_len, MADV_RANDOM);
    p->map = m;
    p->footer = p->map + (p->footer_offset - p->map_offset);
    rc = check_header(p, err);
    if (rc) goto fail;
    return 0;
fail:
    ig_part_close(p);
    return rc;
}

int ig_part_open(struct ig_part *p, const char *path, bool writable, struct ig_error *err)
{
    return ig_part_open_at(p, path, 0, writable, err);
}

int ig_part_open_at(struct ig_part *p, const char *path, uint64_t footer_end, bool writable,
                    struct ig_error *err)
{
    int rc = part_open_once(p, path, footer_end, writable, err);
    if (rc != -EIO) return rc;
    /* A footer that fails its checks may be a stale copy (another host rewrote
     * the part on shared storage): drop this host's cached pages, read again.
     * What fails twice is damage. */
    int fd = ig_open(path, O_RDONLY | O_CLOEXEC, 0);
    if (fd < 0) return rc;
    (void)posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
    return part_open_once(p, path, footer_end, writable, err);
}

/* The root the tail holds: the open checks a footer copy against it. */
uint64_t ig_part_root(const struct ig_part *p, const uint8_t *footer, const uint8_t *bm)
{
    return ig_merkle_root(footer, footer + p->sec_off[IG_SEC_GROUPS], p->sec_size[IG_SEC_GROUPS], bm,
                          bm ? ig_part_deletion_bytes(p) : 0);
}

/* Is the copy one generation's? Its own tail (the copy runs to the end of the
 * file) must be intact, place the footer where the open found it, and hold the
 * root of the header, row groups and deletion bitmap copied with it. Then the
 * tail's generation and root are taken from the copy too. */
static bool copy_consistent(struct ig_part *p)
{
    const uint8_t *tail = p->map + (p->tail_end - IG_TAIL_SIZE - p->map_offset);
    if (memcmp(tail + IG_TAIL_MAGIC, IG_TAIL_MAGIC_STR, 8) ||
        ig_ld64(tail + IG_TAIL_HASH) != ig_hash(tail, IG_TAIL_HASH) ||
        ig_ld64(tail + IG_TAIL_FOOTER_OFFSET) != p->footer_offset ||
        ig_ld64(tail + IG_TAIL_FOOTER_SIZE) != p->footer_size)
        return false;
    uint64_t root = ig_part_root(p, p->footer, ig_part_deletion(p));
    if (root != ig_ld64(tail + IG_TAIL_ROOT)) return false;
    p->root = root;
    p->generation = ig_ld64(tail + IG_TAIL_GENERATION);
    return true;
}

int ig_part_copy_footer(struct ig_part *p, struct ig_error *err)
{
    if (p->map_copied || !p->map) return 0;
    uint8_t *copy = malloc(p->map_len ? p->map_len : 1);
    if (!copy) return ig_err(err, -ENOMEM, "out of memory");
    size_t footer_at = (size_t)(p->footer - p->map);
    /* On shared storage this host may hold some of the footer's pages from
     * before another host rewrote them in place and not others, and the tail
     * was read apart from the footer: a copy could mix generations (deletion
     * bits of one, the count of deleted rows or the tail of another; a mount
     * comparing generations then missed an erased row). There the copy is read
     * afresh and must be one generation's (copy_consistent), read again while
     * it is not, and refused after three tries. */
    for (int tries = 0;; tries++) {
        if (p->shared)
            (void)posix_fadvise(p->fd, (off_t)p->map_offset, (off_t)p->map_len, POSIX_FADV_DONTNEED);
        int rc = ig_pread_full(p->fd, copy, p->map_len, p->map_offset);
        if (rc) {
            if (!p->map_copied) free(copy); /* else p->map is copy: ig_part_close frees it */
            return ig_err(err, rc, "%s: read: %s", p->path, strerror(-rc));
        }
        if (!p->map_copied) {
            /* never touch the mapping again (it is what could fault) */
            munmap(p->map, p->map_len);
            p->map = copy;
            p->footer = copy + footer_at;
            p->map_copied = true;
        }
        /* the copy's header checked afresh, which also refreshes every field
         * taken from it */
        rc = check_header(p, err);
        if (!p->shared) return rc;
        if (!rc && copy_consistent(p)) return 0;
        if (tries == 2)
            return rc ? rc
                      : ig_err(err, -EIO, "%s: footer and tail disagree (root hash) in three reads: "
                                          "changed while read, or damaged",
                               p->path);
        nanosleep(&(struct timespec){0, 20 * 1000000L}, NULL);
    }
}

uint64_t ig_part_recorded_end(const struct ig_part *p)
{
    return p->version >= IG_FORMAT_VERSIONED ? p->tail_end : 0;
}

bool ig_part_rewritten(const struct ig_part *p)
{
    if (p->obj) return ig_obj_replaced(p->obj); /* an erase replaced the object */
    struct stat st;
    uint8_t tail[IG_TAIL_SIZE];
    /* a part read at MANIFEST's end grows by commits (beyond what it reads)
     * and by erases' moved pages and deletion bitmaps (which move its tail's
     * generation too) */
    if (fstat(p->fd, &st) || (!p->end_recorded && (uint64_t)st.st_size != p->file_size))
        return true;
    off_t at = (off_t)(p->tail_end - IG_TAIL_SIZE);
    if (p->shared) (void)posix_fadvise(p->fd, at, IG_TAIL_SIZE, POSIX_FADV_DONTNEED);
    /* a commit that wrote a new footer zeroed this tail */
    return ig_pread_full(p->fd, tail, sizeof tail, (uint64_t)at) != 0 ||
           memcmp(tail + IG_TAIL_MAGIC, IG_TAIL_MAGIC_STR, 8) || ig_ld64(tail + IG_TAIL_HASH) != ig_hash(tail, IG_TAIL_HASH) ||
           ig_ld64(tail + IG_TAIL_GENERATION) != p->generation;
}

int ig_part_map_data(struct ig_part *p, struct ig_error *err)
{
    if (p->data || p->footer_offset == 0 || p->obj) return 0; /* remote: read by range */
    /* from version 10 a page moved by an erase lies after the tail */
    size_t len = (size_t)(p->version >= IG_FORMAT_VERSIONED ? p->file_size : p->footer_offset);
    void *m = mmap(NULL, len, PROT_READ, MAP_SHARED, p->fd, 0);
    if (m == MAP_FAILED) return ig_err(err, -errno, "%s: mmap: %s", p->path, strerror(errno));
    p->data = m;
    p->data_len = len;
    return 0;
}

void ig_part_close(struct ig_part *p)
{
    if (p->map && p->map_copied) free(p->map);
    else if (p->map) munmap(p->map, p->map_len);
    if (p->data) munmap((void *)p->data, p->data_len);
    if (p->fd >= 0) close(p->fd);
    if (p->blob_fd >= 0) close(p->blob_fd);
    ig_obj_close(p->obj);
    ig_obj_close(p->blob_obj);
    free(p->deletion_copy);
    free(p->path);
    memset(p, 0, sizeof *p);
    p->fd = p->blob_fd = -1;
}

uint64_t ig_part_size_now(const struct ig_part *p)
{
    struct stat st;
    if (p->obj) return ig_obj_size(p->obj);
    return fstat(p->fd, &st) ? p->file_size : (uint64_t)st.st_size;
}

int ig_part_read(const struct ig_part *p, void *buf, size_t n, uint64_t off, struct ig_error *err)
{
    return ig_part_read_by(p, buf, n, off, IG_AHEAD_STORE, err);
}

int ig_part_read_by(const struct ig_part *p, void *buf, size_t n, uint64_t off, enum ig_ahead ahead,
                    struct ig_error *err)
{
    if (p->obj) return ig_obj_read_by(p->obj, buf, n, off, ahead, err);
    int rc = ig_pread_full(p->fd, buf, n, off);
    return rc ? ig_err(err, rc, "read failed: %s", rc == -EIO ? "file truncated" : strerror(-rc)) : 0;
}

bool ig_part_has_blob(const struct ig_part *p)
{
    return p->blob_fd >= 0 || p->blob_obj;
}

uint64_t ig_part_blob_size(const struct ig_part *p)
{
    if (p->blob_obj) return ig_obj_size(p->blob_obj);
    struct stat st;
    return p->blob_fd >= 0 && fstat(p->blob_fd, &st) == 0 ? (uint64_t)st.st_size : 0;
}

int ig_part_blob_raw(const struct ig_part *p, void *buf, size_t n, uint64_t off)
{
    if (p->blob_obj) return ig_obj_read(p->blob_obj, buf, n, off, NULL);
    return p->blob_fd >= 0 ? ig_pread_full(p->blob_fd, buf, n, off) : -EIO;
}

int ig_part_blob_read(const struct ig_part *p, const struct ig_blob_ref *ref, uint64_t off,
                      void *buf, size_t n, enum ig_ahead ahead)
{
    if (!p->blob_obj) return p->blob_fd >= 0 ? ig_blob_read(p->blob_fd, ref, off, buf, n) : -EIO;
    if (off > ref->size || n > ref->size - off) return -EINVAL;
    if (ref->offset > UINT64_MAX - ref->size) return -EIO;
    return ig_obj_read_by(p->blob_obj, buf, n, ref->offset + off, ahead, NULL);
}

void ig_part_advise(const struct ig_part *p, bool blob, uint64_t off, uint64_t len)
{
    struct ig_obj *o = blob ? p->blob_obj : p->obj;
    if (o) {
        struct ig_range r = {off, len};
        ig_obj_prefetch(o, &r, 1, false);
        return;
    }
    int fd = blob ? p->blob_fd : p->fd;
    if (fd >= 0) (void)posix_fadvise(fd, (off_t)off, (off_t)len, POSIX_FADV_WILLNEED);
}

size_t ig_chunk_record_size(const struct ig_part *p)
{
    return (size_t)chunk_size(p);
}
