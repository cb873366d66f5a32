/*
 * fuzz_fault: the --fault grammar (models/flash/flash_fault.h). A specification is either
 * refused with a message and the configuration unchanged, or accepted into a configuration
 * the fault model builds from, with every injected value in its documented range, its RBER at
 * most 0.5; applied to a machine's flash (the default FMS), it is either refused with a message
 * or every dead die and channel it names is one the flash has.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "models/flash/flash_cfg.h"
#include "models/flash/flash_fault.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct flash_fault_cfg c, before;
    struct flash_fault *f;
    char text[256];
    struct err e;

    if (size >= sizeof(text))
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    flash_fault_cfg_default(&c);
    before = c;
    if (flash_fault_parse(&c, text, &e)) {
        if (!e.msg[0] || memcmp(&c, &before, sizeof(c)))
            abort(); /* refused without a word, or half-applied */
        return 0;
    }
    if (!c.on || !(c.rber_x >= 0.0 && c.rber_x <= 1e12) ||
        !(c.program_rate >= 0.0 && c.program_rate <= 1.0) || !(c.age_s >= 0.0) ||
        c.n_dead > FLASH_FAULT_MAX_DEAD || c.seed == 0)
        abort();
    if (flash_fault_create(&c, &f, &e))
        abort(); /* accepted but cannot be built */
    double r = flash_fault_rber(f, 1000, 3600.0);
    if (!(r >= 0.0 && r <= 0.5))
        abort();
    flash_fault_destroy(f);

    struct flash_cfg fc;
    flash_cfg_default(&fc);
    fc.fault = c;
    if (flash_cfg_validate(&fc, &e)) {
        if (!e.msg[0])
            abort();
        return 0;
    }
    uint32_t dies = fc.geom.chips_per_chan * fc.geom.dies_per_chip;
    for (uint32_t i = 0; i < c.n_dead; i++)
        if (c.dead[i].ch >= fc.geom.channels || (!c.dead[i].channel && c.dead[i].die >= dies))
            abort(); /* a fault that would never fire, accepted */
    return 0;
}
