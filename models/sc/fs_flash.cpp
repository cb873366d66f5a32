/* fs_flash: see fs_flash.h. */
#include "models/sc/fs_flash.h"

#include <cstring>

#include "models/sc/fs_time.h"
#include "models/sc/fs_payload.h"

namespace fs
{

fs_flash::fs_flash(sc_core::sc_module_name name, struct flash_ctrl *ctrl,
                   const std::vector<struct ftl_stream *> &streams)
    : sc_module(name), socket("socket"), ctrl_(ctrl), s_(streams),
      page_bytes_(flash_fms_cfg(ctrl->fms)->geom.page_bytes),
      payload_(flash_fms_cfg(ctrl->fms)->sw.store_payload)
{
    socket.register_b_transport(this, &fs_flash::b_transport);
}

tlm::tlm_response_status fs_flash::fail(const char *what)
{
    last_error_ = std::string(name()) + ": " + what;
    return tlm::TLM_ADDRESS_ERROR_RESPONSE;
}

/* The controller delivers each page's bytes at the tensor-buffer address of the request: here
 * the offset into the payload's data array (the request's tb_addr is 0). */
static int deliver(void *user, uint64_t addr, const void *data, uint32_t len, uint64_t t,
                   uint64_t *t_done)
{
    (void)t;
    (void)t_done;
    if (data)
        std::memcpy(static_cast<unsigned char *>(user) + addr, data, len);
    return 0;
}

void fs_flash::b_transport(tlm::tlm_generic_payload &tx, sc_core::sc_time &delay)
{
    uint64_t a = tx.get_address(), off = a & OFFSET_MASK, len = tx.get_data_length();
    uint64_t now = now_ps() + ps(delay), done = now;
    unsigned i = (unsigned)(a >> STREAM_SHIFT);
    struct err e;
    int rc;

    err_clear(&e);
    if (!fs_payload_ok(tx, false))
        return;
    if (i >= s_.size()) {
        tx.set_response_status(fail("stream index (address bits 63..56) out of range"));
        return;
    }
    if (len == 0) {
        tx.set_response_status(fail("a transfer of 0 bytes"));
        return;
    }
    /* No data pointer: the transaction is timed only (no bytes move), as with a timing-only
     * flash model. */
    bool data = payload_ && tx.get_data_ptr();
    if (tx.is_read()) {
        struct flash_ctrl_req rq = {off / page_bytes_, (uint32_t)(off % page_bytes_), len, 0};
        struct flash_ctrl_sink sink = {deliver, tx.get_data_ptr()};
        rc = flash_ctrl_read(ctrl_, s_[i], now, &rq, data ? &sink : nullptr, &done, &e);
    } else if (tx.is_write()) {
        if (off % page_bytes_ || len % page_bytes_) {
            tx.set_response_status(fail("a write must cover whole pages (address and length "
                                        "multiples of the page size)"));
            return;
        }
        rc = ftl_stream_write(s_[i], now, off / page_bytes_, len / page_bytes_,
                              data ? tx.get_data_ptr() : nullptr, &done, &e);
    } else {
        tx.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
        return;
    }
    if (rc) {
        tx.set_response_status(fail(e.msg));
        return;
    }
    delay += sct(done - now);
    tx.set_response_status(tlm::TLM_OK_RESPONSE);
}

} // namespace fs
