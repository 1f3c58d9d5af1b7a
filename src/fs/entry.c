/* entry.c - names as the kernel is told of them (entry.h). */
#include "entry.h"
#include "namespace.h"
#include "plan.h"
#include "session.h"
#include "util/hash.h"

#include <string.h>

double fs_entry_absence_timeout(const struct fs_node *dir)
{
    return dir->kind == FS_K_DIR && dir->dir == FS_D_COLUMNS ? 0 : FS_NAME_SHORT_TIMEOUT;
}

struct fs_entry_times fs_entry_times(struct fs_session *s, const struct fs_node *n, uint64_t gen,
                                     bool views_cached)
{
    bool keep_name = fs_node_name_cached(n) || (views_cached && n->kind == FS_K_VIEW);
    /* a version's directory and a tag: `ingot gc` and `ingot tag` change them
     * without a reload, so their names are kept no longer than an absence */
    if (n->kind == FS_K_LINK || (n->kind == FS_K_DIR && n->dir == FS_D_VERSION))
        return (struct fs_entry_times){.entry_timeout = FS_NAME_SHORT_TIMEOUT,
                                       .attr_timeout = FS_NAME_SHORT_TIMEOUT};
    return (struct fs_entry_times){.entry_timeout = keep_name ? s->timeout : 0,
                                   .attr_timeout = s->timeout,
                                   .generation = fs_node_generational(n) ? gen : 0};
}

int fs_entry_lookup(struct fs_session *s, const struct fs_node *parent, const char *name,
                    uint32_t tid, struct fs_node *child, uint64_t *gen)
{
    int rc = fs_ns_lookup(s, parent, name, child);
    *gen = s->gens.current.gen;
    if (rc || !fs_node_generational(child)) return rc;
    /* an older generation only where it can be shown: arrays that keep their
     * shape, and the generation number itself unless view names are cached:
     * then a reader's lookups are mostly of that file, and a burst pinned on
     * it would hold its generation checks still while the files it opens move
     * on (the multi-file recipe would pass files of two generations) */
    struct fs_plan vp;
    bool may_be_old = child->kind == FS_K_SPECIAL
                          ? child->special == FS_S_GENERATION && !fs_view_names_cached(&s->vnames)
                          : fs_plan_view(s, child->col, child->view, &vp) &&
                                fs_plan_keeps_shape(&vp, child->view);
    uint64_t where = ig_mix64(fs_ino(parent) ^ ig_hash(name, strlen(name)));
    *gen = fs_generation_for_lookup(&s->gens, tid, where, may_be_old);
    child->gen_bits = fs_gen_bits(*gen);
    return 0;
}

bool fs_entry_view_name_cacheable(struct fs_session *s, const struct fs_node *n)
{
    struct fs_plan vp;
    if (n->kind != FS_K_VIEW || n->view == FS_V_ROWID) return false;
    return !(fs_plan_view(s, n->col, (enum fs_view)n->view, &vp) &&
             fs_plan_keeps_shape(&vp, (enum fs_view)n->view));
}

bool fs_may_change(const struct fs_session *s, uid_t uid, gid_t gid, const gid_t *groups,
                   int ngroups)
{
    if (s->read_only) return false;
    if (uid == 0 || uid == s->uid) return true;
    if (s->erase_gid == (gid_t)-1) return false;
    if (gid == s->erase_gid) return true;
    for (int i = 0; i < ngroups; i++)
        if (groups[i] == s->erase_gid) return true;
    return false;
}
