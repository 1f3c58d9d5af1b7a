/* progress.h - a one-line progress report on stderr for long work.
 *
 * Shown only when stderr is a terminal (quiet in scripts and CI), redrawn at most
 * ten times a second, erased when the work ends. Only the CLI uses it: library
 * code reports progress through callbacks and never prints. */
#ifndef IG_UTIL_PROGRESS_H
#define IG_UTIL_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ig_progress {
    bool on;
    bool every; /* INGOT_TEST_PROGRESS set: every update drawn, terminal or not (the tests) */
    bool drawn;
    const char *what;
    uint64_t start_ns, last_ns;
};

void ig_progress_begin(struct ig_progress *p, const char *what);
/* rows may be 0 when not meaningful; total 0: not known (no percentage). */
void ig_progress_update(struct ig_progress *p, uint64_t done, uint64_t total, uint64_t rows);
/* The same counted in rows alone (work whose bytes are not known ahead), or
 * in other units ("inputs"). */
void ig_progress_rows(struct ig_progress *p, uint64_t done, uint64_t total);
void ig_progress_count(struct ig_progress *p, uint64_t done, uint64_t total, const char *unit);
/* The two as the library's progress hooks take them (ctx: the struct
 * ig_progress): bytes done of total, rows done of total. */
void ig_progress_bytes_hook(void *ctx, uint64_t done, uint64_t total);
void ig_progress_rows_hook(void *ctx, uint64_t done, uint64_t total);
void ig_progress_end(struct ig_progress *p);

/* Two lines, one after the other: work, then what finishes it elsewhere (an
 * import's upload to object storage, an erase's replacement of the objects).
 * `first` is drawn as above; the first update of the second (its hook, ctx:
 * the pair) ends the first line and begins the second. */
struct ig_progress_pair {
    struct ig_progress first, second;
    bool in_second;
    char second_what[300];
};
void ig_progress_pair_begin(struct ig_progress_pair *p, const char *first_what, const char *second_what);
void ig_progress_second_hook(void *ctx, uint64_t done, uint64_t total);
void ig_progress_pair_end(struct ig_progress_pair *p);

/* "12.3 MiB" style sizes, for progress lines and inspect. */
void ig_format_bytes(char *out, size_t cap, uint64_t bytes);

#endif
