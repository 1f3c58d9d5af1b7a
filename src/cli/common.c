/* common.c - what every subcommand shares: messages and number options. */
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("ingot: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

unsigned long long cli_parse_count(const char *opt, const char *s, unsigned long long min,
                                   unsigned long long max)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    /* accept K/M/G suffixes for sizes */
    if (end != s && *end && !end[1]) {
        unsigned long long mult = *end == 'K' || *end == 'k' ? 1024ULL
                                  : *end == 'M' || *end == 'm' ? 1024ULL * 1024
                                  : *end == 'G' || *end == 'g' ? 1024ULL * 1024 * 1024
                                                               : 0;
        if (mult && v <= max / mult) {
            v *= mult;
            end++;
        }
    }
    if (errno || end == s || *end || s[0] == '-' || v < min || v > max) {
        cli_error("%s: expected a number from %llu to %llu, got '%s'", opt, min, max, s);
        exit(2);
    }
    return v;
}
