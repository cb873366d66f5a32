/* fs_core_be: see fs_core_be.h. */
#include "models/sc/fs_core_be.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "models/sc/fs_core.h"

namespace fs
{

/* Every fs_core_be alive, in the order they were built: the pool create() takes from. */
static std::vector<fs_core_be *> &pool()
{
    static std::vector<fs_core_be *> p;
    return p;
}

fs_core_be::fs_core_be(sc_core::sc_module_name name, const struct core_params &c)
    : sc_module(name), socket("socket"), cfg(c)
{
    pool().push_back(this);
}

fs_core_be::~fs_core_be()
{
    auto &p = pool();
    p.erase(std::remove(p.begin(), p.end(), this), p.end());
}

/* One row: len bytes at addr, as whole beats (a write's bytes past len masked off). */
int fs_core_be::row(bool wr, uint32_t addr, uint32_t len, unsigned char *data, struct err *e)
{
    uint32_t n = (len + CORE_DMA_BEAT - 1) / CORE_DMA_BEAT * CORE_DMA_BEAT;
    tlm::tlm_generic_payload tx;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;

    if (len == 0)
        return 0;
    row_.assign(n, 0);
    if (wr)
        std::memcpy(row_.data(), data, len);
    tx.set_command(wr ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    tx.set_address(addr);
    tx.set_data_ptr(row_.data());
    tx.set_data_length(n);
    tx.set_streaming_width(n);
    tx.set_byte_enable_ptr(nullptr);
    if (wr && n != len) {
        be_.assign(n, TLM_BYTE_DISABLED);
        std::fill(be_.begin(), be_.begin() + len, TLM_BYTE_ENABLED);
        tx.set_byte_enable_ptr(be_.data());
        tx.set_byte_enable_length(n);
    }
    tx.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    socket->b_transport(tx, delay);
    if (!tx.is_response_ok())
        return err_set(e, -EIO, "%s: %s of %u bytes at 0x%x: %s", name(), wr ? "write" : "read",
                       len, addr, tx.get_response_string().c_str());
    beats += n / CORE_DMA_BEAT;
    if (!wr)
        std::memcpy(data, row_.data(), len);
    return 0;
}

int fs_core_be::write(uint32_t addr, uint32_t stride, uint32_t rows, uint32_t len, const void *buf,
                      struct err *e)
{
    /* the caller's buffer is copied row by row before each row's wait */
    const unsigned char *b = static_cast<const unsigned char *>(buf);
    for (uint32_t i = 0; i < rows; i++) {
        int rc =
            row(true, addr + i * stride, len, const_cast<unsigned char *>(b + (size_t)i * len), e);
        if (rc)
            return rc;
    }
    return 0;
}

int fs_core_be::read(uint32_t addr, uint32_t stride, uint32_t rows, uint32_t len, void *buf,
                     struct err *e)
{
    unsigned char *b = static_cast<unsigned char *>(buf);
    for (uint32_t i = 0; i < rows; i++) {
        int rc = row(false, addr + i * stride, len, b + (size_t)i * len, e);
        if (rc)
            return rc;
    }
    return 0;
}

int fs_core_be::exec(const struct core_cmd *cmd, struct core_twin_result *res, struct err *e)
{
    unsigned char c[core_map::CMD_BYTES];
    uint32_t st[2];
    tlm::tlm_generic_payload tx;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;

    core_map::encode(*cmd, c);
    tx.set_command(tlm::TLM_WRITE_COMMAND);
    tx.set_address(core_map::CMD);
    tx.set_data_ptr(c);
    tx.set_data_length(sizeof(c));
    tx.set_streaming_width(sizeof(c));
    tx.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    socket->b_transport(tx, delay);
    if (tx.is_response_ok()) {
        tx.set_command(tlm::TLM_READ_COMMAND);
        tx.set_address(core_map::STATUS);
        tx.set_data_ptr(reinterpret_cast<unsigned char *>(st));
        tx.set_data_length(sizeof(st));
        tx.set_streaming_width(sizeof(st));
        tx.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        socket->b_transport(tx, delay);
    }
    if (!tx.is_response_ok())
        return err_set(e, -EIO, "%s: GEMM command: %s", name(), tx.get_response_string().c_str());
    gemms++;
    res->status = (enum core_status)st[0];
    res->cycles = st[1];
    return 0;
}

static bool same_cfg(const struct core_params &a, const struct core_params &b)
{
    return a.rows == b.rows && a.cols == b.cols && a.a_words == b.a_words &&
           a.b_words == b.b_words && a.c_words == b.c_words &&
           core_twin_stages(&a) == core_twin_stages(&b);
}

static int sc_create(const struct core_params *cfg, uint64_t seed, void **out, struct err *e)
{
    (void)seed; /* the verilated model's initial state is its own */
    for (fs_core_be *b : pool())
        if (!b->taken && same_cfg(b->cfg, *cfg)) {
            b->taken = true;
            *out = b;
            return 0;
        }
    return err_set(e, -EINVAL,
                   "models/sc: no free SystemC core of %u x %u with %u/%u/%u-word pads (%zu built: "
                   "build one fs_core_be per node, of the machine's core configuration)",
                   cfg->rows, cfg->cols, cfg->a_words, cfg->b_words, cfg->c_words, pool().size());
}

static void sc_destroy(void *h)
{
    static_cast<fs_core_be *>(h)->taken = false;
}

static int sc_write(void *h, uint32_t addr, uint32_t stride, uint32_t rows, uint32_t len,
                    const void *buf, struct err *e)
{
    return static_cast<fs_core_be *>(h)->write(addr, stride, rows, len, buf, e);
}

static int sc_read(void *h, uint32_t addr, uint32_t stride, uint32_t rows, uint32_t len, void *buf,
                   struct err *e)
{
    return static_cast<fs_core_be *>(h)->read(addr, stride, rows, len, buf, e);
}

static int sc_exec(void *h, const struct core_cmd *cmd, struct core_twin_result *res, struct err *e)
{
    return static_cast<fs_core_be *>(h)->exec(cmd, res, e);
}

/* No trace, cycle counter or DMA of its own: the node moves and times DMA commands itself. */
const struct core_be_ops core_be_sc_ops = {
    "sc",    sc_create, sc_destroy, sc_write, sc_read, sc_exec, nullptr,
    nullptr, nullptr,   nullptr,    nullptr,  nullptr, nullptr,
};

} // namespace fs
