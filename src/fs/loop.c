/* loop.c - the request loop: worker threads on /dev/fuse.
 *
 * Every thread reads the one session device (non-blocking) and sleeps in
 * poll(2) when there is nothing to read; measured on the 2-core machine this
 * costs a first read of a small blob object about a third less than libfuse's
 * multi-threaded loop with a cloned device per thread (docs/BENCHMARKS.md).
 *
 * Optionally (-o spin_us=N) one thread at a time stays awake N microseconds
 * after each request, asking for the next: waking a sleeping thread costs
 * 30-50 µs on a virtual machine (the idle CPU halts), more than a small
 * request's work. On 2 cores the spinner takes the CPU the reader needs, and
 * small-file reads got 1.2-1.7x slower, so it is off by default; it is for
 * machines with cores to spare. */
#include "loop.h"

#include <errno.h>
#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#define FS_LOOP_MAX_THREADS 64

struct loop {
    struct fuse_session *se;
    int fd;
    uint64_t spin_ns;
    atomic_bool spinning; /* a thread is spinning */
    atomic_int error;     /* first fatal receive error */
};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The next request into buf: spinning for a while if no other thread does,
 * else sleeping until the device is readable (and then racing for it).
 * Returns what fuse_session_receive_buf returns, -EAGAIN to try again. */
static int receive(struct loop *l, struct fuse_buf *buf)
{
    int res = fuse_session_receive_buf(l->se, buf);
    if (res != -EAGAIN) return res;
    if (l->spin_ns && !atomic_exchange(&l->spinning, true)) {
        uint64_t until = now_ns() + l->spin_ns;
        do
            res = fuse_session_receive_buf(l->se, buf);
        while (res == -EAGAIN && !fuse_session_exited(l->se) && now_ns() < until);
        atomic_store(&l->spinning, false);
        if (res != -EAGAIN) return res;
    }
    /* sleep; wake now and then to notice an exit requested by a signal */
    struct pollfd pf = {l->fd, POLLIN, 0};
    if (poll(&pf, 1, 250) < 0 && errno != EINTR) return -errno;
    return -EAGAIN;
}

static void *worker(void *arg)
{
    struct loop *l = arg;
    struct fuse_buf buf = {0};
    while (!fuse_session_exited(l->se)) {
        int res = receive(l, &buf);
        if (res == -EAGAIN || res == -EINTR) continue;
        if (res <= 0) { /* 0: the file system was unmounted */
            if (res < 0) atomic_store(&l->error, res);
            fuse_session_exit(l->se);
            break;
        }
        fuse_session_process_buf(l->se, &buf);
    }
    free(buf.mem);
    return NULL;
}

int fs_loop(struct fuse_session *se, unsigned threads, unsigned spin_us)
{
    struct loop l = {.se = se, .fd = fuse_session_fd(se), .spin_ns = (uint64_t)spin_us * 1000};
    int flags = fcntl(l.fd, F_GETFL);
    if (flags < 0 || fcntl(l.fd, F_SETFL, flags | O_NONBLOCK) < 0) return -errno;
    if (threads < 1) threads = 1;
    if (threads > FS_LOOP_MAX_THREADS) threads = FS_LOOP_MAX_THREADS;
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
