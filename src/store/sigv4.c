/* sigv4.c - AWS Signature Version 4 (sigv4.h). */
#include "store/sigv4.h"
#include "util/buf.h"
#include "util/sha256.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_HEADERS 32

bool ig_sigv4_sign(const char *method, const char *path, const char *query,
                   const struct ig_sigv4_header *h, size_t n, const char *payload_hash,
                   const struct ig_sigv4_key *key, const char *amz_date, char *out, size_t cap)
{
    if (n > MAX_HEADERS || strlen(amz_date) != 16) return false;
    const struct ig_sigv4_header *sorted[MAX_HEADERS];
    for (size_t i = 0; i < n; i++)
        sorted[i] = &h[i];
    /* names sorted bytewise as whole names (a prefix first) */
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && strcmp(sorted[j - 1]->name, sorted[j]->name) > 0; j--) {
            const struct ig_sigv4_header *t = sorted[j];
            sorted[j] = sorted[j - 1];
            sorted[j - 1] = t;
        }
    for (size_t i = 1; i < n; i++)
        if (!strcmp(sorted[i - 1]->name, sorted[i]->name)) return false;
    struct ig_buf creq = IG_BUF_INIT, names = IG_BUF_INIT;
    int rc = ig_buf_printf(&creq, "%s\n%s\n%s\n", method, path && *path ? path : "/",
                           query ? query : "");
    for (size_t i = 0; i < n && !rc; i++) {
        rc = ig_buf_printf(&creq, "%s:%s\n", sorted[i]->name, sorted[i]->value);
        if (!rc) rc = ig_buf_printf(&names, "%s%s", i ? ";" : "", sorted[i]->name);
    }
    if (!rc)
        rc = ig_buf_printf(&creq, "\n%s\n%s", names.len ? (const char *)names.data : "",
                           payload_hash);
    bool ok = false;
    if (!rc) {
        uint8_t d[IG_SHA256_LEN];
        char dhex[2 * IG_SHA256_LEN + 1];
        ig_sha256(creq.data, creq.len, d);
        ig_hex(d, sizeof d, dhex);
        char day[9], scope[256], sts[512];
        memcpy(day, amz_date, 8);
        day[8] = '\0';
        int sl =
            snprintf(scope, sizeof scope, "%s/%s/%s/aws4_request", day, key->region, key->service);
        int tl = snprintf(sts, sizeof sts, "AWS4-HMAC-SHA256\n%s\n%s\n%s", amz_date, scope, dhex);
        char kstart[300];
        int kl = snprintf(kstart, sizeof kstart, "AWS4%s", key->secret_key);
        if (sl > 0 && (size_t)sl < sizeof scope && tl > 0 && (size_t)tl < sizeof sts && kl > 0 &&
            (size_t)kl < sizeof kstart) {
            uint8_t k1[32], k2[32], k3[32], k4[32], sig[32];
            ig_hmac_sha256(kstart, (size_t)kl, day, 8, k1);
            ig_hmac_sha256(k1, 32, key->region, strlen(key->region), k2);
            ig_hmac_sha256(k2, 32, key->service, strlen(key->service), k3);
            ig_hmac_sha256(k3, 32, "aws4_request", 12, k4);
            ig_hmac_sha256(k4, 32, sts, (size_t)tl, sig);
            char shex[65];
            ig_hex(sig, sizeof sig, shex);
            int ol = snprintf(out, cap,
                              "AWS4-HMAC-SHA256 Credential=%s/%s, SignedHeaders=%s, Signature=%s",
                              key->access_key, scope, (const char *)names.data, shex);
            ok = ol > 0 && (size_t)ol < cap;
            memset(k1, 0, sizeof k1);
            memset(kstart, 0, sizeof kstart);
        }
    }
    ig_buf_free(&creq);
    ig_buf_free(&names);
    return ok;
}
