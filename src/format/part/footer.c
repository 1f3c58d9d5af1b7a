#include "format/part/footer.h"
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


static int corrupt(const struct ig_part *p, struct ig_error *err, const char *what)
{
    return ig_err(err, -EIO, "%s: corrupt footer: %s", p->path, what);
}

/* Expected section sizes; false on arithmetic overflow. */
/* A chunk record's size: version 6 added the dictionary counts, 9 the
 * bounds, 12 the context. */
static uint64_t chunk_size(const struct ig_part *p)
{
    if (p->version >= IG_FORMAT_CHUNK_CTX) return IG_CHK_SIZE;
    if (p->version >= IG_FORMAT_CHUNK_STATS) return IG_CHK_SIZE_V10;
    return p->version >= IG_FORMAT_CHUNK_DICT ? IG_CHK_SIZE_V8 : IG_CHK_SIZE_V5;
}

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
    case IG_SEC_DELETION: *out = (p->num_rows / 64 + (p->num_rows % 64 != 0)) * 8; return true;
    case IG_SEC_EXTRA: *out = (uint64_t)p->num_pages * IG_PX_SIZE; return true;
    case IG_SEC_BLOCKS: *out = (uint64_t)p->num_blocks * IG_BLK_SIZE; return true;
    default: return false; /* names: any size */
    }
}

static int check_header(struct ig_part *p, struct ig_error *err)
{
    if (ig_ld32(p->footer + IG_HDR_VERSION) != p->version)
        return corrupt(p, err, "header and tail name different versions");
    const uint8_t *h = p->footer;
    if (memcmp(h + IG_HDR_MAGIC, IG_HDR_MAGIC_STR, 8)) return corrupt(p, err, "bad header magic");
    uint32_t version = ig_ld32(h + IG_HDR_VERSION);
    if (version < IG_FORMAT_MIN_VERSION || version > IG_FORMAT_VERSION)
        return ig_err(err, -EIO, "%s: unsupported footer version %u", p->path,
                      ig_ld32(h + IG_HDR_VERSION));
    if (ig_ld32(h + IG_HDR_HEADER_SIZE) != IG_HDR_SIZE)
        return corrupt(p, err, "bad header size");
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
        return corrupt(p, err, "bad column counts");
    if (p->deleted_rows > p->num_rows) return corrupt(p, err, "more deleted rows than rows");
    if (p->num_rows > (1ULL << 48)) return corrupt(p, err, "implausible row count");
    if (p->erase_level < 1 || p->erase_level > 2) return corrupt(p, err, "bad erase level");
    if (p->num_rows > 0 && (p->num_groups == 0 || p->num_pages == 0))
        return corrupt(p, err, "rows without groups or pages");
    if (version >= IG_FORMAT_BLOCKS && p->num_blocks < p->num_pages)
        return corrupt(p, err, "fewer blocks than pages");
    for (int s = 0; s < IG_SEC_COUNT; s++) {
        uint64_t off = ig_ld64(h + IG_HDR_SECTIONS + 16 * s);
        uint64_t size = ig_ld64(h + IG_HDR_SECTIONS + 16 * s + 8);
        if (off % 8 || off < IG_HDR_SIZE || off > p->footer_size || size > p->footer_size - off)
            return ig_err(err, -EIO, "%s: corrupt footer: section %d out of bounds", p->path, s);
        uint64_t want = 0;
        if (s != IG_SEC_NAMES && (!expected_size(p, s, &want) || want != size))
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
    return 0;
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
    uint64_t root = ig_merkle_root(p->footer, ig_part_section(p, IG_SEC_GROUPS), p->sec_size[IG_SEC_GROUPS],
                                   ig_part_section(p, IG_SEC_DELETION), p->sec_size[IG_SEC_DELETION]);
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
     * and by erases' moved pages (which move its tail's generation too) */
    if (fstat(p->fd, &st) || (p->tail_end == p->file_size && (uint64_t)st.st_size != p->file_size))
        return true;
    off_t at = (off_t)(p->tail_end - IG_TAIL_SIZE);
    if (p->shared) (void)posix_fadvise(p->fd, at, IG_TAIL_SIZE, POSIX_FADV_DONTNEED);
    return ig_pread_full(p->fd, tail, sizeof tail, (uint64_t)at) != 0 ||
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
    free(p->path);
    memset(p, 0, sizeof *p);
    p->fd = p->blob_fd = -1;
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

int ig_part_leaf_column(const struct ig_part *p, uint32_t leaf, uint32_t *col,
                        struct ig_error *err)
{
    if (leaf >= p->num_leaves) return ig_err(err, -EIO, "%s: leaf %u out of range", p->path, leaf);
    uint32_t c = ig_ld32(ig_part_section(p, IG_SEC_LEAVES) + 4 * (uint64_t)leaf);
    if (c >= p->num_columns)
        return ig_err(err, -EIO, "%s: corrupt footer: leaf %u points at column %u", p->path, leaf,
                      c);
    *col = c;
    return 0;
}

int ig_part_group(const struct ig_part *p, uint32_t g, struct ig_grouprec *out,
                  struct ig_error *err)
{
    if (g >= p->num_groups) return ig_err(err, -EIO, "%s: row group %u out of range", p->path, g);
    const uint8_t *r = ig_part_section(p, IG_SEC_GROUPS) + (uint64_t)g * IG_GRP_SIZE;
    out->first_row = ig_ld64(r + IG_GRP_FIRST_ROW);
    out->row_count = ig_ld32(r + IG_GRP_ROW_COUNT);
    out->first_page = ig_ld32(r + IG_GRP_FIRST_PAGE);
    out->page_count = ig_ld32(r + IG_GRP_PAGE_COUNT);
    out->hash = ig_ld64(r + IG_GRP_HASH);
    if (out->row_count == 0 || out->first_row > p->num_rows ||
        out->row_count > p->num_rows - out->first_row || out->first_page > p->num_pages ||
        out->page_count > p->num_pages - out->first_page)
        return ig_err(err, -EIO, "%s: corrupt footer: row group %u record", p->path, g);
    return 0;
}

int ig_part_chunk(const struct ig_part *p, uint32_t g, uint32_t leaf, uint32_t *first_page,
                  uint32_t *page_count, struct ig_error *err)
{
    struct ig_grouprec gr;
    int rc = ig_part_group(p, g, &gr, err);
    return rc ? rc : ig_part_group_chunk(p, g, &gr, leaf, first_page, page_count, err);
}

int ig_part_group_chunk(const struct ig_part *p, uint32_t g, const struct ig_grouprec *grp, uint32_t leaf,
                        uint32_t *first_page, uint32_t *page_count, struct ig_error *err)
{
    const struct ig_grouprec gr = *grp;
    if (leaf >= p->num_leaves) return ig_err(err, -EIO, "%s: leaf %u out of range", p->path, leaf);
    const uint8_t *r = ig_part_section(p, IG_SEC_CHUNKS) +
                       ((uint64_t)g * p->num_leaves + leaf) * chunk_size(p);
    uint32_t fp = ig_ld32(r + IG_CHK_FIRST_PAGE), pc = ig_ld32(r + IG_CHK_PAGE_COUNT);
    if (pc == 0 || fp < gr.first_page || fp - gr.first_page > gr.page_count ||
        pc > gr.page_count - (fp - gr.first_page))
        return ig_err(err, -EIO, "%s: corrupt footer: chunk (group %u, leaf %u) page range",
                      p->path, g, leaf);
    *first_page = fp;
    *page_count = pc;
    return 0;
}

uint8_t *ig_chunk_record(const struct ig_part *p, const uint8_t *footer, uint32_t g, uint32_t leaf)
{
    return (uint8_t *)footer + p->sec_off[IG_SEC_CHUNKS] + ((uint64_t)g * p->num_leaves + leaf) * chunk_size(p);
}

/* (g, leaf) names a chunk of p, or -EIO saying it does not. */
static int chunk_in_range(const struct ig_part *p, uint32_t g, uint32_t leaf, struct ig_error *err)
{
    if (g < p->num_groups && leaf < p->num_leaves) return 0;
    return ig_err(err, -EIO, "%s: chunk (group %u, leaf %u) out of range", p->path, g, leaf);
}

int ig_part_chunk_dict(const struct ig_part *p, uint32_t g, uint32_t leaf, struct ig_chunk_dict *out,
                       struct ig_error *err)
{
    memset(out, 0, sizeof *out);
    int rc = chunk_in_range(p, g, leaf, err);
    if (rc || p->version < IG_FORMAT_CHUNK_DICT) return rc;
    const uint8_t *r = ig_chunk_record(p, p->footer, g, leaf);
    out->count = ig_ld32(r + IG_CHK_DICT_COUNT);
    out->bytes = ig_ld32(r + IG_CHK_DICT_BYTES);
    if (!out->count && out->bytes)
        return ig_err(err, -EIO, "%s: corrupt footer: chunk (group %u, leaf %u) counts %u dictionary bytes of no value",
                      p->path, g, leaf, out->bytes);
    return 0;
}

int ig_part_chunk_minmax(const struct ig_part *p, uint32_t g, uint32_t leaf, struct ig_minmax *out,
                         struct ig_error *err)
{
    memset(out, 0, sizeof *out);
    int rc = chunk_in_range(p, g, leaf, err);
    if (rc || p->version < IG_FORMAT_CHUNK_STATS) return rc;
    const uint8_t *r = ig_chunk_record(p, p->footer, g, leaf);
    uint8_t flags = r[IG_CHK_STATS_FLAGS];
    static const uint8_t zero[IG_CHK_MIN - IG_CHK_STATS_FLAGS - 1];
    if ((flags & ~IG_CHKS_BOUNDED) || memcmp(r + IG_CHK_STATS_FLAGS + 1, zero, sizeof zero))
        return ig_err(err, -EIO, "%s: corrupt footer: chunk (group %u, leaf %u) statistics flags", p->path, g,
                      leaf);
    out->bounded = flags & IG_CHKS_BOUNDED;
    out->min = ig_ld64(r + IG_CHK_MIN);
    out->max = ig_ld64(r + IG_CHK_MAX);
    if (!out->bounded && (out->min || out->max))
        return ig_err(err, -EIO, "%s: corrupt footer: chunk (group %u, leaf %u) has bounds it says it has not",
                      p->path, g, leaf);
    return 0;
}

static bool extent_in_data(const struct ig_part *p, uint64_t offset, uint64_t capacity);

size_t ig_chunk_record_size(const struct ig_part *p)
{
    return (size_t)chunk_size(p);
}

int ig_part_chunk_ctx(const struct ig_part *p, uint32_t g, uint32_t leaf, struct ig_ctxrec *out,
                      struct ig_error *err)
{
    memset(out, 0, sizeof *out);
    int rc = chunk_in_range(p, g, leaf, err);
    if (rc || p->version < IG_FORMAT_CHUNK_CTX) return rc;
    const uint8_t *r = ig_chunk_record(p, p->footer, g, leaf);
    out->offset = ig_ld64(r + IG_CHK_CTX_OFFSET);
    out->size = ig_ld32(r + IG_CHK_CTX_SIZE);
    out->hash = ig_ld64(r + IG_CHK_CTX_HASH);
    if (ig_ld32(r + IG_CHK_CTX_SIZE + 4) || (!out->size && (out->offset || out->hash)))
        return ig_err(err, -EIO, "%s: corrupt footer: chunk (group %u, leaf %u) context record",
                      p->path, g, leaf);
    if (out->size && !extent_in_data(p, out->offset, out->size))
        return ig_err(err, -EIO,
                      "%s: corrupt footer: chunk (group %u, leaf %u) context of %u bytes at %llu "
                      "lies outside the data",
                      p->path, g, leaf, out->size, (unsigned long long)out->offset);
    if (out->size > IG_MAX_CTX_SIZE)
        return ig_err(err, -EIO,
                      "%s: corrupt footer: chunk (group %u, leaf %u) context of %u bytes", p->path,
                      g, leaf, out->size);
    return 0;
}

int ig_part_page_group(const struct ig_part *p, uint32_t page, uint32_t *group,
                       struct ig_error *err)
{
    uint32_t lo = 0, hi = p->num_groups; /* the last group whose first page <= page */
    struct ig_grouprec gr;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        int rc = ig_part_group(p, mid, &gr, err);
        if (rc) return rc;
        if (gr.first_page <= page)
            lo = mid;
        else
            hi = mid;
    }
    int rc = p->num_groups ? ig_part_group(p, lo, &gr, err) : -EIO;
    if (rc || page < gr.first_page || page - gr.first_page >= gr.page_count)
        return ig_err(err, -EIO, "%s: corrupt footer: no row group holds page %u", p->path, page);
    *group = lo;
    return 0;
}

void ig_chunk_minmax_put(uint8_t *rec, const struct ig_minmax *m)
{
    memset(rec + IG_CHK_STATS_FLAGS, 0, IG_CHK_MAX + 8 - IG_CHK_STATS_FLAGS);
    if (!m->bounded) return;
    rec[IG_CHK_STATS_FLAGS] = IG_CHKS_BOUNDED;
    ig_st64(rec + IG_CHK_MIN, m->min);
    ig_st64(rec + IG_CHK_MAX, m->max);
}

/* Page extents lie between the magic and the footer; from version 10 also
 * after the tail (where an erase moves a page that grew: the footer stays put,
 * so MANIFEST's record of where it ends stays true). Not bounded by the size
 * the file had at open: on shared storage this host may still see an older
 * size than the footer's writer left; a page past the end fails its read
 * (and the reader looks again), never a mapping. */
#define IG_EXTENT_END_MAX ((uint64_t)1 << 56)
static bool extent_in_data(const struct ig_part *p, uint64_t offset, uint64_t capacity)
{
    if (offset >= IG_PART_MAGIC_LEN && offset <= p->footer_offset && capacity <= p->footer_offset - offset)
        return true;
    return p->version >= IG_FORMAT_VERSIONED && p->end_recorded && offset >= p->tail_end &&
           offset <= IG_EXTENT_END_MAX && capacity <= IG_EXTENT_END_MAX - offset;
}

static bool all_zero(const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (b[i]) return false;
    return true;
}

/* What is wrong with a released page's records (layout.h, IG_PGF_RELEASED),
 * or NULL: only a part of format 10 has one, and it keeps no field beyond
 * its extent, its rows and its leaf, no extras beyond its first block, and
 * block records of zeros. */
static const char *released_page_problem(const struct ig_part *p, uint32_t page,
                                         const struct ig_pagerec *o)
{
    if (p->version < IG_FORMAT_VERSIONED) return "released, in a part older than format 10";
    if (o->flags != IG_PGF_RELEASED || o->stored || o->entry_count || o->value_count ||
        o->encoding || o->compression || o->deleted || o->checksum || o->text_len || o->body_size)
        return "released, but its record keeps more than its extent and rows";
    if (o->row_count == 0) return "bad row counts";
    if (o->leaf >= p->num_leaves) return "bad leaf";
    const uint8_t *x = ig_part_section(p, IG_SEC_EXTRA) + (uint64_t)page * IG_PX_SIZE;
    if (ig_ld32(x + IG_PX_LIVE_VALUES) || ig_ld64(x + IG_PX_NODE_TEXT))
        return "released, but its extras keep counts";
    if (!all_zero(ig_part_section(p, IG_SEC_BLOCKS) + (uint64_t)o->first_block * IG_BLK_SIZE,
                  (size_t)o->nblocks * IG_BLK_SIZE))
        return "released, but its block records are not zero";
    return NULL;
}

int ig_part_page(const struct ig_part *p, uint32_t page, struct ig_pagerec *o,
                 struct ig_error *err)
{
    if (page >= p->num_pages) return ig_err(err, -EIO, "%s: page %u out of range", p->path, page);
    const uint8_t *r = ig_part_section(p, IG_SEC_PAGES) + (uint64_t)page * IG_PG_SIZE;
    o->offset = ig_ld64(r + IG_PG_OFFSET);
    o->capacity = ig_ld32(r + IG_PG_CAPACITY);
    o->stored = ig_ld32(r + IG_PG_STORED);
    o->first_row = ig_ld32(r + IG_PG_FIRST_ROW);
    o->row_count = ig_ld32(r + IG_PG_ROW_COUNT);
    o->entry_count = ig_ld32(r + IG_PG_ENTRY_COUNT);
    o->value_count = ig_ld32(r + IG_PG_VALUE_COUNT);
    o->encoding = r[IG_PG_ENCODING];
    o->compression = r[IG_PG_COMPRESSION];
    o->flags = r[IG_PG_FLAGS];
    o->deleted = ig_ld32(r + IG_PG_DELETED);
    o->checksum = ig_ld64(r + IG_PG_CHECKSUM);
    o->text_len = ig_ld64(r + IG_PG_TEXT_LEN);
    o->body_size = ig_ld32(r + IG_PG_BODY_SIZE);
    o->leaf = ig_ld32(r + IG_PG_LEAF);
    o->first_block = o->nblocks = 0;
    const char *bad = NULL;
    if (p->version >= IG_FORMAT_BLOCKS) {
        /* its blocks run to the next page's first block */
        const uint8_t *x = ig_part_section(p, IG_SEC_EXTRA);
        o->first_block = ig_ld32(x + (uint64_t)page * IG_PX_SIZE + IG_PX_FIRST_BLOCK);
        uint32_t next = page + 1 < p->num_pages
                            ? ig_ld32(x + (uint64_t)(page + 1) * IG_PX_SIZE + IG_PX_FIRST_BLOCK)
                            : p->num_blocks;
        if (o->first_block >= next || next > p->num_blocks || next - o->first_block > o->row_count)
            bad = "bad block range";
        else
            o->nblocks = next - o->first_block;
    }
    if (bad) {
    } else if (!extent_in_data(p, o->offset, o->capacity))
        bad = "extent outside the data region";
    else if (o->flags & IG_PGF_RELEASED)
        bad = released_page_problem(p, page, o);
    else if (o->stored == 0 || o->stored > o->capacity)
        bad = "stored size exceeds its extent";
    else if (o->body_size < IG_BODY_HDR || o->body_size > IG_MAX_PAGE_BODY)
        bad = "implausible body size";
    else if (o->compression > (p->version >= IG_FORMAT_ZDICT && o->nblocks ? IG_PC_ZSTD_DICT : IG_PC_ZSTD) ||
             (o->compression == IG_PC_NONE && o->body_size != o->stored && !o->nblocks))
        bad = "bad compression fields";
    else if (o->row_count == 0 || o->entry_count < o->row_count ||
             (uint64_t)o->value_count > (uint64_t)o->entry_count * 65536 || o->deleted > o->row_count)
        bad = "bad row counts";
    else if (o->leaf >= p->num_leaves)
        bad = "bad leaf";
    if (bad) return ig_err(err, -EIO, "%s: corrupt footer: page %u: %s", p->path, page, bad);
    return 0;
}

uint32_t ig_page_nblocks(const struct ig_pagerec *page)
{
    return page->nblocks ? page->nblocks : 1;
}

int ig_part_block(const struct ig_part *p, uint32_t page, const struct ig_pagerec *rec, uint32_t b,
                  struct ig_pagerec *o, struct ig_error *err)
{
    if (rec->flags & IG_PGF_RELEASED)
        return ig_err(err, -ENODATA,
                      "%s: page %u was released by ingot gc (no version kept shows its column)",
                      p->path, page);
    if (!rec->nblocks) { /* a page of an older part: one block, the page itself */
        if (b) return ig_err(err, -EIO, "%s: page %u has one block, not %u", p->path, page, b + 1);
        *o = *rec;
        o->first_row = 0;
        return 0;
    }
    if (b >= rec->nblocks)
        return ig_err(err, -EIO, "%s: page %u block %u out of range", p->path, page, b);
    const uint8_t *r = ig_part_section(p, IG_SEC_BLOCKS) + (uint64_t)(rec->first_block + b) * IG_BLK_SIZE;
    uint32_t off = ig_ld32(r + IG_BLK_OFFSET);
    uint32_t end = b + 1 < rec->nblocks ? ig_ld32(r + IG_BLK_SIZE + IG_BLK_OFFSET) : rec->capacity;
    *o = (struct ig_pagerec){0};
    o->offset = rec->offset + off;
    o->capacity = end >= off ? end - off : 0;
    o->stored = ig_ld32(r + IG_BLK_STORED);
    o->body_size = ig_ld32(r + IG_BLK_BODY_SIZE);
    o->first_row = ig_ld32(r + IG_BLK_FIRST_ROW);
    o->row_count = ig_ld32(r + IG_BLK_ROW_COUNT);
    o->entry_count = ig_ld32(r + IG_BLK_ENTRY_COUNT);
    o->value_count = ig_ld32(r + IG_BLK_VALUE_COUNT);
    o->compression = r[IG_BLK_COMPRESSION];
    o->encoding = r[IG_BLK_ENCODING];
    o->flags = r[IG_BLK_FLAGS];
    o->checksum = ig_ld64(r + IG_BLK_CHECKSUM);
    o->leaf = rec->leaf;
    const char *bad = NULL;
    if (end > rec->capacity || off > end)
        bad = "extent outside its page";
    else if (o->stored == 0 || o->stored > o->capacity)
        bad = "stored size exceeds its extent";
    else if (o->body_size < IG_BODY_HDR || o->body_size > IG_MAX_PAGE_BODY)
        bad = "implausible body size";
    else if (o->compression > (p->version >= IG_FORMAT_ZDICT ? IG_PC_ZSTD_DICT : IG_PC_ZSTD) ||
             r[IG_BLK_RESERVED] ||
             (o->compression == IG_PC_NONE && o->body_size != o->stored))
        bad = "bad compression fields";
    else if (o->row_count == 0 || o->first_row > rec->row_count ||
             o->row_count > rec->row_count - o->first_row || (b == 0 && o->first_row != 0) ||
             (b + 1 == rec->nblocks && o->first_row + o->row_count != rec->row_count) ||
             o->entry_count < o->row_count || (uint64_t)o->value_count > (uint64_t)o->entry_count * 65536)
        bad = "bad row counts";
    if (bad)
        return ig_err(err, -EIO, "%s: corrupt footer: page %u block %u: %s", p->path, page, b, bad);
    return 0;
}

int ig_part_block_of_row(const struct ig_part *p, uint32_t page, const struct ig_pagerec *rec,
                         uint32_t row, uint32_t *b, struct ig_pagerec *o, struct ig_error *err)
{
    uint32_t lo = 0, hi = ig_page_nblocks(rec); /* the last block starting at or before row */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        int rc = ig_part_block(p, page, rec, mid, o, err);
        if (rc) return rc;
        if (o->first_row <= row)
            lo = mid;
        else
            hi = mid;
    }
    int rc = ig_part_block(p, page, rec, lo, o, err);
    if (rc) return rc;
    if (row < o->first_row || row - o->first_row >= o->row_count)
        return ig_err(err, -EIO, "%s: corrupt footer: page %u: no block holds row %u", p->path, page, row);
    *b = lo;
    return 0;
}

bool ig_part_row_deleted(const struct ig_part *p, uint64_t row)
{
    if (row >= p->num_rows) return false;
    const uint8_t *bm = ig_part_section(p, IG_SEC_DELETION);
    return (bm[row / 8] >> (row % 8)) & 1;
}

bool ig_part_deleted_bits(const struct ig_part *p, uint64_t first, uint32_t count, uint8_t *dst)
{
    memset(dst, 0, (count + 7) / 8);
    if (p->deleted_rows == 0) return false;
    bool any = false;
    const uint8_t *bm = ig_part_section(p, IG_SEC_DELETION);
    for (uint32_t i = 0; i < count; i++) {
        uint64_t r = first + i;
        if (r < p->num_rows && ((bm[r / 8] >> (r % 8)) & 1)) {
            dst[i / 8] |= (uint8_t)(1u << (i % 8));
            any = true;
        }
    }
    return any;
}

bool ig_part_leaf_released(const struct ig_part *p, uint32_t leaf)
{
    uint32_t first, count;
    if (p->version < IG_FORMAT_VERSIONED || !p->num_groups ||
        ig_part_chunk(p, 0, leaf, &first, &count, NULL))
        return false;
    return ig_part_section(p, IG_SEC_PAGES)[(uint64_t)first * IG_PG_SIZE + IG_PG_FLAGS] &
           IG_PGF_RELEASED;
}

int ig_part_page_extra(const struct ig_part *p, uint32_t page, struct ig_pagex *out,
                       struct ig_error *err)
{
    if (page >= p->num_pages) return ig_err(err, -EIO, "%s: page %u out of range", p->path, page);
    const uint8_t *x = ig_part_section(p, IG_SEC_EXTRA) + (uint64_t)page * IG_PX_SIZE;
    out->live_values = ig_ld32(x + IG_PX_LIVE_VALUES);
    out->node_text_len = ig_ld64(x + IG_PX_NODE_TEXT);
    return 0;
}

uint64_t ig_footer_group_hash(const struct ig_part *p, const uint8_t *footer, uint32_t first,
                              uint32_t count)
{
    return ig_merkle_group_hash(footer + p->sec_off[IG_SEC_PAGES] + (uint64_t)first * IG_PG_SIZE,
                                footer + p->sec_off[IG_SEC_EXTRA] + (uint64_t)first * IG_PX_SIZE,
                                count);
}
