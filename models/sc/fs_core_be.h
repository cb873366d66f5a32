/*
 * fs_core_be: a core in SystemC time as an Activation Node's core backend (models/core/core_be.h):
 * an initiator that the node's write, read and GEMM calls drive through a TLM-2.0 socket onto a
 * target of the core's command map (fs_core.h), meant for the core verilated with --sc
 * (fs_core_rtl). So the training platform (fs_machine.h) runs every pad access and every GEMM of
 * a node on the RTL, cycle by cycle on the core's own clock, while the node (anode_exec) stays
 * the only model of what a command does.
 *
 * Calls wait in SystemC time (the target does): the node must run them from an SC_THREAD. A
 * pad access is one transaction per row (its bytes rounded up to whole 8-byte beats, the bytes
 * past the row masked off by byte enables on a write); a GEMM is the command's write, then the
 * status read: status and cycles are the core's.
 *
 * The backend's create() cannot build a module (SystemC builds modules before the simulation
 * starts, a node creates its backend when its mode is set): it takes the first free fs_core_be
 * of the core's configuration, in the order they were built; destroy() frees it again. Build
 * one per node before setting the machine's fidelity to rtl with machine_cfg.rtl =
 * &core_be_sc_ops.
 */
#ifndef MODELS_SC_FS_CORE_BE_H
#define MODELS_SC_FS_CORE_BE_H

#include <cstdint>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

extern "C" {
#include "models/core/core_be.h"
}

namespace fs
{

struct fs_core_be : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<fs_core_be> socket; /* bind to the core's target */
    uint64_t gemms = 0, beats = 0;                         /* GEMMs and pad beats sent */

    /* cfg: the configuration of the core the socket reaches (fs_core_rtl::params()). */
    fs_core_be(sc_core::sc_module_name name, const struct core_params &cfg);
    ~fs_core_be() override;

    int write(uint32_t addr, uint32_t stride, uint32_t rows, uint32_t len, const void *buf,
              struct err *e);
    int read(uint32_t addr, uint32_t stride, uint32_t rows, uint32_t len, void *buf, struct err *e);
    int exec(const struct core_cmd *cmd, struct core_twin_result *res, struct err *e);

    struct core_params cfg;
    bool taken = false; /* by a node's backend */

  private:
    std::vector<unsigned char> row_, be_;
    int row(bool wr, uint32_t addr, uint32_t len, unsigned char *data, struct err *e);
};

/* The backend over the free fs_core_be of the node's configuration ("sc"). */
extern const struct core_be_ops core_be_sc_ops;

} // namespace fs

#endif
