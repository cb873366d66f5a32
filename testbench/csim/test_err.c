/*
 * test_err: the one error type (csim/err.c): a NULL err drops the message and keeps the code,
 * long messages are cut at ERR_MSG_LEN - 1 characters with their NUL, and a prefix goes in
 * front of the message already there.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "csim/err.h"

static void test_set_formats_and_returns_code(void **state)
{
    struct err e = {{0}};

    (void)state;
    assert_int_equal(err_set(&e, -EINVAL, "channels %u; accepted 1..%u", 0u, 64u), -EINVAL);
    assert_string_equal(e.msg, "channels 0; accepted 1..64");
    assert_int_equal(err_set(&e, 0, "%s", "second"), 0);
    assert_string_equal(e.msg, "second");
}

static void test_null_err_keeps_the_code(void **state)
{
    (void)state;
    assert_int_equal(err_set(NULL, -ENOMEM, "out of memory"), -ENOMEM);
    assert_int_equal(err_prefix(NULL, -EIO, "stream '%s'", "W"), -EIO);
    err_clear(NULL);
}

static void test_set_cuts_a_long_message(void **state)
{
    struct err e;
    char big[2 * ERR_MSG_LEN];

    (void)state;
    memset(&e, 'x', sizeof(e));
    memset(big, 'a', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    assert_int_equal(err_set(&e, -E2BIG, "%s", big), -E2BIG);
    assert_int_equal(strlen(e.msg), ERR_MSG_LEN - 1);
    assert_int_equal(e.msg[ERR_MSG_LEN - 1], '\0');
    assert_int_equal(e.msg[ERR_MSG_LEN - 2], 'a');
}

static void test_prefix_composes(void **state)
{
    struct err e = {{0}};

    (void)state;
    err_set(&e, -ENOSPC, "LB 3 overflows the stream");
    assert_int_equal(err_prefix(&e, -ENOSPC, "stream '%s'", "W"), -ENOSPC);
    assert_string_equal(e.msg, "stream 'W': LB 3 overflows the stream");
    err_prefix(&e, -ENOSPC, "node %s", "wn");
    assert_string_equal(e.msg, "node wn: stream 'W': LB 3 overflows the stream");
}

static void test_prefix_of_empty_message(void **state)
{
    struct err e = {{0}};

    (void)state;
    err_prefix(&e, -EIO, "flash");
    assert_string_equal(e.msg, "flash: ");
}

static void test_prefix_cuts_at_the_end(void **state)
{
    struct err e;
    char big[ERR_MSG_LEN];

    (void)state;
    memset(big, 'm', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    err_set(&e, -EIO, "%s", big);
    err_prefix(&e, -EIO, "pre");
    assert_int_equal(strlen(e.msg), ERR_MSG_LEN - 1);
    assert_int_equal(e.msg[ERR_MSG_LEN - 1], '\0');
    assert_memory_equal(e.msg, "pre: mmm", 8);

    /* A prefix longer than the buffer still leaves ": " and the terminating NUL. */
    memset(big, 'p', sizeof(big) - 1);
    err_set(&e, -EIO, "old");
    err_prefix(&e, -EIO, "%s", big);
    assert_int_equal(strlen(e.msg), ERR_MSG_LEN - 1);
    assert_memory_equal(e.msg + ERR_MSG_LEN - 3, ": ", 2);
}

static void test_clear_empties(void **state)
{
    struct err e = {{0}};

    (void)state;
    err_set(&e, -EINVAL, "bad");
    err_clear(&e);
    assert_string_equal(e.msg, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_set_formats_and_returns_code),
        cmocka_unit_test(test_null_err_keeps_the_code),
        cmocka_unit_test(test_set_cuts_a_long_message),
        cmocka_unit_test(test_prefix_composes),
        cmocka_unit_test(test_prefix_of_empty_message),
        cmocka_unit_test(test_prefix_cuts_at_the_end),
        cmocka_unit_test(test_clear_empties),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
