/* viewnames.c - the epoch that keeps cached view names on one generation
 * (viewnames.h). */
#include "viewnames.h"

#include <string.h>

void fs_view_names_init(struct fs_view_names *v)
{
    memset(v, 0, sizeof *v);
    atomic_init(&v->cached, false);
    pthread_mutex_init(&v->mu, NULL);
    pthread_cond_init(&v->cv, NULL);
}

void fs_view_names_free(struct fs_view_names *v)
{
    pthread_mutex_destroy(&v->mu);
    pthread_cond_destroy(&v->cv);
}

uint64_t fs_view_names_epoch(struct fs_view_names *v)
{
    pthread_mutex_lock(&v->mu);
    uint64_t e = v->epoch;
    pthread_mutex_unlock(&v->mu);
    return e;
}

bool fs_view_names_send(struct fs_view_names *v, uint64_t epoch)
{
    if (!atomic_load(&v->cached)) return false;
    pthread_mutex_lock(&v->mu);
    bool ok = !v->blocked && v->epoch == epoch;
    if (ok) v->inflight++;
    pthread_mutex_unlock(&v->mu);
    return ok;
}

void fs_view_names_sent(struct fs_view_names *v)
{
    pthread_mutex_lock(&v->mu);
    if (--v->inflight == 0) pthread_cond_broadcast(&v->cv);
    pthread_mutex_unlock(&v->mu);
}

void fs_view_names_block(struct fs_view_names *v)
{
    pthread_mutex_lock(&v->mu);
    v->blocked++;
    v->epoch++;
    while (v->inflight)
        pthread_cond_wait(&v->cv, &v->mu);
    pthread_mutex_unlock(&v->mu);
}

void fs_view_names_unblock(struct fs_view_names *v)
{
    pthread_mutex_lock(&v->mu);
    v->blocked--;
    pthread_mutex_unlock(&v->mu);
}
