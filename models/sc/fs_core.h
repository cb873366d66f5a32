/*
 * fs_core: the compute core (models/core's C twin of rtl/core) as a TLM-2.0 target,
 * blocking transport, loosely timed. fs_core_rtl (fs_core_rtl.h) is the same target around the
 * core verilated with --sc, cycle by cycle; both answer the same map with the same bits and, for
 * the twin, times that follow from the RTL's port rules (tested against it).
 *
 * Command map (generic-payload address, little-endian, core_twin_map's byte map below CMD):
 *   [0, end)            the DMA port's byte map: A-pad at a_base, B-pad at b_base, C-pad at
 *                       c_base (core_twin_map). READ / WRITE of whole 8-byte beats (length a
 *                       multiple of 8); byte enables become the beats' strobes (an enable byte
 *                       of 0xff writes that byte). Beat by beat as the RTL's port: a misaligned
 *                       beat or one outside the map writes nothing and reads 0, and the
 *                       transaction then ends with ADDRESS_ERROR (the other beats are done).
 *                       One reaching past the port's 32-bit addresses is refused whole
 *                       (ADDRESS_ERROR, no time).
 *                       Time, from the rising edge that takes the first beat to the one where
 *                       the last response is on the port: the port takes a beat per cycle and
 *                       answers CORE_DMA_LATENCY cycles later: (beats - 1 + CORE_DMA_LATENCY)
 *                       cycles.
 *   CMD    0x10000000   WRITE of CMD_BYTES (40) bytes: a GEMM command, ten u32 words: m, n, k,
 *                       a_addr, b_addr, c_addr, lda, ldb, ldc, flags (bit 0 trans_a, bit 1
 *                       trans_b, bit 2 accumulate). The transaction returns when the
 *                       completion is on the port: (cycles + 2) cycles for a command the core
 *                       runs, 3 cycles for one it refuses (status != 0, nothing written;
 *                       rtl/core/README.md, "cycles"), from the rising edge that accepts it to
 *                       the one that takes its completion.
 *   STATUS 0x10000040   READ of 8 bytes: the last command's status (u32, enum core_status) and
 *                       its cycle count (u32, 0 when refused). No time.
 * Anything else: ADDRESS_ERROR. Each cycle is the core's clock period given at construction.
 */
#ifndef MODELS_SC_FS_CORE_H
#define MODELS_SC_FS_CORE_H

#include <cstdint>
#include <cstring>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

extern "C" {
#include "models/core/core_twin.h"
}

namespace fs
{

/* The command map's fixed addresses and the command's encoding (shared with fs_core_rtl). */
struct core_map {
    static constexpr uint64_t CMD = 0x10000000, STATUS = 0x10000040;
    static constexpr unsigned CMD_BYTES = 40, STATUS_BYTES = 8;

    static void encode(const struct core_cmd &c, unsigned char out[CMD_BYTES])
    {
        uint32_t w[10] = {c.m,      c.n,
                          c.k,      c.a_addr,
                          c.b_addr, c.c_addr,
                          c.lda,    c.ldb,
                          c.ldc,    (uint32_t)(c.trans_a | c.trans_b << 1 | c.accumulate << 2)};
        std::memcpy(out, w, sizeof(w)); /* little-endian host (x86-64, aarch64) */
    }
    static void decode(const unsigned char in[CMD_BYTES], struct core_cmd &c)
    {
        uint32_t w[10];
        std::memcpy(w, in, sizeof(w));
        c = {w[0],
             w[1],
             w[2],
             w[3],
             w[4],
             w[5],
             w[6],
             w[7],
             w[8],
             (w[9] & 1) != 0,
             (w[9] & 2) != 0,
             (w[9] & 4) != 0};
    }
};

struct fs_core : sc_core::sc_module {
    tlm_utils::simple_target_socket<fs_core> socket;

    /* A twin of cfg (the module owns it), clocked at period_ps. Exits the program with a
     * message for a configuration the RTL does not build. */
    fs_core(sc_core::sc_module_name name, const struct core_params &cfg, uint64_t period_ps);
    ~fs_core() override;
    struct core_twin *twin()
    {
        return t_;
    }

  private:
    struct core_twin *t_;
    struct core_twin_map map_;
    uint64_t period_;
    uint32_t status_ = 0, cycles_ = 0;

    void b_transport(tlm::tlm_generic_payload &tx, sc_core::sc_time &delay);
};

} // namespace fs

#endif
