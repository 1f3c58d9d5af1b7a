#include "csv.h"
#include "spool.h"
#include "lines.h"
#include "../util/cpu.h"
#include "../util/error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#if IG_HAVE_X8
#include <immintrin.h>
#endif

struct ig_csv_reader {
    struct ig_inbuf in;
    char delim;
    /* Bytes that end an unquoted run: delimiter, '"', CR, LF. The scalar
     * path looks each byte up here, branch-light for any delimiter. */
    uint8_t stop[256];
    bool x8; /* find stop bytes 64 at a time (ig_cpu_avx512 at open) */
    struct ig_csv_field *fields;
    size_t fcap;
    char *scratch; /* unescaped quoted fields containing "" */
    size_t scap;
};

/* For the few helpers of the field loop that must inline into both of its
 * copies (see parse_record). */
#define CSV_INLINE static inline __attribute__((always_inline))

/* parse_record result when the record runs past the buffered input. */
enum { NEED_MORE = 2 };

static size_t count_byte(const char *p, size_t n, char c)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += p[i] == c;
    return k;
}

char ig_csv_sniff_delimiter(int fd, const char *name)
{
    char plain[4096];
    ig_spool_plain_name(name, plain, sizeof plain);
    if (ig_name_ends_with(plain, ".tsv") || ig_name_ends_with(plain, ".tab")) return '\t';
    char head[65536];
    ssize_t got = pread(fd, head, sizeof head, 0);
    if (got <= 0) return ',';
    const char *end = head + got, *nl = memchr(head, '\n', (size_t)got);
    size_t l1 = nl ? (size_t)(nl - head) : (size_t)got;
    const char *line2 = nl ? nl + 1 : end;
    const char *nl2 = memchr(line2, '\n', (size_t)(end - line2));
    size_t l2 = nl2 ? (size_t)(nl2 - line2) : (size_t)(end - line2);
    if (count_byte(head, l1, ',')) return ',';
    static const char others[] = {'\t', ';', '|'};
    for (size_t i = 0; i < sizeof others; i++) {
        size_t k = count_byte(head, l1, others[i]);
        if (k && (!nl || count_byte(line2, l2, others[i]) == k)) return others[i];
    }
    return ',';
}

int ig_csv_open(struct ig_csv_reader **r, int fd, const char *path_for_messages, char delimiter)
{
    if (delimiter == '"' || delimiter == '\r' || delimiter == '\n') return -EINVAL;
    struct ig_csv_reader *cr = calloc(1, sizeof *cr);
    if (!cr) return -ENOMEM;
    int rc = ig_inbuf_init(&cr->in, fd, path_for_messages);
    if (rc) {
        free(cr);
        return rc;
    }
    cr->in.unit = "record";
    cr->delim = delimiter;
    cr->stop[(uint8_t)delimiter] = 1;
    cr->stop['"'] = 1;
    cr->stop['\r'] = 1;
    cr->stop['\n'] = 1;
    cr->x8 = ig_cpu_avx512();
    *r = cr;
    return 0;
}

void ig_csv_set_limits(struct ig_csv_reader *r, size_t bufsize, size_t max_record)
{
    if (bufsize) r->in.init_cap = bufsize;
    if (max_record) r->in.max_record = max_record;
    if (r->in.max_record < r->in.init_cap) r->in.max_record = r->in.init_cap;
    if (r->in.max_record < 4) r->in.max_record = 4; /* room to look for a BOM */
}

void ig_csv_close(struct ig_csv_reader *r)
{
    if (!r) return;
    ig_inbuf_free(&r->in);
    free(r->fields);
    free(r->scratch);
    free(r);
}

int ig_csv_rewind(struct ig_csv_reader *r) { return ig_inbuf_rewind(&r->in); }

void ig_csv_borrow(struct ig_csv_reader *r, const char *p, size_t len, uint64_t line)
{
    ig_inbuf_borrow(&r->in, p, len, line);
}

size_t ig_csv_unparsed(const struct ig_csv_reader *r, const char **p, uint64_t *line, bool *eof)
{
    const struct ig_inbuf *in = &r->in;
    *p = in->buf ? in->buf + in->pos : "";
    *line = in->line;
    *eof = in->eof;
    return in->len - in->pos;
}

static int grow_fields(struct ig_csv_reader *r)
{
    size_t ncap = r->fcap ? r->fcap * 2 : 64;
    struct ig_csv_field *nf = realloc(r->fields, ncap * sizeof *nf);
    if (!nf) return -ENOMEM;
    r->fields = nf;
    r->fcap = ncap;
    return 0;
}

static inline uint64_t count_lf(const char *p, const char *end)
{
    uint64_t n = 0;
    while ((p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
        n++;
        p++;
    }
    return n;
}

/* The field that starts at *qp with a quote: *fld points into the buffer, or
 * into scratch when "" escapes had to be collapsed. *qp ends past the closing
 * quote and *line counts the newlines inside. NEED_MORE when the field runs
 * past the buffered input. */
static int quoted_field(struct ig_csv_reader *r, const char **qp, const char *end, size_t *slen,
                        uint64_t *line, struct ig_csv_field *fld, struct ig_error *err)
{
    struct ig_inbuf *in = &r->in;
    const bool eof = in->eof;
    const char *f = *qp + 1, *seg = f, *scan = f, *c;
    bool esc = false;
    size_t fstart = 0;
    for (;;) {
        c = memchr(scan, '"', (size_t)(end - scan));
        if (!c) {
            if (!eof) return NEED_MORE;
            return ig_err(err, -EINVAL, "%s:%llu: unterminated quoted field", in->path,
                          (unsigned long long)*line);
        }
        if (c + 1 == end && !eof) return NEED_MORE; /* '"' or '""'? */
        if (c + 1 == end || c[1] != '"') break;     /* the closing quote */
        if (!esc) {
            /* The scratch buffer is sized to the whole input buffer before the
             * first copy of a parse, so it never moves while fields of this
             * record point into it. */
            if (r->scap < in->cap) {
                char *ns = realloc(r->scratch, in->cap);
                if (!ns)
                    return ig_err(err, -ENOMEM, "%s:%llu: out of memory", in->path,
                                  (unsigned long long)*line);
                r->scratch = ns;
                r->scap = in->cap;
            }
            esc = true;
            fstart = *slen;
        }
        memcpy(r->scratch + *slen, seg, (size_t)(c + 1 - seg)); /* keeps one '"' */
        *slen += (size_t)(c + 1 - seg);
        seg = scan = c + 2;
    }
    if (esc) {
        memcpy(r->scratch + *slen, seg, (size_t)(c - seg));
        *slen += (size_t)(c - seg);
        fld->p = r->scratch + fstart;
        fld->len = *slen - fstart;
    } else {
        fld->p = f;
        fld->len = (size_t)(c - f);
    }
    fld->quoted = true;
    *line += count_lf(f, c);
    *qp = c + 1;
    return 0;
}

/* The error for the byte at q that ends field nf (1-based) and is neither a
 * delimiter nor a line end: a bare CR, a '"' in an unquoted field, or junk
 * after a closing quote. Out of line: the field loop stays small. */
static __attribute__((noinline, cold)) int field_end_error(const struct ig_inbuf *in, const char *q,
                                                           bool quoted, size_t nf, uint64_t line,
                                                           struct ig_error *err)
{
    if (*q == '\r')
        return ig_err(err, -EINVAL,
                      "%s:%llu: carriage return not followed by a line feed %s field %zu", in->path,
                      (unsigned long long)line, quoted ? "after" : "in unquoted", nf);
    unsigned char g = (unsigned char)*q;
    if (!quoted)
        return ig_err(err, -EINVAL, "%s:%llu: '\"' in the middle of unquoted field %zu", in->path,
                      (unsigned long long)line, nf);
    if (g >= 0x20 && g < 0x7F)
        return ig_err(err, -EINVAL, "%s:%llu: unexpected '%c' after the closing quote of field %zu",
                      in->path, (unsigned long long)line, g, nf);
    return ig_err(err, -EINVAL,
                  "%s:%llu: unexpected byte 0x%02x after the closing quote of field %zu", in->path,
                  (unsigned long long)line, g, nf);
}

/* What follows field nf (1-based) at *qp: a delimiter (FIELD_NEXT), a line end
 * or the end of the input at EOF (RECORD_END, *newline says which), NEED_MORE,
 * or an error naming the line and field. delim is r->delim, passed in so the
 * field loop keeps it in a register (a char read may alias any store). */
enum { FIELD_NEXT = 3, RECORD_END = 4 };
CSV_INLINE int field_end(const struct ig_inbuf *in, char delim, const char **qp, const char *end,
                         bool quoted, size_t nf, uint64_t line, bool *newline, struct ig_error *err)
{
    const char *q = *qp;
    *newline = false;
    if (q == end) return in->eof ? RECORD_END : NEED_MORE;
    if (*q == delim) {
        *qp = q + 1;
        return FIELD_NEXT;
    }
    if (*q == '\n') {
        *qp = q + 1;
        *newline = true;
        return RECORD_END;
    }
    if (*q == '\r') {
        if (q + 1 == end && !in->eof) return NEED_MORE;
        if (q + 1 < end && q[1] == '\n') {
            *qp = q + 2;
            *newline = true;
            return RECORD_END;
        }
    }
    return field_end_error(in, q, quoted, nf, line, err);
}

/* Where the stop bytes are, 64 input bytes at a time: bit i of mask is set
 * when blk[i] is a stop byte and blk + i < lim. One classification serves
 * the several short fields that usually fit in 64 bytes, and a field's end
 * is a count of trailing zeros instead of a byte loop whose exit branch
 * mispredicts at nearly every field. Lives for one parse: the buffer does
 * not change under it. */
struct stop_scan {
    const char *blk, *lim; /* lim = min(blk + 64, end) */
    uint64_t mask;
};

/* The end of the unquoted field starting at q: its first stop byte, or end.
 * parse_record is given unquoted_end_x8 or unquoted_end_scalar and inlines
 * it into its field loop. */
typedef const char *unquoted_end_fn(const struct ig_csv_reader *r, char delim, struct stop_scan *s,
                                    const char *q, const char *end);

#if IG_HAVE_X8
/* The stop mask of p[0, min(64, end - p)); a short tail is read with a
 * masked load, so nothing at or past end is touched. */
CSV_INLINE IG_X8 uint64_t stop_mask_x8(const char *p, const char *end, char delim)
{
    size_t n = (size_t)(end - p);
    __mmask64 valid = n >= 64 ? ~0ull : (1ull << n) - 1;
    __m512i w = _mm512_maskz_loadu_epi8(valid, p);
    __mmask64 m = _mm512_cmpeq_epi8_mask(w, _mm512_set1_epi8(delim)) |
                  _mm512_cmpeq_epi8_mask(w, _mm512_set1_epi8('"')) |
                  _mm512_cmpeq_epi8_mask(w, _mm512_set1_epi8('\r')) |
                  _mm512_cmpeq_epi8_mask(w, _mm512_set1_epi8('\n'));
    return m & valid; /* a zero delimiter would match the zeroed tail */
}

/* unquoted_end_fn from the stop masks. q never moves backwards within a
 * parse, so q >= s->blk always holds and q < s->lim means q is inside the
 * classified block. */
CSV_INLINE IG_X8 const char *unquoted_end_x8(const struct ig_csv_reader *r, char delim,
                                             struct stop_scan *s, const char *q, const char *end)
{
    (void)r; /* delim is all it needs */
    for (;;) {
        if (q >= s->lim) {
            if (q == end) return end;
            s->blk = q;
            s->lim = end - q >= 64 ? q + 64 : end;
            s->mask = stop_mask_x8(q, end, delim);
        }
        uint64_t m = s->mask & (~0ull << (q - s->blk)); /* drop bytes before q */
        if (m) return s->blk + __builtin_ctzll(m);
        q = s->lim;
    }
}
#endif

/* The scalar unquoted_end_fn: a table lookup per byte. */
CSV_INLINE const char *unquoted_end_scalar(const struct ig_csv_reader *r, char delim,
                                           struct stop_scan *s, const char *q, const char *end)
{
    (void)delim, (void)s; /* the table has the delimiter */
    const uint8_t *stop = r->stop;
    while (q < end && !stop[(uint8_t)*q])
        q++;
    return q;
}

/* Parse one record starting at in.pos, field by field. Nothing is written to
 * the input buffer, so when the record runs past the buffered bytes
 * (NEED_MORE) the caller refills and simply parses it again from the start.
 * Compiled twice, once per unquoted_end (parse_record_x8, parse_record_scalar),
 * so that the AVX-512 scan inlines into the field loop of the first and the
 * second never uses AVX-512: a call per field or per 64 bytes, with its
 * register spills and vzeroupper, would cost much of what the scan saves. */
CSV_INLINE int parse_record(struct ig_csv_reader *r, struct ig_csv_record *rec,
                            struct ig_error *err, unquoted_end_fn *unquoted_end)
{
    struct ig_inbuf *in = &r->in;
    const char *q = in->buf + in->pos;
    const char *const end = in->buf + in->len;
    if (q == end) return in->eof ? 0 : NEED_MORE;

    const char delim = r->delim;
    uint64_t line = in->line; /* physical line of q */
    size_t nf = 0, slen = 0;
    bool newline = false;
    struct stop_scan scan = {.blk = q, .lim = q};
    for (int rc = FIELD_NEXT; rc == FIELD_NEXT;) {
        if (nf == r->fcap && grow_fields(r))
            return ig_err(err, -ENOMEM, "%s:%llu: out of memory for fields", in->path,
                          (unsigned long long)line);
        struct ig_csv_field *fld = &r->fields[nf];
        bool quoted = q < end && *q == '"';
        if (quoted) {
            rc = quoted_field(r, &q, end, &slen, &line, fld, err);
            if (rc) return rc;
        } else {
            /* unquoted; at the end of the input only after a delimiter: "a,"
             * ends with an empty field */
            const char *f = q;
            q = unquoted_end(r, delim, &scan, q, end);
            *fld = (struct ig_csv_field){.p = f, .len = (size_t)(q - f), .quoted = false};
        }
        nf++;
        rc = field_end(in, delim, &q, end, quoted, nf, line, &newline, err);
        if (rc != FIELD_NEXT && rc != RECORD_END) return rc;
        if (rc == RECORD_END) break;
    }
    rec->nfields = nf;
    rec->fields = r->fields;
    rec->line = in->line;
    in->pos = (size_t)(q - in->buf);
    in->line = newline ? line + 1 : line;
    return 1;
}

#if IG_HAVE_X8
static IG_X8 int parse_record_x8(struct ig_csv_reader *r, struct ig_csv_record *rec,
                                 struct ig_error *err)
{
    return parse_record(r, rec, err, unquoted_end_x8);
}
#endif

static int parse_record_scalar(struct ig_csv_reader *r, struct ig_csv_record *rec,
                               struct ig_error *err)
{
    return parse_record(r, rec, err, unquoted_end_scalar);
}

int ig_csv_next(struct ig_csv_reader *r, struct ig_csv_record *rec, struct ig_error *err)
{
    int rc = ig_inbuf_start(&r->in, err);
    if (rc < 0) return rc;
    for (;;) {
#if IG_HAVE_X8
        rc = r->x8 ? parse_record_x8(r, rec, err) : parse_record_scalar(r, rec, err);
#else
        rc = parse_record_scalar(r, rec, err);
#endif
        if (rc != NEED_MORE) return rc;
        rc = ig_inbuf_fill(&r->in, err);
        if (rc < 0) return rc;
    }
}
