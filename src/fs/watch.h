/* watch.h - noticing that the table changed on disk.
 *
 * Changes made on this host arrive through inotify at once (the table
 * directory's MANIFEST and its .ingot/ directory: journal, audit log); changes
 * made by another host sharing the table (a network file system: inotify sees
 * only local writes) are found by a timer every poll_ms, whose callback checks
 * the table's generation. A thread of its own calls back: `changed` after a
 * burst of events settled (20 ms), `tick` on the timer.
 *
 * What it does not do: reload anything itself, or know what a table is. */
#ifndef IG_FS_WATCH_H
#define IG_FS_WATCH_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

struct fs_watch {
    unsigned poll_ms; /* the timer (0: none) */
    bool use_inotify; /* learn of this host's changes at once */
    bool running;
    int inotify_fd;
    int stop_pipe[2];
    pthread_t thread;
    atomic_int fd;    /* inotify_fd while the thread runs, else -1 */
    atomic_bool busy; /* events were taken and `changed` has not returned yet */
    void (*changed)(void *ctx);
    void (*tick)(void *ctx);
    void *ctx;
};

void fs_watch_init(struct fs_watch *w, unsigned poll_ms, bool use_inotify);
/* Watch dir (and dir/.ingot, made if missing) and start the thread: 0, or a
 * negative errno. Neither inotify nor a timer: 0 and no thread (running false). */
int fs_watch_start(struct fs_watch *w, const char *dir, void (*changed)(void *),
                   void (*tick)(void *), void *ctx);
void fs_watch_stop(struct fs_watch *w);

/* Might a change on this host be under way that the thread has not finished
 * calling back for: events queued or being handled, or no thread watching at
 * all (then always true: the caller must check the table itself). One ioctl. */
bool fs_watch_unsettled(struct fs_watch *w);

#endif
