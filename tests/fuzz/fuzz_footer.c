/* fuzz_footer - a hostile part file must never crash the reader.
 *
 * The input is a whole part file. Most mutations would die at the tail checksum,
 * so unless the first byte is odd the target re-seals the tail hash first,
 * letting the fuzzer reach the header, section table, records and pages. It then
 * walks every accessor the mount and the CLI use, decodes every page, reads
 * rows alone through the block index (a row's block, found by binary search)
 * and lays out and renders the part's Parquet and Arrow views (dictionaries
 * included). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "format/export/arrow_view.h"
#include "format/export/parquet_view.h"
#include "format/part/footer.h"
#include "format/part/table.h"
#include "format/layout.h"
#include "format/ops/reader.h"
#include "format/model/render.h"
#include "format/model/types.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/hash.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A table of the one part, as the views read it (they need no MANIFEST). */
static struct ig_table one_part_table(const struct ig_part *p, uint32_t *first_group)
{
    return (struct ig_table){.dir = (char *)"/nonexistent", .nparts = 1, .parts = (struct ig_part *)p,
                             .part_first_group = first_group, .num_groups = p->num_groups,
                             .num_rows = p->num_rows, .deleted_rows = p->deleted_rows};
}

/* The part's Parquet views as the mount serves them: each group's layout,
 * its pages (with their chunks' dictionaries) and its footer. Pages over 16
 * MiB are left out: a hostile footer may size one at up to 2 GiB, which the
 * view would allocate (a bound, not a crash), past the fuzzer's memory limit. */
static void parquet_view(const struct ig_part *p, struct ig_reader *r, struct ig_buf *out)
{
    uint32_t first_group = 0;
    struct ig_table t = one_part_table(p, &first_group);
    struct ig_error err = {0};
    struct ig_pqv_schema *sch;
    if (!p->num_groups || ig_pqv_schema_new(&t, &sch, &err)) return;
    for (uint32_t g = 0; g < p->num_groups && g < 4; g++) {
        struct ig_pqv v;
        if (ig_pqv_layout(&t, sch, g, r, &v, &err)) continue;
        struct ig_pqv_dict *d = NULL;
        uint32_t d_at = UINT32_MAX;
        for (uint32_t i = 0; i < v.npages && i < 256; i++) {
            const struct ig_pqv_page *pg = &v.pages[i];
            if (pg->kind != IG_PQV_PLAIN && pg->dict != d_at) {
                ig_pqv_dict_free(d);
                d = NULL;
                d_at = pg->dict;
                if (ig_pqv_dict_new(&t, &v, pg->dict, r, &d, &err)) d = NULL;
            }
            if ((pg->kind != IG_PQV_PLAIN && !d) || pg->len > (16u << 20)) continue;
            ig_buf_reset(out);
            ig_pqv_render(&t, &v, pg, d, r, out, &err);
        }
        ig_pqv_dict_free(d);
        ig_buf_reset(out);
        if (v.tail_len <= (16u << 20)) ig_pqv_tail(&t, sch, &v, out, &err);
        ig_pqv_free(&v);
    }
    ig_pqv_schema_free(sch);
}

/* And its Arrow IPC views: each group's layout and pieces (the same bound). */
static void arrow_view(const struct ig_part *p, struct ig_reader *r, struct ig_buf *out)
{
    uint32_t first_group = 0;
    struct ig_table t = one_part_table(p, &first_group);
    struct ig_error err = {0};
    for (uint32_t g = 0; g < p->num_groups && g < 4; g++) {
        struct ig_arv v;
        if (ig_arv_layout(&t, g, r, &v, &err)) continue;
        for (uint32_t i = 0; i < v.npieces && i < 512; i++) {
            if (v.pieces[i].len > (16u << 20)) continue;
            ig_buf_reset(out);
            ig_arv_render(&t, &v, &v.pieces[i], r, out, &err);
        }
        ig_arv_free(&v);
    }
}

/* Every accessor the mount and the CLI use, on an open part. */
static void walk(const struct ig_part *p)
{
    struct ig_error err = {0};
    struct ig_colrec c;
    for (uint32_t i = 0; i < p->num_columns && i < 4096; i++)
        if (ig_part_column(p, i, &c, &err) == 0) {
            uint32_t found;
            ig_part_find(p, c.name, c.name_len, &found, &err);
        }
    struct ig_reader r = {0};
    struct ig_values v;
    struct ig_buf text = IG_BUF_INIT;
    ig_values_init(&v, IG_T_INT64);
    uint32_t pages_done = 0;
    for (uint32_t g = 0; g < p->num_groups && g < 256; g++) {
        struct ig_grouprec gr;
        if (ig_part_group(p, g, &gr, &err)) continue;
        for (uint32_t leaf = 0; leaf < p->num_leaves && leaf < 256; leaf++) {
            uint32_t col, first, count;
            if (ig_part_leaf_column(p, leaf, &col, &err)) continue;
            struct ig_column_ref ref = {.col = col};
            if (ig_part_column(p, col, &ref.rec, &err) || ref.rec.leaf == IG_NONE) continue;
            ref.erase_level = ref.rec.erase_level ? ref.rec.erase_level : p->erase_level;
            if (ig_part_chunk(p, g, leaf, &first, &count, &err)) continue;
            struct ig_chunk_dict cd; /* a dictionary's counts: any values */
            if (ig_part_chunk_dict(p, g, leaf, &cd, &err) == 0 && !cd.count && cd.bytes) __builtin_trap();
            uint32_t expected = 0;
            for (uint32_t pg = first; pg < first + count && pages_done < 1024; pg++, pages_done++) {
                struct ig_pagerec rec;
                const uint8_t *del;
                if (ig_part_page(p, pg, &rec, &err)) break;
                if (ig_chunk_page_check(p, pg, &rec, leaf, expected, gr.row_count, &err)) break;
                expected += rec.row_count;
                if (rec.row_count > (1u << 20)) break;
                if (ig_reader_load(&r, &(struct ig_page_at){p, &ref, pg, gr.first_row}, &rec, &v, &del, &err) == 0) {
                    ig_buf_reset(&text);
                    ig_render_text_lines(&text, &v, del);
                }
                /* a row alone, as rows/ID and a take read it: the block index */
                for (uint32_t k = 0; k < 3; k++) {
                    uint32_t row = (uint32_t)(((uint64_t)rec.row_count * k) / 3), b;
                    struct ig_pagerec blk;
                    if (ig_part_block_of_row(p, pg, &rec, row, &b, &blk, &err)) break;
                    struct ig_block_load bl = {.rec = &rec, .block = b};
                    if (ig_reader_load_block(&r, &(struct ig_page_at){p, &ref, pg, gr.first_row}, &bl, &v,
                                             &err) == 0) {
                        ig_buf_reset(&text);
                        ig_render_text_lines(&text, &v, bl.deleted);
                    }
                }
            }
        }
    }
    parquet_view(p, &r, &text);
    arrow_view(p, &r, &text);
    ig_buf_free(&text);
    ig_values_free(&v);
    ig_reader_free(&r);
    for (uint64_t row = 0; row < p->num_rows && row < 1000; row++)
        ig_part_row_deleted(p, row);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > (4u << 20)) return 0;
    int fd = memfd_create("part", 0);
    if (fd < 0) return 0;
    uint8_t *copy = malloc(size);
    memcpy(copy, data, size);
    if (!(data[0] & 1) && size >= IG_TAIL_SIZE) {
        uint8_t *tail = copy + size - IG_TAIL_SIZE;
        ig_st64(tail + IG_TAIL_HASH, ig_hash(tail, IG_TAIL_HASH));
    }
    if (write(fd, copy, size) != (ssize_t)size) {
        close(fd);
        free(copy);
        return 0;
    }
    free(copy);
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    struct ig_part p;
    struct ig_error err = {0};
    if (ig_part_open(&p, path, false, &err) == 0) {
        walk(&p);
        ig_part_close(&p);
    }
    /* The same part read at the end MANIFEST records (the input's last 8
     * bytes, when they name one inside it): pages an erase moved and a
     * deletion bitmap it wrote lie past that end (format 17). */
    uint64_t end = size >= 8 ? ig_ld64(data + size - 8) : 0;
    if (end >= IG_TAIL_SIZE && end <= size - 8) {
        if (!(data[0] & 1)) {
            uint8_t tail[IG_TAIL_SIZE];
            memcpy(tail, data + end - IG_TAIL_SIZE, IG_TAIL_SIZE);
            ig_st64(tail + IG_TAIL_HASH, ig_hash(tail, IG_TAIL_HASH));
            if (pwrite(fd, tail, IG_TAIL_SIZE, (off_t)(end - IG_TAIL_SIZE)) != IG_TAIL_SIZE) end = 0;
        }
        if (end && ig_part_open_at(&p, path, end, false, &err) == 0) {
            walk(&p);
            ig_part_close(&p);
        }
    }
    close(fd);
    return 0;
}
