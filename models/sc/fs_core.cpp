/* fs_core: see fs_core.h. */
#include "models/sc/fs_core.h"

#include <cstdio>
#include <cstdlib>

#include "models/sc/fs_time.h"
#include "models/sc/fs_payload.h"

namespace fs
{

fs_core::fs_core(sc_core::sc_module_name name, const struct core_params &cfg, uint64_t period_ps)
    : sc_module(name), socket("socket"), t_(nullptr), period_(period_ps)
{
    struct err e;
    if (core_twin_create(&cfg, &t_, &e)) {
        std::fprintf(stderr, "%s: %s\n", this->name(), e.msg);
        std::exit(2);
    }
    core_twin_map(&cfg, &map_);
    socket.register_b_transport(this, &fs_core::b_transport);
}

fs_core::~fs_core()
{
    core_twin_destroy(t_);
}

void fs_core::b_transport(tlm::tlm_generic_payload &tx, sc_core::sc_time &delay)
{
    uint64_t a = tx.get_address(), len = tx.get_data_length();
    unsigned char *d = tx.get_data_ptr();

    tx.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    if (!fs_payload_ok(tx, true))
        return;
    if (a == core_map::CMD && tx.is_write() && len == core_map::CMD_BYTES) {
        struct core_cmd c;
        struct core_twin_result r;
        struct err e;
        core_map::decode(d, c);
        if (core_twin_exec(t_, &c, &r, &e)) {
            tx.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE); /* host out of memory */
            return;
        }
        status_ = r.status;
        cycles_ = (uint32_t)r.cycles;
        delay += sct((r.status == CORE_OK ? r.cycles + 2 : 3) * period_);
        tx.set_response_status(tlm::TLM_OK_RESPONSE);
        return;
    }
    if (a == core_map::STATUS && tx.is_read() && len == core_map::STATUS_BYTES) {
        uint32_t w[2] = {status_, cycles_};
        std::memcpy(d, w, sizeof(w));
        tx.set_response_status(tlm::TLM_OK_RESPONSE);
        return;
    }
    /* the port's addresses are 32 bits: a transaction beyond them is refused whole */
    if (len % CORE_DMA_BEAT || len == 0 || a > UINT32_MAX || len - CORE_DMA_BEAT > UINT32_MAX - a ||
        !(tx.is_read() || tx.is_write()))
        return;
    /* Beat by beat, as the port: a misaligned beat or one outside the map is an error response
     * that writes nothing (and reads 0); the others are done. */
    uint64_t beats = len / CORE_DMA_BEAT;
    bool err = false;
    for (uint64_t b = 0; b < beats; b++) {
        uint64_t v;
        uint64_t at = a + b * CORE_DMA_BEAT;
        if (tx.is_write()) {
            std::memcpy(&v, d + b * CORE_DMA_BEAT, 8);
            err |= core_twin_dma_write(t_, (uint32_t)at, v, fs_strobe(tx, b)) != 0;
        } else {
            err |= core_twin_dma_read(t_, (uint32_t)at, &v) != 0;
            std::memcpy(d + b * CORE_DMA_BEAT, &v, 8);
        }
    }
    /* the first beat accepted at an edge, one per cycle, the last answered
     * CORE_DMA_LATENCY cycles after its own */
    delay += sct((beats - 1 + CORE_DMA_LATENCY) * period_);
    tx.set_response_status(err ? tlm::TLM_ADDRESS_ERROR_RESPONSE : tlm::TLM_OK_RESPONSE);
}

} // namespace fs
