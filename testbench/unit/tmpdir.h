/*
 * tmpdir: a fresh directory under /tmp for a cmocka test's files, removed with everything in
 * it afterwards, and a whole file read back as a string.
 */
#ifndef FLASHSTREAM_TESTBENCH_UNIT_TMPDIR_H
#define FLASHSTREAM_TESTBENCH_UNIT_TMPDIR_H

#include <stdio.h>
#include <stdlib.h>

struct tmpdir {
    char dir[64];
    char path[256];
};

/* mkdtemp /tmp/<prefix>.XXXXXX; 0 or -1. */
static inline int tmpdir_make(struct tmpdir *t, const char *prefix)
{
    snprintf(t->dir, sizeof(t->dir), "/tmp/%s.XXXXXX", prefix);
    return mkdtemp(t->dir) ? 0 : -1;
}

/* Remove the directory and everything in it, read-only entries included; 0 or -1. */
static inline int tmpdir_remove(const struct tmpdir *t)
{
    char cmd[200];

    snprintf(cmd, sizeof(cmd), "chmod -R u+w '%s'; rm -rf '%s'", t->dir, t->dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* <dir>/<name>, valid until the next call. */
static inline const char *tmpdir_path(struct tmpdir *t, const char *name)
{
    snprintf(t->path, sizeof(t->path), "%s/%s", t->dir, name);
    return t->path;
}

/* cmocka fixtures for a test whose state is a struct tmpdir: one made with this prefix before
 * each test, removed after it. 0 or -1. */
static inline int tmpdir_setup(void **state, const char *prefix)
{
    struct tmpdir *t = calloc(1, sizeof(*t));

    if (!t || tmpdir_make(t, prefix)) {
        free(t);
        return -1;
    }
    *state = t;
    return 0;
}

static inline int tmpdir_teardown(void **state)
{
    struct tmpdir *t = *state;
    int rc = tmpdir_remove(t);

    free(t);
    return rc;
}

/* The whole file as a NUL-terminated string (caller frees); NULL if it cannot be read. */
static inline char *tmpdir_slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n;

    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)n + 1)) != NULL) {
        if (fread(buf, 1, (size_t)n, f) == (size_t)n) {
            buf[n] = '\0';
        } else {
            free(buf);
            buf = NULL;
        }
    }
    fclose(f);
    return buf;
}

#endif
