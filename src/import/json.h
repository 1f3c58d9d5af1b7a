/* json.h - strict RFC 8259 JSON parser producing a small flat DOM.
 *
 * One call parses one complete JSON text (a JSON Lines line). The DOM is an
 * array of nodes linked by indices; a document is reused across lines and
 * ig_json_parse keeps its allocations, so steady-state parsing allocates
 * nothing.
 *
 * Strictness (each is an error, not a repair):
 *   - anything but one value surrounded by optional JSON whitespace (space,
 *     tab, CR, LF): empty input, trailing garbage, a second value;
 *   - trailing commas, single quotes, comments, NaN/Infinity, unquoted keys;
 *   - numbers outside the grammar: leading zeros ("01"), "+1", ".5", "1.",
 *     "1e", hex;
 *   - in strings: unescaped control characters (< 0x20), unknown escapes,
 *     malformed \u escapes, unpaired UTF-16 surrogates, invalid UTF-8;
 *   - duplicate keys within one object (compared after unescaping);
 *   - nesting deeper than IG_JSON_MAX_DEPTH arrays/objects.
 * Messages read "column N: ..." where N is the 1-based byte column in the
 * input; callers prefix "PATH:LINE: ".
 *
 * Lifetime: string, key and number pointers point into the input text when
 * no unescaping was needed and into the document otherwise, so nodes are
 * valid until the next ig_json_parse/ig_json_doc_free AND only while the
 * input text is alive and unchanged. Strings may contain NUL (from \u0000):
 * always use the lengths. */
#ifndef IG_IMPORT_JSON_H
#define IG_IMPORT_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ig_error;

#define IG_JSON_MAX_DEPTH 64
#define IG_JSON_NONE      UINT32_MAX /* "no node" index */

enum ig_json_type {
    IG_JSON_NULL,
    IG_JSON_FALSE,
    IG_JSON_TRUE,
    IG_JSON_NUMBER,
    IG_JSON_STRING,
    IG_JSON_ARRAY,
    IG_JSON_OBJECT,
};

struct ig_json_node {
    enum ig_json_type type;
    uint32_t count;        /* array elements / object members */
    uint32_t first_child;  /* index of the first element/member, or IG_JSON_NONE */
    uint32_t next_sibling; /* next element/member of the parent, or IG_JSON_NONE */
    uint32_t hint;         /* objects: where ig_json_object_get searches first */
    const char *str;       /* NUMBER: raw text; STRING: unescaped UTF-8 */
    size_t len;
    const char *key;       /* member of an OBJECT: its unescaped key; else NULL */
    size_t keylen;
    size_t off;            /* 0-based byte offset of the value in the input */
    size_t key_off;        /* member of an OBJECT: offset of its key's opening quote */
};

struct ig_json_doc {
    struct ig_json_node *nodes; /* nodes[0] is the root after a successful parse */
    uint32_t nnodes, cap;
    char *arena; /* unescaped strings */
    size_t arena_len, arena_cap;
    uint32_t *dup_tab; /* hash set for duplicate-key checks in large objects */
    size_t dup_cap;
};

void ig_json_doc_init(struct ig_json_doc *d);
void ig_json_doc_free(struct ig_json_doc *d);

/* Parse s[0..n) (need not be NUL-terminated). 0, -EINVAL (syntax, with
 * "column N: ..." in err) or -ENOMEM. On failure the document is empty. */
int ig_json_parse(struct ig_json_doc *d, const char *s, size_t n, struct ig_error *err);

/* Root value; NULL if the last parse failed or nothing was parsed. */
const struct ig_json_node *ig_json_root(const struct ig_json_doc *d);
/* Children of an array/object, and iteration; NULL at the end. */
const struct ig_json_node *ig_json_first_child(const struct ig_json_doc *d,
                                               const struct ig_json_node *n);
const struct ig_json_node *ig_json_next_sibling(const struct ig_json_doc *d,
                                                const struct ig_json_node *n);

/* Member of object `obj` with key key[0..keylen), or NULL (also NULL when obj
 * is not an object). Linear scan that starts after the previous hit, so
 * looking up columns in the order they appear in each line costs O(1) per
 * lookup. Updates obj->hint, hence the non-const document. */
const struct ig_json_node *ig_json_object_get(struct ig_json_doc *d,
                                              const struct ig_json_node *obj, const char *key,
                                              size_t keylen);

/* Number conversions for typed columns. The node must be a NUMBER (else
 * -EINVAL "expected a number, got string"). Integer targets reject fractions
 * and exponents ("1.0", "1e3": -EINVAL "not an integer") and values that do
 * not fit (-ERANGE); nothing is ever truncated or wrapped. Float targets
 * round to nearest; values beyond the type's range become +-inf. Messages
 * start with "column N: ". */
int ig_json_number_i64(const struct ig_json_node *n, int64_t *v, struct ig_error *err);
int ig_json_number_u64(const struct ig_json_node *n, uint64_t *v, struct ig_error *err);
int ig_json_number_int_range(const struct ig_json_node *n, int64_t min, int64_t max, int64_t *v,
                             struct ig_error *err);
int ig_json_number_uint_range(const struct ig_json_node *n, uint64_t min, uint64_t max,
                              uint64_t *v, struct ig_error *err);
int ig_json_number_f64(const struct ig_json_node *n, double *v, struct ig_error *err);
int ig_json_number_f32(const struct ig_json_node *n, float *v, struct ig_error *err);

/* "null", "string", ... for messages. */
const char *ig_json_type_name(enum ig_json_type t);

#endif
