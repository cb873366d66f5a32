/*
 * ckpt.c - checkpoint files; see ckpt.h for the format and the order of the checks.
 */
#include "models/host/ckpt.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "csim/afile.h"
#include "csim/hostmem.h"
#include "csim/rfile.h"

static const unsigned char MAGIC[8] = {'F', 'S', 'C', 'K', 'P', 'T', 0x1a, '\n'};

#define CHUNK 65536 /* bytes encoded or decoded at a time */

/* ---- little-endian encoding ---- */

static void put_u32(unsigned char *b, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        b[i] = (unsigned char)(v >> (8 * i));
}

static void put_u64(unsigned char *b, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get_u32(const unsigned char *b)
{
    uint32_t v = 0;

    for (int i = 0; i < 4; i++)
        v |= (uint32_t)b[i] << (8 * i);
    return v;
}

static uint64_t get_u64(const unsigned char *b)
{
    uint64_t v = 0;

    for (int i = 0; i < 8; i++)
        v |= (uint64_t)b[i] << (8 * i);
    return v;
}

static uint32_t f32_bits(float f)
{
    uint32_t u;

    memcpy(&u, &f, 4);
    return u;
}

static float bits_f32(uint32_t u)
{
    float f;

    memcpy(&f, &u, 4);
    return f;
}

static uint32_t crc(uint32_t c, const unsigned char *b, uint64_t n)
{
    while (n) {
        uInt k = n > (1u << 30) ? (1u << 30) : (uInt)n;

        c = (uint32_t)crc32(c, b, k);
        b += k;
        n -= k;
    }
    return c;
}

/* ---- sizes ---- */

int ckpt_spec(const struct dnn_model *m, char *buf, size_t len)
{
    int n = snprintf(buf, len, "mlp:");

    if (n < 0)
        return n;
    return n + dnn_model_format(m, len > 4 ? buf + 4 : NULL, len > 4 ? len - 4 : 0);
}

static bool adam(const struct dnn_opt *o)
{
    return o->kind == DNN_OPT_ADAM;
}

/* f32 values in the payload: params, once per tensor kind. */
static uint64_t payload_floats(const struct dnn_model *m, const struct dnn_opt *o)
{
    return dnn_model_params(m) * (adam(o) ? 3 : 2);
}

/* The longest header: the longest spec and machine text, the most layers. */
#define HEADER_MAX (CKPT_FIXED_SIZE + CKPT_SPEC_MAX + 8 * DNN_MAX_LAYERS + 4 + CKPT_MACHINE_MAX + 4)

/* Header bytes of a checkpoint of format version, spec_len and a machine text of machine_len
 * bytes (version 2). */
static uint64_t header_bytes(const struct dnn_model *m, size_t spec_len, uint32_t version,
                             size_t machine_len)
{
    return CKPT_FIXED_SIZE + spec_len + 8ull * m->n_layers + (version >= 2 ? 4 + machine_len : 0) +
           4;
}

static size_t machine_len(const struct ckpt_run *run)
{
    return run->machine ? strlen(run->machine) : 0;
}

uint64_t ckpt_file_bytes(const struct dnn_params *p, const struct ckpt_run *run)
{
    char spec[CKPT_SPEC_MAX];
    int n = ckpt_spec(&p->model, spec, sizeof(spec));

    return header_bytes(&p->model, (size_t)n, CKPT_VERSION, machine_len(run)) +
           4 * payload_floats(&p->model, &p->opt) + 4;
}

/* The tensors of layer l in file order, and their lengths. Returns the count (4 or 6). */
static int tensors(struct dnn_params *p, uint32_t l, float *t[6], uint64_t len[6])
{
    struct dnn_params_layer *L = &p->layer[l];
    uint64_t nw = dnn_model_layer_weights(&p->model, l), nb = p->model.layer[l].out;

    t[0] = L->w;
    len[0] = nw;
    t[1] = L->b;
    len[1] = nb;
    t[2] = L->w_v;
    len[2] = nw;
    t[3] = L->b_v;
    len[3] = nb;
    if (!adam(&p->opt))
        return 4;
    t[4] = L->w_m;
    len[4] = nw;
    t[5] = L->b_m;
    len[5] = nb;
    return 6;
}

/* ---- save ---- */

static size_t encode_header(const struct dnn_params *p, const struct ckpt_run *run,
                            unsigned char *h, const char *spec, size_t spec_len)
{
    const struct dnn_opt *o = &p->opt;
    size_t ml = machine_len(run), hb = (size_t)header_bytes(&p->model, spec_len, CKPT_VERSION, ml);
    unsigned char *q;

    memset(h, 0, hb);
    memcpy(h, MAGIC, 8);
    put_u32(h + 8, CKPT_VERSION);
    put_u32(h + 12, (uint32_t)hb);
    put_u64(h + 16, ckpt_file_bytes(p, run));
    put_u64(h + 24, p->step);
    put_u64(h + 32, run->seed);
    put_u64(h + 40, run->epoch);
    put_u64(h + 48, run->batch);
    put_u64(h + 56, run->sim_time_ps);
    put_u32(h + 64, run->batch_size);
    put_u32(h + 68, run->nodes);
    put_u32(h + 72, (uint32_t)o->kind);
    put_u32(h + 76, (uint32_t)o->sched);
    put_u32(h + 80, f32_bits(o->lr));
    put_u32(h + 84, f32_bits(o->momentum));
    put_u32(h + 88, f32_bits(o->weight_decay));
    put_u32(h + 92, f32_bits(o->beta1));
    put_u32(h + 96, f32_bits(o->beta2));
    put_u32(h + 100, f32_bits(o->eps));
    put_u32(h + 104, f32_bits(o->gamma));
    put_u32(h + 108, run->samples);
    put_u64(h + 112, o->step_size);
    put_u64(h + 120, o->total_steps);
    put_u32(h + 128, p->model.n_layers);
    put_u32(h + 132, (uint32_t)spec_len);
    memcpy(h + CKPT_FIXED_SIZE, spec, spec_len);
    q = h + CKPT_FIXED_SIZE + spec_len;
    for (uint32_t l = 0; l < p->model.n_layers; l++, q += 8) {
        put_u32(q, p->model.layer[l].in);
        put_u32(q + 4, p->model.layer[l].out);
    }
    put_u32(q, (uint32_t)ml);
    if (ml)
        memcpy(q + 4, run->machine, ml);
    put_u32(q + 4 + ml, crc(0, h, hb - 4));
    return hb;
}

int ckpt_save(const char *path, const struct dnn_params *p, const struct ckpt_run *run,
              struct err *e)
{
    unsigned char h[HEADER_MAX];
    unsigned char *buf;
    char spec[CKPT_SPEC_MAX];
    struct afile af;
    struct err ae; /* the file's message, said of the checkpoint */
    uint32_t c;
    size_t hb;
    int n, rc;

    if (p->updated)
        return err_set(e, -EBUSY,
                       "checkpoint '%s': step %" PRIu64 " is in progress (layer mask 0x%x "
                       "updated); a checkpoint is taken between steps",
                       path, p->step, p->updated);
    if (!run->batch_size || !run->nodes)
        return err_set(e, -EINVAL,
                       "checkpoint '%s': batch size %u, nodes %u; accepted 1 or more each", path,
                       run->batch_size, run->nodes);
    n = ckpt_spec(&p->model, spec, sizeof(spec));
    if (n <= 4 || (size_t)n >= sizeof(spec))
        return err_set(e, -EINVAL, "checkpoint '%s': model spec of %d bytes; accepted 5..%u", path,
                       n, CKPT_SPEC_MAX - 1);
    if (machine_len(run) >= CKPT_MACHINE_MAX)
        return err_set(e, -EINVAL,
                       "checkpoint '%s': a machine description of %zu bytes; accepted up to %u",
                       path, machine_len(run), CKPT_MACHINE_MAX - 1);
    buf = malloc(CHUNK);
    if (!buf)
        return err_set(e, -ENOMEM, "checkpoint '%s': out of memory", path);
    rc = afile_open(&af, path, &ae);
    if (rc) {
        free(buf);
        return err_set(e, rc, "checkpoint %s", ae.msg);
    }
    hb = encode_header(p, run, h, spec, (size_t)n);
    c = crc(0, h, hb);
    if (fwrite(h, 1, hb, af.f) != hb)
        afile_fail(&af, "write", errno);
    for (uint32_t l = 0; l < p->model.n_layers && !af.err; l++) {
        float *t[6];
        uint64_t len[6];
        int nt = tensors((struct dnn_params *)p, l, t, len);

        for (int k = 0; k < nt && !af.err; k++) {
            for (uint64_t i = 0; i < len[k] && !af.err;) {
                size_t m = 0;

                for (; m < CHUNK / 4 && i < len[k]; m++, i++)
                    put_u32(buf + 4 * m, f32_bits(t[k][i]));
                c = crc(c, buf, 4 * m);
                if (fwrite(buf, 1, 4 * m, af.f) != 4 * m)
                    afile_fail(&af, "write", errno);
            }
        }
    }
    put_u32(buf, c);
    if (!af.err && fwrite(buf, 1, 4, af.f) != 4)
        afile_fail(&af, "write", errno);
    free(buf);
    rc = afile_commit(&af, &ae);
    if (rc)
        return err_set(e, rc, "checkpoint %s", ae.msg);
    return 0;
}

/* ---- load ---- */

/* Decode and check the header in h[0..n); n >= CKPT_FIXED_SIZE. */
static int decode_header(const char *path, const unsigned char *h, size_t n, struct ckpt_info *info,
                         struct err *e)
{
    uint32_t hb, spec_len, text_len, stored, computed;
    struct dnn_opt *o = &info->opt;
    struct dnn_model m;
    struct err pe;
    int rc;

    memset(info, 0, sizeof(*info));
    if (memcmp(h, MAGIC, 8))
        return err_set(e, -EINVAL,
                       "'%s' is not a flashstream checkpoint: it starts with %02x %02x %02x "
                       "%02x %02x %02x %02x %02x, a checkpoint with \"FSCKPT\\x1a\\n\"",
                       path, h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]);
    info->version = get_u32(h + 8);
    if (info->version < 1 || info->version > CKPT_VERSION)
        return err_set(e, -EINVAL,
                       "checkpoint '%s' has format version %u; this build reads versions 1 to %u",
                       path, info->version, CKPT_VERSION);
    hb = get_u32(h + 12);
    if (hb < CKPT_FIXED_SIZE + 4 || hb > HEADER_MAX)
        return err_set(e, -EINVAL,
                       "checkpoint '%s' is corrupted: header length %u; accepted %u..%u", path, hb,
                       CKPT_FIXED_SIZE + 4, HEADER_MAX);
    if (n < hb)
        return err_set(e, -EINVAL,
                       "checkpoint '%s' is truncated: %zu bytes, shorter than its %u-byte "
                       "header",
                       path, n, hb);
    stored = get_u32(h + hb - 4);
    computed = crc(0, h, hb - 4);
    if (stored != computed)
        return err_set(e, -EINVAL,
                       "checkpoint '%s' is corrupted: header CRC32 0x%08x stored, 0x%08x "
                       "computed",
                       path, stored, computed);
    info->file_bytes = get_u64(h + 16);
    info->step = get_u64(h + 24);
    info->run.seed = get_u64(h + 32);
    info->run.epoch = get_u64(h + 40);
    info->run.batch = get_u64(h + 48);
    info->run.sim_time_ps = get_u64(h + 56);
    info->run.batch_size = get_u32(h + 64);
    info->run.nodes = get_u32(h + 68);
    o->kind = (enum dnn_opt_kind)get_u32(h + 72);
    o->sched = (enum dnn_lr_sched)get_u32(h + 76);
    o->lr = bits_f32(get_u32(h + 80));
    o->momentum = bits_f32(get_u32(h + 84));
    o->weight_decay = bits_f32(get_u32(h + 88));
    o->beta1 = bits_f32(get_u32(h + 92));
    o->beta2 = bits_f32(get_u32(h + 96));
    o->eps = bits_f32(get_u32(h + 100));
    o->gamma = bits_f32(get_u32(h + 104));
    info->run.samples = get_u32(h + 108);
    o->step_size = get_u64(h + 112);
    o->total_steps = get_u64(h + 120);
    info->model.n_layers = get_u32(h + 128);
    spec_len = get_u32(h + 132);
    /* version 2: the machine text's length after the layer list, if the header reaches it */
    size_t at = CKPT_FIXED_SIZE + (size_t)spec_len + 8 * (size_t)info->model.n_layers;
    text_len = info->version >= 2 && spec_len < CKPT_SPEC_MAX &&
                       info->model.n_layers <= DNN_MAX_LAYERS && at + 8 <= hb
                   ? get_u32(h + at)
                   : 0;
    if (info->model.n_layers < 1 || info->model.n_layers > DNN_MAX_LAYERS ||
        spec_len >= CKPT_SPEC_MAX || text_len >= CKPT_MACHINE_MAX ||
        hb != header_bytes(&info->model, spec_len, info->version, text_len))
        return err_set(e, -EINVAL,
                       "checkpoint '%s' is corrupted: %u layers, a %u-byte spec%s do not make a "
                       "%u-byte header",
                       path, info->model.n_layers, spec_len,
                       info->version >= 2 ? " and its machine text" : "", hb);
    if (info->version >= 2) {
        memcpy(info->machine, h + at + 4, text_len);
        info->machine[text_len] = '\0';
        if (strlen(info->machine) != text_len)
            return err_set(e, -EINVAL,
                           "checkpoint '%s' is corrupted: a NUL byte inside its machine text",
                           path);
        info->has_machine = true;
    }
    memcpy(info->spec, h + CKPT_FIXED_SIZE, spec_len);
    info->spec[spec_len] = '\0';
    for (uint32_t l = 0; l < info->model.n_layers; l++) {
        const unsigned char *q = h + CKPT_FIXED_SIZE + spec_len + 8 * l;

        info->model.layer[l].in = get_u32(q);
        info->model.layer[l].out = get_u32(q + 4);
        info->model.layer[l].act = l + 1 < info->model.n_layers ? DNN_ACT_RELU : DNN_ACT_NONE;
    }
    rc = dnn_model_parse(&m, info->spec, &pe);
    if (rc || memcmp(&m, &info->model, sizeof(m)))
        return err_set(e, -EINVAL,
                       "checkpoint '%s' is corrupted: spec \"%s\" does not match its layer "
                       "list%s%s",
                       path, info->spec, rc ? ": " : "", rc ? pe.msg : "");
    rc = dnn_params_opt_validate(o, &pe);
    if (rc)
        return err_set(e, -EINVAL, "checkpoint '%s' has a bad optimizer: %s", path, pe.msg);
    if (!info->run.batch_size || !info->run.nodes)
        return err_set(e, -EINVAL,
                       "checkpoint '%s' is corrupted: batch size %u, nodes %u (both >= 1)", path,
                       info->run.batch_size, info->run.nodes);
    if (!info->run.samples || info->run.samples < info->run.batch_size)
        return err_set(e, -EINVAL,
                       "checkpoint '%s' is corrupted: its run shuffled %u training samples per "
                       "epoch; accepted at least one batch (%u)",
                       path, info->run.samples, info->run.batch_size);
    if (info->run.sim_time_ps > CKPT_MAX_SIM_PS)
        return err_set(e, -EINVAL,
                       "checkpoint '%s' is corrupted: simulated time %" PRIu64
                       " ps; accepted at most %" PRIu64 " ps (about 13 simulated days)",
                       path, info->run.sim_time_ps, (uint64_t)CKPT_MAX_SIM_PS);
    if (info->step > CKPT_MAX_STEP)
        return err_set(e, -EINVAL,
                       "checkpoint '%s' is corrupted: step %" PRIu64 "; accepted at most %" PRIu64
                       " (the most steps a run takes)",
                       path, info->step, (uint64_t)CKPT_MAX_STEP);
    uint64_t want = hb + 4 * payload_floats(&info->model, o) + 4;
    if (info->file_bytes != want)
        return err_set(e, -EINVAL,
                       "checkpoint '%s' is corrupted: header says %" PRIu64
                       " bytes, its model and optimizer make %" PRIu64,
                       path, info->file_bytes, want);
    return 0;
}

/* Bytes read at a time by the CRC pass over a whole file. */
#define CRC_CHUNK (64u << 10)

/* The CRC32 of f's first n bytes against the u32 stored after them, read in chunks: a file of
 * any size is checked in CRC_CHUNK bytes of memory before anything the size of its model is
 * allocated. f is left after the stored CRC. */
static int check_file_crc(FILE *f, const char *path, uint64_t n, struct err *e)
{
    unsigned char *buf = malloc(CRC_CHUNK), tail[4];
    uint32_t c = 0, stored;
    uint64_t left = n;

    if (!buf)
        return err_set(e, -ENOMEM, "checkpoint '%s': out of memory", path);
    while (left) {
        size_t want = left < CRC_CHUNK ? (size_t)left : CRC_CHUNK;

        if (fread(buf, 1, want, f) != want) {
            free(buf);
            return err_set(e, -EIO, "checkpoint '%s': read error or the file shrank while read",
                           path);
        }
        c = crc(c, buf, want);
        left -= want;
    }
    free(buf);
    if (fread(tail, 1, 4, f) != 4)
        return err_set(e, -EIO, "checkpoint '%s': read error or the file shrank while read", path);
    stored = get_u32(tail);
    if (stored != c)
        return err_set(e, -EINVAL,
                       "checkpoint '%s' is corrupted: CRC32 0x%08x stored, 0x%08x computed "
                       "over its %" PRIu64 " bytes",
                       path, stored, c, n);
    return 0;
}

/* Open path and check its header, its size, that this host can hold what it holds, and its CRC:
 * *fp is left at offset 0, *hb_out = header bytes. */
static int open_checked(const char *path, FILE **fp, struct ckpt_info *info, size_t *hb_out,
                        struct err *e)
{
    unsigned char h[HEADER_MAX];
    char what[64];
    uint64_t size;
    FILE *f;
    size_t n;
    int rc, fd;

    *fp = NULL;
    fd = rfile_open(path, "checkpoint", &size, e);
    if (fd < 0)
        return fd;
    f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        return err_set(e, -ENOMEM, "checkpoint '%s': cannot open: out of memory", path);
    }
    n = fread(h, 1, sizeof(h), f);
    if (ferror(f)) {
        rc = err_set(e, -EIO, "checkpoint '%s': read error", path);
        goto out_close;
    }
    if (n < CKPT_FIXED_SIZE) {
        rc = err_set(e, -EINVAL,
                     "checkpoint '%s' is truncated: %zu bytes, a header needs at least %u%s", path,
                     n, CKPT_FIXED_SIZE + 4,
                     n >= 8 && memcmp(h, MAGIC, 8) ? " (and it is not a checkpoint)" : "");
        goto out_close;
    }
    rc = decode_header(path, h, n, info, e);
    if (rc)
        goto out_close;
    if (size != info->file_bytes) {
        rc = err_set(e, -EINVAL,
                     size < info->file_bytes ? "checkpoint '%s' is truncated: %" PRIu64
                                               " bytes of the %" PRIu64 " its header announces"
                                             : "checkpoint '%s' has trailing bytes: %" PRIu64
                                               " bytes, its header "
                                               "announces %" PRIu64,
                     path, size, info->file_bytes);
        goto out_close;
    }
    /* Loading holds the file and the params it describes (masters, state, bf16 copies). */
    snprintf(what, sizeof(what), "loading checkpoint of model %.24s", info->spec);
    rc = hostmem_check(info->file_bytes + info->file_bytes + 2 * dnn_model_params(&info->model),
                       what, e);
    if (rc) {
        err_prefix(e, rc, "checkpoint '%s'", path);
        goto out_close;
    }
    if (fseek(f, 0, SEEK_SET)) {
        rc = err_set(e, -EIO, "checkpoint '%s': cannot seek", path);
        goto out_close;
    }
    rc = check_file_crc(f, path, info->file_bytes - 4, e);
    if (rc)
        goto out_close;
    *hb_out = get_u32(h + 12);
    if (fseek(f, 0, SEEK_SET)) {
        rc = err_set(e, -EIO, "checkpoint '%s': cannot seek", path);
        goto out_close;
    }
    *fp = f;
    return 0;

out_close:
    fclose(f);
    return rc;
}

int ckpt_read_info(const char *path, struct ckpt_info *info, struct err *e)
{
    FILE *f;
    size_t hb;
    int rc = open_checked(path, &f, info, &hb, e);

    if (!rc)
        fclose(f);
    return rc;
}

static const char *opt_name(enum dnn_opt_kind k)
{
    return k == DNN_OPT_ADAM ? "adam" : "sgd";
}

int ckpt_load(const char *path, struct dnn_params *p, struct ckpt_info *info, struct err *e)
{
    struct ckpt_info in;
    char have[CKPT_SPEC_MAX];
    unsigned char *data = NULL;
    FILE *f;
    size_t hb, total;
    uint32_t stored, computed;
    int rc;

    rc = open_checked(path, &f, &in, &hb, e);
    if (rc)
        return rc;
    ckpt_spec(&p->model, have, sizeof(have));
    if (memcmp(&in.model, &p->model, sizeof(in.model))) {
        rc = err_set(e, -EINVAL,
                     "checkpoint '%s' holds model %s (%" PRIu64
                     " parameters); this run's model is %s (%" PRIu64 " parameters)",
                     path, in.spec, dnn_model_params(&in.model), have, dnn_model_params(&p->model));
        goto out_close;
    }
    if (in.opt.kind != p->opt.kind) {
        rc = err_set(e, -EINVAL, "checkpoint '%s' holds %s optimizer state; this run uses %s", path,
                     opt_name(in.opt.kind), opt_name(p->opt.kind));
        goto out_close;
    }
    if (p->updated) {
        rc = err_set(e, -EBUSY, "checkpoint '%s': the params are in the middle of a step", path);
        goto out_close;
    }
    total = (size_t)in.file_bytes;
    data = malloc(total);
    if (!data) {
        rc = err_set(e, -ENOMEM, "checkpoint '%s': out of memory (%zu bytes)", path, total);
        goto out_close;
    }
    if (fread(data, 1, total, f) != total) {
        rc = err_set(e, -EIO, "checkpoint '%s': read error or the file shrank while read", path);
        goto out_free;
    }
    stored = get_u32(data + total - 4);
    computed = crc(0, data, total - 4);
    if (stored != computed) {
        rc = err_set(e, -EINVAL,
                     "checkpoint '%s' is corrupted: CRC32 0x%08x stored, 0x%08x computed "
                     "over its %zu bytes",
                     path, stored, computed, total - 4);
        goto out_free;
    }
    /* The values must mean something: finite weights, biases and state, Adam's second moments
     * not negative (their square root is taken). Checked before p changes. */
    {
        const unsigned char *q = data + hb;
        static const char *const sgd_names[4] = {"W", "b", "velocity of W", "velocity of b"};
        static const char *const adam_names[6] = {"W", "b", "v of W", "v of b", "m of W", "m of b"};
        const char *const *what = adam(&in.opt) ? adam_names : sgd_names;

        for (uint32_t l = 0; l < p->model.n_layers; l++) {
            float *t[6];
            uint64_t len[6];
            int nt = tensors(p, l, t, len);

            for (int k = 0; k < nt; k++)
                for (uint64_t i = 0; i < len[k]; i++, q += 4) {
                    float v = bits_f32(get_u32(q));
                    bool second = adam(&in.opt) && (k == 2 || k == 3);

                    if (isfinite(v) && !(second && v < 0.0f))
                        continue;
                    rc = err_set(e, -EINVAL,
                                 "checkpoint '%s' holds a value that means nothing: layer %u %s"
                                 "[%" PRIu64 "] = %g; accepted finite values%s",
                                 path, l, what[k], i, (double)v,
                                 second ? ", not negative (Adam's second moment)" : "");
                    goto out_free;
                }
        }
    }
    /* Every check passed: now p changes. */
    const unsigned char *q = data + hb;
    p->opt = in.opt;
    for (uint32_t l = 0; l < p->model.n_layers; l++) {
        float *t[6];
        uint64_t len[6];
        int nt = tensors(p, l, t, len);

        for (int k = 0; k < nt; k++)
            for (uint64_t i = 0; i < len[k]; i++, q += 4)
                t[k][i] = bits_f32(get_u32(q));
        dnn_params_refresh_bf16(p, l);
    }
    p->step = in.step;
    p->updated = 0;
    if (info)
        *info = in;
    rc = 0;

out_free:
    free(data);
out_close:
    fclose(f);
    return rc;
}

int ckpt_load_new(const char *path, struct dnn_params **out, struct ckpt_info *info, struct err *e)
{
    struct ckpt_info in;
    struct dnn_params *p;
    int rc;

    *out = NULL;
    rc = ckpt_read_info(path, &in, e);
    if (rc)
        return rc;
    rc = dnn_params_create(
        &(struct dnn_params_cfg){.model = &in.model, .opt = &in.opt, .seed = in.run.seed}, &p, e);
    if (rc)
        return rc;
    rc = ckpt_load(path, p, info, e);
    if (rc) {
        dnn_params_destroy(p);
        return rc;
    }
    *out = p;
    return 0;
}
