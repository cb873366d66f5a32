/*
 * test_ckpt: checkpoint files (models/host/ckpt.h). Round trip of SGD and Adam params with
 * non-zero optimizer state (dnn_params_equal) and of the run position; a run resumed from a
 * checkpoint continues bit for bit like one never interrupted (golden trainer); the format's
 * fixed offsets, the machine text of version 2 carried as it was given, a version 1 file (no
 * machine) still read; refusals with their reasons: another model, another optimizer kind,
 * truncated at every interesting length, bad magic, newer version, corrupted header and payload,
 * trailing bytes, a step in progress; the params untouched by a refused load; an existing
 * checkpoint intact after a failed write (temporary file not creatable, writes failing with ENOSPC,
 * a missing directory, a read-only directory when not root).
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

#include "models/dnn/dnn_golden.h"
#include "models/dnn/dnn_params.h"
#include "models/dnn/dnn_rng.h"
#include "models/host/ckpt.h"
#include "testbench/malloc_watch.h"
#include "testbench/tmpdir.h"

#define IN    16
#define B     8
#define N     2
#define STEPS 6

struct ctx {
    struct tmpdir t;
    uint8_t images[STEPS * 2][B * IN];
    uint8_t labels[STEPS * 2][B];
};

static int setup(void **state)
{
    struct ctx *c = calloc(1, sizeof(*c));
    struct dnn_rng r;

    if (!c)
        return -1;
    if (tmpdir_make(&c->t, "test_ckpt")) {
        free(c);
        return -1;
    }
    dnn_rng_seed(&r, 99);
    for (int s = 0; s < STEPS * 2; s++) {
        for (int i = 0; i < B * IN; i++)
            c->images[s][i] = (uint8_t)dnn_rng_below(&r, 256);
        for (int i = 0; i < B; i++)
            c->labels[s][i] = (uint8_t)dnn_rng_below(&r, 4);
    }
    *state = c;
    return 0;
}

static int teardown(void **state)
{
    struct ctx *c = *state;
    int rc = tmpdir_remove(&c->t);

    free(c);
    return rc;
}

static const char *in_dir(struct ctx *c, const char *name)
{
    return tmpdir_path(&c->t, name);
}

static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf;
    long len;

    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)len + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    *n = (size_t)len;
    return buf;
}

static void spit(const char *path, const unsigned char *b, size_t n)
{
    FILE *f = fopen(path, "wb");

    assert_non_null(f);
    assert_int_equal(fwrite(b, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

static struct dnn_params *make(const char *spec, bool adam, uint64_t seed)
{
    struct dnn_model m;
    struct dnn_opt o;
    struct dnn_params *p;
    struct err e;

    assert_int_equal(dnn_model_parse(&m, spec, &e), 0);
    if (adam) {
        dnn_params_opt_adam(&o, 0.01f);
        o.weight_decay = 0.001f;
    } else {
        dnn_params_opt_sgd(&o, 0.05f, 0.9f, 0.0005f);
        o.sched = DNN_LR_COSINE;
        o.total_steps = 100;
    }
    assert_int_equal(
        dnn_params_create(&(struct dnn_params_cfg){.model = &m, .opt = &o, .seed = seed}, &p, &e),
        0);
    return p;
}

/* Train p for steps [from, to) of the fixed batches. */
static void train(struct ctx *c, struct dnn_params *p, int from, int to)
{
    struct dnn_golden g;
    struct err e;

    assert_int_equal(dnn_golden_init(&g, p, &e), 0);
    for (int s = from; s < to; s++)
        if (dnn_golden_step(&g, c->images[s], c->labels[s], B, N, NULL, &e))
            fail_msg("step %d: %s", s, e.msg);
    dnn_golden_fini(&g);
}

static const struct ckpt_run RUN = {.seed = 7,
                                    .epoch = 2,
                                    .batch = 1234,
                                    .sim_time_ps = 123456789012345ull,
                                    .batch_size = B,
                                    .nodes = N,
                                    .samples = 60000,
                                    .machine = "core.rows=8\ncore.cols=8\n"};

/* info's run is RUN, its machine text in info->machine. */
static void assert_run_is_RUN(const struct ckpt_info *info)
{
    struct ckpt_run run = info->run;

    assert_null(run.machine);
    run.machine = RUN.machine;
    assert_memory_equal(&run, &RUN, sizeof(RUN));
    assert_true(info->has_machine);
    assert_string_equal(info->machine, RUN.machine);
}

static void roundtrip(struct ctx *c, bool adam)
{
    struct dnn_params *p = make("mlp:16-12-8-4", adam, 7), *q;
    struct ckpt_info info;
    struct err e;
    struct stat st;

    train(c, p, 0, 3);
    assert_int_equal(ckpt_save(in_dir(c, "a.ckpt"), p, &RUN, &e), 0);
    assert_int_equal(stat(c->t.path, &st), 0);
    assert_int_equal((uint64_t)st.st_size, ckpt_file_bytes(p, &RUN));
    assert_int_equal(tmpdir_temporaries(&c->t, "a.ckpt"), 0);

    /* A fresh params of the same model and kind, other seed and hyperparameters. */
    q = make("mlp:16-12-8-4", adam, 12345);
    q->opt.lr = 1.0f;
    assert_false(dnn_params_equal(p, q));
    if (ckpt_load(in_dir(c, "a.ckpt"), q, &info, &e))
        fail_msg("%s", e.msg);
    assert_true(dnn_params_equal(p, q));
    assert_memory_equal(&p->opt, &q->opt, sizeof(p->opt));
    assert_int_equal(info.step, 3);
    assert_int_equal(info.version, CKPT_VERSION);
    assert_string_equal(info.spec, "mlp:16-12-8-4");
    assert_run_is_RUN(&info);
    assert_int_equal(info.file_bytes, ckpt_file_bytes(p, &RUN));
    dnn_params_destroy(q);

    /* ckpt_load_new builds the params from the file alone. */
    assert_int_equal(ckpt_load_new(in_dir(c, "a.ckpt"), &q, NULL, &e), 0);
    assert_true(dnn_params_equal(p, q));
    dnn_params_destroy(q);
    dnn_params_destroy(p);
}

static void test_roundtrip_sgd(void **state)
{
    roundtrip(*state, false);
}

static void test_roundtrip_adam(void **state)
{
    roundtrip(*state, true);
}

/* Train STEPS at once, or half, checkpoint, resume in fresh params, and the rest: same bits. */
static void test_resume_bit_identical(void **state)
{
    struct ctx *c = *state;

    for (int adam = 0; adam <= 1; adam++) {
        struct dnn_params *whole = make("mlp:16-12-4", adam, 5),
                          *half = make("mlp:16-12-4", adam, 5), *resumed;
        struct err e;

        train(c, whole, 0, STEPS);
        train(c, half, 0, STEPS / 2);
        assert_int_equal(ckpt_save(in_dir(c, "half.ckpt"), half, &RUN, &e), 0);
        dnn_params_destroy(half);
        assert_int_equal(ckpt_load_new(in_dir(c, "half.ckpt"), &resumed, NULL, &e), 0);
        assert_int_equal(resumed->step, STEPS / 2);
        train(c, resumed, STEPS / 2, STEPS);
        if (!dnn_params_equal(whole, resumed))
            fail_msg("%s: resumed run differs (digest %016llx vs %016llx)", adam ? "adam" : "sgd",
                     (unsigned long long)dnn_params_digest(resumed),
                     (unsigned long long)dnn_params_digest(whole));
        dnn_params_destroy(whole);
        dnn_params_destroy(resumed);
    }
}

static uint32_t le32(const unsigned char *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* The documented offsets hold what they say. */
static void test_format_layout(void **state)
{
    struct ctx *c = *state;
    struct dnn_params *p = make("mlp:16-12-4", false, 5);
    struct err e;
    unsigned char *b;
    size_t n;

    train(c, p, 0, 2);
    assert_int_equal(ckpt_save(in_dir(c, "f.ckpt"), p, &RUN, &e), 0);
    b = slurp(c->t.path, &n);
    assert_memory_equal(b, "FSCKPT\x1a\n", 8);
    assert_int_equal(le32(b + 8), 2);
    uint32_t hb = le32(b + 12), ml = (uint32_t)strlen(RUN.machine);
    assert_int_equal(hb, 136 + strlen("mlp:16-12-4") + 8 * 2 + 4 + ml + 4);
    assert_int_equal(le32(b + 16), n);
    assert_int_equal(le32(b + 24), 2); /* step */
    assert_int_equal(le32(b + 32), 7); /* seed */
    assert_int_equal(le32(b + 40), 2); /* epoch */
    assert_int_equal(le32(b + 48), 1234);
    assert_int_equal(le32(b + 64), B);
    assert_int_equal(le32(b + 68), N);
    assert_int_equal(le32(b + 72), 0); /* sgd */
    assert_int_equal(le32(b + 76), 2); /* cosine */
    assert_int_equal(le32(b + 108), 60000);
    assert_int_equal(le32(b + 128), 2);
    assert_memory_equal(b + 136, "mlp:16-12-4", 11);
    assert_int_equal(le32(b + 147), 16);
    assert_int_equal(le32(b + 151), 12);
    assert_int_equal(le32(b + 163), ml); /* the machine text, after the layer list */
    assert_memory_equal(b + 167, RUN.machine, ml);
    assert_int_equal(le32(b + hb - 4), (uint32_t)crc32(0, b, hb - 4));
    /* First payload float: W[0][0] of layer 0. */
    uint32_t w0;
    memcpy(&w0, &p->layer[0].w[0], 4);
    assert_int_equal(le32(b + hb), w0);
    assert_int_equal(le32(b + n - 4), (uint32_t)crc32(0, b, (uInt)(n - 4)));
    /* Size: header + (W, b, v_W, v_b) of both layers + CRC. */
    assert_int_equal(n, hb + 4 * 2 * (16 * 12 + 12 + 12 * 4 + 4) + 4);
    free(b);
    dnn_params_destroy(p);
}

/* Load `bytes` as a checkpoint into p: must fail with rc and a message with needle; p intact. */
static void refuse(struct ctx *c, struct dnn_params *p, const unsigned char *bytes, size_t n,
                   int rc, const char *needle)
{
    struct err e;
    uint64_t digest = dnn_params_digest(p), step = p->step;

    spit(in_dir(c, "bad.ckpt"), bytes, n);
    assert_int_equal(ckpt_load(c->t.path, p, NULL, &e), rc);
    assert_msg_has(e.msg, needle);
    assert_int_equal(dnn_params_digest(p), digest);
    assert_int_equal(p->step, step);
}

static void fix_header_crc(unsigned char *b)
{
    uint32_t hb = le32(b + 12), v = (uint32_t)crc32(0, b, hb - 4);

    for (int i = 0; i < 4; i++)
        b[hb - 4 + i] = (unsigned char)(v >> (8 * i));
}

/* A sparse file at path: the header of an SGD checkpoint of the 3-layer MLP 16-W-W-4 (the
 * other fields those of `good`, a real checkpoint), its CRC right, the size the header
 * announces, and nothing but zeros (holes) after the header. */
static void sparse_checkpoint(const char *path, const unsigned char *good, uint32_t w)
{
    unsigned char h[512];
    char spec[64];
    uint32_t dims[3][2] = {{16, w}, {w, w}, {w, 4}};
    uint32_t s = (uint32_t)snprintf(spec, sizeof(spec), "mlp:16-%u-%u-4", w, w);
    uint32_t hb = 136 + s + 8 * 3 + 4;
    uint64_t floats = 0, bytes;
    FILE *f;

    memcpy(h, good, 128);
    h[8] = 1; /* format version 1: no machine text */
    for (int l = 0; l < 3; l++)
        floats += 2 * ((uint64_t)dims[l][0] * dims[l][1] + dims[l][1]); /* W, b; their velocity */
    bytes = hb + 4 * floats + 4;
    for (int i = 0; i < 4; i++) {
        h[12 + i] = (unsigned char)(hb >> (8 * i));
        h[128 + i] = (unsigned char)(3u >> (8 * i));
        h[132 + i] = (unsigned char)(s >> (8 * i));
    }
    for (int i = 0; i < 8; i++)
        h[16 + i] = (unsigned char)(bytes >> (8 * i));
    memcpy(h + 136, spec, s);
    for (int l = 0; l < 3; l++)
        for (int k = 0; k < 2; k++)
            for (int i = 0; i < 4; i++)
                h[136 + s + 8 * l + 4 * k + i] = (unsigned char)(dims[l][k] >> (8 * i));
    fix_header_crc(h);
    f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(h, 1, hb, f), hb);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(truncate(path, (off_t)bytes), 0);
}

/* Sizes are checked before they are trusted: a sparse file announcing a 135 MB model is refused
 * by its CRC, read in chunks, before the model is allocated; one announcing 34 GB, more than
 * this host holds, is refused by that figure before anything is read. */
static void test_size_checked_before_allocation(void **state)
{
    struct ctx *c = *state;
    struct dnn_params *p = make("mlp:16-12-4", false, 5), *q;
    struct err e;
    unsigned char *good;
    size_t n;

    assert_int_equal(ckpt_save(in_dir(c, "good.ckpt"), p, &RUN, &e), 0);
    good = slurp(c->t.path, &n);
    sparse_checkpoint(in_dir(c, "sparse.ckpt"), good, 4096);
    assert_int_equal(malloc_watch_start(), 0);
    int rc = ckpt_load_new(c->t.path, &q, NULL, &e);
    size_t largest = malloc_watch_stop();
    assert_int_equal(rc, -EINVAL);
    assert_null(q);
    assert_msg_has(e.msg, "is corrupted: CRC32 0x00000000 stored");
    if (largest > (1u << 20))
        fail_msg("a %zu-byte block was allocated before the CRC was checked", largest);

    sparse_checkpoint(in_dir(c, "huge.ckpt"), good, 65536);
    assert_int_equal(ckpt_load_new(c->t.path, &q, NULL, &e), -ENOMEM);
    assert_null(q);
    assert_msg_has(e.msg, "loading checkpoint of model mlp:16-65536-65536-4 needs");
    assert_msg_has(e.msg, "of host memory; this host holds at most");
    free(good);
    dnn_params_destroy(p);
}

/* Both CRCs made right again after b (n bytes) was changed. */
static void fix_crcs(unsigned char *b, size_t n)
{
    uint32_t v;

    fix_header_crc(b);
    v = (uint32_t)crc32(0, b, (uInt)(n - 4));
    for (int i = 0; i < 4; i++)
        b[n - 4 + i] = (unsigned char)(v >> (8 * i));
}

static void put_le(unsigned char *b, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        b[i] = (unsigned char)(v >> (8 * i));
}

/* A checkpoint whose CRCs are right but whose contents mean nothing is refused, naming the
 * field: a NaN weight, a negative second moment of Adam, a simulated time near 2^64, an epoch
 * of 0 samples, a step beyond any run. */
static void test_meaningless_values(void **state)
{
    struct ctx *c = *state;
    struct dnn_params *p = make("mlp:16-12-4", false, 5), *q = make("mlp:16-12-4", true, 5);
    struct err e;
    unsigned char *good, *b;
    size_t n, hb;

    train(c, p, 0, 2);
    assert_int_equal(ckpt_save(in_dir(c, "good.ckpt"), p, &RUN, &e), 0);
    good = slurp(c->t.path, &n);
    hb = le32(good + 12);
    b = malloc(n);
    assert_non_null(b);

    memcpy(b, good, n);
    put_le(b + hb + 4 * 3, 0x7FC00000u, 4); /* W[3] of layer 0: a quiet NaN */
    fix_crcs(b, n);
    refuse(c, p, b, n, -EINVAL,
           "holds a value that means nothing: layer 0 W[3] = nan; "
           "accepted finite values");
    memcpy(b, good, n);
    put_le(b + 56, UINT64_MAX - 5, 8);
    fix_crcs(b, n);
    refuse(c, p, b, n, -EINVAL, "simulated time 18446744073709551610 ps; accepted at most");
    memcpy(b, good, n);
    put_le(b + 108, 0, 4);
    fix_crcs(b, n);
    refuse(c, p, b, n, -EINVAL, "its run shuffled 0 training samples per epoch");
    memcpy(b, good, n);
    put_le(b + 24, (uint64_t)1 << 41, 8);
    fix_crcs(b, n);
    refuse(c, p, b, n, -EINVAL, "step 2199023255552; accepted at most 1099511627776");
    free(b);
    free(good);

    /* Adam: v (the second moment, under a square root) of b of layer 1, element 2, negative. */
    train(c, q, 0, 2);
    assert_int_equal(ckpt_save(in_dir(c, "adam.ckpt"), q, &RUN, &e), 0);
    good = slurp(c->t.path, &n);
    hb = le32(good + 12);
    /* Layer 0: 3 x (16 x 12 + 12) floats; layer 1: W, b, v of W (12 x 4), then v of b. */
    size_t at = hb + 4 * (3 * (16 * 12 + 12) + (12 * 4 + 4 + 12 * 4) + 2);
    put_le(good + at, 0xBF800000u, 4); /* -1.0f */
    fix_crcs(good, n);
    refuse(c, q, good, n, -EINVAL, "layer 1 v of b[2] = -1; accepted finite values, not negative");
    free(good);
    dnn_params_destroy(p);
    dnn_params_destroy(q);
}

/* A version 1 file (before the machine text) loads, with no machine: version 2's bytes
 * without the text's length and text, the sizes and CRCs made right. */
static void test_version_1_read(void **state)
{
    struct ctx *c = *state;
    struct dnn_params *p = make("mlp:16-12-4", true, 5), *q;
    struct ckpt_info info;
    struct err e;
    unsigned char *good;
    size_t n;

    train(c, p, 0, 2);
    assert_int_equal(ckpt_save(in_dir(c, "v2.ckpt"), p, &RUN, &e), 0);
    good = slurp(c->t.path, &n);
    size_t cut = 4 + strlen(RUN.machine), at = 136 + strlen("mlp:16-12-4") + 8 * 2;
    memmove(good + at, good + at + cut, n - at - cut);
    n -= cut;
    put_le(good + 8, 1, 4);
    put_le(good + 12, le32(good + 12) - cut, 4);
    put_le(good + 16, n, 8);
    fix_crcs(good, n);
    spit(in_dir(c, "v1.ckpt"), good, n);
    if (ckpt_load_new(c->t.path, &q, &info, &e))
        fail_msg("%s", e.msg);
    assert_int_equal(info.version, 1);
    assert_false(info.has_machine);
    assert_string_equal(info.machine, "");
    assert_true(dnn_params_equal(p, q));
    dnn_params_destroy(q);
    free(good);

    /* a machine text too long for the format is refused before anything is written */
    char *big = malloc(CKPT_MACHINE_MAX + 1);
    assert_non_null(big);
    memset(big, 'x', CKPT_MACHINE_MAX);
    big[CKPT_MACHINE_MAX] = '\0';
    struct ckpt_run run = RUN;
    run.machine = big;
    assert_int_equal(ckpt_save(in_dir(c, "big.ckpt"), p, &run, &e), -EINVAL);
    assert_msg_has(e.msg, "a machine description of 16384 bytes; accepted up to 16383");
    assert_int_equal(access(c->t.path, F_OK), -1);
    free(big);
    dnn_params_destroy(p);
}

static void test_refusals(void **state)
{
    struct ctx *c = *state;
    struct dnn_params *p = make("mlp:16-12-4", false, 5), *other, *adam;
    struct err e;
    unsigned char *good, *b;
    size_t n;

    train(c, p, 0, 2);
    assert_int_equal(ckpt_save(in_dir(c, "good.ckpt"), p, &RUN, &e), 0);
    good = slurp(c->t.path, &n);
    b = malloc(n + 16);
    assert_non_null(b);

    /* Another model. */
    other = make("mlp:16-8-4", false, 5);
    assert_int_equal(ckpt_load(in_dir(c, "good.ckpt"), other, NULL, &e), -EINVAL);
    assert_msg_has(e.msg, "holds model mlp:16-12-4 (256 parameters); this run's model is "
                          "mlp:16-8-4 (172 parameters)");
    dnn_params_destroy(other);
    /* Another optimizer kind. */
    adam = make("mlp:16-12-4", true, 5);
    assert_int_equal(ckpt_load(in_dir(c, "good.ckpt"), adam, NULL, &e), -EINVAL);
    assert_msg_has(e.msg, "holds sgd optimizer state; this run uses adam");
    dnn_params_destroy(adam);

    /* A fresh target for the byte-level refusals. */
    struct dnn_params *q = make("mlp:16-12-4", false, 5);

    /* Truncated: empty, inside the fixed header, inside the spec, inside the payload, the
     * last byte missing. */
    refuse(c, q, good, 0, -EINVAL, "truncated: 0 bytes, a header needs at least 140");
    refuse(c, q, good, 100, -EINVAL, "truncated: 100 bytes");
    refuse(c, q, good, 140, -EINVAL, "truncated: 140 bytes, shorter than its 195-byte header");
    refuse(c, q, good, n / 2, -EINVAL, "is truncated");
    refuse(c, q, good, n - 1, -EINVAL, "truncated");
    /* Trailing bytes. */
    memcpy(b, good, n);
    memset(b + n, 0, 16);
    refuse(c, q, b, n + 16, -EINVAL, "trailing bytes");
    /* Bad magic: an IDX file, say. */
    memcpy(b, good, n);
    memcpy(b, "\x00\x00\x08\x03\x00\x00\x00\x10", 8);
    refuse(c, q, b, n, -EINVAL, "is not a flashstream checkpoint");
    /* A newer version (header CRC fixed, so only the version is wrong). */
    memcpy(b, good, n);
    b[8] = 3;
    fix_header_crc(b);
    refuse(c, q, b, n, -EINVAL, "format version 3; this build reads versions 1 to 2");
    /* The machine text's length past the header. */
    memcpy(b, good, n);
    b[le32(good + 12) - 8 - strlen(RUN.machine)] ^= 0x40;
    fix_header_crc(b);
    refuse(c, q, b, n, -EINVAL, "and its machine text do not make a");
    /* Header corrupted: the step count. */
    memcpy(b, good, n);
    b[24] ^= 1;
    refuse(c, q, b, n, -EINVAL, "header CRC32");
    /* Payload corrupted: one bit of one weight. */
    memcpy(b, good, n);
    b[n / 2] ^= 0x10;
    refuse(c, q, b, n, -EINVAL, "is corrupted: CRC32");
    /* The final CRC itself. */
    memcpy(b, good, n);
    b[n - 1] ^= 0xff;
    refuse(c, q, b, n, -EINVAL, "is corrupted: CRC32");
    /* A header that is consistent with its CRC but not with itself (spec vs layers). */
    memcpy(b, good, n);
    b[136 + 4] = '9'; /* "mlp:96-12-4" */
    fix_header_crc(b);
    refuse(c, q, b, n, -EINVAL, "does not match its layer list");
    /* A missing file and a directory. */
    assert_int_equal(ckpt_load(in_dir(c, "nope.ckpt"), q, NULL, &e), -ENOENT);
    assert_msg_has(e.msg, "cannot open: No such file or directory");
    assert_int_equal(ckpt_read_info(c->t.dir, &(struct ckpt_info){0}, &e), -EINVAL);
    assert_msg_has(e.msg, "not a regular file");
    /* A FIFO is refused at once, not waited on until some writer comes. */
    assert_int_equal(mkfifo(in_dir(c, "fifo.ckpt"), 0600), 0);
    assert_int_equal(ckpt_load(c->t.path, q, NULL, &e), -EINVAL);
    assert_msg_has(e.msg, "is a FIFO (named pipe), not a regular file");

    /* Saving in the middle of a step is refused. */
    float *dw[DNN_MAX_LAYERS] = {0}, *db[DNN_MAX_LAYERS] = {0};
    dw[1] = calloc(12 * 4, sizeof(float));
    db[1] = calloc(4, sizeof(float));
    assert_int_equal(dnn_params_update_layer(q, 1, dw[1], db[1], &e), 0);
    assert_int_equal(ckpt_save(in_dir(c, "mid.ckpt"), q, &RUN, &e), -EBUSY);
    assert_msg_has(e.msg, "in progress");
    assert_int_equal(access(c->t.path, F_OK), -1);
    struct ckpt_run bad = RUN;
    bad.nodes = 0;
    assert_int_equal(ckpt_save(in_dir(c, "bad.ckpt"), p, &bad, &e), -EINVAL);
    free(dw[1]);
    free(db[1]);

    dnn_params_destroy(q);
    free(good);
    free(b);
    dnn_params_destroy(p);
}

/* A failed save leaves the previous checkpoint byte for byte, and no temporary file. */
static void test_failed_write_keeps_old(void **state)
{
    struct ctx *c = *state;
    struct dnn_params *p = make("mlp:16-12-4", true, 5);
    struct err e;
    char path[256], tmp[270];
    unsigned char *old, *now;
    size_t n_old, n_now;

    snprintf(path, sizeof(path), "%s", in_dir(c, "run.ckpt"));
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    train(c, p, 0, 1);
    assert_int_equal(ckpt_save(path, p, &RUN, &e), 0);
    old = slurp(path, &n_old);
    train(c, p, 1, 2); /* the next save would differ */

    /* 1. A symlink planted at the temporary's old fixed name is not written through. */
    assert_int_equal(symlink("/dev/full", tmp), 0);
    assert_int_equal(ckpt_save(path, p, &RUN, &e), 0);
    assert_int_equal(unlink(tmp), 0);
    free(old);
    old = slurp(path, &n_old);
    train(c, p, 2, 3); /* the next save would differ again */

    /* 2. The disk is full: every write fails. */
    assert_int_equal(tmpdir_fsize_limit(64), 0);
    assert_int_equal(ckpt_save(path, p, &RUN, &e), -EFBIG);
    assert_int_equal(tmpdir_fsize_limit(-1), 0);
    assert_msg_has(e.msg, "write");
    assert_msg_has(e.msg, "run.ckpt.tmp");
    assert_int_equal(tmpdir_temporaries(&c->t, "run.ckpt"), 0);
    now = slurp(path, &n_now);
    assert_int_equal(n_now, n_old);
    assert_memory_equal(now, old, n_old);
    free(now);
    /* The old checkpoint still loads. */
    struct dnn_params *q = make("mlp:16-12-4", true, 1);
    assert_int_equal(ckpt_load(path, q, NULL, &e), 0);
    assert_int_equal(q->step, 2);
    dnn_params_destroy(q);

    /* 3. The directory does not exist. */
    assert_int_equal(ckpt_save(in_dir(c, "missing/run.ckpt"), p, &RUN, &e), -ENOENT);
    assert_msg_has(e.msg, "missing/run.ckpt.tmp");

    /* 4. A read-only directory (root writes anyway: skipped then). */
    if (geteuid() != 0) {
        char ro[128];

        snprintf(ro, sizeof(ro), "%s/ro", c->t.dir);
        assert_int_equal(mkdir(ro, 0755), 0);
        snprintf(path, sizeof(path), "%s/run.ckpt", ro);
        assert_int_equal(ckpt_save(path, p, &RUN, &e), 0);
        free(old);
        old = slurp(path, &n_old);
        assert_int_equal(chmod(ro, 0555), 0);
        train(c, p, 3, 4);
        assert_int_equal(ckpt_save(path, p, &RUN, &e), -EACCES);
        now = slurp(path, &n_now);
        assert_memory_equal(now, old, n_old);
        free(now);
        chmod(ro, 0755);
    }

    /* And a good save replaces it. */
    snprintf(path, sizeof(path), "%s", in_dir(c, "run.ckpt"));
    assert_int_equal(ckpt_save(path, p, &RUN, &e), 0);
    now = slurp(path, &n_now);
    assert_true(n_now != n_old || memcmp(now, old, n_old) != 0);
    free(now);
    free(old);
    dnn_params_destroy(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_roundtrip_sgd, setup, teardown),
        cmocka_unit_test_setup_teardown(test_roundtrip_adam, setup, teardown),
        cmocka_unit_test_setup_teardown(test_resume_bit_identical, setup, teardown),
        cmocka_unit_test_setup_teardown(test_format_layout, setup, teardown),
        cmocka_unit_test_setup_teardown(test_version_1_read, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
        cmocka_unit_test_setup_teardown(test_size_checked_before_allocation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_meaningless_values, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failed_write_keeps_old, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
