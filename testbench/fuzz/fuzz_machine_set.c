/*
 * fuzz_machine_set: the --set assignments of the machine description (machine_ini_set). The
 * input is a list of lines, each an assignment "section.key=value" applied in order; the first
 * byte chooses the section of a bare key (bit 0: "core", else none). Each assignment is applied
 * or refused with a message; after them the keys' ranges and the rules across keys are checked
 * (machine_ini_validate), which must either pass or say why.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "models/machine/machine_ini.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct machine_ini *m;
    struct err e;
    char *text;

    if (size < 1)
        return 0;
    const char *bare = (data[0] & 1) ? "core" : NULL;
    text = malloc(size);
    if (!text)
        abort();
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    if (machine_ini_create(&m, &e))
        abort();
    for (char *line = text, *next; line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        err_clear(&e);
        if (machine_ini_set(m, line, bare, &e) && !e.msg[0])
            abort();
    }
    err_clear(&e);
    if (machine_ini_validate(m, &e) && !e.msg[0])
        abort();
    machine_ini_destroy(m);
    free(text);
    return 0;
}
