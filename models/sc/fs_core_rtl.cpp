/* fs_core_rtl: see fs_core_rtl.h. Compiled once per verilated model (VTOP, VTOP_H, P_*). */
#include "models/sc/fs_core_rtl.h"

#include <cstring>
#include <deque>

#include "models/sc/fs_time.h"
#include "models/sc/fs_payload.h"

#include VTOP_H

using namespace sc_core;

namespace fs
{

/* The verilated core, its clock and one signal per port. */
struct fs_core_rtl_impl {
    sc_clock clk;
    sc_signal<bool> rst, cmd_valid, cmd_ready, trans_a, trans_b, accumulate, done_valid, done_ready,
        dma_valid, dma_ready, dma_we, dma_resp_valid, dma_resp_err, busy;
    sc_signal<uint32_t> done_status, dma_wstrb, m, n, k, a_addr, b_addr, c_addr, lda, ldb, ldc,
        done_cycles, dma_addr;
    sc_signal<uint64_t> dma_wdata, dma_rdata;
    VTOP top;

    explicit fs_core_rtl_impl(uint64_t period_ps)
        : clk("clk", sct(period_ps), 0.5, SC_ZERO_TIME, true), top("core")
    {
        top.clk_i(clk);
        top.rst_i(rst);
        top.cmd_valid_i(cmd_valid);
        top.cmd_ready_o(cmd_ready);
        top.cmd_m_i(m);
        top.cmd_n_i(n);
        top.cmd_k_i(k);
        top.cmd_a_addr_i(a_addr);
        top.cmd_b_addr_i(b_addr);
        top.cmd_c_addr_i(c_addr);
        top.cmd_lda_i(lda);
        top.cmd_ldb_i(ldb);
        top.cmd_ldc_i(ldc);
        top.cmd_trans_a_i(trans_a);
        top.cmd_trans_b_i(trans_b);
        top.cmd_accumulate_i(accumulate);
        top.done_valid_o(done_valid);
        top.done_ready_i(done_ready);
        top.done_status_o(done_status);
        top.done_cycles_o(done_cycles);
        top.dma_req_valid_i(dma_valid);
        top.dma_req_ready_o(dma_ready);
        top.dma_req_we_i(dma_we);
        top.dma_req_addr_i(dma_addr);
        top.dma_req_wdata_i(dma_wdata);
        top.dma_req_wstrb_i(dma_wstrb);
        top.dma_resp_valid_o(dma_resp_valid);
        top.dma_resp_rdata_o(dma_rdata);
        top.dma_resp_err_o(dma_resp_err);
        top.busy_o(busy);
    }
};

fs_core_rtl::fs_core_rtl(sc_module_name name, uint64_t period_ps)
    : sc_module(name), socket("socket"), p_(new fs_core_rtl_impl(period_ps))
{
    socket.register_b_transport(this, &fs_core_rtl::b_transport);
    SC_HAS_PROCESS(fs_core_rtl);
    SC_THREAD(reset);
}

fs_core_rtl::~fs_core_rtl() = default;

struct core_params fs_core_rtl::params()
{
    return {P_Rows, P_Cols, P_AWords, P_BWords, P_CWords, 1};
}

/* After inputs changed: let the model's combinational outputs follow (two delta cycles: the
 * signal update, then the model's evaluation and its outputs' update). */
void fs_core_rtl::settle()
{
    wait(SC_ZERO_TIME);
    wait(SC_ZERO_TIME);
    wait(SC_ZERO_TIME);
}

void fs_core_rtl::reset()
{
    wait(p_->clk.negedge_event());
    p_->rst = true;
    for (unsigned i = 0; i < RESET_CYCLES; i++)
        wait(p_->clk.negedge_event());
    p_->rst = false;
    p_->done_ready = true; /* completions are always taken */
    reset_done_ = true;
    reset_ev_.notify();
}

/* The beats of a DMA access; false if any response had the error flag (nothing was written by
 * that beat: the RTL's rule). */
bool fs_core_rtl::dma(tlm::tlm_generic_payload &tx)
{
    uint64_t beats = tx.get_data_length() / CORE_DMA_BEAT, sent = 0, got = 0;
    unsigned char *d = tx.get_data_ptr();
    bool err = false;

    wait(p_->clk.negedge_event());
    while (got < beats) {
        if (sent < beats) {
            uint64_t v = 0;
            uint32_t s = fs_strobe(tx, sent);
            if (tx.is_write())
                std::memcpy(&v, d + sent * CORE_DMA_BEAT, 8);
            p_->dma_valid = true;
            p_->dma_we = tx.is_write();
            p_->dma_addr = (uint32_t)(tx.get_address() + sent * CORE_DMA_BEAT);
            p_->dma_wdata = v;
            p_->dma_wstrb = s;
        } else {
            p_->dma_valid = false;
        }
        settle();
        bool moves = sent < beats && p_->dma_ready.read();
        if (p_->dma_resp_valid.read()) {
            uint64_t v = p_->dma_rdata.read();
            err |= p_->dma_resp_err.read();
            if (tx.is_read())
                std::memcpy(d + got * CORE_DMA_BEAT, &v, 8);
            got++;
            if (got == beats)
                break; /* the last response is on the port in this cycle */
        }
        wait(p_->clk.posedge_event());
        sent += moves;
        wait(p_->clk.negedge_event());
    }
    p_->dma_valid = false;
    wait(p_->clk.posedge_event());
    return !err;
}

void fs_core_rtl::command(const struct core_cmd &c)
{
    wait(p_->clk.negedge_event());
    p_->m = c.m;
    p_->n = c.n;
    p_->k = c.k;
    p_->a_addr = c.a_addr;
    p_->b_addr = c.b_addr;
    p_->c_addr = c.c_addr;
    p_->lda = c.lda;
    p_->ldb = c.ldb;
    p_->ldc = c.ldc;
    p_->trans_a = c.trans_a;
    p_->trans_b = c.trans_b;
    p_->accumulate = c.accumulate;
    p_->cmd_valid = true;
    for (;;) { /* offered until accepted */
        settle();
        bool acc = p_->cmd_ready.read();
        wait(p_->clk.posedge_event());
        wait(p_->clk.negedge_event());
        if (acc)
            break;
    }
    p_->cmd_valid = false;
    for (;;) { /* the completion, taken at the next rising edge */
        settle();
        if (p_->done_valid.read())
            break;
        wait(p_->clk.negedge_event());
    }
    status_ = p_->done_status.read();
    cycles_ = p_->done_cycles.read();
    wait(p_->clk.posedge_event());
}

void fs_core_rtl::b_transport(tlm::tlm_generic_payload &tx, sc_time &delay)
{
    uint64_t a = tx.get_address(), len = tx.get_data_length();

    wait(delay); /* the initiator's local time: this target runs in SystemC time */
    delay = SC_ZERO_TIME;
    if (!reset_done_)
        wait(reset_ev_);
    tx.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    if (!fs_payload_ok(tx, true))
        return;
    if (a == core_map::CMD && tx.is_write() && len == core_map::CMD_BYTES) {
        struct core_cmd c;
        core_map::decode(tx.get_data_ptr(), c);
        command(c);
        tx.set_response_status(tlm::TLM_OK_RESPONSE);
        return;
    }
    if (a == core_map::STATUS && tx.is_read() && len == core_map::STATUS_BYTES) {
        uint32_t w[2] = {status_, cycles_};
        std::memcpy(tx.get_data_ptr(), w, sizeof(w));
        tx.set_response_status(tlm::TLM_OK_RESPONSE);
        return;
    }
    if (len == 0 || len % CORE_DMA_BEAT || a > UINT32_MAX || len - CORE_DMA_BEAT > UINT32_MAX - a ||
        !(tx.is_read() || tx.is_write()))
        return;
    if (dma(tx))
        tx.set_response_status(tlm::TLM_OK_RESPONSE);
}

} // namespace fs
