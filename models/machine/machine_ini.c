#include "models/machine/machine_ini.h"

#include "csim/rfile.h"

#include <errno.h>
#include <ini.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "csim/cfgkey.h"
#include "models/dram/dram.h"
#include "models/fabric/fabric.h"
#include "models/flash/flash_cfg.h"
#include "models/ssd/ssd_cfg.h"

/* ------------------------------------------------------------------ the table */

#define M(member) CFGKEY_FIELD(struct machine_cfg, member)
#define NS        1000ull    /* ps per ns */
#define MBPS      1000000ull /* B/s per MB/s */

static const struct cfgkey machine_keys[] = {
    {"activation_nodes", M(n_an), CFGKEY_INT(1, MACHINE_MAX_AN), .unit = "",
     .help = "Activation Nodes N; each trains batch / N rows of every batch"},
    {"cores_per_node", M(cores_per_an), CFGKEY_INT(1, 1024), .unit = "",
     .help = "cores of each Activation Node (training runs 1)"},
    {"keep_output_resident", M(keep_output_resident), CFGKEY_BOOL, .unit = "",
     .help = "the last layer's backward pass reuses its forward weights"},
    {"act_fresh_lb", M(act_fresh_lb), CFGKEY_BOOL, .unit = "",
     .help = "each step's activations start a fresh logical block of the V stream"},
    {"write_pipe", M(write_pipe), CFGKEY_BOOL, .unit = "",
     .help = "flash writes also timed on the NAND write pipeline (rtl/nfw)"},
    {"wn_state_payload", M(wn_state_payload), CFGKEY_BOOL, .unit = "",
     .help = "keep the bytes of masters and optimizer state in the WN's flash"},
    {"multicast", M(multicast), CFGKEY_BOOL, .unit = "",
     .help = "perf: one tensor-buffer read of a weight feeds every core of an AN, and their "
             "weight gradients are summed on the way in"},
    {0},
};

static const struct cfgkey core_keys[] = {
    {"rows", M(core.rows), CFGKEY_INT(1, 4096), .unit = "", .help = "systolic array rows"},
    {"cols", M(core.cols), CFGKEY_INT(1, 4096), .unit = "", .help = "systolic array columns"},
    {"acc_stages", M(core.acc_stages), CFGKEY_INT(1, 4), .unit = "",
     .help = "the PEs' accumulator stages: 1, or 4 (the FPGA's PE: a tile is four array tiles, "
             "4 x rows rows, computed interleaved); 2 and 3 are refused"},
    {"pad_a_words", M(core.a_words), CFGKEY_INT(2, 1u << 24), .unit = "words",
     .help = "A scratchpad (bf16 elements, W = lcm(rows, cols, 4) per word)"},
    {"pad_b_words", M(core.b_words), CFGKEY_INT(2, 1u << 24), .unit = "words",
     .help = "B scratchpad (bf16 elements, W per word)"},
    {"pad_c_words", M(core.c_words), CFGKEY_INT(2, 1u << 24), .unit = "words",
     .help = "C scratchpad (fp32 elements, W per word)"},
    {"period_ns", M(core_period_ps), CFGKEY_DEC(3, 1, 1000 * NS), .unit = "ns",
     .help = "clock period of the core, its DMA and its vector unit"},
    {"sram_bytes", M(sram_bytes), CFGKEY_SIZE(0, 1ull << 40), .unit = "bytes",
     .help = "perf: each core's SRAM, pads included, where weight streaming keeps the "
             "sequence's activations (0: the pads alone)"},
    {"sram_bytes_per_cycle", M(sram_bytes_per_cycle), CFGKEY_INT(0, 1u << 20), .unit = "B/cycle",
     .help = "perf: that SRAM's bandwidth (0: what the array, 2 x (rows + cols), and the DMA "
             "take)"},
    {0},
};

static const struct cfgkey vu_keys[] = {
    {"lanes", M(vu.lanes), CFGKEY_INT(1, 65536), .unit = "", .help = "fp32 elements per cycle"},
    {"latency", M(vu.latency), CFGKEY_INT(0, 1000000), .unit = "cycles",
     .help = "pipeline fill per operation"},
    {"cost_exp", M(vu.cost_exp), CFGKEY_INT(1, 1024), .unit = "cycles",
     .help = "cycles per element and lane of the softmax"},
    {0},
};

static const struct cfgkey optu_keys[] = {
    {"period_ns", M(optu.period_ps), CFGKEY_DEC(3, 1, 1000 * NS), .unit = "ns",
     .help = "clock period of the Weight Node's reduce and optimizer unit"},
    {"lanes", M(optu.lanes), CFGKEY_INT(1, 65536), .unit = "", .help = "fp32 parameters per cycle"},
    {"latency", M(optu.latency), CFGKEY_INT(0, 1000000), .unit = "cycles",
     .help = "pipeline fill per update"},
    {"cost_sgd", M(optu.cost_sgd), CFGKEY_INT(1, 1024), .unit = "cycles",
     .help = "cycles per parameter and lane of an SGD update"},
    {"cost_adam", M(optu.cost_adam), CFGKEY_INT(1, 1024), .unit = "cycles",
     .help = "cycles per parameter and lane of an Adam update"},
    {0},
};

static const struct cfgkey dma_keys[] = {
    {"max_rd_out", M(dma.max_rd_out), CFGKEY_INT(2, 4096), .pow2 = true, .unit = "",
     .help = "reads in flight or buffered (MaxRdOut)"},
    {"max_wr_out", M(dma.max_wr_out), CFGKEY_INT(1, 4096), .unit = "",
     .help = "writes not yet acknowledged (MaxWrOut)"},
    {"desc_depth", M(dma.desc_depth), CFGKEY_INT(2, 1024), .pow2 = true, .unit = "",
     .help = "descriptor queue entries (DescDepth)"},
    {"cpl_depth", M(dma.cpl_depth), CFGKEY_INT(2, 1024), .pow2 = true, .unit = "",
     .help = "completion queue entries (CplDepth)"},
    {"bytes_per_cycle", M(dma_bytes_per_cycle), CFGKEY_INT(1, 1u << 16), .unit = "B/cycle",
     .help = "perf: each core's DMA between the buffer and core.sram_bytes (a scaled design; "
             "the RTL's moves 8, and so do the tiled GEMMs)"},
    {0},
};

static const struct cfgkey tb_keys[] = {
    {"size_bytes", M(tb.size_bytes), CFGKEY_SIZE(DRAM_PAGE_BYTES, DRAM_MAX_SIZE),
     .mult = DRAM_PAGE_BYTES, .unit = "bytes", .help = "capacity of each node's tensor buffer"},
    {"channels", M(tb.channels), CFGKEY_INT(1, DRAM_MAX_CHANNELS), .unit = "",
     .help = "independent DDR channels"},
    {"chan_mb_per_s", M(tb.chan_mbps), CFGKEY_INT(1, 10000000), .unit = "MB/s",
     .help = "data-bus bandwidth of one channel"},
    {"latency_ns", M(tb.latency_ps), CFGKEY_DEC(3, 0, 1000000 * NS), .unit = "ns",
     .help = "from the end of a bus transfer to its data or acknowledgement"},
    {"interleave_bytes", M(tb.interleave_bytes), CFGKEY_SIZE(8, 1u << 30), .pow2 = true,
     .unit = "bytes", .help = "channel interleave unit"},
    {"wn_channels", M(wn_tb_channels), CFGKEY_INT(0, DRAM_MAX_CHANNELS), .unit = "",
     .help = "the Weight Node's channels (0: channels, as every node)"},
    {0},
};

static const struct cfgkey fabric_keys[] = {
    {"fanout", M(fabric.fanout), CFGKEY_INT(2, FABRIC_MAX_AN), .unit = "",
     .help = "children per switch"},
    {"link_mb_per_s", M(fabric.link_Bps), CFGKEY_DEC(6, 1, 1000000000 * MBPS), .unit = "MB/s",
     .help = "bandwidth of a link, each direction"},
    {"hop_latency_ns", M(fabric.hop_latency_ps), CFGKEY_DEC(3, 0, FABRIC_PS_PER_S), .unit = "ns",
     .help = "flight time of one link"},
    {"chunk_bytes", M(fabric.chunk_bytes), CFGKEY_SIZE(1, 1u << 30), .unit = "bytes",
     .help = "unit of pipelining"},
    {"sum_mb_per_s", M(fabric.sum_Bps), CFGKEY_DEC(6, 1, 1000000000 * MBPS), .unit = "MB/s",
     .help = "output rate of a switch's adder"},
    {0},
};

static const struct cfgkey host_keys[] = {
    {"link_mb_per_s", M(host.link_Bps), CFGKEY_DEC(6, 1, 1000000000 * MBPS), .unit = "MB/s",
     .help = "bandwidth of the host link, each direction (not timed yet)"},
    {"latency_ns", M(host.latency_ps), CFGKEY_DEC(3, 0, 1000000000 * NS), .unit = "ns",
     .help = "latency of one host transfer (not timed yet)"},
    {0},
};

static const struct cfgkey storage_keys[] = {
    {"backend", M(storage), CFGKEY_ENUM(machine_storage_names), .unit = "",
     .help = "where the nodes keep their data (training runs behemoth)"},
    {"ssd_grain", M(ssd_grain), CFGKEY_INT(1, 65536), .pow2 = true, .unit = "pages",
     .help = "ssd-raid0: the SSDs simulated at this grain of pages (1: page by page; "
             "models/ssd/README.md)"},
    {0},
};

#undef M
#undef NS
#undef MBPS

/* A section: its keys, and where their fields are: the rows' offsets are relative to base[i],
 * an offset in struct machine_cfg ([flash] writes two structs, each node's). */
struct section {
    const char *name;
    const char *help; /* for the documentation */
    const struct cfgkey *keys;
    size_t base[2];
    unsigned n_base;
    const char *where; /* the fields' struct, for the documentation */
};

#define IN_MACHINE_CFG(keys_) .keys = (keys_), .n_base = 1, .where = "machine_cfg"
#define AT(member)            offsetof(struct machine_cfg, member)

static const struct section sections[] = {
    {"machine", IN_MACHINE_CFG(machine_keys),
     .help = "The machine as a whole: how many Activation Nodes, how many cores each, and the "
             "dataflow switches of the machine model."},
    {"core", IN_MACHINE_CFG(core_keys),
     .help = "Each Activation Node's compute core: a rows x cols bf16 systolic array with three "
             "scratchpads (a word holds W = lcm(rows, cols, 4) elements), and the "
             "clock it "
             "shares with its DMA and vector unit. Training runs the core's C twin or RTL, "
             "which build arrays up to 64 x 64 with W <= 64."},
    {"vector_unit", IN_MACHINE_CFG(vu_keys),
     .help = "The Activation Node's vector unit (bias, ReLU, softmax, conversions): an "
             "operation over n elements takes latency + ceil(n x cost / lanes) core cycles, "
             "cost 1, or cost_exp for the softmax."},
    {"optimizer", IN_MACHINE_CFG(optu_keys),
     .help = "The Weight Node's reduce and optimizer unit: updating n parameters computes for "
             "latency + ceil(n x cost / lanes) cycles of its clock, cost cost_sgd or cost_adam, "
             "and streams its operands through the Weight Node's tensor buffer (22 B per "
             "parameter for SGD, 30 B for Adam); the update takes the later of the two."},
    {"dma", IN_MACHINE_CFG(dma_keys),
     .help = "The Activation Node's tensor-buffer DMA: the parameters of rtl/dma that are free "
             "(its SRAM map and latency follow from [core], its buffer size from "
             "[tensor_buffer])."},
    {"tensor_buffer", IN_MACHINE_CFG(tb_keys),
     .help = "Every node's DDR tensor buffer: capacity and DDR timing (models/dram/dram.h); "
             "the DMA's transfers are timed against it."},
    {"fabric", IN_MACHINE_CFG(fabric_keys),
     .help = "The tree between the Weight Node and the Activation Nodes "
             "(models/fabric/fabric.h): links, hops, chunks and the switches' adders; its node "
             "count is machine.activation_nodes."},
    {"flash", .keys = flash_cfg_keys, .base = {AT(an_flash), AT(wn_flash)}, .n_base = 2,
     .where = "machine_cfg.{an,wn}_flash",
     .help = "Every node's flash memory system (models/flash/flash_cfg.h): geometry, NAND "
             "timing, bus, controller and switches. A key here sets it in [an_flash] and "
             "[wn_flash]."},
    {"an_flash", .keys = flash_cfg_keys, .base = {AT(an_flash)}, .n_base = 1,
     .where = "machine_cfg.an_flash",
     .help = "The Activation Nodes' flash only: the keys of [flash]."},
    {"wn_flash", .keys = flash_cfg_keys, .base = {AT(wn_flash)}, .n_base = 1,
     .where = "machine_cfg.wn_flash", .help = "The Weight Node's flash only: the keys of [flash]."},
    {"ssd", .keys = ssd_cfg_keys, .base = {AT(an_ssd), AT(wn_ssd)}, .n_base = 2,
     .where = "machine_cfg.{an,wn}_ssd",
     .help = "With storage ssd-raid0, every node keeps its streams on a RAID 0 of conventional "
             "SSDs of its own (models/ssd: page-mapping FTL, garbage collection, firmware, write "
             "buffer; the paper's baseline, Table 5): the SSD's keys (its NAND is models/ssd's, "
             "the FMS's NAND on 16 channels). A key here sets it in [an_ssd] and [wn_ssd]."},
    {"an_ssd", .keys = ssd_cfg_keys, .base = {AT(an_ssd)}, .n_base = 1,
     .where = "machine_cfg.an_ssd", .help = "Each Activation Node's SSDs only: the keys of [ssd]."},
    {"wn_ssd", .keys = ssd_cfg_keys, .base = {AT(wn_ssd)}, .n_base = 1,
     .where = "machine_cfg.wn_ssd", .help = "The Weight Node's SSDs only: the keys of [ssd]."},
    {"host", IN_MACHINE_CFG(host_keys),
     .help = "The host's link to the machine. Described, not timed yet: the host's preload of "
             "the inputs and its reads take no simulated transfer time."},
    {"storage", IN_MACHINE_CFG(storage_keys),
     .help = "Where the nodes keep weights, activations and inputs. Training runs behemoth "
             "(each node's flash memory system, [flash]); ssd-raid0 (a RAID 0 of conventional "
             "SSDs on every node, [ssd]) and ideal (free accesses) are for the payload-free "
             "performance mode."},
};

#undef IN_MACHINE_CFG
#undef AT

#define N_SECTIONS (sizeof(sections) / sizeof(sections[0]))
#define MAX_KEYS   32 /* keys of a section */

/* [faults]: one key per kind of the --fault grammar (models/flash/flash_fault.h), its value the
 * kind's KEY=VALUE list; not a cfgkey table, since a value is a list and die and channel take
 * several (separated by spaces). Applied to every node's flash and SSD NAND alike, as --fault. */
static const struct {
    const char *key, *value, *help;
} fault_keys[] = {
    {"rber", "x=F", "multiply every raw bit error rate by F (>= 0; 0: no bit errors)"},
    {"age", "pe=N,days=D[,node=an|wn] ...",
     "every block has N more P/E cycles and its data D more days of age (node=: only the ANs' "
     "or the WN's)"},
    {"program", "rate=P", "each program fails with probability P (0..1); the FTL remaps it"},
    {"wear", "pe=N,bad=F,shape=B",
     "wear-out: F of the blocks failed at N P/E cycles, Weibull shape B (defaults 2000000, 0.02, "
     "4); programs and erases fail as P/E grows"},
    {"die", "ch=C,die=D,at=T ...", "die D of channel C answers nothing from T (ns, us, ms, s) on"},
    {"channel", "ch=C,at=T ...", "channel C answers nothing from T on"},
    {"power", "at=T", "power is lost at T: every operation from T on fails"},
    {"seed", "n=S", "the seed of the fault draws (default 1)"},
};
#define N_FAULT_KEYS   (sizeof(fault_keys) / sizeof(fault_keys[0]))
#define FAULTS_SECTION "faults"

struct machine_ini {
    struct machine_cfg cfg;
    bool given[N_SECTIONS][MAX_KEYS];
};

static const struct section *find_section(const char *name)
{
    for (size_t i = 0; i < N_SECTIONS; i++)
        if (!strcmp(sections[i].name, name))
            return &sections[i];
    return NULL;
}

/* "machine, core, ..., faults" or "rows, cols, ..." into buf. */
static void list_names(const struct section *s, char *buf, size_t len)
{
    size_t n = 0;

    buf[0] = '\0';
    if (!s) {
        for (size_t i = 0; i < N_SECTIONS && n < len; i++)
            n += (size_t)snprintf(buf + n, len - n, "%s, ", sections[i].name);
        if (n < len)
            snprintf(buf + n, len - n, "%s", FAULTS_SECTION);
        return;
    }
    for (const struct cfgkey *k = s->keys; k->name && n < len; k++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s", k == s->keys ? "" : ", ", k->name);
}

/* A section written in a dump: one struct (not [flash], which the node sections show). */
static bool dumped(const struct section *s)
{
    return s->n_base == 1;
}

/* ------------------------------------------------------------------ applying a key */

/* Mark s.k given, and for [flash] the node sections' k too. */
static void mark_given(struct machine_ini *m, const struct section *s, const struct cfgkey *k)
{
    size_t ki = (size_t)(k - s->keys);

    m->given[s - sections][ki] = true;
    for (size_t i = 0; s->n_base > 1 && i < N_SECTIONS; i++)
        for (unsigned b = 0; b < s->n_base; b++)
            if (sections[i].n_base == 1 && sections[i].keys == s->keys &&
                sections[i].base[0] == s->base[b])
                m->given[i][ki] = true;
}

/* section.key = value onto m: 0 or the error of the value (the key named "section.key"). */
static int apply(struct machine_ini *m, const struct section *s, const struct cfgkey *k,
                 const char *value, struct err *e)
{
    char label[96];
    int rc;

    snprintf(label, sizeof(label), "%s.%s", s->name, k->name);
    for (unsigned b = 0; b < s->n_base; b++) {
        rc = cfgkey_parse(k, label, value, (char *)&m->cfg + s->base[b], e);
        if (rc)
            return rc;
    }
    mark_given(m, s, k);
    return 0;
}

/* The index of [faults] key in fault_keys; -EINVAL naming the accepted keys if none. */
static int fault_kind(const char *key, size_t *kind, struct err *e)
{
    char names[128];
    size_t n = 0;

    for (*kind = 0; *kind < N_FAULT_KEYS; (*kind)++)
        if (!strcmp(fault_keys[*kind].key, key))
            return 0;
    for (size_t i = 0; i < N_FAULT_KEYS; i++)
        n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s", i ? ", " : "",
                              fault_keys[i].key);
    return err_set(e, -EINVAL, "unknown key '%s' in [" FAULTS_SECTION "]; accepted: %s", key,
                   names);
}

/* [faults] key = value onto m (every node's flash and SSD NAND): 0 or -EINVAL naming the key
 * or the part of the value that is wrong and what is accepted (m unchanged). */
static int apply_fault(struct machine_ini *m, const char *key, const char *value, struct err *e)
{
    struct flash_fault_cfg c = m->cfg.an_flash.fault;
    char spec[320];
    size_t kind_i, *kind = &kind_i;
    int rc;

    if ((rc = fault_kind(key, kind, e)))
        return rc;
    /* die and channel take several, separated by spaces; the other kinds one */
    for (const char *p = value;;) {
        size_t len;

        while (*p == ' ' || *p == '\t')
            p++;
        len = strcspn(p, " \t");
        if (!len && p == value)
            return err_set(e, -EINVAL,
                           FAULTS_SECTION ".%s: no value; accepted %s (models/flash/README.md)",
                           key, fault_keys[*kind].value);
        if (!len)
            break;
        if (p != value && strcmp(key, "die") && strcmp(key, "channel") && strcmp(key, "age"))
            return err_set(e, -EINVAL,
                           FAULTS_SECTION ".%s = %s: one value; accepted %s (only die, channel "
                                          "and age take several, separated by spaces)",
                           key, value, fault_keys[*kind].value);
        snprintf(spec, sizeof(spec), "%s:%.*s", key, (int)len, p);
        if ((rc = flash_fault_parse(&c, spec, e)))
            return err_prefix(e, rc, FAULTS_SECTION ".%s", key);
        p += len;
    }
    machine_cfg_set_faults(&m->cfg, &c);
    return 0;
}

/* The section and key of a name; -EINVAL naming what is accepted when either is unknown. */
static int lookup(const char *section, const char *key, const struct section **s,
                  const struct cfgkey **k, struct err *e)
{
    char names[512];

    *s = find_section(section);
    if (!*s) {
        list_names(NULL, names, sizeof(names));
        if (!*section)
            return err_set(e, -EINVAL, "key '%s' comes before any [section]; accepted sections: %s",
                           key, names);
        return err_set(e, -EINVAL, "unknown section [%s]; accepted: %s", section, names);
    }
    *k = cfgkey_find((*s)->keys, key);
    if (!*k) {
        list_names(*s, names, sizeof(names));
        return err_set(e, -EINVAL, "unknown key '%s' in [%s]; accepted: %s", key, section, names);
    }
    return 0;
}

int machine_ini_create(struct machine_ini **out, struct err *e)
{
    struct machine_ini *m = calloc(1, sizeof(*m));

    *out = NULL;
    if (!m)
        return err_set(e, -ENOMEM, "machine description: out of memory");
    machine_cfg_default(&m->cfg);
    *out = m;
    return 0;
}

void machine_ini_destroy(struct machine_ini *m)
{
    free(m);
}

const struct machine_cfg *machine_ini_cfg(const struct machine_ini *m)
{
    return &m->cfg;
}

bool machine_ini_given(const struct machine_ini *m, const char *section, const char *key)
{
    const struct section *s = find_section(section);
    const struct cfgkey *k = s ? cfgkey_find(s->keys, key) : NULL;

    return k && m->given[s - sections][k - s->keys];
}

/* ------------------------------------------------------------------ files */

/* The state of one file's parse. */
struct load {
    struct machine_ini *m;
    const char *path;
    FILE *f;
    int line;                     /* of the line last read */
    int fault_seen[N_FAULT_KEYS]; /* line where this file gave faults.key; 0 none */
    int rc;                       /* the first error, its message in *e */
    int err_line;                 /* ... and its line */
    struct err *e;
    int seen[N_SECTIONS][MAX_KEYS]; /* line where this file gave section.key; 0 none */
};

/* libinih's reader (fgets-like, one call per line): counts the lines, refuses one longer than
 * the parser's buffer (num characters with the line end) or holding a NUL byte (fgets would
 * cut the line there), and stops the parse after an error. */
static char *read_line(char *str, int num, void *stream)
{
    struct load *x = stream;
    int n = 0, c = 0;

    if (x->rc)
        return NULL;
    while (n < num - 1 && (c = getc(x->f)) != EOF) {
        if (!c) {
            x->err_line = x->line + 1;
            x->rc = err_set(x->e, -EINVAL, "%s:%d: a NUL byte at column %d; a description is text",
                            x->path, x->line + 1, n + 1);
            return NULL;
        }
        str[n++] = (char)c;
        if (c == '\n')
            break;
    }
    if (!n)
        return NULL;
    str[n] = '\0';
    x->line++;
    if (str[n - 1] != '\n' && c != EOF && (c = getc(x->f)) != EOF) {
        x->err_line = x->line;
        x->rc = err_set(x->e, -EINVAL, "%s:%d: the line is longer than %d characters", x->path,
                        x->line, num - 2);
        return NULL;
    }
    return str;
}

/* libinih's handler of one "key = value" line: nonzero (go on) always; the first error is
 * kept in x and stops the reader. */
static int on_key(void *user, const char *section, const char *name, const char *value)
{
    struct load *x = user;
    const struct section *s;
    const struct cfgkey *k;
    int *seen;

    if (x->rc)
        return 1;
    if (!strcmp(section, FAULTS_SECTION)) {
        size_t kind = 0;
        x->rc = fault_kind(name, &kind, x->e);
        if (!x->rc && x->fault_seen[kind])
            x->rc = err_set(x->e, -EINVAL,
                            "%s.%s is given twice in this file (line %d and here; die and "
                            "channel take several values on one line)",
                            section, name, x->fault_seen[kind]);
        if (!x->rc)
            x->rc = apply_fault(x->m, name, value, x->e);
        if (!x->rc) {
            x->fault_seen[kind] = x->line;
        } else {
            x->err_line = x->line;
            err_prefix(x->e, x->rc, "%s:%d", x->path, x->line);
        }
        return 1;
    }
    x->rc = lookup(section, name, &s, &k, x->e);
    if (!x->rc) {
        seen = &x->seen[s - sections][k - s->keys];
        if (*seen)
            x->rc = err_set(x->e, -EINVAL,
                            "%s.%s is given twice in this file (line %d and here; an indented "
                            "line continues the value above it)",
                            section, name, *seen);
        else
            x->rc = apply(x->m, s, k, value, x->e);
        *seen = x->line;
    }
    if (x->rc) {
        x->err_line = x->line;
        err_prefix(x->e, x->rc, "%s:%d", x->path, x->line);
    }
    return 1;
}

int machine_ini_load(struct machine_ini *m, const char *path, struct err *e)
{
    struct load *x = calloc(1, sizeof(*x));
    int rc, bad;

    if (!x)
        return err_set(e, -ENOMEM, "machine description: out of memory");
    x->m = m;
    x->path = path;
    x->e = e;
    /* rfile: a FIFO or a directory is refused at once, not waited on or misread */
    rc = rfile_open(path, "the machine description", NULL, e);
    if (rc >= 0 && !(x->f = fdopen(rc, "r"))) {
        int fd = rc;
        rc = err_set(e, -errno, "the machine description '%s': cannot open: %s", path,
                     strerror(errno));
        close(fd);
    }
    if (rc < 0) {
        free(x);
        return rc;
    }
    /* libinih's line buffer (Debian's build takes these at run time): one of the longest line
     * and its newline, allocated once, so that read_line sees each line whole */
    ini_use_stack = false;
    ini_allow_realloc = false;
    ini_initial_alloc = ini_max_line = MACHINE_INI_LINE_MAX + 2;
    bad = ini_parse_stream(read_line, x, on_key, x);
    rc = x->rc;
    /* A line libinih could not read (neither "key = value" nor "[section]"), if it came before
     * the first error of a key. */
    if (bad > 0 && (!rc || bad < x->err_line))
        rc = err_set(e, -EINVAL,
                     "%s:%d: not a 'key = value' line, a [section] heading or a comment "
                     "(';' or '#' first)",
                     path, bad);
    else if (bad < 0 && !rc)
        rc = err_set(e, -ENOMEM, "%s: out of memory parsing it", path);
    fclose(x->f);
    free(x);
    return rc;
}

/* text[0..n) without the spaces around it, into buf. */
static void trimmed(const char *text, size_t n, char *buf, size_t len)
{
    while (n && (*text == ' ' || *text == '\t')) {
        text++;
        n--;
    }
    while (n && (text[n - 1] == ' ' || text[n - 1] == '\t'))
        n--;
    snprintf(buf, len, "%.*s", (int)n, text);
}

int machine_ini_set(struct machine_ini *m, const char *assignment, const char *bare_section,
                    struct err *e)
{
    const char *eq = strchr(assignment, '='), *dot;
    char section[64], key[64], value[MACHINE_INI_LINE_MAX + 1];
    const struct section *s;
    const struct cfgkey *k;
    int rc;

    if (!eq)
        return err_set(e, -EINVAL, "--set %s: accepted SECTION.KEY=VALUE, e.g. core.rows=8",
                       assignment);
    if (strlen(eq + 1) > MACHINE_INI_LINE_MAX || (size_t)(eq - assignment) >= sizeof(key))
        return err_set(e, -EINVAL,
                       "--set %.40s...: %zu characters before '=' and %zu after; accepted up to "
                       "%zu and %d",
                       assignment, (size_t)(eq - assignment), strlen(eq + 1), sizeof(key) - 1,
                       MACHINE_INI_LINE_MAX);
    dot = memchr(assignment, '.', (size_t)(eq - assignment));
    if (!dot && !bare_section)
        return err_set(e, -EINVAL,
                       "--set %s: give the key's section: SECTION.KEY=VALUE, e.g. core.rows=8",
                       assignment);
    if (dot) {
        trimmed(assignment, (size_t)(dot - assignment), section, sizeof(section));
        trimmed(dot + 1, (size_t)(eq - dot - 1), key, sizeof(key));
    } else {
        snprintf(section, sizeof(section), "%s", bare_section);
        trimmed(assignment, (size_t)(eq - assignment), key, sizeof(key));
    }
    trimmed(eq + 1, strlen(eq + 1), value, sizeof(value));
    if (!strcmp(section, FAULTS_SECTION)) {
        rc = apply_fault(m, key, value, e);
        return rc ? err_prefix(e, rc, "--set %s", assignment) : 0;
    }
    rc = lookup(section, key, &s, &k, e);
    if (!rc)
        rc = apply(m, s, k, value, e);
    return rc ? err_prefix(e, rc, "--set %s", assignment) : 0;
}

/* ------------------------------------------------------------------ checks */

int machine_ini_check_keys(const struct machine_cfg *c, struct err *e)
{
    char label[96];

    for (size_t i = 0; i < N_SECTIONS; i++) {
        if (!dumped(&sections[i]))
            continue;
        for (const struct cfgkey *k = sections[i].keys; k->name; k++) {
            const void *base = (const char *)c + sections[i].base[0];

            /* The section.key label is built only for the message of a key out of range. */
            if (!cfgkey_check(k, k->name, base, e))
                continue;
            snprintf(label, sizeof(label), "%s.%s", sections[i].name, k->name);
            return cfgkey_check(k, label, base, e);
        }
    }
    return 0;
}

int machine_ini_validate(const struct machine_ini *m, struct err *e)
{
    const struct machine_cfg *c = &m->cfg;
    struct fabric_cfg fc = c->fabric;
    int rc = machine_ini_check_keys(c, e);

    if (rc)
        return rc;
    if ((rc = flash_cfg_validate(&c->an_flash, e)))
        return err_prefix(e, rc, "an_flash");
    if ((rc = flash_cfg_validate(&c->wn_flash, e)))
        return err_prefix(e, rc, "wn_flash");
    if (c->storage == MACHINE_STORAGE_SSD_RAID0 && (rc = ssd_cfg_validate(&c->an_ssd, e)))
        return err_prefix(e, rc, "an_ssd");
    if (c->storage == MACHINE_STORAGE_SSD_RAID0 && (rc = ssd_cfg_validate(&c->wn_ssd, e)))
        return err_prefix(e, rc, "wn_ssd");
    if ((rc = dram_cfg_check(&c->tb, e)))
        return err_prefix(e, rc, "tensor_buffer");
    fc.n_an = c->n_an;
    if ((rc = fabric_cfg_validate(&fc, e)))
        return err_prefix(e, rc, "fabric");
    return 0;
}

int machine_ini_check_table(struct err *e)
{
    for (size_t i = 0; i < N_SECTIONS; i++) {
        const struct section *s = &sections[i];

        if (cfgkey_count(s->keys) > MAX_KEYS)
            return err_set(e, -EINVAL, "[%s] has more than %d keys", s->name, MAX_KEYS);
        for (const struct cfgkey *k = s->keys; k->name; k++) {
            if (!cfgkey_row_ok(k))
                return err_set(e, -EINVAL, "%s.%s: the row is not well formed", s->name, k->name);
            if (cfgkey_find(s->keys, k->name) != k)
                return err_set(e, -EINVAL, "%s.%s: the key is in the table twice", s->name,
                               k->name);
            for (unsigned b = 0; b < s->n_base; b++)
                if (s->base[b] + k->off + k->size > sizeof(struct machine_cfg))
                    return err_set(e, -EINVAL, "%s.%s: the field lies outside machine_cfg", s->name,
                                   k->name);
        }
        if (find_section(s->name) != s)
            return err_set(e, -EINVAL, "[%s] is in the table twice", s->name);
    }
    return 0;
}

static void fault_value(const struct flash_fault_cfg *c, size_t kind, char *buf, size_t len);

/* Whether fault key i describes the machine. The seed of the fault draws and a power loss do
 * not: they are events of a run (a fallback to a checkpoint reseeds the draws; a run resumed
 * after a power loss has its power back). */
static bool fault_of_machine(size_t i)
{
    return strcmp(fault_keys[i].key, "seed") && strcmp(fault_keys[i].key, "power");
}

size_t machine_ini_diff_each(const struct machine_cfg *a, const struct machine_cfg *b,
                             machine_ini_diff_fn fn, void *user)
{
    char va[FLASH_FAULT_MAX_DEAD * 48], vb[FLASH_FAULT_MAX_DEAD * 48];
    size_t n = 0;

    for (size_t i = 0; i < N_SECTIONS; i++) {
        const struct section *s = &sections[i];

        if (!dumped(s))
            continue;
        for (const struct cfgkey *k = s->keys; k->name; k++) {
            if (cfgkey_get(k, (const char *)a + s->base[0]) ==
                cfgkey_get(k, (const char *)b + s->base[0]))
                continue;
            cfgkey_format(k, (const char *)a + s->base[0], va, sizeof(va));
            cfgkey_format(k, (const char *)b + s->base[0], vb, sizeof(vb));
            fn(user, s->name, k->name, va, vb);
            n++;
        }
    }
    for (size_t i = 0; i < N_FAULT_KEYS; i++) {
        fault_value(&a->an_flash.fault, i, va, sizeof(va));
        fault_value(&b->an_flash.fault, i, vb, sizeof(vb));
        if (!fault_of_machine(i) || !strcmp(va, vb))
            continue;
        fn(user, FAULTS_SECTION, fault_keys[i].key, va[0] ? va : "(none)", vb[0] ? vb : "(none)");
        n++;
    }
    return n;
}

struct first_diff {
    const char **section, **key;
};

static void note_first(void *user, const char *section, const char *key, const char *va,
                       const char *vb)
{
    struct first_diff *f = user;

    (void)va;
    (void)vb;
    if (f->section && !*f->section)
        *f->section = section;
    if (f->key && !*f->key)
        *f->key = key;
}

size_t machine_ini_diff(const struct machine_cfg *a, const struct machine_cfg *b,
                        const char **first_section, const char **first_key)
{
    struct first_diff f = {first_section, first_key};

    if (first_section)
        *first_section = NULL;
    if (first_key)
        *first_key = NULL;
    return machine_ini_diff_each(a, b, note_first, &f);
}

/* ------------------------------------------------------------------ outputs */

/* A time in ps as the grammar's ns with three decimals (exact: the parser rounds to ps). */
static int fmt_time(char *buf, size_t len, uint64_t ps)
{
    return snprintf(buf, len, "%llu.%03lluns", (unsigned long long)(ps / 1000),
                    (unsigned long long)(ps % 1000));
}

/* The value of [faults] key `kind` for c into buf, "" when it is the default (not written). */
static void fault_value(const struct flash_fault_cfg *c, size_t kind, char *buf, size_t len)
{
    const char *key = fault_keys[kind].key;
    size_t n = 0;

    buf[0] = '\0';
    if (!strcmp(key, "rber") && c->rber_x != 1.0)
        snprintf(buf, len, "x=%.17g", c->rber_x);
    else if (!strcmp(key, "age")) {
        if (c->age_pe || c->age_s > 0.0)
            n += (size_t)snprintf(buf, len, "pe=%u,days=%.17g", c->age_pe, c->age_s / 86400.0);
        for (int w = 0; w < 2 && n < len; w++)
            if (c->age_of[w])
                n += (size_t)snprintf(buf + n, len - n, "%spe=%u,days=%.17g,node=%s", n ? " " : "",
                                      c->age_pe_of[w], c->age_s_of[w] / 86400.0, w ? "wn" : "an");
        return;
    } else if (!strcmp(key, "program") && c->program_rate > 0.0)
        snprintf(buf, len, "rate=%.17g", c->program_rate);
    else if (!strcmp(key, "wear") && c->wear)
        snprintf(buf, len, "pe=%.17g,bad=%.17g,shape=%.17g", c->wear_pe, c->wear_bad,
                 c->wear_shape);
    else if (!strcmp(key, "power") && c->power_ps != UINT64_MAX)
        fmt_time(buf + snprintf(buf, len, "at="), len - 3, c->power_ps);
    else if (!strcmp(key, "seed"))
        snprintf(buf, len, "n=%llu", (unsigned long long)c->seed);
    for (uint32_t i = 0; i < c->n_dead && n < len; i++) {
        const struct flash_dead *d = &c->dead[i];

        if (d->channel != !strcmp(key, "channel") || (!d->channel && strcmp(key, "die")))
            continue;
        n += (size_t)snprintf(buf + n, len - n, "%sch=%u", n ? " " : "", d->ch);
        if (!d->channel && n < len)
            n += (size_t)snprintf(buf + n, len - n, ",die=%u", d->die);
        if (n < len)
            n += (size_t)snprintf(buf + n, len - n, ",at=");
        if (n < len)
            n += (size_t)fmt_time(buf + n, len - n, d->at_ps);
    }
}

void machine_ini_write(FILE *f, const struct machine_cfg *c, const char *header)
{
    char val[CFGKEY_TEXT_MAX], rng[3 * CFGKEY_TEXT_MAX], line[128];

    if (header)
        fprintf(f, "; %s\n", header);
    for (size_t i = 0; i < N_SECTIONS; i++) {
        const struct section *s = &sections[i];

        if (!dumped(s))
            continue;
        fprintf(f, "%s[%s]\n", i || header ? "\n" : "", s->name);
        for (const struct cfgkey *k = s->keys; k->name; k++) {
            cfgkey_format(k, (const char *)c + s->base[0], val, sizeof(val));
            cfgkey_range(k, rng, sizeof(rng));
            snprintf(line, sizeof(line), "%s = %s", k->name, val);
            fprintf(f, "%-38s ; %s: %s\n", line, rng, k->help);
        }
    }
    if (!c->an_flash.fault.on)
        return;
    fprintf(f, "\n[" FAULTS_SECTION "]\n");
    for (size_t i = 0; i < N_FAULT_KEYS; i++) {
        char v[FLASH_FAULT_MAX_DEAD * 48];

        fault_value(&c->an_flash.fault, i, v, sizeof(v));
        if (v[0])
            fprintf(f, "%s = %-30s ; %s\n", fault_keys[i].key, v, fault_keys[i].help);
    }
}

size_t machine_ini_assignments(const struct machine_cfg *c, char *buf, size_t len)
{
    char val[FLASH_FAULT_MAX_DEAD * 48];
    size_t n = 0;

    if (len)
        buf[0] = '\0';
    for (size_t i = 0; i < N_SECTIONS; i++) {
        const struct section *s = &sections[i];

        if (!dumped(s))
            continue;
        for (const struct cfgkey *k = s->keys; k->name; k++) {
            cfgkey_format(k, (const char *)c + s->base[0], val, sizeof(val));
            n += (size_t)snprintf(n < len ? buf + n : NULL, n < len ? len - n : 0, "%s.%s=%s\n",
                                  s->name, k->name, val);
        }
    }
    for (size_t i = 0; c->an_flash.fault.on && i < N_FAULT_KEYS; i++) {
        fault_value(&c->an_flash.fault, i, val, sizeof(val));
        if (val[0] && fault_of_machine(i))
            n += (size_t)snprintf(n < len ? buf + n : NULL, n < len ? len - n : 0,
                                  FAULTS_SECTION ".%s=%s\n", fault_keys[i].key, val);
    }
    return n;
}

int machine_ini_apply(struct machine_ini *m, const char *text, struct err *e)
{
    char line[MACHINE_INI_LINE_MAX + 128];

    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);

        if (n >= sizeof(line))
            return err_set(e, -EINVAL, "a line of %zu characters; accepted up to %zu", n,
                           sizeof(line) - 1);
        memcpy(line, p, n);
        line[n] = '\0';
        int rc = n ? machine_ini_set(m, line, NULL, e) : 0;
        if (rc)
            return rc;
        p += n + (nl != NULL);
    }
    return 0;
}

int machine_ini_stats(const struct machine_cfg *c, struct stats *s, struct err *e)
{
    char val[CFGKEY_TEXT_MAX];
    bool is_string;
    int rc;

    for (size_t i = 0; i < N_SECTIONS; i++) {
        const struct section *sec = &sections[i];

        if (!dumped(sec))
            continue;
        for (const struct cfgkey *k = sec->keys; k->name; k++) {
            cfgkey_format_json(k, (const char *)c + sec->base[0], val, sizeof(val), &is_string);
            rc = stats_config(s, sec->name, k->name,
                              is_string                  ? STATS_CFG_STRING
                              : k->type == CFGKEY_T_BOOL ? STATS_CFG_BOOL
                                                         : STATS_CFG_NUMBER,
                              val, e);
            if (rc)
                return rc;
        }
    }
    for (size_t i = 0; c->an_flash.fault.on && i < N_FAULT_KEYS; i++) {
        char v[FLASH_FAULT_MAX_DEAD * 48];

        fault_value(&c->an_flash.fault, i, v, sizeof(v));
        if (v[0] &&
            (rc = stats_config(s, FAULTS_SECTION, fault_keys[i].key, STATS_CFG_STRING, v, e)))
            return rc;
    }
    return 0;
}

void machine_ini_markdown(FILE *f)
{
    struct machine_cfg def;
    char val[CFGKEY_TEXT_MAX], rng[3 * CFGKEY_TEXT_MAX];

    machine_cfg_default(&def);
    for (size_t i = 0; i < N_SECTIONS; i++) {
        const struct section *s = &sections[i];
        bool shown = false;

        fprintf(f, "%s### [%s]\n\n%s\n", i ? "\n" : "", s->name, s->help);
        /* The node sections take the keys of [flash]: listed once, there. */
        for (size_t j = 0; j < i; j++)
            shown |= sections[j].keys == s->keys;
        if (shown)
            continue;
        fprintf(f, "\n| key | default | accepted | description | field |\n"
                   "|---|---|---|---|---|\n");
        for (const struct cfgkey *k = s->keys; k->name; k++) {
            bool unit = *k->unit && k->type != CFGKEY_T_SIZE;

            cfgkey_format(k, (const char *)&def + s->base[0], val, sizeof(val));
            cfgkey_range(k, rng, sizeof(rng));
            fprintf(f, "| `%s` | %s%s%s | %s | %s | `%s.%s` |\n", k->name, val, unit ? " " : "",
                    unit ? k->unit : "", rng, k->help, s->where, k->field);
        }
    }
    fprintf(f, "\n### [" FAULTS_SECTION "]\n\n"
               "Flash faults injected on every node's flash (and the NAND of every SSD with "
               "storage ssd-raid0): one key per kind of the `--fault` grammar "
               "(models/flash/README.md), its value the kind's KEY=VALUE list; `--fault` on the "
               "command line adds to them (die, channel) or overrides them (the other kinds). "
               "Any key turns the fault model (bit errors, ECC, read retries) on; without the "
               "section there are no faults.\n"
               "\n| key | value | description | field |\n|---|---|---|---|\n");
    for (size_t i = 0; i < N_FAULT_KEYS; i++)
        fprintf(f, "| `%s` | `%s` | %s | `machine_cfg.{an,wn}_flash.fault` |\n", fault_keys[i].key,
                fault_keys[i].value, fault_keys[i].help);
}
