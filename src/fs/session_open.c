/* session_open.c - a mount's session opened as its options ask (session_open.h). */
#include "session_open.h"
#include "staging.h"
#include "format/ops/verify.h"
#include "store/store.h"

int fs_session_open(struct fs_session *s, const struct fs_opts *o, struct ig_error *err)
{
    if (fs_session_init(s, o->table_dir, o->version, o->cache_bytes, err)) return -1;
    for (uint32_t i = 0; i < s->table.nparts; i++)
        if (ig_part_check_footer(&s->table.parts[i], err)) {
            fs_session_destroy(s);
            return -1;
        }
    s->foreground = o->foreground;
    s->erase_gid = o->erase_gid;
    bool remote = ig_store_is_remote(s->dir);
    /* object storage has no inotify: its changes are found by the timer */
    fs_watch_init(&s->watch, o->poll_ms, !o->no_inotify && !remote);
    s->column_io = o->columns;
    s->staging = fs_staging_new(); /* out of memory: columns cannot be written (EROFS) */
    return 0;
}
