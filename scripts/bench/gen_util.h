/* gen_util.h - what the benchmark data generators share: a seeded splitmix64
 * stream (the same seed always gives the same data) and a buffered writer for
 * the text they print. Header-only: each generator is one translation unit. */
#ifndef BENCH_GEN_UTIL_H
#define BENCH_GEN_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- random numbers ---- */
static uint64_t rng;
static uint64_t next(void)
{
    uint64_t z = (rng += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
static uint64_t below(uint64_t n)
{
    return next() % n;
}

/* ---- buffered output to `out` ---- */
static char *buf;
static size_t used, cap = 8u << 20;
static FILE *out;
static void die(const char *what)
{
    perror(what);
    exit(1);
}
static void flush(void)
{
    if (used && fwrite(buf, 1, used, out) != used) die("write");
    used = 0;
}
static void need(size_t n)
{
    if (used + n > cap) flush();
}
static void put(const char *s, size_t n)
{
    need(n);
    memcpy(buf + used, s, n);
    used += n;
}
static void putc_(char c)
{
    need(1);
    buf[used++] = c;
}
static void puts_(const char *s)
{
    put(s, strlen(s));
}
static void put_u64(uint64_t v)
{
    char t[24];
    int i = 24;
    do {
        t[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    put(t + i, (size_t)(24 - i));
}
static void put_i64(int64_t v)
{
    if (v < 0) {
        putc_('-');
        put_u64(0 - (uint64_t)v);
    } else {
        put_u64((uint64_t)v);
    }
}
static FILE *open_out(const char *path)
{
    FILE *f = fopen(path, "wb");
    if (!f) die(path);
    return f;
}

#endif
