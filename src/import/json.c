#include "json.h"
#include "../util/error.h"
#include "../util/hash.h"
#include "../util/parse.h"
#include "../util/utf8.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Objects with at most this many members are checked for duplicate keys
 * pairwise; larger ones through a hash set, so a line with 100k keys costs
 * O(k), not O(k^2). */
enum { DUP_LINEAR_MAX = 16 };

struct parser {
    struct ig_json_doc *d;
    const char *s;
    size_t n, i;
    struct ig_error *err;
};

void ig_json_doc_init(struct ig_json_doc *d) { memset(d, 0, sizeof *d); }

void ig_json_doc_free(struct ig_json_doc *d)
{
    free(d->nodes);
    free(d->arena);
    free(d->dup_tab);
    memset(d, 0, sizeof *d);
}

const char *ig_json_type_name(enum ig_json_type t)
{
    switch (t) {
    case IG_JSON_NULL: return "null";
    case IG_JSON_FALSE: return "false";
    case IG_JSON_TRUE: return "true";
    case IG_JSON_NUMBER: return "number";
    case IG_JSON_STRING: return "string";
    case IG_JSON_ARRAY: return "array";
    case IG_JSON_OBJECT: return "object";
    }
    return "?";
}

/* ---- errors -------------------------------------------------------------- */

static int perr_at(struct parser *ps, size_t at, const char *what)
{
    if (at >= ps->n) return ig_err(ps->err, -EINVAL, "column %zu: %s (at end of input)", at + 1, what);
    unsigned char c = (unsigned char)ps->s[at];
    if (c >= 0x20 && c < 0x7F)
        return ig_err(ps->err, -EINVAL, "column %zu: %s (found '%c')", at + 1, what, c);
    return ig_err(ps->err, -EINVAL, "column %zu: %s (found byte 0x%02x)", at + 1, what, c);
}

static int perr_plain(struct parser *ps, size_t at, const char *what)
{
    return ig_err(ps->err, -EINVAL, "column %zu: %s", at + 1, what);
}

/* ---- nodes --------------------------------------------------------------- */

static int new_node(struct parser *ps, enum ig_json_type t, size_t off, uint32_t *idx)
{
    struct ig_json_doc *d = ps->d;
    if (d->nnodes == d->cap) {
        if (d->cap >= UINT32_MAX / 2) return ig_err(ps->err, -ENOMEM, "too many JSON values");
        uint32_t ncap = d->cap ? d->cap * 2 : 64;
        struct ig_json_node *nn = realloc(d->nodes, (size_t)ncap * sizeof *nn);
        if (!nn) return ig_err(ps->err, -ENOMEM, "out of memory parsing JSON");
        d->nodes = nn;
        d->cap = ncap;
    }
    struct ig_json_node *nd = &d->nodes[d->nnodes];
    nd->type = t;
    nd->count = 0;
    nd->first_child = IG_JSON_NONE;
    nd->next_sibling = IG_JSON_NONE;
    nd->hint = IG_JSON_NONE;
    nd->str = NULL;
    nd->len = 0;
    nd->key = NULL;
    nd->keylen = 0;
    nd->off = off;
    nd->key_off = 0;
    *idx = d->nnodes++;
    return 0;
}

/* ---- scanning ------------------------------------------------------------ */

static inline void skip_ws(struct parser *ps)
{
    const char *s = ps->s;
    size_t i = ps->i, n = ps->n;
    while (i < n && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t'))
        i++;
    ps->i = i;
}

static inline unsigned hexval(unsigned char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    c |= 0x20;
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return 16;
}

/* 4 hex digits at s[i..i+4) or -1. */
static long hex4(const char *s, size_t i, size_t n)
{
    if (n - i < 4) return -1;
    unsigned v = 0;
    for (int k = 0; k < 4; k++) {
        unsigned h = hexval((unsigned char)s[i + (size_t)k]);
        if (h > 15) return -1;
        v = v << 4 | h;
    }
    return (long)v;
}

#define ONES  0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL

/* Nonzero when any of the 8 bytes needs the slow loop: '"', '\\', a control
 * character or a non-ASCII byte. Each term is the classic exact "has byte"
 * bit trick; the combination only needs to be nonzero, not to locate. */
static inline uint64_t special8(uint64_t w)
{
    uint64_t q = w ^ (ONES * '"'), b = w ^ (ONES * '\\');
    return (w & HIGHS) | ((w - ONES * 0x20) & ~w & HIGHS) | ((q - ONES) & ~q & HIGHS) |
           ((b - ONES) & ~b & HIGHS);
}

/* The \u escape at s[i] (and the low surrogate after it, when it is a high
 * one) as UTF-8 at *dst; *esc_len the bytes of the escape. */
static int unescape_u(struct parser *ps, size_t i, char **dst, size_t *esc_len)
{
    const char *s = ps->s;
    const size_t n = ps->n;
    long cp = hex4(s, i + 2, n);
    if (cp < 0) return perr_plain(ps, i, "invalid \\u escape (expected 4 hex digits)");
    *esc_len = 6;
    if (cp >= 0xDC00 && cp <= 0xDFFF) return perr_plain(ps, i, "unpaired UTF-16 low surrogate in \\u escape");
    if (cp >= 0xD800 && cp <= 0xDBFF) {
        long lo = -1;
        if (n - i >= 12 && s[i + 6] == '\\' && s[i + 7] == 'u') lo = hex4(s, i + 8, n);
        if (lo < 0xDC00 || lo > 0xDFFF)
            return perr_plain(ps, i, "unpaired UTF-16 high surrogate in \\u escape");
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        *esc_len = 12;
    }
    *dst += ig_utf8_encode((uint32_t)cp, (uint8_t *)*dst);
    return 0;
}

/* parse_string's slow path: the string opened at s[open], plain from start
 * up to its first backslash at s[i], unescaped into the arena. Its capacity
 * is raised to the input length before the first string of a parse is
 * written: unescaped strings are never longer than their source and do not
 * overlap, so it never moves while earlier strings point into it. */
static int unescape_string(struct parser *ps, size_t open, size_t start, size_t i, const char **out,
                           size_t *len)
{
    const char *s = ps->s;
    const size_t n = ps->n;
    struct ig_json_doc *d = ps->d;
    if (d->arena_cap < n) {
        char *na = realloc(d->arena, n);
        if (!na) return ig_err(ps->err, -ENOMEM, "out of memory parsing JSON");
        d->arena = na;
        d->arena_cap = n;
    }
    char *dst0 = d->arena + d->arena_len, *dst = dst0;
    memcpy(dst, s + start, i - start);
    dst += i - start;
    for (;;) {
        if (i >= n) return perr_plain(ps, open, "unterminated string");
        unsigned char c = (unsigned char)s[i];
        if (c == '"') break;
        if (c == '\\') {
            if (i + 1 >= n) return perr_plain(ps, open, "unterminated string");
            char e = s[i + 1];
            switch (e) {
            case '"': *dst++ = '"'; break;
            case '\\': *dst++ = '\\'; break;
            case '/': *dst++ = '/'; break;
            case 'b': *dst++ = '\b'; break;
            case 'f': *dst++ = '\f'; break;
            case 'n': *dst++ = '\n'; break;
            case 'r': *dst++ = '\r'; break;
            case 't': *dst++ = '\t'; break;
            case 'u': {
                size_t esc_len;
                int rc = unescape_u(ps, i, &dst, &esc_len);
                if (rc) return rc;
                i += esc_len;
                continue;
            }
            default: return perr_at(ps, i + 1, "invalid escape in string");
            }
            i += 2;
            continue;
        }
        if (c < 0x20) return perr_at(ps, i, "unescaped control character in string");
        if (c < 0x80) {
            *dst++ = (char)c;
            i++;
            continue;
        }
        size_t l = ig_utf8_seq_len((const uint8_t *)s + i, n - i);
        if (!l) return perr_plain(ps, i, "invalid UTF-8 in string");
        memcpy(dst, s + i, l);
        dst += l;
        i += l;
    }
    *out = dst0;
    *len = (size_t)(dst - dst0);
    d->arena_len += *len;
    ps->i = i + 1;
    return 0;
}

/* Parse the string whose opening quote is at ps->i. On success *out and *len are
 * the unescaped value and ps->i is just past the closing quote. */
static int parse_string(struct parser *ps, const char **out, size_t *len)
{
    const char *s = ps->s;
    const size_t n = ps->n, open = ps->i;
    size_t i = open + 1;
    const size_t start = i;
    /* Fast path: no escapes, the value is a slice of the input. */
    for (;;) {
        while (n - i >= 8) {
            uint64_t w;
            memcpy(&w, s + i, 8);
            if (special8(w)) break;
            i += 8;
        }
        if (i >= n) return perr_plain(ps, open, "unterminated string");
        unsigned char c = (unsigned char)s[i];
        if (c == '"') {
            *out = s + start;
            *len = i - start;
            ps->i = i + 1;
            return 0;
        }
        if (c == '\\') return unescape_string(ps, open, start, i, out, len);
        if (c < 0x20) return perr_at(ps, i, "unescaped control character in string");
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t l = ig_utf8_seq_len((const uint8_t *)s + i, n - i);
        if (!l) return perr_plain(ps, i, "invalid UTF-8 in string");
        i += l;
    }
}

static inline bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* RFC 8259 number grammar: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)? */
static int scan_number(struct parser *ps)
{
    const char *s = ps->s;
    size_t i = ps->i, n = ps->n, start = i;
    if (s[i] == '-') i++;
    if (i < n && s[i] == '0') {
        i++;
        if (i < n && is_digit(s[i]))
            return perr_plain(ps, start, "invalid number (leading zeros are not allowed)");
    } else if (i < n && is_digit(s[i])) {
        while (i < n && is_digit(s[i]))
            i++;
    } else {
        return perr_at(ps, i, "invalid number (expected a digit)");
    }
    if (i < n && s[i] == '.') {
        i++;
        if (i >= n || !is_digit(s[i]))
            return perr_at(ps, i, "invalid number (expected a digit after '.')");
        while (i < n && is_digit(s[i]))
            i++;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-')) i++;
        if (i >= n || !is_digit(s[i]))
            return perr_at(ps, i, "invalid number (expected a digit in the exponent)");
        while (i < n && is_digit(s[i]))
            i++;
    }
    ps->i = i;
    return 0;
}

static uint64_t key_hash(const struct ig_json_node *m) { return ig_hash(m->key, m->keylen); }

static inline bool same_key(const struct ig_json_node *a, const struct ig_json_node *b)
{
    return a->keylen == b->keylen && memcmp(a->key, b->key, a->keylen) == 0;
}

static int dup_error(struct parser *ps, const struct ig_json_node *m)
{
    if (!ps->err) return -EINVAL;
    size_t show = m->keylen > 64 ? 64 : m->keylen;
    /* Keys are valid UTF-8 but may hold control characters from escapes;
     * %.*s of those is harmless in a one-line message apart from newlines,
     * which the key cannot contain unescaped. Keep it simple and bounded. */
    return ig_err(ps->err, -EINVAL, "column %zu: duplicate key \"%.*s\"%s", m->key_off + 1,
                  (int)show, m->key, show < m->keylen ? "..." : "");
}

/* Reject an object whose members repeat a key; reports the first member
 * (in document order) whose key appeared before. */
static int check_dups(struct parser *ps, uint32_t obj)
{
    struct ig_json_doc *d = ps->d;
    struct ig_json_node *nodes = d->nodes;
    uint32_t count = nodes[obj].count;
    if (count < 2) return 0;
    if (count <= DUP_LINEAR_MAX) {
        uint32_t mem[DUP_LINEAR_MAX];
        uint32_t k = 0;
        for (uint32_t c = nodes[obj].first_child; c != IG_JSON_NONE; c = nodes[c].next_sibling) {
            for (uint32_t j = 0; j < k; j++)
                if (same_key(&nodes[mem[j]], &nodes[c])) return dup_error(ps, &nodes[c]);
            mem[k++] = c;
        }
        return 0;
    }
    size_t cap = 64;
    while (cap < (size_t)count * 2)
        cap *= 2;
    if (d->dup_cap < cap) {
        uint32_t *nt = realloc(d->dup_tab, cap * sizeof *nt);
        if (!nt) return ig_err(ps->err, -ENOMEM, "out of memory parsing JSON");
        d->dup_tab = nt;
        d->dup_cap = cap;
    }
    uint32_t *tab = d->dup_tab;
    memset(tab, 0xFF, cap * sizeof *tab); /* IG_JSON_NONE everywhere */
    for (uint32_t c = nodes[obj].first_child; c != IG_JSON_NONE; c = nodes[c].next_sibling) {
        size_t h = (size_t)key_hash(&nodes[c]) & (cap - 1);
        while (tab[h] != IG_JSON_NONE) {
            if (same_key(&nodes[tab[h]], &nodes[c])) return dup_error(ps, &nodes[c]);
            h = (h + 1) & (cap - 1);
        }
        tab[h] = c;
    }
    return 0;
}

/* ---- values -------------------------------------------------------------- */

static int parse_value(struct parser *ps, int depth, uint32_t *out);

static int parse_container(struct parser *ps, int depth, uint32_t *out, bool is_obj)
{
    size_t open = ps->i;
    if (depth >= IG_JSON_MAX_DEPTH)
        return ig_err(ps->err, -EINVAL, "column %zu: nesting deeper than %d arrays/objects",
                      open + 1, IG_JSON_MAX_DEPTH);
    uint32_t me;
    int rc = new_node(ps, is_obj ? IG_JSON_OBJECT : IG_JSON_ARRAY, open, &me);
    if (rc) return rc;
    char close = is_obj ? '}' : ']';
    ps->i++;
    skip_ws(ps);
    if (ps->i < ps->n && ps->s[ps->i] == close) {
        ps->i++;
        *out = me;
        return 0;
    }
    uint32_t prev = IG_JSON_NONE, count = 0;
    for (;;) {
        const char *key = NULL;
        size_t keylen = 0, key_off = 0;
        skip_ws(ps);
        if (is_obj) {
            if (ps->i >= ps->n || ps->s[ps->i] != '"')
                return perr_at(ps, ps->i,
                               count ? "expected a string key after ','"
                                     : "expected a string key or '}'");
            key_off = ps->i;
            rc = parse_string(ps, &key, &keylen);
            if (rc) return rc;
            skip_ws(ps);
            if (ps->i >= ps->n || ps->s[ps->i] != ':')
                return perr_at(ps, ps->i, "expected ':' after object key");
            ps->i++;
            skip_ws(ps);
        }
        uint32_t child;
        rc = parse_value(ps, depth + 1, &child);
        if (rc) return rc;
        struct ig_json_node *nodes = ps->d->nodes; /* may have moved */
        if (is_obj) {
            nodes[child].key = key;
            nodes[child].keylen = keylen;
            nodes[child].key_off = key_off;
        }
        if (prev == IG_JSON_NONE)
            nodes[me].first_child = child;
        else
            nodes[prev].next_sibling = child;
        prev = child;
        count++;
        skip_ws(ps);
        if (ps->i < ps->n && ps->s[ps->i] == ',') {
            ps->i++;
            skip_ws(ps);
            if (!is_obj && ps->i < ps->n && ps->s[ps->i] == ']')
                return perr_plain(ps, ps->i, "trailing comma in array");
            if (is_obj && ps->i < ps->n && ps->s[ps->i] == '}')
                return perr_plain(ps, ps->i, "trailing comma in object");
            continue;
        }
        if (ps->i < ps->n && ps->s[ps->i] == close) {
            ps->i++;
            break;
        }
        return perr_at(ps, ps->i, is_obj ? "expected ',' or '}' after object member"
                                         : "expected ',' or ']' after array element");
    }
    ps->d->nodes[me].count = count;
    if (is_obj) {
        rc = check_dups(ps, me);
        if (rc) return rc;
    }
    *out = me;
    return 0;
}

static int literal(struct parser *ps, const char *lit, enum ig_json_type t, uint32_t *out)
{
    size_t l = strlen(lit);
    if (ps->n - ps->i < l || memcmp(ps->s + ps->i, lit, l) != 0)
        return perr_at(ps, ps->i, "invalid literal (expected true, false or null)");
    int rc = new_node(ps, t, ps->i, out);
    if (rc) return rc;
    ps->i += l;
    return 0;
}

static int parse_value(struct parser *ps, int depth, uint32_t *out)
{
    if (ps->i >= ps->n) return perr_plain(ps, ps->i, "expected a JSON value (at end of input)");
    char c = ps->s[ps->i];
    switch (c) {
    case '{': return parse_container(ps, depth, out, true);
    case '[': return parse_container(ps, depth, out, false);
    case '"': {
        size_t off = ps->i;
        const char *str;
        size_t len;
        int rc = parse_string(ps, &str, &len);
        if (rc) return rc;
        rc = new_node(ps, IG_JSON_STRING, off, out);
        if (rc) return rc;
        ps->d->nodes[*out].str = str;
        ps->d->nodes[*out].len = len;
        return 0;
    }
    case 't': return literal(ps, "true", IG_JSON_TRUE, out);
    case 'f': return literal(ps, "false", IG_JSON_FALSE, out);
    case 'n': return literal(ps, "null", IG_JSON_NULL, out);
    default:
        if (c == '-' || is_digit(c)) {
            size_t off = ps->i;
            int rc = scan_number(ps);
            if (rc) return rc;
            rc = new_node(ps, IG_JSON_NUMBER, off, out);
            if (rc) return rc;
            ps->d->nodes[*out].str = ps->s + off;
            ps->d->nodes[*out].len = ps->i - off;
            return 0;
        }
        return perr_at(ps, ps->i, "expected a JSON value");
    }
}

int ig_json_parse(struct ig_json_doc *d, const char *s, size_t n, struct ig_error *err)
{
    d->nnodes = 0;
    d->arena_len = 0;
    struct parser ps = {d, s, n, 0, err};
    skip_ws(&ps);
    uint32_t root;
    int rc = parse_value(&ps, 0, &root);
    if (rc == 0) {
        skip_ws(&ps);
        if (ps.i < n) rc = perr_at(&ps, ps.i, "unexpected data after the JSON value");
    }
    if (rc) {
        d->nnodes = 0;
        return rc;
    }
    return 0;
}

/* ---- access -------------------------------------------------------------- */

const struct ig_json_node *ig_json_root(const struct ig_json_doc *d)
{
    return d->nnodes ? &d->nodes[0] : NULL;
}

const struct ig_json_node *ig_json_first_child(const struct ig_json_doc *d,
                                               const struct ig_json_node *n)
{
    return n->first_child == IG_JSON_NONE ? NULL : &d->nodes[n->first_child];
}

const struct ig_json_node *ig_json_next_sibling(const struct ig_json_doc *d,
                                                const struct ig_json_node *n)
{
    return n->next_sibling == IG_JSON_NONE ? NULL : &d->nodes[n->next_sibling];
}

const struct ig_json_node *ig_json_object_get(struct ig_json_doc *d,
                                              const struct ig_json_node *obj, const char *key,
                                              size_t keylen)
{
    if (!obj || obj->type != IG_JSON_OBJECT || obj->first_child == IG_JSON_NONE) return NULL;
    struct ig_json_node *o = &d->nodes[obj - d->nodes];
    uint32_t start = o->hint == IG_JSON_NONE ? o->first_child : o->hint;
    /* From the hint to the end, then wrap around from the first member. */
    uint32_t c = start;
    do {
        struct ig_json_node *m = &d->nodes[c];
        if (m->keylen == keylen && memcmp(m->key, key, keylen) == 0) {
            o->hint = m->next_sibling;
            return m;
        }
        c = m->next_sibling == IG_JSON_NONE ? o->first_child : m->next_sibling;
    } while (c != start);
    return NULL;
}

/* ---- numbers ------------------------------------------------------------- */

static int not_number(const struct ig_json_node *n, struct ig_error *err)
{
    return ig_err(err, -EINVAL, "column %zu: expected a number, got %s", n->off + 1,
                  ig_json_type_name(n->type));
}

/* Shorten a number's text for messages: "123456...(2000 digits)". */
#define NUM_SHOW 40
#define NUM_FMT  "%.*s%s"
#define NUM_ARGS(n) (int)((n)->len > NUM_SHOW ? NUM_SHOW : (n)->len), (n)->str, \
                    (n)->len > NUM_SHOW ? "..." : ""

static int int_fail(const struct ig_json_node *n, int rc, const char *type,
                    struct ig_error *err)
{
    if (rc == -EINVAL)
        return ig_err(err, rc, "column %zu: " NUM_FMT " is not an integer (expected %s)",
                      n->off + 1, NUM_ARGS(n), type);
    return ig_err(err, rc, "column %zu: " NUM_FMT " is out of range for %s", n->off + 1,
                  NUM_ARGS(n), type);
}

int ig_json_number_i64(const struct ig_json_node *n, int64_t *v, struct ig_error *err)
{
    if (n->type != IG_JSON_NUMBER) return not_number(n, err);
    int rc = ig_parse_i64(n->str, n->len, v, NULL);
    return rc ? int_fail(n, rc, "int64", err) : 0;
}

int ig_json_number_u64(const struct ig_json_node *n, uint64_t *v, struct ig_error *err)
{
    if (n->type != IG_JSON_NUMBER) return not_number(n, err);
    int rc = ig_parse_u64(n->str, n->len, v, NULL);
    return rc ? int_fail(n, rc, "uint64", err) : 0;
}

int ig_json_number_int_range(const struct ig_json_node *n, int64_t min, int64_t max, int64_t *v,
                             struct ig_error *err)
{
    if (n->type != IG_JSON_NUMBER) return not_number(n, err);
    int rc = ig_parse_int_range(n->str, n->len, min, max, v, NULL);
    if (rc == 0) return 0;
    if (rc == -EINVAL) return int_fail(n, rc, "an integer", err);
    return ig_err(err, rc, "column %zu: " NUM_FMT " is out of range [%lld, %lld]", n->off + 1,
                  NUM_ARGS(n), (long long)min, (long long)max);
}

int ig_json_number_uint_range(const struct ig_json_node *n, uint64_t min, uint64_t max,
                              uint64_t *v, struct ig_error *err)
{
    if (n->type != IG_JSON_NUMBER) return not_number(n, err);
    int rc = ig_parse_uint_range(n->str, n->len, min, max, v, NULL);
    if (rc == 0) return 0;
    if (rc == -EINVAL) return int_fail(n, rc, "an integer", err);
    return ig_err(err, rc, "column %zu: " NUM_FMT " is out of range [%llu, %llu]", n->off + 1,
                  NUM_ARGS(n), (unsigned long long)min, (unsigned long long)max);
}

int ig_json_number_f64(const struct ig_json_node *n, double *v, struct ig_error *err)
{
    if (n->type != IG_JSON_NUMBER) return not_number(n, err);
    int rc = ig_parse_f64(n->str, n->len, v, err);
    return rc ? ig_err_prefix(err, rc, "column %zu", n->off + 1) : 0;
}

int ig_json_number_f32(const struct ig_json_node *n, float *v, struct ig_error *err)
{
    if (n->type != IG_JSON_NUMBER) return not_number(n, err);
    int rc = ig_parse_f32(n->str, n->len, v, err);
    return rc ? ig_err_prefix(err, rc, "column %zu", n->off + 1) : 0;
}
