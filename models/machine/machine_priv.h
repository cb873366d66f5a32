/*
 * machine_priv: what the machine's files share (not a public interface): the executor's state,
 * the machine itself, and the functions one of them offers the others.
 *   machine.c        the machine: built from its configuration, its data, steps, parameters
 *   machine_cfg.c    its configuration: defaults, checks, the compiler's view of it
 *   machine_exec.c   the executor: commands started in program order per resource, the
 *                    layer records (the fabric's commands timed by models/fabric)
 *   machine_ctrs.c   the counters and records read after a run
 * Dependencies point from machine.c to the others, never back.
 */
#ifndef MODELS_MACHINE_MACHINE_PRIV_H
#define MODELS_MACHINE_MACHINE_PRIV_H

#include "models/machine/machine.h"

#include "csim/sim.h"
#include "models/dma/dma_time.h"
#include "models/host/compile.h"
#include "models/node/anode.h"
#include "models/node/nssd.h"
#include "models/node/wnode.h"

#define NONE UINT32_MAX

struct evref {
    struct machine *m;
    struct exec *x;
    uint32_t id;
};

struct exec {
    const struct hc_prog *p;
    uint32_t *pending;
    uint64_t *start, *end;
    uint64_t *free_t; /* when the command let its resource go (<= end) */
    uint32_t *crit;
    uint32_t *succ, *succ0; /* CSR: successors of i are succ[succ0[i] .. succ0[i + 1]) */
    uint32_t *rq, *rq0;     /* CSR: commands of resource k in program order */
    uint32_t *rnext;        /* next position in each resource's queue */
    uint8_t *rbusy;
    uint32_t *rlast;   /* last command that ended on the resource */
    struct evref *ev;  /* completion events */
    struct evref *evr; /* resource-release events (when free_t < end) */
    uint64_t *place;   /* a command a port started: its events' places (sim_reserve) */
    uint32_t done;
    bool record;        /* layer records for this program */
    uint32_t *lx, *lx0; /* CSR: commands of layer l and pass q (bucket 2 l + q) are
                           lx[lx0[b] .. lx0[b + 1]), in program order (records only) */
};

struct machine {
    struct machine_cfg cfg;
    struct hc_prog *train, *eval;
    struct exec xt, xe;     /* xe: unused in perf (no evaluation) */
    bool perf;              /* payload-free (MACHINE_PERF), for the machine's life */
    bool given;             /* perf: runs a program it was given (machine_create_program) */
    bool ideal;             /* perf: MACHINE_STORAGE_IDEAL (flash, DMA and fabric take no time) */
    uint32_t ideal_pending; /* ideal storage: batches loaded (they are not written anywhere) */
    struct sim *sim;
    struct anode *an[MACHINE_MAX_AN];
    struct wnode *wn;
    struct fabric *fab;
    int rid_fab[MACHINE_MAX_AN];         /* the fabric's requester at each AN's buffer */
    struct dram *tb_fab[MACHINE_MAX_AN]; /* each AN's buffer */
    struct fabric_ends fab_ends;         /* the buffers the fabric's bytes cross */
    struct dma_time *dma_time;
    enum machine_fidelity fid;
    char (*resname)[24];
    uint32_t n_res;
    /* run state */
    struct exec *cur;
    int err;
    struct err *run_err; /* run()'s message while it runs: the event callbacks write it */
    float loss;
    uint64_t step_commands, step_gemms;
    /* scratch */
    unsigned char *buf;
    size_t buf_cap;
    /* records */
    struct machine_layer_rec *rec;
    size_t n_rec, cap_rec;
    struct machine_busy *busy;
    size_t n_busy, cap_busy, busy_max;
    uint64_t busy_dropped;
    bool busy_on;
    uint64_t *res_busy_ps; /* per resource, over the run */
    uint64_t steps, evals, sim_steps_ps;
    struct machine_counter *ctr;
    size_t n_ctr, cap_ctr;
    struct machine_port port; /* another executor of the commands, or none (exec NULL) */
    /* interval scratch for the records */
    struct iv {
        uint64_t a, b;
    } * iv;
    size_t cap_iv;
};

/* machine_cfg.c */

/* The compiler's view of cfg (eval: the evaluation program's). */
void machine_hc_cfg(const struct machine_cfg *c, bool eval, struct hc_cfg *h);
/* The machine's blocks, whatever runs on them: nodes, fabric, flash, tensor buffer, clocks. */
int machine_check_blocks(const struct machine_cfg *c, struct err *e);

/* machine_exec.c */

/* x ready to run program p (record: keep its layer records); 0 or -ENOMEM. */
int machine_exec_init(struct machine *m, struct exec *x, const struct hc_prog *p, bool record);
void machine_exec_free(struct exec *x);
/* Run program x from now until every command is done. */
int machine_exec_run(struct machine *m, struct exec *x, struct err *e);
/* The step's layer records: forward layers 1..L, then backward L..1. */
int machine_make_records(struct machine *m, struct exec *x);
/* The machine's scratch buffer at least n bytes; 0 or -ENOMEM. */
int machine_ensure_buf(struct machine *m, size_t n);

#endif
