/* keyset.h - a set of 64-bit keys shared by the daemon's threads: the pages
 * already reported as damaged, the blob objects whose checksum was checked.
 * It only grows (until unmount); out of memory, a key is simply not kept
 * (the page is reported again, the object checked again). */
#ifndef IG_FS_KEYSET_H
#define IG_FS_KEYSET_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "util/u64map.h"

struct fs_keyset {
    pthread_mutex_t mu;
    struct ig_u64map map;
};

void fs_keyset_init(struct fs_keyset *k);
void fs_keyset_free(struct fs_keyset *k);
/* Was key in the set? With add, it is now. */
bool fs_keyset_had(struct fs_keyset *k, uint64_t key, bool add);

#endif
