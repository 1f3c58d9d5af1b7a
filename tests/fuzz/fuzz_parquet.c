/* fuzz_parquet - the Parquet importer's readers on hostile bytes: with the
 * first byte odd, the rest is a footer (Thrift FileMetaData) for pq_meta_decode;
 * even, bytes 1..9 describe a leaf (physical type, levels, compression, value
 * count, fixed length) and the rest is its column chunk for pq_decode_chunk
 * (page headers, decompression, levels, every value encoding). */
#include <stdint.h>
#include <string.h>

#include "import/parquet/pq_meta.h"
#include "import/parquet/pq_page.h"
#include "util/endian.h"
#include "util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ig_error err = {0};
    if (size < 1) return 0;
    if (data[0] & 1) {
        struct pq_meta m;
        /* a file big enough to hold any chunk the footer names below 1 GiB */
        if (pq_meta_decode(data + 1, size - 1, (1ull << 30) + size + 8, "fuzz", &m, &err) == 0) {
            char path[256];
            for (uint32_t i = 0; i < m.nnodes; i++) pq_node_path(&m, i, path, sizeof path);
            pq_meta_free(&m);
        }
        return 0;
    }
    if (size < 10) return 0;
    struct pq_node leaf = {0};
    leaf.type = data[1] % 8;
    leaf.max_def = data[2] % 4;
    leaf.max_rep = (uint8_t)(data[3] % 3 > leaf.max_def ? leaf.max_def : data[3] % 3);
    leaf.type_length = 1 + data[9] % 20;
    leaf.leaf = 0;
    int64_t num_values = ig_ld32(data + 5) % 100000;
    struct pq_scratch s = {0};
    struct pq_column col;
    pq_column_init(&col);
    (void)pq_decode_chunk(data + 10, size - 10, &leaf, (uint8_t)(data[4] % 8), num_values, "fuzz",
                          &s, &col, &err);
    pq_column_free(&col);
    pq_scratch_free(&s);
    return 0;
}
