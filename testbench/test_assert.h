/*
 * test_assert: what the cmocka unit tests share. assert_msg_has checks that an error message
 * names what it must (at the caller's line); test_seed gives a test's random seed, FS_SEED if
 * it is set (so that a failure can be repeated), printed once.
 */
#ifndef FLASHSTREAM_TESTBENCH_UNIT_TEST_ASSERT_H
#define FLASHSTREAM_TESTBENCH_UNIT_TEST_ASSERT_H

#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* Fails unless string msg contains needle. */
#define assert_msg_has(msg, needle)                                                                \
    do {                                                                                           \
        const char *msg_ = (msg), *needle_ = (needle);                                             \
        if (!strstr(msg_, needle_))                                                                \
            fail_msg("message \"%s\" lacks \"%s\"", msg_, needle_);                                \
    } while (0)

/* The seed of test `name`'s random stimulus: FS_SEED, or dflt. */
static inline uint64_t test_seed(const char *name, uint64_t dflt)
{
    static bool printed;
    static uint64_t seed;
    const char *env = getenv("FS_SEED");

    if (!printed) {
        seed = env && *env ? strtoull(env, NULL, 0) : dflt;
        printf("%s: seed 0x%" PRIx64 " (set FS_SEED to repeat)\n", name, seed);
        printed = true;
    }
    return seed;
}

#endif
