/* curl_lib.h - libcurl, loaded (dlopen) when the first client for object
 * storage is opened, not when ingot starts: libcurl brings some twenty-five
 * libraries of its own (TLS, Kerberos, LDAP, SSH, IDN...), and a process that
 * never touches s3:// read them all from the disk at every cold start (the
 * CLI: 50 ms cold, 7 ms warm). The S3 client (s3*.c) calls curl through
 * ig_curl only; the types and constants are curl/curl.h's.
 *
 * Does not: unload libcurl (it stays until the process ends), or fall back to
 * another HTTP client when libcurl is missing (the error says what to install). */
#ifndef INGOT_STORE_CURL_LIB_H
#define INGOT_STORE_CURL_LIB_H

#include <curl/curl.h>

#include "util/error.h"

struct ig_curl_lib {
    CURLcode (*global_init)(long flags);
    CURL *(*easy_init)(void);
    CURLcode (*easy_setopt)(CURL *h, CURLoption opt, ...);
    CURLcode (*easy_getinfo)(CURL *h, CURLINFO info, ...);
    void (*easy_reset)(CURL *h);
    void (*easy_cleanup)(CURL *h);
    const char *(*easy_strerror)(CURLcode code);
    struct curl_slist *(*slist_append)(struct curl_slist *list, const char *s);
    void (*slist_free_all)(struct curl_slist *list);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_setopt)(CURLM *m, CURLMoption opt, ...);
    CURLMcode (*multi_add_handle)(CURLM *m, CURL *h);
    CURLMcode (*multi_remove_handle)(CURLM *m, CURL *h);
    CURLMcode (*multi_perform)(CURLM *m, int *running);
    CURLMcode (*multi_poll)(CURLM *m, struct curl_waitfd extra[], unsigned n, int timeout_ms, int *ret);
    CURLMsg *(*multi_info_read)(CURLM *m, int *left);
    CURLMcode (*multi_cleanup)(CURLM *m);
};

/* Every pointer set once ig_curl_load has returned 0. */
extern struct ig_curl_lib ig_curl;

/* libcurl loaded and initialised (curl_global_init), once per process; each
 * later call returns the first one's result. -ENOSYS with a message naming
 * the library and what dlopen said when it cannot be loaded. Thread-safe. */
int ig_curl_load(struct ig_error *err);

#endif
