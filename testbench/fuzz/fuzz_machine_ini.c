/*
 * fuzz_machine_ini: the machine-description parser (models/machine/machine_ini) on any file.
 * A file is either applied or refused with a message. One that is applied and passes
 * machine_ini_validate is written back (machine_ini_write) and read again: the configuration
 * read must be the same, key for key.
 */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "models/machine/machine_ini.h"
#include "testbench/fuzz/scratch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* c written by machine_ini_write and read back into a new description: the same keys. */
static void round_trip(const struct machine_cfg *c)
{
    struct machine_ini *m;
    struct err e;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);

    if (!f)
        abort();
    machine_ini_write(f, c, "round trip");
    if (fclose(f))
        abort();
    const char *path = scratch_write((const uint8_t *)text, len);
    free(text);
    if (machine_ini_create(&m, &e))
        abort();
    if (machine_ini_load(m, path, &e) || machine_ini_diff(c, machine_ini_cfg(m), NULL, NULL)) {
        fprintf(stderr, "fuzz_machine_ini: the written file does not read back: %s\n", e.msg);
        abort();
    }
    machine_ini_destroy(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = scratch_write(data, size);
    struct machine_ini *m;
    struct err e;

    if (machine_ini_create(&m, &e))
        abort();
    err_clear(&e);
    if (machine_ini_load(m, path, &e) == 0) {
        if (machine_ini_validate(m, &e) == 0)
            round_trip(machine_ini_cfg(m));
    } else if (!e.msg[0]) {
        abort();
    }
    machine_ini_destroy(m);
    return 0;
}
