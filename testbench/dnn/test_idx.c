/*
 * test_idx: the IDX loader on the real Fashion-MNIST files (skipped when the Debian package
 * dataset-fashion-mnist is not installed) and on files this test writes into a temporary
 * directory, gzipped and plain: good files, a missing file, bad magic numbers, bad dimensions,
 * truncated headers and data, trailing bytes, out-of-range labels, image/label count mismatch,
 * a header announcing gigabytes that the file does not hold (refused without allocating them),
 * data longer than the loader's first buffer.
 * Also the seeded Fisher-Yates shuffle and the batch gather.
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
#include <zlib.h>

#include "models/dnn/dnn_idx.h"
#include "models/dnn/dnn_rng.h"
#include "testbench/malloc_watch.h"

struct ctx {
    char dir[64];
    char path[16][128];
    int n_paths;
};

static int setup(void **state)
{
    struct ctx *c = calloc(1, sizeof(*c));

    if (!c)
        return -1;
    snprintf(c->dir, sizeof(c->dir), "/tmp/test_idx.XXXXXX");
    if (!mkdtemp(c->dir)) {
        free(c);
        return -1;
    }
    *state = c;
    return 0;
}

static int teardown(void **state)
{
    struct ctx *c = *state;

    for (int i = 0; i < c->n_paths; i++)
        unlink(c->path[i]);
    rmdir(c->dir);
    free(c);
    return 0;
}

/* Write bytes to <dir>/<name> (gzipped when gz) and return the path. */
static const char *put(struct ctx *c, const char *name, const void *data, size_t n, int gz)
{
    char buf[128];
    char *path;

    assert_true(c->n_paths < 16);
    snprintf(buf, sizeof(buf), "%s/%s", c->dir, name);
    path = c->path[c->n_paths++];
    memcpy(path, buf, sizeof(buf));
    if (gz) {
        gzFile f = gzopen(path, "wb");

        assert_non_null(f);
        assert_int_equal(gzwrite(f, data, (unsigned)n), (int)n);
        assert_int_equal(gzclose(f), Z_OK);
    } else {
        FILE *f = fopen(path, "wb");

        assert_non_null(f);
        assert_int_equal(fwrite(data, 1, n, f), n);
        assert_int_equal(fclose(f), 0);
    }
    return path;
}

static void be32(unsigned char *b, uint32_t v)
{
    b[0] = (unsigned char)(v >> 24);
    b[1] = (unsigned char)(v >> 16);
    b[2] = (unsigned char)(v >> 8);
    b[3] = (unsigned char)v;
}

/* An idx3 file image: header (magic, count, rows, cols) + count*rows*cols pixels. */
static size_t images_file(unsigned char *buf, uint32_t magic, uint32_t count, uint32_t rows,
                          uint32_t cols)
{
    be32(buf, magic);
    be32(buf + 4, count);
    be32(buf + 8, rows);
    be32(buf + 12, cols);
    for (uint32_t i = 0; i < count * rows * cols; i++)
        buf[16 + i] = (unsigned char)(i * 7 + 3);
    return 16 + (size_t)count * rows * cols;
}

static size_t labels_file(unsigned char *buf, uint32_t magic, uint32_t count)
{
    be32(buf, magic);
    be32(buf + 4, count);
    for (uint32_t i = 0; i < count; i++)
        buf[8 + i] = (unsigned char)(i % 10);
    return 8 + (size_t)count;
}

static void test_real_fashion_mnist(void **state)
{
    struct dnn_idx_set s;
    struct err e = {{0}};
    uint32_t hist[10] = {0};

    (void)state;
    if (access(DNN_IDX_DEFAULT_DIR "/train-images-idx3-ubyte.gz", R_OK) != 0) {
        print_message("Fashion-MNIST not installed in %s\n", DNN_IDX_DEFAULT_DIR);
        skip();
    }
    if (dnn_idx_load_fashion(NULL, true, &s, &e))
        fail_msg("%s", e.msg);
    assert_int_equal(s.count, 60000);
    assert_int_equal(s.rows, 28);
    assert_int_equal(s.cols, 28);
    for (uint32_t i = 0; i < s.count; i++)
        hist[s.labels[i]]++;
    for (int c = 0; c < 10; c++)
        assert_int_equal(hist[c], 6000); /* Fashion-MNIST is balanced */
    assert_int_equal(s.labels[0], 9);    /* the first training image is an ankle boot */
    dnn_idx_fini(&s);
    assert_null(s.images);

    if (dnn_idx_load_fashion(NULL, false, &s, &e))
        fail_msg("%s", e.msg);
    assert_int_equal(s.count, 10000);
    memset(hist, 0, sizeof(hist));
    for (uint32_t i = 0; i < s.count; i++)
        hist[s.labels[i]]++;
    for (int c = 0; c < 10; c++)
        assert_int_equal(hist[c], 1000);
    dnn_idx_fini(&s);
}

static void test_good_files(void **state)
{
    struct ctx *c = *state;
    static unsigned char im[16 + 5 * 3 * 2], lb[8 + 5];
    struct dnn_idx_set a, b;
    struct err e = {{0}};
    const char *ip, *lp, *ipz, *lpz;

    images_file(im, DNN_IDX_MAGIC_IMAGES, 5, 3, 2);
    labels_file(lb, DNN_IDX_MAGIC_LABELS, 5);
    ip = put(c, "img", im, sizeof(im), 0);
    lp = put(c, "lab", lb, sizeof(lb), 0);
    ipz = put(c, "img.gz", im, sizeof(im), 1);
    lpz = put(c, "lab.gz", lb, sizeof(lb), 1);
    assert_int_equal(dnn_idx_load(ip, lp, 10, &a, &e), 0);
    assert_int_equal(dnn_idx_load(ipz, lpz, 10, &b, &e), 0);
    assert_int_equal(a.count, 5);
    assert_int_equal(a.rows, 3);
    assert_int_equal(a.cols, 2);
    assert_memory_equal(a.images, im + 16, 30);
    assert_memory_equal(a.labels, lb + 8, 5);
    assert_memory_equal(b.images, a.images, 30);
    assert_memory_equal(b.labels, a.labels, 5);
    dnn_idx_fini(&a);
    dnn_idx_fini(&b);
}

static void test_missing_file(void **state)
{
    struct ctx *c = *state;
    struct dnn_idx_set s;
    struct err e = {{0}};
    char path[160];

    snprintf(path, sizeof(path), "%s/nope.gz", c->dir);
    assert_int_equal(dnn_idx_load_images(path, &s, &e), -ENOENT);
    assert_msg_has(e.msg, path);
    assert_msg_has(e.msg, "cannot open: No such file or directory");
    assert_msg_has(e.msg, "IDX file, gzipped or plain");
    assert_null(s.images);
    assert_int_equal(dnn_idx_load_fashion(c->dir, true, &s, &e), -ENOENT);
    assert_msg_has(e.msg, "train-images-idx3-ubyte.gz");
}

static void test_bad_magic(void **state)
{
    struct ctx *c = *state;
    static unsigned char im[16 + 4], lb[8 + 4];
    struct dnn_idx_set s;
    struct err e = {{0}};

    for (int gz = 0; gz < 2; gz++) {
        const char *p;

        /* A label file where images are expected, and the other way round. */
        labels_file(lb, DNN_IDX_MAGIC_LABELS, 4);
        p = put(c, gz ? "l1.gz" : "l1", lb, sizeof(lb), gz);
        assert_int_equal(dnn_idx_load_images(p, &s, &e), -EINVAL);
        assert_msg_has(e.msg, p);
        assert_msg_has(e.msg, "bad magic number 0x00000801 (an idx1-ubyte label file)");
        assert_msg_has(e.msg, "accepted 0x00000803");
        images_file(im, DNN_IDX_MAGIC_IMAGES, 1, 2, 2);
        p = put(c, gz ? "i1.gz" : "i1", im, sizeof(im), gz);
        assert_int_equal(dnn_idx_load_labels(p, 10, &s, &e), -EINVAL);
        assert_msg_has(e.msg, "bad magic number 0x00000803");
        assert_msg_has(e.msg, "accepted 0x00000801");
        /* Float element type (0x0D). */
        images_file(im, 0x00000D03u, 1, 2, 2);
        p = put(c, gz ? "f.gz" : "f", im, sizeof(im), gz);
        assert_int_equal(dnn_idx_load_images(p, &s, &e), -EINVAL);
        assert_msg_has(e.msg, "0x00000D03");
    }
}

static void test_bad_dims(void **state)
{
    struct ctx *c = *state;
    static unsigned char im[16 + 4];
    struct dnn_idx_set s;
    struct err e = {{0}};
    const char *p;

    images_file(im, DNN_IDX_MAGIC_IMAGES, 1, 2, 2);
    be32(im + 8, 0); /* zero rows */
    p = put(c, "z", im, sizeof(im), 0);
    assert_int_equal(dnn_idx_load_images(p, &s, &e), -EINVAL);
    assert_msg_has(e.msg, "header says 1 images of 0 x 2 pixels; accepted 1..16777216 images");
    be32(im + 8, 5000); /* too tall */
    p = put(c, "t", im, sizeof(im), 1);
    assert_int_equal(dnn_idx_load_images(p, &s, &e), -EINVAL);
    assert_msg_has(e.msg, "5000 x 2");
}

static void test_truncated(void **state)
{
    struct ctx *c = *state;
    static unsigned char im[16 + 10 * 4 * 4], lb[8 + 10];
    struct dnn_idx_set s;
    struct err e = {{0}};
    size_t n;

    for (int gz = 0; gz < 2; gz++) {
        const char *p;

        n = images_file(im, DNN_IDX_MAGIC_IMAGES, 10, 4, 4);
        p = put(c, gz ? "ti.gz" : "ti", im, n - 1, gz); /* one pixel short */
        assert_int_equal(dnn_idx_load_images(p, &s, &e), -EINVAL);
        assert_msg_has(e.msg, p);
        assert_msg_has(e.msg,
                       "truncated: the pixel data (images x rows x cols) needs 160 bytes from "
                       "byte 16, the file ends after 159 of them");
        assert_null(s.images);
        p = put(c, gz ? "th.gz" : "th", im, 10, gz); /* inside the header */
        assert_int_equal(dnn_idx_load_images(p, &s, &e), -EINVAL);
        assert_msg_has(e.msg, "truncated: the rest of the 16-byte idx3 header (count, rows, cols) "
                              "needs 12 bytes from byte 4, the file ends after 6 of them; "
                              "accepted a complete IDX file");
        n = labels_file(lb, DNN_IDX_MAGIC_LABELS, 10);
        p = put(c, gz ? "tl.gz" : "tl", lb, n - 3, gz);
        assert_int_equal(dnn_idx_load_labels(p, 10, &s, &e), -EINVAL);
        assert_msg_has(e.msg, "truncated: the label data needs 10 bytes from byte 8");
    }
}

/* A 16-byte header announcing 2^24 images of 16 x 16 pixels (4 GiB), and a label header
 * announcing 2^24 labels, each followed by a few bytes: refused as truncated, and what is
 * allocated follows what the file holds, not what it announces. */
static void test_huge_header_small_file(void **state)
{
    struct ctx *c = *state;
    unsigned char im[16 + 100], lb[8 + 100];
    struct dnn_idx_set s;
    struct err e = {{0}};

    memset(im, 1, sizeof(im));
    memset(lb, 1, sizeof(lb));
    be32(im, DNN_IDX_MAGIC_IMAGES);
    be32(im + 4, DNN_IDX_MAX_COUNT);
    be32(im + 8, 16);
    be32(im + 12, 16);
    be32(lb, DNN_IDX_MAGIC_LABELS);
    be32(lb + 4, DNN_IDX_MAX_COUNT);
    for (int gz = 0; gz < 2; gz++) {
        const char *pi = put(c, gz ? "hi.gz" : "hi", im, sizeof(im), gz);
        const char *pl = put(c, gz ? "hl.gz" : "hl", lb, sizeof(lb), gz);

        assert_int_equal(malloc_watch_start(), 0);
        int rci = dnn_idx_load_images(pi, &s, &e);
        struct err ei = e;
        int rcl = dnn_idx_load_labels(pl, 10, &s, &e);
        size_t largest = malloc_watch_stop();
        assert_int_equal(rci, -EINVAL);
        assert_int_equal(rcl, -EINVAL);
        if (gz) { /* deflate expands at most 1032 times: refused from the file's size */
            assert_msg_has(ei.msg, "truncated: the pixel data (images x rows x cols) needs "
                                   "4294967296 bytes, more than a gzip file of");
            assert_msg_has(e.msg,
                           "truncated: the label data needs 16777216 bytes, more than a gzip "
                           "file of");
        } else {
            assert_msg_has(ei.msg,
                           "truncated: the pixel data (images x rows x cols) needs "
                           "4294967296 bytes from byte 16, the file ends after 100 of them");
            assert_msg_has(e.msg, "truncated: the label data needs 16777216 bytes from byte 8, the "
                                  "file ends after 100 of them");
        }
        if (largest > (2u << 20))
            fail_msg("a %zu-byte block was allocated for a file of 116 bytes", largest);
    }
}

/* Fashion-MNIST's shape is checked from the header, before the data are read: a complete test
 * set of 60000 images (47 MB of pixels in a small .gz) is refused without allocating them. */
static void test_fashion_shape_before_data(void **state)
{
    struct ctx *c = *state;
    size_t n = 16 + (size_t)60000 * 28 * 28;
    unsigned char *im = calloc(1, n);
    struct dnn_idx_set s;
    struct err e = {{0}};

    assert_non_null(im);
    be32(im, DNN_IDX_MAGIC_IMAGES);
    be32(im + 4, 60000);
    be32(im + 8, 28);
    be32(im + 12, 28);
    put(c, "t10k-images-idx3-ubyte.gz", im, n, 1);
    free(im);
    assert_int_equal(malloc_watch_start(), 0);
    int rc = dnn_idx_load_fashion(c->dir, false, &s, &e);
    size_t largest = malloc_watch_stop();
    assert_int_equal(rc, -EINVAL);
    assert_msg_has(e.msg,
                   "60000 images of 28 x 28 pixels; accepted Fashion-MNIST's 10000 images of "
                   "28 x 28");
    if (largest > (2u << 20))
        fail_msg("a %zu-byte block was allocated before the shape was checked", largest);

    /* The same damaged .gz with a plain file beside it: the message says the plain one was not
     * read, and how to make it so. */
    put(c, "t10k-images-idx3-ubyte", "", 0, 0);
    assert_int_equal(dnn_idx_load_fashion(c->dir, false, &s, &e), -EINVAL);
    assert_msg_has(e.msg, "t10k-images-idx3-ubyte beside it is read only when no .gz is there: "
                          "remove or repair the .gz");
}

/* What is not a regular file is refused at once: a FIFO would block open() until a writer came;
 * a directory is named as one. */
static void test_not_a_regular_file(void **state)
{
    struct ctx *c = *state;
    struct dnn_idx_set s;
    struct err e = {{0}};
    char path[160];

    snprintf(path, sizeof(path), "%s/fifo", c->dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_int_equal(dnn_idx_load_images(path, &s, &e), -EINVAL);
    unlink(path);
    assert_msg_has(e.msg, "is a FIFO (named pipe), not a regular file; accepted a regular file");
    assert_int_equal(dnn_idx_load_labels(c->dir, 10, &s, &e), -EINVAL);
    assert_msg_has(e.msg, "is a directory, not a regular file");
}

/* A data file that exists but cannot be opened is the one the message names, with its reason
 * (here a symbolic link loop under the plain name; no .gz), not the missing .gz. */
static void test_unopenable_file_named(void **state)
{
    struct ctx *c = *state;
    struct dnn_idx_set s;
    struct err e = {{0}};
    char path[160];

    snprintf(path, sizeof(path), "%s/train-images-idx3-ubyte", c->dir);
    assert_int_equal(symlink(path, path), 0);
    assert_int_equal(dnn_idx_load_fashion(c->dir, true, &s, &e), -ELOOP);
    unlink(path);
    assert_msg_has(e.msg,
                   "train-images-idx3-ubyte': cannot open: Too many levels of symbolic links");
    if (strstr(e.msg, ".gz"))
        fail_msg("message \"%s\" names the .gz that is not there", e.msg);
}

/* Pixels beyond the loader's first buffer (1 MiB), whole and one byte short. */
static void test_data_past_first_buffer(void **state)
{
    struct ctx *c = *state;
    const uint32_t count = 50, rows = 256, cols = 256; /* 3.125 MiB of pixels */
    size_t n = 16 + (size_t)count * rows * cols;
    unsigned char *im = malloc(n);
    struct dnn_idx_set s;
    struct err e = {{0}};

    assert_non_null(im);
    images_file(im, DNN_IDX_MAGIC_IMAGES, count, rows, cols);
    for (int gz = 0; gz < 2; gz++) {
        const char *p = put(c, gz ? "big.gz" : "big", im, n, gz);

        assert_int_equal(dnn_idx_load_images(p, &s, &e), 0);
        assert_int_equal(s.count, count);
        assert_memory_equal(s.images, im + 16, n - 16);
        dnn_idx_fini(&s);
        p = put(c, gz ? "bigt.gz" : "bigt", im, n - 1, gz);
        assert_int_equal(dnn_idx_load_images(p, &s, &e), -EINVAL);
        assert_msg_has(e.msg,
                       "needs 3276800 bytes from byte 16, the file ends after 3276799 of them");
        assert_null(s.images);
    }
    free(im);
}

static void test_truncated_gzip_stream(void **state)
{
    struct ctx *c = *state;
    static unsigned char im[16 + 50 * 8 * 8];
    struct dnn_idx_set s;
    struct err e = {{0}};
    const char *p;
    FILE *f;
    long len;
    size_t n;

    /* A complete gzip file cut in the middle of the compressed stream. */
    n = images_file(im, DNN_IDX_MAGIC_IMAGES, 50, 8, 8);
    p = put(c, "cut.gz", im, n, 1);
    f = fopen(p, "rb+");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    fclose(f);
    assert_int_equal(truncate(p, len / 2), 0);
    assert_int_equal(dnn_idx_load_images(p, &s, &e), -EINVAL);
    assert_msg_has(e.msg, "truncated: the pixel data");
}

static void test_trailing_and_labels(void **state)
{
    struct ctx *c = *state;
    static unsigned char im[16 + 3 * 2 * 2 + 1], lb[8 + 3 + 1];
    struct dnn_idx_set s;
    struct err e = {{0}};
    size_t n;
    const char *p;

    n = images_file(im, DNN_IDX_MAGIC_IMAGES, 3, 2, 2);
    p = put(c, "trail.gz", im, n + 1, 1);
    assert_int_equal(dnn_idx_load_images(p, &s, &e), -EINVAL);
    assert_msg_has(e.msg, "trailing data after the 28 bytes its header announces");
    n = labels_file(lb, DNN_IDX_MAGIC_LABELS, 3);
    lb[8 + 2] = 12;
    p = put(c, "lab12", lb, n, 0);
    assert_int_equal(dnn_idx_load_labels(p, 10, &s, &e), -EINVAL);
    assert_msg_has(e.msg, "label 12 of sample 2; accepted 0..9 (10 classes)");
    assert_int_equal(dnn_idx_load_labels(p, 0, &s, &e), 0); /* no class check */
    assert_int_equal(s.count, 3);
    dnn_idx_fini(&s);
}

static void test_count_mismatch(void **state)
{
    struct ctx *c = *state;
    static unsigned char im[16 + 6 * 2 * 2], lb[8 + 5];
    struct dnn_idx_set s;
    struct err e = {{0}};

    for (int gz = 0; gz < 2; gz++) {
        const char *ip, *lp;

        images_file(im, DNN_IDX_MAGIC_IMAGES, 6, 2, 2);
        labels_file(lb, DNN_IDX_MAGIC_LABELS, 5);
        ip = put(c, gz ? "m6.gz" : "m6", im, sizeof(im), gz);
        lp = put(c, gz ? "m5.gz" : "m5", lb, sizeof(lb), gz);
        assert_int_equal(dnn_idx_load(ip, lp, 10, &s, &e), -EINVAL);
        assert_msg_has(e.msg, ip);
        assert_msg_has(e.msg, lp);
        assert_msg_has(e.msg, "has 6 images but");
        assert_msg_has(e.msg, "has 5 labels; accepted equal counts");
        assert_null(s.images);
        assert_null(s.labels);
    }
}

static void test_shuffle_and_gather(void **state)
{
    enum { N = 1000 };
    static uint32_t a[N], b[N], seen[N];
    struct dnn_idx_set s;
    uint8_t imgs[3 * 4], labs[3];
    struct dnn_rng r;
    uint32_t ref[N];

    (void)state;
    dnn_idx_shuffle(a, N, 5);
    dnn_idx_shuffle(b, N, 5);
    assert_memory_equal(a, b, sizeof(a));
    memset(seen, 0, sizeof(seen));
    for (uint32_t i = 0; i < N; i++)
        seen[a[i]]++;
    for (uint32_t i = 0; i < N; i++)
        assert_int_equal(seen[i], 1); /* a permutation */
    dnn_idx_shuffle(b, N, 6);
    assert_memory_not_equal(a, b, sizeof(a));
    /* The README's algorithm, restated. */
    dnn_rng_seed(&r, 5);
    for (uint32_t i = 0; i < N; i++)
        ref[i] = i;
    for (uint32_t i = N - 1; i >= 1; i--) {
        uint32_t j = (uint32_t)(dnn_rng_next(&r) % (i + 1)), t = ref[i];

        ref[i] = ref[j];
        ref[j] = t;
    }
    assert_memory_equal(a, ref, sizeof(a));
    dnn_idx_shuffle(b, 1, 9);
    assert_int_equal(b[0], 0);

    /* gather: samples 2, 0, 2 of a 3-sample set of 2 x 2 images. */
    uint8_t px[12] = {0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23}, lb[3] = {7, 8, 9};
    const uint32_t pick[3] = {2, 0, 2};
    const uint8_t want[12] = {20, 21, 22, 23, 0, 1, 2, 3, 20, 21, 22, 23};
    s.count = 3;
    s.rows = s.cols = 2;
    s.images = px;
    s.labels = lb;
    dnn_idx_gather(&s, pick, 3, imgs, labs);
    assert_memory_equal(imgs, want, 12);
    assert_int_equal(labs[0], 9);
    assert_int_equal(labs[1], 7);
    assert_int_equal(labs[2], 9);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_real_fashion_mnist),
        cmocka_unit_test_setup_teardown(test_good_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_magic, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_dims, setup, teardown),
        cmocka_unit_test_setup_teardown(test_truncated, setup, teardown),
        cmocka_unit_test_setup_teardown(test_truncated_gzip_stream, setup, teardown),
        cmocka_unit_test_setup_teardown(test_huge_header_small_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_data_past_first_buffer, setup, teardown),
        cmocka_unit_test_setup_teardown(test_trailing_and_labels, setup, teardown),
        cmocka_unit_test_setup_teardown(test_count_mismatch, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fashion_shape_before_data, setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_a_regular_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unopenable_file_named, setup, teardown),
        cmocka_unit_test(test_shuffle_and_gather),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
