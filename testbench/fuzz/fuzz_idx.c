/*
 * fuzz_idx: the IDX loader (models/dnn/dnn_idx) on any file, plain or gzipped: the input is
 * loaded as an image file and as a label file of 10 classes. A file either loads, with a shape
 * its header allows and every label below 10, or is refused with a message; never a crash,
 * a leak or memory beyond what the file holds.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "models/dnn/dnn_idx.h"
#include "testbench/fuzz/scratch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = scratch_write(data, size);
    struct dnn_idx_set s;
    struct err e;

    err_clear(&e);
    if (dnn_idx_load_images(path, &s, &e) == 0) {
        if (!s.images || s.labels || s.count < 1 || s.count > DNN_IDX_MAX_COUNT || s.rows < 1 ||
            s.rows > DNN_IDX_MAX_DIM || s.cols < 1 || s.cols > DNN_IDX_MAX_DIM)
            abort();
        dnn_idx_fini(&s);
    } else if (!e.msg[0]) {
        abort();
    }
    err_clear(&e);
    if (dnn_idx_load_labels(path, 10, &s, &e) == 0) {
        if (!s.labels || s.images || s.count < 1 || s.count > DNN_IDX_MAX_COUNT)
            abort();
        for (uint32_t i = 0; i < s.count; i++)
            if (s.labels[i] >= 10)
                abort();
        dnn_idx_fini(&s);
    } else if (!e.msg[0]) {
        abort();
    }
    return 0;
}
