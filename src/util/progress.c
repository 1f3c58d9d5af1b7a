#include "progress.h"
#include "clock.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void ig_format_bytes(char *out, size_t cap, uint64_t b)
{
    static const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)b;
    int u = 0;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(out, cap, "%" PRIu64 " B", b);
    else
        snprintf(out, cap, "%.1f %s", v, unit[u]);
}

void ig_progress_begin(struct ig_progress *p, const char *what)
{
    p->every = getenv("INGOT_TEST_PROGRESS") != NULL;
    p->on = p->every || isatty(STDERR_FILENO);
    p->drawn = false;
    p->what = what;
    p->start_ns = p->last_ns = ig_now_ns();
}

/* Whether a line is due (shown, and a tenth of a second since the last);
 * *secs: since the start. */
static bool due(struct ig_progress *p, double *secs)
{
    if (!p->on) return false;
    uint64_t t = ig_now_ns();
    if (t - p->last_ns < 100000000u && !p->every) return false;
    p->last_ns = t;
    *secs = (double)(t - p->start_ns) / 1e9;
    return true;
}

static int percent(uint64_t done, uint64_t total)
{
    int pct = total ? (int)(100.0 * (double)done / (double)total) : 0;
    return pct > 100 ? 100 : pct;
}

void ig_progress_update(struct ig_progress *p, uint64_t done, uint64_t total, uint64_t rows)
{
    double secs;
    if (!due(p, &secs)) return;
    char d[32], tot[32], rate[32];
    ig_format_bytes(d, sizeof d, done);
    ig_format_bytes(tot, sizeof tot, total);
    ig_format_bytes(rate, sizeof rate, secs > 0 ? (uint64_t)((double)done / secs) : 0);
    if (total) /* else not known ahead (a pipe) */
        fprintf(stderr, "\r\033[K%s: %3d%% %s of %s", p->what, percent(done, total), d, tot);
    else
        fprintf(stderr, "\r\033[K%s: %s", p->what, d);
    if (rows) fprintf(stderr, ", %" PRIu64 " rows", rows);
    fprintf(stderr, ", %s/s", rate);
    fflush(stderr);
    p->drawn = true;
}

void ig_progress_count(struct ig_progress *p, uint64_t done, uint64_t total, const char *unit)
{
    double secs;
    if (!due(p, &secs)) return;
    fprintf(stderr, "\r\033[K%s: %3d%% %" PRIu64 " of %" PRIu64 " %s, %.0f %s/s", p->what, percent(done, total),
            done, total, unit, secs > 0 ? (double)done / secs : 0.0, unit);
    fflush(stderr);
    p->drawn = true;
}

void ig_progress_rows(struct ig_progress *p, uint64_t done, uint64_t total)
{
    ig_progress_count(p, done, total, "rows");
}

void ig_progress_bytes_hook(void *ctx, uint64_t done, uint64_t total)
{
    ig_progress_update(ctx, done, total, 0);
}

void ig_progress_rows_hook(void *ctx, uint64_t done, uint64_t total)
{
    ig_progress_rows(ctx, done, total);
}

void ig_progress_end(struct ig_progress *p)
{
    if (p->on && p->drawn) fprintf(stderr, "\r\033[K");
    p->drawn = false;
}

void ig_progress_pair_begin(struct ig_progress_pair *p, const char *first_what, const char *second_what)
{
    memset(p, 0, sizeof *p);
    snprintf(p->second_what, sizeof p->second_what, "%s", second_what);
    ig_progress_begin(&p->first, first_what);
}

void ig_progress_second_hook(void *ctx, uint64_t done, uint64_t total)
{
    struct ig_progress_pair *p = ctx;
    if (!p->in_second) {
        ig_progress_end(&p->first);
        ig_progress_begin(&p->second, p->second_what);
        p->in_second = true;
    }
    ig_progress_update(&p->second, done, total, 0);
}

void ig_progress_pair_end(struct ig_progress_pair *p)
{
    ig_progress_end(p->in_second ? &p->second : &p->first);
}
