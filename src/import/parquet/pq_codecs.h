/* pq_codecs.h - the codecs a Parquet file's pages may use besides zstd
 * (snappy, gzip, brotli, lz4), each library loaded (dlopen, util/lib_load.h)
 * when a page first needs it: importing CSV, JSON or .npy, reading and
 * serving tables never load them (snappy alone brought in the C++ runtime),
 * and a file with snappy pages needs no brotli installed. Headers only at
 * build time. */
#ifndef INGOT_PQ_CODECS_H
#define INGOT_PQ_CODECS_H

#include <brotli/decode.h>
#include <snappy-c.h>
#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

struct pq_snappy {
    snappy_status (*uncompressed_length)(const char *src, size_t n, size_t *out);
    snappy_status (*uncompress)(const char *src, size_t n, char *dst, size_t *dst_len);
};
struct pq_zlib {
    int (*inflate_init2)(z_streamp s, int window_bits, const char *version, int stream_size); /* inflateInit2_ */
    int (*inflate)(z_streamp s, int flush);
    int (*inflate_reset)(z_streamp s);
    int (*inflate_end)(z_streamp s);
};
struct pq_brotli {
    BrotliDecoderResult (*decompress)(size_t n, const uint8_t *src, size_t *dst_len, uint8_t *dst);
};
struct pq_lz4 {
    int (*decompress_safe)(const char *src, char *dst, int n, int cap);
};

/* Each codec's functions, loaded once per process on the first call (thread
 * safe): NULL when its library cannot be loaded, and `why` (why_len bytes)
 * says which and why; `why` is left as it was otherwise. */
const struct pq_snappy *pq_snappy(char *why, size_t why_len);
const struct pq_zlib *pq_zlib(char *why, size_t why_len);
const struct pq_brotli *pq_brotli(char *why, size_t why_len);
const struct pq_lz4 *pq_lz4(char *why, size_t why_len);

#endif
