/* fs_machine: see fs_machine.h. */
#include "models/sc/fs_machine.h"

#include <cerrno>
#include <cstdio>

#include "models/sc/fs_time.h"
#include "models/sc/fs_payload.h"

extern "C" {
#include "models/host/compile.h"
}

namespace fs
{

/* The command and its extension; false (and a COMMAND_ERROR response) without one. */
static fs_cmd_ext *command_of(tlm::tlm_generic_payload &tx)
{
    fs_cmd_ext *x = nullptr;
    tx.get_extension(x);
    if (!x || !x->cmd) {
        tx.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
        return nullptr;
    }
    return x;
}

/* The block's times into the transaction: delay += end - now, free_at in the extension. */
static void annotate(tlm::tlm_generic_payload &tx, fs_cmd_ext *x, uint64_t now, uint64_t end,
                     uint64_t free_at, sc_core::sc_time &delay)
{
    if (x->rc) {
        tx.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
        return;
    }
    delay += sct(end - now);
    x->free_at = free_at;
    tx.set_response_status(tlm::TLM_OK_RESPONSE);
}

template <typename Node>
void fs_node<Node>::b_transport(tlm::tlm_generic_payload &tx, sc_core::sc_time &delay)
{
    fs_cmd_ext *x = command_of(tx);
    if (!x)
        return;
    uint64_t now = x->now, end = now, free_at = now;
    if (async_ >> x->cmd->kind & 1) {
        if (job_) {
            x->rc = err_set(x->e, -EBUSY,
                            "models/sc: %s: command %u '%s' while command %u '%s' is in flight "
                            "(one asynchronous command at a time)",
                            name(), x->cmd->id, x->cmd->label, job_->id, job_->label);
            tx.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
            return;
        }
        job_prog_ = x->prog;
        job_ = x->cmd;
        job_now_ = now;
        job_ev_.notify();
        x->started = true;
        tx.set_response_status(tlm::TLM_OK_RESPONSE);
        return;
    }
    x->rc = fn_(node_, x->prog, x->cmd, now, &end, &free_at, x->e);
    commands++;
    annotate(tx, x, now, end, free_at, delay);
}

/* The asynchronous commands, one after the other, each at its own start. */
template <typename Node> void fs_node<Node>::worker()
{
    for (;;) {
        sc_core::wait(job_ev_);
        struct err e;
        uint64_t end = job_now_, free_at = job_now_;
        err_clear(&e);
        int rc = fn_(node_, job_prog_, job_, job_now_, &end, &free_at, &e);
        uint32_t id = job_->id;
        commands++;
        job_ = nullptr;
        to_->complete(id, rc, end, free_at, e);
    }
}

template <typename Node>
void fs_node<Node>::tb_transport(tlm::tlm_generic_payload &tx, sc_core::sc_time &delay)
{
    (void)delay;
    uint64_t a = tx.get_address(), len = tx.get_data_length();
    int rc = -1;
    if (!fs_payload_ok(tx, false))
        return;
    if (tx.is_read())
        rc = dram_read(mem_, a, tx.get_data_ptr(), len);
    else if (tx.is_write())
        rc = dram_write(mem_, a, tx.get_data_ptr(), len);
    tb_bytes += rc ? 0 : len;
    tx.set_response_status(rc ? tlm::TLM_ADDRESS_ERROR_RESPONSE : tlm::TLM_OK_RESPONSE);
}

template struct fs_node<struct wnode>;
template struct fs_node<struct anode>;

fs_fabric::fs_fabric(sc_core::sc_module_name name, struct machine *m)
    : sc_module(name), cmd("cmd"), to_wn("to_wn"), to_an("to_an"), m_(m)
{
    cmd.register_b_transport(this, &fs_fabric::b_transport);
}

/* One access to a node's tensor buffer; -ERANGE (with the region named) when it is refused. */
int fs_fabric::tb(tlm::tlm_generic_payload &tx, bool wn, uint32_t n, tlm::tlm_command cmd,
                  uint64_t addr, void *data, uint64_t len, const struct hc_cmd *c, struct err *e)
{
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    tx.set_command(cmd);
    tx.set_address(addr);
    tx.set_data_ptr(static_cast<unsigned char *>(data));
    tx.set_data_length((unsigned)len);
    tx.set_streaming_width((unsigned)len);
    tx.set_byte_enable_ptr(nullptr);
    tx.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    if (wn)
        to_wn->b_transport(tx, d);
    else
        to_an[n]->b_transport(tx, d);
    if (tx.is_response_ok())
        return 0;
    char node[16];
    std::snprintf(node, sizeof(node), wn ? "the WN" : "AN %u", n);
    return err_set(e, -ERANGE,
                   "command %u '%s': %s: %llu bytes at 0x%llx of %s's tensor buffer: %s", c->id,
                   c->label, name(), (unsigned long long)len, (unsigned long long)addr, node,
                   tx.get_response_string().c_str());
}

/* The bytes of command c, through the initiator sockets (fabric_*_data's work, over TLM). */
int fs_fabric::move(const struct hc_cmd *c, struct err *e)
{
    tlm::tlm_generic_payload tx;
    uint32_t N = machine_config(m_)->n_an;
    int rc;

    if (c->kind == HC_FABRIC_BCAST) {
        buf_.resize(c->bytes);
        if ((rc =
                 tb(tx, true, 0, tlm::TLM_READ_COMMAND, c->u.fab.src, buf_.data(), c->bytes, c, e)))
            return rc;
        for (uint32_t n = 0; n < N; n++)
            if ((rc = tb(tx, false, n, tlm::TLM_WRITE_COMMAND, c->u.fab.dst, buf_.data(), c->bytes,
                         c, e)))
                return rc;
        return 0;
    }
    size_t count = c->kind == HC_LOSS_GATHER ? 1 : c->bytes / 4;
    std::vector<float> part((size_t)(N + 1) * count);
    std::vector<const float *> ptr(N);
    for (uint32_t n = 0; n < N; n++) {
        ptr[n] = &part[(size_t)n * count];
        if ((rc = tb(tx, false, n, tlm::TLM_READ_COMMAND, c->u.fab.src, &part[(size_t)n * count],
                     count * 4, c, e)))
            return rc;
    }
    float *sum = &part[(size_t)N * count];
    fabric_reduce_f32(machine_fabric(m_), sum, ptr.data(), count);
    if (c->kind == HC_LOSS_GATHER) {
        machine_fabric_loss(m_, sum[0]);
        return 0;
    }
    return tb(tx, true, 0, tlm::TLM_WRITE_COMMAND, c->u.fab.dst, sum, count * 4, c, e);
}

void fs_fabric::b_transport(tlm::tlm_generic_payload &tx, sc_core::sc_time &delay)
{
    fs_cmd_ext *x = command_of(tx);
    if (!x)
        return;
    uint64_t now = x->now, end = now, free_at = now;
    x->rc = 0;
    if (machine_get_fidelity(m_) != MACHINE_PERF)
        x->rc = move(x->cmd, x->e);
    if (!x->rc)
        x->rc = machine_fabric_time(m_, x->cmd, x->ready, now, &end, &free_at);
    commands++;
    annotate(tx, x, now, end, free_at, delay);
}

fs_host::fs_host(sc_core::sc_module_name name, struct machine *m, uint64_t steps)
    : sc_module(name), to_wn("to_wn"), to_fabric("to_fabric"), to_an("to_an"), m_(m), steps_(steps)
{
    struct machine_port port = {exec, run_kernel, this};
    machine_set_port(m_, &port);
    SC_HAS_PROCESS(fs_host);
    SC_THREAD(run);
}

fs_host::~fs_host()
{
    machine_set_port(m_, nullptr);
}

int fs_host::exec(void *user, const struct hc_prog *p, const struct hc_cmd *c,
                  const uint64_t *ready, uint64_t now, uint64_t *end, uint64_t *free_at,
                  struct err *e)
{
    fs_host *h = static_cast<fs_host *>(user);
    tlm::tlm_generic_payload tx;
    fs_cmd_ext x;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;

    /* the machine starts a command at its own time, which fs_run_kernel keeps equal to
     * SystemC's, or (asynchronous commands ran) behind it */
    if (now > now_ps() || (now < now_ps() && !h->async))
        return err_set(e, -EPROTO,
                       "models/sc: command %u starts at %llu ps while SystemC is at %llu ps", c->id,
                       (unsigned long long)now, (unsigned long long)now_ps());
    if (now_ps() - now > h->max_lag_ps)
        h->max_lag_ps = now_ps() - now;
    x.prog = p;
    x.cmd = c;
    x.ready = ready;
    x.now = now;
    x.e = e;
    tx.set_command(tlm::TLM_IGNORE_COMMAND);
    tx.set_address(c->id);
    tx.set_data_ptr(nullptr);
    tx.set_data_length(0);
    tx.set_streaming_width(0);
    tx.set_extension(&x);
    tx.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    if (ready)
        h->to_fabric->b_transport(tx, delay);
    else if (c->node == HC_WN)
        h->to_wn->b_transport(tx, delay);
    else
        h->to_an[c->node]->b_transport(tx, delay);
    tx.clear_extension(&x);
    if (tx.get_response_status() == tlm::TLM_COMMAND_ERROR_RESPONSE)
        return err_set(e, -EPROTO, "models/sc: command %u: the target found no command", c->id);
    if (x.rc)
        return x.rc;
    if (x.started) {
        h->started++;
        h->g_.inflight++;
        return MACHINE_PORT_STARTED;
    }
    *end = now + ps(delay);
    *free_at = x.free_at;
    return 0;
}

void fs_host::complete(uint32_t id, int rc, uint64_t end, uint64_t free_at, const struct err &e)
{
    machine_port_done(m_, id, rc, end, free_at, &e); /* a failure fails the step */
    g_.inflight--;
    g_.done.notify();
}

int fs_host::run_kernel(void *user, struct sim *sim, struct err *e)
{
    fs_host *h = static_cast<fs_host *>(user);
    return fs_run_kernel(sim, e, h->async ? &h->g_ : nullptr);
}

void fs_host::run()
{
    for (uint64_t k = 0; k < steps_; k++) {
        step_result r;
        struct err e;
        err_clear(&e);
        /* the machine's time leads between steps (its preload, input loads): SystemC follows */
        if (machine_now(m_) > now_ps())
            wait(sct(machine_now(m_) - now_ps()));
        r.rc = machine_step(m_, &r.info, &e);
        r.sc_end_ps = now_ps();
        r.msg = e.msg;
        if (!r.rc) {
            const uint64_t *s, *en;
            size_t n;
            machine_cmd_times(m_, &s, &en, &n);
            r.cmd_start.assign(s, s + n);
            r.cmd_end.assign(en, en + n);
        }
        res_.push_back(r);
        if (r.rc)
            break;
    }
    sc_core::sc_stop();
}

fs_platform::fs_platform(struct machine *m, uint64_t steps, uint32_t async_an)
    : wn("wn", machine_wnode(m), wnode_exec, wnode_tb(machine_wnode(m))), fabric("fabric", m),
      host("host", m, steps)
{
    uint32_t n = machine_config(m)->n_an;
    host.async = async_an != 0;
    host.to_wn.bind(wn.cmd);
    host.to_fabric.bind(fabric.cmd);
    fabric.to_wn.bind(wn.tb);
    for (uint32_t i = 0; i < n; i++) {
        struct anode *a = machine_anode(m, i);
        an.push_back(new fs_an(("an" + std::to_string(i)).c_str(), a, anode_exec, anode_tb(a)));
        host.to_an.bind(an.back()->cmd);
        an.back()->go_async(async_an, &host);
        fabric.to_an.bind(an.back()->tb);
    }
}

fs_platform::~fs_platform()
{
    for (fs_an *a : an)
        delete a;
}

} // namespace fs
