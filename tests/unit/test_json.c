/* Tests for src/import/json.c. */
#include "check.h"

#include <errno.h>
#include <math.h>
#include <time.h>

#include "import/json.h"
#include "util/buf.h"
#include "util/error.h"

/* Serialize a node compactly: strings with only '"', '\\' and control
 * characters escaped, numbers as their raw text. */
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

static void render(struct ig_buf *o, const struct ig_json_doc *d, const struct ig_json_node *n)
{
    switch (n->type) {
    case IG_JSON_NULL: ig_buf_append(o, "null", 4); break;
    case IG_JSON_TRUE: ig_buf_append(o, "true", 4); break;
    case IG_JSON_FALSE: ig_buf_append(o, "false", 5); break;
    case IG_JSON_NUMBER: ig_buf_append(o, n->str, n->len); break;
    case IG_JSON_STRING: render_str(o, n->str, n->len); break;
    case IG_JSON_ARRAY:
    case IG_JSON_OBJECT: {
        bool obj = n->type == IG_JSON_OBJECT;
        ig_buf_append_byte(o, obj ? '{' : '[');
        uint32_t k = 0;
        for (const struct ig_json_node *c = ig_json_first_child(d, n); c;
             c = ig_json_next_sibling(d, c), k++) {
            if (k) ig_buf_append_byte(o, ',');
            if (obj) {
                render_str(o, c->key, c->keylen);
                ig_buf_append_byte(o, ':');
            }
            render(o, d, c);
        }
        if (k != n->count) ig_buf_printf(o, "<count %u != %u>", n->count, k);
        ig_buf_append_byte(o, obj ? '}' : ']');
        break;
    }
    }
}

/* Parse and render, or "!message". Caller frees. */
static char *roundtrip_n(struct ig_json_doc *d, const char *s, size_t n)
{
    struct ig_error e = {0};
    struct ig_buf o = IG_BUF_INIT;
    int rc = ig_json_parse(d, s, n, &e);
    if (rc)
        ig_buf_printf(&o, "!%s", e.msg);
    else
        render(&o, d, ig_json_root(d));
    ig_buf_append_byte(&o, '\0');
    return (char *)o.data;
}

#define EXPECT_JSON(in, want)                                                                  \
    do {                                                                                       \
        struct ig_json_doc d_;                                                                 \
        ig_json_doc_init(&d_);                                                                 \
        char *got_ = roundtrip_n(&d_, in, sizeof(in) - 1);                                     \
        CHECK_EQ_STR(got_, want);                                                              \
        free(got_);                                                                            \
        ig_json_doc_free(&d_);                                                                 \
    } while (0)

/* Expect a syntax error; only the message prefix up to the first '(' or the
 * whole message is compared when want is given in full. */
#define EXPECT_ERR(in)                                                                         \
    do {                                                                                       \
        struct ig_json_doc d_;                                                                 \
        ig_json_doc_init(&d_);                                                                 \
        struct ig_error e_ = {0};                                                              \
        int rc_ = ig_json_parse(&d_, in, sizeof(in) - 1, &e_);                                 \
        if (rc_ != -EINVAL) fprintf(stderr, "  accepted: %s\n", in);                            \
        CHECK_EQ_INT(rc_, -EINVAL);                                                            \
        CHECK(ig_json_root(&d_) == NULL);                                                      \
        CHECK(strncmp(e_.msg, "column ", 7) == 0);                                             \
        ig_json_doc_free(&d_);                                                                 \
    } while (0)

static void test_every_type(void)
{
    struct ig_json_doc d;
    ig_json_doc_init(&d);
    const char *in = "{\"n\":null,\"t\":true,\"f\":false,\"i\":-12,\"x\":1.5e3,\"s\":\"hi\","
                     "\"a\":[1,[],{}],\"o\":{\"k\":\"v\"}}";
    REQUIRE(ig_json_parse(&d, in, strlen(in), NULL) == 0);
    const struct ig_json_node *root = ig_json_root(&d);
    REQUIRE(root && root->type == IG_JSON_OBJECT);
    CHECK_EQ_INT(root->count, 8);
    CHECK_EQ_INT(root->off, 0);
    static const enum ig_json_type types[] = {IG_JSON_NULL,   IG_JSON_TRUE,   IG_JSON_FALSE,
                                              IG_JSON_NUMBER, IG_JSON_NUMBER, IG_JSON_STRING,
                                              IG_JSON_ARRAY,  IG_JSON_OBJECT};
    static const char keys[] = "ntfixsao";
    int k = 0;
    for (const struct ig_json_node *m = ig_json_first_child(&d, root); m;
         m = ig_json_next_sibling(&d, m), k++) {
        CHECK(m->type == types[k]);
        CHECK(m->keylen == 1 && m->key[0] == keys[k]);
        CHECK(in[m->key_off] == '"' && in[m->key_off + 1] == keys[k]);
    }
    CHECK_EQ_INT(k, 8);
    const struct ig_json_node *x = ig_json_object_get(&d, root, "x", 1);
    REQUIRE(x);
    CHECK(x->len == 5 && memcmp(x->str, "1.5e3", 5) == 0);
    CHECK(in[x->off] == '1' && in[x->off + 4] == '3');
    const struct ig_json_node *s = ig_json_object_get(&d, root, "s", 1);
    REQUIRE(s);
    CHECK(s->len == 2 && memcmp(s->str, "hi", 2) == 0);
    const struct ig_json_node *a = ig_json_object_get(&d, root, "a", 1);
    REQUIRE(a && a->count == 3);
    const struct ig_json_node *a0 = ig_json_first_child(&d, a);
    CHECK(a0 && a0->type == IG_JSON_NUMBER && a0->key == NULL);
    const struct ig_json_node *a1 = ig_json_next_sibling(&d, a0);
    CHECK(a1 && a1->type == IG_JSON_ARRAY && a1->count == 0 && !ig_json_first_child(&d, a1));
    const struct ig_json_node *a2 = ig_json_next_sibling(&d, a1);
    CHECK(a2 && a2->type == IG_JSON_OBJECT && a2->count == 0);
    CHECK(ig_json_next_sibling(&d, a2) == NULL);
    const struct ig_json_node *o = ig_json_object_get(&d, root, "o", 1);
    REQUIRE(o);
    const struct ig_json_node *v = ig_json_object_get(&d, o, "k", 1);
    CHECK(v && v->len == 1 && v->str[0] == 'v');
    CHECK(ig_json_object_get(&d, root, "missing", 7) == NULL);
    CHECK(ig_json_object_get(&d, a, "x", 1) == NULL); /* not an object */
    ig_json_doc_free(&d);

    EXPECT_JSON("null", "null");
    EXPECT_JSON("true", "true");
    EXPECT_JSON("false", "false");
    EXPECT_JSON("0", "0");
    EXPECT_JSON("-0", "-0");
    EXPECT_JSON("-1.25e-10", "-1.25e-10");
    EXPECT_JSON("1E+2", "1E+2");
    EXPECT_JSON("\"\"", "\"\"");
    EXPECT_JSON("[]", "[]");
    EXPECT_JSON("{}", "{}");
    EXPECT_JSON(" \t\r\n[ 1 , 2 , { \"a\" : [ ] } ]\r\n\t ", "[1,2,{\"a\":[]}]");
    EXPECT_JSON("[[[[[]]]]]", "[[[[[]]]]]");
    EXPECT_JSON("{\"\":1}", "{\"\":1}"); /* empty key */
}

static void test_string_escapes(void)
{
    EXPECT_JSON("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"", "\"\\\"\\\\/\\u0008\\u000c\\u000a\\u000d\\u0009\"");
    EXPECT_JSON("\"\\u0041\\u00e9\\u00E9\\u20ac\"", "\"A\xc3\xa9\xc3\xa9\xe2\x82\xac\"");
    EXPECT_JSON("\"\\ud83d\\ude00\"", "\"\xf0\x9f\x98\x80\"");   /* surrogate pair */
    EXPECT_JSON("\"\\uD83D\\uDE00x\"", "\"\xf0\x9f\x98\x80x\"");
    EXPECT_JSON("\"\\udbff\\udfff\"", "\"\xf4\x8f\xbf\xbf\"");    /* U+10FFFF */
    EXPECT_JSON("\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"", "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"");
    EXPECT_JSON("\"\\uffff\"", "\"\xef\xbf\xbf\"");
    EXPECT_JSON("{\"k\\n\":\"a\\tb\"}", "{\"k\\u000a\":\"a\\u0009b\"}"); /* escaped key */
    /* Escapes after a long plain run, and plain text after escapes. */
    EXPECT_JSON("\"abcdefghijklmnopqrstuvwxyz\\n0123456789abcdef\xc3\xa9xyz\"",
                "\"abcdefghijklmnopqrstuvwxyz\\u000a0123456789abcdef\xc3\xa9xyz\"");
    /* \u0000 gives a NUL byte inside the value; lengths carry it. */
    struct ig_json_doc d;
    ig_json_doc_init(&d);
    REQUIRE(ig_json_parse(&d, "\"a\\u0000b\"", 10, NULL) == 0);
    const struct ig_json_node *r = ig_json_root(&d);
    CHECK(r->len == 3 && memcmp(r->str, "a\0b", 3) == 0);
    /* Unescaped strings point into the input (no copy). */
    const char *in = "[\"plain\"]";
    REQUIRE(ig_json_parse(&d, in, strlen(in), NULL) == 0);
    CHECK(ig_json_first_child(&d, ig_json_root(&d))->str == in + 2);
    ig_json_doc_free(&d);
}

static void test_invalid_strings(void)
{
    EXPECT_ERR("\"\\ud800\"");            /* lone high surrogate */
    EXPECT_ERR("\"\\ud800x\"");
    EXPECT_ERR("\"\\ud800\\u0041\"");     /* high + non-low */
    EXPECT_ERR("\"\\ud800\\ud800\"");
    EXPECT_ERR("\"\\udc00\"");            /* lone low */
    EXPECT_ERR("\"\\ude00\\ud83d\"");     /* reversed pair */
    EXPECT_ERR("\"\\ud83d\\");
    EXPECT_ERR("\"\\u12\"");
    EXPECT_ERR("\"\\u12g4\"");
    EXPECT_ERR("\"\\x41\"");
    EXPECT_ERR("\"\\a\"");
    EXPECT_ERR("\"\\'\"");
    EXPECT_ERR("\"\\U0041\"");
    EXPECT_ERR("\"a\x01\"");              /* control characters */
    EXPECT_ERR("\"a\tb\"");
    EXPECT_ERR("\"a\nb\"");
    EXPECT_ERR("\"\x1f\"");
    EXPECT_ERR("\"\\n\x01\"");            /* ... also after an escape */
    EXPECT_ERR("\"\xff\"");               /* invalid UTF-8 */
    EXPECT_ERR("\"\xc0\x80\"");
    EXPECT_ERR("\"\xed\xa0\x80\"");
    EXPECT_ERR("\"\xe2\x82\"");
    EXPECT_ERR("\"\x80\"");
    EXPECT_ERR("\"\xf4\x90\x80\x80\"");
    EXPECT_ERR("\"\\n\xff\"");
    EXPECT_ERR("\"0123456789abcdef\xc3\"");
    EXPECT_ERR("{\"\xff\":1}");
    EXPECT_ERR("\"unterminated");
    EXPECT_ERR("\"unterminated\\\"");
    EXPECT_ERR("\"");
    EXPECT_ERR("'single'");
}

static void test_invalid_syntax(void)
{
    EXPECT_ERR("");
    EXPECT_ERR("   ");
    EXPECT_ERR("[1,]");
    EXPECT_ERR("{\"a\":1,}");
    EXPECT_ERR("[,1]");
    EXPECT_ERR("{,}");
    EXPECT_ERR("[1 2]");
    EXPECT_ERR("{\"a\" 1}");
    EXPECT_ERR("{\"a\":}");
    EXPECT_ERR("{\"a\"}");
    EXPECT_ERR("{a:1}");
    EXPECT_ERR("{1:1}");
    EXPECT_ERR("[1");
    EXPECT_ERR("[1,");
    EXPECT_ERR("{\"a\":1");
    EXPECT_ERR("{");
    EXPECT_ERR("]");
    EXPECT_ERR("[1]]");
    EXPECT_ERR("{}x");
    EXPECT_ERR("1 2");
    EXPECT_ERR("nulll");
    EXPECT_ERR("nul");
    EXPECT_ERR("True");
    EXPECT_ERR("NULL");
    EXPECT_ERR("undefined");
    EXPECT_ERR("// c\n1");
    EXPECT_ERR("/* c */ 1");
    EXPECT_ERR("1 // c");
    EXPECT_ERR("\xef\xbb\xbf{}"); /* BOM belongs to the line reader */
    EXPECT_ERR("[1]\x00");
    EXPECT_ERR("\x0b" "1");      /* vertical tab is not JSON whitespace */
    EXPECT_ERR("\xc2\xa0" "1");  /* nor is NBSP */
    /* Numbers outside the grammar. */
    EXPECT_ERR("01");
    EXPECT_ERR("-01");
    EXPECT_ERR("00");
    EXPECT_ERR("[01]");
    EXPECT_ERR("1.");
    EXPECT_ERR("1.e3");
    EXPECT_ERR(".5");
    EXPECT_ERR("+1");
    EXPECT_ERR("-");
    EXPECT_ERR("-a");
    EXPECT_ERR("1e");
    EXPECT_ERR("1e+");
    EXPECT_ERR("1E-");
    EXPECT_ERR("0x10");
    EXPECT_ERR("1.5.3");
    EXPECT_ERR("NaN");
    EXPECT_ERR("Infinity");
    EXPECT_ERR("-Infinity");
    EXPECT_ERR("[1,2,3,]");
}

static void test_error_messages(void)
{
    EXPECT_JSON("[1,]", "!column 4: trailing comma in array");
    EXPECT_JSON("{\"a\":1,}", "!column 8: trailing comma in object");
    EXPECT_JSON("{\"a\":1,\"b\":2,\"a\":3}", "!column 14: duplicate key \"a\"");
    EXPECT_JSON("01", "!column 1: invalid number (leading zeros are not allowed)");
    EXPECT_JSON("[1, -01]", "!column 5: invalid number (leading zeros are not allowed)");
    EXPECT_JSON("\"a\x01\"", "!column 3: unescaped control character in string (found byte 0x01)");
    EXPECT_JSON("1 2", "!column 3: unexpected data after the JSON value (found '2')");
    EXPECT_JSON("", "!column 1: expected a JSON value (at end of input)");
    EXPECT_JSON("[1 2]", "!column 4: expected ',' or ']' after array element (found '2')");
    EXPECT_JSON("{\"a\" 1}", "!column 6: expected ':' after object key (found '1')");
    EXPECT_JSON("{\"a\":1", "!column 7: expected ',' or '}' after object member (at end of input)");
    EXPECT_JSON("  \"abc", "!column 3: unterminated string");
    EXPECT_JSON("[\"\\ud800\"]", "!column 3: unpaired UTF-16 high surrogate in \\u escape");
    EXPECT_JSON("[\"ab\xff\"]", "!column 5: invalid UTF-8 in string");
    EXPECT_JSON("\"\\q\"", "!column 3: invalid escape in string (found 'q')");
    EXPECT_JSON("tru", "!column 1: invalid literal (expected true, false or null) (found 't')");
    EXPECT_JSON("1.", "!column 3: invalid number (expected a digit after '.') (at end of input)");
    EXPECT_JSON("{\"a\":{\"b\":1,\"b\":1}}", "!column 13: duplicate key \"b\"");
}

static void test_depth_limit(void)
{
    char buf[2 * IG_JSON_MAX_DEPTH + 8];
    struct ig_json_doc d;
    ig_json_doc_init(&d);
    struct ig_error e = {0};
    for (int extra = 0; extra <= 1; extra++) {
        int depth = IG_JSON_MAX_DEPTH + extra, n = 0;
        for (int i = 0; i < depth; i++)
            buf[n++] = '[';
        for (int i = 0; i < depth; i++)
            buf[n++] = ']';
        int rc = ig_json_parse(&d, buf, (size_t)n, &e);
        CHECK_EQ_INT(rc, extra ? -EINVAL : 0);
    }
    CHECK_EQ_STR(e.msg, "column 65: nesting deeper than 64 arrays/objects");
    /* Objects: 64 ok, 65 not. */
    struct ig_buf b = IG_BUF_INIT;
    for (int extra = 0; extra <= 1; extra++) {
        ig_buf_reset(&b);
        int depth = IG_JSON_MAX_DEPTH + extra;
        for (int i = 0; i < depth - 1; i++)
            ig_buf_append(&b, "{\"k\":", 5);
        ig_buf_append(&b, "{}", 2);
        for (int i = 0; i < depth - 1; i++)
            ig_buf_append_byte(&b, '}');
        CHECK_EQ_INT(ig_json_parse(&d, (char *)b.data, b.len, NULL), extra ? -EINVAL : 0);
    }
    /* Very deep input fails fast instead of overflowing the stack. */
    ig_buf_reset(&b);
    for (int i = 0; i < 1000000; i++)
        ig_buf_append_byte(&b, '[');
    CHECK_EQ_INT(ig_json_parse(&d, (char *)b.data, b.len, NULL), -EINVAL);
    ig_buf_free(&b);
    ig_json_doc_free(&d);
}

static void test_duplicate_keys(void)
{
    EXPECT_ERR("{\"a\":1,\"a\":1}");
    EXPECT_ERR("{\"a\":1,\"\\u0061\":2}");   /* equal after unescaping */
    EXPECT_ERR("{\"\":1,\"\":2}");
    EXPECT_JSON("{\"a\":1,\"A\":2,\"a \":3}", "{\"a\":1,\"A\":2,\"a \":3}");
    EXPECT_JSON("[{\"a\":1},{\"a\":2}]", "[{\"a\":1},{\"a\":2}]"); /* different objects */
    EXPECT_JSON("{\"a\":{\"a\":1}}", "{\"a\":{\"a\":1}}");

    /* Large objects go through the hash set: unique keys pass, a duplicate
     * anywhere is found and its column reported. */
    struct ig_json_doc d;
    ig_json_doc_init(&d);
    for (int nkeys = 10; nkeys <= 20000; nkeys *= 3) {
        struct ig_buf b = IG_BUF_INIT;
        ig_buf_append_byte(&b, '{');
        for (int i = 0; i < nkeys; i++)
            ig_buf_printf(&b, "%s\"key%d\":%d", i ? "," : "", i, i);
        size_t before_dup = b.len;
        ig_buf_append(&b, "}", 1);
        CHECK_EQ_INT(ig_json_parse(&d, (char *)b.data, b.len, NULL), 0);
        CHECK_EQ_INT(ig_json_root(&d)->count, nkeys);
        b.len = before_dup;
        ig_buf_printf(&b, ",\"key%d\":0}", nkeys / 2);
        struct ig_error e = {0};
        CHECK_EQ_INT(ig_json_parse(&d, (char *)b.data, b.len, &e), -EINVAL);
        char want[64];
        snprintf(want, sizeof want, "column %zu: duplicate key \"key%d\"", before_dup + 2,
                 nkeys / 2);
        CHECK_EQ_STR(e.msg, want);
        ig_buf_free(&b);
    }
    /* 200k distinct keys parse in well under a second (not quadratic). */
    struct ig_buf b = IG_BUF_INIT;
    ig_buf_append_byte(&b, '{');
    for (int i = 0; i < 200000; i++)
        ig_buf_printf(&b, "%s\"%d\":0", i ? "," : "", i);
    ig_buf_append_byte(&b, '}');
    clock_t t0 = clock();
    CHECK_EQ_INT(ig_json_parse(&d, (char *)b.data, b.len, NULL), 0);
    CHECK((double)(clock() - t0) / CLOCKS_PER_SEC < 1.0);
    ig_buf_free(&b);
    ig_json_doc_free(&d);
}

static void test_object_get_order(void)
{
    struct ig_json_doc d;
    ig_json_doc_init(&d);
    const char *in = "{\"a\":1,\"b\":2,\"c\":3,\"d\":4}";
    REQUIRE(ig_json_parse(&d, in, strlen(in), NULL) == 0);
    const struct ig_json_node *o = ig_json_root(&d);
    static const char *orders[] = {"abcd", "dcba", "badc", "aaaa", "cdab", "xaxd"};
    for (size_t k = 0; k < sizeof orders / sizeof *orders; k++) {
        for (const char *p = orders[k]; *p; p++) {
            const struct ig_json_node *v = ig_json_object_get(&d, o, p, 1);
            if (*p == 'x') {
                CHECK(v == NULL);
                continue;
            }
            REQUIRE(v);
            CHECK(v->key[0] == *p && v->str[0] == (char)('1' + (*p - 'a')));
        }
    }
    /* In document order the search starts at the next member each time. */
    REQUIRE(ig_json_parse(&d, in, strlen(in), NULL) == 0);
    o = ig_json_root(&d);
    CHECK(o->hint == IG_JSON_NONE);
    const struct ig_json_node *a = ig_json_object_get(&d, o, "a", 1);
    CHECK(o->hint == a->next_sibling);
    const struct ig_json_node *b = ig_json_object_get(&d, o, "b", 1);
    CHECK(b && o->hint == b->next_sibling);
    const struct ig_json_node *dd = ig_json_object_get(&d, o, "d", 1);
    CHECK(dd && o->hint == IG_JSON_NONE);
    CHECK(ig_json_object_get(&d, o, "a", 1) == a);
    /* Empty object. */
    REQUIRE(ig_json_parse(&d, "{}", 2, NULL) == 0);
    CHECK(ig_json_object_get(&d, ig_json_root(&d), "a", 1) == NULL);
    ig_json_doc_free(&d);
}

static void test_doc_reuse(void)
{
    struct ig_json_doc d;
    ig_json_doc_init(&d);
    CHECK(ig_json_root(&d) == NULL);
    char line[128];
    for (int i = 0; i < 1000; i++) {
        int n = snprintf(line, sizeof line, "{\"id\":%d,\"s\":\"v\\n%d\",\"arr\":[%d,%d]}", i, i, i,
                         -i);
        REQUIRE(ig_json_parse(&d, line, (size_t)n, NULL) == 0);
        const struct ig_json_node *r = ig_json_root(&d);
        int64_t id;
        CHECK(ig_json_number_i64(ig_json_object_get(&d, r, "id", 2), &id, NULL) == 0 && id == i);
        const struct ig_json_node *s = ig_json_object_get(&d, r, "s", 1);
        char want[32];
        int wn = snprintf(want, sizeof want, "v\n%d", i);
        CHECK(s->len == (size_t)wn && memcmp(s->str, want, (size_t)wn) == 0);
        if (i % 100 == 0) CHECK(ig_json_parse(&d, "[1,", 3, NULL) == -EINVAL);
    }
    CHECK(d.cap <= 64); /* allocations kept, not grown per line */
    ig_json_doc_free(&d);
}

static const struct ig_json_node *num(struct ig_json_doc *d, const char *text)
{
    if (ig_json_parse(d, text, strlen(text), NULL)) return NULL;
    return ig_json_root(d);
}

static void test_numbers_to_types(void)
{
    struct ig_json_doc d;
    ig_json_doc_init(&d);
    struct ig_error e = {0};
    int64_t i;
    uint64_t u;
    double f;
    float g;
    CHECK(ig_json_number_i64(num(&d, "9223372036854775807"), &i, &e) == 0 && i == INT64_MAX);
    CHECK(ig_json_number_i64(num(&d, "-9223372036854775808"), &i, &e) == 0 && i == INT64_MIN);
    CHECK_EQ_INT(ig_json_number_i64(num(&d, "9223372036854775808"), &i, &e), -ERANGE);
    CHECK_EQ_STR(e.msg, "column 1: 9223372036854775808 is out of range for int64");
    CHECK_EQ_INT(ig_json_number_i64(num(&d, "-9223372036854775809"), &i, &e), -ERANGE);
    CHECK(ig_json_number_i64(num(&d, "-0"), &i, &e) == 0 && i == 0);
    CHECK_EQ_INT(ig_json_number_i64(num(&d, "1.0"), &i, &e), -EINVAL);
    CHECK_EQ_STR(e.msg, "column 1: 1.0 is not an integer (expected int64)");
    CHECK_EQ_INT(ig_json_number_i64(num(&d, "1e3"), &i, &e), -EINVAL);
    CHECK_EQ_INT(ig_json_number_i64(num(&d, "\"5\""), &i, &e), -EINVAL);
    CHECK_EQ_STR(e.msg, "column 1: expected a number, got string");
    CHECK_EQ_INT(ig_json_number_i64(num(&d, "null"), &i, &e), -EINVAL);

    CHECK(ig_json_number_u64(num(&d, "18446744073709551615"), &u, &e) == 0 && u == UINT64_MAX);
    CHECK_EQ_INT(ig_json_number_u64(num(&d, "18446744073709551616"), &u, &e), -ERANGE);
    CHECK_EQ_INT(ig_json_number_u64(num(&d, "-1"), &u, &e), -ERANGE);
    CHECK_EQ_STR(e.msg, "column 1: -1 is out of range for uint64");

    CHECK(ig_json_number_int_range(num(&d, "-128"), INT8_MIN, INT8_MAX, &i, &e) == 0 && i == -128);
    CHECK_EQ_INT(ig_json_number_int_range(num(&d, "128"), INT8_MIN, INT8_MAX, &i, &e), -ERANGE);
    CHECK_EQ_STR(e.msg, "column 1: 128 is out of range [-128, 127]");
    CHECK_EQ_INT(ig_json_number_int_range(num(&d, "-129"), INT8_MIN, INT8_MAX, &i, &e), -ERANGE);
    CHECK_EQ_INT(ig_json_number_int_range(num(&d, "2147483648"), INT32_MIN, INT32_MAX, &i, &e),
                 -ERANGE);
    CHECK_EQ_INT(ig_json_number_int_range(num(&d, "0.5"), INT8_MIN, INT8_MAX, &i, &e), -EINVAL);
    CHECK(ig_json_number_uint_range(num(&d, "65535"), 0, UINT16_MAX, &u, &e) == 0 && u == 65535);
    CHECK_EQ_INT(ig_json_number_uint_range(num(&d, "65536"), 0, UINT16_MAX, &u, &e), -ERANGE);
    CHECK_EQ_STR(e.msg, "column 1: 65536 is out of range [0, 65535]");
    CHECK_EQ_INT(ig_json_number_uint_range(num(&d, "-5"), 0, UINT16_MAX, &u, &e), -ERANGE);

    CHECK(ig_json_number_f64(num(&d, "1.5e3"), &f, &e) == 0 && f == 1500.0);
    CHECK(ig_json_number_f64(num(&d, "-0"), &f, &e) == 0 && f == 0 && signbit(f));
    CHECK(ig_json_number_f64(num(&d, "1e400"), &f, &e) == 0 && f == INFINITY);
    CHECK(ig_json_number_f64(num(&d, "12345678901234567890123"), &f, &e) == 0 &&
          f == 12345678901234567890123.0);
    CHECK_EQ_INT(ig_json_number_f64(num(&d, "true"), &f, &e), -EINVAL);
    CHECK(ig_json_number_f32(num(&d, "0.1"), &g, &e) == 0 && g == 0.1f);
    CHECK(ig_json_number_f32(num(&d, "3.5e38"), &g, &e) == 0 && g == INFINITY);

    /* Column of a nested value. */
    REQUIRE(ig_json_parse(&d, "{\"a\": 1.5}", 10, NULL) == 0);
    CHECK_EQ_INT(ig_json_number_i64(ig_json_object_get(&d, ig_json_root(&d), "a", 1), &i, &e),
                 -EINVAL);
    CHECK_EQ_STR(e.msg, "column 7: 1.5 is not an integer (expected int64)");
    ig_json_doc_free(&d);
}

static void app(struct ig_buf *b, const char *s) { ig_buf_append(b, s, strlen(s)); }

/* Random documents: serialize with random whitespace and escapes, parse,
 * render, compare with the canonical rendering. */
static void gen(struct ig_buf *src, struct ig_buf *canon, uint64_t *s, int depth)
{
    uint64_t r = test_rand(s) % (depth > 5 ? 5 : 7);
    static const char *ws[] = {"", " ", "\n", "\t", "\r\n "};
    const char *w = ws[test_rand(s) % 5];
    ig_buf_append(src, w, strlen(w));
    switch (r) {
    case 0:
        ig_buf_append(src, "null", 4);
        ig_buf_append(canon, "null", 4);
        break;
    case 1:
        ig_buf_append(src, "true", 4);
        ig_buf_append(canon, "true", 4);
        break;
    case 2: {
        char t[40];
        long long drawn = (long long)(int64_t)test_rand(s);
        int n = snprintf(t, sizeof t, "%lld", drawn >> (test_rand(s) % 64));
        if (test_rand(s) & 1) n += snprintf(t + n, sizeof t - (size_t)n, ".%u", (unsigned)(test_rand(s) % 1000));
        if (test_rand(s) & 1) n += snprintf(t + n, sizeof t - (size_t)n, "e-%u", (unsigned)(test_rand(s) % 30));
        ig_buf_append(src, t, (size_t)n);
        ig_buf_append(canon, t, (size_t)n);
        break;
    }
    case 3:
    case 4: {
        /* A string mixing plain ASCII, UTF-8 and every kind of escape. */
        size_t len = test_rand(s) % 20;
        ig_buf_append_byte(src, '"');
        ig_buf_append_byte(canon, '"');
        for (size_t i = 0; i < len; i++) {
            switch (test_rand(s) % 8) {
            case 0: ig_buf_append(src, "\\n", 2); ig_buf_append(canon, "\\u000a", 6); break;
            case 1: ig_buf_append(src, "\\\"", 2); ig_buf_append(canon, "\\\"", 2); break;
            case 2: ig_buf_append(src, "\\u00e9", 6); ig_buf_append(canon, "\xc3\xa9", 2); break;
            case 3: ig_buf_append(src, "\\ud83d\\ude00", 12); ig_buf_append(canon, "\xf0\x9f\x98\x80", 4); break;
            case 4: ig_buf_append(src, "\xe2\x82\xac", 3); ig_buf_append(canon, "\xe2\x82\xac", 3); break;
            case 5: ig_buf_append(src, "\\/", 2); ig_buf_append(canon, "/", 1); break;
            default: {
                char c = (char)('a' + test_rand(s) % 26);
                ig_buf_append_byte(src, (uint8_t)c);
                ig_buf_append_byte(canon, (uint8_t)c);
            }
            }
        }
        ig_buf_append_byte(src, '"');
        ig_buf_append_byte(canon, '"');
        break;
    }
    case 5:
    case 6: {
        bool obj = r == 6;
        size_t n = test_rand(s) % 5;
        ig_buf_append_byte(src, obj ? '{' : '[');
        ig_buf_append_byte(canon, obj ? '{' : '[');
        for (size_t i = 0; i < n; i++) {
            if (i) {
                app(src, (test_rand(s) & 1) ? "," : " , ");
                ig_buf_append_byte(canon, ',');
            }
            if (obj) {
                char k[24];
                int kn = snprintf(k, sizeof k, "\"k%zu\"", i);
                ig_buf_append(src, k, (size_t)kn);
                app(src, (test_rand(s) & 1) ? ":" : " :\n");
                ig_buf_append(canon, k, (size_t)kn);
                ig_buf_append_byte(canon, ':');
            }
            gen(src, canon, s, depth + 1);
        }
        ig_buf_append_byte(src, obj ? '}' : ']');
        ig_buf_append_byte(canon, obj ? '}' : ']');
        break;
    }
    }
}

static void test_random_documents(void)
{
    uint64_t s = check_seed;
    struct ig_json_doc d;
    ig_json_doc_init(&d);
    int bad = 0;
    for (int it = 0; it < 20000 && bad < 3; it++) {
        struct ig_buf src = IG_BUF_INIT, canon = IG_BUF_INIT;
        gen(&src, &canon, &s, 0);
        ig_buf_append_byte(&canon, '\0');
        char *got = roundtrip_n(&d, (const char *)src.data, src.len);
        if (strcmp(got, (char *)canon.data) != 0) {
            fprintf(stderr, "  input %.*s\n  got   %s\n  want  %s\n", (int)src.len,
                    (char *)src.data, got, (char *)canon.data);
            bad++;
        }
        /* Every strict prefix of a container or string is an error. */
        if (src.len > 1 && (src.data[0] == '[' || src.data[0] == '{' || src.data[0] == '"')) {
            size_t cut = test_rand(&s) % src.len;
            if (ig_json_parse(&d, (const char *)src.data, cut, NULL) != -EINVAL) {
                fprintf(stderr, "  prefix accepted: %.*s\n", (int)cut, (char *)src.data);
                bad++;
            }
        }
        free(got);
        ig_buf_free(&src);
        ig_buf_free(&canon);
    }
    CHECK_EQ_INT(bad, 0);
    ig_json_doc_free(&d);
}

TEST_MAIN(T(test_every_type), T(test_string_escapes), T(test_invalid_strings),
          T(test_invalid_syntax), T(test_error_messages), T(test_depth_limit),
          T(test_duplicate_keys), T(test_object_get_order), T(test_doc_reuse),
          T(test_numbers_to_types), T(test_random_documents))
