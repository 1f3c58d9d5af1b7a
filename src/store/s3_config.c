/* s3_config.c - credentials, region and endpoint as the AWS tools take them (s3_config.h). */
#include "store/s3_config.h"
#include "util/error.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *trim(const char *s, const char *end, const char **out_end)
{
    while (s < end && (*s == ' ' || *s == '\t' || *s == '\r'))
        s++;
    while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
        end--;
    *out_end = end;
    return s;
}

bool ig_ini_get(const char *text, size_t len, const char *section, const char *key, char *out,
                size_t cap)
{
    const char *p = text, *end = text + len;
    bool in_section = false;
    size_t klen = strlen(key), slen = strlen(section);
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *line_end = nl ? nl : end;
        bool indented = p < line_end && (*p == ' ' || *p == '\t');
        const char *e;
        const char *s = trim(p, line_end, &e);
        p = nl ? nl + 1 : end;
        if (s == e || *s == '#' || *s == ';') continue;
        if (*s == '[') {
            const char *close = memchr(s, ']', (size_t)(e - s));
            if (!close) {
                in_section = false;
                continue;
            }
            const char *ne;
            const char *n = trim(s + 1, close, &ne);
            in_section = (size_t)(ne - n) == slen && !memcmp(n, section, slen);
            continue;
        }
        /* an indented line belongs to a nested block (`s3 =` settings) */
        if (!in_section || indented) continue;
        const char *eq = memchr(s, '=', (size_t)(e - s));
        if (!eq) continue;
        const char *ke;
        const char *k = trim(s, eq, &ke);
        if ((size_t)(ke - k) != klen || memcmp(k, key, klen)) continue;
        const char *ve;
        const char *v = trim(eq + 1, e, &ve);
        size_t n = (size_t)(ve - v);
        if (cap == 0) return true;
        if (n >= cap) n = cap - 1;
        memcpy(out, v, n);
        out[n] = '\0';
        return true;
    }
    return false;
}

static const char *env_or_null(ig_s3_getenv_fn fn, void *ctx, const char *name)
{
    const char *v = fn(ctx, name);
    return v && *v ? v : NULL;
}

/* A whole small file into a malloc'd buffer; NULL when absent or too large. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "re");
    if (!f) return NULL;
    size_t cap = 1 << 20, n = 0;
    char *buf = malloc(cap);
    if (buf) n = fread(buf, 1, cap, f);
    bool too_big = buf && n == cap;
    fclose(f);
    if (!buf || too_big) {
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

static void file_path(ig_s3_getenv_fn fn, void *ctx, const char *var, const char *leaf, char *out,
                      size_t cap)
{
    const char *v = env_or_null(fn, ctx, var);
    if (v) {
        snprintf(out, cap, "%s", v);
        return;
    }
    const char *home = env_or_null(fn, ctx, "HOME");
    if (home)
        snprintf(out, cap, "%s/.aws/%s", home, leaf);
    else
        out[0] = '\0';
}

static bool copy_value(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(src);
    if (n >= cap) return false;
    memcpy(dst, src, n + 1);
    return true;
}

/* Look key up in the profile: credentials file [NAME], then config file
 * [profile NAME] (or [default] for the default profile). */
static bool profile_get(const char *creds, size_t clen, const char *conf, size_t flen,
                        const char *profile, const char *key, char *out, size_t cap)
{
    if (creds && ig_ini_get(creds, clen, profile, key, out, cap)) return true;
    if (!conf) return false;
    char section[160];
    snprintf(section, sizeof section, "profile %s", profile);
    if (ig_ini_get(conf, flen, section, key, out, cap)) return true;
    return !strcmp(profile, "default") && ig_ini_get(conf, flen, "default", key, out, cap);
}

static int check_endpoint(struct ig_s3_config *c, struct ig_error *err)
{
    size_t n = strlen(c->endpoint);
    while (n > 0 && c->endpoint[n - 1] == '/')
        c->endpoint[--n] = '\0';
    if (strncmp(c->endpoint, "http://", 7) && strncmp(c->endpoint, "https://", 8))
        return ig_err(err, -EINVAL, "S3 endpoint '%s' must start with http:// or https://",
                      c->endpoint);
    const char *host = strstr(c->endpoint, "://") + 3;
    if (!*host || strchr(host, '/') || strchr(host, '?') || strchr(host, '#'))
        return ig_err(err, -EINVAL, "S3 endpoint '%s': expected scheme://host[:port]", c->endpoint);
    for (const char *p = c->endpoint; *p; p++)
        if ((unsigned char)*p <= ' ' || *p == '"' || *p == '\\')
            return ig_err(err, -EINVAL, "S3 endpoint '%s' holds a space or quote", c->endpoint);
    return 0;
}

int ig_s3_config_load_from(struct ig_s3_config *c, ig_s3_getenv_fn fn, void *ctx,
                           struct ig_error *err)
{
    memset(c, 0, sizeof *c);
    const char *profile = env_or_null(fn, ctx, "AWS_PROFILE");
    if (!profile) profile = env_or_null(fn, ctx, "AWS_DEFAULT_PROFILE");
    if (!profile) profile = "default";
    char cpath[4096], fpath[4096];
    file_path(fn, ctx, "AWS_SHARED_CREDENTIALS_FILE", "credentials", cpath, sizeof cpath);
    file_path(fn, ctx, "AWS_CONFIG_FILE", "config", fpath, sizeof fpath);
    size_t clen = 0, flen = 0;
    char *creds = cpath[0] ? slurp(cpath, &clen) : NULL;
    char *conf = fpath[0] ? slurp(fpath, &flen) : NULL;
    int rc = 0;

    const char *ak = env_or_null(fn, ctx, "AWS_ACCESS_KEY_ID");
    const char *sk = env_or_null(fn, ctx, "AWS_SECRET_ACCESS_KEY");
    if (ak && sk) {
        const char *tok = env_or_null(fn, ctx, "AWS_SESSION_TOKEN");
        if (!copy_value(c->access_key, sizeof c->access_key, ak) ||
            !copy_value(c->secret_key, sizeof c->secret_key, sk) ||
            (tok && !copy_value(c->session_token, sizeof c->session_token, tok)))
            rc = ig_err(err, -EINVAL, "AWS credentials in the environment are too long");
        snprintf(c->source, sizeof c->source, "the environment");
    } else {
        snprintf(c->profile, sizeof c->profile, "%s", profile);
        bool have = profile_get(creds, clen, conf, flen, profile, "aws_access_key_id",
                                c->access_key, sizeof c->access_key) &&
                    profile_get(creds, clen, conf, flen, profile, "aws_secret_access_key",
                                c->secret_key, sizeof c->secret_key);
        (void)profile_get(creds, clen, conf, flen, profile, "aws_session_token", c->session_token,
                          sizeof c->session_token);
        if (!have || !c->access_key[0] || !c->secret_key[0])
            rc = ig_err(
                err, -ENOKEY,
                "no S3 credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or give "
                "profile '%s' aws_access_key_id and aws_secret_access_key in %s",
                profile, cpath[0] ? cpath : "~/.aws/credentials");
        snprintf(c->source, sizeof c->source, "profile %.50s", profile);
    }
    if (!rc) {
        const char *region = env_or_null(fn, ctx, "AWS_REGION");
        if (!region) region = env_or_null(fn, ctx, "AWS_DEFAULT_REGION");
        if (region)
            snprintf(c->region, sizeof c->region, "%s", region);
        else if (!profile_get(NULL, 0, conf, flen, profile, "region", c->region,
                              sizeof c->region) ||
                 !c->region[0])
            snprintf(c->region, sizeof c->region, "us-east-1");
        for (const char *p = c->region; *p && !rc; p++)
            if (!isalnum((unsigned char)*p) && *p != '-')
                rc = ig_err(err, -EINVAL, "AWS region '%s' is not a region name", c->region);
    }
    if (!rc) {
        const char *ep = env_or_null(fn, ctx, "AWS_ENDPOINT_URL_S3");
        if (!ep) ep = env_or_null(fn, ctx, "AWS_ENDPOINT_URL");
        if (ep) {
            if (!copy_value(c->endpoint, sizeof c->endpoint, ep))
                rc = ig_err(err, -EINVAL, "S3 endpoint URL too long");
            c->path_style = true;
        } else if (profile_get(NULL, 0, conf, flen, profile, "endpoint_url", c->endpoint,
                               sizeof c->endpoint) &&
                   c->endpoint[0]) {
            c->path_style = true;
        } else {
            snprintf(c->endpoint, sizeof c->endpoint, "https://s3.%s.amazonaws.com", c->region);
            c->path_style = false;
        }
        if (!rc) rc = check_endpoint(c, err);
    }
    free(creds);
    free(conf);
    return rc;
}

static const char *real_getenv(void *ctx, const char *name)
{
    (void)ctx;
    return getenv(name);
}

int ig_s3_config_load(struct ig_s3_config *c, struct ig_error *err)
{
    return ig_s3_config_load_from(c, real_getenv, NULL, err);
}

int ig_s3_url_split(const char *url, char *bucket, size_t bcap, char *prefix, size_t pcap,
                    struct ig_error *err)
{
    if (strncmp(url, "s3://", 5)) return ig_err(err, -EINVAL, "%s: not an s3:// URL", url);
    const char *b = url + 5, *slash = strchr(b, '/');
    size_t blen = slash ? (size_t)(slash - b) : strlen(b);
    if (blen < 3 || blen > 63 || blen >= bcap)
        return ig_err(err, -EINVAL, "%s: a bucket name has 3 to 63 characters", url);
    for (size_t i = 0; i < blen; i++)
        if (!isalnum((unsigned char)b[i]) && b[i] != '-' && b[i] != '.' && b[i] != '_')
            return ig_err(err, -EINVAL, "%s: bucket names hold letters, digits, '.', '-' and '_'",
                          url);
    memcpy(bucket, b, blen);
    bucket[blen] = '\0';
    const char *p = slash ? slash + 1 : "";
    size_t plen = strlen(p);
    while (plen > 0 && p[plen - 1] == '/')
        plen--;
    if (plen >= pcap) return ig_err(err, -ENAMETOOLONG, "%s: prefix too long", url);
    for (size_t i = 0; i < plen; i++) {
        unsigned char ch = (unsigned char)p[i];
        if (ch < 0x20 || ch == 0x7f)
            return ig_err(err, -EINVAL, "%s: control characters in the prefix", url);
        /* "a//b", "/./", "/../": keys a file system would read differently */
        bool seg_start = i == 0 || p[i - 1] == '/';
        if (seg_start &&
            (ch == '/' || (ch == '.' && (i + 1 == plen || p[i + 1] == '/')) ||
             (ch == '.' && i + 1 < plen && p[i + 1] == '.' && (i + 2 == plen || p[i + 2] == '/'))))
            return ig_err(err, -EINVAL, "%s: empty, '.' or '..' parts in the prefix", url);
    }
    memcpy(prefix, p, plen);
    prefix[plen] = '\0';
    return 0;
}
