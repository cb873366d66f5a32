/*
 * tmpdir: a fresh directory under /tmp for a cmocka test's files, removed with everything in
 * it afterwards, a whole file read back as a string, the atomic writers' temporaries of a file
 * counted (csim/afile.h), and a file size limit that makes writes fail like a full disk.
 */
#ifndef FLASHSTREAM_TESTBENCH_UNIT_TMPDIR_H
#define FLASHSTREAM_TESTBENCH_UNIT_TMPDIR_H

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

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

/* How many "<name>.tmp*" entries the directory holds (the temporaries of csim/afile.h); -1 if
 * it cannot be read. */
static inline int tmpdir_temporaries(const struct tmpdir *t, const char *name)
{
    char prefix[128];
    DIR *d = opendir(t->dir);
    struct dirent *de;
    int n = 0;

    if (!d)
        return -1;
    snprintf(prefix, sizeof(prefix), "%s.tmp", name);
    while ((de = readdir(d)))
        n += strncmp(de->d_name, prefix, strlen(prefix)) == 0;
    closedir(d);
    return n;
}

/* Writes past bytes of any file fail with EFBIG (SIGXFSZ ignored): a full disk, without the
 * writer's temporary name. bytes < 0 lifts the limit again. 0 or -1. */
static inline int tmpdir_fsize_limit(long bytes)
{
    struct rlimit r;

    if (getrlimit(RLIMIT_FSIZE, &r))
        return -1;
    signal(SIGXFSZ, SIG_IGN);
    r.rlim_cur = bytes < 0 ? r.rlim_max : (rlim_t)bytes;
    return setrlimit(RLIMIT_FSIZE, &r);
}

#endif
