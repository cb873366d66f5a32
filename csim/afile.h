/*
 * afile: atomic replacement of an output file, shared by the writers of a run's outputs
 * (stats.json, the CSV tables, trace.json, checkpoints).
 *
 * Contract
 * --------
 * Modelled: the classic sequence that never leaves a half-written file under the final name:
 * write everything to "<path>.tmp.<pid>.<n>" (same directory, so rename stays within one file
 * system; <n> counts the calls of the process, so no two writers share a temporary), created with
 * O_EXCL | O_NOFOLLOW: a file or symlink already at that name is refused, never written through.
 * Then fflush, fsync, fclose, rename over <path>, then fsync the directory so the rename itself
 * is durable. Any failure before the rename removes the temporary file and leaves whatever was at
 * <path> untouched, byte for byte. The step that failed and errno are kept for the message, which
 * goes to the caller's err (csim/err.h).
 * Guarantees, each tested by testbench/csim/test_afile.c:
 *   1. after a commit that returns 0, <path> holds exactly the bytes written, and no temporary
 *      is left;
 *   2. before the commit, <path> holds what it held before afile_open (or stays absent);
 *   3. a failed write (a full disk, EFBIG) makes commit refuse: <path> intact byte for byte,
 *      the temporary removed, the message naming <path>, the step and the temporary;
 *   4. afile_fail and afile_abort leave <path> intact too (the first failure recorded wins);
 *   5. two writers of one path write two temporaries; each commit replaces <path> whole, so the
 *      last one wins and no mixture is ever seen;
 *   6. a file or symbolic link already at the temporary's name is refused (EEXIST) and left as
 *      it is: nothing is written through it;
 *   7. a failed rename (a directory at <path>) removes the temporary;
 *   8. commit of an afile not open (after a failed open or a commit) is refused.
 * A command that stops on a signal removes its temporaries first (afile_remove_temporaries,
 * from its handler: flashstream perf).
 * Not modelled: concurrent writers of the same path beyond 5 (no lock: the last rename wins),
 * the temporary of a process killed mid-write without a handler (SIGKILL: left behind under its
 * own name; flashstream train recovers its CSV rows from there on --resume), more than 64
 * temporaries open at once for the handler, Windows, network file systems that lie about
 * fsync.
 * Units: none.
 */
#ifndef CSIM_AFILE_H
#define CSIM_AFILE_H

#include <stdio.h>

#include "csim/err.h"

struct afile {
    FILE *f;          /* write here between afile_open and afile_commit/afile_abort */
    char *path;       /* the final name */
    char *tmp;        /* "<path>.tmp.<pid>.<n>" */
    const char *step; /* what failed: "create", "write", "fsync", "close", "rename", ... */
    int err;          /* errno of the first failure, 0 if none */
};

/* Create "<path>.tmp.<pid>.<n>" for writing (refusing one that exists). 0 or -errno (step
 * "create"); on error nothing is left open or allocated and e says why. */
int afile_open(struct afile *a, const char *path, struct err *e);

/* Flush, fsync, close, rename over the final path, fsync the directory. 0 or -errno; on error
 * the temporary file is removed and the final path is as it was (unless only the directory
 * fsync failed: the new file is then in place but its rename may not survive a crash). Also
 * fails with the first error of any earlier write (ferror) or afile_fail. Frees everything in
 * both cases; e reads "cannot write '<path>': <step> '<tmp>' failed: <strerror>". */
int afile_commit(struct afile *a, struct err *e);

/* Give up: close and remove the temporary file, free everything. */
void afile_abort(struct afile *a);

/* Unlink every temporary open now (at most the first 64). Async-signal-safe: for a handler of
 * SIGINT or SIGTERM that ends the process without committing. */
void afile_remove_temporaries(void);

/* Record a failure of the caller's own (e.g. a formatter ran out of memory) so that commit
 * refuses: the first recorded failure wins. Returns -err. */
int afile_fail(struct afile *a, const char *step, int err);

#endif
