/*
 * flash_fault: what goes wrong in NAND flash, for flash_fms: raw bit errors that grow with wear
 * and retention age, the controller's ECC with read retries, and injected faults (program
 * failures, a die or a channel that stops answering, power loss).
 *
 * Contract
 * --------
 * Modelled:
 *   - Raw bit error rate of a page, RBER(pe, age) = rber0 + k x pe^a x age^b (age in seconds,
 *     at least 1 s): a power law in P/E cycles and in retention age. k and b are derived so that
 *     both ratings of Behemoth's Table 2 sit exactly at the ECC's rated RBER: the NV stream's
 *     50K P/E at one year of retention and the V stream's 2M P/E at one day (40^a = 365.25^b).
 *     Relaxed retention buys P/E cycles, as the paper argues, and the model says how many.
 *   - ECC per codeword (codeword_bytes of data, t bits corrected): a read fails to decode when
 *     more than t of its bits are wrong, with the binomial probability of RBER; the rated RBER
 *     is the one at which a codeword fails its first decode with probability rated_fail. A
 *     failed decode is retried with shifted read voltages (another tR and data-out), each retry
 *     dividing the RBER by retry_gain, up to max_retries; then the page is uncorrectable.
 *   - Injected faults (flash_fault_parse: the --fault grammar below), seeded and reproducible:
 *     RBER scaled, every block aged (P/E and retention added: accelerated life), a program that
 *     fails with a probability (the block is then bad), a die or a channel that stops answering
 *     from a simulated time on, power lost at a simulated time.
 *   - Wear-out (grown bad blocks), when turned on (wear below): a block fails in its P/E cycle
 *     N (the block's P/E plus the injected age:pe) with the hazard of a Weibull life,
 *     h(N) = shape / eta x (N / eta)^(shape - 1), eta such that a fraction `bad` of the blocks
 *     has failed at the rated endurance pe (F(pe) = 1 - exp(-(pe / eta)^shape) = bad). Half of
 *     a cycle's hazard falls on its erase, half on its page programs (h / 2 / pages_per_block
 *     each); a failed program or erase retires the block and the FTL takes a spare. With an
 *     injected age (age:pe=N), a block was failed before the simulated life began with
 *     probability F(N) (flash_fault_worn_out): the FTL finds it bad at start and takes a spare,
 *     so the spares used grow with the age and run out when a plane has more failed blocks
 *     than spares (the FTL then retires superblocks).
 *   - Outcomes are drawn from one xorshift stream per model in call order, so the same seed and
 *     the same sequence of operations give the same faults. On the fast path of long reads one
 *     draw gives how many pages in a row pass their first decode (flash_fault_clean_run, below):
 *     the same distribution as a draw per page, not the same draws.
 * Not modelled: read disturb, data-dependent (pattern) errors, per-page variation other than by
 *   P/E and age, soft-decision decoding.
 * Units: picoseconds for times, seconds for retention ages.
 *
 * Grammar of a fault specification (one --fault option each; several may be given):
 *   KIND[:KEY=VALUE[,KEY=VALUE]...]
 *   rber:x=F             multiply every RBER by F (>= 0; 0 turns bit errors off)
 *   age:pe=N,days=D[,node=an|wn]  every block has N more P/E cycles and its data D more days of
 *                        age; with node=, only the Activation Nodes' or the Weight Node's
 *                        (flash_fault_cfg_for_node), over the age given for all
 *   program:rate=P       each program fails with probability P (0..1): the block turns bad
 *   die:ch=C,die=D,at=T  die D of channel C answers nothing from T (ns, us, ms or s) on
 *   channel:ch=C,at=T    channel C answers nothing from T on
 *   power:at=T           power is lost at T: every operation from T on fails
 *   wear[:pe=N,bad=F,shape=B]  wear-out: F of the blocks (0 < F < 1, default 0.02) failed at N
 *                        P/E cycles (default 2000000), Weibull shape B (>= 1, default 4)
 *   seed:n=S             the seed of the fault draws (default 1)
 */
#ifndef MODELS_FLASH_FLASH_FAULT_H
#define MODELS_FLASH_FLASH_FAULT_H

#include <stdbool.h>
#include <stdint.h>

#include "csim/err.h"

#define FLASH_FAULT_MAX_DEAD 16 /* dies and channels that may be made to stop answering */

struct flash_ecc_cfg {
    uint32_t codeword_bytes; /* data bytes per codeword */
    uint32_t t;              /* bits corrected per codeword */
    uint32_t max_retries;    /* read retries before a page is uncorrectable */
    double retry_gain;       /* each retry divides the RBER by this */
    double rated_fail;       /* first-decode failure probability of a codeword at the rating */
};

struct flash_rber_cfg {
    double rber0;  /* fresh, just programmed */
    double pe_exp; /* a: RBER grows as (P/E)^a */
    /* the two ratings that fix k and b (Table 2): P/E cycles at a retention age (s) */
    double pe_nv, age_nv_s, pe_v, age_v_s;
};

struct flash_dead {
    bool channel;     /* a whole channel, else one die */
    uint32_t ch, die; /* die: within the channel */
    uint64_t at_ps;
};

struct flash_fault_cfg {
    bool on; /* bit errors and ECC modelled (any --fault, or flash.faults = on) */
    struct flash_ecc_cfg ecc;
    struct flash_rber_cfg rber;
    double rber_x;   /* injected: RBER multiplier */
    uint32_t age_pe; /* injected: P/E cycles added to every block */
    double age_s;    /* injected: retention age added to every page */
    bool age_of[2];  /* an age given for the ANs' [0], the WN's [1] only (node=) */
    uint32_t age_pe_of[2];
    double age_s_of[2];
    double program_rate; /* injected: probability a program fails */
    uint64_t power_ps;   /* injected: power lost at (UINT64_MAX: never) */
    bool wear;           /* wear-out modelled */
    double wear_pe;      /* rated endurance: P/E cycles at which wear_bad of the blocks failed */
    double wear_bad;     /* fraction of the blocks failed at wear_pe */
    double wear_shape;   /* Weibull shape: how steeply failures rise with P/E */
    uint32_t n_dead;
    struct flash_dead dead[FLASH_FAULT_MAX_DEAD];
    uint64_t seed;
};

/* Counters of one fault model. */
struct flash_fault_stats {
    uint64_t pages_checked;    /* page reads decoded */
    uint64_t pages_retried;    /* needed at least one retry */
    uint64_t retries;          /* retries in all */
    uint64_t retry_ps;         /* time the retries added (array and channel) */
    uint64_t uncorrectable;    /* pages that failed every retry */
    uint64_t program_failures; /* program failures (injected rate and wear-out) */
    uint64_t erase_failures;   /* erase failures (wear-out) */
    uint64_t worn_blocks;      /* blocks found failed in the injected age (flash_fault_worn_out) */
    uint64_t refused_dead;     /* operations on a die or channel that stopped answering */
    uint64_t refused_power;    /* operations after power loss */
    double rber_sum;           /* RBER of every page decoded, summed (mean: / pages_checked) */
    double rber_max;           /* the highest RBER a page was decoded at */
};

struct flash_fault;

/* The defaults: ECC and RBER model with their sources (models/flash/README.md), no injected
 * fault, off. */
void flash_fault_cfg_default(struct flash_fault_cfg *c);
/* Add one specification (grammar above) to c and turn it on. 0, or -EINVAL naming the part of
 * spec that is wrong and what is accepted, c unchanged. */
int flash_fault_parse(struct flash_fault_cfg *c, const char *spec, struct err *e);

int flash_fault_create(const struct flash_fault_cfg *c, struct flash_fault **out, struct err *e);
void flash_fault_destroy(struct flash_fault *f);

/* The RBER of a page written pe P/E cycles into its block's life and read age_s seconds after
 * it was programmed, injected ageing and scaling included; at most 0.5 (noise). */
double flash_fault_rber(const struct flash_fault *f, uint32_t pe, double age_s);
/* The probability that one codeword fails to decode at RBER r. */
double flash_fault_cw_fail(const struct flash_fault *f, double r);
/* The rated RBER (where a codeword fails its first decode with probability rated_fail). */
double flash_fault_rated_rber(const struct flash_fault *f);

/* One page read of page_bytes at RBER r: the retries it needs (0..max_retries), or -1 when it
 * is uncorrectable. Draws from the model's stream; counts into its stats. */
int flash_fault_read(struct flash_fault *f, uint32_t page_bytes, double r);
/*
 * Fast path of long reads (flash_fms_run_*): instead of a draw per page, one draw gives how
 * many page reads in a row pass their first decode: G, geometric in the probability p that a
 * page fails it at RBER r. flash_fault_clean_run returns min(G, max) (drawing G when no run is
 * armed); the caller skips whole stripes of that many pages (flash_fault_skip_clean counts
 * them and takes them off G), and the page reads after them (flash_fault_read) take the rest:
 * the next G pages pass their first decode without a draw, the one after fails it and draws
 * its retries. Since G is memoryless, a transfer ending (flash_fault_end_run) drops what is
 * left of it. Exact in distribution when every page of the run is at RBER r (the fast path
 * takes r at the block of its last read: a stream's blocks wear evenly and a run's pages were
 * written within its duration of each other).
 */
bool flash_fault_fast_ok(const struct flash_fault *f); /* bit errors, wear-out: no injected */
uint64_t flash_fault_clean_run(struct flash_fault *f, uint32_t page_bytes, double r, uint64_t max);
void flash_fault_skip_clean(struct flash_fault *f, uint64_t pages); /* at the run's RBER */
void flash_fault_end_run(struct flash_fault *f);

/* The wear-out hazard: the probability that a block fails in its P/E cycle pe (injected age
 * added); 0 when wear-out is off. */
double flash_fault_wear_hazard(const struct flash_fault *f, uint32_t pe);
/* The fraction of blocks failed by wear-out after pe P/E cycles (injected age not added). */
double flash_fault_wear_failed(const struct flash_fault *f, double pe);
/* Whether a program of a page of a block at pe P/E cycles (of pages_per_block pages) fails:
 * injected rate or wear-out. Draws (when either can fail); counts. */
bool flash_fault_program_fails(struct flash_fault *f, uint32_t pe, uint32_t pages_per_block);
/* Whether a block now at pe P/E cycles failed in the injected age (age:pe): with wear-out on
 * and an age given, a draw at F(pe + age_pe), the fraction of blocks failed by then; else
 * false with no draw. For an FTL's scan at start: what the life before the simulated one
 * left it with. Counts. */
bool flash_fault_worn_out(struct flash_fault *f, uint32_t pe);
/* Whether the erase of a block at pe P/E cycles fails (wear-out). Draws when on; counts. */
bool flash_fault_erase_fails(struct flash_fault *f, uint32_t pe);
/*
 * Fast path of long writes: with wear-out on (and no injected rate), one draw gives how many
 * page programs in a row pass, geometric in p = the per-program probability at pe:
 * flash_fault_clean_programs returns min(that, max), flash_fault_skip_programs takes skipped
 * pages off it, and flash_fault_program_fails consumes the rest, failing the one after.
 */
uint64_t flash_fault_clean_programs(struct flash_fault *f, uint32_t pe, uint32_t pages_per_block,
                                    uint64_t max);
void flash_fault_skip_programs(struct flash_fault *f, uint64_t pages);
/* 0 when die `die` of channel `ch` answers at t, else -EIO with e naming the fault (dead die
 * or channel, power loss) and counted. */
int flash_fault_alive(struct flash_fault *f, uint32_t ch, uint32_t die, uint64_t t, struct err *e);
/* Record the time retries added. */
void flash_fault_add_retry_time(struct flash_fault *f, uint64_t ps);

void flash_fault_get_stats(const struct flash_fault *f, struct flash_fault_stats *s);

/* One node's configuration from the run's c: its own seed (flash_fault_node_seed) and, when
 * the run gives one for its kind (age with node=), its kind's age. */
void flash_fault_cfg_for_node(struct flash_fault_cfg *c, uint32_t node);

/* The Weight Node's identity for flash_fault_node_seed (Activation Node n's is n). */
#define FLASH_FAULT_NODE_WN 0xFFFFFFFFu
/* The seed of one node's fault draws: the run's fault seed (seed:n) and the node's identity
 * mixed by splitmix64, so that nodes of the same kind draw different faults and a run still
 * draws the same ones from the same seed. Never 0. */
uint64_t flash_fault_node_seed(uint64_t seed, uint32_t node);

#endif
