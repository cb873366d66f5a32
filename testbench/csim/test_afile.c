/*
 * test_afile: each guarantee of csim/afile.h, the one atomic-write path of every output file.
 *   1. commit puts exactly the bytes written under the final name and leaves no temporary;
 *   2. until commit, the final name keeps what it held (or stays absent);
 *   3. a write that fails (a full disk) makes commit refuse: the old file intact byte for byte,
 *      the temporary removed, the message naming the step and the temporary;
 *   4. afile_fail (a failure of the caller's own) and afile_abort leave the old file as well;
 *   5. two writers of one path get two temporaries, and the last commit wins whole;
 *   6. a file or symbolic link already at the temporary's name is refused, never written
 *      through;
 *   7. a rename that fails (a directory at the final name) removes the temporary;
 *   8. commit of a file never opened, or committed already, is refused.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "testbench/test_assert.h"

#include "csim/afile.h"
#include "testbench/tmpdir.h"

static int setup(void **state)
{
    return tmpdir_setup(state, "test_afile");
}

static int teardown(void **state)
{
    return tmpdir_teardown(state);
}

/* Write text to path through afile and commit: 0 or commit's error. */
static int write_whole(const char *path, const char *text, struct err *e)
{
    struct afile a;

    assert_int_equal(afile_open(&a, path, e), 0);
    assert_true(fputs(text, a.f) >= 0);
    return afile_commit(&a, e);
}

static void assert_content(const char *path, const char *want)
{
    char *got = tmpdir_slurp(path);

    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
}

/* 1 and 2. */
static void test_commit_and_nothing_before(void **state)
{
    struct tmpdir *t = *state;
    struct afile a;
    struct err e;
    char path[256];
    struct stat st;

    snprintf(path, sizeof(path), "%s", tmpdir_path(t, "out.txt"));
    assert_int_equal(afile_open(&a, path, &e), 0);
    fputs("first\n", a.f);
    fflush(a.f);
    assert_int_equal(lstat(path, &st), -1); /* not there until commit */
    assert_int_equal(tmpdir_temporaries(t, "out.txt"), 1);
    assert_int_equal(afile_commit(&a, &e), 0);
    assert_content(path, "first\n");
    assert_int_equal(tmpdir_temporaries(t, "out.txt"), 0);

    assert_int_equal(afile_open(&a, path, &e), 0);
    fputs("second, longer\n", a.f);
    fflush(a.f);
    assert_content(path, "first\n"); /* the old content until commit */
    assert_int_equal(afile_commit(&a, &e), 0);
    assert_content(path, "second, longer\n");
    assert_int_equal(tmpdir_temporaries(t, "out.txt"), 0);
}

/* 3. */
static void test_failed_write_keeps_old(void **state)
{
    struct tmpdir *t = *state;
    struct afile a;
    struct err e;
    char path[256];
    int rc;

    snprintf(path, sizeof(path), "%s", tmpdir_path(t, "out.txt"));
    assert_int_equal(write_whole(path, "old\n", &e), 0);
    assert_int_equal(afile_open(&a, path, &e), 0);
    assert_int_equal(tmpdir_fsize_limit(1000), 0);
    for (int i = 0; i < 1000; i++)
        fputs("0123456789", a.f);
    rc = afile_commit(&a, &e);
    assert_int_equal(tmpdir_fsize_limit(-1), 0);
    assert_int_equal(rc, -EFBIG);
    assert_msg_has(e.msg, "cannot write '");
    assert_msg_has(e.msg, "out.txt': write '");
    assert_msg_has(e.msg, ".tmp.");
    assert_content(path, "old\n");
    assert_int_equal(tmpdir_temporaries(t, "out.txt"), 0);
}

/* 4. */
static void test_fail_and_abort_keep_old(void **state)
{
    struct tmpdir *t = *state;
    struct afile a;
    struct err e;
    char path[256];

    snprintf(path, sizeof(path), "%s", tmpdir_path(t, "out.txt"));
    assert_int_equal(write_whole(path, "old\n", &e), 0);
    assert_int_equal(afile_open(&a, path, &e), 0);
    fputs("new\n", a.f);
    assert_int_equal(afile_fail(&a, "format", ENOMEM), -ENOMEM);
    assert_int_equal(afile_fail(&a, "later", EIO), -ENOMEM); /* the first failure wins */
    assert_int_equal(afile_commit(&a, &e), -ENOMEM);
    assert_msg_has(e.msg, "format '");
    assert_content(path, "old\n");
    assert_int_equal(tmpdir_temporaries(t, "out.txt"), 0);

    assert_int_equal(afile_open(&a, path, &e), 0);
    fputs("new\n", a.f);
    afile_abort(&a);
    assert_content(path, "old\n");
    assert_int_equal(tmpdir_temporaries(t, "out.txt"), 0);
}

/* 5. */
static void test_two_writers(void **state)
{
    struct tmpdir *t = *state;
    struct afile a, b;
    struct err e;
    char path[256];

    snprintf(path, sizeof(path), "%s", tmpdir_path(t, "out.txt"));
    assert_int_equal(afile_open(&a, path, &e), 0);
    assert_int_equal(afile_open(&b, path, &e), 0);
    assert_string_not_equal(a.tmp, b.tmp);
    assert_int_equal(tmpdir_temporaries(t, "out.txt"), 2);
    fputs("written by a, a longer text\n", a.f);
    fputs("by b\n", b.f);
    assert_int_equal(afile_commit(&b, &e), 0);
    assert_content(path, "by b\n");
    assert_int_equal(afile_commit(&a, &e), 0);
    assert_content(path, "written by a, a longer text\n");
    assert_int_equal(tmpdir_temporaries(t, "out.txt"), 0);
}

/* 6: the next temporary's name is predictable (pid and a counter); one planted there, a file or
 * a symbolic link to a victim, is refused and left as it was. */
static void test_planted_temporary_refused(void **state)
{
    struct tmpdir *t = *state;
    struct afile a;
    struct err e;
    char path[256], victim[256], next[300];
    unsigned long n;

    snprintf(path, sizeof(path), "%s", tmpdir_path(t, "out.txt"));
    snprintf(victim, sizeof(victim), "%s", tmpdir_path(t, "victim"));
    assert_int_equal(write_whole(victim, "victim\n", &e), 0);
    for (int kind = 0; kind < 2; kind++) {
        assert_int_equal(afile_open(&a, path, &e), 0);
        assert_int_equal(sscanf(strrchr(a.tmp, '.') + 1, "%lu", &n), 1);
        afile_abort(&a);
        snprintf(next, sizeof(next), "%s.tmp.%ld.%lu", path, (long)getpid(), n + 1);
        if (kind)
            assert_int_equal(symlink(victim, next), 0);
        else { /* with stdio: afile would take the counter's next value itself */
            FILE *f = fopen(next, "w");

            assert_non_null(f);
            fputs("planted\n", f);
            assert_int_equal(fclose(f), 0);
        }
        assert_int_equal(afile_open(&a, path, &e), -EEXIST);
        assert_msg_has(e.msg, "create '");
        assert_null(a.f);
        assert_content(victim, "victim\n");
        if (!kind)
            assert_content(next, "planted\n");
        unlink(next);
    }
}

/* 7. */
static void test_failed_rename(void **state)
{
    struct tmpdir *t = *state;
    struct err e;
    char path[256];
    struct stat st;

    snprintf(path, sizeof(path), "%s", tmpdir_path(t, "dir"));
    assert_int_equal(mkdir(path, 0755), 0);
    assert_int_equal(write_whole(path, "x\n", &e), -EISDIR);
    assert_msg_has(e.msg, "rename '");
    assert_int_equal(stat(path, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    assert_int_equal(tmpdir_temporaries(t, "dir"), 0);
}

/* 8. */
static void test_commit_not_open(void **state)
{
    struct tmpdir *t = *state;
    struct afile a;
    struct err e;
    char path[256];

    snprintf(path, sizeof(path), "%s", tmpdir_path(t, "no-such-dir/out.txt"));
    assert_int_equal(afile_open(&a, path, &e), -ENOENT);
    assert_msg_has(e.msg, "create '");
    assert_null(a.f);
    assert_int_equal(afile_commit(&a, &e), -ENOENT); /* the open's failure stands */
    snprintf(path, sizeof(path), "%s", tmpdir_path(t, "out.txt"));
    assert_int_equal(afile_open(&a, path, &e), 0);
    assert_int_equal(afile_commit(&a, &e), 0);
    assert_int_equal(afile_commit(&a, &e), -EBADF);
    assert_msg_has(e.msg, "commit (not open)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_commit_and_nothing_before, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failed_write_keeps_old, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fail_and_abort_keep_old, setup, teardown),
        cmocka_unit_test_setup_teardown(test_two_writers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_planted_temporary_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failed_rename, setup, teardown),
        cmocka_unit_test_setup_teardown(test_commit_not_open, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
