/* verify_report.c - what a verification finds (verify_int.h): failures,
 * reported at once or, from a helper thread, kept per row group to be
 * reported in group order; and the blob references met in pages, kept for
 * the blob files' pass. verify.c and verify_chunk.c both report through it. */
#include "format/ops/verify_int.h"
#include "format/ops/verify.h"
#include "util/buf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ig_verify_add_obj(struct vctx *x, const struct objref *o)
{
    struct objref *grown = ig_array_room(x->objs, x->nobjs, &x->objs_cap, sizeof *grown, 256);
    if (!grown) return -ENOMEM;
    x->objs = grown;
    x->objs[x->nobjs++] = *o;
    return 0;
}

void ig_verify_fail(struct vctx *x, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (x->group_msgs) { /* a helper thread: reported later, in group order */
        ig_buf_append(&x->group_msgs[x->group], msg, strlen(msg) + 1);
        return;
    }
    x->rep->failures++;
    if (x->h && x->h->fail) x->h->fail(x->h->ctx, msg);
}
