/* store_handle.c - an object handle's life: allocated, shared by every
 * opener of the same name, ETag and size, counted, and destroyed with its
 * cached ranges by the last release. store_obj.c opens and reads handles;
 * store_fetch.c's background fetcher holds one while it fills its ranges. */
#include "store/rcache.h"
#include "store/store.h"
#include "store/store_int.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct ig_obj *store_obj_share(struct ig_store *st, struct ig_obj *fresh)
{
    pthread_mutex_lock(&st->mu);
    for (struct ig_obj *o = st->objs; o; o = o->next)
        if (!strcmp(o->name, fresh->name) && !strcmp(o->info.etag, fresh->info.etag) &&
            o->info.size == fresh->info.size) {
            o->refs++;
            pthread_mutex_unlock(&st->mu);
            return o;
        }
    fresh->refs = 1;
    fresh->next = st->objs;
    st->objs = fresh;
    pthread_mutex_unlock(&st->mu);
    return fresh;
}

struct ig_obj *store_obj_alloc(struct ig_store *st, const char *name)
{
    struct ig_obj *o = calloc(1, sizeof *o);
    if (!o) return NULL;
    o->st = st;
    o->fd = -1;
    snprintf(o->name, sizeof o->name, "%s", name);
    pthread_mutex_init(&o->ra_mu, NULL);
    return o;
}

void store_obj_destroy(struct ig_obj *o)
{
    ig_rc_obj_free(o->rc);
    if (o->fd >= 0) close(o->fd);
    pthread_mutex_destroy(&o->ra_mu);
    free(o);
}

void store_obj_release(struct ig_obj *o)
{
    if (!o) return;
    struct ig_store *st = o->st;
    if (!st->remote) {
        store_obj_destroy(o);
        return;
    }
    pthread_mutex_lock(&st->mu);
    bool last = --o->refs == 0;
    if (last)
        for (struct ig_obj **pp = &st->objs; *pp; pp = &(*pp)->next)
            if (*pp == o) {
                *pp = o->next;
                break;
            }
    pthread_mutex_unlock(&st->mu);
    /* the last handle takes its cached ranges with it: bytes of a replaced
     * object (values an erase removed) do not stay in memory */
    if (last) store_obj_destroy(o);
}
