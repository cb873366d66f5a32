/*
 * ckpt: training checkpoints, the host's copy of everything needed to continue a run bit for bit.
 *
 * Contract
 * --------
 * Modelled: a versioned, checksummed file holding a struct dnn_params (the fp32 master weights
 * and biases and the optimizer state the Weight Node keeps, the optimizer with its
 * hyperparameters and schedule, the step count k that drives the schedule and Adam's bias
 * correction) and the run's position (seed, epoch and batch index of the next batch in the
 * sample order of models/dnn/README.md section 2.3, the number of samples that order permutes,
 * batch size, nodes, simulated time so far).
 * The bf16 copies are not stored: they are bf16_from_f32 of the masters, recomputed on load.
 *
 * File format, version 2 (version 1, the same without the machine, is read too). Every integer
 * little-endian, every float its IEEE binary32 bit pattern as a little-endian u32; no padding,
 * no struct dumps:
 *
 *     offset size  field
 *       0     8    magic "FSCKPT\x1a\n"
 *       8     4    format version (1)
 *      12     4    header bytes H (through the header CRC below)
 *      16     8    file bytes (the whole file, final CRC included)
 *      24     8    step: optimizer steps completed (k of the next step)
 *      32     8    seed (weight init and sample order)
 *      40     8    epoch of the next batch (0-based)
 *      48     8    index of the next batch within that epoch (0-based)
 *      56     8    simulated time so far, ps
 *      64     4    batch size B
 *      68     4    nodes N (Activation Nodes)
 *      72     4    optimizer kind (0 sgd, 1 adam)
 *      76     4    lr schedule (0 const, 1 step, 2 cosine)
 *      80    28    f32 lr, momentum, weight_decay, beta1, beta2, eps, gamma
 *     108     4    training samples the epoch order permutes (section 2.3; >= batch size)
 *     112     8    schedule step_size
 *     120     8    schedule total_steps
 *     128     4    layers L (1..DNN_MAX_LAYERS)
 *     132     4    spec length S (1..CKPT_SPEC_MAX - 1)
 *     136     S    model spec, "mlp:W0-W1-...-WL" (dnn_model_parse accepts it)
 *   136+S   8*L    per layer: u32 in, u32 out
 *     X       4    machine text length T (0..CKPT_MACHINE_MAX - 1), X = 136+S+8L (version 2)
 *    X+4      T    the machine the run ran on: "section.key=value" lines of every key of its
 *                  description (models/machine/machine_ini.h, machine_ini_assignments); not
 *                  NUL-terminated. Opaque to ckpt, which only carries it (version 2)
 *   H-4       4    CRC32 (zlib) of bytes [0, H-4)
 *     H            payload, per layer 0..L-1: W [in x out], b [out], then the state: SGD
 *                  velocity of W, of b; Adam v of W, of b, then m of W, of b. All f32.
 *   end-4     4    CRC32 of every byte before it (header included)
 *
 * Saving writes "<path>.tmp.<pid>.<n>" in the same directory, fwrite, fflush, fsync, rename, fsync
 * of the directory (csim/afile.h): an existing file at path is replaced whole or not at all.
 * Loading checks, in this order, and refuses with the reason: the file opens and is a regular
 * file (a FIFO is refused, not waited on: csim/rfile.h); it holds at least the fixed header; the
 * magic; the version; the header CRC; the header's fields (layer count, spec matches the layer
 * list, optimizer valid; samples per epoch at least one batch; simulated time at most
 * CKPT_MAX_SIM_PS; step at most CKPT_MAX_STEP); the file size against the header ("truncated" or
 * "trailing bytes"); the host memory the load needs (csim/hostmem.h); the file CRC, read in chunks
 * before anything the size of the model is allocated; then the model (spec) and the optimizer kind
 * against the params given; then the values: weights, biases and optimizer state finite, Adam's
 * second moments not negative (a NaN would train on silently). On any refusal the params are
 * unchanged.
 * Not modelled: the machine's state (flash contents, in-flight work: a checkpoint is taken
 * between steps; only its description is kept), compression, forward compatibility (a newer
 * version is refused).
 * Units: bytes, picoseconds, steps.
 */
#ifndef MODELS_HOST_CKPT_H
#define MODELS_HOST_CKPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "csim/err.h"
#include "models/dnn/dnn_model.h"
#include "models/dnn/dnn_params.h"

#define CKPT_VERSION     2u
#define CKPT_SPEC_MAX    256u         /* bytes of the spec string, NUL included */
#define CKPT_MACHINE_MAX (16u << 10)  /* bytes of the machine text, NUL included */
#define CKPT_FIXED_SIZE  136u         /* header bytes before the spec */
#define CKPT_MAX_SIM_PS  (1ull << 60) /* simulated time a checkpoint may hold (13 days) */
#define CKPT_MAX_STEP    (1ull << 40) /* steps: the most --steps accepts */

/* The run's position: what the driver needs besides the params to continue. */
struct ckpt_run {
    uint64_t seed;
    uint64_t epoch;       /* epoch of the next batch */
    uint64_t batch;       /* index of the next batch within that epoch */
    uint64_t sim_time_ps; /* simulated time so far */
    uint32_t batch_size;
    uint32_t nodes;
    uint32_t samples;    /* training samples per epoch (the shuffle's count); 0: not recorded */
    const char *machine; /* saving: the machine text (NULL: none); shorter than CKPT_MACHINE_MAX */
};

/* What a checkpoint's header says. */
struct ckpt_info {
    uint32_t version;
    uint64_t file_bytes;
    char spec[CKPT_SPEC_MAX]; /* "mlp:784-256-128-10" */
    struct dnn_model model;
    struct dnn_opt opt;
    uint64_t step;       /* optimizer steps completed */
    struct ckpt_run run; /* its machine: NULL */
    bool has_machine;    /* version 2: the machine text below is the run's */
    char machine[CKPT_MACHINE_MAX];
};

/* "mlp:W0-W1-...-WL" for m (always terminated); returns the length needed, like snprintf. */
int ckpt_spec(const struct dnn_model *m, char *buf, size_t len);

/* Bytes of the checkpoint of p and run (header, payload, CRC). */
uint64_t ckpt_file_bytes(const struct dnn_params *p, const struct ckpt_run *run);

/*
 * Write p and run to path atomically. 0, -EBUSY (p is in the middle of a step: some layers
 * updated, dnn_params_end_step not yet called), -EINVAL (run->batch_size or nodes 0, or a
 * machine text of CKPT_MACHINE_MAX bytes or more), -ENOMEM,
 * or the -errno of the failed step of the write (message names the step and the file).
 */
int ckpt_save(const char *path, const struct dnn_params *p, const struct ckpt_run *run,
              struct err *e);

/* Read and check the file without loading it: the header (magic, version, header CRC, fields),
 * the file size, the host memory a load needs, the file CRC (read in chunks, so a file of any
 * size costs 64 KiB). 0, -ENOENT/-EACCES.. (cannot open), -EINVAL (not a regular file, not a
 * valid checkpoint), -ENOMEM (more than this host holds, csim/hostmem.h), -EIO. */
int ckpt_read_info(const char *path, struct ckpt_info *info, struct err *e);

/*
 * Load path into p, which must have been created for the same model and optimizer kind (else
 * -EINVAL naming both). Every check of the contract runs before p is touched. On success p's
 * masters, state and step are the file's, its optimizer (hyperparameters and schedule) is the
 * file's, its bf16 copies are refreshed, and info (may be NULL) receives the header.
 */
int ckpt_load(const char *path, struct dnn_params *p, struct ckpt_info *info, struct err *e);

/* Create params for the checkpoint's model and optimizer and load it: what --resume needs.
 * *out is NULL on error. */
int ckpt_load_new(const char *path, struct dnn_params **out, struct ckpt_info *info, struct err *e);

#endif
