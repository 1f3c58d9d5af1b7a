/* inode.c - nodes to inode numbers and back (inode.h). */
#include "inode.h"

#define KIND_SHIFT 60

uint64_t fs_ino(const struct fs_node *n)
{
    uint64_t k = (uint64_t)n->kind << KIND_SHIFT;
    switch (n->kind) {
    case FS_K_ROOT: return 1;
    case FS_K_DIR: return k | (uint64_t)(n->dir & 0xFF) << 32 | n->scope;
    case FS_K_SPECIAL: return k | (uint64_t)(n->gen_bits & 0xFF) << 8 | (n->special & 0xFF);
    case FS_K_VIEW:
        return k | (uint64_t)(n->view & 0x7) << 57 | (uint64_t)(n->col & 0xFFFFFF) << 33 |
               (uint64_t)(n->scope & FS_MAX_GROUPS) << 8 | (n->gen_bits & 0xFF);
    case FS_K_ROW: return k | (n->row & ((1ULL << KIND_SHIFT) - 1));
    case FS_K_BLOB_DIR:
    case FS_K_BLOB_ROW:
    case FS_K_BLOB:
        return k | (uint64_t)(n->blob & 0xFF) << 52 | (n->row & (FS_MAX_BLOB_ROW - 1)) << 16 |
               (n->k & 0xFFFF);
    case FS_K_STAGE:
    case FS_K_LINK:
    case FS_K_SUB: return k | (n->row & ((1ULL << KIND_SHIFT) - 1));
    }
    return 0;
}

bool fs_node_of(uint64_t ino, struct fs_node *n)
{
    *n = (struct fs_node){0};
    if (ino == 1) {
        n->kind = FS_K_ROOT;
        return true;
    }
    n->kind = (enum fs_kind)(ino >> KIND_SHIFT);
    switch (n->kind) {
    case FS_K_DIR:
        n->dir = (uint32_t)(ino >> 32) & 0xFF;
        n->scope = (uint32_t)ino;
        return n->dir >= FS_D_COLUMNS && n->dir <= FS_D_VERSION;
    case FS_K_SPECIAL:
        n->special = (uint32_t)ino & 0xFF;
        n->gen_bits = (uint32_t)(ino >> 8) & 0xFF;
        return n->special >= FS_S_README && n->special <= FS_S_GENERATION && !(ino >> 16 & 0xFFFFFFFFFFFull);
    case FS_K_VIEW:
        n->view = (uint32_t)(ino >> 57) & 0x7;
        n->col = (uint32_t)(ino >> 33) & 0xFFFFFF;
        n->scope = (uint32_t)(ino >> 8) & FS_MAX_GROUPS;
        n->gen_bits = (uint32_t)ino & 0xFF;
        return n->view < FS_V_COUNT;
    case FS_K_ROW:
    case FS_K_STAGE:
    case FS_K_LINK:
    case FS_K_SUB: n->row = ino & ((1ULL << KIND_SHIFT) - 1); return true;
    case FS_K_BLOB_DIR:
    case FS_K_BLOB_ROW:
    case FS_K_BLOB:
        n->blob = (uint32_t)(ino >> 52) & 0xFF;
        n->row = (ino >> 16) & (FS_MAX_BLOB_ROW - 1);
        n->k = (uint32_t)ino & 0xFFFF;
        return true;
    default: return false;
    }
}
