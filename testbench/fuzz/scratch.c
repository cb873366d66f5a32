#define _GNU_SOURCE
#include "testbench/fuzz/scratch.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static int fd = -1;
static char path[64];
static size_t size; /* of the file now */

const char *scratch_write(const uint8_t *data, size_t n)
{
    size_t done = 0;

    if (fd < 0) {
        fd = memfd_create("fuzz-input", MFD_CLOEXEC);
        if (fd < 0) {
            perror("scratch: memfd_create");
            abort();
        }
        snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    }
    while (done < n) {
        ssize_t k = pwrite(fd, data + done, n - done, (off_t)done);

        if (k <= 0) {
            perror("scratch: pwrite");
            abort();
        }
        done += (size_t)k;
    }
    /* Cut only what is left of a longer input: the pages written stay, which is faster. */
    if (n < size && ftruncate(fd, (off_t)n)) {
        perror("scratch: ftruncate");
        abort();
    }
    size = n;
    return path;
}
