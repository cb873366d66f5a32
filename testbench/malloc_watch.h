/*
 * malloc_watch: the largest block malloc'd while a test watches, through the sanitizers'
 * allocator hooks (the unit tests run under ASan). The hooks cannot be removed once installed,
 * so they look at a flag: malloc_watch_start() installs them (once) and starts counting,
 * malloc_watch_stop() returns the largest block since the start.
 */
#ifndef FLASHSTREAM_TESTBENCH_UNIT_MALLOC_WATCH_H
#define FLASHSTREAM_TESTBENCH_UNIT_MALLOC_WATCH_H

#include <stddef.h>

int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void *, size_t),
                                              void (*free_hook)(const volatile void *));

static size_t malloc_watch_largest;
static int malloc_watch_on, malloc_watch_hooked;

static void malloc_watch_note(const volatile void *p, size_t size)
{
    (void)p;
    if (malloc_watch_on && size > malloc_watch_largest)
        malloc_watch_largest = size;
}

static void malloc_watch_free(const volatile void *p)
{
    (void)p;
}

/* 0, or -1 when the hooks cannot be installed (no sanitizer allocator). */
static inline int malloc_watch_start(void)
{
    if (!malloc_watch_hooked &&
        !__sanitizer_install_malloc_and_free_hooks(malloc_watch_note, malloc_watch_free))
        return -1;
    malloc_watch_hooked = 1;
    malloc_watch_largest = 0;
    malloc_watch_on = 1;
    return 0;
}

static inline size_t malloc_watch_stop(void)
{
    malloc_watch_on = 0;
    return malloc_watch_largest;
}

#endif
