#include "format/part/merkle.h"
#include "format/layout.h"
#include "util/hash.h"

uint64_t ig_merkle_group_hash(const uint8_t *page_records, const uint8_t *page_extras,
                              uint32_t count)
{
    struct ig_hasher h;
    ig_hasher_init(&h);
    ig_hasher_update(&h, page_records, (size_t)count * IG_PG_SIZE);
    ig_hasher_update(&h, page_extras, (size_t)count * IG_PX_SIZE);
    return ig_hasher_final(&h);
}

uint64_t ig_merkle_concat(const uint8_t *const *parts, const size_t *sizes, int n)
{
    struct ig_hasher h;
    ig_hasher_init(&h);
    for (int i = 0; i < n; i++)
        ig_hasher_update(&h, parts[i], sizes[i]);
    return ig_hasher_final(&h);
}

uint64_t ig_merkle_root(const uint8_t *header, const uint8_t *groups, size_t groups_size,
                        const uint8_t *deletion, size_t deletion_size)
{
    const uint8_t *parts[3] = {header, groups, deletion};
    size_t sizes[3] = {IG_HDR_SIZE, groups_size, deletion_size};
    return ig_merkle_concat(parts, sizes, 3);
}
