/* dt_data: image data sets for the trainer, loaded whole or by shard.
 *
 * Sources: fashion-mnist and mnist (IDX files, gzipped or plain, in a
 * directory: train-images-idx3-ubyte[.gz], train-labels-idx1-ubyte[.gz],
 * t10k-...), cifar10 (binary batches data_batch_1..5.bin and
 * test_batch.bin in DIR or DIR/cifar-10-batches-bin) and synthetic
 * (1x28x28, 10 classes, generated from a seed image by image, for tests).
 *
 * Files are streamed: loading a subset of images by index list (a worker's
 * shard) keeps only that subset in memory, the labels of a split can be
 * read alone (for label-skewed partitioning), and the training set's
 * per-channel pixel mean and std are computed in one streaming pass.
 * Pixels are stored as floats (p/255 - mean_c) / std_c, NCHW.
 */
#ifndef DT_DATA_H
#define DT_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "cm_status.h"

typedef enum {
    DT_DS_FASHION,  /* Fashion-MNIST, IDX */
    DT_DS_MNIST,    /* MNIST, IDX */
    DT_DS_CIFAR10,  /* CIFAR-10 binary batches */
    DT_DS_SYNTHETIC /* generated from the seed */
} dt_dataset;

typedef enum { DT_SPLIT_TRAIN = 0, DT_SPLIT_TEST = 1 } dt_split;

typedef struct {
    dt_dataset kind;  /* which reader */
    char *dir;        /* data directory (owned; NULL for synthetic) */
    uint64_t seed;    /* synthetic: generator seed */
    size_t synth_n[2];/* synthetic: images in the train and test splits */
} dt_source;

typedef struct {
    size_t n, c, h, w; /* images and their shape */
} dt_shape;

typedef struct {
    size_t c;          /* channels */
    double mean[3];    /* per-channel mean of p/255 over the training set */
    double std[3];     /* per-channel std of p/255 (population) */
} dt_norm;

/* Every supported data set has ten classes (labels 0..9). */
#define DT_DATA_CLASSES 10

typedef struct {
    size_t n;          /* images */
    size_t c, h, w;    /* shape of one image */
    size_t classes;    /* labels are in [0, classes) */
    float *x;          /* n*c*h*w normalized pixels, NCHW (owned) */
    uint8_t *y;        /* n labels (owned) */
} dt_data;

/* Parses "fashion-mnist", "mnist", "cifar10" or "synthetic"; CM_EINVAL
 * naming the value otherwise. */
cm_status dt_dataset_parse(const char *name, dt_dataset *d);

/* The data set's name, and its default directory (NULL for synthetic). */
const char *dt_dataset_name(dt_dataset d);
const char *dt_dataset_default_dir(dt_dataset d);

/* Describes a source: dir NULL means the default directory. Synthetic uses
 * seed and 4096 / 1024 images (change synth_n after init). The directory's
 * existence is checked here: CM_EIO naming it. Free with
 * dt_source_destroy. */
cm_status dt_source_init(dt_source *s, dt_dataset kind, const char *dir,
                         uint64_t seed);

/* Frees the source's strings; accepts a zeroed source. */
void dt_source_destroy(dt_source *s);

/* Number and shape of the images of a split, from the file headers only
 * (IDX: also checks that image and label counts agree). Errors name the
 * file: CM_EIO (missing, unreadable), CM_EFORMAT (magic, counts, size). */
cm_status dt_source_shape(const dt_source *s, dt_split sp, dt_shape *sh);

/* All labels of a split without the pixels: *labels (n bytes, caller
 * frees) and *n. Errors as dt_source_shape, plus labels out of 0..9. */
cm_status dt_data_labels(const dt_source *s, dt_split sp, uint8_t **labels,
                         size_t *n);

/* Per-channel mean and std of p/255 over the whole training split, in one
 * streaming pass (O(images) time, O(1) memory). Every set-up calls it first,
 * so it also checks that the test split has the training split's image
 * shape (CM_EFORMAT naming the data directory and both shapes otherwise):
 * the model is built for one shape. */
cm_status dt_data_stats(const dt_source *s, dt_norm *norm);

/* Loads images idx[0..n_idx) of a split (idx NULL: all of them, in order)
 * into out, normalized with norm; idx may be in any order and repeat.
 * Memory: only the n_idx selected images (plus O(n) bytes of index).
 * CM_EINVAL for an index out of range; file errors as dt_source_shape
 * (truncated data, corrupt gzip). On error out is left empty. */
cm_status dt_data_load(const dt_source *s, dt_split sp, const size_t *idx,
                       size_t n_idx, const dt_norm *norm, dt_data *out);

/* Frees a data set's arrays; accepts a zeroed or NULL one. */
void dt_data_destroy(dt_data *d);

#endif
