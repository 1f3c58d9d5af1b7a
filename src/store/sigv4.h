/* sigv4.h - AWS Signature Version 4 for one request.
 *
 * Signed here rather than by curl (CURLOPT_AWS_SIGV4): curl 7.88, Debian 12's,
 * sorts the signed header names with their colon attached, so
 * "x-amz-copy-source-range" comes before "x-amz-copy-source" and every
 * server-side copy of a range is refused (SignatureDoesNotMatch); it also
 * signs a query string as given. Here the caller gives the canonical parts:
 * the URI path already encoded (S3 encodes it once), the query already sorted
 * and encoded, and every header to sign. */
#ifndef IG_STORE_SIGV4_H
#define IG_STORE_SIGV4_H

#include <stdbool.h>
#include <stddef.h>

struct ig_sigv4_header {
    const char *name;  /* lowercase */
    const char *value; /* no leading or trailing spaces */
};

struct ig_sigv4_key {
    const char *access_key, *secret_key, *region, *service;
};

/* The Authorization header's value (without "Authorization: ") for a request
 * signed at amz_date ("YYYYMMDDTHHMMSSZ", also given as the x-amz-date header
 * among h) over a payload of hash payload_hash ("UNSIGNED-PAYLOAD" or 64 hex
 * digits). False when out (cap) is too small or a header name repeats. */
bool ig_sigv4_sign(const char *method, const char *path, const char *query,
                   const struct ig_sigv4_header *h, size_t n, const char *payload_hash,
                   const struct ig_sigv4_key *key, const char *amz_date, char *out, size_t cap);

#endif
