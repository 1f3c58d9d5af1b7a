/* commit_int.h - what commit.c (a new version) asks of commit_remote.c (the
 * steps that differ on object storage). Not a public interface. */
#ifndef IG_FORMAT_PART_COMMIT_INT_H
#define IG_FORMAT_PART_COMMIT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ig_commit;
struct ig_error;

/* The writers' lock taken, what a crash left settled, a stage directory made. */
int commit_remote_begin(struct ig_commit *c, struct ig_error *err);
/* An object's size (0: there is none). */
int commit_remote_size(struct ig_commit *c, const char *name, uint64_t *size, struct ig_error *err);
/* Part `part`'s local copy made (a sparse file of the object's size; with
 * blobs, its blob file's too, its header fetched), its path into `into`. */
int commit_remote_stage(struct ig_commit *c, uint32_t part, bool blobs, char *into, size_t cap,
                        struct ig_error *err);
/* With the record written (c->journaled: some part was grafted), the new
 * bytes into the objects (their old footers unbounded); the version,
 * MANIFEST; the record removed. */
int commit_remote_finish(struct ig_commit *c, struct ig_error *err);
/* What did not commit rolled back (as the next writer would), the lock let
 * go, the stage removed. */
void commit_remote_end(struct ig_commit *c);

#endif
