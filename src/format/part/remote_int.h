/* remote_int.h - what remote.c (files, the lock, uploads) and remote_erase.c
 * (objects rewritten from an erasure's journal) share. Not a public interface. */
#ifndef IG_FORMAT_PART_REMOTE_INT_H
#define IG_FORMAT_PART_REMOTE_INT_H

#include <stdint.h>

struct ig_buf;
struct ig_error;
struct ig_store;

#define LOCK_NAME    ".ingot/lock"
#define JOURNAL_NAME ".ingot/journal"
#define MIB          ((uint64_t)1 << 20)

/* An environment variable as a number, dflt when unset or not one. */
uint64_t ig_remote_env_u64(const char *name, uint64_t dflt);
/* Remove every version of name but `keep` (a version id; NULL: remove all,
 * the current one too). Each removed version is named in *removed. */
int ig_remote_remove_versions(struct ig_store *st, const char *name, const char *keep,
                              struct ig_buf *removed, uint64_t *count, struct ig_error *err);

#endif
