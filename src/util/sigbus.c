#include "sigbus.h"

#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>

static _Thread_local sigjmp_buf *guard;

static void on_sigbus(int sig)
{
    if (guard) siglongjmp(*guard, 1);
    signal(sig, SIG_DFL); /* not ours: die as if unhandled */
    raise(sig);
}

void ig_sigbus_install(void)
{
    struct sigaction sa = {0};
    sa.sa_handler = on_sigbus;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, NULL);
}

int ig_sigbus_guard(void (*fn)(void *), void *arg)
{
    sigjmp_buf here;
    if (sigsetjmp(here, 1)) {
        guard = NULL;
        return -EIO;
    }
    guard = &here;
    fn(arg);
    guard = NULL;
    return 0;
}
