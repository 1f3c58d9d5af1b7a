/* s3_http.c - the S3 client's transport: a request's URL and headers,
 * signed afresh for each try (sigv4.c), sent over pooled curl multi handles
 * `parallel` at a time, retried with backoff, bounded in connect time and
 * in how long an answer may stall, and its failure explained as an errno and
 * a message. It knows nothing of what a request is for: the operations are
 * s3.c, s3_list.c and s3_mpu.c (s3_int.h). */
#include "store/curl_lib.h"
#include "store/s3.h"
#include "store/s3_int.h"
#include "store/s3_xml.h"
#include "store/sigv4.h"
#include "util/buf.h"
#include "util/error.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define IDLE_SETS    32          /* connection sets kept warm */
#define ERR_BODY_MAX (64u << 10) /* what is kept of an error answer */

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void s3_conn_free(struct conn *c)
{
    for (int i = 0; i < MAX_PARALLEL; i++)
        if (c->easy[i]) ig_curl.easy_cleanup(c->easy[i]);
    if (c->multi) ig_curl.multi_cleanup(c->multi);
    free(c);
}

static struct conn *conn_get(struct ig_s3 *s3)
{
    pthread_mutex_lock(&s3->mu);
    struct conn *c = s3->idle;
    if (c) {
        s3->idle = c->next;
        s3->nidle--;
    }
    pthread_mutex_unlock(&s3->mu);
    if (c) return c;
    c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->multi = ig_curl.multi_init();
    if (!c->multi) {
        free(c);
        return NULL;
    }
    ig_curl.multi_setopt(c->multi, CURLMOPT_MAXCONNECTS, (long)MAX_PARALLEL);
    return c;
}

static void conn_put(struct ig_s3 *s3, struct conn *c)
{
    pthread_mutex_lock(&s3->mu);
    if (s3->nidle < IDLE_SETS) {
        c->next = s3->idle;
        s3->idle = c;
        s3->nidle++;
        c = NULL;
    }
    pthread_mutex_unlock(&s3->mu);
    if (c) s3_conn_free(c);
}

bool ig_s3_uri_encode(const char *s, bool keep_slash, char *out, size_t cap)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        unsigned char ch = *p;
        bool plain = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
                     (ch >= '0' && ch <= '9') || ch == '-' || ch == '.' || ch == '_' || ch == '~' ||
                     (keep_slash && ch == '/');
        if (plain) {
            if (o + 1 >= cap) return false;
            out[o++] = (char)ch;
        } else {
            if (o + 3 >= cap) return false;
            out[o++] = '%';
            out[o++] = hex[ch >> 4];
            out[o++] = hex[ch & 15];
        }
    }
    if (cap == 0) return false;
    out[o] = '\0';
    return true;
}

/* The request's URL: path-style ENDPOINT/BUCKET/KEY, or BUCKET.HOST/KEY;
 * query already canonical (sorted by name, values encoded). */
static int make_url(struct ig_s3 *s3, struct xfer *x, const char *bucket, const char *key,
                    const char *query, struct ig_error *err)
{
    char ekey[3 * IG_S3_KEY_LEN_MAX + 1] = "";
    if (key &&
        (strlen(key) >= IG_S3_KEY_LEN_MAX || !ig_s3_uri_encode(key, true, ekey, sizeof ekey)))
        return ig_err(err, -ENAMETOOLONG, "s3://%s/%.100s...: key too long", bucket, key);
    const char *sep = strstr(s3->cfg.endpoint, "://");
    int scheme_len = (int)(sep - s3->cfg.endpoint);
    int n, hn, qn;
    if (s3->cfg.path_style) {
        hn = snprintf(x->host, sizeof x->host, "%s", sep + 3);
        n = snprintf(x->path, sizeof x->path, "/%s%s%s", bucket, key ? "/" : "", ekey);
    } else {
        hn = snprintf(x->host, sizeof x->host, "%s.%s", bucket, sep + 3);
        n = snprintf(x->path, sizeof x->path, "/%s", ekey);
    }
    qn = snprintf(x->query, sizeof x->query, "%s", query ? query : "");
    if (n < 0 || (size_t)n >= sizeof x->path || hn < 0 || (size_t)hn >= sizeof x->host || qn < 0 ||
        (size_t)qn >= sizeof x->query)
        return ig_err(err, -ENAMETOOLONG, "s3://%s: URL too long", bucket);
    n = snprintf(x->url, sizeof x->url, "%.*s://%s%s%s%s", scheme_len, s3->cfg.endpoint, x->host,
                 x->path, query ? "?" : "", query ? query : "");
    if (n < 0 || (size_t)n >= sizeof x->url)
        return ig_err(err, -ENAMETOOLONG, "s3://%s: URL too long", bucket);
    return 0;
}

/* A header of the request: "name: value" (the name is lowercased, as it is signed). */
int s3_add_header(struct xfer *x, const char *h)
{
    const char *colon = strchr(h, ':');
    if (!colon || x->nhdr == MAX_HEADERS || (size_t)(colon - h) >= 48) return -ENOMEM;
    char *name = strndup(h, (size_t)(colon - h));
    const char *v = colon + 1;
    while (*v == ' ')
        v++;
    char *value = strdup(v);
    if (!name || !value) {
        free(name);
        free(value);
        return -ENOMEM;
    }
    for (char *p = name; *p; p++)
        if (*p >= 'A' && *p <= 'Z') *p = (char)(*p - 'A' + 'a');
    x->hdr[x->nhdr].name = name;
    x->hdr[x->nhdr].value = value;
    x->nhdr++;
    return 0;
}

void s3_xfer_free(struct xfer *x)
{
    ig_curl.slist_free_all(x->headers);
    x->headers = NULL;
    for (size_t i = 0; i < x->nhdr; i++) {
        free((char *)x->hdr[i].name);
        free((char *)x->hdr[i].value);
    }
    x->nhdr = 0;
    ig_buf_free(&x->errbody);
}

/* A request; the headers every one carries are added when it is signed. */
int s3_xfer_init(struct ig_s3 *s3, struct xfer *x, const char *method, const char *bucket,
                 const char *key, const char *query, struct ig_error *err)
{
    memset(x, 0, sizeof *x);
    x->s3 = s3;
    x->method = method;
    x->bucket = bucket;
    x->key = key;
    return make_url(s3, x, bucket, key, query, err);
}

/* The headers of this try, signed now (x-amz-date is the time of the try). */
static int sign(struct xfer *x)
{
    struct ig_s3 *s3 = x->s3;
    ig_curl.slist_free_all(x->headers);
    x->headers = NULL;
    char date[20];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%Y%m%dT%H%M%SZ", &tm);
    struct ig_sigv4_header all[MAX_HEADERS + 4];
    size_t n = 0;
    all[n++] = (struct ig_sigv4_header){"host", x->host};
    all[n++] = (struct ig_sigv4_header){"x-amz-date", date};
    /* the payload is not hashed (a multi-gigabyte part would be read twice);
     * radosgw assumes this when the header is missing, AWS needs it said */
    all[n++] = (struct ig_sigv4_header){"x-amz-content-sha256", "UNSIGNED-PAYLOAD"};
    if (s3->cfg.session_token[0])
        all[n++] = (struct ig_sigv4_header){"x-amz-security-token", s3->cfg.session_token};
    for (size_t i = 0; i < x->nhdr; i++)
        all[n++] = x->hdr[i];
    struct ig_sigv4_key key = {s3->cfg.access_key, s3->cfg.secret_key, s3->cfg.region, "s3"};
    char auth[1024];
    if (!ig_sigv4_sign(x->method, x->path, x->query, all, n, "UNSIGNED-PAYLOAD", &key, date, auth,
                       sizeof auth))
        return -EINVAL;
    struct ig_buf line = IG_BUF_INIT;
    int rc = 0;
    for (size_t i = 0; i <= n && !rc; i++) {
        ig_buf_reset(&line);
        if (i == n)
            rc = ig_buf_printf(&line, "Authorization: %s", auth);
        else
            rc = ig_buf_printf(&line, "%s: %s", all[i].name, all[i].value);
        if (!rc && ig_buf_append_byte(&line, 0)) rc = -ENOMEM;
        struct curl_slist *l = rc ? NULL : ig_curl.slist_append(x->headers, (const char *)line.data);
        if (!l)
            rc = -ENOMEM;
        else
            x->headers = l;
    }
    /* curl's own: the body's type is not the form encoding curl assumes for POST */
    if (!rc) {
        struct curl_slist *l = ig_curl.slist_append(x->headers, "Accept:");
        if (l) x->headers = l;
    }
    ig_buf_free(&line);
    return rc;
}

static size_t on_header(char *p, size_t size, size_t nmemb, void *ud)
{
    struct xfer *x = ud;
    size_t n = size * nmemb;
    if (n >= 5 &&
        !strncmp(p, "HTTP/", 5)) { /* a new answer (after 100 Continue): forget the last */
        x->etag[0] = x->version_id[0] = '\0';
        x->has_range = x->has_length = false;
        return n;
    }
    const char *colon = memchr(p, ':', n);
    if (!colon) return n;
    size_t nl = (size_t)(colon - p);
    const char *v = colon + 1, *end = p + n;
    while (v < end && (*v == ' ' || *v == '\t'))
        v++;
    while (end > v && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' '))
        end--;
    size_t vl = (size_t)(end - v);
    char val[512];
    if (vl >= sizeof val) return n;
    memcpy(val, v, vl);
    val[vl] = '\0';
    if (nl == 4 && !strncasecmp(p, "etag", 4)) {
        const char *e = val;
        size_t el = vl;
        if (el >= 2 && e[0] == '"' && e[el - 1] == '"') e++, el -= 2;
        if (el < sizeof x->etag) {
            memcpy(x->etag, e, el);
            x->etag[el] = '\0';
        }
    } else if (nl == 16 && !strncasecmp(p, "x-amz-version-id", 16)) {
        if (vl < sizeof x->version_id) memcpy(x->version_id, val, vl + 1);
    } else if (nl == 13 && !strncasecmp(p, "content-range", 13)) {
        unsigned long long a, b, t;
        if (sscanf(val, "bytes %llu-%llu/%llu", &a, &b, &t) == 3 && a <= b && b < t) {
            x->has_range = true;
            x->range_first = a;
            x->range_last = b;
            x->range_total = t;
        }
    } else if (nl == 14 && !strncasecmp(p, "content-length", 14)) {
        char *e;
        unsigned long long cl = strtoull(val, &e, 10);
        if (!*e && vl) {
            x->content_length = cl;
            x->has_length = true;
        }
    }
    return n;
}

static size_t on_body(char *p, size_t size, size_t nmemb, void *ud)
{
    struct xfer *x = ud;
    size_t n = size * nmemb;
    long code = 0;
    ig_curl.easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &code);
    if (code < 200 || code >= 300) { /* an error's explanation */
        if (x->errbody.len < ERR_BODY_MAX) {
            size_t keep = ERR_BODY_MAX - x->errbody.len < n ? ERR_BODY_MAX - x->errbody.len : n;
            if (ig_buf_append(&x->errbody, p, keep)) return 0;
        }
        return n;
    }
    if (x->dst) {
        if (n > x->dst_len - x->got) { /* more than asked for: never written past the buffer */
            x->overflow = true;
            return 0;
        }
        memcpy(x->dst + x->got, p, n);
    } else if (x->out) {
        if (n > x->max - (x->out->len - x->out_start)) {
            x->overflow = true;
            return 0;
        }
        if (ig_buf_append(x->out, p, n)) return 0;
    }
    x->got += n;
    return n;
}

static size_t on_read(char *buf, size_t size, size_t nmemb, void *ud)
{
    struct xfer *x = ud;
    size_t n = size * nmemb, left = x->body_len - x->body_pos;
    if (n > left) n = left;
    memcpy(buf, x->body + x->body_pos, n);
    x->body_pos += n;
    return n;
}

static int on_seek(void *ud, curl_off_t off, int origin)
{
    struct xfer *x = ud;
    if (origin != SEEK_SET || off < 0 || (uint64_t)off > x->body_len) return CURL_SEEKFUNC_FAIL;
    x->body_pos = (size_t)off;
    return CURL_SEEKFUNC_OK;
}

/* Set the easy handle up for x's next try. */
static void xfer_setup(struct xfer *x, CURL *e)
{
    struct ig_s3 *s3 = x->s3;
    ig_curl.easy_reset(e);
    x->sign_failed = false;
    x->easy = e;
    x->got = 0;
    x->overflow = false;
    x->status = 0;
    x->curl_msg[0] = '\0';
    x->etag[0] = x->version_id[0] = '\0';
    x->has_range = x->has_length = false;
    ig_buf_reset(&x->errbody);
    if (x->out) x->out->len = x->out_start;
    x->body_pos = 0;
    ig_curl.easy_setopt(e, CURLOPT_URL, x->url);
    ig_curl.easy_setopt(e, CURLOPT_PRIVATE, x);
    ig_curl.easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    ig_curl.easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
    ig_curl.easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
    ig_curl.easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, s3->connect_ms);
    /* a transfer that moves no byte for stall_s seconds is dropped (and retried) */
    ig_curl.easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, 1L);
    ig_curl.easy_setopt(e, CURLOPT_LOW_SPEED_TIME, x->quiet_s ? x->quiet_s : s3->stall_s);
    ig_curl.easy_setopt(e, CURLOPT_ERRORBUFFER, x->curl_msg);
    if (sign(x)) x->sign_failed = true;
    ig_curl.easy_setopt(e, CURLOPT_HTTPHEADER, x->headers);
    ig_curl.easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
    ig_curl.easy_setopt(e, CURLOPT_HEADERDATA, x);
    ig_curl.easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
    ig_curl.easy_setopt(e, CURLOPT_WRITEDATA, x);
    ig_curl.easy_setopt(e, CURLOPT_BUFFERSIZE, 256L << 10);
    if (!strcmp(x->method, "HEAD")) {
        ig_curl.easy_setopt(e, CURLOPT_NOBODY, 1L);
    } else if (!strcmp(x->method, "PUT")) {
        ig_curl.easy_setopt(e, CURLOPT_UPLOAD, 1L);
        ig_curl.easy_setopt(e, CURLOPT_READFUNCTION, on_read);
        ig_curl.easy_setopt(e, CURLOPT_READDATA, x);
        ig_curl.easy_setopt(e, CURLOPT_SEEKFUNCTION, on_seek);
        ig_curl.easy_setopt(e, CURLOPT_SEEKDATA, x);
        ig_curl.easy_setopt(e, CURLOPT_INFILESIZE_LARGE, (curl_off_t)x->body_len);
    } else if (!strcmp(x->method, "POST")) {
        ig_curl.easy_setopt(e, CURLOPT_POST, 1L);
        ig_curl.easy_setopt(e, CURLOPT_POSTFIELDS, x->body ? (const char *)x->body : "");
        ig_curl.easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)x->body_len);
    } else if (strcmp(x->method, "GET")) {
        ig_curl.easy_setopt(e, CURLOPT_CUSTOMREQUEST, x->method);
    }
}

static bool retryable(const struct xfer *x)
{
    if (x->overflow) return false;
    switch (x->cc) {
    case CURLE_OK:
        return x->status == 500 || x->status == 502 || x->status == 503 || x->status == 504 ||
               x->status == 429;
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_COULDNT_RESOLVE_HOST:
        return true;
    default:
        return false;
    }
}

/* Before try k (1, 2, ...): 100 ms doubling to at most 2 s, +-25 % jitter so
 * parallel retries spread out. */
static int64_t backoff_ms(unsigned k)
{
    int64_t ms = 100LL << (k - 1 < 5 ? k - 1 : 5);
    if (ms > 2000) ms = 2000;
    int64_t jitter = (int64_t)((unsigned)rand() % (unsigned)(ms / 2 + 1)) - ms / 4;
    return ms + jitter;
}

/* Start x on the first free handle of c. */
static void start_on_free_slot(struct conn *c, struct xfer *x, bool *slot_busy)
{
    unsigned s = 0;
    while (slot_busy[s])
        s++;
    slot_busy[s] = true;
    xfer_setup(x, c->easy[s]);
    ig_curl.multi_add_handle(c->multi, c->easy[s]);
}

/* Run xs[0..n) on connection set c, `parallel` at a time, each retried
 * as its failure allows. Every xfer ends with done set. */
static int run(struct ig_s3 *s3, struct conn *c, struct xfer **xs, size_t n)
{
    unsigned par = s3->parallel < n ? s3->parallel : (unsigned)n;
    if (par == 0) return 0;
    bool slot_busy[MAX_PARALLEL] = {0};
    size_t next = 0, waiting_n = 0;
    struct xfer *waiting[64];
    size_t active = 0;
    for (unsigned i = 0; i < par; i++)
        if (!c->easy[i] && !(c->easy[i] = ig_curl.easy_init())) return -ENOMEM;
    for (;;) {
        int64_t now = now_ms(), wake = now + 100;
        /* retries whose time has come first, then fresh transfers */
        for (size_t i = 0; i < waiting_n && active < par;) {
            struct xfer *x = waiting[i];
            if (x->not_before_ms > now) {
                if (x->not_before_ms < wake) wake = x->not_before_ms;
                i++;
                continue;
            }
            waiting[i] = waiting[--waiting_n];
            start_on_free_slot(c, x, slot_busy);
            active++;
        }
        while (next < n && active < par && waiting_n < sizeof waiting / sizeof *waiting) {
            struct xfer *x = xs[next++];
            start_on_free_slot(c, x, slot_busy);
            active++;
        }
        if (active == 0 && waiting_n == 0 && next == n) break;
        int running = 0;
        ig_curl.multi_perform(c->multi, &running);
        CURLMsg *m;
        int queued;
        while ((m = ig_curl.multi_info_read(c->multi, &queued))) {
            if (m->msg != CURLMSG_DONE) continue;
            struct xfer *x = NULL;
            ig_curl.easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&x);
            x->cc = m->data.result;
            ig_curl.easy_getinfo(m->easy_handle, CURLINFO_RESPONSE_CODE, &x->status);
            ig_curl.multi_remove_handle(c->multi, m->easy_handle);
            for (unsigned s = 0; s < par; s++)
                if (c->easy[s] == m->easy_handle) slot_busy[s] = false;
            active--;
            x->tries++;
            atomic_fetch_add(&s3->requests, 1);
            atomic_fetch_add(&s3->bytes_in, x->got);
            if (!strcmp(x->method, "PUT") || !strcmp(x->method, "POST"))
                atomic_fetch_add(&s3->bytes_out, x->body_len);
            if (retryable(x) && x->tries <= s3->retries &&
                waiting_n < sizeof waiting / sizeof *waiting) {
                atomic_fetch_add(&s3->retried, 1);
                x->not_before_ms = now_ms() + backoff_ms(x->tries);
                waiting[waiting_n++] = x;
            } else {
                x->done = true;
            }
        }
        if (active == 0 && waiting_n == 0 && next == n) break;
        int64_t t = wake - now_ms();
        if (t < 0) t = 0;
        if (active)
            ig_curl.multi_poll(c->multi, NULL, 0, (int)t, NULL);
        else if (t > 0)
            nanosleep(&(struct timespec){t / 1000, (long)(t % 1000) * 1000000L}, NULL);
    }
    return 0;
}

int s3_perform(struct ig_s3 *s3, struct xfer **xs, size_t n, struct ig_error *err)
{
    struct conn *c = conn_get(s3);
    if (!c) return ig_err(err, -ENOMEM, "out of memory");
    int rc = run(s3, c, xs, n);
    conn_put(s3, c);
    return rc ? ig_err(err, rc, "out of memory") : 0;
}

int s3_perform1(struct ig_s3 *s3, struct xfer *x, struct ig_error *err)
{
    struct xfer *one[1] = {x};
    return s3_perform(s3, one, 1, err);
}

/* The error of a finished transfer, explained; 0 for a 2xx answer. */
int s3_explain(const struct xfer *x, struct ig_error *err)
{
    const struct ig_s3 *s3 = x->s3;
    const char *b = x->bucket, *k = x->key ? x->key : "";
    const char *slash = x->key ? "/" : "";
    if (x->sign_failed)
        return ig_err(err, -ENOMEM, "s3://%s%s%s: could not sign the request", b, slash, k);
    if (x->overflow)
        return ig_err(err, -EIO, "s3://%s%s%s: the server sent more bytes than asked for", b, slash,
                      k);
    if (x->cc != CURLE_OK) {
        int code = -EIO;
        if (x->cc == CURLE_COULDNT_CONNECT)
            code = -ECONNREFUSED;
        else if (x->cc == CURLE_OPERATION_TIMEDOUT)
            code = -ETIMEDOUT;
        else if (x->cc == CURLE_COULDNT_RESOLVE_HOST)
            code = -EHOSTUNREACH;
        return ig_err(err, code, "s3://%s%s%s: %s: %s (%u tries)", b, slash, k, s3->cfg.endpoint,
                      x->curl_msg[0] ? x->curl_msg : ig_curl.easy_strerror(x->cc), x->tries);
    }
    if (x->status >= 200 && x->status < 300) return 0;
    char code[64] = "", msg[160] = "";
    if (x->errbody.len) {
        (void)ig_xml_get((const char *)x->errbody.data, x->errbody.len, "Code", code, sizeof code);
        (void)ig_xml_get((const char *)x->errbody.data, x->errbody.len, "Message", msg, sizeof msg);
    }
    const char *sep = code[0] ? " " : "";
    switch (x->status) {
    case 304:
        return -EALREADY;
    case 301:
    case 307:
        return ig_err(
            err, -EIO,
            "s3://%s: the bucket is in another region or at another endpoint (HTTP %ld%s%s)", b,
            x->status, sep, code);
    case 400:
        if (!strcmp(code, "AuthorizationHeaderMalformed") || !strcmp(code, "InvalidRegion"))
            return ig_err(
                err, -EACCES,
                "s3://%s: the request was signed for region %s, which the bucket is not in "
                "(%s; set AWS_REGION)",
                b, s3->cfg.region, code);
        break;
    case 401:
    case 403:
        return ig_err(err, -EACCES,
                      "s3://%s%s%s: access denied by %s (HTTP %ld%s%s): check the credentials "
                      "(from %s) and their permissions",
                      b, slash, k, s3->cfg.endpoint, x->status, sep, code, s3->cfg.source);
    case 404:
        if (!strcmp(code, "NoSuchBucket"))
            return ig_err(err, -ENXIO, "s3://%s: no such bucket at %s", b, s3->cfg.endpoint);
        return ig_err(err, -ENOENT, "s3://%s%s%s: no such object", b, slash, k);
    case 409:
        return ig_err(err, -EBUSY, "s3://%s%s%s: conflict (HTTP 409%s%s)", b, slash, k, sep, code);
    case 412:
        return ig_err(err, -ESTALE,
                      "s3://%s%s%s: the object is not the one expected (changed since read)", b,
                      slash, k);
    case 416:
        return ig_err(err, -EIO, "s3://%s%s%s: range past the end of the object (truncated?)", b,
                      slash, k);
    default:
        break;
    }
    if (x->status >= 500)
        return ig_err(err, -EIO, "s3://%s%s%s: server error HTTP %ld%s%s after %u tries", b, slash,
                      k, x->status, sep, code, x->tries);
    return ig_err(err, -EIO, "s3://%s%s%s: HTTP %ld%s%s%s%s", b, slash, k, x->status, sep, code,
                  msg[0] ? ": " : "", msg);
}

void s3_fill_info(const struct xfer *x, struct ig_s3_info *info)
{
    if (!info) return;
    memset(info, 0, sizeof *info);
    snprintf(info->etag, sizeof info->etag, "%s", x->etag);
    snprintf(info->version_id, sizeof info->version_id, "%s", x->version_id);
    if (x->has_range)
        info->size = x->range_total;
    else if (x->has_length)
        info->size = x->content_length;
    info->latest = true;
}
