/* viewnames.h - which view names the kernel may keep in its cache.
 *
 * With `cached` set (a watcher reloads and at least two
 * workers serve), the kernel keeps the names of views that answer ESTALE in an
 * older generation (text, JSON, nested arrays under columns/ and groups/G/,
 * parquet/G.parquet, arrow/G.arrow; not arrays that keep their shape, whose
 * older generation is still served: ops.c view_name_cacheable) as it keeps
 * every other name, so `ls -l` of a wide table's columns/ costs few lookups
 * (52,413 entries: 6.1 -> 0.38 s). What keeps a path on the
 * current generation then is that no name of an older one is cached once a
 * newer shows: a reload with names_now (invalidate.h) blocks new cached entries, waits for
 * those on their way, drops every view name the kernel holds, shows the new
 * generation and unblocks; an entry computed across the start of such a reload
 * goes uncached (entry timeout 0). An erase through the mount reloads on the
 * names thread and answers after it; a handler that meets a writer at work
 * waits for the watcher's reload rather than reloading itself (100 ms a try;
 * its last try reloads itself, as before). Without `cached`, view names are
 * looked up at every open (entry timeout 0), group files' excepted. */
#ifndef IG_FS_VIEWNAMES_H
#define IG_FS_VIEWNAMES_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct fs_view_names {
    atomic_bool cached; /* set at mount: a watcher runs and there are 2+ workers */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint64_t epoch;    /* moved by every reload that drops the names */
    unsigned blocked;  /* such reloads at work (the watcher's and the names
                          thread's may overlap): entries go uncached */
    unsigned inflight; /* replies with cached view entries on their way */
};

void fs_view_names_init(struct fs_view_names *v);
void fs_view_names_free(struct fs_view_names *v);
static inline bool fs_view_names_cached(struct fs_view_names *v)
{
    return atomic_load(&v->cached);
}

/* Before computing entries: the epoch they are computed in. */
uint64_t fs_view_names_epoch(struct fs_view_names *v);
/* Just before the reply: may view entries computed since epoch be cached? If
 * so, the reply is on its way: call fs_view_names_sent after it. */
bool fs_view_names_send(struct fs_view_names *v, uint64_t epoch);
void fs_view_names_sent(struct fs_view_names *v);
/* A reload that drops the names: new entries uncached from now on, and those
 * already on their way arrive first; unblock once the new generation shows. */
void fs_view_names_block(struct fs_view_names *v);
void fs_view_names_unblock(struct fs_view_names *v);

#endif
