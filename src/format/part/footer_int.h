/* footer_int.h - what footer.c (opening a part, its header and section table)
 * and records.c (the records read from the mapped footer) share, and no other
 * file uses. */
#ifndef IG_FORMAT_FOOTER_INT_H
#define IG_FORMAT_FOOTER_INT_H

#include "format/part/footer.h"

/* -EIO: "PART: corrupt footer: WHAT". */
int ig_part_corrupt(const struct ig_part *p, struct ig_error *err, const char *what);

#endif
