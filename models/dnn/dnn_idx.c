#include "models/dnn/dnn_idx.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "csim/rfile.h"
#include "models/dnn/dnn_rng.h"

#define ACCEPT_FILE "an IDX file, gzipped or plain"

static uint32_t be32(const unsigned char *b)
{
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/* Open path (a regular file only: a FIFO would block, csim/rfile.h); *size its length on disk. */
static int open_file(const char *path, gzFile *f, uint64_t *size, struct err *e)
{
    int fd = rfile_open(path, "data file", size, e);

    if (fd < 0) {
        static const char accept[] = "; expected " ACCEPT_FILE;
        size_t n = e ? strlen(e->msg) : 0;

        /* Not when the file is there but not a regular one: that message says what is. */
        if (e && fd != -EINVAL && n + sizeof(accept) <= sizeof(e->msg))
            memcpy(e->msg + n, accept, sizeof(accept));
        return fd;
    }
    *f = gzdopen(fd, "rb");
    if (*f)
        return 0;
    close(fd);
    return err_set(e, -ENOMEM, "data file '%s': cannot open: out of memory; expected " ACCEPT_FILE,
                   path);
}

/* Read up to n bytes into buf, *got of them: stops early only at the end of the data. 0, or
 * -EIO on a zlib error (`what` says what the bytes are, for the message). */
static int read_some(gzFile f, const char *path, unsigned char *buf, uint64_t n, uint64_t offset,
                     const char *what, uint64_t *got, struct err *e)
{
    *got = 0;
    while (*got < n) {
        uint64_t want = n - *got;
        int k = gzread(f, buf + *got, want > (1u << 30) ? (1u << 30) : (unsigned)want);

        if (k < 0) {
            int zerr;
            const char *zmsg = gzerror(f, &zerr);

            if (zerr == Z_BUF_ERROR)
                break; /* the gzip stream ends early: truncated, reported by the caller */
            return err_set(e, -EIO, "%s: read error in %s at byte %llu: %s", path, what,
                           (unsigned long long)(offset + *got), zmsg);
        }
        if (k == 0)
            break; /* end of file (or of a truncated gzip stream) */
        *got += (uint64_t)k;
    }
    return 0;
}

static int truncated(const char *path, const char *what, uint64_t n, uint64_t offset, uint64_t got,
                     struct err *e)
{
    return err_set(e, -EINVAL,
                   "%s: truncated: %s needs %llu bytes from byte %llu, the file ends "
                   "after %llu of them; accepted a complete IDX file, gzipped or plain",
                   path, what, (unsigned long long)n, (unsigned long long)offset,
                   (unsigned long long)got);
}

/*
 * Read exactly n bytes. `what` says what they are, for the message. A short read is a
 * truncated file (-EINVAL); a zlib error is -EIO.
 */
static int read_exact(gzFile f, const char *path, void *buf, uint64_t n, uint64_t offset,
                      const char *what, struct err *e)
{
    uint64_t got;
    int rc = read_some(f, path, buf, n, offset, what, &got, e);

    if (!rc && got < n)
        rc = truncated(path, what, n, offset, got, e);
    return rc;
}

/* First buffer of read_alloc; it doubles as the data keep coming. */
#define READ_ALLOC_FIRST (1u << 20)

/*
 * Read exactly n bytes into a buffer of malloc's (*out, the caller frees it), errors as
 * read_exact's, -ENOMEM. The buffer grows with the data actually read, so a header that
 * announces more than the file holds costs at most twice what it holds, not what it announces.
 */
static int read_alloc(gzFile f, const char *path, uint64_t n, uint64_t offset, const char *what,
                      unsigned char **out, struct err *e)
{
    uint64_t cap = n < READ_ALLOC_FIRST ? n : READ_ALLOC_FIRST, have = 0, got;
    unsigned char *buf = malloc((size_t)cap), *bigger;
    int rc;

    *out = NULL;
    for (;;) {
        if (!buf)
            return err_set(e, -ENOMEM, "%s: out of memory for %llu bytes of %s", path,
                           (unsigned long long)cap, what);
        rc = read_some(f, path, buf + have, cap - have, offset + have, what, &got, e);
        have += got;
        if (!rc && have < cap)
            rc = truncated(path, what, n, offset, have, e);
        if (rc) {
            free(buf);
            return rc;
        }
        if (have == n)
            break;
        cap = n - cap < cap ? n : 2 * cap;
        bigger = realloc(buf, (size_t)cap);
        if (!bigger)
            free(buf);
        buf = bigger;
    }
    *out = buf;
    return 0;
}

static int expect_end(gzFile f, const char *path, uint64_t length, struct err *e)
{
    unsigned char c;
    int k = gzread(f, &c, 1);

    if (k > 0)
        return err_set(e, -EINVAL,
                       "%s: trailing data after the %llu bytes its header announces; "
                       "accepted a file of exactly header + data",
                       path, (unsigned long long)length);
    return 0;
}

static const char *magic_name(uint32_t magic)
{
    switch (magic) {
    case DNN_IDX_MAGIC_IMAGES:
        return " (an idx3-ubyte image file)";
    case DNN_IDX_MAGIC_LABELS:
        return " (an idx1-ubyte label file)";
    case 0x1F8B0800u:
    case 0x1F8B0808u:
        return " (a gzip stream inside the gzip stream?)";
    default:
        return "";
    }
}

static int check_magic(const char *path, uint32_t magic, uint32_t want, struct err *e)
{
    if (magic == want)
        return 0;
    return err_set(e, -EINVAL, "%s: bad magic number 0x%08X%s; accepted 0x%08X (%s)", path, magic,
                   magic_name(magic), want,
                   want == DNN_IDX_MAGIC_IMAGES ? "idx3-ubyte: unsigned byte images"
                                                : "idx1-ubyte: unsigned byte labels");
}

/* Deflate expands a byte into at most 1032 (its longest match, 258 bytes, costs at least two bits):
 * a gzip file of n bytes holds at most 1032 n bytes of data. */
#define GZ_MAX_RATIO 1032u

/* Whether the `data` bytes after a header of hlen bytes can be in a file of size bytes on disk:
 * exactly, for a plain file; within deflate's largest ratio, for a gzipped one. Checked before
 * anything is allocated, so a small file announcing gigabytes is refused at once. */
static int check_room(gzFile f, const char *path, uint64_t size, uint64_t hlen, uint64_t data,
                      const char *what, struct err *e)
{
    bool plain = gzdirect(f);

    if (plain && size < hlen + data)
        return truncated(path, what, data, hlen, size - hlen, e);
    if (!plain && data / GZ_MAX_RATIO > size)
        return err_set(e, -EINVAL,
                       "%s: truncated: %s needs %llu bytes, more than a gzip file of %llu bytes "
                       "can hold (at most %u times its size); accepted a complete IDX file, "
                       "gzipped or plain",
                       path, what, (unsigned long long)data, (unsigned long long)size,
                       GZ_MAX_RATIO);
    return 0;
}

/* Open path and read its header of hlen bytes into h: the magic (must be want), then the rest
 * (described by rest, for the message). 0 with *f open, or the error with the file closed. */
static int open_header(const char *path, uint32_t want, unsigned char *h, size_t hlen,
                       const char *rest, gzFile *f, uint64_t *size, struct err *e)
{
    int rc = open_file(path, f, size, e);

    if (rc)
        return rc;
    rc = read_exact(*f, path, h, 4, 0, "the 4-byte magic number", e);
    if (!rc)
        rc = check_magic(path, be32(h), want, e);
    if (!rc)
        rc = read_exact(*f, path, h + 4, hlen - 4, 4, rest, e);
    if (rc)
        gzclose(*f);
    return rc;
}

/* What a caller expects of a file, checked right after its header; 0 in a field: anything the
 * format accepts. `name` says whose shape it is, for the message. */
struct idx_shape {
    uint32_t count, rows, cols;
    const char *name;
};

static int load_images(const char *path, const struct idx_shape *want, struct dnn_idx_set *s,
                       struct err *e)
{
    unsigned char h[16];
    uint32_t count, rows, cols;
    uint64_t bytes, size;
    gzFile f;
    int rc;

    memset(s, 0, sizeof(*s));
    rc = open_header(path, DNN_IDX_MAGIC_IMAGES, h, sizeof(h),
                     "the rest of the 16-byte idx3 header (count, rows, cols)", &f, &size, e);
    if (rc)
        return rc;
    count = be32(h + 4);
    rows = be32(h + 8);
    cols = be32(h + 12);
    if (count < 1 || count > DNN_IDX_MAX_COUNT || rows < 1 || rows > DNN_IDX_MAX_DIM || cols < 1 ||
        cols > DNN_IDX_MAX_DIM) {
        rc = err_set(e, -EINVAL,
                     "%s: header says %u images of %u x %u pixels; accepted 1..%u images of "
                     "1..%u x 1..%u pixels",
                     path, count, rows, cols, DNN_IDX_MAX_COUNT, DNN_IDX_MAX_DIM, DNN_IDX_MAX_DIM);
        goto out_close;
    }
    if ((want->count && count != want->count) || (want->rows && rows != want->rows) ||
        (want->cols && cols != want->cols)) {
        rc =
            err_set(e, -EINVAL, "%s: %u images of %u x %u pixels; accepted %s %u images of %u x %u",
                    path, count, rows, cols, want->name, want->count, want->rows, want->cols);
        goto out_close;
    }
    bytes = (uint64_t)count * rows * cols;
    if (bytes > (1ull << 32)) {
        rc = err_set(e, -EINVAL, "%s: %llu bytes of pixels; accepted at most 4 GiB", path,
                     (unsigned long long)bytes);
        goto out_close;
    }
    rc = check_room(f, path, size, sizeof(h), bytes, "the pixel data (images x rows x cols)", e);
    if (rc)
        goto out_close;
    rc = read_alloc(f, path, bytes, sizeof(h), "the pixel data (images x rows x cols)", &s->images,
                    e);
    if (rc)
        goto out_close;
    rc = expect_end(f, path, sizeof(h) + bytes, e);
    if (rc)
        goto out_free;
    s->count = count;
    s->rows = rows;
    s->cols = cols;
    gzclose(f);
    return 0;

out_free:
    free(s->images);
    s->images = NULL;
out_close:
    gzclose(f);
    return rc;
}

int dnn_idx_load_images(const char *path, struct dnn_idx_set *s, struct err *e)
{
    return load_images(path, &(struct idx_shape){.name = ""}, s, e);
}

static int load_labels(const char *path, uint32_t classes, uint32_t want_count,
                       struct dnn_idx_set *s, struct err *e)
{
    unsigned char h[8];
    uint32_t count;
    uint64_t size;
    gzFile f;
    int rc;

    memset(s, 0, sizeof(*s));
    rc = open_header(path, DNN_IDX_MAGIC_LABELS, h, sizeof(h),
                     "the rest of the 8-byte idx1 header (count)", &f, &size, e);
    if (rc)
        return rc;
    count = be32(h + 4);
    if (count < 1 || count > DNN_IDX_MAX_COUNT || (want_count && count != want_count)) {
        if (want_count)
            rc = err_set(e, -EINVAL, "%s: header says %u labels; accepted %u, one per image", path,
                         count, want_count);
        else
            rc = err_set(e, -EINVAL, "%s: header says %u labels; accepted 1..%u", path, count,
                         DNN_IDX_MAX_COUNT);
        goto out_close;
    }
    rc = check_room(f, path, size, sizeof(h), count, "the label data", e);
    if (rc)
        goto out_close;
    rc = read_alloc(f, path, count, sizeof(h), "the label data", &s->labels, e);
    if (rc)
        goto out_close;
    rc = expect_end(f, path, sizeof(h) + (uint64_t)count, e);
    if (rc)
        goto out_free;
    for (uint32_t i = 0; classes && i < count; i++) {
        if (s->labels[i] >= classes) {
            rc = err_set(e, -EINVAL, "%s: label %u of sample %u; accepted 0..%u (%u classes)", path,
                         s->labels[i], i, classes - 1, classes);
            goto out_free;
        }
    }
    s->count = count;
    gzclose(f);
    return 0;

out_free:
    free(s->labels);
    s->labels = NULL;
out_close:
    gzclose(f);
    return rc;
}

int dnn_idx_load_labels(const char *path, uint32_t classes, struct dnn_idx_set *s, struct err *e)
{
    return load_labels(path, classes, 0, s, e);
}

/* Images of the given shape, then their labels, one per image. */
static int load_pair(const char *images_path, const char *labels_path, uint32_t classes,
                     const struct idx_shape *want, struct dnn_idx_set *s, struct err *e)
{
    struct dnn_idx_set lab;
    int rc;

    rc = load_images(images_path, want, s, e);
    if (rc)
        return rc;
    rc = load_labels(labels_path, classes, 0, &lab, e);
    if (rc)
        goto out_images;
    if (lab.count != s->count) {
        rc = err_set(e, -EINVAL,
                     "%s has %u images but %s has %u labels; accepted equal counts "
                     "(one label per image)",
                     images_path, s->count, labels_path, lab.count);
        free(lab.labels);
        goto out_images;
    }
    s->labels = lab.labels;
    return 0;

out_images:
    dnn_idx_fini(s);
    return rc;
}

int dnn_idx_load(const char *images_path, const char *labels_path, uint32_t classes,
                 struct dnn_idx_set *s, struct err *e)
{
    return load_pair(images_path, labels_path, classes, &(struct idx_shape){.name = ""}, s, e);
}

/* "<dir>/<name>.gz" if it exists, else "<dir>/<name>" if that exists, else the .gz (whose
 * "cannot open" then says no such file). Existence, not readability, decides: a file that is
 * there but cannot be read is the one the message names, with its own reason. */
static void pick(char *buf, size_t len, const char *dir, const char *name)
{
    struct stat st;

    snprintf(buf, len, "%s/%s.gz", dir, name);
    if (!lstat(buf, &st))
        return;
    snprintf(buf, len, "%s/%s", dir, name);
    if (!lstat(buf, &st))
        return;
    snprintf(buf, len, "%s/%s.gz", dir, name);
}

int dnn_idx_load_fashion(const char *dir, bool train, struct dnn_idx_set *s, struct err *e)
{
    char ip[PATH_MAX], lp[PATH_MAX];
    const char *pre = train ? "train" : "t10k";
    struct idx_shape want = {
        .count = train ? 60000 : 10000, .rows = 28, .cols = 28, .name = "Fashion-MNIST's"};
    char name[64];
    int rc;

    memset(s, 0, sizeof(*s));
    if (!dir)
        dir = DNN_IDX_DEFAULT_DIR;
    snprintf(name, sizeof(name), "%s-images-idx3-ubyte", pre);
    pick(ip, sizeof(ip), dir, name);
    snprintf(name, sizeof(name), "%s-labels-idx1-ubyte", pre);
    pick(lp, sizeof(lp), dir, name);
    rc = load_pair(ip, lp, 10, &want, s, e);
    /* A damaged .gz with the plain file beside it: say that the plain one was not read. */
    for (int k = 0; rc && rc != -ENOENT && e && k < 2; k++) {
        const char *path = k ? lp : ip;
        size_t n = strlen(path), m = strlen(e->msg);
        char plain[PATH_MAX];
        struct stat st;

        if (n < 3 || strcmp(path + n - 3, ".gz") || !strstr(e->msg, path))
            continue;
        snprintf(plain, sizeof(plain), "%.*s", (int)(n - 3), path);
        if (!lstat(plain, &st) && m + 1 < sizeof(e->msg))
            snprintf(e->msg + m, sizeof(e->msg) - m,
                     " (the uncompressed %.200s beside it is read only when no .gz is there: "
                     "remove or repair the .gz)",
                     plain);
        break;
    }
    if (rc == -ENOENT && e) {
        static const char hint[] =
            " (also tried without .gz; the Debian package "
            "dataset-fashion-mnist installs them in " DNN_IDX_DEFAULT_DIR ")";
        size_t n = strlen(e->msg);

        if (n + sizeof(hint) <= sizeof(e->msg))
            memcpy(e->msg + n, hint, sizeof(hint));
    }
    return rc;
}

void dnn_idx_fini(struct dnn_idx_set *s)
{
    free(s->images);
    free(s->labels);
    memset(s, 0, sizeof(*s));
}

void dnn_idx_shuffle(uint32_t *idx, uint32_t n, uint64_t seed)
{
    struct dnn_rng r;

    dnn_rng_seed(&r, seed);
    for (uint32_t i = 0; i < n; i++)
        idx[i] = i;
    for (uint32_t i = n; i-- > 1;) {
        uint32_t j = (uint32_t)dnn_rng_below(&r, (uint64_t)i + 1);
        uint32_t t = idx[i];

        idx[i] = idx[j];
        idx[j] = t;
    }
}

void dnn_idx_gather(const struct dnn_idx_set *s, const uint32_t *idx, uint32_t n, uint8_t *images,
                    uint8_t *labels)
{
    size_t px = (size_t)s->rows * s->cols;

    for (uint32_t i = 0; i < n; i++) {
        memcpy(&images[i * px], &s->images[(size_t)idx[i] * px], px);
        labels[i] = s->labels[idx[i]];
    }
}
