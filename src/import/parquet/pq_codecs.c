/* pq_codecs.c - Parquet's other codecs, loaded on first use (pq_codecs.h). */
#include "pq_codecs.h"
#include "util/lib_load.h"

#include <pthread.h>
#include <stdio.h>

/* One codec: its functions, whether they loaded, and why not. */
struct codec {
    pthread_once_t once;
    int rc;
    char why[400];
};

static struct pq_snappy snappy;
static struct pq_zlib zlib;
static struct pq_brotli brotli;
static struct pq_lz4 lz4;
static struct codec c_snappy = {PTHREAD_ONCE_INIT, 0, ""}, c_zlib = {PTHREAD_ONCE_INIT, 0, ""},
                    c_brotli = {PTHREAD_ONCE_INIT, 0, ""}, c_lz4 = {PTHREAD_ONCE_INIT, 0, ""};

static void load_one(struct codec *c, const char *what, const char *soname, const struct ig_lib_sym *syms,
                     size_t nsyms)
{
    const char *names[] = {soname};
    c->rc = ig_lib_load(what, names, 1, syms, nsyms, c->why, sizeof c->why);
}
#define LOAD(c, what, soname, syms) load_one(c, what, soname, syms, sizeof syms / sizeof syms[0])

static void load_snappy(void)
{
    const struct ig_lib_sym syms[] = {{(void **)&snappy.uncompressed_length, "snappy_uncompressed_length"},
                                      {(void **)&snappy.uncompress, "snappy_uncompress"}};
    LOAD(&c_snappy, "reading snappy pages", "libsnappy.so.1", syms);
}

static void load_zlib(void)
{
    const struct ig_lib_sym syms[] = {{(void **)&zlib.inflate_init2, "inflateInit2_"},
                                      {(void **)&zlib.inflate, "inflate"},
                                      {(void **)&zlib.inflate_reset, "inflateReset"},
                                      {(void **)&zlib.inflate_end, "inflateEnd"}};
    LOAD(&c_zlib, "reading gzip pages", "libz.so.1", syms);
}

static void load_brotli(void)
{
    const struct ig_lib_sym syms[] = {{(void **)&brotli.decompress, "BrotliDecoderDecompress"}};
    LOAD(&c_brotli, "reading brotli pages", "libbrotlidec.so.1", syms);
}

static void load_lz4(void)
{
    const struct ig_lib_sym syms[] = {{(void **)&lz4.decompress_safe, "LZ4_decompress_safe"}};
    LOAD(&c_lz4, "reading lz4 pages", "liblz4.so.1", syms);
}

static const void *loaded(struct codec *c, void (*load)(void), const void *fns, char *why, size_t why_len)
{
    pthread_once(&c->once, load);
    if (!c->rc) return fns;
    snprintf(why, why_len, "%s", c->why);
    return NULL;
}

const struct pq_snappy *pq_snappy(char *why, size_t n) { return loaded(&c_snappy, load_snappy, &snappy, why, n); }
const struct pq_zlib *pq_zlib(char *why, size_t n) { return loaded(&c_zlib, load_zlib, &zlib, why, n); }
const struct pq_brotli *pq_brotli(char *why, size_t n) { return loaded(&c_brotli, load_brotli, &brotli, why, n); }
const struct pq_lz4 *pq_lz4(char *why, size_t n) { return loaded(&c_lz4, load_lz4, &lz4, why, n); }
