/*
 * fs_core_rtl: the compute core verilated with `verilator --sc` (rtl/core/core_top, an
 * sc_module with sc_in/sc_out ports) inside a TLM-2.0 target that answers fs_core's command map
 * (fs_core.h) by driving the core's ports cycle by cycle on its own sc_clock.
 *
 * b_transport may wait (it must be called from an SC_THREAD): it first waits out the
 * initiator's annotated delay, then drives the ports and returns at the rising edge where the
 * transfer is over, with the delay left at zero. Port protocol (rtl/core/README.md): inputs
 * change at falling edges, a beat moves at a rising edge where valid and ready were both high,
 *   - a DMA access sends its beats back to back (one per cycle while dma_req_ready) and ends at
 *     the edge where the last response is on the port (an error response on any beat: the
 *     transaction's ADDRESS_ERROR);
 *   - a command is offered until accepted and ends at the edge where its completion is taken;
 *   - STATUS returns the last completion's status and cycles, at no time.
 * The core is reset at the start of simulation (RESET_CYCLES with rst_i high); a transaction
 * arriving before that is over waits for it.
 *
 * Built per verilated model: VTOP / VTOP_H name its class and header (Makefile, models/sc rules).
 */
#ifndef MODELS_SC_FS_CORE_RTL_H
#define MODELS_SC_FS_CORE_RTL_H

#include <cstdint>
#include <memory>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "models/sc/fs_core.h"

namespace fs
{

struct fs_core_rtl_impl;

struct fs_core_rtl : sc_core::sc_module {
    tlm_utils::simple_target_socket<fs_core_rtl> socket;
    static constexpr unsigned RESET_CYCLES = 4;

    fs_core_rtl(sc_core::sc_module_name name, uint64_t period_ps);
    ~fs_core_rtl() override;
    /* The configuration the model was verilated with. */
    static struct core_params params();

  private:
    std::unique_ptr<fs_core_rtl_impl> p_;
    bool reset_done_ = false;
    sc_core::sc_event reset_ev_;
    uint32_t status_ = 0, cycles_ = 0;

    void b_transport(tlm::tlm_generic_payload &tx, sc_core::sc_time &delay);
    void reset();
    void settle();
    bool dma(tlm::tlm_generic_payload &tx);
    void command(const struct core_cmd &c);
};

} // namespace fs

#endif
