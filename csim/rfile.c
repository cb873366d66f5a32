#include "csim/rfile.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *rfile_kind(unsigned m)
{
    if (S_ISREG(m))
        return "regular file";
    if (S_ISDIR(m))
        return "directory";
    if (S_ISFIFO(m))
        return "FIFO (named pipe)";
    if (S_ISCHR(m))
        return "character device";
    if (S_ISBLK(m))
        return "block device";
    if (S_ISSOCK(m))
        return "socket";
    if (S_ISLNK(m))
        return "symbolic link";
    return "file of unknown type";
}

int rfile_open(const char *path, const char *what, uint64_t *size, struct err *e)
{
    struct stat st;
    int fd, flags, err;

    fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        err = errno;
        return err_set(e, -err, "%s '%s': cannot open: %s", what, path, strerror(err));
    }
    if (fstat(fd, &st)) {
        err = errno;
        close(fd);
        return err_set(e, -err, "%s '%s': cannot stat: %s", what, path, strerror(err));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return err_set(e, -EINVAL, "%s '%s' is a %s, not a regular file; accepted a regular file",
                       what, path, rfile_kind(st.st_mode));
    }
    flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK)) {
        err = errno;
        close(fd);
        return err_set(e, -err, "%s '%s': cannot clear O_NONBLOCK: %s", what, path, strerror(err));
    }
    if (size)
        *size = (uint64_t)st.st_size;
    return fd;
}
