/*
 * ssd_impl: the inside of struct ssd, shared by its host path (ssd.c) and its per-die scheduler
 * and garbage collector (ssd_sched.c). Not for users of the model: they see ssd.h.
 */
#ifndef MODELS_SSD_SSD_IMPL_H
#define MODELS_SSD_SSD_IMPL_H

#include "models/ssd/ssd.h"
#include "models/ssd/ssd_map.h"
#include "models/ssd/ssd_serial.h"

/* A row: one page per plane of row `row` of unit `unit` of die `die`, filled in plane order,
 * programmed with one multi-plane program (planes past `fill` padded). */
struct ssd_row {
    uint32_t die, unit, row;
    uint32_t fill;      /* planes filled */
    uint64_t ready;     /* the latest time one of its pages was ready */
    unsigned char *buf; /* functional mode: planes x page_bytes of SRAM */
    uint32_t next;      /* host rows: the next in the die's queue, or in the free list */
    bool open;
};

/* A write frontier: the open unit and its next row to hand out (unit SSD_NONE: none). */
struct ssd_frontier {
    uint32_t unit, next_row;
};

struct ssd_gc {
    bool active;
    bool forced;           /* a host row waits for a free unit: GC goes first on the die */
    uint32_t victim, vrow; /* unit being collected (SSD_NONE: none), next row to look at */
    uint64_t cursor;       /* earliest start of the next step */
    uint64_t t_start;      /* when this run of GC started */
};

/* What a die does next, and from when (ssd_sched.c keeps it up to date). */
enum ssd_op { SSD_OP_NONE, SSD_OP_HOST_PROGRAM, SSD_OP_GC_STEP };

struct ssd_die {
    struct ssd_frontier host, gcf;
    uint32_t q_head, q_tail, q_len; /* host rows waiting for their program, oldest first */
    struct ssd_row gc_row;          /* the GC's row being filled */
    struct ssd_gc gc;
    enum ssd_op next_op; /* its start is in struct ssd's next_start[], kept compact for the
                          * scan of every die that finds the earliest */
};

/* ssd_fast.c: the fast path of long sequential writes. A run of ssd_write_chunks is cut in
 * periods (each die the same whole rows, whole calls); at each period boundary ssd_fast_at
 * snapshots the state and, when the last two periods provably repeat, says how many more may be
 * accounted at once by ssd_fast_skip (the same state, counters and map as the exact path). */
struct ssd_fast_snap;

struct ssd_fast {
    bool on;               /* ssd_set_fast */
    uint64_t period;       /* pages per period of this run; 0: no fast path in it */
    uint64_t cpc;          /* commands per call of a whole chunk */
    uint64_t cmds;         /* commands per period */
    uint64_t rows_per_die; /* rows each die is given per period */
    uint64_t base;         /* pages of the run before its first period boundary */
    uint64_t *t_page;      /* [cmds]: the last period's command ends, in order */
    uint64_t t_page_len;   /* t_page's length */
    uint64_t delta;        /* shift of the state per period, as ssd_fast_at found it */
    uint32_t cur, seen;    /* slot of the last snapshot; boundaries seen in a row */
    bool sq_full;          /* the submission queue repeats (full), else it never fills */
    struct ssd_fast_snap *snap[2];
    uint64_t rows_skipped; /* host rows accounted without simulating them */
};

int ssd_fast_init(struct ssd *s, struct err *e);
void ssd_fast_fini(struct ssd *s);
/* A run of npages from lpn in calls of chunk pages at most; data: whether it has a payload.
 * False: no fast path in this run. */
bool ssd_fast_begin(struct ssd *s, uint64_t lpn, uint64_t npages, uint32_t chunk, bool data);
/* At a period boundary of a run at time t, max whole periods left: how many to skip (0: go on
 * with the exact path). */
uint64_t ssd_fast_at(struct ssd *s, uint64_t t, uint64_t max);
/* Skip k periods (1 to what ssd_fast_at returned) from page lpn; *end: the later of it and
 * the last command's end. */
void ssd_fast_skip(struct ssd *s, uint64_t t, uint64_t lpn, uint64_t k, uint64_t *end);

struct ssd {
    struct ssd_cfg cfg;
    struct ssd_geom g;
    uint32_t page_bytes;
    bool payload;
    struct flash_fms *fms;
    struct ssd_map map;
    struct ssd_serial fw;
    struct ssd_slots sq, wbuf;
    struct ssd_row *rows; /* host rows: the one being filled and those queued on dies */
    uint32_t n_rows, free_rows;
    uint32_t host_row;      /* the host row being filled (index into rows), SSD_NONE: none */
    uint32_t next_die;      /* die of the next host row */
    uint64_t queued_rows;   /* host rows queued on all dies */
    uint64_t host_prog_end; /* end of the latest host row program */
    struct ssd_die *die;    /* [g.dies] */
    uint64_t *next_start;   /* [n_leaf]: start of each die's next operation, UINT64_MAX: none
                             * (and for the leaves past the last die) */
    uint32_t n_leaf;        /* g.dies rounded up to a power of two */
    uint32_t *win;          /* [2 n_leaf]: a tournament over next_start, win[1] the die whose
                             * operation starts first (ties: the lowest die), win[n_leaf + d] = d;
                             * the scheduler asks for it at every step */
    unsigned char *sram;    /* functional mode: host rows, GC rows, the GC read buffer */
    unsigned char *gc_buf;  /* one row: a GC read lands here */
    struct ssd_stats st;
    struct ssd_fast fast;
};

/* ssd.c: the next row of die d's host (gc false) or GC frontier at time t: a new unit if
 * needed; for the host, forced GC first when the die is short of free units. */
int ssd_open_row(struct ssd *s, uint32_t d, bool gc, uint64_t t, struct ssd_row *row,
                 struct err *e);
/* ssd.c: program a row (padded past its fill) from its ready time; *done = its end. */
int ssd_program_row(struct ssd *s, struct ssd_row *row, uint64_t *done, struct err *e);

/* ssd_sched.c: the per-die scheduler and the garbage collector. */
void ssd_sched_update(struct ssd *s, uint32_t d);              /* die d's next operation changed */
void ssd_gc_kick(struct ssd *s, uint32_t d, uint64_t t);       /* start GC if below gc_free_low */
int ssd_sched_until(struct ssd *s, uint64_t t, struct err *e); /* run what starts < t */
int ssd_sched_one(struct ssd *s, struct err *e);               /* run the earliest, whenever */
int ssd_gc_make_room(struct ssd *s, uint32_t d, uint64_t t, struct err *e);

#endif
