/* idset.c - sets of ids as runs (idset.h). */
#include "util/idset.h"
#include "util/buf.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void ig_idset_free(struct ig_idset *s)
{
    free(s->runs);
    memset(s, 0, sizeof *s);
}

/* The first run that ends after id (n if none). */
static size_t run_after(const struct ig_idset *s, uint32_t id)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if ((uint64_t)s->runs[mid].first + s->runs[mid].count <= id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

bool ig_idset_has(const struct ig_idset *s, uint32_t id)
{
    size_t i = run_after(s, id);
    return i < s->n && s->runs[i].first <= id;
}

/* Room for n runs (a set's or a sequence's). */
static int reserve_runs(struct ig_idrun **runs, size_t *cap, size_t n)
{
    if (n <= *cap) return 0;
    size_t c = *cap ? *cap * 2 : 8;
    while (c < n)
        c *= 2;
    struct ig_idrun *r = realloc(*runs, c * sizeof *r);
    if (!r) return -ENOMEM;
    *runs = r;
    *cap = c;
    return 0;
}

static int reserve(struct ig_idset *s, size_t n)
{
    return reserve_runs(&s->runs, &s->cap, n);
}

int ig_idset_add(struct ig_idset *s, uint32_t first, uint32_t count)
{
    if (!count) return 0;
    uint64_t lo = first, hi = (uint64_t)first + count; /* [lo, hi) */
    /* the runs it touches or adjoins merge with it */
    size_t a = run_after(s, first ? first - 1 : 0);
    if (a < s->n && (uint64_t)s->runs[a].first + s->runs[a].count < lo) a++;
    size_t b = a;
    while (b < s->n && s->runs[b].first <= hi) {
        if (s->runs[b].first < lo) lo = s->runs[b].first;
        uint64_t end = (uint64_t)s->runs[b].first + s->runs[b].count;
        if (end > hi) hi = end;
        b++;
    }
    if (hi - lo > UINT32_MAX) return -EINVAL;
    if (a == b) { /* a new run at a */
        if (reserve(s, s->n + 1)) return -ENOMEM;
        memmove(s->runs + a + 1, s->runs + a, (s->n - a) * sizeof *s->runs);
        s->n++;
    } else if (b > a + 1) {
        memmove(s->runs + a + 1, s->runs + b, (s->n - b) * sizeof *s->runs);
        s->n -= b - a - 1;
    }
    s->runs[a] = (struct ig_idrun){(uint32_t)lo, (uint32_t)(hi - lo)};
    return 0;
}

int ig_idset_remove(struct ig_idset *s, uint32_t id)
{
    size_t i = run_after(s, id);
    if (i >= s->n || s->runs[i].first > id) return 0;
    struct ig_idrun r = s->runs[i];
    uint32_t left = id - r.first, right = r.first + r.count - id - 1;
    if (left && right) {
        if (reserve(s, s->n + 1)) return -ENOMEM;
        memmove(s->runs + i + 1, s->runs + i, (s->n - i) * sizeof *s->runs);
        s->n++;
        s->runs[i] = (struct ig_idrun){r.first, left};
        s->runs[i + 1] = (struct ig_idrun){id + 1, right};
    } else if (left) {
        s->runs[i].count = left;
    } else if (right) {
        s->runs[i] = (struct ig_idrun){id + 1, right};
    } else {
        memmove(s->runs + i, s->runs + i + 1, (s->n - i - 1) * sizeof *s->runs);
        s->n--;
    }
    return 0;
}

/* A set's and a sequence's runs alike: copied (the old ones freed), counted, compared. */
static int copy_runs(struct ig_idrun **runs, size_t *n, size_t *cap, const struct ig_idrun *from, size_t from_n)
{
    struct ig_idrun *c = NULL;
    size_t c_cap = 0;
    if (reserve_runs(&c, &c_cap, from_n)) return -ENOMEM;
    if (from_n) memcpy(c, from, from_n * sizeof *from);
    free(*runs);
    *runs = c, *n = from_n, *cap = c_cap;
    return 0;
}

static uint64_t count_runs(const struct ig_idrun *runs, size_t n)
{
    uint64_t ids = 0;
    for (size_t i = 0; i < n; i++)
        ids += runs[i].count;
    return ids;
}

static bool equal_runs(const struct ig_idrun *a, size_t an, const struct ig_idrun *b, size_t bn)
{
    return an == bn && (!an || !memcmp(a, b, an * sizeof *a));
}

int ig_idset_copy(struct ig_idset *dst, const struct ig_idset *src)
{
    return copy_runs(&dst->runs, &dst->n, &dst->cap, src->runs, src->n);
}

uint64_t ig_idset_count(const struct ig_idset *s)
{
    return count_runs(s->runs, s->n);
}

bool ig_idset_equal(const struct ig_idset *a, const struct ig_idset *b)
{
    return equal_runs(a->runs, a->n, b->runs, b->n);
}

static int format_runs(const struct ig_idrun *runs, size_t n, struct ig_buf *out)
{
    if (!n) return ig_buf_printf(out, "-");
    for (size_t i = 0; i < n; i++) {
        const struct ig_idrun *r = &runs[i];
        int rc = r->count == 1 ? ig_buf_printf(out, "%s%" PRIu32, i ? "," : "", r->first)
                               : ig_buf_printf(out, "%s%" PRIu32 "-%" PRIu32, i ? "," : "",
                                               r->first, r->first + r->count - 1);
        if (rc) return rc;
    }
    return 0;
}

int ig_idset_format(const struct ig_idset *s, struct ig_buf *out)
{
    return format_runs(s->runs, s->n, out);
}

/* A decimal u32 at *p, advancing it. */
static bool number(const char **p, uint32_t *out)
{
    uint64_t v = 0;
    const char *q = *p;
    if (*q < '0' || *q > '9') return false;
    for (; *q >= '0' && *q <= '9'; q++) {
        v = v * 10 + (uint64_t)(*q - '0');
        if (v > UINT32_MAX) return false;
    }
    *p = q;
    *out = (uint32_t)v;
    return true;
}

/* Runs "A-B" or "A", comma-separated, "-" for none; ascending (a set's:
 * sorted, never adjoining) or in any order (a sequence's). */
static int parse_runs(const char *text, bool ascending, struct ig_idrun **runs, size_t *n, size_t *cap)
{
    *runs = NULL, *n = 0, *cap = 0;
    if (!strcmp(text, "-")) return 0;
    const char *p = text;
    uint64_t next = 0; /* ascending: ids below this are taken (and the next run may not adjoin) */
    for (;;) {
        uint32_t a, b;
        if (!number(&p, &a)) goto bad;
        b = a;
        if (*p == '-') {
            p++;
            if (!number(&p, &b) || b < a) goto bad;
        }
        if (ascending && a < next) goto bad;
        if (reserve_runs(runs, cap, *n + 1)) {
            free(*runs);
            *runs = NULL, *n = 0, *cap = 0;
            return -ENOMEM;
        }
        (*runs)[(*n)++] = (struct ig_idrun){a, b - a + 1};
        next = (uint64_t)b + 2;
        if (!*p) return 0;
        if (*p++ != ',') goto bad;
    }
bad:
    free(*runs);
    *runs = NULL, *n = 0, *cap = 0;
    return -EINVAL;
}

int ig_idset_parse(const char *text, struct ig_idset *s)
{
    return parse_runs(text, true, &s->runs, &s->n, &s->cap);
}

void ig_idseq_free(struct ig_idseq *q)
{
    free(q->runs);
    memset(q, 0, sizeof *q);
}

int ig_idseq_push(struct ig_idseq *q, uint32_t id)
{
    struct ig_idrun *last = q->n ? &q->runs[q->n - 1] : NULL;
    if (last && (uint64_t)last->first + last->count == id && last->count < UINT32_MAX) {
        last->count++;
        return 0;
    }
    if (reserve_runs(&q->runs, &q->cap, q->n + 1)) return -ENOMEM;
    q->runs[q->n++] = (struct ig_idrun){id, 1};
    return 0;
}

int ig_idseq_copy(struct ig_idseq *dst, const struct ig_idseq *src)
{
    return copy_runs(&dst->runs, &dst->n, &dst->cap, src->runs, src->n);
}

uint64_t ig_idseq_count(const struct ig_idseq *q)
{
    return count_runs(q->runs, q->n);
}

bool ig_idseq_equal(const struct ig_idseq *a, const struct ig_idseq *b)
{
    return equal_runs(a->runs, a->n, b->runs, b->n);
}

int ig_idseq_format(const struct ig_idseq *q, struct ig_buf *out)
{
    return format_runs(q->runs, q->n, out);
}

int ig_idseq_parse(const char *text, struct ig_idseq *q)
{
    return parse_runs(text, false, &q->runs, &q->n, &q->cap);
}
