/* dt_model_io: a network's parameters as a safetensors file that PyTorch
 * loads, and back.
 *
 * Format (safetensors): an unsigned 64-bit little-endian header length N,
 * N bytes of JSON (padded with spaces to a multiple of 8), then the raw
 * little-endian float32 tensors. The header maps each tensor name to
 * {"dtype":"F32","shape":[...],"data_offsets":[begin,end]} (offsets into
 * the data part). Names and layouts are those of the PyTorch modules of
 * scripts/benches/bench_torch.py, an nn.Sequential: "I.weight" and "I.bias" with I
 * the module's index there (lenet: 0, 3, 7, 9, 11; cnn: 0, 2, 5, 7, 11,
 * 13); conv weights out x in x kh x kw, linear weights out x in with the
 * input flattened (c, h, w), as dt_net keeps them; so
 *   net.load_state_dict({k: torch.from_numpy(v) for k, v in
 *                        safetensors.numpy.load_file(path).items()})
 * works, or the same with a few lines of numpy reading the header.
 *
 * The header's "__metadata__" (strings, as the format requires) records
 * what a reader needs besides the tensors: "model" (lenet, cnn),
 * "input_shape" ("[c, h, w]"), "classes", "dataset" and the per-channel
 * normalisation "mean" and "std" ("[m0, ...]", %.17g) that the pixels
 * p/255 were normalized with, (p/255 - mean_c) / std_c, plus "producer".
 * The header is written and read by jansson; the reader accepts any valid
 * JSON (every escape, any string length) and nothing else, and follows
 * the format's rules: tensors may not overlap and must cover the data
 * part exactly (no hole, no trailing byte).
 */
#ifndef DT_MODEL_IO_H
#define DT_MODEL_IO_H

#include <stddef.h>

#include "cm_status.h"
#include "dt_net.h"

/* Largest model file read, in bytes; checked on the file's size before
 * reading. */
#define DT_MODEL_MAX_BYTES ((size_t)1 << 30)

/* What a model file's "__metadata__" says (fields empty / 0 when absent). */
typedef struct {
    char model[16];      /* architecture, dt_model_name ("" unknown) */
    size_t c, h, w;      /* input shape (0 unknown) */
    size_t classes;      /* outputs (0 unknown) */
    char dataset[32];    /* data set name ("" unknown) */
    size_t channels;     /* entries of mean and std (0: none) */
    double mean[3];      /* per-channel mean of p/255 */
    double std[3];       /* per-channel std of p/255 */
} dt_model_meta;

/* The PyTorch name of parameter tensor t of net (0, 1, ... in the order
 * weights, bias of each conv/fc layer, as in params), e.g. "3.weight",
 * into buf (at least 32 bytes). Returns its layer, or NULL past the end. */
const dt_layer *dt_model_tensor(const dt_net *net, size_t t, char *buf,
                                size_t cap);

/* Writes params (net->n_params floats) to path as safetensors, atomically
 * (temporary file + rename: a failure leaves no file, nor a partial one),
 * with meta's data set and normalisation in "__metadata__" (meta may be
 * NULL; model, input shape and classes always come from net). CM_EIO
 * naming the path. O(n_params). */
cm_status dt_model_save(const dt_net *net, const float *params,
                        const dt_model_meta *meta, const char *path);

/* What dt_model_load checks before reading path: a regular file (a
 * directory or FIFO is refused at once, never opened for a blocking
 * read) of at most DT_MODEL_MAX_BYTES. Cheap (stat): dpsgd-train runs it
 * on rank 0 before any rank reads. CM_EIO / CM_EFORMAT naming the path. */
cm_status dt_model_check_file(const char *path);

/* Reads only the header's "__metadata__" of path into meta (zeroed
 * first; absent fields stay empty). Errors as dt_model_load. */
cm_status dt_model_read_meta(const char *path, dt_model_meta *meta);

/* Checks that a model can be written at path (creates and removes a
 * temporary file next to it), so a run fails before training rather than
 * after. CM_EIO naming the path. */
cm_status dt_model_check_path(const char *path);

/* Reads a safetensors file written for net's architecture into params
 * (net->n_params floats; untouched on failure). Every tensor of the
 * network must be present once with dtype F32, its exact shape and data
 * offsets inside the file, not overlapping and covering the data part
 * exactly; no other tensors; every value finite. CM_EIO (unreadable),
 * CM_EFORMAT (corrupt or truncated file, NaN or Inf naming the tensor) or
 * CM_EINVAL (another architecture) with a message naming the file and the
 * tensor. O(file size). */
cm_status dt_model_load(const dt_net *net, const char *path, float *params);

#endif
