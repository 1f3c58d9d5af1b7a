/* s3_config.h - where an S3 endpoint is and who we are to it, taken the way
 * the AWS tools take it.
 *
 * Credentials: AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY (+ AWS_SESSION_TOKEN)
 * from the environment when both are set; else the profile AWS_PROFILE (or
 * "default") from the shared credentials file (AWS_SHARED_CREDENTIALS_FILE,
 * default ~/.aws/credentials: sections [NAME]) and then the config file
 * (AWS_CONFIG_FILE, default ~/.aws/config: [profile NAME], or [default]).
 * Region: AWS_REGION, AWS_DEFAULT_REGION, the profile's `region`, else
 * us-east-1. Endpoint: AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, the profile's
 * `endpoint_url`, else AWS's own (https://s3.REGION.amazonaws.com, buckets as
 * host names). An explicit endpoint is addressed path-style
 * (ENDPOINT/BUCKET/KEY), as MinIO, Ceph's radosgw and most other stores want.
 *
 * Parsing is separate from the environment so it can be tested alone. */
#ifndef IG_STORE_S3_CONFIG_H
#define IG_STORE_S3_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

struct ig_error;

#define IG_S3_KEY_MAX   256
#define IG_S3_TOKEN_MAX 4096
#define IG_S3_URL_MAX   512

struct ig_s3_config {
    char endpoint[IG_S3_URL_MAX]; /* scheme://host[:port], no trailing slash */
    bool path_style;              /* ENDPOINT/BUCKET/KEY (else BUCKET.HOST/KEY) */
    char region[64];
    char access_key[IG_S3_KEY_MAX];
    char secret_key[IG_S3_KEY_MAX];
    char session_token[IG_S3_TOKEN_MAX];
    char profile[128]; /* the profile read ("" when the environment had the keys) */
    char source[64];   /* where the keys came from, for messages */
};

/* A value looked up by name (getenv, or a test's table). */
typedef const char *(*ig_s3_getenv_fn)(void *ctx, const char *name);

/* Fill c from the environment and the AWS files. -ENOKEY with a message when
 * no credentials are found; -EINVAL for an unusable endpoint. */
int ig_s3_config_load(struct ig_s3_config *c, struct ig_error *err);
/* The same with the environment given by getenv_fn (files are still read
 * from the paths it names, or under its HOME). */
int ig_s3_config_load_from(struct ig_s3_config *c, ig_s3_getenv_fn getenv_fn, void *ctx,
                           struct ig_error *err);

/* Look key up in section `section` of an INI text (AWS files: `[name]`
 * headers, `key = value` lines, `#` and `;` comments; keys and section names
 * compared exactly, values trimmed). Nested `s3 =` blocks (indented lines)
 * are skipped. Writes at most cap - 1 bytes and a NUL; true when found. */
bool ig_ini_get(const char *text, size_t len, const char *section, const char *key, char *out,
                size_t cap);

/* Split "s3://bucket/prefix/..." into bucket and prefix (no leading or
 * trailing slash; may be empty). -EINVAL with a message for anything else:
 * bucket names are 3 to 63 of [a-z0-9.-]. */
int ig_s3_url_split(const char *url, char *bucket, size_t bcap, char *prefix, size_t pcap,
                    struct ig_error *err);

#endif
