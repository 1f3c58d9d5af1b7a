/* manifest.c - MANIFEST: which parts make the table, in order, and the table
 * generation; read and checked, written atomically (manifest.h). */
#include "format/part/manifest.h"
#include "format/layout.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/io.h"
#include "util/utf8.h"
#include "store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void ig_part_file_name(char *out, uint32_t index)
{
    snprintf(out, IG_PART_NAME_MAX, "part-%06u.ingot", index);
}

bool ig_blob_file_of_part(const char *part, char *out)
{
    size_t n = strlen(part);
    if (n < 6 || n >= IG_PART_NAME_MAX || strcmp(part + n - 6, ".ingot")) return false;
    snprintf(out, IG_PART_NAME_MAX, "%.*s.blob", (int)(n - 6), part);
    return true;
}

void ig_blob_file_name(char *out, uint32_t index)
{
    snprintf(out, IG_PART_NAME_MAX, "part-%06u.blob", index);
}

bool ig_blob_name_valid(const char *s)
{
    size_t n = strlen(s);
    if (n < 11 || n >= IG_PART_NAME_MAX || strncmp(s, "part-", 5) != 0) return false;
    if (strcmp(s + n - 5, ".blob") != 0) return false;
    for (size_t i = 5; i < n - 5; i++)
        if (s[i] < '0' || s[i] > '9') return false;
    return true;
}

bool ig_part_name_valid(const char *s)
{
    size_t n = strlen(s);
    if (n < 12 || n >= IG_PART_NAME_MAX || strncmp(s, "part-", 5) != 0) return false;
    if (strcmp(s + n - 6, ".ingot") != 0) return false;
    for (size_t i = 5; i < n - 6; i++)
        if (s[i] < '0' || s[i] > '9') return false;
    return true;
}

int ig_manifest_add(struct ig_manifest *m, const char *name, uint64_t first_row, uint64_t rows)
{
    void *p = realloc(m->parts, (m->n + 1) * sizeof *m->parts);
    if (!p) return -ENOMEM;
    m->parts = p;
    struct ig_manifest_part *mp = &m->parts[m->n++];
    memset(mp, 0, sizeof *mp);
    snprintf(mp->name, sizeof mp->name, "%s", name);
    mp->first_row = first_row;
    mp->rows = rows;
    return 0;
}

static void free_names(struct ig_manifest_name *names, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        free(names[i].name);
    free(names);
}

void ig_manifest_free(struct ig_manifest *m)
{
    free(m->parts);
    free_names(m->names, m->nnames);
    ig_idset_free(&m->columns);
    ig_idseq_free(&m->order);
    memset(m, 0, sizeof *m);
}

bool ig_manifest_shows(const struct ig_manifest *m, uint32_t col)
{
    return !m->listed || ig_idset_has(&m->columns, col);
}

/* A bitmap of the ids m shows (one bit an id, below *ids: the end of its last
 * run), or NULL (out of memory, or more than `most` ids). */
static uint8_t *shown_bits(const struct ig_manifest *m, uint64_t most, uint64_t *ids)
{
    const struct ig_idrun *last = m->columns.n ? &m->columns.runs[m->columns.n - 1] : NULL;
    *ids = last ? (uint64_t)last->first + last->count : 0;
    uint8_t *bits = *ids <= most ? calloc(*ids / 8 + 1, 1) : NULL;
    for (size_t r = 0; bits && r < m->columns.n; r++)
        for (uint32_t id = m->columns.runs[r].first; id - m->columns.runs[r].first < m->columns.runs[r].count; id++)
            bits[id / 8] |= (uint8_t)(1u << id % 8);
    return bits;
}

static bool take_bit(uint8_t *bits, uint64_t id)
{
    if (!(bits[id / 8] & (1u << id % 8))) return false;
    bits[id / 8] &= (uint8_t)~(1u << id % 8);
    return true;
}

/* The order version m shows its records in: m->order's shown ids, each once,
 * then the shown ids it leaves out, ascending. *by_id: that is ascending (no
 * `order` line). */
static int shown_order(const struct ig_manifest *m, struct ig_idseq *out, bool *by_id)
{
    *out = (struct ig_idseq){0};
    *by_id = true;
    if (!m->listed || !m->columns.n) return 0;
    uint64_t ids;
    uint8_t *left = shown_bits(m, UINT64_MAX, &ids); /* shown, not yet in out */
    if (!left) return -ENOMEM;
    int rc = 0;
    for (size_t r = 0; r < m->order.n && !rc; r++) {
        uint64_t end = (uint64_t)m->order.runs[r].first + m->order.runs[r].count;
        for (uint64_t id = m->order.runs[r].first; id < end && id < ids && !rc; id++)
            if (take_bit(left, id)) rc = ig_idseq_push(out, (uint32_t)id);
    }
    for (size_t r = 0; r < m->columns.n && !rc; r++)
        for (uint32_t k = 0; k < m->columns.runs[r].count && !rc; k++)
            if (take_bit(left, m->columns.runs[r].first + k)) rc = ig_idseq_push(out, m->columns.runs[r].first + k);
    free(left);
    for (size_t r = 1; r < out->n && *by_id; r++)
        *by_id = out->runs[r].first > out->runs[r - 1].first;
    if (rc) ig_idseq_free(out);
    return rc;
}

int ig_manifest_place(struct ig_manifest *m, const struct ig_placement *pl, size_t n)
{
    struct ig_idseq now, next = {0};
    bool by_id;
    int rc = shown_order(m, &now, &by_id);
    uint64_t ids = 0; /* past every id shown or placed */
    for (size_t r = 0; r < m->columns.n; r++)
        ids = (uint64_t)m->columns.runs[r].first + m->columns.runs[r].count;
    for (size_t k = 0; k < n; k++)
        if ((uint64_t)pl[k].first + pl[k].count > ids) ids = (uint64_t)pl[k].first + pl[k].count;
    /* which ids move; for each record, the placements before it (a list in
     * the order given: head[id], then link[k]) */
    uint8_t *moved = rc ? NULL : calloc(ids / 8 + 1, 1);
    uint32_t *head = rc ? NULL : malloc((ids ? ids : 1) * sizeof *head);
    uint32_t *link = rc ? NULL : malloc((n ? n : 1) * sizeof *link);
    bool *placed = rc ? NULL : calloc(n ? n : 1, sizeof *placed);
    if (!rc && (!moved || !head || !link || !placed)) rc = -ENOMEM;
    if (!rc) memset(head, 0xff, ids * sizeof *head); /* none */
    for (size_t k = n; !rc && k-- > 0;) {
        for (uint64_t id = pl[k].first; id < (uint64_t)pl[k].first + pl[k].count; id++)
            moved[id / 8] |= (uint8_t)(1u << id % 8);
        link[k] = UINT32_MAX;
        if (pl[k].at < ids) link[k] = head[pl[k].at], head[pl[k].at] = (uint32_t)k;
    }
    for (size_t r = 0; r < now.n && !rc; r++)
        for (uint32_t j = 0; j < now.runs[r].count && !rc; j++) {
            uint32_t id = now.runs[r].first + j;
            if (moved[id / 8] & (1u << id % 8)) continue;
            for (uint32_t k = head[id]; k != UINT32_MAX && !rc; k = link[k]) {
                placed[k] = true;
                for (uint32_t i = 0; i < pl[k].count && !rc; i++)
                    rc = ig_idseq_push(&next, pl[k].first + i);
            }
            if (!rc) rc = ig_idseq_push(&next, id);
        }
    for (size_t k = 0; k < n && !rc; k++) /* IG_PLACE_LAST, or before a record not shown */
        for (uint32_t i = 0; !placed[k] && i < pl[k].count && !rc; i++)
            rc = ig_idseq_push(&next, pl[k].first + i);
    ig_idseq_free(&now);
    free(moved);
    free(head);
    free(link);
    free(placed);
    if (rc) {
        ig_idseq_free(&next);
        return rc;
    }
    ig_idseq_free(&m->order);
    m->order = next;
    return 0;
}

int ig_manifest_rename(struct ig_manifest *m, uint32_t col, const char *name, size_t len)
{
    /* the first entry not below col (a MANIFEST's lines arrive in id order:
     * each goes last, and a table of thousands of renames opens in linear time) */
    uint32_t at = 0, hi = m->nnames;
    if (hi && m->names[hi - 1].col < col) at = hi;
    while (at < hi) {
        uint32_t mid = at + (hi - at) / 2;
        if (m->names[mid].col < col)
            at = mid + 1;
        else
            hi = mid;
    }
    bool there = at < m->nnames && m->names[at].col == col;
    if (!name) {
        if (there) {
            free(m->names[at].name);
            memmove(&m->names[at], &m->names[at + 1], (m->nnames - at - 1) * sizeof *m->names);
            m->nnames--;
        }
        return 0;
    }
    char *copy = malloc(len + 1);
    if (!copy) return -ENOMEM;
    memcpy(copy, name, len);
    copy[len] = '\0';
    if (there) {
        free(m->names[at].name);
    } else {
        if (m->nnames == m->names_cap) {
            uint32_t cap = m->names_cap ? 2 * m->names_cap : 8;
            void *grown = realloc(m->names, cap * sizeof *m->names);
            if (!grown) {
                free(copy);
                return -ENOMEM;
            }
            m->names = grown;
            m->names_cap = cap;
        }
        memmove(&m->names[at + 1], &m->names[at], (m->nnames - at) * sizeof *m->names);
        m->nnames++;
    }
    m->names[at] = (struct ig_manifest_name){.col = col, .len = (uint32_t)len, .name = copy};
    return 0;
}

int ig_manifest_copy(struct ig_manifest *dst, const struct ig_manifest *src)
{
    struct ig_manifest c = *src;
    c.parts = malloc((src->n ? src->n : 1) * sizeof *c.parts);
    c.columns = (struct ig_idset){0};
    c.order = (struct ig_idseq){0};
    c.names = calloc(src->nnames ? src->nnames : 1, sizeof *c.names);
    c.nnames = 0;
    c.names_cap = src->nnames ? src->nnames : 1;
    bool ok = c.parts && c.names && !ig_idset_copy(&c.columns, &src->columns) && !ig_idseq_copy(&c.order, &src->order);
    for (uint32_t i = 0; ok && i < src->nnames; i++) {
        c.names[i] = src->names[i];
        c.names[i].name = malloc(src->names[i].len + 1);
        ok = c.names[i].name != NULL;
        if (ok) {
            memcpy(c.names[i].name, src->names[i].name, src->names[i].len + 1);
            c.nnames++;
        }
    }
    if (!ok) {
        free(c.parts);
        free_names(c.names, c.nnames);
        ig_idset_free(&c.columns);
        ig_idseq_free(&c.order);
        return -ENOMEM;
    }
    memcpy(c.parts, src->parts, src->n * sizeof *c.parts);
    *dst = c;
    return 0;
}

/* A name in a `name` line: bytes that would break the line (controls, space,
 * DEL) and '%' as %XX, the rest (UTF-8 included) as they are. */
static int put_escaped(struct ig_buf *b, const char *name, size_t len)
{
    int rc = 0;
    for (size_t i = 0; i < len && !rc; i++) {
        unsigned char ch = (unsigned char)name[i];
        rc = ch <= ' ' || ch == 0x7f || ch == '%' ? ig_buf_printf(b, "%%%02X", ch) : ig_buf_append_byte(b, ch);
    }
    return rc;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

/* "name ID ESCAPED": ids ascending, each once; the name as a column's may be
 * (not empty, no NUL, UTF-8, at most IG_MAX_NAME_LEN bytes). */
static int parse_name(const char *v, unsigned line, const char *what, struct ig_manifest *m, struct ig_error *err)
{
    char *end;
    unsigned long long col = strtoull(v, &end, 10);
    if (end == v || *end != ' ' || col >= UINT32_MAX || (m->nnames && m->names[m->nnames - 1].col >= col))
        return ig_err(err, -EIO, "%s line %u: bad name line", what, line);
    const char *e = end + 1;
    size_t elen = strlen(e);
    char name[IG_MAX_NAME_LEN + 1]; /* a line longer than any name escaped is refused below */
    size_t n = 0;
    bool ok = elen > 0;
    for (size_t i = 0; ok && i < elen && n <= IG_MAX_NAME_LEN; i++) {
        unsigned char ch = (unsigned char)e[i];
        if (ch == '%') {
            int hi = i + 2 < elen ? hex_digit(e[i + 1]) : -1, lo = hi >= 0 ? hex_digit(e[i + 2]) : -1;
            ok = hi >= 0 && lo >= 0 && (hi || lo);
            name[n++] = (char)(hi * 16 + lo);
            i += 2;
        } else {
            ok = ch > ' ' && ch != 0x7f;
            name[n++] = (char)ch;
        }
    }
    ok = ok && n <= IG_MAX_NAME_LEN && ig_utf8_valid((const uint8_t *)name, n);
    int rc = ok ? ig_manifest_rename(m, (uint32_t)col, name, n) : ig_err(err, -EIO, "%s line %u: bad name line", what, line);
    if (rc == -ENOMEM) rc = ig_err(err, rc, "out of memory");
    return rc;
}

/* The line's text after "key " (NULL if the line is not that key). */
static const char *value_of(const char *ln, const char *key)
{
    size_t n = strlen(key);
    return !strncmp(ln, key, n) && ln[n] == ' ' ? ln + n + 1 : NULL;
}

static int parse_part(char *ln, unsigned line, const char *what, uint64_t *next_row, struct ig_manifest *m,
                      struct ig_error *err)
{
    char name[IG_PART_NAME_MAX + 1], blob[IG_PART_NAME_MAX + 1] = "";
    uint64_t a, b, footer_end = 0;
    if (sscanf(ln, "part %64s %" SCNu64 " %" SCNu64, name, &a, &b) != 3)
        return ig_err(err, -EIO, "%s line %u: cannot parse '%s'", what, line, ln);
    const char *opt = strstr(ln, " blob=");
    if (opt && sscanf(opt, " blob=%64s", blob) != 1) blob[0] = '\0';
    const char *fe = strstr(ln, " footer=");
    if (fe && (sscanf(fe, " footer=%" SCNu64, &footer_end) != 1 || footer_end < 64 + 256 + 8))
        return ig_err(err, -EIO, "%s line %u: bad footer end", what, line);
    if (!ig_part_name_valid(name) || (opt && !ig_blob_name_valid(blob)))
        return ig_err(err, -EIO, "%s line %u: bad part name", what, line);
    if (a != *next_row)
        return ig_err(err, -EIO, "%s line %u: part starts at row %" PRIu64 ", expected %" PRIu64, what, line,
                      a, *next_row);
    if (ig_manifest_add(m, name, a, b)) return ig_err(err, -ENOMEM, "out of memory");
    snprintf(m->parts[m->n - 1].blob, IG_PART_NAME_MAX, "%s", blob);
    m->parts[m->n - 1].footer_end = footer_end;
    *next_row = a + b;
    return 0;
}

/* Column ids an order line may list: a footer of 2^26 records of 64 bytes
 * would be 4 GiB (and the check's bitmap is one bit an id). */
#define ORDER_IDS_MAX (1u << 26)

/* The order line lists every record of `columns` once: each of its ids
 * clears its bit in a bitmap of the ids shown (a bit not set: an id not
 * shown, or one listed twice), and it lists as many. Linear in the ids: a
 * sort of 10,000 runs took a 10,000-column table's open from 0.04 to 0.7 ms. */
static int check_order(const struct ig_manifest *m, const char *what, struct ig_error *err)
{
    bool ok = m->listed && m->columns.n && ig_idseq_count(&m->order) == ig_idset_count(&m->columns);
    uint64_t ids = 0;
    uint8_t *left = ok ? shown_bits(m, ORDER_IDS_MAX, &ids) : NULL;
    if (ok && !left && ids <= ORDER_IDS_MAX) return ig_err(err, -ENOMEM, "out of memory");
    ok = left != NULL;
    for (size_t r = 0; ok && r < m->order.n; r++) {
        uint64_t end = (uint64_t)m->order.runs[r].first + m->order.runs[r].count;
        for (uint64_t id = m->order.runs[r].first; ok && id < end; id++)
            ok = id < ids && take_bit(left, id);
    }
    free(left);
    return ok ? 0 : ig_err(err, -EIO, "%s: the order line does not list the columns shown, each once", what);
}

int ig_manifest_parse(char *text, size_t len, const char *what, struct ig_manifest *m, struct ig_error *err)
{
    memset(m, 0, sizeof *m);
    char *end_line = NULL;
    for (char *p = text; p < text + len;) {
        if (!strncmp(p, "end ", 4)) {
            end_line = p;
            break;
        }
        char *nl = memchr(p, '\n', (size_t)(text + len - p));
        if (!nl) break;
        p = nl + 1;
    }
    if (!end_line) return ig_err(err, -EIO, "%s is truncated (no end line)", what);
    uint64_t want = strtoull(end_line + 4, NULL, 16);
    if (ig_hash(text, (size_t)(end_line - text)) != want) return ig_err(err, -EIO, "%s checksum mismatch", what);
    *end_line = '\0';
    unsigned line = 0;
    int rc = 0;
    uint64_t next_row = 0;
    bool have_version = false;
    m->listed = false;
    char *save = NULL;
    for (char *ln = strtok_r(text, "\n", &save); ln && !rc; ln = strtok_r(NULL, "\n", &save)) {
        line++;
        unsigned format;
        uint64_t a;
        int64_t when;
        const char *v;
        if (line == 1) {
            if (sscanf(ln, "ingot-manifest %u", &format) != 1 || format < 1 || format > 4)
                rc = ig_err(err, -EIO, "%s: unsupported header '%s'", what, ln);
            m->format = format;
        } else if (m->format >= 3 && (v = value_of(ln, "name"))) { /* many lines: tested first */
            rc = parse_name(v, line, what, m, err);
        } else if (!strncmp(ln, "part ", 5)) {
            rc = parse_part(ln, line, what, &next_row, m, err);
        } else if (sscanf(ln, "generation %" SCNu64, &a) == 1) {
            m->generation = a;
        } else if (m->format >= 2 && sscanf(ln, "version %" SCNu64, &a) == 1 && a >= 1) {
            m->version = a;
            have_version = true;
        } else if (m->format >= 2 && sscanf(ln, "time %" SCNd64, &when) == 1) {
            m->time = when;
        } else if (m->format >= 2 && (v = value_of(ln, "change"))) {
            snprintf(m->change, sizeof m->change, "%s", v);
        } else if (m->format >= 2 && (v = value_of(ln, "columns"))) {
            ig_idset_free(&m->columns);
            int prc = ig_idset_parse(v, &m->columns);
            if (prc) rc = ig_err(err, prc == -ENOMEM ? prc : -EIO, "%s line %u: bad columns", what, line);
            m->listed = true;
        } else if (m->format >= 4 && (v = value_of(ln, "order"))) {
            ig_idseq_free(&m->order);
            int prc = ig_idseq_parse(v, &m->order);
            if (prc) rc = ig_err(err, prc == -ENOMEM ? prc : -EIO, "%s line %u: bad order", what, line);
        } else {
            rc = ig_err(err, -EIO, "%s line %u: cannot parse '%s'", what, line, ln);
        }
    }
    if (!rc && m->format >= 2 && !have_version) rc = ig_err(err, -EIO, "%s: no version line", what);
    if (!rc && m->format == 1) m->version = 1;
    if (!rc && m->order.n) rc = check_order(m, what, err);
    if (!rc && m->n == 0) rc = ig_err(err, -EIO, "%s lists no parts", what);
    if (rc) ig_manifest_free(m);
    return rc;
}

/* MANIFEST of a table on object storage: a GET (If-None-Match when read
 * before: a mount polling an unchanged table gets no body), and its ETag. */
static int read_remote(const char *dir, struct ig_manifest *m, struct ig_error *err)
{
    struct ig_store *st;
    int rc = ig_store_at(dir, &st, err);
    if (rc) return rc;
    struct ig_buf b = IG_BUF_INIT;
    struct ig_obj_info info;
    rc = ig_store_read(st, IG_MANIFEST, 64u << 20, &b, &info, err);
    if (rc == -ENOENT) rc = ig_err(err, rc, "%s: not an ingot table (no MANIFEST)", dir);
    if (!rc && ig_buf_append_byte(&b, 0)) rc = ig_err(err, -ENOMEM, "out of memory");
    if (!rc) {
        char what[4200];
        snprintf(what, sizeof what, "%s: MANIFEST", dir);
        rc = ig_manifest_parse((char *)b.data, b.len - 1, what, m, err);
        if (!rc) snprintf(m->etag, sizeof m->etag, "%s", info.etag);
    }
    ig_buf_free(&b);
    return rc;
}

int ig_manifest_read(const char *dir, struct ig_manifest *m, struct ig_error *err)
{
    memset(m, 0, sizeof *m);
    char path[4096], what[4200];
    if (ig_path_join(path, sizeof path, dir, IG_MANIFEST))
        return ig_err(err, -ENAMETOOLONG, "%s: path too long", dir);
    if (ig_store_is_remote(dir)) return read_remote(dir, m, err);
    char *text;
    size_t len;
    int rc = ig_read_file(path, 64u << 20, &text, &len, err);
    if (rc) {
        if (rc == -ENOENT) return ig_err(err, rc, "%s: not an ingot table (no MANIFEST)", dir);
        return rc;
    }
    snprintf(what, sizeof what, "%s: MANIFEST", dir);
    rc = ig_manifest_parse(text, len, what, m, err);
    free(text);
    return rc;
}

int ig_manifest_format(const struct ig_manifest *m, struct ig_buf *b)
{
    size_t start = b->len;
    /* one line of text: no newlines from a caller's change description */
    char change[IG_CHANGE_MAX + 1];
    snprintf(change, sizeof change, "%s", m->change);
    for (char *c = change; *c; c++)
        if (*c == '\n' || *c == '\r') *c = ' ';
    struct ig_idseq order = {0};
    bool by_id = true; /* no order of its own: nothing to work out */
    if (m->order.n && shown_order(m, &order, &by_id)) return -ENOMEM;
    int rc = ig_buf_printf(b, "ingot-manifest %d\ngeneration %" PRIu64 "\nversion %" PRIu64 "\ntime %" PRId64 "\n",
                           !by_id ? 4 : m->nnames ? 3 : 2, m->generation, m->version ? m->version : 1, m->time);
    if (!rc && change[0]) rc = ig_buf_printf(b, "change %s\n", change);
    if (!rc && m->listed) {
        rc = ig_buf_printf(b, "columns ");
        if (!rc) rc = ig_idset_format(&m->columns, b);
        if (!rc) rc = ig_buf_printf(b, "\n");
    }
    if (!rc && !by_id) {
        rc = ig_buf_printf(b, "order ");
        if (!rc) rc = ig_idseq_format(&order, b);
        if (!rc) rc = ig_buf_printf(b, "\n");
    }
    ig_idseq_free(&order);
    for (uint32_t i = 0; i < m->nnames && !rc; i++) {
        rc = ig_buf_printf(b, "name %" PRIu32 " ", m->names[i].col);
        if (!rc) rc = put_escaped(b, m->names[i].name, m->names[i].len);
        if (!rc) rc = ig_buf_printf(b, "\n");
    }
    for (uint32_t i = 0; i < m->n && !rc; i++) {
        const struct ig_manifest_part *p = &m->parts[i];
        rc = ig_buf_printf(b, "part %s %" PRIu64 " %" PRIu64 "%s%s", p->name, p->first_row, p->rows,
                           p->blob[0] ? " blob=" : "", p->blob);
        if (!rc && p->footer_end) rc = ig_buf_printf(b, " footer=%" PRIu64, p->footer_end);
        if (!rc) rc = ig_buf_printf(b, "\n");
    }
    if (!rc) rc = ig_buf_printf(b, "end %016" PRIx64 "\n", ig_hash(b->data + start, b->len - start));
    return rc;
}

int ig_manifest_write(const char *dir, const struct ig_manifest *m, struct ig_error *err)
{
    struct ig_buf b = IG_BUF_INIT;
    int rc = ig_manifest_format(m, &b);
    if (rc) {
        ig_buf_free(&b);
        return ig_err(err, rc, "out of memory");
    }
    rc = ig_write_file_atomic(dir, IG_MANIFEST, b.data, b.len, err);
    ig_buf_free(&b);
    return rc;
}
