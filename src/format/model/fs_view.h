/* fs_view.h - the views a column has as files (shared by the mount and the text
 * rendering of blob references, which names mount paths). */
#ifndef IG_FORMAT_FS_VIEW_H
#define IG_FORMAT_FS_VIEW_H

enum fs_view {
    FS_V_TEXT = 0,  /* columns/NAME */
    FS_V_NPY = 1,   /* columns/NAME.npy */
    FS_V_VALID = 2, /* columns/NAME.valid.npy */
    FS_V_ROWID = 3, /* columns/_rowid.npy (column id unused) */
    FS_V_VALUES = 4,  /* columns/NAME.values.npy: a list column's elements */
    FS_V_OFFSETS = 5, /* columns/NAME.offsets.npy: where each row's elements start */
    FS_V_F16 = 6,     /* columns/NAME.f16.npy: an fp16-quantised column's raw halves */
    FS_V_PARQUET = 7, /* a row group as one file: parquet/G.parquet (column id 0),
                       * arrow/G.arrow (1) or jsonl/G.jsonl (2), see fs/inode.h */
};
#define FS_V_COUNT 8

#endif
