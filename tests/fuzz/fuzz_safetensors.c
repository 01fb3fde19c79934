/* fuzz_safetensors.c: libFuzzer harness for the model file reader
 * (dt_model_load and dt_model_read_meta, train/nn/dt_model_io.c: the
 * safetensors header through jansson, then the tensor checks). Random
 * bytes would rarely reach past the length prefix, and a whole LeNet file
 * is 247 KB: so an input whose first byte is even is a header only, and
 * the harness writes the file as (length, input[1..], the 61,706 floats of
 * the LeNet the header names, from a fixed pattern); an odd first byte
 * writes input[1..] as the whole file (length prefix, trailing bytes and
 * all). A file that loads must hold finite values and read back, saved
 * with dt_model_save, to the same parameters (a finding otherwise). Seeds:
 * headers dpsgd-train writes, with metadata, escapes, PyTorch's own
 * safetensors writer's layout (tests/fuzz/corpus/safetensors/). */
#include "fuzz_util.h"

#include <math.h>

#include "dt_model_io.h"
#include "dt_net.h"

static dt_net *net;
static float *data_part, *got, *again;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!net) {
        if (dt_net_new(DT_MODEL_LENET, 1, 28, 28, 10, 1, 0, &net) != CM_OK)
            abort();
        data_part = malloc(net->n_params * sizeof *data_part);
        got = malloc(net->n_params * sizeof *got);
        again = malloc(net->n_params * sizeof *again);
        if (!data_part || !got || !again)
            abort();
        for (size_t i = 0; i < net->n_params; i++)
            data_part[i] = (float)((int)(i % 97) - 48) / 64.0f;
    }
    if (size < 1)
        return 0;
    char path[512], back[512];
    if (data[0] & 1) {
        fuzz_put("in.st", data + 1, size - 1, path, sizeof path);
    } else {
        size_t hl = size - 1;
        snprintf(path, sizeof path, "%s/in.st", fuzz_scratch());
        FILE *f = fopen(path, "wb");
        unsigned char n8[8];
        for (int i = 0; i < 8; i++)
            n8[i] = (unsigned char)((uint64_t)hl >> (8 * i));
        if (!f || fwrite(n8, 1, 8, f) != 8 ||
            (hl && fwrite(data + 1, 1, hl, f) != hl) ||
            fwrite(data_part, sizeof *data_part, net->n_params, f) !=
                net->n_params ||
            fclose(f) != 0)
            abort();
    }
    dt_model_meta meta;
    (void)dt_model_read_meta(path, &meta);
    if (dt_model_load(net, path, got) == CM_OK) {
        for (size_t i = 0; i < net->n_params; i++)
            if (!isfinite(got[i]))
                abort();
        snprintf(back, sizeof back, "%s/back.st", fuzz_scratch());
        if (dt_model_save(net, got, &meta, back) != CM_OK ||
            dt_model_load(net, back, again) != CM_OK ||
            memcmp(got, again, net->n_params * sizeof *got) != 0)
            abort();
    }
    return 0;
}
