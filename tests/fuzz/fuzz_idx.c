/* fuzz_idx.c: libFuzzer harness for the IDX reader (train/data/dt_idx.c)
 * through the data set API every trainer uses. An input is split at a
 * 2-byte big-endian length L into an images file (L bytes) and a labels
 * file (the rest); either may be gzipped (zlib detects it). The pair is
 * written as both the training and the test split of a directory, then
 * shape, labels, statistics and a full load run on it. The header-vs-size
 * check (issue 10 item 10) keeps every allocation within a small multiple
 * of the input size. */
#include "fuzz_util.h"

#include "dt_data.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    size_t li = (size_t)data[0] << 8 | data[1];
    data += 2;
    size -= 2;
    if (li > size)
        li = size;
    char path[512];
    fuzz_put("train-images-idx3-ubyte", data, li, path, sizeof path);
    fuzz_put("t10k-images-idx3-ubyte", data, li, path, sizeof path);
    fuzz_put("train-labels-idx1-ubyte", data + li, size - li, path,
             sizeof path);
    fuzz_put("t10k-labels-idx1-ubyte", data + li, size - li, path,
             sizeof path);
    dt_source s;
    if (dt_source_init(&s, DT_DS_MNIST, fuzz_scratch(), 0) != CM_OK)
        abort();
    dt_shape sh;
    dt_norm norm;
    dt_data d;
    uint8_t *labels = NULL;
    size_t n = 0;
    if (dt_source_shape(&s, DT_SPLIT_TRAIN, &sh) == CM_OK &&
        dt_data_labels(&s, DT_SPLIT_TRAIN, &labels, &n) == CM_OK &&
        dt_data_stats(&s, &norm) == CM_OK &&
        dt_data_load(&s, DT_SPLIT_TEST, NULL, 0, &norm, &d) == CM_OK) {
        if (d.n != sh.n || n != sh.n)
            abort();
        for (size_t i = 0; i < d.n; i++)
            if (d.y[i] > 9)
                abort();
        dt_data_destroy(&d);
    }
    free(labels);
    dt_source_destroy(&s);
    return 0;
}
