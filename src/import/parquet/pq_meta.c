#include "pq_meta.h"
#include "thrift.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/io.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A footer larger than this is refused rather than read into memory: 10,000
 * columns x 1,000 row groups of ColumnMetaData fit well below it. */
#define PQ_FOOTER_MAX (1u << 30)

const char *pq_codec_name(unsigned codec)
{
    static const char *const names[] = {"uncompressed", "snappy", "gzip", "lzo",
                                        "brotli", "lz4 (hadoop framing)", "zstd", "lz4_raw"};
    return codec < sizeof names / sizeof *names ? names[codec] : "unknown";
}

const char *pq_type_name(int type)
{
    static const char *const names[] = {"BOOLEAN", "INT32", "INT64", "INT96",
                                        "FLOAT", "DOUBLE", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"};
    return type >= 0 && type < 8 ? names[type] : "group";
}

/* LogicalType (a union) into the node. */
static void read_logical(struct ig_tc *c, struct pq_node *n)
{
    int16_t last = 0, id;
    uint8_t t;
    while (ig_tc_field(c, &last, &id, &t)) {
        if (t != IG_TC_STRUCT) {
            ig_tc_skip(c, t);
            continue;
        }
        int16_t l2 = 0, id2;
        uint8_t t2;
        switch (id) {
        case 1: /* STRING */
        case 4: /* ENUM */
        case 12: /* JSON */
            n->logical = PQ_L_STRING;
            break;
        case 2: n->logical = PQ_L_MAP; break;
        case 3: n->logical = PQ_L_LIST; break;
        case 5: n->logical = PQ_L_DECIMAL; break;
        case 6: n->logical = PQ_L_DATE; break;
        case 7: n->logical = PQ_L_TIME; break;
        case 8: n->logical = PQ_L_TIMESTAMP; break;
        case 10: n->logical = PQ_L_INT; break;
        case 14: n->logical = PQ_L_UUID; break;
        case 15: n->logical = PQ_L_FLOAT16; break;
        default: n->logical = PQ_L_OTHER; break;
        }
        while (ig_tc_field(c, &l2, &id2, &t2)) {
            if (id == 5 && id2 == 1) n->scale = (int32_t)ig_tc_int(c, t2);
            else if (id == 5 && id2 == 2) n->precision = (int32_t)ig_tc_int(c, t2);
            else if (id == 10 && id2 == 1) n->int_bits = (uint8_t)ig_tc_int(c, t2);
            else if (id == 10 && id2 == 2) n->int_signed = ig_tc_bool_of(t2);
            else if ((id == 7 || id == 8) && id2 == 2 && t2 == IG_TC_STRUCT) {
                int16_t l3 = 0, id3;
                uint8_t t3;
                while (ig_tc_field(c, &l3, &id3, &t3)) {
                    if (id3 >= 1 && id3 <= 3) n->unit = (uint8_t)id3; /* MILLIS, MICROS, NANOS */
                    ig_tc_skip(c, t3);
                }
            } else ig_tc_skip(c, t2);
        }
    }
}

/* ConvertedType, used when no LogicalType says more. */
static void apply_converted(struct pq_node *n, int64_t ct)
{
    if (n->logical != PQ_L_NONE) return;
    switch (ct) {
    case 0: case 4: case 19: n->logical = PQ_L_STRING; break; /* UTF8, ENUM, JSON */
    case 1: case 2: n->logical = PQ_L_MAP; break;
    case 3: n->logical = PQ_L_LIST; break;
    case 5: n->logical = PQ_L_DECIMAL; break;
    case 6: n->logical = PQ_L_DATE; break;
    case 7: n->logical = PQ_L_TIME, n->unit = PQ_MILLIS; break;
    case 8: n->logical = PQ_L_TIME, n->unit = PQ_MICROS; break;
    case 9: n->logical = PQ_L_TIMESTAMP, n->unit = PQ_MILLIS; break;
    case 10: n->logical = PQ_L_TIMESTAMP, n->unit = PQ_MICROS; break;
    case 11: case 12: case 13: case 14: /* UINT_8 .. UINT_64 */
        n->logical = PQ_L_INT, n->int_signed = false, n->int_bits = (uint8_t)(8 << (ct - 11));
        break;
    case 15: case 16: case 17: case 18: /* INT_8 .. INT_64 */
        n->logical = PQ_L_INT, n->int_signed = true, n->int_bits = (uint8_t)(8 << (ct - 15));
        break;
    default: n->logical = PQ_L_OTHER; break;
    }
}

static void read_schema_element(struct ig_tc *c, struct pq_node *n)
{
    int16_t last = 0, id;
    uint8_t t;
    int64_t converted = -1;
    memset(n, 0, sizeof *n);
    n->type = -1;
    n->leaf = UINT32_MAX;
    while (ig_tc_field(c, &last, &id, &t)) {
        size_t len;
        const uint8_t *s;
        switch (id) {
        case 1: n->type = (int32_t)ig_tc_int(c, t); break;
        case 2: n->type_length = (int32_t)ig_tc_int(c, t); break;
        case 3: n->rep = (uint8_t)ig_tc_int(c, t); break;
        case 4:
            if (t != IG_TC_BINARY) { ig_tc_skip(c, t); break; }
            s = ig_tc_binary(c, &len);
            if (len >= sizeof n->name) ig_tc_fail(c, "column name longer than 255 bytes");
            else if (s) memcpy(n->name, s, len), n->name[len] = 0, n->name_len = (uint32_t)len;
            break;
        case 5: n->nchildren = (uint32_t)ig_tc_int(c, t); break;
        case 6: converted = ig_tc_int(c, t); break;
        case 7: n->scale = (int32_t)ig_tc_int(c, t); break;
        case 8: n->precision = (int32_t)ig_tc_int(c, t); break;
        case 10:
            if (t == IG_TC_STRUCT) read_logical(c, n);
            else ig_tc_skip(c, t);
            break;
        default: ig_tc_skip(c, t);
        }
    }
    if (converted >= 0) apply_converted(n, converted);
    if (n->rep > PQ_REPEATED) ig_tc_fail(c, "unknown repetition type");
    if (n->type < -1 || n->type > PQ_FLBA) ig_tc_fail(c, "unknown physical type");
}

static void read_column_meta(struct ig_tc *c, struct pq_chunk *k, int64_t *data_off, int64_t *dict_off)
{
    int16_t last = 0, id;
    uint8_t t;
    while (ig_tc_field(c, &last, &id, &t)) {
        switch (id) {
        case 1: k->type = (int32_t)ig_tc_int(c, t); break;
        case 4: k->codec = (uint8_t)ig_tc_int(c, t); break;
        case 5: k->num_values = ig_tc_int(c, t); break;
        case 7: k->size = (uint64_t)ig_tc_int(c, t); break;
        case 9: *data_off = ig_tc_int(c, t); break;
        case 11: *dict_off = ig_tc_int(c, t); break;
        default: ig_tc_skip(c, t);
        }
    }
}

/* parquet-mr 1.2.8 and older left the dictionary page's header out of a
 * chunk's total_compressed_size (PARQUET-816, IMPALA-694): true for such a
 * writer, and for one that names no version. */
static bool chunk_size_misses_dict_header(const char *created_by)
{
    if (strncmp(created_by, "parquet-mr", 10) != 0) return false;
    const char *v = strstr(created_by, " version ");
    unsigned major = 0, minor = 0, patch = 0;
    if (!v || sscanf(v + 9, "%u.%u.%u", &major, &minor, &patch) < 1) return true;
    return major < 1 || (major == 1 && (minor < 2 || (minor == 2 && patch < 9)));
}

/* What other readers add to such a chunk's length: a dictionary page header
 * is never longer. */
#define PQ_MAX_DICT_HEADER 100

static int read_row_group(struct ig_tc *c, struct pq_meta *m, struct pq_row_group *g,
                          uint64_t data_end, const char *path, uint32_t gi, struct ig_error *err)
{
    int16_t last = 0, id;
    uint8_t t, et;
    bool have_cols = false;
    g->chunks = calloc(m->nleaves ? m->nleaves : 1, sizeof *g->chunks);
    if (!g->chunks) return ig_err(err, -ENOMEM, "out of memory");
    while (ig_tc_field(c, &last, &id, &t)) {
        if (id == 3) {
            g->num_rows = ig_tc_int(c, t);
            continue;
        }
        if (id != 1 || t != IG_TC_LIST) {
            ig_tc_skip(c, t);
            continue;
        }
        uint32_t n = ig_tc_list(c, &et);
        if (c->bad) break;
        if (n != m->nleaves || et != IG_TC_STRUCT)
            return ig_err(err, -EIO, "%s: row group %u has %u column chunks, the schema %u leaves",
                          path, gi, n, m->nleaves);
        have_cols = true;
        for (uint32_t k = 0; k < n && !c->bad; k++) {
            int16_t l2 = 0, id2;
            uint8_t t2;
            int64_t data_off = -1, dict_off = -1;
            bool have_meta = false;
            struct pq_chunk *ch = &g->chunks[k];
            ch->type = -1;
            while (ig_tc_field(c, &l2, &id2, &t2)) {
                if (id2 == 1 && t2 == IG_TC_BINARY) {
                    size_t len;
                    (void)ig_tc_binary(c, &len);
                    if (len)
                        return ig_err(err, -EINVAL, "%s: row group %u: column chunks in other "
                                                    "files are not supported",
                                      path, gi);
                } else if (id2 == 3 && t2 == IG_TC_STRUCT) {
                    read_column_meta(c, ch, &data_off, &dict_off);
                    have_meta = true;
                } else if (id2 == 8 || id2 == 9) {
                    char col[512];
                    pq_node_path(m, m->leaves[k], col, sizeof col);
                    return ig_err(err, -EINVAL, "%s: row group %u, column '%s': encrypted column "
                                                "chunks are not supported",
                                  path, gi, col);
                } else ig_tc_skip(c, t2);
            }
            if (c->bad) break;
            /* some writers store a dictionary offset of 0 meaning none */
            ch->start = (uint64_t)(dict_off >= 4 && dict_off < data_off ? dict_off : data_off);
            /* a chunk of no values has no pages to read, wherever the footer
             * says they are (Arrow writes a data page offset of 0 for one) */
            if (have_meta && ch->num_values == 0) ch->start = 4, ch->size = 0;
            char why[160] = "";
            if (!have_meta || (data_off < 4 && ch->num_values != 0))
                snprintf(why, sizeof why, "no column metadata");
            else if (ch->type != m->nodes[m->leaves[k]].type)
                snprintf(why, sizeof why, "chunk type %s, schema %s", pq_type_name(ch->type),
                         pq_type_name(m->nodes[m->leaves[k]].type));
            else if (ch->size > data_end || ch->start > data_end - ch->size || ch->num_values < 0)
                snprintf(why, sizeof why, "chunk at %" PRIu64 " + %" PRIu64 " lies outside the "
                         "file's data (%" PRIu64 " bytes)", ch->start, ch->size, data_end);
            else if (ch->codec > PQ_LZ4_RAW)
                snprintf(why, sizeof why, "unknown compression %u", ch->codec);
            if (why[0]) { /* the column's path only for the message */
                char col[512];
                pq_node_path(m, m->leaves[k], col, sizeof col);
                return ig_err(err, -EIO, "%s: row group %u, column '%s': %s", path, gi, col, why);
            }
            /* the page walk stops at the chunk's last value, so bytes read
             * past a chunk that was measured right are never looked at */
            if (chunk_size_misses_dict_header(m->created_by)) {
                uint64_t room = data_end - ch->start - ch->size;
                ch->size += room < PQ_MAX_DICT_HEADER ? room : PQ_MAX_DICT_HEADER;
            }
        }
    }
    if (!c->bad && !have_cols && m->nleaves)
        return ig_err(err, -EIO, "%s: row group %u has no column chunks", path, gi);
    if (!c->bad && g->num_rows < 0)
        return ig_err(err, -EIO, "%s: row group %u: negative row count", path, gi);
    return 0;
}

/* Parents, leaves and levels of the pre-order schema list. */
static int build_tree(struct pq_meta *m, const char *path, struct ig_error *err)
{
    if (m->nnodes == 0 || m->nodes[0].type != -1)
        return ig_err(err, -EIO, "%s: the schema has no root group", path);
    m->leaves = malloc(m->nnodes * sizeof *m->leaves);
    uint32_t *stack = malloc(m->nnodes * sizeof *stack), *left = malloc(m->nnodes * sizeof *left);
    int rc = m->leaves && stack && left ? 0 : ig_err(err, -ENOMEM, "out of memory");
    uint32_t depth = 0;
    m->nodes[0].parent = UINT32_MAX;
    if (!rc) stack[0] = 0, left[0] = m->nodes[0].nchildren, depth = 1;
    for (uint32_t i = 1; i < m->nnodes && !rc; i++) {
        while (depth && left[depth - 1] == 0) depth--;
        if (!depth) {
            rc = ig_err(err, -EIO, "%s: schema element %u lies outside the tree", path, i);
            break;
        }
        struct pq_node *n = &m->nodes[i], *p = &m->nodes[stack[depth - 1]];
        left[depth - 1]--;
        n->parent = stack[depth - 1];
        unsigned def = (i == 0 || n->parent == 0 ? 0u : p->max_def) + (n->rep != PQ_REQUIRED);
        unsigned rep = (n->parent == 0 ? 0u : p->max_rep) + (n->rep == PQ_REPEATED);
        if (def > 64 || rep > 64) {
            rc = ig_err(err, -EIO, "%s: schema nested more than 64 levels deep", path);
            break;
        }
        n->max_def = (uint8_t)def;
        n->max_rep = (uint8_t)rep;
        if (n->type == -1) {
            if (n->nchildren == 0) {
                rc = ig_err(err, -EIO, "%s: group '%s' has no fields", path, n->name);
                break;
            }
            stack[depth] = i;
            left[depth++] = n->nchildren;
        } else {
            if (n->nchildren)
                rc = ig_err(err, -EIO, "%s: column '%s' has a type and children", path, n->name);
            n->leaf = m->nleaves;
            m->leaves[m->nleaves++] = i;
        }
    }
    while (!rc && depth && left[depth - 1] == 0) depth--;
    if (!rc && depth) rc = ig_err(err, -EIO, "%s: the schema lists fewer elements than its groups "
                                            "have children", path);
    if (!rc && m->nleaves == 0) rc = ig_err(err, -EIO, "%s: the schema has no columns", path);
    free(stack);
    free(left);
    return rc;
}

int pq_meta_decode(const uint8_t *p, size_t len, uint64_t file_size, const char *path,
                   struct pq_meta *m, struct ig_error *err)
{
    memset(m, 0, sizeof *m);
    struct ig_tc c;
    ig_tc_init(&c, p, len);
    int16_t last = 0, id;
    uint8_t t, et;
    int rc = 0;
    bool have_schema = false;
    /* the data ends where the footer starts */
    uint64_t data_end = file_size >= len + 8 ? file_size - len - 8 : 0;
    const uint8_t *groups_at = NULL;
    uint32_t ngroups = 0;
    /* the schema element a damage was found in: named in the message, so a
     * reader of it knows which column the writer got wrong */
    const struct pq_node *bad_node = NULL;
    uint32_t bad_node_index = 0;
    while (!rc && ig_tc_field(&c, &last, &id, &t)) {
        if (id == 2 && t == IG_TC_LIST && !have_schema) {
            uint32_t n = ig_tc_list(&c, &et);
            if (c.bad) break;
            if (et != IG_TC_STRUCT) {
                ig_tc_fail(&c, "schema is not a list of structs");
                break;
            }
            m->nodes = calloc(n ? n : 1, sizeof *m->nodes);
            if (!m->nodes) {
                rc = ig_err(err, -ENOMEM, "out of memory");
                break;
            }
            for (uint32_t i = 0; i < n && !c.bad; i++) {
                read_schema_element(&c, &m->nodes[i]);
                if (c.bad) bad_node = &m->nodes[i], bad_node_index = i;
            }
            m->nnodes = n;
            have_schema = true;
            if (!c.bad) rc = build_tree(m, path, err);
        } else if (id == 3) {
            m->num_rows = ig_tc_int(&c, t);
        } else if (id == 4 && t == IG_TC_LIST) {
            /* row groups come after the schema in every writer, but Thrift does
             * not promise it: note where they are and read them at the end */
            groups_at = c.p;
            ngroups = ig_tc_list(&c, &et);
            if (!c.bad && et != IG_TC_STRUCT) ig_tc_fail(&c, "row groups are not structs");
            for (uint32_t g = 0; g < ngroups && !c.bad; g++) ig_tc_skip(&c, IG_TC_STRUCT);
        } else if (id == 6 && t == IG_TC_BINARY) {
            size_t n;
            const uint8_t *s = ig_tc_binary(&c, &n);
            if (n >= sizeof m->created_by) n = sizeof m->created_by - 1;
            if (s) memcpy(m->created_by, s, n), m->created_by[n] = 0;
        } else {
            ig_tc_skip(&c, t);
        }
    }
    if (!rc && !c.bad && !have_schema) rc = ig_err(err, -EIO, "%s: the footer has no schema", path);
    if (!rc && !c.bad && groups_at) {
        struct ig_tc g;
        ig_tc_init(&g, groups_at, (size_t)(p + len - groups_at));
        (void)ig_tc_list(&g, &et);
        m->groups = calloc(ngroups ? ngroups : 1, sizeof *m->groups);
        if (!m->groups) rc = ig_err(err, -ENOMEM, "out of memory");
        for (uint32_t i = 0; !rc && i < ngroups && !g.bad; i++) {
            rc = read_row_group(&g, m, &m->groups[i], data_end, path, i, err);
            m->ngroups = i + 1;
        }
        if (!rc && g.bad) c.bad = true, c.why = g.why;
    }
    if (!rc && c.bad && bad_node && bad_node->name[0])
        rc = ig_err(err, -EIO, "%s: the footer is damaged (schema element %" PRIu32 ", '%s': %s)", path,
                    bad_node_index, bad_node->name, c.why ? c.why : "bad Thrift");
    else if (!rc && c.bad && bad_node)
        rc = ig_err(err, -EIO, "%s: the footer is damaged (schema element %" PRIu32 ": %s)", path,
                    bad_node_index, c.why ? c.why : "bad Thrift");
    else if (!rc && c.bad)
        rc = ig_err(err, -EIO, "%s: the footer is damaged (%s)", path, c.why ? c.why : "bad Thrift");
    /* The rows are the row groups' (each checked against its chunks as they
     * are read); the footer's total is a summary that some writers leave 0
     * (parquet-mr's repeated_no_annotation.parquet), so it is not trusted. */
    int64_t sum = 0;
    for (uint32_t i = 0; !rc && i < m->ngroups; i++) {
        if (m->groups[i].num_rows > INT64_MAX - sum)
            rc = ig_err(err, -EIO, "%s: the row groups hold more than 2^63 rows", path);
        else sum += m->groups[i].num_rows;
    }
    m->num_rows = sum;
    if (rc) pq_meta_free(m);
    return rc;
}

int pq_meta_read(int fd, uint64_t size, const char *path, struct pq_meta *m, struct ig_error *err)
{
    memset(m, 0, sizeof *m);
    uint8_t tail[8];
    if (size < 12) return ig_err(err, -EINVAL, "%s: too short to be a Parquet file", path);
    int rc = ig_pread_full(fd, tail, 8, size - 8);
    if (rc) return ig_err(err, rc, "%s: read: %s", path, strerror(-rc));
    if (!memcmp(tail + 4, "PARE", 4))
        return ig_err(err, -EINVAL, "%s: encrypted Parquet files are not supported", path);
    if (memcmp(tail + 4, "PAR1", 4)) return ig_err(err, -EINVAL, "%s: not a Parquet file (no PAR1 at the end)", path);
    uint32_t flen = ig_ld32(tail);
    if (flen > PQ_FOOTER_MAX || (uint64_t)flen + 12 > size)
        return ig_err(err, -EIO, "%s: footer length %u does not fit the file (%" PRIu64 " bytes)",
                      path, flen, size);
    uint8_t *buf = malloc(flen ? flen : 1);
    if (!buf) return ig_err(err, -ENOMEM, "out of memory");
    rc = ig_pread_full(fd, buf, flen, size - 8 - flen);
    if (rc) rc = ig_err(err, rc, "%s: read: %s", path, strerror(-rc));
    else rc = pq_meta_decode(buf, flen, size, path, m, err);
    free(buf);
    return rc;
}

void pq_meta_free(struct pq_meta *m)
{
    for (uint32_t i = 0; i < m->ngroups; i++) free(m->groups[i].chunks);
    free(m->groups);
    free(m->nodes);
    free(m->leaves);
    memset(m, 0, sizeof *m);
}

void pq_node_path(const struct pq_meta *m, uint32_t node, char *out, size_t cap)
{
    uint32_t chain[64], n = 0;
    for (uint32_t i = node; i != 0 && i != UINT32_MAX && n < 64; i = m->nodes[i].parent) chain[n++] = i;
    size_t at = 0;
    out[0] = 0;
    while (n-- && at + 1 < cap) {
        int w = snprintf(out + at, cap - at, "%s%s", at ? "." : "", m->nodes[chain[n]].name);
        if (w < 0) break;
        at += (size_t)w;
    }
}
