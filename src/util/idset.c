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

static int reserve(struct ig_idset *s, size_t n)
{
    if (n <= s->cap) return 0;
    size_t cap = s->cap ? s->cap * 2 : 8;
    while (cap < n)
        cap *= 2;
    struct ig_idrun *r = realloc(s->runs, cap * sizeof *r);
    if (!r) return -ENOMEM;
    s->runs = r;
    s->cap = cap;
    return 0;
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

int ig_idset_copy(struct ig_idset *dst, const struct ig_idset *src)
{
    struct ig_idset c = {0};
    if (reserve(&c, src->n)) return -ENOMEM;
    if (src->n) memcpy(c.runs, src->runs, src->n * sizeof *src->runs);
    c.n = src->n;
    ig_idset_free(dst);
    *dst = c;
    return 0;
}

uint64_t ig_idset_count(const struct ig_idset *s)
{
    uint64_t n = 0;
    for (size_t i = 0; i < s->n; i++)
        n += s->runs[i].count;
    return n;
}

bool ig_idset_equal(const struct ig_idset *a, const struct ig_idset *b)
{
    return a->n == b->n && (!a->n || !memcmp(a->runs, b->runs, a->n * sizeof *a->runs));
}

int ig_idset_format(const struct ig_idset *s, struct ig_buf *out)
{
    if (!s->n) return ig_buf_printf(out, "-");
    for (size_t i = 0; i < s->n; i++) {
        const struct ig_idrun *r = &s->runs[i];
        int rc = r->count == 1 ? ig_buf_printf(out, "%s%" PRIu32, i ? "," : "", r->first)
                               : ig_buf_printf(out, "%s%" PRIu32 "-%" PRIu32, i ? "," : "",
                                               r->first, r->first + r->count - 1);
        if (rc) return rc;
    }
    return 0;
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

int ig_idset_parse(const char *text, struct ig_idset *s)
{
    memset(s, 0, sizeof *s);
    if (!strcmp(text, "-")) return 0;
    const char *p = text;
    uint64_t next = 0; /* ids below this are taken (and the next run may not adjoin) */
    for (;;) {
        uint32_t a, b;
        if (!number(&p, &a)) goto bad;
        b = a;
        if (*p == '-') {
            p++;
            if (!number(&p, &b) || b < a) goto bad;
        }
        if (a < next) goto bad;
        if (reserve(s, s->n + 1)) {
            ig_idset_free(s);
            return -ENOMEM;
        }
        s->runs[s->n++] = (struct ig_idrun){a, b - a + 1};
        next = (uint64_t)b + 2;
        if (!*p) return 0;
        if (*p++ != ',') goto bad;
    }
bad:
    ig_idset_free(s);
    return -EINVAL;
}
