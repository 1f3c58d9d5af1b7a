/* clock.h - the monotonic clock, for timeouts and elapsed times (never dates). */
#ifndef IG_UTIL_CLOCK_H
#define IG_UTIL_CLOCK_H

#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC in nanoseconds: it never steps back with the wall clock. */
static inline uint64_t ig_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
