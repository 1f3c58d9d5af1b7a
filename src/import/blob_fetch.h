/* blob_fetch.h - the objects an input's blob values name on object storage
 * (s3://...), fetched before its rows are read, several at a time, into one
 * unnamed local file (spool.h's place for copies), so that the import copies
 * each one from there: a GET's latency paid once per FETCH_THREADS objects,
 * not once per object as each row meets it.
 *
 * An object is fetched once however many values name it. One that cannot be
 * fetched (missing, refused) is left out without an error: the row that
 * names it fetches it itself and fails there, naming its line and column.
 * The file holds about 1 GiB at most (INGOT_BLOB_FETCH_MB; 0: nothing
 * fetched ahead): the objects first named until their sizes reach it, and
 * those in flight then; the rest are left to their rows, one at a time.
 * Not done: a window that moves on as the rows are read. */
#ifndef IG_IMPORT_BLOB_FETCH_H
#define IG_IMPORT_BLOB_FETCH_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ig_error;
struct ig_blob_fetch;

int ig_blob_fetch_new(struct ig_blob_fetch **out, struct ig_error *err); /* -ENOMEM */
/* Name an object to fetch (s3://BUCKET/KEY, as a blob value resolves). */
int ig_blob_fetch_want(struct ig_blob_fetch *f, const char *path, size_t n, struct ig_error *err);
size_t ig_blob_fetch_count(const struct ig_blob_fetch *f);
/* Fetch every object named, `threads` at a time (in threads of its own);
 * stops early once *cancel is nonzero (-EINTR). Errors: the local file
 * (its directory named), memory. */
int ig_blob_fetch_run(struct ig_blob_fetch *f, unsigned threads, const volatile sig_atomic_t *cancel,
                      struct ig_error *err);
/* Where object `path` lies in the fetched file: false when it was not
 * fetched (not named, or its fetch failed). */
bool ig_blob_fetch_find(const struct ig_blob_fetch *f, const char *path, size_t n, int *fd, uint64_t *off,
                        uint64_t *size);
void ig_blob_fetch_free(struct ig_blob_fetch *f);

#endif
