/*
 * rfile: opening an input file (a data set, a checkpoint, a run's history) so that what is not
 * a regular file is refused at once, with its kind named, instead of blocking or misreading.
 *
 * Contract
 * --------
 * Modelled: open(O_RDONLY | O_NONBLOCK | O_CLOEXEC), then fstat of the descriptor opened (no
 * window between a check and the open): a FIFO would otherwise block open() until some writer
 * comes, a directory or a device is no input file. A regular file gets its O_NONBLOCK cleared
 * and its size reported, so a caller can compare what a header announces with what the file
 * holds before allocating anything.
 * Not modelled: files that change while read (the caller's checks on the bytes catch those),
 * reading from standard input.
 * Units: bytes.
 */
#ifndef CSIM_RFILE_H
#define CSIM_RFILE_H

#include <stdint.h>

#include "csim/err.h"

/* Open path for reading: a descriptor >= 0 with *size its length in bytes (size may be NULL),
 * or -errno with e reading "<what> '<path>': cannot open: <strerror>", or -EINVAL with
 * "<what> '<path>' is a <kind>, not a regular file; accepted a regular file". */
int rfile_open(const char *path, const char *what, uint64_t *size, struct err *e);

/* The kind of file mode m names, for messages: "regular file", "directory", "FIFO (named
 * pipe)", "character device", "block device", "socket", "symbolic link". */
const char *rfile_kind(unsigned m);

#endif
