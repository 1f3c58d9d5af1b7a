/* loop.h - serving a FUSE session's requests (FUSE glue). */
#ifndef IG_FS_LOOP_H
#define IG_FS_LOOP_H

struct fuse_session;

/* Serve requests on `threads` threads (this one among them) until the session
 * exits (unmount, or a signal through libfuse's handlers); the device is read
 * non-blocking and one thread at a time spins spin_us microseconds for the
 * next request before sleeping (0: never spin). Returns 0 or a negative errno. */
int fs_loop(struct fuse_session *se, unsigned threads, unsigned spin_us);

#endif
