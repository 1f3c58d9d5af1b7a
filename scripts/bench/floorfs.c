/* floorfs - the floor under blobs/COL/ID.EXT: a FUSE filesystem that serves the
 * files of one directory from its own memory, read in whole when it starts.
 * Nothing is decoded, looked up in a table or read from disk while it serves:
 * what a reader pays to open and read one of its files is what FUSE itself
 * costs on this machine for a file of that size (scripts/bench/loader puts it
 * beside the plain directory and the ingot mount).
 *
 *   floorfs DIR MOUNTPOINT     serves DIR's regular files by name (no
 *                              subdirectories); daemonises once mounted;
 *                              fusermount3 -u MOUNTPOINT stops it
 *
 * It answers as the ingot daemon does where FUSE lets a daemon choose: no OPEN
 * (ENOSYS, so the kernel stops asking and keeps pages), no FLUSH, no IOCTL
 * (ENOSYS each time: the kernel forwards every one), names and attributes
 * cached for a day, listings with attributes (READDIRPLUS, so a listed name
 * needs no lookup); and it runs libfuse's single-threaded loop, the cheapest
 * on these machines (shared/tools/fuse-floor). */
#define FUSE_USE_VERSION 34
#include <dirent.h>
#include <errno.h>
#include <fuse_lowlevel.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const double TIMEOUT = 86400.0;

struct file {
    char *name, *data;
    size_t size;
};
static struct file *files; /* sorted by name */
static size_t nfiles;

/* Files[i]'s inode is i + 2 (1 is the root). */
static void stat_of(fuse_ino_t ino, struct stat *st)
{
    memset(st, 0, sizeof *st);
    st->st_ino = ino;
    if (ino == FUSE_ROOT_ID) {
        st->st_mode = S_IFDIR | 0555;
        st->st_nlink = 2;
        return;
    }
    st->st_mode = S_IFREG | 0444;
    st->st_nlink = 1;
    st->st_size = (off_t)files[ino - 2].size;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const struct file *)a)->name, ((const struct file *)b)->name);
}

static void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
    struct file key = {.name = (char *)name};
    const struct file *f = parent == FUSE_ROOT_ID ? bsearch(&key, files, nfiles, sizeof key, by_name) : NULL;
    if (!f) {
        fuse_reply_err(req, ENOENT);
        return;
    }
    struct fuse_entry_param e = {.ino = (fuse_ino_t)(f - files) + 2, .attr_timeout = TIMEOUT,
                                 .entry_timeout = TIMEOUT};
    stat_of(e.ino, &e.attr);
    fuse_reply_entry(req, &e);
}

static void op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    (void)fi;
    if (ino != FUSE_ROOT_ID && ino - 2 >= nfiles) {
        fuse_reply_err(req, ENOENT);
        return;
    }
    struct stat st;
    stat_of(ino, &st);
    fuse_reply_attr(req, &st, TIMEOUT);
}

static void op_nosys(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    (void)ino, (void)fi;
    fuse_reply_err(req, ENOSYS);
}

static void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, struct fuse_file_info *fi)
{
    (void)fi;
    if (ino < 2 || ino - 2 >= nfiles) {
        fuse_reply_err(req, EISDIR);
        return;
    }
    const struct file *f = &files[ino - 2];
    size_t at = (size_t)off < f->size ? (size_t)off : f->size, left = f->size - at;
    fuse_reply_buf(req, f->data + at, left < size ? left : size);
}

/* The root's files from offset off (the next file's index), as many as fit. */
static void op_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
                           struct fuse_file_info *fi)
{
    (void)fi;
    if (ino != FUSE_ROOT_ID) {
        fuse_reply_err(req, ENOTDIR);
        return;
    }
    char *buf = malloc(size);
    if (!buf) {
        fuse_reply_err(req, ENOMEM);
        return;
    }
    size_t used = 0;
    for (size_t i = (size_t)off; i < nfiles; i++) {
        struct fuse_entry_param e = {.ino = (fuse_ino_t)i + 2, .attr_timeout = TIMEOUT,
                                     .entry_timeout = TIMEOUT};
        stat_of(e.ino, &e.attr);
        size_t n = fuse_add_direntry_plus(req, buf + used, size - used, files[i].name, &e, (off_t)i + 1);
        if (n > size - used) break;
        used += n;
    }
    fuse_reply_buf(req, buf, used);
    free(buf);
}

static void op_init(void *data, struct fuse_conn_info *conn)
{
    (void)data;
    if (conn->capable & FUSE_CAP_NO_OPEN_SUPPORT) conn->want |= FUSE_CAP_NO_OPEN_SUPPORT;
    if (conn->capable & FUSE_CAP_NO_OPENDIR_SUPPORT) conn->want |= FUSE_CAP_NO_OPENDIR_SUPPORT;
    if (conn->capable & FUSE_CAP_READDIRPLUS) conn->want |= FUSE_CAP_READDIRPLUS;
    conn->want &= ~FUSE_CAP_READDIRPLUS_AUTO;
}

static const struct fuse_lowlevel_ops ops = {.init = op_init,
                                             .lookup = op_lookup,
                                             .getattr = op_getattr,
                                             .open = op_nosys,
                                             .flush = op_nosys,
                                             .opendir = op_nosys,
                                             .readdirplus = op_readdirplus,
                                             .read = op_read};

/* DIR's regular files, read in whole, sorted by name. */
static int load(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    size_t cap = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        struct stat st;
        FILE *fp = fopen(path, "rb");
        if (!fp) continue;
        if (fstat(fileno(fp), &st) || !S_ISREG(st.st_mode)) {
            fclose(fp);
            continue;
        }
        if (nfiles == cap) {
            cap = cap ? cap * 2 : 1024;
            struct file *nf = realloc(files, cap * sizeof *nf);
            if (!nf) return -1;
            files = nf;
        }
        struct file *f = &files[nfiles++];
        f->name = strdup(de->d_name);
        f->size = (size_t)st.st_size;
        f->data = malloc(f->size ? f->size : 1);
        if (!f->name || !f->data || fread(f->data, 1, f->size, fp) != f->size) return -1;
        fclose(fp);
    }
    closedir(d);
    qsort(files, nfiles, sizeof *files, by_name);
    return nfiles ? 0 : -1;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: floorfs DIR MOUNTPOINT\n");
        return 2;
    }
    if (load(argv[1])) {
        fprintf(stderr, "floorfs: %s holds no readable files\n", argv[1]);
        return 1;
    }
    char *fargv[] = {argv[0], NULL};
    struct fuse_args args = FUSE_ARGS_INIT(1, fargv);
    struct fuse_session *se = fuse_session_new(&args, &ops, sizeof ops, NULL);
    if (!se || fuse_session_mount(se, argv[2])) return 1;
    fuse_daemonize(0);
    int rc = fuse_session_loop(se);
    fuse_session_unmount(se);
    fuse_session_destroy(se);
    return rc ? 1 : 0;
}
