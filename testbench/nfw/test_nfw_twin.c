/*
 * test_nfw_twin: the C twin of the NAND write pipelines (models/nfw/nfw_twin) with its
 * channel/firmware BFM (nfw_bfm) on the paper's full-size FMS, where the RTL is too big to
 * simulate in a unit test: 8-plane units striped over all 64 channels, addresses checked by the
 * FTL, data read back through the controller's read path; the pipeline's own rate; parameter
 * and geometry checks with their messages. (The RTL-versus-twin lockstep is the block test,
 * testbench/nfw/test_nfw_rtl.c.)
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testbench/test_assert.h"

#include "csim/rng.h"
#include "models/dram/dram.h"
#include "models/dram/dram_port.h"
#include "models/flash/flash_ctrl.h"
#include "models/flash/ftl_layout.h"
#include "testbench/nfw/nfw_bfm.h"
#include "models/nfw/nfw_twin.h"

#define TB_BYTES (16u << 20)

/* The paper's FMS behind the pipeline: 4 KiB pages, 8 planes, 64 channels x 2 dies, 768
 * pages per block; the AN's V stream has 579 blocks. */
static void paper_params(struct nfw_params *p)
{
    nfw_params_default(p);
    p->page_bytes = 4096;
    p->planes = 8;
    p->channels = 64;
    p->dies_per_chan = 2;
    p->pages_per_block = 768;
    p->max_pbs = 1024;
    p->bbt_entries = 16;
    p->slots = 16;
}

struct sys {
    struct nfw_params p;
    struct nfw_twin *twin;
    struct flash_cfg fc;
    struct flash_fms *fms;
    struct ftl_bbm bbm;
    struct ftl_stream *v;
    struct dram *dram;
    struct dram_port *port;
    struct nfw_bfm *bfm;
    unsigned char *tb;
    uint64_t cycle;
};

static void sys_open(struct sys *y)
{
    struct err e = {{0}};
    struct ftl_layout lay;
    struct ftl_stream_cfg sc;
    struct dram_cfg dc;
    struct dram_port_cfg pc;
    struct nfw_bfm_cfg bc;
    uint64_t rng = 7;

    memset(y, 0, sizeof(*y));
    paper_params(&y->p);
    assert_int_equal(nfw_twin_create(&y->p, &y->twin, &e), 0);
    flash_cfg_default(&y->fc);
    assert_int_equal(flash_fms_create(&y->fc, &y->fms, &e), 0);
    ftl_layout_an(&lay);
    assert_int_equal(ftl_bbm_init(&y->bbm, &y->fc.geom, 672, 11, &e), 0);
    ftl_stream_cfg_from_region(&sc, ftl_layout_find(&lay, "V"));
    assert_int_equal(ftl_stream_create(&sc, y->fms, &y->bbm, &y->v, &e), 0);
    dram_cfg_default(&dc);
    dc.size_bytes = TB_BYTES;
    assert_int_equal(dram_create(&dc, &y->dram, &e), 0);
    y->tb = malloc(TB_BYTES);
    assert_non_null(y->tb);
    for (size_t i = 0; i < TB_BYTES; i += 8) {
        uint64_t v = rng_next(&rng);

        memcpy(y->tb + i, &v, 8);
    }
    assert_int_equal(dram_write(y->dram, 0, y->tb, TB_BYTES), 0);
    dram_port_cfg_default(&pc);
    pc.name = "nfw";
    assert_int_equal(dram_port_create(&pc, y->dram, &y->port, &e), 0);
    nfw_bfm_cfg_default(&bc);
    assert_int_equal(nfw_bfm_create(&bc, &y->p, y->fms, &y->bbm, &y->bfm, &e), 0);
    {
        struct nfw_in in = {.rst = true};

        nfw_twin_set(y->twin, &in);
        nfw_twin_step(y->twin, 2);
    }
    assert_int_equal(nfw_bfm_attach(y->bfm, 0, y->v, &e), 0);
}

static void sys_close(struct sys *y)
{
    nfw_bfm_destroy(y->bfm);
    dram_port_destroy(y->port);
    dram_destroy(y->dram);
    ftl_stream_destroy(y->v);
    ftl_bbm_fini(&y->bbm);
    flash_fms_destroy(y->fms);
    nfw_twin_destroy(y->twin);
    free(y->tb);
}

/* Run the twin with commands cmd[0..n) offered in order until all is written and reported. */
static uint64_t run(struct sys *y, const uint64_t (*cmd)[2], unsigned n)
{
    struct err e;
    unsigned sent = 0, quiet = 0;
    uint64_t c0 = y->cycle;

    while (quiet < 4) {
        struct nfw_out o;
        struct nfw_in in;
        struct mem_port_rsp mr;
        struct mem_port_req rq;

        memset(&in, 0, sizeof(in));
        nfw_twin_get(y->twin, &o);
        dram_port_drive(y->port, &mr);
        nfw_in_mem(&in, &mr);
        nfw_bfm_drive(y->bfm, &o, &in);
        if (sent < n) {
            in.cmd_valid = true;
            in.cmd_addr = cmd[sent][0];
            in.cmd_len = (uint32_t)cmd[sent][1];
        }
        nfw_twin_set(y->twin, &in);
        nfw_out_mem(&o, &rq);
        dram_port_clock(y->port, &rq);
        if (nfw_bfm_clock(y->bfm, &o, &in, &e))
            fail_msg("cycle %llu: %s", (unsigned long long)y->cycle, e.msg);
        sent += in.cmd_valid && o.cmd_ready;
        nfw_twin_step(y->twin, 1);
        y->cycle++;
        quiet = sent == n && o.idle && nfw_bfm_idle(y->bfm) ? quiet + 1 : 0;
        if (y->cycle - c0 > 20000000)
            fail_msg("no progress after %llu cycles", (unsigned long long)(y->cycle - c0));
    }
    return y->cycle - c0;
}

/*
 * 2 MiB in eight 256 KiB commands from odd tensor-buffer addresses: 512 pages = 64 units of 8
 * planes, one on each of dies 0..63, i.e. one per channel; read back byte for byte.
 */
static void test_paper_geometry_round_trip(void **state)
{
    struct sys y;
    uint64_t cmd[8][2], lpn = 0, cycles;
    struct nfw_bfm_rb k;
    struct flash_ctrl ctrl;
    struct flash_ctrl_sink sink = {nfw_bfm_readback, &k};
    struct err e;
    const struct nfw_bfm_stats *st;
    double gbps;

    (void)state;
    sys_open(&y);
    for (unsigned i = 0; i < 8; i++) {
        cmd[i][0] = 1000003 * (i + 1) + i; /* not 8-byte aligned */
        cmd[i][1] = 256 << 10;
    }
    cycles = run(&y, (const uint64_t(*)[2])cmd, 8);
    st = nfw_bfm_stats(y.bfm);
    assert_int_equal(st->pages, 512);
    assert_int_equal(st->done, 512);
    assert_int_equal(st->units, 64);
    for (uint32_t ch = 0; ch < 64; ch++)
        assert_int_equal(flash_fms_chan(y.fms, ch)->bytes_in, 8 * 4096);
    /* 2 MiB at 8 bytes per cycle, and the tensor buffer's latency once per command. */
    gbps = (double)(2 << 20) / ((double)cycles * 1250e-12) / 1e9;
    print_message("# twin at the paper's geometry: 2 MiB in %llu cycles, %.2f GB/s at 0.8 GHz\n",
                  (unsigned long long)cycles, gbps);
    assert_true(cycles < (2u << 20) / 8 * 110 / 100);

    k.len = 256 << 10;
    k.buf = malloc(k.len);
    assert_non_null(k.buf);
    assert_int_equal(flash_ctrl_init(&ctrl, y.fms, &e), 0);
    for (unsigned i = 0; i < 8; i++) {
        struct flash_ctrl_req rq = {.lpn = lpn, .offset = 0, .bytes = k.len, .tb_addr = 0};
        uint64_t done;

        if (flash_ctrl_read(&ctrl, y.v, nfw_bfm_now(y.bfm), &rq, &sink, &done, &e))
            fail_msg("read back: %s", e.msg);
        if (memcmp(k.buf, y.tb + cmd[i][0], k.len))
            fail_msg("command %u: data read back differ", i);
        lpn += k.len / 4096;
    }
    flash_ctrl_fini(&ctrl);
    free(k.buf);
    sys_close(&y);
}

static void test_twin_checks_parameters(void **state)
{
    struct nfw_params p;
    struct nfw_twin *t;
    struct err e;

    (void)state;
    nfw_params_default(&p);
    assert_int_equal(nfw_twin_create(&p, &t, &e), 0);
    nfw_twin_destroy(t);
    p.page_bytes = 100;
    assert_int_equal(nfw_twin_create(&p, &t, &e), -EINVAL);
    assert_msg_has(e.msg, "PageBytes = 100; accepted a power of two 64..65536");
    nfw_params_default(&p);
    p.slots = 2;
    p.planes = 4;
    assert_int_equal(nfw_twin_create(&p, &t, &e), -EINVAL);
    assert_msg_has(e.msg, "Slots = 2; accepted a power of two >= 2 and >= Planes (4)");
    nfw_params_default(&p);
    p.channels = 3;
    assert_int_equal(nfw_twin_create(&p, &t, &e), -EINVAL);
    assert_msg_has(e.msg, "Channels = 3");
    assert_null(t);
}

static void test_bfm_checks_geometry_and_streams(void **state)
{
    struct nfw_params p;
    struct flash_cfg fc;
    struct flash_fms *fms;
    struct ftl_bbm bbm;
    struct ftl_stream_cfg sc;
    struct ftl_stream *s;
    struct nfw_bfm_cfg bc;
    struct nfw_bfm *b;
    struct err e;

    (void)state;
    nfw_params_default(&p);
    flash_cfg_default(&fc);
    fc.sw.store_payload = false;
    nfw_bfm_cfg_default(&bc);
    assert_int_equal(flash_fms_create(&fc, &fms, &e), 0);
    assert_int_equal(ftl_bbm_init(&bbm, &fc.geom, 672, 11, &e), 0);
    assert_int_equal(nfw_bfm_create(&bc, &p, fms, &bbm, &b, &e), -EINVAL);
    assert_msg_has(e.msg, "the pipeline (2 planes, 2 channels x 2 dies, 4 pages per block, 256 B "
                          "pages) and the flash model (8 planes, 64 channels x 2 dies");
    paper_params(&p);
    assert_int_equal(nfw_bfm_create(&bc, &p, fms, &bbm, &b, &e), 0);
    memset(&sc, 0, sizeof(sc));
    strcpy(sc.name, "big");
    sc.first_block = 10;
    sc.n_blocks = 600;
    sc.pe_budget = 10;
    sc.erase_on_release = true;
    assert_int_equal(ftl_stream_create(&sc, fms, &bbm, &s, &e), 0);
    p.max_pbs = 100;
    nfw_bfm_destroy(b);
    assert_int_equal(nfw_bfm_create(&bc, &p, fms, &bbm, &b, &e), 0);
    assert_int_equal(nfw_bfm_attach(b, 0, s, &e), -EINVAL);
    assert_msg_has(e.msg, "stream 'big' has 600 physical blocks from block 10; the "
                          "pipeline's allocator takes at most 100");
    assert_int_equal(nfw_bfm_attach(b, 2, s, &e), -EINVAL);
    assert_msg_has(e.msg, "stream id 2; accepted 0..1");
    nfw_bfm_destroy(b);
    ftl_stream_destroy(s);
    ftl_bbm_fini(&bbm);
    flash_fms_destroy(fms);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paper_geometry_round_trip),
        cmocka_unit_test(test_twin_checks_parameters),
        cmocka_unit_test(test_bfm_checks_geometry_and_streams),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
