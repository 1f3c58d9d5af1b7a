#include "cli_json.h"
#include "format/model/render.h"
#include "util/buf.h"

#include <string.h>

void cli_json_string_n(FILE *f, const char *s, size_t n)
{
    struct ig_buf b = IG_BUF_INIT;
    if (ig_render_json_string(&b, (const uint8_t *)s, n) == 0) fwrite(b.data, 1, b.len, f);
    ig_buf_free(&b);
}

void cli_json_string(FILE *f, const char *s) { cli_json_string_n(f, s, strlen(s)); }
