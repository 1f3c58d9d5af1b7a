/* watch.c - the watcher thread: inotify and a timer (watch.h). */
#include "watch.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

void fs_watch_init(struct fs_watch *w, unsigned poll_ms, bool use_inotify)
{
    memset(w, 0, sizeof *w);
    w->poll_ms = poll_ms;
    w->use_inotify = use_inotify;
    w->inotify_fd = w->stop_pipe[0] = w->stop_pipe[1] = -1;
    atomic_init(&w->fd, -1);
    atomic_init(&w->busy, false);
}

static void *watch_main(void *arg)
{
    struct fs_watch *w = arg;
    char buf[4096] __attribute__((aligned(8)));
    for (;;) {
        struct pollfd pf[2] = {{w->inotify_fd, POLLIN, 0}, {w->stop_pipe[0], POLLIN, 0}};
        int n = poll(pf, 2, w->poll_ms ? (int)w->poll_ms : -1);
        if (n < 0) continue;
        if (pf[1].revents) break;
        if (n == 0) { /* the timer: another host may have changed the table */
            w->tick(w->ctx);
            continue;
        }
        if (!(pf[0].revents & POLLIN)) continue;
        /* let a burst of events (journal, parts, audit log) settle */
        usleep(20000);
        /* from the moment the events leave the queue until the callback is
         * done, fs_watch_unsettled learns of them from this flag instead */
        atomic_store(&w->busy, true);
        while (read(w->inotify_fd, buf, sizeof buf) > 0) {
        }
        w->changed(w->ctx);
        atomic_store(&w->busy, false);
    }
    return NULL;
}

int fs_watch_start(struct fs_watch *w, const char *dir, void (*changed)(void *),
                   void (*tick)(void *), void *ctx)
{
    w->changed = changed;
    w->tick = tick;
    w->ctx = ctx;
    char sub[4200];
    snprintf(sub, sizeof sub, "%s/.ingot", dir);
    mkdir(sub, 0755); /* may fail on a read-only table: then only MANIFEST is watched */
    w->inotify_fd = w->use_inotify ? inotify_init1(IN_NONBLOCK | IN_CLOEXEC) : -1;
    if (w->inotify_fd >= 0) {
        inotify_add_watch(w->inotify_fd, dir, IN_MOVED_TO | IN_CLOSE_WRITE);
        inotify_add_watch(w->inotify_fd, sub, IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO);
    }
    if (pipe2(w->stop_pipe, O_CLOEXEC)) return -errno;
    w->running =
        (w->inotify_fd >= 0 || w->poll_ms) && pthread_create(&w->thread, NULL, watch_main, w) == 0;
    if (!w->running && w->inotify_fd >= 0) {
        close(w->inotify_fd);
        w->inotify_fd = -1;
    }
    atomic_store(&w->fd, w->running ? w->inotify_fd : -1);
    return 0;
}

void fs_watch_stop(struct fs_watch *w)
{
    atomic_store(&w->fd, -1);
    if (w->stop_pipe[1] >= 0 &&
        write(w->stop_pipe[1], "x", 1) < 0) { /* it also stops on poll errors */
    }
    if (w->running) pthread_join(w->thread, NULL);
    w->running = false;
    if (w->inotify_fd >= 0) close(w->inotify_fd);
    if (w->stop_pipe[0] >= 0) close(w->stop_pipe[0]);
    if (w->stop_pipe[1] >= 0) close(w->stop_pipe[1]);
    w->inotify_fd = w->stop_pipe[0] = w->stop_pipe[1] = -1;
}

bool fs_watch_unsettled(struct fs_watch *w)
{
    int fd = atomic_load(&w->fd);
    if (fd < 0 || atomic_load(&w->busy)) return true;
    int queued = 0;
    return ioctl(fd, FIONREAD, &queued) != 0 || queued > 0;
}
