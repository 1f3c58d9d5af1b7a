/* curl_lib.c - libcurl loaded on first use (curl_lib.h). */
#include "store/curl_lib.h"
#include "util/lib_load.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>

struct ig_curl_lib ig_curl;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[512]; /* empty: loaded */

static void load(void)
{
    /* libcurl's soname since 7.16: Debian's libcurl4, or its gnutls build */
    static const char *const names[] = {"libcurl.so.4", "libcurl-gnutls.so.4"};
    const struct ig_lib_sym syms[] = {
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
    if (ig_lib_load("object storage", names, sizeof names / sizeof names[0], syms, sizeof syms / sizeof syms[0],
                    load_error, sizeof load_error))
        return;
    CURLcode rc = ig_curl.global_init(CURL_GLOBAL_DEFAULT);
    if (rc != CURLE_OK)
        snprintf(load_error, sizeof load_error, "libcurl: cannot initialise: %s", ig_curl.easy_strerror(rc));
}

int ig_curl_load(struct ig_error *err)
{
    pthread_once(&load_once, load);
    return load_error[0] ? ig_err(err, -ENOSYS, "%s", load_error) : 0;
}
