#include "schema.h"
#include "layout.h"
#include "types.h"
#include "enc/codec.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/utf8.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int ig_schema_add(struct ig_schema *s, const char *name, size_t name_len, unsigned type,
                  bool nullable, struct ig_error *err)
{
    if (name_len == 0) return ig_err(err, -EINVAL, "empty column name");
    if (name_len > IG_MAX_NAME_LEN)
        return ig_err(err, -EINVAL, "column name longer than %d bytes", IG_MAX_NAME_LEN);
    if (memchr(name, '\0', name_len))
        return ig_err(err, -EINVAL, "column name contains a NUL byte");
    if (!ig_utf8_valid((const uint8_t *)name, name_len))
        return ig_err(err, -EINVAL, "column name is not valid UTF-8");
    if (ig_schema_find(s, name, name_len) >= 0)
        return ig_err(err, -EINVAL, "duplicate column name '%.*s'", (int)name_len, name);
    if (!ig_type_is_leaf(type)) return ig_err(err, -EINVAL, "unsupported type %u", type);
    if (s->n == s->cap) {
        uint32_t cap = s->cap ? s->cap * 2 : 16;
        void *p = realloc(s->cols, cap * sizeof *s->cols);
        if (!p) return ig_err(err, -ENOMEM, "out of memory");
        s->cols = p;
        s->cap = cap;
    }
    char *copy = malloc(name_len + 1);
    if (!copy) return ig_err(err, -ENOMEM, "out of memory");
    memcpy(copy, name, name_len);
    copy[name_len] = '\0';
    s->cols[s->n++] = (struct ig_column_def){
        .name = copy, .name_len = name_len, .type = (uint8_t)type, .nullable = nullable};
    return 0;
}

long ig_schema_find(const struct ig_schema *s, const char *name, size_t len)
{
    for (uint32_t i = 0; i < s->n; i++)
        if (s->cols[i].name_len == len && memcmp(s->cols[i].name, name, len) == 0) return i;
    return -1;
}

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* Read the next whitespace-separated token of a line; quoted names allowed. */
static int next_token(const char **pp, const char *end, const char **tok, size_t *tlen,
                      bool *quoted)
{
    const char *p = *pp;
    while (p < end && is_space(*p))
        p++;
    if (p == end || *p == '#') {
        *pp = end;
        return 0;
    }
    *quoted = false;
    if (*p == '"') {
        const char *q = memchr(p + 1, '"', (size_t)(end - p - 1));
        if (!q) return -EINVAL;
        *tok = p + 1;
        *tlen = (size_t)(q - p - 1);
        *quoted = true;
        *pp = q + 1;
        return 1;
    }
    const char *start = p;
    int depth = 0; /* spaces inside <...> belong to the type */
    while (p < end && (depth > 0 || !is_space(*p)) && *p != '#') {
        depth += *p == '<';
        depth -= *p == '>' && depth > 0;
        p++;
    }
    *tok = start;
    *tlen = (size_t)(p - start);
    *pp = p;
    return 1;
}

static int parse_u32(const char *p, size_t n, uint32_t *out)
{
    uint64_t v = 0;
    if (n == 0 || n > 10) return -EINVAL;
    for (size_t i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9') return -EINVAL;
        v = v * 10 + (uint64_t)(p[i] - '0');
    }
    if (v > UINT32_MAX) return -ERANGE;
    *out = (uint32_t)v;
    return 0;
}

static int apply_key(struct ig_column_def *c, const char *k, size_t kn, const char *v, size_t vn,
                     const char *path, unsigned line, struct ig_error *err)
{
#define KEY(s) (kn == sizeof(s) - 1 && memcmp(k, s, kn) == 0)
#define VAL(s) (vn == sizeof(s) - 1 && memcmp(v, s, vn) == 0)
    if (KEY("page_size")) {
        uint32_t ps;
        if (parse_u32(v, vn, &ps) || ps < 64 || ps > (256u << 20))
            return ig_err(err, -EINVAL, "%s:%u: page_size must be 64..268435456 bytes", path,
                          line);
        c->page_size = ps;
    } else if (KEY("encoding")) {
        char name[32];
        if (vn >= sizeof name) goto bad_value;
        memcpy(name, v, vn);
        name[vn] = '\0';
        int e = ig_enc_from_name(name);
        if (e < 0 || e == IG_ENC_AUTO) {
            if (!VAL("auto")) goto bad_value;
            e = IG_ENC_AUTO;
        }
        const struct ig_type_info *ti = ig_type_info(c->type);
        if (c->type == IG_T_BLOB && e != IG_ENC_AUTO)
            return ig_err(err, -EINVAL, "%s:%u: blob references choose their own encoding", path,
                          line);
        if (ti->phys == IG_PHYS_BYTES && e != IG_ENC_AUTO && e != IG_ENC_PLAIN &&
            e != IG_ENC_DICT)
            return ig_err(err, -EINVAL,
                          "%s:%u: encoding=%.*s does not apply to %s (use plain or dict)", path,
                          line, (int)vn, v, ti->name);
        c->encoding = (uint8_t)e;
    } else if (KEY("compression")) {
        if (VAL("none"))
            c->compression = IG_COMP_NONE;
        else if (VAL("zstd"))
            c->compression = IG_COMP_ZSTD;
        else if (VAL("auto"))
            c->compression = IG_COMP_AUTO;
        else
            goto bad_value;
    } else if (KEY("erase")) {
        if (VAL("1"))
            c->erase_level = 1;
        else if (VAL("2"))
            c->erase_level = 2;
        else
            goto bad_value;
    } else {
        return ig_err(err, -EINVAL, "%s:%u: unknown key '%.*s' (known: page_size, encoding, "
                                    "compression, erase)",
                      path, line, (int)kn, k);
    }
    return 0;
bad_value:
    return ig_err(err, -EINVAL, "%s:%u: bad value '%.*s' for %.*s", path, line, (int)vn, v,
                  (int)kn, k);
#undef KEY
#undef VAL
}

int ig_schema_parse(struct ig_schema *s, const char *text, size_t len, const char *path,
                    struct ig_error *err)
{
    const char *p = text, *end = text + len;
    unsigned line = 0;
    while (p < end) {
        line++;
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol) eol = end;
        const char *q = p;
        const char *tok, *name;
        size_t tlen, name_len;
        bool quoted;
        int r = next_token(&q, eol, &name, &name_len, &quoted);
        if (r < 0) return ig_err(err, -EINVAL, "%s:%u: unterminated quoted name", path, line);
        if (r == 0) {
            p = eol + (eol < end);
            continue;
        }
        r = next_token(&q, eol, &tok, &tlen, &quoted);
        if (r <= 0 || quoted)
            return ig_err(err, -EINVAL, "%s:%u: expected 'NAME TYPE', got no type", path, line);
        bool nullable = false, repeated = false;
        if (tlen > 0 && tok[tlen - 1] == '?') {
            nullable = true;
            tlen--;
        }
        /* list<blob>, spaces allowed inside the brackets */
        char compact[64];
        size_t cn = 0;
        for (size_t i = 0; i < tlen && cn < sizeof compact - 1; i++)
            if (!is_space(tok[i])) compact[cn++] = tok[i];
        compact[cn] = '\0';
        unsigned type;
        if (!strcmp(compact, "list<blob>")) {
            type = IG_T_BLOB;
            repeated = true;
        } else {
            type = ig_type_from_name(tok, tlen);
        }
        if (!type)
            return ig_err(err, -EINVAL,
                          "%s:%u: unknown type '%.*s' (bool, int8..int64, uint8..uint64, "
                          "float32, float64, string, binary, blob, list<blob>)",
                          path, line, (int)tlen, tok);
        struct ig_error sub = {0};
        if (ig_schema_add(s, name, name_len, type, nullable, &sub))
            return ig_err(err, sub.code, "%s:%u: %s", path, line, sub.msg);
        struct ig_column_def *c = &s->cols[s->n - 1];
        c->repeated = repeated;
        while ((r = next_token(&q, eol, &tok, &tlen, &quoted)) > 0) {
            const char *eq = memchr(tok, '=', tlen);
            if (!eq || quoted)
                return ig_err(err, -EINVAL, "%s:%u: expected key=value, got '%.*s'", path, line,
                              (int)tlen, tok);
            int rc = apply_key(c, tok, (size_t)(eq - tok), eq + 1, tlen - (size_t)(eq - tok) - 1,
                               path, line, err);
            if (rc) return rc;
        }
        if (r < 0) return ig_err(err, -EINVAL, "%s:%u: unterminated quote", path, line);
        p = eol + (eol < end);
    }
    if (s->n == 0) return ig_err(err, -EINVAL, "%s: the schema declares no columns", path);
    return 0;
}

int ig_schema_format(const struct ig_schema *s, struct ig_buf *out)
{
    int rc = 0;
    for (uint32_t i = 0; i < s->n && !rc; i++) {
        const struct ig_column_def *c = &s->cols[i];
        bool quote = strpbrk(c->name, " \t#\"") != NULL;
        rc = ig_buf_printf(out, quote ? "\"%s\" %s%s" : "%s %s%s", c->name,
                           c->repeated ? "list<blob>" : ig_type_info(c->type)->name,
                           c->nullable ? "?" : "");
        if (!rc && c->page_size) rc = ig_buf_printf(out, " page_size=%u", c->page_size);
        if (!rc && c->encoding) rc = ig_buf_printf(out, " encoding=%s", ig_enc_name(c->encoding));
        if (!rc && c->compression == IG_COMP_NONE) rc = ig_buf_printf(out, " compression=none");
        if (!rc && c->compression == IG_COMP_ZSTD) rc = ig_buf_printf(out, " compression=zstd");
        if (!rc && c->erase_level) rc = ig_buf_printf(out, " erase=%u", c->erase_level);
        if (!rc) rc = ig_buf_append_byte(out, '\n');
    }
    return rc;
}

bool ig_schema_equal(const struct ig_schema *a, const struct ig_schema *b)
{
    if (a->n != b->n) return false;
    for (uint32_t i = 0; i < a->n; i++) {
        const struct ig_column_def *x = &a->cols[i], *y = &b->cols[i];
        if (x->name_len != y->name_len || memcmp(x->name, y->name, x->name_len) ||
            x->type != y->type || x->nullable != y->nullable || x->repeated != y->repeated ||
            x->page_size != y->page_size ||
            x->encoding != y->encoding || x->compression != y->compression ||
            x->erase_level != y->erase_level || x->quantize != y->quantize ||
            x->dimension != y->dimension)
            return false;
    }
    return true;
}

void ig_schema_free(struct ig_schema *s)
{
    for (uint32_t i = 0; i < s->n; i++)
        free(s->cols[i].name);
    free(s->cols);
    s->cols = NULL;
    s->n = s->cap = 0;
}
