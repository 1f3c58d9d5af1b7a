/* ingot inspect - what a table holds: parts, row groups, columns, encodings, sizes.
 * Reads only footers. */
#include "cli.h"
#include "format/part/columns.h"
#include "cli_json.h"
#include "format/enc/codec.h"
#include "format/layout.h"
#include "format/page/page.h"
#include "format/model/schema.h"
#include "format/part/table.h"
#include "format/part/writer.h"
#include "format/model/types.h"
#include "format/model/minmax.h"
#include "format/model/render.h"
#include "format/model/values.h"
#include "format/part/footer.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/progress.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char cmd_inspect_usage[] =
    "usage: ingot inspect [--json | --columns | --schema] TABLE\n"
    "  --json     the same as JSON (for scripts)\n"
    "  --columns  only the column names, one per line (what shell completion asks)\n"
    "  --schema   the columns as a schema file (import --schema) declares them: their\n"
    "             types and the options they were imported with, in the version's order\n";

struct colstat {
    uint64_t pages, stored, body, text, zstd_pages;
    uint64_t enc[IG_PAGE_ENC_COUNT];
    uint64_t bounded;         /* chunks whose records bound their values (format 9) */
    struct ig_minmax bounds;  /* all of them together */
};

/* The type a leaf's bounds are in: the values as they read back. */
static uint8_t bounds_type(const struct ig_colrec *c) { return ig_read_type(c->type, c->quantize); }

static int gather(const struct ig_table *t, struct colstat *cs, struct ig_error *err)
{
    for (uint32_t pi = 0; pi < t->nparts; pi++) {
        const struct ig_part *p = &t->parts[pi];
        for (uint32_t leaf = 0; leaf < p->num_leaves; leaf++) {
            uint32_t col;
            struct ig_colrec cr;
            int rc = ig_part_leaf_column(p, leaf, &col, err);
            if (!rc) rc = ig_part_column(p, col, &cr, err);
            if (rc) return rc;
            /* a damaged record may bound any leaf: only the kept ones count (verify names the rest) */
            if (!ig_minmax_kept(cr.type, cr.parent != IG_NONE || cr.lists || cr.dimension)) continue;
            for (uint32_t g = 0; g < p->num_groups; g++) {
                struct ig_minmax m;
                if ((rc = ig_part_chunk_minmax(p, g, leaf, &m, err))) return rc;
                cs[col].bounded += m.bounded;
                ig_minmax_widen(bounds_type(&cr), &cs[col].bounds, &m);
            }
        }
        for (uint32_t pg = 0; pg < p->num_pages; pg++) {
            struct ig_pagerec r;
            int rc = ig_part_page(p, pg, &r, err);
            if (rc) return rc;
            uint32_t col;
            rc = ig_part_leaf_column(p, r.leaf, &col, err);
            if (rc) return rc;
            struct colstat *s = &cs[col];
            s->pages++;
            s->stored += r.stored;
            s->body += r.body_size;
            s->text += r.text_len;
            s->zstd_pages += r.compression != IG_PC_NONE;
            if (r.encoding < IG_PAGE_ENC_COUNT) s->enc[r.encoding]++;
        }
    }
    return 0;
}

/* Raw size of a column: rows x width for fixed-width types; for strings and
 * binary the text rendering's size stands in (values plus a separator). */
static uint64_t raw_bytes(const struct ig_colrec *c, const struct colstat *s, uint64_t rows)
{
    const struct ig_type_info *ti = ig_type_info(c->type);
    if (!ti || !ti->width || c->lists || c->type == IG_T_STRUCT) return s->text;
    return rows * ti->width * (c->dimension ? c->dimension : 1);
}

/* "min" and "max" of a column whose every chunk is bounded: its values'
 * text (JSON strings: a float's may be inf). */
static void print_bounds(const struct ig_colrec *cr, const struct ig_minmax *m)
{
    struct ig_values v;
    ig_values_init(&v, bounds_type(cr));
    v.lt = cr->lt; /* a date's bounds as dates */
    struct ig_buf b = IG_BUF_INIT;
    if (!ig_values_push_lane(&v, m->min) && !ig_values_push_lane(&v, m->max)) {
        for (size_t i = 0; i < 2; i++) {
            ig_buf_reset(&b);
            if (ig_render_text_value(&b, &v, i)) break;
            printf(",\"%s\":\"%.*s\"", i ? "max" : "min", (int)b.len, (const char *)b.data);
        }
    }
    ig_buf_free(&b);
    ig_values_free(&v);
}

/* A column's declared type ("list<int64>?", "vector<float32, 768>"), from the
 * schema when it can be rebuilt, else the leaf type's name. */
static void type_text(const struct ig_schema *sc, uint32_t c, const struct ig_colrec *cr,
                      char *out, size_t cap)
{
    (void)c;
    struct ig_buf b = IG_BUF_INIT;
    /* the version's schema: found by name (its nodes are not column ids once
     * a version hides a record) */
    long node = sc ? ig_schema_find(sc, cr->name, cr->name_len) : -1;
    if (node >= 0 && ig_schema_type_text(sc, (uint32_t)node, &b) == 0 && b.len < cap) {
        memcpy(out, b.data, b.len);
        out[b.len] = '\0';
    } else {
        const struct ig_type_info *ti = ig_type_info(cr->type);
        snprintf(out, cap, "%s%s", ti ? ti->name : "?", cr->flags & IG_COLF_NULLABLE ? "?" : "");
    }
    ig_buf_free(&b);
}

static void encodings_text(const struct colstat *s, char *out, size_t cap)
{
    size_t n = 0;
    out[0] = '\0';
    for (unsigned e = 1; e < IG_PAGE_ENC_COUNT; e++)
        if (s->enc[e] && n < cap)
            n += (size_t)snprintf(out + n, cap - n, "%s%s", n ? "," : "", ig_page_enc_name(e));
    if (s->zstd_pages && n < cap) snprintf(out + n, cap - n, "+zstd");
}

static void print_text(const struct ig_table *t, const struct ig_schema *sc, const struct colstat *cs)
{
    uint64_t file_bytes = 0, stored = 0, raw = 0;
    for (uint32_t pi = 0; pi < t->nparts; pi++)
        file_bytes += t->parts[pi].file_size;
    const struct ig_part *p0 = &t->parts[0];
    for (uint32_t c = 0; c < p0->num_columns; c++) {
        struct ig_colrec cr;
        if (ig_part_column(p0, c, &cr, NULL)) continue;
        stored += cs[c].stored;
        raw += raw_bytes(&cr, &cs[c], t->num_rows);
    }
    char fb[32], sb[32], rb[32];
    ig_format_bytes(fb, sizeof fb, file_bytes);
    ig_format_bytes(sb, sizeof sb, stored);
    ig_format_bytes(rb, sizeof rb, raw);
    printf("table      %s\n", t->dir);
    printf("rows       %" PRIu64 " (%" PRIu64 " deleted, %" PRIu64 " live)\n", t->num_rows,
           t->deleted_rows, t->num_rows - t->deleted_rows);
    uint32_t shown = ig_table_columns_shown(t), released = 0;
    for (uint32_t c = 0; c < p0->num_columns; c++)
        released += !ig_table_shows(t, c) && ig_part_column_released(p0, c);
    uint32_t older = p0->num_columns - shown - released;
    printf("columns    %u", shown);
    if (older)
        printf(" (and %u record%s older versions show; ingot gc frees them%s", older,
               older == 1 ? "" : "s", released ? "" : ")");
    if (released)
        printf("%s%u record%s released by ingot gc)", older ? "; " : " (", released,
               released == 1 ? "" : "s");
    printf("\n");
    printf("version    %" PRIu64 "\n", t->manifest.version);
    printf("row groups %u in %u part%s\n", t->num_groups, t->nparts, t->nparts == 1 ? "" : "s");
    printf("size       %s on disk; pages %s for %s raw (%.2fx)\n\n", fb, sb, rb,
           stored ? (double)raw / (double)stored : 0.0);
    printf("%-20s %12s %12s %8s %8s %10s\n", "part", "first row", "rows", "groups", "pages", "bytes");
    for (uint32_t pi = 0; pi < t->nparts; pi++) {
        const struct ig_part *p = &t->parts[pi];
        ig_format_bytes(fb, sizeof fb, p->file_size);
        printf("%-20s %12" PRIu64 " %12" PRIu64 " %8u %8u %10s\n", p->name, p->first_row_id,
               p->num_rows, p->num_groups, p->num_pages, fb);
    }
    printf("\n%-6s %-20s %12s %12s %8s\n", "group", "part", "first row", "rows", "pages");
    for (uint32_t g = 0; g < t->num_groups; g++) {
        uint32_t pi, lg;
        struct ig_grouprec gr;
        if (ig_table_group(t, g, &pi, &lg) || ig_part_group(&t->parts[pi], lg, &gr, NULL)) continue;
        printf("%-6u %-20s %12" PRIu64 " %12u %8u\n", g, t->parts[pi].name,
               t->parts[pi].first_row_id + gr.first_row, gr.row_count, gr.page_count);
    }
    printf("\n%-24s %-22s %6s %-22s %10s %10s %7s\n", "column", "type", "pages", "encodings",
           "stored", "raw", "ratio");
    struct ig_shown_walk in_order = {0}; /* the version's order */
    for (uint32_t c; ig_table_next_shown(t, &in_order, &c);) {
        struct ig_colrec cr;
        if (ig_part_column(p0, c, &cr, NULL)) continue;
        char type[256], enc[128];
        type_text(sc, c, &cr, type, sizeof type);
        encodings_text(&cs[c], enc, sizeof enc);
        uint64_t r = raw_bytes(&cr, &cs[c], t->num_rows);
        ig_format_bytes(sb, sizeof sb, cs[c].stored);
        ig_format_bytes(rb, sizeof rb, r);
        printf("%-24.*s %-22s %6" PRIu64 " %-22s %10s %10s %6.2fx\n", (int)cr.name_len, cr.name,
               type, cs[c].pages, enc, sb, rb, cs[c].stored ? (double)r / (double)cs[c].stored : 0.0);
    }
}

static void print_json(const struct ig_table *t, const struct ig_schema *sc, const struct colstat *cs)
{
    const struct ig_part *p0 = &t->parts[0];
    printf("{\"table\":");
    cli_json_string(stdout, t->dir);
    printf(",\"format_version\":%u,\"rows\":%" PRIu64 ",\"deleted_rows\":%" PRIu64
           ",\"live_rows\":%" PRIu64 ",\"row_groups\":%u,\"erase_level\":%u,\"parts\":[",
           p0->version, t->num_rows, t->deleted_rows, t->num_rows - t->deleted_rows,
           t->num_groups, p0->erase_level);
    for (uint32_t pi = 0; pi < t->nparts; pi++) {
        const struct ig_part *p = &t->parts[pi];
        printf("%s{\"name\":\"%s\",\"format_version\":%u,\"first_row_id\":%" PRIu64
               ",\"rows\":%" PRIu64 ",\"deleted_rows\":%" PRIu64
               ",\"row_groups\":%u,\"pages\":%u,\"file_bytes\":%" PRIu64
               ",\"footer_bytes\":%" PRIu64 ",\"root_hash\":\"%016" PRIx64 "\"}",
               pi ? "," : "", p->name, p->version, p->first_row_id, p->num_rows, p->deleted_rows,
               p->num_groups, p->num_pages, p->file_size, p->footer_size, p->root);
    }
    printf("],\"groups\":[");
    for (uint32_t g = 0; g < t->num_groups; g++) {
        uint32_t pi, lg;
        struct ig_grouprec gr;
        if (ig_table_group(t, g, &pi, &lg) || ig_part_group(&t->parts[pi], lg, &gr, NULL)) continue;
        printf("%s{\"group\":%u,\"part\":\"%s\",\"first_row_id\":%" PRIu64
               ",\"rows\":%u,\"pages\":%u,\"hash\":\"%016" PRIx64 "\"}",
               g ? "," : "", g, t->parts[pi].name, t->parts[pi].first_row_id + gr.first_row,
               gr.row_count, gr.page_count, gr.hash);
    }
    printf("],\"columns\":[");
    bool first_col = true;
    struct ig_shown_walk in_order = {0}; /* the version's order */
    for (uint32_t c; ig_table_next_shown(t, &in_order, &c);) {
        struct ig_colrec cr;
        if (ig_part_column(p0, c, &cr, NULL)) continue;
        const struct ig_type_info *ti = ig_type_info(cr.type);
        printf("%s{\"name\":", first_col ? "" : ",");
        first_col = false;
        cli_json_string_n(stdout, cr.name, cr.name_len);
        char declared[256];
        type_text(sc, c, &cr, declared, sizeof declared);
        printf(",\"schema_type\":");
        cli_json_string(stdout, declared);
        printf(",\"type\":\"%s\",\"nullable\":%s,\"page_size\":%u,\"erase_level\":%u,"
               "\"pages\":%" PRIu64 ",\"stored_bytes\":%" PRIu64 ",\"encoded_bytes\":%" PRIu64
               ",\"raw_bytes\":%" PRIu64 ",\"text_bytes\":%" PRIu64 ",\"zstd_pages\":%" PRIu64
               ",\"encodings\":{",
               ti ? ti->name : "?", cr.flags & IG_COLF_NULLABLE ? "true" : "false", cr.page_size,
               cr.erase_level ? cr.erase_level : p0->erase_level, cs[c].pages, cs[c].stored,
               cs[c].body, raw_bytes(&cr, &cs[c], t->num_rows), cs[c].text, cs[c].zstd_pages);
        bool first = true;
        for (unsigned e = 1; e < IG_PAGE_ENC_COUNT; e++)
            if (cs[c].enc[e]) {
                printf("%s\"%s\":%" PRIu64, first ? "" : ",", ig_page_enc_name(e), cs[c].enc[e]);
                first = false;
            }
        printf("}");
        if (cs[c].bounded) printf(",\"bounded_groups\":%" PRIu64, cs[c].bounded);
        if (cs[c].bounded && cs[c].bounded == t->num_groups) /* every chunk bounded: the column's range */
            print_bounds(&cr, &cs[c].bounds);
        printf("}");
    }
    printf("]}\n");
}

int cmd_inspect(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"json", no_argument, 0, 'j'}, {"columns", no_argument, 0, 'c'}, {"schema", no_argument, 0, 's'},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    bool json = false, names = false, schema = false;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'j': json = true; break;
        case 'c': names = true; break;
        case 's': schema = true; break;
        case 'h': fputs(cmd_inspect_usage, stdout); return 0;
        default: fputs(cmd_inspect_usage, stderr); return 2;
        }
    }
    if (argc - optind != 1) {
        fputs(cmd_inspect_usage, stderr);
        return 2;
    }
    struct ig_error err = {0};
    struct ig_table t;
    if (ig_table_open(&t, argv[optind], false, &err)) {
        cli_error("inspect: %s", err.msg);
        return 2;
    }
    if (names) { /* footer only: no page is read */
        struct ig_shown_walk in_order = {0}; /* the version's order */
        for (uint32_t col; ig_table_next_shown(&t, &in_order, &col);) {
            struct ig_colrec cr;
            if (ig_part_column(&t.parts[0], col, &cr, NULL) == 0)
                printf("%.*s\n", (int)cr.name_len, cr.name);
        }
        ig_table_close(&t);
        return 0;
    }
    struct ig_schema sc;
    bool have_schema = ig_table_schema(&t, &sc, schema ? &err : NULL) == 0;
    if (schema) { /* footer only, as a schema file */
        for (uint32_t k = 0; have_schema && k < sc.n; k++) /* sizes stored resolved: the defaults unsaid */
            if (sc.cols[k].page_size == ig_writer_default_page_size(&sc.cols[k])) sc.cols[k].page_size = 0;
        struct ig_buf text = IG_BUF_INIT;
        int rc = have_schema ? (ig_schema_format(&sc, &text) ? ig_err(&err, -ENOMEM, "out of memory") : 0) : -1;
        if (rc)
            cli_error("inspect: %s", err.msg);
        else
            fwrite(text.data, 1, text.len, stdout);
        ig_buf_free(&text);
        if (have_schema) ig_schema_free(&sc);
        ig_table_close(&t);
        return rc ? 2 : 0;
    }
    struct colstat *cs = calloc(t.parts[0].num_columns, sizeof *cs);
    int rc = cs ? gather(&t, cs, &err) : ig_err(&err, -ENOMEM, "out of memory");
    if (rc) {
        cli_error("inspect: %s", err.msg);
    } else if (json) {
        print_json(&t, have_schema ? &sc : NULL, cs);
    } else {
        print_text(&t, have_schema ? &sc : NULL, cs);
    }
    if (have_schema) ig_schema_free(&sc);
    free(cs);
    ig_table_close(&t);
    return rc ? 2 : 0;
}
