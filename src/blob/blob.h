/* blob.h - blob files: binary objects back to back, reached by (offset, size).
 *
 * Images, audio and video do not belong inside column pages (Magnus's Blob
 * format): each part has one blob file, part-NNNNNN.blob, holding its objects raw
 * (media is already compressed). A column of type blob or list<blob> stores per
 * object a reference: offset and size in the blob file and the XXH3-64 of the
 * bytes. Reading one object is one pread of exactly its range.
 *
 * File layout: "INGOTBLB" (8 bytes), then objects. An object of 64 KiB or more
 * starts 4 KiB-aligned (so it maps and reads in whole pages); smaller objects
 * follow each other directly. Gaps are zero. Nothing else is stored: the
 * references live in the part's pages. */
#ifndef IG_BLOB_BLOB_H
#define IG_BLOB_BLOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ig_error;

#define IG_BLOB_MAGIC "INGOTBLB"
#define IG_BLOB_HEADER 8
#define IG_BLOB_ALIGN 4096
#define IG_BLOB_ALIGN_FROM (64u << 10)
#define IG_BLOB_MAX_OBJECT (1ull << 40)

struct ig_blob_ref {
    uint64_t offset, size, hash;
};

struct ig_blob_writer {
    int fd;
    char *path;
    uint64_t end;      /* next free byte */
    uint64_t objects;
    bool finished;
    bool existed;      /* opened to append to a file that was there: unfinished,
                          it is cut back to base, its size then */
    uint64_t base;
};

int ig_blob_writer_open(struct ig_blob_writer *w, const char *path, struct ig_error *err);
/* Add objects to an existing blob file (columns added to a part: the objects
 * already there keep their offsets), or create it. Freed unfinished, the file
 * is cut back to what it held (or removed, if this made it). */
int ig_blob_writer_open_append(struct ig_blob_writer *w, const char *path, struct ig_error *err);
/* Copy one object of another blob file (src_fd, its reference src) into this
 * one, checking its hash on the way: -EIO naming src_path if it differs. */
int ig_blob_writer_add_object(struct ig_blob_writer *w, int src_fd, const char *src_path,
                              const struct ig_blob_ref *src, struct ig_blob_ref *ref, struct ig_error *err);
/* Copy a whole file into the blob file. Errors name the source path. */
int ig_blob_writer_add_file(struct ig_blob_writer *w, const char *src, struct ig_blob_ref *ref,
                            struct ig_error *err);
/* The same from an open file (read by offset from 0 to its end), `src`
 * naming it in errors. */
int ig_blob_writer_add_fd(struct ig_blob_writer *w, int fd, const char *src, struct ig_blob_ref *ref,
                          struct ig_error *err);
/* The same from [off, off + size) of an open file (objects fetched into one
 * file before the rows: import's blob_fetch.h). */
int ig_blob_writer_add_range(struct ig_blob_writer *w, int fd, uint64_t off, uint64_t size, const char *src,
                             struct ig_blob_ref *ref, struct ig_error *err);
int ig_blob_writer_add(struct ig_blob_writer *w, const void *p, size_t n, struct ig_blob_ref *ref,
                       struct ig_error *err);
/* fsync and close. */
int ig_blob_writer_finish(struct ig_blob_writer *w, struct ig_error *err);
/* Close; removes the file unless finished. */
void ig_blob_writer_free(struct ig_blob_writer *w);

/* Read [off, off + n) of an object (bounds-checked against the reference).
 * A short file is -EIO. */
int ig_blob_read(int fd, const struct ig_blob_ref *ref, uint64_t off, void *buf, size_t n);
/* Read the whole object and compare its hash: 0, or -EIO. */
int ig_blob_verify(int fd, const struct ig_blob_ref *ref, struct ig_error *err);

/* File extension for an object, from its first bytes: "jpg", "png", "webp",
 * "gif", "mp4", "mov", "mkv", "webm", "wav", "mp3", "flac", or "" when unknown. */
const char *ig_blob_sniff(const uint8_t *head, size_t n);
#define IG_BLOB_SNIFF_BYTES 64

/* Media kinds as small codes (kept in the reference): 0 = unknown. */
unsigned ig_blob_kind(const char *ext);
const char *ig_blob_kind_ext(unsigned kind); /* "" for 0 or unknown codes */

/* A reference as it travels in column values: 24 bytes, little-endian
 * (offset, size | kind << 56, hash). Object sizes are below 2^40. */
#define IG_BLOB_REF_BYTES 24
void ig_blob_ref_store(uint8_t *p, const struct ig_blob_ref *r, unsigned kind);
void ig_blob_ref_load(const uint8_t *p, struct ig_blob_ref *r, unsigned *kind);

#endif
