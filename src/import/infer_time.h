/* infer_time.h - whether a column's strings read as dates or timestamps
 * (infer.c's CSV and JSON inference, infer_shape.c's nested fields). A column
 * whose every value reads as a date is a date; as a date or a timestamp (a
 * date: midnight) a timestamp, of microseconds or of nanoseconds when a value
 * has digits past the microsecond, UTC when every value has a zone, local when
 * none has (a mix of both stays text: no zone to give the others). */
#ifndef IG_IMPORT_INFER_TIME_H
#define IG_IMPORT_INFER_TIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/model/logical.h"

struct time_guess {
    bool can_date, can_ts;
    bool any_ts, zoned, unzoned;
    uint8_t frac_digits;
};

/* Before the first value: anything is still possible. */
#define TIME_GUESS_INIT ((struct time_guess){.can_date = true, .can_ts = true})

static inline void guess_time(struct time_guess *t, const char *p, size_t n)
{
    struct ig_time_guess g;
    if (!(t->can_date || t->can_ts)) return;
    if (!ig_logical_guess(p, n, &g)) {
        t->can_date = t->can_ts = false;
        return;
    }
    t->can_date &= g.date;
    if (g.timestamp) {
        t->any_ts = true;
        t->zoned |= g.zoned;
        t->unzoned |= !g.zoned;
        if (g.frac_digits > t->frac_digits) t->frac_digits = g.frac_digits;
    }
}

/* What two guesses of one column's strings say together (its values read in
 * two runs: the inputs of an import sampled on two threads). */
static inline void merge_time(struct time_guess *t, const struct time_guess *o)
{
    t->can_date &= o->can_date;
    t->can_ts &= o->can_ts;
    t->any_ts |= o->any_ts;
    t->zoned |= o->zoned;
    t->unzoned |= o->unzoned;
    if (o->frac_digits > t->frac_digits) t->frac_digits = o->frac_digits;
}

/* The logical type the guess settled on (kind 0: none). */
static inline struct ig_logical time_type(const struct time_guess *t)
{
    struct ig_logical lt = {0};
    if (t->can_date && !t->any_ts) return (struct ig_logical){.kind = IG_LT_DATE};
    if (t->can_ts && t->any_ts && !(t->zoned && t->unzoned))
        lt = (struct ig_logical){.kind = IG_LT_TIMESTAMP, .unit = t->frac_digits > 6 ? IG_UNIT_NS : IG_UNIT_US,
                                 .utc = t->zoned};
    return lt;
}

#endif
