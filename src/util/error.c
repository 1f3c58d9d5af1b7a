#include "error.h"

#include <stdio.h>
#include <string.h>

int ig_err(struct ig_error *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->code = code;
    }
    return code;
}

int ig_err_prefix(struct ig_error *err, int code, const char *fmt, ...)
{
    if (!err) return code;
    char prefix[IG_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    char old[IG_ERROR_MSG_MAX];
    memcpy(old, err->msg, sizeof old);
    if (err->code == 0) {
        old[0] = '\0';
        err->code = code;
    }
    /* Truncation is acceptable: the message is for people, the code for programs. */
    size_t n = strlen(prefix);
    if (n >= sizeof err->msg) n = sizeof err->msg - 1;
    memcpy(err->msg, prefix, n);
    if (old[0] && n + 2 < sizeof err->msg) {
        memcpy(err->msg + n, ": ", 2);
        n += 2;
        size_t m = strlen(old);
        if (m > sizeof err->msg - 1 - n) m = sizeof err->msg - 1 - n;
        memcpy(err->msg + n, old, m);
        n += m;
    }
    err->msg[n] = '\0';
    return err->code;
}

void ig_err_clear(struct ig_error *err)
{
    if (err) {
        err->code = 0;
        err->msg[0] = '\0';
    }
}
