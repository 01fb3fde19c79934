/* dt_model_io: a network's parameters as a safetensors file that PyTorch
 * loads, and back.
 *
 * Format (safetensors): an unsigned 64-bit little-endian header length N,
 * N bytes of JSON (padded with spaces to a multiple of 8), then the raw
 * little-endian float32 tensors. The header maps each tensor name to
 * {"dtype":"F32","shape":[...],"data_offsets":[begin,end]} (offsets into
 * the data part). Names and layouts are those of the PyTorch modules of
 * scripts/bench_torch.py, an nn.Sequential: "I.weight" and "I.bias" with I
 * the module's index there (lenet: 0, 3, 7, 9, 11; cnn: 0, 2, 5, 7, 11,
 * 13); conv weights out x in x kh x kw, linear weights out x in with the
 * input flattened (c, h, w), as dt_net keeps them; so
 *   net.load_state_dict({k: torch.from_numpy(v) for k, v in
 *                        safetensors.numpy.load_file(path).items()})
 * works, or the same with a few lines of numpy reading the header.
 */
#ifndef DT_MODEL_IO_H
#define DT_MODEL_IO_H

#include <stddef.h>

#include "cm_status.h"
#include "dt_net.h"

/* The PyTorch name of parameter tensor t of net (0, 1, ... in the order
 * weights, bias of each conv/fc layer, as in params), e.g. "3.weight",
 * into buf (at least 32 bytes). Returns its layer, or NULL past the end. */
const dt_layer *dt_model_tensor(const dt_net *net, size_t t, char *buf,
                                size_t cap);

/* Writes params (net->n_params floats) to path as safetensors, atomically
 * (temporary file + rename: a failure leaves no file, nor a partial one).
 * CM_EIO naming the path. O(n_params). */
cm_status dt_model_save(const dt_net *net, const float *params,
                        const char *path);

/* Checks that a model can be written at path (creates and removes a
 * temporary file next to it), so a run fails before training rather than
 * after. CM_EIO naming the path. */
cm_status dt_model_check_path(const char *path);

/* Reads a safetensors file written for net's architecture into params
 * (net->n_params floats; untouched on failure). Every tensor of the
 * network must be present once with dtype F32, its exact shape and data
 * offsets inside the file; no other tensors. CM_EIO (unreadable,
 * truncated) or CM_EINVAL (corrupt header, another architecture) with a
 * message naming the file and the tensor. O(file size). */
cm_status dt_model_load(const dt_net *net, const char *path, float *params);

#endif
