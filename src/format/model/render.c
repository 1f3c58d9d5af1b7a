/* render.c - values as text and as JSON (render.h): numbers and bools,
 * strings escaped (text_escape.c; JSON's escapes and UTF-8 checks here),
 * binary as \x hex, blobs as their mount paths; one value or a page's lines.
 * Float digits are float_text.c's; lengths without rendering render_len.c's;
 * the fixed-width (NumPy) form render_fixed.c's. */
#include "format/model/render.h"
#include "format/model/float_text.h"
#include "format/model/logical.h"
#include "format/model/text_escape.h"
#include "format/model/types.h"
#include "blob/blob.h"
#include "util/buf.h"
#include "util/floatbits.h"
#include "util/shortest.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t fmt_u64(char *out, uint64_t v)
{
    return ig_u64_digits(out, v);
}

static size_t fmt_i64(char *out, int64_t v)
{
    if (v < 0) {
        out[0] = '-';
        return 1 + fmt_u64(out + 1, (uint64_t)0 - (uint64_t)v);
    }
    return fmt_u64(out, (uint64_t)v);
}

/* Scalars shared by text and JSON: numbers and bool. Returns length written into
 * out (>= 40 bytes). */
static size_t format_lane(char *out, uint8_t type, uint64_t lane, bool json)
{
    switch (type) {
    case IG_T_BOOL:
        if (json) return (size_t)sprintf(out, lane ? "true" : "false");
        out[0] = lane ? 't' : 'f';
        return 1;
    case IG_T_INT8:
        return fmt_i64(out, (int8_t)lane);
    case IG_T_INT16:
        return fmt_i64(out, (int16_t)lane);
    case IG_T_INT32:
        return fmt_i64(out, (int32_t)lane);
    case IG_T_INT64:
        return fmt_i64(out, (int64_t)lane);
    case IG_T_UINT8:
        return fmt_u64(out, (uint8_t)lane);
    case IG_T_UINT16:
        return fmt_u64(out, (uint16_t)lane);
    case IG_T_UINT32:
        return fmt_u64(out, (uint32_t)lane);
    case IG_T_UINT64:
        return fmt_u64(out, lane);
    case IG_T_FLOAT32:
    case IG_T_FLOAT64: {
        char tmp[IG_FLOAT_TEXT_MAX];
        size_t n = type == IG_T_FLOAT32 ? ig_format_f32(tmp, ig_lane_f32(lane))
                                        : ig_format_f64(tmp, ig_lane_f64(lane));
        if (json && (tmp[0] == 'N' || tmp[0] == 'I' || tmp[1] == 'I')) {
            out[0] = '"';
            memcpy(out + 1, tmp, n);
            out[n + 1] = '"';
            return n + 2;
        }
        memcpy(out, tmp, n);
        return n;
    }
    default:
        out[0] = '?';
        return 1;
    }
}

/* format_lane's text appended: formatted in the buffer's room, not copied
 * there from a local array (a copy of a few bytes is a call). */
#define LANE_TEXT_MAX 48 /* a float's text in quotes; an int64's 20 characters */
static int append_lane(struct ig_buf *out, uint8_t type, uint64_t lane, bool json)
{
    if (ig_buf_reserve(out, LANE_TEXT_MAX)) return -ENOMEM;
    out->len += format_lane((char *)out->data + out->len, type, lane, json);
    return 0;
}

static const char hexdig[] = "0123456789abcdef";

static int append_hex(struct ig_buf *out, const uint8_t *p, size_t n)
{
    uint8_t *o = ig_buf_extend(out, 2 + 2 * n);
    if (!o) return -ENOMEM;
    *o++ = '\\';
    *o++ = 'x';
    for (size_t i = 0; i < n; i++) {
        *o++ = (uint8_t)hexdig[p[i] >> 4];
        *o++ = (uint8_t)hexdig[p[i] & 15];
    }
    return 0;
}

/* ig_render_text_lines of a string page: room for the worst case once, then
 * value after value. */
static int string_lines(struct ig_buf *out, const struct ig_values *v, const uint8_t *deleted)
{
    size_t bytes = v->n ? (size_t)(v->offs[v->n] - v->offs[0]) : 0;
    int rc = ig_buf_reserve(out, 2 * bytes + 3 * v->n); /* a NULL's "\N\n" is 3 */
    if (rc) return rc;
    uint8_t *o = out->data + out->len;
    for (size_t i = 0; i < v->n; i++) {
        if (deleted && ((deleted[i / 8] >> (i % 8)) & 1)) continue;
        if (ig_values_is_null(v, i)) {
            memcpy(o, "\\N", 2);
            o += 2;
        } else {
            size_t n;
            const uint8_t *p = ig_values_bytes(v, i, &n);
            o = ig_text_copy_escaped(o, p, n);
        }
        *o++ = '\n';
    }
    out->len = (size_t)(o - out->data);
    return 0;
}

static int append_copy_string(struct ig_buf *out, const uint8_t *p, size_t n)
{
    /* Worst case every byte doubles. */
    int rc = ig_buf_reserve(out, 2 * n);
    if (rc) return rc;
    out->len = (size_t)(ig_text_copy_escaped(out->data + out->len, p, n) - out->data);
    return 0;
}

/* A blob value as JSON: {"path": "blobs/COL/ID.ext", "size": N}, or for a
 * list<blob> an array of them (paths blobs/COL/ID/K.ext). */
static int render_blob(struct ig_buf *out, const struct ig_values *v, size_t i, bool list)
{
    size_t len;
    const uint8_t *p = ig_values_bytes(v, i, &len);
    size_t k = len / IG_BLOB_REF_BYTES, first = 0;
    uint64_t row = v->row_base + i;
    bool in_row = false;
    if (v->levels && v->rows && v->row_val) {
        /* a blob leaf of a nested column: value i is object K of its row, named
         * ROW/K (K counts the row's objects), the name the mount serves */
        size_t lo = 0, hi = v->rows;
        while (hi - lo > 1) {
            size_t mid = lo + (hi - lo) / 2;
            if (v->row_val[mid] <= i)
                lo = mid;
            else
                hi = mid;
        }
        row = v->row_base + lo;
        first = i - v->row_val[lo];
        in_row = true;
        list = false;
    }
    const char *dir = v->blob_dir ? v->blob_dir : "blobs/?";
    int rc = list ? ig_buf_append_byte(out, '[') : 0;
    for (size_t j = 0; j < k && !rc; j++) {
        struct ig_blob_ref r;
        unsigned kind;
        ig_blob_ref_load(p + j * IG_BLOB_REF_BYTES, &r, &kind);
        const char *ext = ig_blob_kind_ext(kind);
        char path[64];
        if (list || in_row)
            snprintf(path, sizeof path, "/%" PRIu64 "/%zu%s%s", row, first + j, *ext ? "." : "",
                     ext);
        else
            snprintf(path, sizeof path, "/%" PRIu64 "%s%s", row, *ext ? "." : "", ext);
        rc = ig_buf_printf(out, "%s{\"path\":", j ? "," : "");
        struct ig_buf full = IG_BUF_INIT;
        if (!rc) rc = ig_buf_printf(&full, "%s%s", dir, path);
        if (!rc) rc = ig_render_json_string(out, full.data, full.len);
        ig_buf_free(&full);
        if (!rc) rc = ig_buf_printf(out, ",\"size\":%" PRIu64 "}", r.size);
    }
    if (!rc && list) rc = ig_buf_append_byte(out, ']');
    if (!rc && !list && k != 1) rc = ig_buf_printf(out, "null");
    return rc;
}

int ig_render_text_value(struct ig_buf *out, const struct ig_values *v, size_t i)
{
    if (ig_values_is_null(v, i)) return ig_buf_append(out, "\\N", 2);
    if (ig_logical_renders(&v->lt)) return ig_logical_render(out, v, i, false);
    if (v->type == IG_T_BLOB) return render_blob(out, v, i, v->blob_list);
    if (v->is_bytes) {
        size_t n;
        const uint8_t *p = ig_values_bytes(v, i, &n);
        return v->type == IG_T_BINARY ? append_hex(out, p, n) : append_copy_string(out, p, n);
    }
    return append_lane(out, v->type, v->lanes[i], false);
}

int ig_render_text_lines(struct ig_buf *out, const struct ig_values *v, const uint8_t *deleted)
{
    if (v->is_bytes && v->type == IG_T_STRING && !ig_logical_renders(&v->lt)) return string_lines(out, v, deleted);
    for (size_t i = 0; i < v->n; i++) {
        if (deleted && ((deleted[i / 8] >> (i % 8)) & 1)) continue;
        int rc = ig_render_text_value(out, v, i);
        if (!rc) rc = ig_buf_append_byte(out, '\n');
        if (rc) return rc;
    }
    return 0;
}

/* Length of a valid UTF-8 sequence starting at p (1..4), or 0 if invalid. */
static size_t utf8_seq(const uint8_t *p, size_t n)
{
    uint8_t c = p[0];
    if (c < 0x80) return 1;
    size_t len;
    uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (n < len) return 0;
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xC0) != 0x80) return 0;
        cp = cp << 6 | (p[i] & 0x3F);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
        (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
        return 0;
    return len;
}

/* The end of the run from i of bytes JSON copies as they are (printable ASCII
 * but '"' and '\\'): eight bytes a step while a whole word is such bytes (a
 * byte-at-a-time scan was most of rendering rows of captions). */
static size_t plain_json_run(const uint8_t *p, size_t i, size_t n)
{
    const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
    for (; i + 8 <= n; i += 8) {
        uint64_t w, q, b;
        memcpy(&w, p + i, 8);
        q = w ^ (ones * '"');
        b = w ^ (ones * '\\');
        /* any byte >= 0x80, < 0x20, == '"' or == '\\' (exact as a test of the word) */
        if ((w & high) | ((w - ones * 0x20) & ~w & high) | ((q - ones) & ~q & high) | ((b - ones) & ~b & high))
            break;
    }
    while (i < n && p[i] >= 0x20 && p[i] < 0x80 && p[i] != '"' && p[i] != '\\')
        i++;
    return i;
}

size_t ig_render_json_string_len(const uint8_t *p, size_t n)
{
    size_t len = 2, i = 0; /* the quotes */
    while (i < n) { /* as ig_render_json_string writes it, below */
        size_t run = plain_json_run(p, i, n);
        if (run > i) {
            len += run - i;
            i = run;
            continue;
        }
        uint8_t c = p[i];
        if (c == '"' || c == '\\') {
            len += 2;
            i++;
        } else if (c < 0x20) {
            len += c == '\n' || c == '\t' || c == '\r' ? 2 : 6;
            i++;
        } else {
            size_t l = utf8_seq(p + i, n - i);
            len += l ? l : 6; /* \ufffd for a byte that starts no character */
            i += l ? l : 1;
        }
    }
    return len;
}

int ig_render_json_string(struct ig_buf *out, const uint8_t *p, size_t n)
{
    int rc = ig_buf_reserve(out, n + 2);
    if (rc) return rc;
    rc = ig_buf_append_byte(out, '"');
    size_t i = 0;
    while (i < n && !rc) {
        /* a run of printable ASCII needing no escape is copied at once: captions
         * are mostly such runs, and byte-by-byte appends were a tenth of a listing */
        size_t run = plain_json_run(p, i, n);
        if (run > i) {
            rc = ig_buf_append(out, p + i, run - i);
            i = run;
            continue;
        }
        uint8_t c = p[i];
        if (c == '"' || c == '\\') {
            uint8_t e[2] = {'\\', c};
            rc = ig_buf_append(out, e, 2);
            i++;
        } else if (c < 0x20) {
            char e[8];
            const char *s = c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\r' ? "\\r" : NULL;
            if (!s) {
                snprintf(e, sizeof e, "\\u%04x", c);
                s = e;
            }
            rc = ig_buf_append(out, s, strlen(s));
            i++;
        } else {
            size_t l = utf8_seq(p + i, n - i);
            if (l == 0) {
                rc = ig_buf_append(out, "\\ufffd", 6);
                i++;
            } else {
                rc = ig_buf_append(out, p + i, l);
                i += l;
            }
        }
    }
    if (!rc) rc = ig_buf_append_byte(out, '"');
    return rc;
}

int ig_render_json_value(struct ig_buf *out, const struct ig_values *v, size_t i)
{
    if (ig_values_is_null(v, i)) return ig_buf_append(out, "null", 4);
    if (ig_logical_renders(&v->lt)) return ig_logical_render(out, v, i, true);
    if (v->type == IG_T_BLOB) return render_blob(out, v, i, v->blob_list);
    if (v->is_bytes) {
        size_t n;
        const uint8_t *p = ig_values_bytes(v, i, &n);
        if (v->type == IG_T_STRING) return ig_render_json_string(out, p, n);
        /* binary: the same \x hex form as the text rendering, as a JSON string */
        int rc = ig_buf_append(out, "\"\\\\x", 4);
        for (size_t k = 0; k < n && !rc; k++) {
            uint8_t h[2] = {(uint8_t)hexdig[p[k] >> 4], (uint8_t)hexdig[p[k] & 15]};
            rc = ig_buf_append(out, h, 2);
        }
        if (!rc) rc = ig_buf_append_byte(out, '"');
        return rc;
    }
    return append_lane(out, v->type, v->lanes[i], true);
}
