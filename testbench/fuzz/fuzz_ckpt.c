/*
 * fuzz_ckpt: the checkpoint loader (models/host/ckpt) on any file. The first byte of the input
 * chooses whether the CRCs are made right before the rest is written as the file (bit 0: the
 * header CRC at header bytes - 4, bit 1: the file CRC in the last 4 bytes), so that the checks
 * behind them are reached too. ckpt_read_info and ckpt_load_new either accept the file, with a
 * header that describes it, or refuse it with a message; never a crash or a leak.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "models/dnn/dnn_params.h"
#include "models/host/ckpt.h"
#include "testbench/fuzz/scratch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t get_u32(const uint8_t *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static void put_u32(uint8_t *b, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        b[i] = (uint8_t)(v >> (8 * i));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ckpt_info info;
    struct dnn_params *p;
    struct err e;
    uint8_t *file;
    size_t n;

    if (size < 1)
        return 0;
    n = size - 1;
    file = malloc(n ? n : 1);
    if (!file)
        abort();
    memcpy(file, data + 1, n);
    if ((data[0] & 1) && n >= 16) {
        uint32_t hb = get_u32(file + 12);

        if (hb >= 4 && hb <= n)
            put_u32(file + hb - 4, (uint32_t)crc32(0, file, hb - 4));
    }
    if ((data[0] & 2) && n >= 4)
        put_u32(file + n - 4, (uint32_t)crc32(0, file, (uInt)(n - 4)));
    const char *path = scratch_write(file, n);
    free(file);

    err_clear(&e);
    if (ckpt_read_info(path, &info, &e) == 0) {
        if (info.version < 1 || info.version > CKPT_VERSION || info.file_bytes != n ||
            !memchr(info.spec, 0, CKPT_SPEC_MAX))
            abort();
    } else if (!e.msg[0]) {
        abort();
    }
    err_clear(&e);
    if (ckpt_load_new(path, &p, &info, &e) == 0) {
        struct ckpt_run run = info.run;
        run.machine = info.has_machine ? info.machine : NULL;
        if (!p || info.file_bytes != n ||
            (info.version == CKPT_VERSION && ckpt_file_bytes(p, &run) != n))
            abort();
        dnn_params_destroy(p);
    } else if (p || !e.msg[0]) {
        abort();
    }
    return 0;
}
