/* keyset.c - a locked set of keys (keyset.h). */
#include "keyset.h"

#include <string.h>

void fs_keyset_init(struct fs_keyset *k)
{
    memset(k, 0, sizeof *k);
    pthread_mutex_init(&k->mu, NULL);
}

void fs_keyset_free(struct fs_keyset *k)
{
    ig_u64map_free(&k->map);
    pthread_mutex_destroy(&k->mu);
}

bool fs_keyset_had(struct fs_keyset *k, uint64_t key, bool add)
{
    pthread_mutex_lock(&k->mu);
    bool had = k->map.cap && k->map.vals[ig_u64map_slot(&k->map, key)] != 0;
    if (!had && add) (void)ig_u64map_add(&k->map, key, 1, &had);
    pthread_mutex_unlock(&k->mu);
    return had;
}
