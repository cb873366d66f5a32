/*
 * dnn_idx: IDX data set files (MNIST, Fashion-MNIST) and a seeded shuffle of sample indices.
 *
 * Contract
 * --------
 * Modelled: reading idx3-ubyte image files and idx1-ubyte label files, gzipped or plain (zlib's
 * gzread reads both), with every header field checked: the magic number (0x00000803 images,
 * 0x00000801 labels: two zero bytes, type 0x08 = unsigned byte, the number of dimensions),
 * the dimensions (images 1..DNN_IDX_MAX_DIM rows and columns, 1..DNN_IDX_MAX_COUNT samples),
 * the length (a truncated file, or trailing bytes after the data, is an error), labels below
 * the number of classes, and equal image and label counts. Every error names the file, what
 * was wrong and what is accepted. What is not a regular file (a FIFO, a directory) is refused
 * at once (csim/rfile.h). Memory for the data grows with the bytes actually read, so a
 * header announcing more than the file holds costs at most twice the file, and a header
 * announcing more than the file can hold (a plain file's size, a gzip file's size times
 * deflate's largest ratio 1032) is refused before anything is allocated; so is a shape other
 * than Fashion-MNIST's when loading Fashion-MNIST. The Fashion-MNIST files
 * of Debian's dataset-fashion-mnist under DNN_IDX_DEFAULT_DIR ("<dir>/train-images-idx3-ubyte.gz",
 * the same name without .gz is tried second). The shuffle is Fisher-Yates driven by splitmix64
 * (models/dnn/README.md section 2.3). Not modelled: other IDX element types (int, float), where the
 * data live in flash (the accelerator's NV stream), image preprocessing beyond the u8 pixels.
 * Units: pixels u8, row-major [count x rows x cols]; labels u8; counts in samples.
 */
#ifndef MODELS_DNN_DNN_IDX_H
#define MODELS_DNN_DNN_IDX_H

#include <stdbool.h>
#include <stdint.h>

#include "csim/err.h"

#define DNN_IDX_DEFAULT_DIR  "/usr/share/datasets/fashion-mnist"
#define DNN_IDX_MAGIC_IMAGES 0x00000803u
#define DNN_IDX_MAGIC_LABELS 0x00000801u
#define DNN_IDX_MAX_DIM      4096u      /* rows and columns of an image */
#define DNN_IDX_MAX_COUNT    (1u << 24) /* samples in a file */

/* A data set in memory: images and labels of `count` samples, caller-owned (dnn_idx_fini). */
struct dnn_idx_set {
    uint32_t count;
    uint32_t rows, cols;
    uint8_t *images; /* [count x rows x cols] */
    uint8_t *labels; /* [count] */
};

/* Images only: s->labels stays NULL. -ENOENT/-EACCES.. (cannot open), -EINVAL (format),
 * -EIO (read error, corrupt gzip stream), -ENOMEM. */
int dnn_idx_load_images(const char *path, struct dnn_idx_set *s, struct err *e);
/* Labels only: s->images stays NULL, rows = cols = 0. classes > 0: every label must be below
 * it (-EINVAL naming the first bad sample); classes == 0: no check. */
int dnn_idx_load_labels(const char *path, uint32_t classes, struct dnn_idx_set *s, struct err *e);
/* Both, with the counts compared (-EINVAL naming both files and both counts). */
int dnn_idx_load(const char *images_path, const char *labels_path, uint32_t classes,
                 struct dnn_idx_set *s, struct err *e);
/* Fashion-MNIST train (60000) or test (10000) set from dir (NULL: DNN_IDX_DEFAULT_DIR), 10
 * classes, 28 x 28 images expected (-EINVAL otherwise). */
int dnn_idx_load_fashion(const char *dir, bool train, struct dnn_idx_set *s, struct err *e);
void dnn_idx_fini(struct dnn_idx_set *s);

/* idx[i] = the i-th sample of the permutation of 0..n-1 given by seed:
 * idx[i] = i; then for i = n-1 down to 1: j = splitmix64_next % (i + 1); swap idx[i], idx[j]. */
void dnn_idx_shuffle(uint32_t *idx, uint32_t n, uint64_t seed);

/* Copy samples idx[0..n-1] of s into images [n x rows x cols] and labels [n]. */
void dnn_idx_gather(const struct dnn_idx_set *s, const uint32_t *idx, uint32_t n, uint8_t *images,
                    uint8_t *labels);

#endif
