/*
 * afile.c - write to "<path>.tmp.<pid>.<n>", fsync, rename, fsync the directory; see afile.h.
 */
#include "csim/afile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int set_msg(const struct afile *a, const char *path, const char *tmp, struct err *e)
{
    return err_set(e, -a->err, "cannot write '%s': %s '%s' failed: %s", path ? path : "?", a->step,
                   tmp ? tmp : "?", strerror(a->err));
}

int afile_fail(struct afile *a, const char *step, int err)
{
    if (!a->err) {
        a->step = step;
        a->err = err ? err : EIO;
    }
    return -a->err;
}

/* The temporaries open now (the first OPEN_MAX), for afile_remove_temporaries: a signal
 * handler reads them, so a slot is cleared before its name is freed. */
#define OPEN_MAX 64
static char *volatile open_tmp[OPEN_MAX];

static void track(char *tmp)
{
    for (int i = 0; i < OPEN_MAX; i++)
        if (!open_tmp[i]) {
            open_tmp[i] = tmp;
            return;
        }
}

void afile_remove_temporaries(void)
{
    for (int i = 0; i < OPEN_MAX; i++) {
        char *t = open_tmp[i];

        if (t)
            unlink(t);
    }
}

static void release(struct afile *a)
{
    for (int i = 0; i < OPEN_MAX; i++)
        if (a->tmp && open_tmp[i] == a->tmp)
            open_tmp[i] = NULL;
    free(a->path);
    free(a->tmp);
    a->path = NULL;
    a->tmp = NULL;
    a->f = NULL;
}

int afile_open(struct afile *a, const char *path, struct err *e)
{
    /* Unique per process and per call: two writers of one path never share a temporary. */
    static unsigned long counter;
    size_t n = strlen(path), tn = n + 64;
    int fd;

    memset(a, 0, sizeof(*a));
    a->path = malloc(n + 1);
    a->tmp = malloc(tn);
    if (!a->path || !a->tmp) {
        afile_fail(a, "allocate a name for", ENOMEM);
        set_msg(a, path, path, e);
        release(a);
        return -ENOMEM;
    }
    memcpy(a->path, path, n + 1);
    snprintf(a->tmp, tn, "%s.tmp.%ld.%lu", path, (long)getpid(), counter++);
    /* O_EXCL (which also refuses a symlink): never write through a name someone planted. */
    fd = open(a->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0 || !(a->f = fdopen(fd, "w"))) {
        afile_fail(a, "create", errno);
        if (fd >= 0) {
            close(fd);
            unlink(a->tmp);
        }
        set_msg(a, a->path, a->tmp, e);
        release(a);
        return -a->err;
    }
    track(a->tmp);
    return 0;
}

void afile_abort(struct afile *a)
{
    if (a->f) {
        fclose(a->f);
        unlink(a->tmp);
    }
    release(a);
}

/* fsync the directory holding path, so that a rename into it is durable. */
static int sync_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir;
    int fd, rc = 0;

    if (!slash)
        dir = strdup(".");
    else if (slash == path)
        dir = strdup("/");
    else
        dir = strndup(path, (size_t)(slash - path));
    if (!dir)
        return ENOMEM;
    fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd < 0 || fsync(fd))
        rc = errno;
    if (fd >= 0)
        close(fd);
    free(dir);
    return rc;
}

int afile_commit(struct afile *a, struct err *e)
{
    int rc;

    if (!a->f) { /* never opened, or already closed */
        rc = afile_fail(a, "commit (not open)", EBADF);
        set_msg(a, a->path, a->tmp, e);
        return rc;
    }
    if (ferror(a->f))
        afile_fail(a, "write", errno ? errno : EIO);
    if (!a->err && fflush(a->f))
        afile_fail(a, "write", errno);
    if (!a->err && fsync(fileno(a->f)))
        afile_fail(a, "fsync", errno);
    if (fclose(a->f) && !a->err)
        afile_fail(a, "close", errno);
    a->f = NULL;
    if (!a->err && rename(a->tmp, a->path))
        afile_fail(a, "rename", errno);
    if (a->err) {
        unlink(a->tmp);
        rc = set_msg(a, a->path, a->tmp, e);
        release(a);
        return rc;
    }
    rc = sync_dir(a->path);
    if (rc) {
        afile_fail(a, "fsync the directory of", rc);
        set_msg(a, a->path, a->path, e);
        release(a);
        return -rc;
    }
    release(a);
    return 0;
}
