/* session_open.h - a mount's session opened as the mount's options ask: the
 * step above session.c that also reaches the rooms a mount wires in (the
 * staging of written columns, the watch), so that session.c, which every room
 * uses, reaches none of them. */
#ifndef IG_FS_SESSION_OPEN_H
#define IG_FS_SESSION_OPEN_H

#include "fs.h"
#include "session.h"

/* fs_session_init with o's table, version and cache, every part's footer
 * checked (a damaged footer fails the mount now, not the first reader later),
 * and the session set as o asks: changes watched (by inotify where the table
 * is local, else by the timer alone), columns written in place unless the
 * table is on object storage. */
int fs_session_open(struct fs_session *s, const struct fs_opts *o, struct ig_error *err);

#endif
