/* mount.c - mount a table, daemonise with a status pipe, serve, unmount.
 *
 * The parent only returns once the child reports the mount is up ("OK") or why
 * it failed, so `ingot mount` never succeeds and then leaves a dead mount point.
 * SIGTERM, SIGINT and SIGHUP end the loop (libfuse's handlers); the mount is then
 * detached lazily so readers with open files are not killed. */
#include "fs/fill.h"
#include "fs/fs.h"
#include "fs/invalidate.h"
#include "fs/kernel.h"
#include "ops.h"
#include "fs/session.h"
#include "fs/session_open.h"
#include "fs/staging.h"
#include "fs/subtables.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/sigbus.h"

#include <errno.h>
#include <fuse_lowlevel.h>
#include <linux/fuse.h>
#include <malloc.h>
#include <sys/epoll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <syslog.h>
#include <unistd.h>

/* The FUSE connection's device ("0:53") from /proc/self/mountinfo: reading it
 * does not touch the mount, which is not being served yet. */
/* ---- telling the kernel (struct fs_kernel, kernel.h): libfuse's notify calls
 * and the deferred replies of erases ------------------------------------ */

static void inval_inode(void *ctx, uint64_t ino)
{
    fuse_lowlevel_notify_inval_inode(ctx, ino, 0, 0);
}

static void inval_entry(void *ctx, uint64_t parent, const char *name, size_t len)
{
    fuse_lowlevel_notify_inval_entry(ctx, parent, name, len);
}

static void delete_entry(void *ctx, uint64_t parent, uint64_t child, const char *name, size_t len)
{
    fuse_lowlevel_notify_delete(ctx, parent, child, name, len);
}

/* unlink: done (0); write: the bytes written */
static void answer(void *req, bool write, size_t size)
{
    if (write)
        fuse_reply_write(req, size);
    else
        fuse_reply_err(req, 0);
}

static struct fs_kernel kernel_of(struct fuse_session *se)
{
    return (struct fs_kernel){.ctx = se,
                              .inval_inode = inval_inode,
                              .inval_entry = inval_entry,
                              .delete_entry = delete_entry,
                              .answer = answer};
}

static bool mount_device(const char *mountpoint, char *dev, size_t cap)
{
    FILE *f = fopen("/proc/self/mountinfo", "r");
    if (!f) return false;
    char line[8192];
    bool found = false;
    while (fgets(line, sizeof line, f)) {
        char mdev[64], mpoint[4096];
        if (sscanf(line, "%*s %*s %63s %*s %4095s", mdev, mpoint) == 2 &&
            !strcmp(mpoint, mountpoint)) {
            snprintf(dev, cap, "%s", mdev); /* the last match is the newest mount */
            found = true;
        }
    }
    fclose(f);
    return found;
}

/* Buffered reads reach the daemon in readahead-sized requests; FUSE starts with
 * 128 KiB. Raise it for this mount's backing device (needs root; best effort). */
static void raise_readahead(const char *mountpoint, unsigned kb)
{
    char dev[64], path[128];
    if (!kb || !mount_device(mountpoint, dev, sizeof dev)) return;
    snprintf(path, sizeof path, "/sys/class/bdi/%s/read_ahead_kb", dev);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return;
    char v[32];
    int n = snprintf(v, sizeof v, "%u\n", kb);
    if (write(fd, v, (size_t)n) < 0) { /* not fatal */
    }
    close(fd);
}

static void report(int fd, const char *msg)
{
    if (fd < 0) return;
    size_t n = strlen(msg);
    if (write(fd, msg, n) < 0) { /* the parent is gone; nothing to tell */
    }
    close(fd);
}

/* ---- the request loop: worker threads on /dev/fuse ----
 *
 * Every thread reads the one session device (non-blocking) and sleeps on an
 * epoll set of its own that holds the device with EPOLLEXCLUSIVE, so one
 * request wakes one sleeping thread. With poll(2) every request woke all of
 * them (a thundering herd: on 2 cores 8 threads made each small-file request
 * 1.6x slower than 1 thread). A woken thread reads until the device is empty
 * before it sleeps again, so no queued request waits for a wake-up.
 *
 * Optionally (-o spin_us=N) one thread at a time stays awake N microseconds
 * after each request, asking for the next: waking a sleeping thread costs
 * 30-50 µs on a virtual machine (the idle CPU halts), more than a small
 * request's work. On 2 cores the spinner takes the CPU the reader needs, and
 * small-file reads got 1.2-1.7x slower, so it is off by default; it is for
 * machines with cores to spare. */
#define FS_LOOP_MAX_THREADS 64

struct loop {
    struct fuse_session *se;
    int fd;
    uint64_t spin_ns;
    atomic_bool spinning; /* a thread is spinning */
    atomic_int error;     /* first fatal receive error */
};

/* The next request into buf: spinning for a while if no other thread does,
 * else sleeping until the device is readable (and then racing for it).
 * Returns what fuse_session_receive_buf returns, -EAGAIN to try again. */
static int receive(struct loop *l, int ep, struct fuse_buf *buf)
{
    int res = fuse_session_receive_buf(l->se, buf);
    if (res != -EAGAIN) return res;
    if (l->spin_ns && !atomic_exchange(&l->spinning, true)) {
        uint64_t until = ig_now_ns() + l->spin_ns;
        do
            res = fuse_session_receive_buf(l->se, buf);
        while (res == -EAGAIN && !fuse_session_exited(l->se) && ig_now_ns() < until);
        atomic_store(&l->spinning, false);
        if (res != -EAGAIN) return res;
    }
    /* sleep; wake now and then to notice an exit requested by a signal */
    struct epoll_event ev;
    if (epoll_wait(ep, &ev, 1, 250) < 0 && errno != EINTR) return -errno;
    return -EAGAIN;
}

static void *worker(void *arg)
{
    struct loop *l = arg;
    struct fuse_buf buf = {0};
    struct epoll_event want = {.events = EPOLLIN | EPOLLEXCLUSIVE};
    int ep = epoll_create1(EPOLL_CLOEXEC);
    if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, l->fd, &want) < 0) {
        atomic_store(&l->error, -errno);
        fuse_session_exit(l->se);
        if (ep >= 0) close(ep);
        return NULL;
    }
    while (!fuse_session_exited(l->se)) {
        int res = receive(l, ep, &buf);
        if (res == -EAGAIN || res == -EINTR) continue;
        if (res <= 0) { /* 0: the file system was unmounted */
            if (res < 0) atomic_store(&l->error, res);
            fuse_session_exit(l->se);
            break;
        }
        fuse_session_process_buf(l->se, &buf);
    }
    free(buf.mem);
    close(ep);
    return NULL;
}

static unsigned loop_threads(unsigned asked)
{
    if (asked < 1) return 1;
    return asked > FS_LOOP_MAX_THREADS ? FS_LOOP_MAX_THREADS : asked;
}

static int fs_loop(struct fuse_session *se, unsigned threads, unsigned spin_us)
{
    struct loop l = {.se = se, .fd = fuse_session_fd(se), .spin_ns = (uint64_t)spin_us * 1000};
    int flags = fcntl(l.fd, F_GETFL);
    if (flags < 0 || fcntl(l.fd, F_SETFL, flags | O_NONBLOCK) < 0) return -errno;
    pthread_t tid[FS_LOOP_MAX_THREADS];
    unsigned started = 0;
    for (unsigned i = 1; i < threads; i++)
        if (pthread_create(&tid[started], NULL, worker, &l) == 0) started++;
    worker(&l); /* this thread is one of them */
    for (unsigned i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    fuse_session_reset(se);
    return atomic_load(&l.error);
}


/* The session opened as o asks (fs_session_open), its failure reported. */
static int open_session(struct fs_session *s, const struct fs_opts *o, int status_fd)
{
    struct ig_error err = {0};
    if (fs_session_open(s, o, &err)) {
        report(status_fd, err.msg);
        return 2;
    }
    return 0;
}

/* ---- parallel lookups ----
 *
 * libfuse before 3.16.2 (Debian 12 has 3.14) wants FUSE_CAP_PARALLEL_DIROPS
 * by default but never puts it in its INIT reply (libfuse #861), so the kernel
 * takes a directory's lock around every lookup in it: rows/ID opened by 16
 * threads arrived one at a time, each waiting for the one before (on object
 * storage, a round trip each). The session writes to the device through this
 * hook, which sets the flag in the INIT reply, the session's first write (no
 * request comes before INIT, and nothing is sent unasked before its reply);
 * every other write passes through unchanged. Lookups and listings of one
 * directory then run as those of different directories always have: each
 * takes the table lock for reading, and the caches have their own locks. */
static atomic_bool init_seen;

static ssize_t dev_writev(int fd, struct iovec *iov, int count, void *userdata)
{
    (void)userdata;
    if (!atomic_load(&init_seen) && count == 2 && iov[0].iov_len == sizeof(struct fuse_out_header) &&
        iov[1].iov_len >= offsetof(struct fuse_init_out, flags) + sizeof(uint32_t) &&
        !atomic_exchange(&init_seen, true)) {
        const struct fuse_out_header *h = iov[0].iov_base;
        struct fuse_init_out *out = iov[1].iov_base;
        if (h->error == 0 && out->major == FUSE_KERNEL_VERSION) out->flags |= FUSE_PARALLEL_DIROPS;
    }
    return writev(fd, iov, count);
}

static ssize_t dev_read(int fd, void *buf, size_t len, void *userdata)
{
    (void)userdata;
    return read(fd, buf, len);
}

/* The FUSE session over s, mounted at mountpoint with its signal handlers;
 * NULL (reported) if any step fails. */
static struct fuse_session *mount_session(struct fs_session *s, const struct fs_opts *o, const char *mountpoint,
                                          int status_fd)
{
    char opts[4096 + 64];
    /* default_permissions: the kernel checks the modes the files show, so with
     * allow_other other users read what the modes allow and nothing more */
    snprintf(opts, sizeof opts, "fsname=ingot:%s,subtype=ingot,default_permissions%s", s->dir,
             o->allow_other ? ",allow_other" : "");
    /* commas in the path would split the option: replace them in fsname */
    for (char *p = opts + 13; *p && strncmp(p, ",subtype=", 9); p++)
        if (*p == ',') *p = '_';
    char *argv[] = {"ingot", "-o", opts, o->debug ? "-d" : NULL, NULL};
    struct fuse_args args = FUSE_ARGS_INIT(o->debug ? 4 : 3, argv);
    struct fuse_session *se = fuse_session_new(&args, &fs_ops, sizeof fs_ops, s);
    fuse_opt_free_args(&args); /* parsing may have copied them; the session keeps its own */
    if (!se) {
        report(status_fd, "cannot create the FUSE session");
        return NULL;
    }
    s->kernel = kernel_of(se);
    if (fuse_set_signal_handlers(se)) {
        report(status_fd, "cannot install signal handlers");
        fuse_session_destroy(se);
        return NULL;
    }
    if (fuse_session_mount(se, mountpoint)) {
        char msg[1024];
        snprintf(msg, sizeof msg, "%s: mount failed (is /dev/fuse available and the directory "
                                  "empty and not mounted?)",
                 mountpoint);
        report(status_fd, msg);
        fuse_remove_signal_handlers(se);
        fuse_session_destroy(se);
        return NULL;
    }
    /* the same device, written through the hook above (no splice: requests
     * and replies are small, and pages go out from memory in one writev) */
    static const struct fuse_custom_io io = {.writev = dev_writev, .read = dev_read};
    if (fuse_session_custom_io(se, &io, fuse_session_fd(se)))
        syslog(LOG_WARNING, "ingot: lookups in one directory stay serialised (custom io refused)");
    return se;
}

/* A daemon's standard streams go to /dev/null, and it leaves its directory. */
static void detach(void)
{
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
        dup2(null, 0);
        dup2(null, 1);
        dup2(null, 2);
        if (null > 2) close(null);
    }
    if (chdir("/")) { /* keep going: paths are absolute */
    }
}

/* Open, check, mount and serve. status_fd gets "OK" or the error. */
static int serve(const struct fs_opts *o, const char *mountpoint, int status_fd)
{
    struct fs_session s;
    if (open_session(&s, o, status_fd)) return 2;
    unsigned threads = loop_threads(o->threads ? o->threads : 8);
    (void)fs_fill_init(&s.fill, threads); /* out of memory: nothing is filled ahead */
    struct fuse_session *se = mount_session(&s, o, mountpoint, status_fd);
    if (!se) {
        fs_staging_free(s.staging);
        fs_session_destroy(&s);
        return 2;
    }
    raise_readahead(mountpoint, o->readahead_kb);
    /* versions/N/ (a mount of the current table only): out of memory, the
     * versions are listed but cannot be entered */
    if (!o->version) (void)fs_subtables_start(&s);
    /* views' names cached when every reload can drop them first: a watcher
     * reloads for handlers, and a second worker answers the lookups a drop
     * waits for (invalidate.h, "view names") */
    atomic_store(&s.vnames.cached, (s.watch.use_inotify || s.watch.poll_ms) && threads >= 2);
    if (fs_invalidate_start(&s)) {
        report(status_fd, "cannot start the invalidation thread");
        fuse_session_unmount(se);
        fuse_remove_signal_handlers(se);
        fuse_session_destroy(se);
        fs_subtables_stop(&s);
        fs_staging_free(s.staging);
        fs_session_destroy(&s);
        return 2;
    }
    if (!s.watch.running) atomic_store(&s.vnames.cached, false); /* no watcher to reload for handlers */
    report(status_fd, "OK");
    if (!o->foreground) detach();
    /* Page-sized buffers come and go with every read; glibc would hand large ones
     * back to the kernel (mmap threshold, heap trimming) and fault fresh zeroed
     * pages in on the next read: a third of the daemon's time when measured.
     * The cache budget bounds the heap anyway, so keep freed memory. */
    mallopt(M_MMAP_THRESHOLD, 64 << 20);
    ig_sigbus_install(); /* page bytes are read from mappings of the part files */
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
    int rc = fs_loop(se, threads, o->spin_us);
    fs_invalidate_stop(&s);
    fs_subtables_stop(&s); /* after the watcher, whose reloads they follow */
    fs_staging_free(s.staging); /* what was being written and not whole: dropped */
    s.staging = NULL;
    fuse_session_unmount(se);
    fuse_remove_signal_handlers(se);
    fuse_session_destroy(se);
    fs_session_destroy(&s);
    return rc ? 1 : 0;
}

/* Does /etc/fuse.conf let users mount with allow_other? */
static bool user_allow_other(void)
{
    FILE *f = fopen("/etc/fuse.conf", "r");
    if (!f) return false;
    char line[256];
    bool yes = false;
    while (!yes && fgets(line, sizeof line, f)) {
        char word[64];
        yes = sscanf(line, " %63s", word) == 1 && !strcmp(word, "user_allow_other");
    }
    fclose(f);
    return yes;
}

int fs_mount_main(const struct fs_opts *o)
{
    if (o->allow_other && getuid() != 0 && !user_allow_other()) {
        fprintf(stderr, "ingot: mount: -o allow_other by a user other than root needs the line "
                        "'user_allow_other' in /etc/fuse.conf (root must add it); without it, "
                        "mount without allow_other (only you can read the mount)\n");
        return 2;
    }
    if (o->erase_group && !o->allow_other) {
        fprintf(stderr, "ingot: mount: -o erase_group=%s only matters with -o allow_other "
                        "(without it no other user can reach the mount)\n",
                o->erase_group);
        return 2;
    }
    char mountpoint[PATH_MAX];
    if (!realpath(o->mountpoint, mountpoint)) {
        fprintf(stderr, "ingot: %s: %s\n", o->mountpoint, strerror(errno));
        return 2;
    }
    struct stat st;
    if (stat(mountpoint, &st) || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "ingot: %s: not a directory\n", o->mountpoint);
        return 2;
    }
    if (o->foreground) {
        int fds[2];
        if (pipe(fds)) return 2;
        /* in the foreground the status goes to our own stderr */
        int rc = serve(o, mountpoint, fds[1]);
        char buf[1100] = "";
        ssize_t n = read(fds[0], buf, sizeof buf - 1);
        close(fds[0]);
        if (n > 0) buf[n] = '\0';
        if (rc == 2 && strcmp(buf, "OK")) fprintf(stderr, "ingot: %s\n", buf);
        return rc;
    }
    int fds[2];
    if (pipe2(fds, O_CLOEXEC)) {
        fprintf(stderr, "ingot: pipe: %s\n", strerror(errno));
        return 2;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "ingot: fork: %s\n", strerror(errno));
        return 2;
    }
    if (pid == 0) {
        close(fds[0]);
        setsid();
        openlog("ingot", LOG_PID, LOG_DAEMON);
        _exit(serve(o, mountpoint, fds[1]));
    }
    close(fds[1]);
    char buf[1100];
    size_t got = 0;
    ssize_t n;
    while (got < sizeof buf - 1 && (n = read(fds[0], buf + got, sizeof buf - 1 - got)) != 0) {
        if (n < 0) {
            if (errno == EINTR) continue;
            break;
        }
        got += (size_t)n;
    }
    close(fds[0]);
    buf[got] = '\0';
    if (!strcmp(buf, "OK")) return 0;
    int status;
    waitpid(pid, &status, 0);
    fprintf(stderr, "ingot: %s\n", got ? buf : "the mount daemon exited without reporting");
    return 2;
}
