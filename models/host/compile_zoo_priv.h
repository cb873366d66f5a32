/*
 * compile_zoo_priv: what the perf compiler's files share (not an interface): its state.
 *   compile_zoo.c     the Activation Nodes' side: every operation of the zoo's lists, layer
 *                     by layer, forward then backward, the buffer's capacity, hz_compile
 *   compile_zoo_wn.c  the Weight Node's side: the W, M and O records, a weight's read and
 *                     broadcast (whole or piece by piece), a gradient's reduce and update
 */
#ifndef MODELS_HOST_COMPILE_ZOO_PRIV_H
#define MODELS_HOST_COMPILE_ZOO_PRIV_H

#include "models/host/compile_zoo.h"

#include "models/host/zoo_gemm.h"

#define NONE     UINT32_MAX
#define ZC_LATER (UINT32_MAX - 1) /* a command not emitted yet (struct zc's store) */

/* A weight record in one of the two weight slots of every node. */
struct wslot {
    uint32_t rec;   /* W record, NONE: empty */
    uint32_t read;  /* its read at the WN */
    uint32_t bcast; /* its (last piece's) broadcast; NONE while a streamed GEMM has yet to send
                       its pieces */
    uint32_t user;  /* first id of the group of AN commands that used it last (NONE: none) */
};

/* A record's gradient on its way to the WN (two gradient slots). */
struct gslot {
    uint32_t reduce, update;
};

/* A V-stream tensor whose SAVE and LOAD are in different blocks (the encoder's output). */
struct xrec {
    const char *name;
    uint32_t rec, n; /* its first V record, its pieces */
};

/*
 * A tensor an operation of the pass made, and the group of each of its pieces: a streamed
 * GEMM's piece is whole weight panels or whole instances of an attention GEMM, so its outputs
 * are final when it ends, and an operation that reads the tensor can follow piece by piece.
 */
struct made {
    const char *name;
    uint32_t piece[HZ_MAX_PIECES], n;
    bool rows;   /* each piece holds whole rows (whole instances) */
    uint32_t op; /* its index in the operation list */
};

struct zc {
    const struct hz_cfg *cfg;
    struct hc_prog *p;
    struct err *e;
    int err;
    uint32_t N;
    uint32_t cap_cmd, cap_deps, cap_rec[HC_N_STREAMS];
    /* where the program stands */
    uint32_t layer; /* block instance, 0-based */
    enum hc_pass pass;
    uint32_t last;      /* group of the AN commands that ended the previous operation */
    struct wslot ws[3]; /* weight slots: two for matrices, one for a layer's vectors */
    uint32_t w_next;    /* slot the next weight goes to */
    struct gslot gs[2];
    uint32_t g_next;
    uint32_t bwd_end[2]; /* last compute group of the two previous backward layers */
    /* records */
    uint32_t *w_rec; /* per layer + 1: first W/M/O record (its matrices, then one record of its
                        vectors, if it has any) */
    bool *w_done;    /* per W record: updated in this iteration */
    uint32_t *v_rec; /* per layer: first V record (its SAVEs, in order) */
    uint32_t *v_wr;  /* per V record: its FLASH_WR group */
    uint32_t *v_rd;  /* per V record: its latest FLASH_RD group (NONE) */
    uint32_t cap_v;
    struct xrec x[8];
    uint32_t n_x;
    /* the memory hierarchy */
    struct hz_report *rep; /* what was chosen (never NULL: a private one if not wanted) */
    uint64_t live[256];    /* bytes a core holds in SRAM at each operation of the list run */
    uint64_t held[256];    /* the same with a streamed GEMM's panels */
    uint32_t op;           /* the operation being compiled: its index in the list */
    uint32_t done[256];    /* the group that ended each operation of the list run (z->last) */
    /* the backward layer compiled before this one, what a core held in SRAM at each of its
     * operations and the group that ended each: this layer's first loads start where they fit
     * beside it */
    uint64_t prev_held[256];
    uint32_t prev_done[256], n_prev;
    bool lead;                      /* only loads so far in the list run */
    uint64_t early;                 /* the bytes a core's SRAM takes of those loads */
    uint32_t pieces[HZ_MAX_PIECES]; /* the pieces of the vector operation being compiled */
    uint64_t sram_now;              /* the most SRAM the current layer's operations hold so far */
    bool stream_layer;     /* the current layer ran a GEMM streamed (its activations in SRAM) */
    uint64_t w_max, g_max; /* the layer's largest weight record and its gradient, bytes */
    struct pending {       /* updates waiting for the next weight's read (defer_update) */
        uint32_t rec, producer, reduced, layer;
        const char *name;
    } pend[4];
    uint32_t n_pend;
    uint32_t reduced; /* the last GEMM's gradient, reduced piece by piece: its last piece
                         (ZC_LATER while that piece's store is held back) */
    /* a streamed GEMM's last store (and its reduce), held back until the next GEMM's first loads
     * are on the DMA's queue: the queue runs in program order, and the array waits for those
     * loads, not for the store */
    struct store {
        bool on, out, banked;
        bool updates; /* the updates waiting for the next weight's read wait for it too */
        const struct zoo_gemm *g;
        const char *wname; /* a streamed gradient's weight: the store's piece is reduced */
        uint32_t layer, gemm, k, red_after;
        uint64_t tb_bytes, cycles, red_bytes;
    } store;
    struct made made[8]; /* the latest operations' outputs, newest at made_next - 1 */
    uint32_t made_next;
    /* what an AN's buffer holds of streamed tensors: two pieces of weights (their loads), two
     * pieces of weight gradients (their reduces), two saved activations on their way to flash
     * (their writes), one on its way back (its load into SRAM) */
    uint32_t w_credit[2], g_credit[2], v_credit[2], load_in;
    uint32_t panel[2]; /* the GEMM pieces after which a core's two weight panels are free */
    uint64_t w_piece, g_piece, v_in; /* the layer's largest of each, bytes */
    uint64_t v_out;                  /* its largest two consecutive saves together, bytes */
    uint64_t v_out_prev, v_in_prev;  /* the same of the layer before */
    uint64_t v_saved_last;           /* the last save's bytes (of any layer) */
};

/* struct opctx: an operation's block and its layer's records (compile_zoo.c). */
struct opctx {
    const struct zoo_block *b;
    uint32_t layer0; /* first layer of this block */
    uint32_t vbase;  /* this layer's first V record */
};

/*
 * Piece i of P of a streamed GEMM's weight, broadcast as the GEMM's loads take it: an AN's
 * buffer holds at most two streamed weight pieces, so a piece waits for the load of the piece
 * two before it (of this weight or the one before).
 */
uint32_t zc_bcast_piece(struct zc *z, struct wslot *ws, uint32_t i, uint32_t P, const char *name);
/* A two-entry credit ring: the oldest entry a new claim waits for (NONE: a free credit), and
 * the claim that takes its place. */
uint32_t zc_credit_oldest(uint32_t ring[2]);
void zc_credit_push(uint32_t ring[2], uint32_t id);
/*
 * A weight's update once its gradient is complete, emitted after the next weight's read: the
 * Weight Node's flash serves reads in program order, and the Activation Nodes wait on the next
 * weight, not on the masters and state of this one (12 B a parameter with Adam against 2).
 */
void zc_defer_update(struct zc *z, uint32_t rec, uint32_t producer, uint32_t reduced,
                     const char *name);
/* A WN or fabric command depending on member n of group g for every AN. */
void zc_dep_all_an(struct zc *z, uint32_t id, uint32_t g);
/* A dependency of the command emitted last (NONE: none). */
void zc_dep(struct zc *z, uint32_t id, uint32_t on);
/* A command of the program (label printf-formatted): its id, NONE once an error is set. */
uint32_t zc_emit(struct zc *z, enum hc_kind kind, uint32_t node, uint32_t res, enum hc_phase phase,
                 uint64_t bytes, uint64_t cycles, const char *fmt, ...);
/* The first error of the compile, with its message ("compile: ..."): rc. */
int zc_fail(struct zc *z, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The W record of weight `name` of block b at this layer, or NONE for a vector (they travel
 * in the layer's vector record) and for a weight the block does not list. */
uint32_t zc_find_weight(const struct zc *z, const struct zoo_block *b, uint32_t layer0,
                        const char *name, bool *vector, bool *tied);
/* The updates defer_update held back, emitted now. */
void zc_flush_updates(struct zc *z);
/* *v (of *cap elements of elem bytes) holds at least need: true, or false with -ENOMEM set. */
bool zc_grow(struct zc *z, void **v, uint32_t *cap, uint32_t need, size_t elem);
/* Every layer's W, M and O records, in forward order. */
void zc_make_weight_records(struct zc *z);
/* A new record of stream s of `bytes`: its number. */
uint32_t zc_new_rec(struct zc *z, enum hc_stream s, uint64_t bytes);
/* The record holding a tied weight: the same name in the nearest earlier block that owns it. */
uint32_t zc_owner_rec(const struct zc *z, uint32_t layer, const char *name);
/* The parameters W record rec holds. */
uint64_t zc_rec_params(const struct zc *z, uint32_t rec);
/* Command id (every AN's, for a group) reads or writes record rec of stream. */
void zc_set_rec(struct zc *z, uint32_t id, uint32_t stream, uint32_t rec);
/* Share i of total over n parts (the parts sum to total). */
uint64_t zc_share(uint64_t total, uint32_t i, uint32_t n);
/* Read W record rec at the WN and broadcast it into the next weight slot (a layer's vectors, a
 * fraction of a megabyte, into a slot of their own, so that they never hold a matrix back);
 * returns the slot. */
struct wslot *zc_stream_weight(struct zc *z, uint32_t rec, const char *name, bool vec,
                               bool by_piece);
/* Reduce record rec's gradient (unless `reduced`, its last piece, says the GEMM that made it
 * did), update it at the WN, write W, M and O back. */
void zc_update_weight(struct zc *z, uint32_t rec, uint32_t producer, uint32_t reduced,
                      const char *name);

#endif
