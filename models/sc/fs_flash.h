/*
 * fs_flash: a node's flash memory system as a TLM-2.0 target: the controller's read path
 * (models/flash/flash_ctrl) and the stream FTL's write path (models/flash/ftl_stream) behind one
 * simple_target_socket, blocking transport, loosely timed.
 *
 * The C models do all the work and keep all the state; this module only decodes the payload and
 * annotates the time. They are analytical: a call at time `now` returns when it is done, from
 * the busy-until of every channel, die and the controller. A transaction arriving with
 * sc_time_stamp() + delay = now returns with delay + (done - now): the initiator waits (or
 * keeps its local time) until the data are in (read) or programmed (write). Calls are served in
 * the order they arrive, as the C models serve theirs.
 *
 * Address map (64-bit generic-payload address):
 *   bits 63..56  stream index: 0 .. n-1, the streams given at construction, in their order
 *   bits 55..0   byte address in the stream's logical space: LPN x page_bytes + offset
 * fs_flash::addr() builds one. Commands:
 *   READ   any address and length >= 1: flash_ctrl_read of {lpn, offset, length}; the bytes
 *          arrive in the data pointer when the flash model stores payload (flash_cfg
 *          sw.store_payload), and the data pointer is left alone in timing-only mode (then the
 *          controller's fast path of long reads applies, as for flashbench). A null data
 *          pointer times the transfer without moving bytes, in either mode.
 *   WRITE  page-aligned address and a whole number of pages: ftl_stream_write at that LPN
 *          (append-only per logical block, as the FTL requires); the data are stored with
 *          store_payload (and a data pointer), else only timed.
 * Responses: OK; ADDRESS_ERROR (stream index out of range, unaligned write, or anything the FTL
 * refuses: the C model's message is in last_error()); BYTE_ENABLE_ERROR (byte enables are not
 * supported); BURST_ERROR (streaming width below the length); COMMAND_ERROR (IGNORE). No DMI,
 * no debug transport: every access is timed.
 */
#ifndef MODELS_SC_FS_FLASH_H
#define MODELS_SC_FS_FLASH_H

#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

extern "C" {
#include "models/flash/flash_ctrl.h"
#include "models/flash/ftl_stream.h"
}

namespace fs
{

struct fs_flash : sc_core::sc_module {
    tlm_utils::simple_target_socket<fs_flash> socket;

    static constexpr unsigned STREAM_SHIFT = 56;
    static constexpr uint64_t OFFSET_MASK = (1ull << STREAM_SHIFT) - 1;

    /* The controller and the streams (not owned: they must outlive the module; the streams use
     * the controller's FMS). */
    fs_flash(sc_core::sc_module_name name, struct flash_ctrl *ctrl,
             const std::vector<struct ftl_stream *> &streams);

    static uint64_t addr(unsigned stream, uint64_t lpn, uint32_t offset, uint32_t page_bytes)
    {
        return (uint64_t)stream << STREAM_SHIFT | (lpn * page_bytes + offset);
    }
    uint32_t page_bytes() const
    {
        return page_bytes_;
    }
    const std::string &last_error() const
    {
        return last_error_;
    }

  private:
    struct flash_ctrl *ctrl_;
    std::vector<struct ftl_stream *> s_;
    uint32_t page_bytes_;
    bool payload_;
    std::string last_error_;

    void b_transport(tlm::tlm_generic_payload &tx, sc_core::sc_time &delay);
    tlm::tlm_response_status fail(const char *what);
};

} // namespace fs

#endif
