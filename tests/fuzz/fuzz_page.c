/* fuzz_page - page bodies straight into the page decoder (no checksum in the
 * way): the first 16 bytes choose the type, counts and compression. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format/part/footer.h"
#include "format/page/page.h"
#include "format/model/render.h"
#include "format/model/types.h"
#include "util/endian.h"
#include "util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 16) return 0;
    struct ig_pagerec rec = {0};
    uint8_t type = (uint8_t)(IG_T_BOOL + data[0] % (IG_T_BINARY - IG_T_BOOL + 1));
    rec.row_count = 1 + ig_ld32(data + 1) % 5000;
    rec.entry_count = rec.value_count = rec.row_count;
    rec.compression = data[5] & 1;
    rec.body_size = rec.compression ? 1 + ig_ld32(data + 6) % (1u << 20) : (uint32_t)(size - 16);
    rec.stored = (uint32_t)(size - 16);
    bool use_absent = data[10] & 1;
    const uint8_t *body = data + 16;
    uint8_t absent[5000 / 8 + 1];
    for (size_t i = 0; i < sizeof absent; i++)
        absent[i] = (uint8_t)(data[11 + i % 5] * (i + 1));
    struct ig_page_scratch s = {0};
    struct ig_values v;
    ig_values_init(&v, type);
    struct ig_error err = {0};
    if (data[10] & 2) { /* a nested leaf: list<int> or (format 21) list<float> (levels, one
                         * joint stream from format 19, or sliding windows), its items NULL or not */
        bool item_nulls = data[10] & 4;
        uint8_t leaf_type = data[0] & 4 ? (data[0] & 8 ? IG_T_FLOAT64 : IG_T_INT64)
                                        : (data[0] & 8 ? IG_T_FLOAT32 : IG_T_UINT32);
        struct ig_leaf_info li = {.type = leaf_type, .max_rep = 1,
                                  .max_def = (uint8_t)(1 + (data[0] & 1) + item_nulls), .levels = true,
                                  .per_value = 1, .slide_ok = true, .item_nulls = item_nulls,
                                  .joint_levels = data[10] & 8};
        rec.entry_count = ig_ld32(data + 11) % 100000;
        rec.value_count = rec.entry_count;
        rec.encoding = data[15] & 8;
        struct ig_page_built built = {0};
        if (rec.body_size >= 4) {
            ig_page_decode_leaf(body, &rec, &li, NULL, &s, &v, &err);
            /* a row read's first rows (the levels decoded only that far) */
            if (ig_page_decode_leaf_rows(body, &rec, &li, data[14] % (rec.row_count + 1), &s, &v, &err) == 0 &&
                v.rows > rec.row_count)
                abort();
            /* picked rows (a take's): a small sliding-window page decoded whole,
             * fixed-width values read alone */
            ig_page_decode_picked(body, &rec, &li, NULL, absent, true, &s, &v, &err);
            uint64_t lens[5000]; /* row_count is at most 5000 */
            ig_page_row_lengths(body, &rec, &li, &s, lens, &err);
            ig_page_check_erased_leaf(body, &rec, &li, absent, &s, &err);
            uint8_t older[sizeof absent];
            for (size_t i = 0; i < sizeof older; i++) older[i] = (uint8_t)(absent[i] >> 1);
            ig_page_erase_leaf(body, &rec, &li, absent, older, 1, &s, &built, &err);
        }
        ig_page_built_free(&built);
        ig_values_free(&v);
        ig_page_scratch_free(&s);
        return 0;
    }
    if (rec.body_size >= 4 &&
        ig_page_decode(body, &rec, type, use_absent ? absent : NULL, &s, &v, &err) == 0) {
        struct ig_buf out = IG_BUF_INIT;
        ig_render_text_lines(&out, &v, NULL);
        for (size_t i = 0; i < v.n && i < 64; i++)
            ig_render_json_value(&out, &v, i);
        ig_buf_free(&out);
    }
    ig_values_free(&v);
    ig_page_scratch_free(&s);
    return 0;
}
