#include "format/model/names.h"

#include <stdio.h>
#include <string.h>

static const char *const suffixes[] = {[FS_V_TEXT] = "",
                                       [FS_V_NPY] = ".npy",
                                       [FS_V_VALID] = ".valid.npy",
                                       [FS_V_ROWID] = ".npy",
                                       [FS_V_VALUES] = ".values.npy",
                                       [FS_V_OFFSETS] = ".offsets.npy",
                                       [FS_V_F16] = ".f16.npy",
                                       [FS_V_PARQUET] = ".parquet"};

const char *fs_view_suffix(enum fs_view v) { return v < FS_V_COUNT ? suffixes[v] : ""; }

static bool ends_with(const char *s, size_t n, const char *suf)
{
    size_t m = strlen(suf);
    return n >= m && memcmp(s + n - m, suf, m) == 0;
}

/* Longest suffix the views add, so an escaped name plus suffix fits NAME_MAX. */
#define LONGEST_SUFFIX 10 /* ".valid.npy" */

size_t fs_escape_name(const char *name, size_t len, char *out, size_t cap)
{
    /* where a suffix-like ending starts: its '.' gets escaped */
    static const char *const view_stems[] = {".npy", ".valid", ".values", ".offsets", ".f16"};
    size_t dot_at = (size_t)-1;
    for (size_t k = 0; k < sizeof view_stems / sizeof view_stems[0]; k++)
        if (ends_with(name, len, view_stems[k])) dot_at = len - strlen(view_stems[k]);
    bool dots_only = (len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.');
    bool rowid = len == 6 && memcmp(name, "_rowid", 6) == 0;
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        char c = name[i];
        const char *esc = NULL;
        if (c == '%')
            esc = "%25";
        else if (c == '/')
            esc = "%2F";
        else if (c == '.' && (dots_only || i == dot_at))
            esc = "%2E";
        else if (rowid && i == 0)
            esc = "%5F";
        size_t need = esc ? 3 : 1;
        if (o + need >= cap) return 0;
        if (esc) {
            memcpy(out + o, esc, 3);
        } else {
            out[o] = c;
        }
        o += need;
    }
    if (o + LONGEST_SUFFIX > FS_NAME_MAX) return 0;
    out[o] = '\0';
    return o;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1; /* only upper-case escapes are canonical */
}

bool fs_parse_column_file(const char *file, char *out, size_t cap, size_t *out_len,
                          enum fs_view *view)
{
    size_t n = strlen(file);
    *view = FS_V_TEXT;
    static const enum fs_view multi[] = {FS_V_VALID, FS_V_VALUES, FS_V_OFFSETS, FS_V_F16};
    for (size_t k = 0; k < sizeof multi / sizeof multi[0]; k++) {
        const char *suf = suffixes[multi[k]];
        if (ends_with(file, n, suf)) {
            *view = multi[k];
            n -= strlen(suf);
            goto unescape;
        }
    }
    if (ends_with(file, n, ".npy")) {
        *view = FS_V_NPY;
        n -= 4;
    }
unescape:;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        char c = file[i];
        if (c == '%') {
            if (i + 2 >= n) return false;
            int hi = hexval(file[i + 1]), lo = hexval(file[i + 2]);
            if (hi < 0 || lo < 0) return false;
            c = (char)(hi << 4 | lo);
            i += 2;
        }
        if (o + 1 >= cap) return false;
        out[o++] = c;
    }
    out[o] = '\0';
    *out_len = o;
    /* canonical? re-escape and compare */
    char again[3 * FS_NAME_MAX + 1];
    size_t m = fs_escape_name(out, o, again, sizeof again);
    return m == n && memcmp(again, file, n) == 0;
}

void ig_blob_dir_name(const char *name, size_t len, char *out, size_t cap)
{
    char esc[3 * FS_NAME_MAX + 1];
    size_t n = fs_escape_name(name, len, esc, sizeof esc);
    snprintf(out, cap, "blobs/%s", n ? esc : "?");
}
