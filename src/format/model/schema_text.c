/* schema_text.c - a schema as text both ways (schema.h): a schema file read
 * line by line (a column's name, its type, its keys: page_size, block_size,
 * encoding, compression, erase, quantize) and a schema written back in that
 * syntax, so that the two round-trip. The columns' nodes, and a type's text,
 * are schema.c's. */
#include "format/model/schema.h"
#include "format/layout.h"
#include "format/model/logical.h"
#include "format/model/types.h"
#include "format/enc/codec.h"
#include "util/buf.h"
#include "util/error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* Next whitespace-separated token; quoted names; spaces inside <...> kept. */
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
    int depth = 0;
    while (p < end && (depth > 0 || !is_space(*p)) && (depth > 0 || *p != '#')) {
        depth += *p == '<' || *p == '(';
        depth -= (*p == '>' || *p == ')') && depth > 0;
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

static const char *const quant_names[] = {"none", "fp16", "bf16", "fp8_e4m3", "fp8_e5m2"};

/* Apply key=value to column node `top` and every node below it. */
static int apply_key(struct ig_schema *s, uint32_t top, const char *k, size_t kn, const char *v,
                     size_t vn, const char *path, unsigned line, struct ig_error *err)
{
#define KEY(x) (kn == sizeof(x) - 1 && memcmp(k, x, kn) == 0)
#define VAL(x) (vn == sizeof(x) - 1 && memcmp(v, x, vn) == 0)
    /* the column's nodes are the ones added since `top` (it was parsed just now) */
    for (uint32_t i = top; i < s->n; i++) {
        struct ig_column_def *c = &s->cols[i];
        if (KEY("page_size")) {
            uint32_t ps;
            if (parse_u32(v, vn, &ps) || ps < 64 || ps > (256u << 20))
                return ig_err(err, -EINVAL, "%s:%u: page_size must be 64..268435456 bytes", path, line);
            c->page_size = ps;
        } else if (KEY("block_size")) {
            uint32_t bs;
            if (parse_u32(v, vn, &bs) || (bs && bs < 64) || bs > (256u << 20))
                return ig_err(err, -EINVAL, "%s:%u: block_size must be 0 (one block per page) or "
                                            "64..268435456 bytes", path, line);
            c->block_size = bs ? bs : IG_BLOCK_WHOLE_PAGE;
        } else if (KEY("encoding")) {
            char name[32];
            if (vn >= sizeof name) goto bad_value;
            memcpy(name, v, vn);
            name[vn] = '\0';
            int e = ig_page_enc_from_name(name);
            if (e < 0 || e == IG_ENC_AUTO) {
                if (!VAL("auto")) goto bad_value;
                e = IG_ENC_AUTO;
            }
            if (c->type == IG_T_STRUCT) continue;
            const struct ig_type_info *ti = ig_type_info(c->type);
            if (c->type == IG_T_BLOB && e != IG_ENC_AUTO)
                return ig_err(err, -EINVAL, "%s:%u: blob references choose their own encoding",
                              path, line);
            if (e == IG_ENC_HUFF && (ti->phys != IG_PHYS_BYTES || c->parent != IG_SCHEMA_NONE ||
                                     c->lists || c->dimension))
                return ig_err(err, -EINVAL,
                              "%s:%u: encoding=huffman applies to top-level string and binary "
                              "columns", path, line);
            if (ti->phys == IG_PHYS_BYTES && e != IG_ENC_AUTO && e != IG_ENC_PLAIN &&
                e != IG_ENC_DICT && e != IG_ENC_HUFF && e != IG_ENC_VDICT)
                return ig_err(err, -EINVAL,
                              "%s:%u: encoding=%.*s does not apply to %s (use plain, dict, "
                              "huffman or vdict)", path, line, (int)vn, v, ti->name);
            if (e == IG_ENC_VDICT && ti->phys != IG_PHYS_BYTES)
                return ig_err(err, -EINVAL, "%s:%u: encoding=vdict applies to string and binary "
                              "columns", path, line);
            if (e == IG_ENC_DECIMAL && ((c->type != IG_T_FLOAT64 && c->type != IG_T_FLOAT32) || c->quantize))
                return ig_err(err, -EINVAL,
                              "%s:%u: encoding=decimal applies to float32 and float64 columns",
                              path, line);
            if (e == IG_ENC_EXPO && (c->type != IG_T_FLOAT32 || c->quantize))
                return ig_err(err, -EINVAL,
                              "%s:%u: encoding=expo applies to float32 columns (vectors too) that "
                              "are not quantized", path, line);
            /* items that may be NULL too (format 18): a page holding one is
             * written as level streams, the others as sliding windows; lists
             * of floats too (format 21) */
            if (e == IG_PAGE_ENC_SLIDE &&
                !(c->parent == IG_SCHEMA_NONE && c->lists == 1 && !c->dimension &&
                  ti->phys == IG_PHYS_LANES && c->type != IG_T_BOOL))
                return ig_err(err, -EINVAL,
                              "%s:%u: encoding=slide applies to top-level list<int...> and list<float...> columns",
                              path, line);
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
        } else if (KEY("quantize")) {
            int q = -1;
            for (int j = 0; j < 5; j++)
                if (vn == strlen(quant_names[j]) && !memcmp(v, quant_names[j], vn)) q = j;
            if (q < 0) goto bad_value;
            if (c->type == IG_T_STRUCT) continue;
            if (c->lt.kind == IG_LT_FLOAT16) {
                if (q != IG_Q_FP16)
                    return ig_err(err, -EINVAL, "%s:%u: float16 is stored as fp16; quantize=%.*s does not apply",
                                  path, line, (int)vn, v);
                continue;
            }
            if (c->type != IG_T_FLOAT32 && c->type != IG_T_FLOAT64) {
                if (i == top)
                    return ig_err(err, -EINVAL, "%s:%u: quantize applies to float32/float64 data",
                                  path, line);
                continue;
            }
            c->quantize = (uint8_t)q;
        } else {
            return ig_err(err, -EINVAL,
                          "%s:%u: unknown key '%.*s' (known: page_size, block_size, encoding, "
                          "compression, erase, quantize)",
                          path, line, (int)kn, k);
        }
    }
    return 0;
bad_value:
    return ig_err(err, -EINVAL, "%s:%u: bad value '%.*s' for %.*s", path, line, (int)vn, v, (int)kn, k);
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
        const char *q = p, *tok, *name;
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
        uint32_t top = s->n;
        struct ig_error sub = {0};
        if (ig_schema_add_typed(s, name, name_len, tok, tlen, &sub)) {
            if (strstr(sub.msg, "unknown type"))
                return ig_err(err, -EINVAL,
                              "%s:%u: %s (bool, int8..int64, uint8..uint64, float32, float64, "
                              "string, binary, date, time(UNIT), timestamp(UNIT[, UTC]), decimal(P, S), "
                              "uuid, fixed_binary(N), float16, blob, list<T>, struct<a:T, ...>, "
                              "vector<float32, D>)",
                              path, line, sub.msg);
            /* a logical type's arguments: the column and the annotation as
             * written, so a typo in one of many "timestamp(...)" lines is
             * found by reading the message */
            size_t kn = 0;
            while (kn < tlen && tok[kn] != '(' && tok[kn] != '?' && tok[kn] != ' ') kn++;
            bool said = !strncmp(sub.msg, tok, kn); /* "decimal(3, 5): the scale ..." names it */
            if (ig_logical_kind_from_name(tok, kn))
                return ig_err(err, sub.code, "%s:%u: column '%.*s': %.*s%s%s", path, line, (int)name_len, name,
                              said ? 0 : (int)tlen, tok, said ? "" : ": ", sub.msg);
            return ig_err(err, sub.code, "%s:%u: %s", path, line, sub.msg);
        }
        for (uint32_t k = top; k < s->n; k++)
            s->cols[k].line = line;
        while ((r = next_token(&q, eol, &tok, &tlen, &quoted)) > 0) {
            const char *eq = memchr(tok, '=', tlen);
            if (!eq || quoted)
                return ig_err(err, -EINVAL, "%s:%u: expected key=value, got '%.*s'", path, line,
                              (int)tlen, tok);
            int rc = apply_key(s, top, tok, (size_t)(eq - tok), eq + 1, tlen - (size_t)(eq - tok) - 1,
                               path, line, err);
            if (rc) return rc;
        }
        if (r < 0) return ig_err(err, -EINVAL, "%s:%u: unterminated quote", path, line);
        p = eol + (eol < end);
    }
    if (s->n == 0) return ig_err(err, -EINVAL, "%s: the schema declares no columns", path);
    struct ig_error sub = {0};
    if (ig_schema_finish(s, &sub))
        return ig_err(err, sub.code, sub.msg[0] >= '0' && sub.msg[0] <= '9' ? "%s:%s" : "%s: %s",
                      path, sub.msg);
    return 0;
}

int ig_schema_field_text(const char *f, size_t fl, struct ig_buf *out)
{
    bool plain = fl > 0;
    for (size_t x = 0; x < fl; x++)
        if (!((f[x] >= 'a' && f[x] <= 'z') || (f[x] >= 'A' && f[x] <= 'Z') || (f[x] >= '0' && f[x] <= '9') ||
              f[x] == '_' || f[x] == '-' || f[x] == '$' || (unsigned char)f[x] >= 0x80))
            plain = false;
    return ig_buf_printf(out, plain ? "%.*s:" : "\"%.*s\":", (int)fl, f);
}

int ig_schema_type_close(const struct ig_column_def *c, struct ig_buf *out)
{
    int rc = 0;
    for (int j = c->lists; j >= 0 && !rc; j--) {
        if ((c->null_mask >> j) & 1) rc = ig_buf_printf(out, "?");
        if (j > 0) rc = rc ? rc : ig_buf_printf(out, ">");
    }
    return rc;
}

static int type_text(const struct ig_schema *s, uint32_t i, struct ig_buf *out)
{
    const struct ig_column_def *c = &s->cols[i];
    int rc = 0;
    for (unsigned j = 0; j < c->lists && !rc; j++)
        rc = ig_buf_printf(out, "list<");
    if (rc) return rc;
    if (c->type == IG_T_STRUCT) {
        rc = ig_buf_printf(out, "struct<");
        uint32_t k = i + 1;
        for (uint32_t ch = 0; ch < c->num_children && !rc; ch++) {
            size_t fl;
            const char *f = ig_schema_field_name(s, k, &fl);
            rc = ch ? ig_buf_printf(out, ", ") : 0;
            if (!rc) rc = ig_schema_field_text(f, fl, out);
            if (!rc) rc = type_text(s, k, out);
            /* skip k's subtree */
            uint32_t depth_parent = i;
            k++;
            while (k < s->n && s->cols[k].parent != depth_parent) k++;
        }
        if (!rc) rc = ig_buf_printf(out, ">");
    } else if (c->dimension) {
        rc = ig_buf_printf(out, "vector<float32, %u>", c->dimension);
    } else if (c->lt.kind) {
        rc = ig_logical_text(&c->lt, out);
    } else {
        rc = ig_buf_printf(out, "%s", ig_type_info(c->type)->name);
    }
    return rc ? rc : ig_schema_type_close(c, out);
}

int ig_schema_type_text(const struct ig_schema *s, uint32_t i, struct ig_buf *out)
{
    return type_text(s, i, out);
}

int ig_schema_type_text_bare(const struct ig_schema *s, uint32_t i, struct ig_buf *out)
{
    ig_buf_reset(out);
    int rc = type_text(s, i, out);
    size_t n = 0;
    bool quoted = false;
    for (size_t k = 0; !rc && k < out->len; k++) {
        char ch = (char)out->data[k];
        quoted ^= ch == '"';
        if (ch != '?' || quoted) out->data[n++] = (uint8_t)ch;
    }
    if (!rc) out->len = n;
    return rc;
}

int ig_schema_format(const struct ig_schema *s, struct ig_buf *out)
{
    int rc = 0;
    for (uint32_t t = 0; t < s->ntops && !rc; t++) {
        const struct ig_column_def *c = &s->cols[s->tops[t]];
        bool quote = strpbrk(c->name, " \t#\"") != NULL;
        rc = ig_buf_printf(out, quote ? "\"%s\" " : "%s ", c->name);
        if (!rc) rc = type_text(s, s->tops[t], out);
        /* options as stored on the column's first leaf (they apply to all) */
        const struct ig_column_def *o = c;
        for (uint32_t k = s->tops[t]; k < s->n && s->cols[k].top == s->tops[t]; k++)
            if (s->cols[k].type != IG_T_STRUCT) {
                o = &s->cols[k];
                break;
            }
        if (!rc && o->page_size) rc = ig_buf_printf(out, " page_size=%u", o->page_size);
        if (!rc && o->block_size)
            rc = ig_buf_printf(out, " block_size=%u",
                               o->block_size == IG_BLOCK_WHOLE_PAGE ? 0u : o->block_size);
        if (!rc && o->encoding) rc = ig_buf_printf(out, " encoding=%s", ig_page_enc_name(o->encoding));
        if (!rc && o->compression == IG_COMP_NONE) rc = ig_buf_printf(out, " compression=none");
        if (!rc && o->compression == IG_COMP_ZSTD) rc = ig_buf_printf(out, " compression=zstd");
        if (!rc && o->erase_level) rc = ig_buf_printf(out, " erase=%u", o->erase_level);
        if (!rc && o->quantize && o->lt.kind != IG_LT_FLOAT16) /* float16 says it already */
            rc = ig_buf_printf(out, " quantize=%s", quant_names[o->quantize]);
        if (!rc) rc = ig_buf_append_byte(out, '\n');
    }
    return rc;
}
