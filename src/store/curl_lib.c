/* curl_lib.c - libcurl loaded on first use (curl_lib.h). */
#include "store/curl_lib.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

struct ig_curl_lib ig_curl;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[512]; /* empty: loaded */

/* libcurl's soname since 7.16 (Debian's libcurl4 and libcurl3-gnutls alike
 * provide libcurl.so.4 under one name or the other) */
static const char *const names[] = {"libcurl.so.4", "libcurl-gnutls.so.4"};

static void load(void)
{
    void *h = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !h; i++)
        h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(load_error, sizeof load_error,
                 "object storage needs libcurl (Debian: libcurl4), which cannot be loaded: %s",
                 dlerror());
        return;
    }
    /* each symbol by the name curl exports it under */
    struct { void **slot; const char *name; } syms[] = {
        {(void **)&ig_curl.global_init, "curl_global_init"},
        {(void **)&ig_curl.easy_init, "curl_easy_init"},
        {(void **)&ig_curl.easy_setopt, "curl_easy_setopt"},
        {(void **)&ig_curl.easy_getinfo, "curl_easy_getinfo"},
        {(void **)&ig_curl.easy_reset, "curl_easy_reset"},
        {(void **)&ig_curl.easy_cleanup, "curl_easy_cleanup"},
        {(void **)&ig_curl.easy_strerror, "curl_easy_strerror"},
        {(void **)&ig_curl.slist_append, "curl_slist_append"},
        {(void **)&ig_curl.slist_free_all, "curl_slist_free_all"},
        {(void **)&ig_curl.multi_init, "curl_multi_init"},
        {(void **)&ig_curl.multi_setopt, "curl_multi_setopt"},
        {(void **)&ig_curl.multi_add_handle, "curl_multi_add_handle"},
        {(void **)&ig_curl.multi_remove_handle, "curl_multi_remove_handle"},
        {(void **)&ig_curl.multi_perform, "curl_multi_perform"},
        {(void **)&ig_curl.multi_poll, "curl_multi_poll"},
        {(void **)&ig_curl.multi_info_read, "curl_multi_info_read"},
        {(void **)&ig_curl.multi_cleanup, "curl_multi_cleanup"},
    };
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        if (!(*syms[i].slot = dlsym(h, syms[i].name))) {
            snprintf(load_error, sizeof load_error,
                     "object storage needs libcurl 7.66 or later: the loaded one lacks %s", syms[i].name);
            memset(&ig_curl, 0, sizeof ig_curl);
            return;
        }
    }
    CURLcode rc = ig_curl.global_init(CURL_GLOBAL_DEFAULT);
    if (rc != CURLE_OK)
        snprintf(load_error, sizeof load_error, "libcurl: cannot initialise: %s", ig_curl.easy_strerror(rc));
}

int ig_curl_load(struct ig_error *err)
{
    pthread_once(&load_once, load);
    return load_error[0] ? ig_err(err, -ENOSYS, "%s", load_error) : 0;
}
