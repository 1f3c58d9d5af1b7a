#include "progress.h"
#include "clock.h"

#include <inttypes.h>
#include <stdio.h>
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
    p->on = isatty(STDERR_FILENO);
    p->drawn = false;
    p->what = what;
    p->start_ns = p->last_ns = ig_now_ns();
}

void ig_progress_update(struct ig_progress *p, uint64_t done, uint64_t total, uint64_t rows)
{
    if (!p->on) return;
    uint64_t t = ig_now_ns();
    if (t - p->last_ns < 100000000u) return;
    p->last_ns = t;
    double secs = (double)(t - p->start_ns) / 1e9;
    char d[32], tot[32], rate[32];
    ig_format_bytes(d, sizeof d, done);
    ig_format_bytes(tot, sizeof tot, total);
    ig_format_bytes(rate, sizeof rate, secs > 0 ? (uint64_t)((double)done / secs) : 0);
    int pct = total ? (int)(100.0 * (double)done / (double)total) : 0;
    if (pct > 100) pct = 100;
    fprintf(stderr, "\r\033[K%s: %3d%% %s of %s", p->what, pct, d, tot);
    if (rows) fprintf(stderr, ", %" PRIu64 " rows", rows);
    fprintf(stderr, ", %s/s", rate);
    fflush(stderr);
    p->drawn = true;
}

void ig_progress_end(struct ig_progress *p)
{
    if (p->on && p->drawn) fprintf(stderr, "\r\033[K");
    p->drawn = false;
}
