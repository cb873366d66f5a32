/*
 * fuzz_fault: the --fault grammar (models/flash/flash_fault.h). A specification is either
 * refused with a message and the configuration unchanged, or accepted into a configuration
 * the fault model builds from, with every injected value in its documented range.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
    if (!(flash_fault_rber(f, 1000, 3600.0) >= 0.0))
        abort();
    flash_fault_destroy(f);
    return 0;
}
