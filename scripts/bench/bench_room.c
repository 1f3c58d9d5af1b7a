/* bench_room - where a part file's bytes sit around its blocks, from its footer
 * alone (the sizes benchmarks; BENCHMARKS.md, "sizes").
 *
 *   bench_room PART...
 *
 * Prints one line per part:
 *   blocks=N stored=B capacity=B zeros=B records=B file=B
 * stored: the blocks' stored bytes; capacity: their extents (each block runs
 * to the next, the last to its page's capacity); zeros: capacity less stored,
 * the slack an erase recompresses into and what a block left of its disk page;
 * records: the footer's 40-byte block records. Uses the format's internal
 * reader (src/format/part): the public API does not show blocks. */
#include "format/layout.h"
#include "format/page/pagerec.h"
#include "format/part/footer.h"
#include "util/error.h"

#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_room PART...\n");
        return 2;
    }
    int status = 0;
    for (int a = 1; a < argc; a++) {
        struct ig_part p;
        struct ig_error err = {0};
        if (ig_part_open(&p, argv[a], false, &err)) {
            fprintf(stderr, "%s: %s\n", argv[a], err.msg);
            status = 1;
            continue;
        }
        unsigned long long blocks = 0, stored = 0, capacity = 0;
        int rc = 0;
        for (uint32_t pg = 0; pg < p.num_pages && !rc; pg++) {
            struct ig_pagerec page;
            rc = ig_part_page(&p, pg, &page, &err);
            for (uint32_t b = 0; !rc && b < page.nblocks; b++) {
                struct ig_pagerec blk;
                rc = ig_part_block(&p, pg, &page, b, &blk, &err);
                if (rc) break;
                blocks++;
                stored += blk.stored;
                capacity += blk.capacity;
            }
        }
        if (rc) {
            fprintf(stderr, "%s: %s\n", argv[a], err.msg);
            status = 1;
        } else {
            printf("blocks=%llu stored=%llu capacity=%llu zeros=%llu records=%llu file=%llu\n", blocks,
                   stored, capacity, capacity - stored, blocks * IG_BLK_SIZE,
                   (unsigned long long)p.file_size);
        }
        ig_part_close(&p);
    }
    return status;
}
