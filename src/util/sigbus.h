/* sigbus.h - reading a mapped file that may shrink under us.
 *
 * A page of a mapped file that was truncated away raises SIGBUS on access. The
 * mount daemon serves page bytes straight from a mapping of the part file, so a
 * part truncated while mounted (by accident or malice) must cost one read an
 * EIO, not the daemon its life. ig_sigbus_guard() runs a function with SIGBUS
 * from that thread turned into -EIO; ig_sigbus_install() sets the handler up
 * once per process (a SIGBUS outside a guard keeps its default action). */
#ifndef IG_UTIL_SIGBUS_H
#define IG_UTIL_SIGBUS_H

void ig_sigbus_install(void);
/* fn(arg), or -EIO if it touched a page that no longer exists. */
int ig_sigbus_guard(void (*fn)(void *), void *arg);

#endif
