/* generated.c - the files the mount makes up from the footer: README, schema.json (generated.h). */
#include "generated.h"
#include "format/part/remote.h"
#include "plan.h"
#include "format/enc/codec.h"
#include "format/layout.h"
#include "format/model/names.h"
#include "format/model/logical.h"
#include "format/model/render.h"
#include "format/model/types.h"
#include "util/io.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fs_render_readme(struct fs_session *s, struct ig_buf *b)
{
    const struct ig_table *t = &s->table;
    const char *name = strrchr(s->dir, '/');
    name = name && name[1] ? name + 1 : s->dir;
    char example[3 * FS_NAME_MAX + 1] = "NAME", npy_example[3 * FS_NAME_MAX + 1] = "NAME";
    struct ig_shown_walk shown = {0}; /* the first columns in the version's order */
    for (uint32_t c; ig_table_next_shown(t, &shown, &c);) {
        struct ig_column_ref ref;
        if (!fs_column_ref(s, c, &ref)) continue;
        char esc[3 * FS_NAME_MAX + 1];
        if (!fs_escape_name(ref.rec.name, ref.rec.name_len, esc, sizeof esc)) continue;
        if (!strcmp(example, "NAME")) snprintf(example, sizeof example, "%s", esc);
        if (!strcmp(npy_example, "NAME") && fs_column_has_view(s, c, FS_V_NPY))
            snprintf(npy_example, sizeof npy_example, "%s", esc);
    }
    return ig_buf_printf(
        b,
        "This is the ingot table '%s', mounted as files.\n"
        "\n"
        "  rows        %" PRIu64 " live (%" PRIu64 " erased) in %u row groups\n"
        "  columns     %u (types, encodings and sizes: schema.json)\n"
        "\n"
        "Files\n"
        "  columns/NAME            one line per live row (PostgreSQL COPY text: NULL is \\N)\n"
        "  columns/NAME.npy        NumPy array of a fixed-width column (nulls as 0 or NaN)\n"
        "  columns/NAME.valid.npy  NumPy bool array, false where the value is NULL\n"
        "  columns/_rowid.npy      the row id of every live row (int64)\n"
        "  groups/G/...            the same files for row group G only\n"
        "  rows/ID                 one row as a JSON object (ID = row id)\n"
        "  parquet/G.parquet       row group G as a Parquet file (DuckDB, pyarrow, pandas)\n"
        "  arrow/G.arrow           row group G as an Arrow IPC file (pyarrow, Polars, datasets)\n"
        "  jsonl/G.jsonl           row group G's rows as JSON Lines (each line = rows/ID)\n"
        "%s"
        "\n"
        "Column names that are not valid file names are escaped: %%25 for %%, %%2F for /,\n"
        "and %%2E for a dot that would look like a file suffix (see schema.json \"file\").\n"
        "\n"
        "Examples\n"
        "  head columns/%s\n"
        "  python3 -c \"import numpy as np; a = np.load('columns/%s.npy', mmap_mode='r'); "
        "print(a.shape)\"\n"
        "  jq . rows/0\n"
        "\n"
        "Every read checks page checksums; a damaged page reads as an I/O error.\n",
        name, t->num_rows - t->deleted_rows, t->deleted_rows, t->num_groups,
        ig_table_columns_shown(t),
        s->version ? ""
                   : "  versions/N/             version N of the table, read-only (ingot versions lists them)\n"
                     "  tags/NAME               a link to the version a tag names\n",
        example, npy_example);
}

int fs_render_schema(struct fs_session *s, struct ig_buf *b)
{
    const struct ig_table *t = &s->table;
    const struct ig_part *p0 = &t->parts[0];
    int rc = ig_buf_printf(b,
                           "{\"generation\":%" PRIu64 ",\"rows\":%" PRIu64 ",\"live_rows\":%" PRIu64
                           ",\"erased_rows\":%" PRIu64
                           ",\"row_groups\":%u,\"parts\":%u,\"erase_level\":%u,\"columns\":[",
                           t->manifest.generation, t->num_rows, t->num_rows - t->deleted_rows,
                           t->deleted_rows, t->num_groups, t->nparts, p0->erase_level);
    bool first_col = true;
    struct ig_shown_walk shown = {0}; /* in the version's order */
    for (uint32_t c; !rc && ig_table_next_shown(t, &shown, &c);) {
        struct ig_column_ref ref;
        if (!fs_column_ref(s, c, &ref)) return -EIO;
        const struct ig_type_info *ti = ig_type_info(ref.rec.type);
        char esc[3 * FS_NAME_MAX + 1];
        size_t en = fs_escape_name(ref.rec.name, ref.rec.name_len, esc, sizeof esc);
        rc = ig_buf_printf(b, "%s{\"name\":", first_col ? "" : ",");
        first_col = false;
        if (!rc) rc = ig_render_json_string(b, (const uint8_t *)ref.rec.name, ref.rec.name_len);
        if (!rc) rc = ig_buf_printf(b, ",\"file\":");
        if (!rc) rc = en ? ig_render_json_string(b, (const uint8_t *)esc, en) : ig_buf_printf(b, "null");
        /* encodings of the column's pages */
        uint64_t enc_mask = 0, zstd = 0, stored = 0, pages = 0;
        for (uint32_t pi = 0; pi < t->nparts && !rc; pi++)
            for (uint32_t g = 0; g < t->parts[pi].num_groups; g++) {
                uint32_t first, count;
                if (ig_part_chunk(&t->parts[pi], g, ref.rec.leaf, &first, &count, NULL)) continue;
                for (uint32_t pg = first; pg < first + count; pg++) {
                    struct ig_pagerec rec;
                    if (ig_part_page(&t->parts[pi], pg, &rec, NULL)) continue;
                    enc_mask |= 1ULL << (rec.encoding & 63);
                    zstd += rec.compression != 0;
                    stored += rec.stored;
                    pages++;
                }
            }
        /* a logical type by its name ("timestamp(us, UTC)"), its storage beside it */
        char lname[64];
        if (ref.rec.lt.kind) ig_logical_name(&ref.rec.lt, lname, sizeof lname);
        if (!rc)
            rc = ig_buf_printf(b, ",\"type\":\"%s\"", ref.rec.lt.kind ? lname : ti ? ti->name : "?");
        if (!rc && ref.rec.lt.kind) rc = ig_buf_printf(b, ",\"storage\":\"%s\"", ti ? ti->name : "?");
        if (!rc)
            rc = ig_buf_printf(b,
                               ",\"nullable\":%s,\"npy\":%s,\"erase_level\":%u,"
                               "\"pages\":%" PRIu64 ",\"stored_bytes\":%" PRIu64
                               ",\"zstd_pages\":%" PRIu64 ",\"encodings\":[",
                               ref.rec.flags & IG_COLF_NULLABLE ? "true" : "false",
                               fs_column_has_view(s, c, FS_V_NPY) ? "true" : "false", ref.erase_level, pages, stored,
                               zstd);
        bool first = true;
        for (int e = 1; e < 64 && !rc; e++)
            if (enc_mask >> e & 1) {
                rc = ig_buf_printf(b, "%s\"%s\"", first ? "" : ",", ig_page_enc_name((unsigned)e));
                first = false;
            }
        if (!rc) rc = ig_buf_printf(b, "]}");
    }
    if (!rc) rc = ig_buf_printf(b, "]}\n");
    return rc;
}

/* The audit log, read fresh (it is small and changes with every erase). */
int fs_erasures_entry(struct fs_session *s, struct fs_entry **out)
{
    struct fs_entry *e = fs_entry_new(0, 0);
    if (!e) return -ENOMEM;
    char *text;
    size_t len;
    if (ig_table_file_read(s->dir, ".ingot/erasures", 64u << 20, &text, &len, NULL) == 0) {
        int rc = ig_buf_append(&e->data, text, len);
        free(text);
        if (rc) {
            fs_entry_free(e);
            return rc;
        }
    }
    e->refs = 1;
    e->dead = 1; /* not in the cache: freed on release */
    *out = e;
    return 0;
}
