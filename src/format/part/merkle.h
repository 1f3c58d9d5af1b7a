/* merkle.h - the integrity tree of a part.
 *
 *     page checksum   = XXH3(stored page bytes)           kept in the page record
 *     group hash      = XXH3(the group's page records ‖ their page extras)
 *                                                          kept in the group record
 *     schema hash     = XXH3(columns | names | name index | leaves)   in the header
 *     chunks hash     = XXH3(chunk table)                  in the header
 *     root            = XXH3(header | group records | deletion bitmap)   in the tail
 *
 * Page records are contiguous per group (pages are ordered by group, leaf, row),
 * so changing one page re-hashes its record's group and then the root: one path,
 * never the data of other pages. The header holds the schema and chunk hashes and
 * the deleted-row count, so the root covers every byte of the footer. */
#ifndef IG_FORMAT_MERKLE_H
#define IG_FORMAT_MERKLE_H

#include <stddef.h>
#include <stdint.h>

uint64_t ig_merkle_group_hash(const uint8_t *page_records, const uint8_t *page_extras,
                              uint32_t count);
uint64_t ig_merkle_root(const uint8_t *header, const uint8_t *groups, size_t groups_size,
                        const uint8_t *deletion, size_t deletion_size);
/* Hash of several byte ranges in order (the schema hash). */
uint64_t ig_merkle_concat(const uint8_t *const *parts, const size_t *sizes, int n);

#endif
