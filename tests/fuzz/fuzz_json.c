/* libFuzzer target for src/import/json.c.
 *
 * Build (not wired into meson):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -I include -I src \
 *     tests/fuzz/fuzz_json.c src/import/json.c src/util/{parse,parse_float,utf8,error,buf,hash,cpu}.c \
 *     -lxxhash -lm -o fuzz_json
 *
 * Besides "no crash, no leak, no UB", every accepted document is checked:
 * strings and keys are valid UTF-8, child counts match the links, object
 * lookups find each member, no object has duplicate keys, the number
 * helpers agree with each other and the float ones with strtod_l/strtof_l,
 * and rendering the DOM and parsing that again gives the same rendering (the
 * parser is a function of the value). The members of an accepted object are
 * typed as a JSON Lines import infers them (infer_shape.h), and every type
 * text it gives must be one the schema parser takes (or nest deeper than
 * types may). */
#include <errno.h>
#include <locale.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/infer_shape.h"
#include "import/json.h"
#include "format/model/schema.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/utf8.h"

static void render_str(struct ig_buf *o, const char *s, size_t n)
{
    ig_buf_append_byte(o, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            ig_buf_append_byte(o, '\\');
            ig_buf_append_byte(o, c);
        } else if (c < 0x20) {
            ig_buf_printf(o, "\\u%04x", c);
        } else {
            ig_buf_append_byte(o, c);
        }
    }
    ig_buf_append_byte(o, '"');
}

/* A JSON number is a decimal float: the parsers' bits must be the C
 * library's, read in the "C" locale. */
static void same_as_libc(const char *s, size_t n, double f, float g)
{
    char *z = malloc(n + 1);
    if (!z) abort();
    memcpy(z, s, n);
    z[n] = '\0';
    locale_t c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    if (c == (locale_t)0) abort();
    double rf = strtod_l(z, NULL, c);
    float rg = strtof_l(z, NULL, c);
    freelocale(c);
    free(z);
    if (memcmp(&rf, &f, sizeof f) != 0 || memcmp(&rg, &g, sizeof g) != 0) abort();
}

static void check(struct ig_json_doc *d, const struct ig_json_node *n, struct ig_buf *o)
{
    switch (n->type) {
    case IG_JSON_NULL: ig_buf_append(o, "null", 4); break;
    case IG_JSON_TRUE: ig_buf_append(o, "true", 4); break;
    case IG_JSON_FALSE: ig_buf_append(o, "false", 5); break;
    case IG_JSON_NUMBER: {
        ig_buf_append(o, n->str, n->len);
        int64_t i;
        uint64_t u;
        double f;
        float g;
        int ri = ig_json_number_i64(n, &i, NULL);
        int ru = ig_json_number_u64(n, &u, NULL);
        if (ig_json_number_f64(n, &f, NULL) != 0) abort(); /* any JSON number is a double */
        if (ig_json_number_f32(n, &g, NULL) != 0) abort();
        same_as_libc(n->str, n->len, f, g);
        if (ri == 0 && ru == 0 && i >= 0 && (uint64_t)i != u) abort();
        if (ri == 0 && i >= -(1LL << 53) && i <= (1LL << 53) && (double)i != f) abort();
        int64_t r8;
        int rr = ig_json_number_int_range(n, INT8_MIN, INT8_MAX, &r8, NULL);
        if (rr == 0 && (ri != 0 || r8 != i)) abort();
        if (ri == 0 && i >= INT8_MIN && i <= INT8_MAX && rr != 0) abort();
        break;
    }
    case IG_JSON_STRING:
        if (!ig_utf8_valid((const uint8_t *)n->str, n->len)) abort();
        render_str(o, n->str, n->len);
        break;
    case IG_JSON_ARRAY:
    case IG_JSON_OBJECT: {
        int obj = n->type == IG_JSON_OBJECT;
        ig_buf_append_byte(o, obj ? '{' : '[');
        uint32_t k = 0;
        for (const struct ig_json_node *c = ig_json_first_child(d, n); c;
             c = ig_json_next_sibling(d, c), k++) {
            if (k) ig_buf_append_byte(o, ',');
            if (obj) {
                if (!c->key || !ig_utf8_valid((const uint8_t *)c->key, c->keylen)) abort();
                /* No duplicates, so the lookup must land on this very member. */
                if (ig_json_object_get(d, n, c->key, c->keylen) != c) abort();
                render_str(o, c->key, c->keylen);
                ig_buf_append_byte(o, ':');
            } else if (c->key) {
                abort();
            }
            check(d, c, o);
        }
        if (k != n->count) abort();
        ig_buf_append_byte(o, obj ? '}' : ']');
        break;
    }
    }
}

/* Each member's inferred type is schema text the parser accepts. */
static void check_types(struct ig_json_doc *d, const struct ig_json_node *root)
{
    if (root->type != IG_JSON_OBJECT) return;
    for (const struct ig_json_node *m = ig_json_first_child(d, root); m; m = ig_json_next_sibling(d, m)) {
        struct ig_shape sh;
        ig_shape_init(&sh);
        int r = ig_shape_add(&sh, d, m);
        if (r && r != -E2BIG && r != -ENOMEM) abort();
        struct ig_buf t = IG_BUF_INIT;
        struct ig_error e = {0};
        if (!r && ig_shape_type_text(&sh, "f", &t, &e) == 0) {
            struct ig_schema sc = {0};
            if (ig_schema_add_typed(&sc, "f", 1, (const char *)t.data, t.len, &e) == 0) {
                if (ig_schema_finish(&sc, &e) != 0 && !strstr(e.msg, "too deeply")) abort();
            } else if (!strstr(e.msg, "too deeply")) {
                fprintf(stderr, "inferred '%.*s', refused: %s\n", (int)t.len, (const char *)t.data, e.msg);
                abort();
            }
            ig_schema_free(&sc);
        }
        ig_buf_free(&t);
        ig_shape_free(&sh);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ig_json_doc d;
    ig_json_doc_init(&d);
    struct ig_error e = {0};
    /* Copy to an exact-size heap block so ASan catches reads past the end. */
    char *in = malloc(size ? size : 1);
    if (!in) return 0;
    memcpy(in, data, size);
    int rc = ig_json_parse(&d, in, size, &e);
    if (rc == 0) {
        struct ig_buf a = IG_BUF_INIT, b = IG_BUF_INIT;
        check(&d, ig_json_root(&d), &a);
        check_types(&d, ig_json_root(&d));
        struct ig_json_doc d2;
        ig_json_doc_init(&d2);
        if (ig_json_parse(&d2, (const char *)a.data, a.len, &e) != 0) {
            fprintf(stderr, "rendering rejected: %s\n%.*s\n", e.msg, (int)a.len, (char *)a.data);
            abort();
        }
        check(&d2, ig_json_root(&d2), &b);
        if (a.len != b.len || memcmp(a.data, b.data, a.len) != 0) abort();
        ig_json_doc_free(&d2);
        ig_buf_free(&a);
        ig_buf_free(&b);
    } else {
        if (ig_json_root(&d) != NULL) abort();
        if (strncmp(e.msg, "column ", 7) != 0 && rc != -ENOMEM) abort();
    }
    /* Reuse of the document after either outcome. */
    if (ig_json_parse(&d, "{\"k\":[1,\"\\u00e9\"]}", 18, NULL) != 0) abort();
    ig_json_doc_free(&d);
    free(in);
    return 0;
}
