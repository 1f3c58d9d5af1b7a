/* s3.c - the S3 client: requests over pooled curl multi handles, signed by
 * curl's SigV4, retried with backoff, checked, and explained (s3.h). */
#include "store/s3.h"
#include "store/s3_xml.h"
#include "store/sigv4.h"
#include "util/buf.h"
#include "util/error.h"

#include <curl/curl.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define MAX_PARALLEL 32
#define IDLE_SETS    32           /* connection sets kept warm */
#define ERR_BODY_MAX (64u << 10)  /* what is kept of an error answer */
#define PUT_MAX      (5ull << 30) /* one PUT; larger objects go in parts */
#define MAX_HEADERS  12

/* A connection set: one multi handle (it owns the kept-alive connections)
 * and the easy handles its transfers use. */
struct conn {
    CURLM *multi;
    CURL *easy[MAX_PARALLEL];
    struct conn *next;
};

struct ig_s3 {
    struct ig_s3_config cfg;
    pthread_mutex_t mu;
    struct conn *idle;
    unsigned nidle;
    unsigned retries, parallel;
    long connect_ms, stall_s;
    /* radosgw (Ceph 16) matches an If-Match on PUT only unquoted: learned
     * from the first such PUT that fails although HEAD shows the ETag */
    atomic_bool unquoted_if_match;
    atomic_bool if_match_ignored; /* ... and on a bucket that keeps versions, not at all */
    atomic_uint_fast64_t requests, retried, bytes_in, bytes_out, copied;
};

/* One HTTP request and what came back. */
struct xfer {
    struct ig_s3 *s3;
    CURL *easy;
    /* request */
    const char *method;
    char url[IG_S3_URL_MAX + 3 * IG_S3_KEY_LEN_MAX + 512];
    char host[IG_S3_URL_MAX];                /* as signed and sent */
    char path[3 * IG_S3_KEY_LEN_MAX + 128];  /* encoded, from '/' */
    char query[4 * IG_S3_KEY_LEN_MAX];       /* canonical: sorted, encoded */
    struct ig_sigv4_header hdr[MAX_HEADERS]; /* the request's own headers (values owned) */
    size_t nhdr;
    struct curl_slist *headers; /* all of them, signed, for this try */
    const uint8_t *body;
    size_t body_len, body_pos;
    bool post;
    /* where the body goes: dst (exactly dst_len bytes), out (up to max), or nowhere */
    uint8_t *dst;
    size_t dst_len;
    struct ig_buf *out;
    size_t out_start, max;
    /* answer */
    long status;
    CURLcode cc;
    char curl_msg[CURL_ERROR_SIZE];
    size_t got;
    bool overflow;
    bool sign_failed;
    struct ig_buf errbody;
    char etag[IG_ETAG_MAX];
    char version_id[IG_VERSION_ID_MAX];
    bool has_range;
    uint64_t range_first, range_last, range_total;
    uint64_t content_length;
    bool has_length;
    /* how long the answer may take without a byte moving (0: the store's
     * stall_s): longer where the server works before it answers at all */
    long quiet_s;
    /* retries */
    unsigned tries;
    int64_t not_before_ms;
    bool done;
    /* for messages */
    const char *bucket, *key;
};

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static unsigned env_uint(const char *name, unsigned dflt, unsigned lo, unsigned hi)
{
    const char *v = getenv(name);
    if (!v || !*v) return dflt;
    char *end;
    unsigned long n = strtoul(v, &end, 10);
    if (*end || n < lo || n > hi) return dflt;
    return (unsigned)n;
}

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static void curl_init_once(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
}

int ig_s3_open(struct ig_s3 **out, const struct ig_s3_config *cfg, struct ig_error *err)
{
    pthread_once(&curl_once, curl_init_once);
    struct ig_s3 *s3 = calloc(1, sizeof *s3);
    if (!s3) return ig_err(err, -ENOMEM, "out of memory");
    s3->cfg = *cfg;
    pthread_mutex_init(&s3->mu, NULL);
    s3->retries = env_uint("INGOT_S3_RETRIES", 4, 0, 20);
    s3->parallel = env_uint("INGOT_S3_PARALLEL", 8, 1, MAX_PARALLEL);
    s3->connect_ms = (long)env_uint("INGOT_S3_CONNECT_TIMEOUT_MS", 5000, 50, 600000);
    s3->stall_s = (long)env_uint("INGOT_S3_STALL_S", 5, 1, 3600);
    *out = s3;
    return 0;
}

static void conn_free(struct conn *c)
{
    for (int i = 0; i < MAX_PARALLEL; i++)
        if (c->easy[i]) curl_easy_cleanup(c->easy[i]);
    if (c->multi) curl_multi_cleanup(c->multi);
    free(c);
}

void ig_s3_close(struct ig_s3 *s3)
{
    if (!s3) return;
    while (s3->idle) {
        struct conn *c = s3->idle;
        s3->idle = c->next;
        conn_free(c);
    }
    pthread_mutex_destroy(&s3->mu);
    free(s3);
}

const struct ig_s3_config *ig_s3_config(const struct ig_s3 *s3)
{
    return &s3->cfg;
}

void ig_s3_stats(const struct ig_s3 *s3, struct ig_s3_stats *out)
{
    out->requests = atomic_load(&((struct ig_s3 *)s3)->requests);
    out->retries = atomic_load(&((struct ig_s3 *)s3)->retried);
    out->bytes_in = atomic_load(&((struct ig_s3 *)s3)->bytes_in);
    out->bytes_out = atomic_load(&((struct ig_s3 *)s3)->bytes_out);
    out->copied = atomic_load(&((struct ig_s3 *)s3)->copied);
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
    c->multi = curl_multi_init();
    if (!c->multi) {
        free(c);
        return NULL;
    }
    curl_multi_setopt(c->multi, CURLMOPT_MAXCONNECTS, (long)MAX_PARALLEL);
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
    if (c) conn_free(c);
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
static int add_header(struct xfer *x, const char *h)
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

static void xfer_free(struct xfer *x)
{
    curl_slist_free_all(x->headers);
    x->headers = NULL;
    for (size_t i = 0; i < x->nhdr; i++) {
        free((char *)x->hdr[i].name);
        free((char *)x->hdr[i].value);
    }
    x->nhdr = 0;
    ig_buf_free(&x->errbody);
}

/* A request; the headers every one carries are added when it is signed. */
static int xfer_init(struct ig_s3 *s3, struct xfer *x, const char *method, const char *bucket,
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
    curl_slist_free_all(x->headers);
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
        struct curl_slist *l = rc ? NULL : curl_slist_append(x->headers, (const char *)line.data);
        if (!l)
            rc = -ENOMEM;
        else
            x->headers = l;
    }
    /* curl's own: the body's type is not the form encoding curl assumes for POST */
    if (!rc) {
        struct curl_slist *l = curl_slist_append(x->headers, "Accept:");
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
    curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &code);
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
    curl_easy_reset(e);
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
    curl_easy_setopt(e, CURLOPT_URL, x->url);
    curl_easy_setopt(e, CURLOPT_PRIVATE, x);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, s3->connect_ms);
    /* a transfer that moves no byte for stall_s seconds is dropped (and retried) */
    curl_easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(e, CURLOPT_LOW_SPEED_TIME, x->quiet_s ? x->quiet_s : s3->stall_s);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, x->curl_msg);
    if (sign(x)) x->sign_failed = true;
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, x->headers);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, x);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, x);
    curl_easy_setopt(e, CURLOPT_BUFFERSIZE, 256L << 10);
    if (!strcmp(x->method, "HEAD")) {
        curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
    } else if (!strcmp(x->method, "PUT")) {
        curl_easy_setopt(e, CURLOPT_UPLOAD, 1L);
        curl_easy_setopt(e, CURLOPT_READFUNCTION, on_read);
        curl_easy_setopt(e, CURLOPT_READDATA, x);
        curl_easy_setopt(e, CURLOPT_SEEKFUNCTION, on_seek);
        curl_easy_setopt(e, CURLOPT_SEEKDATA, x);
        curl_easy_setopt(e, CURLOPT_INFILESIZE_LARGE, (curl_off_t)x->body_len);
    } else if (!strcmp(x->method, "POST")) {
        curl_easy_setopt(e, CURLOPT_POST, 1L);
        curl_easy_setopt(e, CURLOPT_POSTFIELDS, x->body ? (const char *)x->body : "");
        curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)x->body_len);
    } else if (strcmp(x->method, "GET")) {
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, x->method);
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
        if (!c->easy[i] && !(c->easy[i] = curl_easy_init())) return -ENOMEM;
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
            unsigned s = 0;
            while (slot_busy[s])
                s++;
            slot_busy[s] = true;
            xfer_setup(x, c->easy[s]);
            curl_multi_add_handle(c->multi, c->easy[s]);
            active++;
        }
        while (next < n && active < par && waiting_n < sizeof waiting / sizeof *waiting) {
            struct xfer *x = xs[next++];
            unsigned s = 0;
            while (slot_busy[s])
                s++;
            slot_busy[s] = true;
            xfer_setup(x, c->easy[s]);
            curl_multi_add_handle(c->multi, c->easy[s]);
            active++;
        }
        if (active == 0 && waiting_n == 0 && next == n) break;
        int running = 0;
        curl_multi_perform(c->multi, &running);
        CURLMsg *m;
        int queued;
        while ((m = curl_multi_info_read(c->multi, &queued))) {
            if (m->msg != CURLMSG_DONE) continue;
            struct xfer *x = NULL;
            curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&x);
            x->cc = m->data.result;
            curl_easy_getinfo(m->easy_handle, CURLINFO_RESPONSE_CODE, &x->status);
            curl_multi_remove_handle(c->multi, m->easy_handle);
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
            curl_multi_poll(c->multi, NULL, 0, (int)t, NULL);
        else if (t > 0)
            nanosleep(&(struct timespec){t / 1000, (long)(t % 1000) * 1000000L}, NULL);
    }
    return 0;
}

static int perform(struct ig_s3 *s3, struct xfer **xs, size_t n, struct ig_error *err)
{
    struct conn *c = conn_get(s3);
    if (!c) return ig_err(err, -ENOMEM, "out of memory");
    int rc = run(s3, c, xs, n);
    conn_put(s3, c);
    return rc ? ig_err(err, rc, "out of memory") : 0;
}

static int perform1(struct ig_s3 *s3, struct xfer *x, struct ig_error *err)
{
    struct xfer *one[1] = {x};
    return perform(s3, one, 1, err);
}

/* The error of a finished transfer, explained; 0 for a 2xx answer. */
static int explain(const struct xfer *x, struct ig_error *err)
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
                      x->curl_msg[0] ? x->curl_msg : curl_easy_strerror(x->cc), x->tries);
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

static void fill_info(const struct xfer *x, struct ig_s3_info *info)
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

int ig_s3_head(struct ig_s3 *s3, const char *bucket, const char *key, struct ig_s3_info *info,
               struct ig_error *err)
{
    struct xfer x;
    int rc = xfer_init(s3, &x, "HEAD", bucket, key, NULL, err);
    if (!rc) rc = perform1(s3, &x, err);
    if (!rc) rc = explain(&x, err);
    if (!rc) {
        fill_info(&x, info);
        if (!x.has_length) rc = ig_err(err, -EIO, "s3://%s/%s: HEAD without a length", bucket, key);
    }
    xfer_free(&x);
    return rc;
}

int ig_s3_get(struct ig_s3 *s3, const char *bucket, const char *key, const char *if_none_match,
              size_t max, struct ig_buf *out, struct ig_s3_info *info, struct ig_error *err)
{
    struct xfer x;
    char h[IG_ETAG_MAX + 32];
    int rc = xfer_init(s3, &x, "GET", bucket, key, NULL, err);
    if (!rc && if_none_match) {
        snprintf(h, sizeof h, "If-None-Match: \"%s\"", if_none_match);
        if (add_header(&x, h)) rc = ig_err(err, -ENOMEM, "out of memory");
    }
    x.out = out;
    x.out_start = out->len;
    x.max = max;
    if (!rc) rc = perform1(s3, &x, err);
    if (!rc && x.overflow && x.status >= 200 && x.status < 300) {
        rc = ig_err(err, -EFBIG, "s3://%s/%s: larger than %zu bytes", bucket, key, max);
    } else if (!rc) {
        rc = explain(&x, err);
    }
    if (!rc) {
        fill_info(&x, info);
        if (x.has_length && x.content_length != x.got)
            rc = ig_err(err, -EIO, "s3://%s/%s: %zu bytes of %" PRIu64 " came", bucket, key, x.got,
                        x.content_length);
        if (info) info->size = x.got;
    }
    if (rc) out->len = x.out_start;
    xfer_free(&x);
    return rc;
}

int ig_s3_get_tail(struct ig_s3 *s3, const char *bucket, const char *key, uint64_t n,
                   struct ig_buf *out, uint64_t *start, struct ig_s3_info *info,
                   struct ig_error *err)
{
    struct xfer x;
    char h[64];
    int rc = xfer_init(s3, &x, "GET", bucket, key, NULL, err);
    snprintf(h, sizeof h, "Range: bytes=-%" PRIu64, n);
    if (!rc && add_header(&x, h)) rc = ig_err(err, -ENOMEM, "out of memory");
    x.out = out;
    x.out_start = out->len;
    x.max = (size_t)n;
    if (!rc) rc = perform1(s3, &x, err);
    if (!rc && x.status == 416) { /* an empty object */
        xfer_free(&x);
        rc = ig_s3_head(s3, bucket, key, info, err);
        if (!rc) *start = info->size;
        return rc;
    }
    if (!rc) rc = explain(&x, err);
    if (!rc) {
        fill_info(&x, info);
        if (x.status == 206 && x.has_range && x.range_last + 1 == x.range_total &&
            x.range_last - x.range_first + 1 == x.got) {
            *start = x.range_first;
        } else if (x.status == 200 && (!x.has_length || x.content_length == x.got) && x.got <= n) {
            *start = 0; /* the whole object, smaller than asked */
            if (info) info->size = x.got;
        } else {
            rc = ig_err(err, -EIO, "s3://%s/%s: the tail came back malformed (HTTP %ld, %zu bytes)",
                        bucket, key, x.status, x.got);
        }
    }
    if (rc) out->len = x.out_start;
    xfer_free(&x);
    return rc;
}

static bool range_ok(const struct xfer *x, const struct ig_s3_range *r)
{
    if (x->got != r->len) return false;
    if (x->status == 206)
        return x->has_range && x->range_first == r->off && x->range_last == r->off + r->len - 1;
    /* a whole object that is exactly the range asked for */
    return x->status == 200 && r->off == 0 && (!x->has_length || x->content_length == r->len);
}

int ig_s3_get_ranges(struct ig_s3 *s3, const char *bucket, const char *key, const char *if_match,
                     const struct ig_s3_range *r, size_t n, struct ig_error *err)
{
    if (n == 0) return 0;
    struct xfer *xs = calloc(n, sizeof *xs);
    struct xfer **ptrs = calloc(n, sizeof *ptrs);
    int rc = xs && ptrs ? 0 : ig_err(err, -ENOMEM, "out of memory");
    size_t inited = 0;
    for (size_t i = 0; !rc && i < n; i++) {
        if (r[i].len == 0 || r[i].off > UINT64_MAX - r[i].len) {
            rc = ig_err(err, -EINVAL, "s3://%s/%s: empty or impossible range", bucket, key);
            break;
        }
        rc = xfer_init(s3, &xs[i], "GET", bucket, key, NULL, err);
        if (rc) break;
        inited++;
        char h[IG_ETAG_MAX + 64];
        snprintf(h, sizeof h, "Range: bytes=%" PRIu64 "-%" PRIu64, r[i].off,
                 r[i].off + r[i].len - 1);
        if (add_header(&xs[i], h)) rc = ig_err(err, -ENOMEM, "out of memory");
        if (!rc && if_match && if_match[0]) {
            snprintf(h, sizeof h, "If-Match: \"%s\"", if_match);
            if (add_header(&xs[i], h)) rc = ig_err(err, -ENOMEM, "out of memory");
        }
        xs[i].dst = r[i].dst;
        xs[i].dst_len = (size_t)r[i].len;
        ptrs[i] = &xs[i];
    }
    if (!rc) rc = perform(s3, ptrs, n, err);
    for (size_t i = 0; !rc && i < n; i++) {
        rc = explain(&xs[i], err);
        if (!rc && !range_ok(&xs[i], &r[i]))
            rc = ig_err(err, -EIO,
                        "s3://%s/%s: asked for bytes %" PRIu64 "-%" PRIu64
                        ", got %zu bytes (HTTP %ld%s): "
                        "truncated or changed",
                        bucket, key, r[i].off, r[i].off + r[i].len - 1, xs[i].got, xs[i].status,
                        xs[i].has_range ? "" : ", no Content-Range");
    }
    for (size_t i = 0; i < inited; i++)
        xfer_free(&xs[i]);
    free(xs);
    free(ptrs);
    return rc;
}

int ig_s3_get_range(struct ig_s3 *s3, const char *bucket, const char *key, uint64_t off,
                    uint64_t len, void *dst, struct ig_s3_info *info, struct ig_error *err)
{
    if (len == 0 || off > UINT64_MAX - len)
        return ig_err(err, -EINVAL, "s3://%s/%s: empty range", bucket, key);
    struct xfer x;
    char h[64];
    int rc = xfer_init(s3, &x, "GET", bucket, key, NULL, err);
    snprintf(h, sizeof h, "Range: bytes=%" PRIu64 "-%" PRIu64, off, off + len - 1);
    if (!rc && add_header(&x, h)) rc = ig_err(err, -ENOMEM, "out of memory");
    x.dst = dst;
    x.dst_len = (size_t)len;
    if (!rc) rc = perform1(s3, &x, err);
    if (!rc && x.cc == CURLE_OK && x.status == 416)
        rc = ig_err(err, -EIO, "s3://%s/%s: truncated: shorter than %" PRIu64 " bytes", bucket, key,
                    off + 1);
    if (!rc) rc = explain(&x, err);
    struct ig_s3_range r = {off, len, dst};
    if (!rc && x.status == 206 && x.has_range && x.range_total < off + len)
        rc = ig_err(err, -EIO,
                    "s3://%s/%s: truncated: %" PRIu64 " bytes, expected at least %" PRIu64, bucket,
                    key, x.range_total, off + len);
    else if (!rc && !range_ok(&x, &r))
        rc = ig_err(err, -EIO,
                    "s3://%s/%s: asked for bytes %" PRIu64 "-%" PRIu64 ", got %zu (HTTP %ld)",
                    bucket, key, off, off + len - 1, x.got, x.status);
    if (!rc) {
        fill_info(&x, info);
        if (x.status == 200) info->size = x.got;
    }
    xfer_free(&x);
    return rc;
}

static int put_once(struct ig_s3 *s3, const char *bucket, const char *key, const void *data,
                    size_t len, const struct ig_s3_cond *cond, bool unquoted, struct xfer *x,
                    struct ig_error *err)
{
    int rc = xfer_init(s3, x, "PUT", bucket, key, NULL, err);
    char h[IG_ETAG_MAX + 32];
    if (!rc && cond && cond->if_match) {
        snprintf(h, sizeof h, unquoted ? "If-Match: %s" : "If-Match: \"%s\"", cond->if_match);
        if (add_header(x, h)) rc = ig_err(err, -ENOMEM, "out of memory");
    }
    if (!rc && cond && cond->if_none_match && add_header(x, "If-None-Match: *"))
        rc = ig_err(err, -ENOMEM, "out of memory");
    if (!rc && add_header(x, "Content-Type: application/octet-stream"))
        rc = ig_err(err, -ENOMEM, "out of memory");
    x->body = data;
    x->body_len = len;
    if (!rc) rc = perform1(s3, x, err);
    return rc;
}

int ig_s3_put(struct ig_s3 *s3, const char *bucket, const char *key, const void *data, size_t len,
              const struct ig_s3_cond *cond, struct ig_s3_info *info, struct ig_error *err)
{
    if (len > PUT_MAX) return ig_err(err, -EFBIG, "s3://%s/%s: over 5 GiB in one PUT", bucket, key);
    struct ig_s3_cond c = cond ? *cond : (struct ig_s3_cond){0};
    if (c.if_none_match) {
        /* asked first: a store may ignore the header (radosgw 16 on a
         * bucket that keeps versions), and the callers hold the writers'
         * lock, which serialises them where it does */
        struct ig_s3_info now;
        int h = ig_s3_head(s3, bucket, key, &now, NULL);
        if (h == 0) return ig_err(err, -ESTALE, "s3://%s/%s: exists already", bucket, key);
        if (h != -ENOENT) return ig_s3_head(s3, bucket, key, &now, err);
    }
    if (c.if_match && atomic_load(&s3->if_match_ignored)) {
        /* the store fails every If-Match here: checked by HEAD instead */
        struct ig_s3_info now;
        int h = ig_s3_head(s3, bucket, key, &now, err);
        if (h) return h;
        if (strcmp(now.etag, c.if_match))
            return ig_err(err, -ESTALE, "s3://%s/%s: the object is not the one expected (changed since read)",
                          bucket, key);
        c.if_match = NULL;
    }
    struct xfer x;
    bool unq = atomic_load(&s3->unquoted_if_match);
    int rc = put_once(s3, bucket, key, data, len, &c, unq, &x, err);
    if (!rc && x.cc == CURLE_OK && x.status == 412 && c.if_match) {
        /* a failed If-Match on an object that does have that ETag: some
         * stores compare it unquoted (radosgw 16); some fail it always (the
         * same on a bucket that keeps versions): learn which, and ask again */
        struct ig_s3_info now;
        if (ig_s3_head(s3, bucket, key, &now, NULL) == 0 && !strcmp(now.etag, c.if_match)) {
            xfer_free(&x);
            rc = unq ? 0 : put_once(s3, bucket, key, data, len, &c, true, &x, err);
            if (!unq && !rc && x.cc == CURLE_OK && x.status != 412) atomic_store(&s3->unquoted_if_match, true);
            if (unq || (!rc && x.cc == CURLE_OK && x.status == 412)) {
                if (!unq) xfer_free(&x);
                atomic_store(&s3->if_match_ignored, true);
                c.if_match = NULL;
                rc = put_once(s3, bucket, key, data, len, &c, true, &x, err);
            }
        }
    }
    if (!rc) rc = explain(&x, err);
    if (!rc) {
        fill_info(&x, info);
        if (info) info->size = len;
    }
    xfer_free(&x);
    return rc;
}

int ig_s3_delete(struct ig_s3 *s3, const char *bucket, const char *key, const char *version_id,
                 struct ig_error *err)
{
    struct xfer x;
    char q[3 * IG_VERSION_ID_MAX + 32] = "", ev[3 * IG_VERSION_ID_MAX + 1];
    if (version_id) {
        if (!ig_s3_uri_encode(version_id, false, ev, sizeof ev))
            return ig_err(err, -EINVAL, "s3://%s/%s: version id too long", bucket, key);
        snprintf(q, sizeof q, "versionId=%s", ev);
    }
    int rc = xfer_init(s3, &x, "DELETE", bucket, key, version_id ? q : NULL, err);
    if (!rc) rc = perform1(s3, &x, err);
    if (!rc && x.cc == CURLE_OK && x.status == 404) {
        char code[64] = "";
        (void)ig_xml_get((const char *)x.errbody.data, x.errbody.len, "Code", code, sizeof code);
        if (strcmp(code, "NoSuchBucket")) x.status = 204; /* gone already */
    }
    if (!rc) rc = explain(&x, err);
    xfer_free(&x);
    return rc;
}

/* "2026-12-02T05:16:38.343Z" as ms since 1970; 0 when malformed. */
static int64_t parse_time_ms(const char *s)
{
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    int ms = 0;
    const char *rest = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
    if (!rest) return 0;
    if (*rest == '.') {
        int digits = 0;
        for (rest++; *rest >= '0' && *rest <= '9'; rest++)
            if (digits < 3) ms = ms * 10 + (*rest - '0'), digits++;
        while (digits++ < 3)
            ms *= 10;
    }
    return (int64_t)timegm(&tm) * 1000 + ms;
}

/* One <Contents>, <Version> or <DeleteMarker> element's fields. */
static bool list_entry(const char *c, size_t cl, bool marker, struct ig_s3_info *o)
{
    char num[32] = "", latest[8] = "";
    memset(o, 0, sizeof *o);
    if (!ig_xml_get(c, cl, "Key", o->key, sizeof o->key)) return false;
    (void)ig_xml_get(c, cl, "VersionId", o->version_id, sizeof o->version_id);
    if (!strcmp(o->version_id, "null")) o->version_id[0] = '\0';
    char etag[IG_ETAG_MAX + 8] = "";
    if (ig_xml_get(c, cl, "ETag", etag, sizeof etag)) {
        size_t el = strlen(etag);
        const char *e = etag;
        if (el >= 2 && e[0] == '"' && e[el - 1] == '"') e++, el -= 2;
        if (el < sizeof o->etag) {
            memcpy(o->etag, e, el);
            o->etag[el] = '\0';
        }
    }
    if (ig_xml_get(c, cl, "Size", num, sizeof num)) {
        char *end;
        o->size = strtoull(num, &end, 10);
        if (*end) return false;
    }
    o->latest = !ig_xml_get(c, cl, "IsLatest", latest, sizeof latest) || !strcmp(latest, "true");
    char when[40];
    if (ig_xml_get(c, cl, "LastModified", when, sizeof when)) o->mtime_ms = parse_time_ms(when);
    o->delete_marker = marker;
    return true;
}

int ig_s3_list(struct ig_s3 *s3, const char *bucket, const char *prefix, bool versions,
               ig_s3_list_fn fn, void *ctx, struct ig_error *err)
{
    char ep[3 * IG_S3_KEY_LEN_MAX + 1], token[2048] = "", kmark[IG_S3_KEY_LEN_MAX] = "",
                                        vmark[IG_VERSION_ID_MAX] = "";
    if (!ig_s3_uri_encode(prefix, false, ep, sizeof ep))
        return ig_err(err, -ENAMETOOLONG, "s3://%s/%s: prefix too long", bucket, prefix);
    struct ig_buf body = IG_BUF_INIT;
    int rc = 0;
    for (int page = 0; !rc; page++) {
        char q[16384], et[3 * sizeof token + 1], ek[3 * sizeof kmark + 1], ev[3 * sizeof vmark + 1];
        /* parameters sorted by name: curl 7.88 signs the query as given */
        if (!versions) {
            if (!ig_s3_uri_encode(token, false, et, sizeof et)) rc = -EIO;
            int qn = snprintf(q, sizeof q, "%s%s%slist-type=2&prefix=%s",
                              token[0] ? "continuation-token=" : "", token[0] ? et : "",
                              token[0] ? "&" : "", ep);
            if (qn < 0 || (size_t)qn >= sizeof q) rc = -EIO;
        } else {
            if (!ig_s3_uri_encode(kmark, false, ek, sizeof ek) ||
                !ig_s3_uri_encode(vmark, false, ev, sizeof ev))
                rc = -EIO;
            int qn = snprintf(q, sizeof q,
                              "%s%s%sprefix=%s%s%s&versions=", kmark[0] ? "key-marker=" : "",
                              kmark[0] ? ek : "", kmark[0] ? "&" : "", ep,
                              vmark[0] ? "&version-id-marker=" : "", vmark[0] ? ev : "");
            if (qn < 0 || (size_t)qn >= sizeof q) rc = -EIO;
        }
        if (rc) {
            rc = ig_err(err, -EIO, "s3://%s/%s: listing marker too long", bucket, prefix);
            break;
        }
        struct xfer x;
        ig_buf_reset(&body);
        rc = xfer_init(s3, &x, "GET", bucket, NULL, q, err);
        x.out = &body;
        x.max = 64u << 20;
        if (!rc) rc = perform1(s3, &x, err);
        if (!rc) rc = explain(&x, err);
        xfer_free(&x);
        if (rc) break;
        const char *t = (const char *)body.data;
        size_t tl = body.len, pos = 0;
        const char *c;
        size_t cl;
        struct ig_s3_info o;
        if (!versions) {
            while (!rc && ig_xml_next(t, tl, &pos, "Contents", &c, &cl)) {
                if (!list_entry(c, cl, false, &o))
                    rc = ig_err(err, -EIO, "s3://%s: malformed listing", bucket);
                else
                    rc = fn(ctx, &o);
            }
        } else {
            /* versions and delete markers, in whatever order they come */
            static const char *const kinds[2] = {"Version", "DeleteMarker"};
            for (int kind = 0; kind < 2 && !rc; kind++) {
                pos = 0;
                while (!rc && ig_xml_next(t, tl, &pos, kinds[kind], &c, &cl)) {
                    if (!list_entry(c, cl, kind == 1, &o))
                        rc = ig_err(err, -EIO, "s3://%s: malformed listing", bucket);
                    else
                        rc = fn(ctx, &o);
                }
            }
        }
        if (rc) break;
        char trunc[8] = "";
        if (!ig_xml_get(t, tl, "IsTruncated", trunc, sizeof trunc) || strcmp(trunc, "true")) break;
        if (!versions) {
            if (!ig_xml_get(t, tl, "NextContinuationToken", token, sizeof token) || !token[0])
                rc = ig_err(err, -EIO, "s3://%s: truncated listing without a continuation token",
                            bucket);
        } else {
            if (!ig_xml_get(t, tl, "NextKeyMarker", kmark, sizeof kmark)) kmark[0] = '\0';
            if (!ig_xml_get(t, tl, "NextVersionIdMarker", vmark, sizeof vmark)) vmark[0] = '\0';
            if (!kmark[0])
                rc = ig_err(err, -EIO, "s3://%s: truncated listing without a marker", bucket);
        }
        if (page > 1000000) rc = ig_err(err, -EIO, "s3://%s: listing does not end", bucket);
    }
    ig_buf_free(&body);
    return rc;
}

/* A 200 answer whose body is an <Error> (CompleteMultipartUpload and
 * UploadPartCopy may fail after answering 200). */
static int error_in_body(const struct xfer *x, const struct ig_buf *body, struct ig_error *err)
{
    char code[64];
    if (!body->len || !ig_xml_get((const char *)body->data, body->len, "Code", code, sizeof code))
        return 0;
    size_t pos = 0;
    const char *c;
    size_t cl;
    if (!ig_xml_next((const char *)body->data, body->len, &pos, "Error", &c, &cl)) return 0;
    return ig_err(err, !strcmp(code, "PreconditionFailed") ? -ESTALE : -EIO, "s3://%s/%s: %s",
                  x->bucket, x->key, code);
}

int ig_s3_mpu_start(struct ig_s3 *s3, const char *bucket, const char *key, char *upload_id,
                    size_t cap, struct ig_error *err)
{
    struct xfer x;
    struct ig_buf body = IG_BUF_INIT;
    int rc = xfer_init(s3, &x, "POST", bucket, key, "uploads=", err);
    if (!rc && add_header(&x, "Content-Type: application/octet-stream"))
        rc = ig_err(err, -ENOMEM, "out of memory");
    x.out = &body;
    x.max = 1 << 20;
    if (!rc) rc = perform1(s3, &x, err);
    if (!rc) rc = explain(&x, err);
    if (!rc && !ig_xml_get((const char *)body.data, body.len, "UploadId", upload_id, cap))
        rc = ig_err(err, -EIO, "s3://%s/%s: no upload id in the answer", bucket, key);
    xfer_free(&x);
    ig_buf_free(&body);
    return rc;
}

static int part_query(unsigned part, const char *upload_id, char *q, size_t cap)
{
    char eu[1024];
    if (!ig_s3_uri_encode(upload_id, false, eu, sizeof eu)) return -EINVAL;
    int n = snprintf(q, cap, "partNumber=%u&uploadId=%s", part, eu);
    return n > 0 && (size_t)n < cap ? 0 : -EINVAL;
}

int ig_s3_mpu_put(struct ig_s3 *s3, const char *bucket, const char *key, const char *upload_id,
                  unsigned part, const void *data, size_t len, char etag[IG_ETAG_MAX],
                  struct ig_error *err)
{
    char q[1200];
    if (part < 1 || part > 10000 || part_query(part, upload_id, q, sizeof q))
        return ig_err(err, -EINVAL, "s3://%s/%s: bad part %u", bucket, key, part);
    struct xfer x;
    int rc = xfer_init(s3, &x, "PUT", bucket, key, q, err);
    x.body = data;
    x.body_len = len;
    if (!rc) rc = perform1(s3, &x, err);
    if (!rc) rc = explain(&x, err);
    if (!rc && !x.etag[0])
        rc = ig_err(err, -EIO, "s3://%s/%s: part %u stored without an ETag", bucket, key, part);
    if (!rc) snprintf(etag, IG_ETAG_MAX, "%s", x.etag);
    xfer_free(&x);
    return rc;
}

/* Server-side work (a copied part, assembling an upload) sends nothing
 * until done; the slowest such work taken as alive: 4 MiB/s. */
#define COPY_MIN_RATE (4u << 20)

static long copy_quiet_s(const struct ig_s3 *s3, uint64_t len)
{
    uint64_t s = (uint64_t)s3->stall_s + len / COPY_MIN_RATE;
    return s > 3600 ? 3600 : (long)s;
}

int ig_s3_mpu_copy(struct ig_s3 *s3, const char *bucket, const char *key, const char *upload_id,
                   unsigned part, const char *src_key, const char *src_version, const char *src_etag, uint64_t off,
                   uint64_t len, char etag[IG_ETAG_MAX], struct ig_error *err)
{
    char q[1200];
    if (part < 1 || part > 10000 || part_query(part, upload_id, q, sizeof q) || len == 0)
        return ig_err(err, -EINVAL, "s3://%s/%s: bad part %u", bucket, key, part);
    char esrc[3 * IG_S3_KEY_LEN_MAX + 1], h[3 * IG_S3_KEY_LEN_MAX + 200];
    if (!ig_s3_uri_encode(src_key, true, esrc, sizeof esrc))
        return ig_err(err, -ENAMETOOLONG, "s3://%s/%s: key too long", bucket, src_key);
    struct xfer x;
    struct ig_buf body = IG_BUF_INIT;
    int rc = xfer_init(s3, &x, "PUT", bucket, key, q, err);
    char ever[3 * IG_VERSION_ID_MAX + 1] = "";
    if (src_version && src_version[0] && !ig_s3_uri_encode(src_version, false, ever, sizeof ever))
        return ig_err(err, -EINVAL, "s3://%s/%s: version id too long", bucket, src_key);
    snprintf(h, sizeof h, "x-amz-copy-source: /%s/%s%s%s", bucket, esrc, ever[0] ? "?versionId=" : "",
             ever);
    if (!rc && add_header(&x, h)) rc = -ENOMEM;
    snprintf(h, sizeof h, "x-amz-copy-source-range: bytes=%" PRIu64 "-%" PRIu64, off,
             off + len - 1);
    if (!rc && add_header(&x, h)) rc = -ENOMEM;
    if (!rc && src_etag) {
        snprintf(h, sizeof h, "x-amz-copy-source-if-match: \"%s\"", src_etag);
        if (add_header(&x, h)) rc = -ENOMEM;
    }
    if (rc == -ENOMEM) rc = ig_err(err, rc, "out of memory");
    x.out = &body;
    x.max = 1 << 20;
    /* the store copies the whole range before it answers a byte: allow it
     * COPY_MIN_RATE, so a large copy is not taken for a stalled one */
    x.quiet_s = copy_quiet_s(s3, len);
    if (!rc) rc = perform1(s3, &x, err);
    if (!rc) rc = explain(&x, err);
    if (!rc) rc = error_in_body(&x, &body, err);
    char et[IG_ETAG_MAX + 8] = "";
    if (!rc && !ig_xml_get((const char *)body.data, body.len, "ETag", et, sizeof et))
        rc = ig_err(err, -EIO, "s3://%s/%s: copied part %u without an ETag", bucket, key, part);
    if (!rc) {
        size_t el = strlen(et);
        const char *e = et;
        if (el >= 2 && e[0] == '"' && e[el - 1] == '"') e++, el -= 2;
        snprintf(etag, IG_ETAG_MAX, "%.*s", (int)el, e);
        atomic_fetch_add(&s3->copied, len);
    }
    xfer_free(&x);
    ig_buf_free(&body);
    return rc;
}

int ig_s3_mpu_complete(struct ig_s3 *s3, const char *bucket, const char *key, const char *upload_id,
                       char (*etags)[IG_ETAG_MAX], unsigned nparts, struct ig_s3_info *info,
                       struct ig_error *err)
{
    char q[1200], eu[1024];
    if (!ig_s3_uri_encode(upload_id, false, eu, sizeof eu))
        return ig_err(err, -EINVAL, "s3://%s/%s: upload id too long", bucket, key);
    snprintf(q, sizeof q, "uploadId=%s", eu);
    struct ig_buf xml = IG_BUF_INIT, body = IG_BUF_INIT;
    int rc = ig_buf_printf(&xml, "<CompleteMultipartUpload>");
    for (unsigned i = 0; !rc && i < nparts; i++) {
        char ee[2 * IG_ETAG_MAX];
        if (!ig_xml_escape(etags[i], ee, sizeof ee))
            rc = -EINVAL;
        else
            rc = ig_buf_printf(&xml, "<Part><PartNumber>%u</PartNumber><ETag>\"%s\"</ETag></Part>",
                               i + 1, ee);
    }
    if (!rc) rc = ig_buf_printf(&xml, "</CompleteMultipartUpload>");
    if (rc) {
        ig_buf_free(&xml);
        return ig_err(err, -ENOMEM, "out of memory");
    }
    struct xfer x;
    rc = xfer_init(s3, &x, "POST", bucket, key, q, err);
    if (!rc && add_header(&x, "Content-Type: application/xml"))
        rc = ig_err(err, -ENOMEM, "out of memory");
    x.body = xml.data;
    x.body_len = xml.len;
    x.out = &body;
    x.max = 1 << 20;
    /* the store assembles the object before it answers: a minute more */
    x.quiet_s = s3->stall_s + 60;
    if (!rc) rc = perform1(s3, &x, err);
    if (!rc) rc = explain(&x, err);
    if (!rc) rc = error_in_body(&x, &body, err);
    if (!rc && info) {
        fill_info(&x, info);
        char et[IG_ETAG_MAX + 8];
        if (ig_xml_get((const char *)body.data, body.len, "ETag", et, sizeof et)) {
            size_t el = strlen(et);
            const char *e = et;
            if (el >= 2 && e[0] == '"' && e[el - 1] == '"') e++, el -= 2;
            snprintf(info->etag, sizeof info->etag, "%.*s", (int)el, e);
        }
    }
    xfer_free(&x);
    ig_buf_free(&xml);
    ig_buf_free(&body);
    /* the answer's body has no size, and radosgw's an empty ETag: ask */
    if (!rc && info) {
        char version[IG_VERSION_ID_MAX];
        snprintf(version, sizeof version, "%s", info->version_id);
        rc = ig_s3_head(s3, bucket, key, info, err);
        if (!rc && version[0] && !info->version_id[0])
            snprintf(info->version_id, sizeof info->version_id, "%s", version);
    }
    return rc;
}

void ig_s3_mpu_abort(struct ig_s3 *s3, const char *bucket, const char *key, const char *upload_id)
{
    char q[1200], eu[1024];
    if (!ig_s3_uri_encode(upload_id, false, eu, sizeof eu)) return;
    snprintf(q, sizeof q, "uploadId=%s", eu);
    struct xfer x;
    if (!xfer_init(s3, &x, "DELETE", bucket, key, q, NULL)) (void)perform1(s3, &x, NULL);
    xfer_free(&x);
}
