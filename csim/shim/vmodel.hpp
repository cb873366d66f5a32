// vmodel: the C++ half every shim shares. It owns a verilated model and its
// context, drives clk_i through whole cycles, and writes an FST trace limited
// to a cycle window and a scope list (see vtrace.h). Only shims include it:
// no C++ type crosses a shim's C header.
//
// A shim is then its block's ports and parameters and one VMODEL_SHIM line (below),
// which writes the C functions every shim has, named <block>_rtl_*.
#ifndef CSIM_SHIM_VMODEL_HPP
#define CSIM_SHIM_VMODEL_HPP

#include "csim/shim/vtrace.h"

#include <verilated.h>
#include <verilated_fst_c.h>

#include <cassert>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

template <class Top> class VModel
{
  public:
    // seed drives --x-initial unique: every register starts from a
    // seed-dependent random value, so a missing reset shows up in tests.
    explicit VModel(uint64_t seed) : ctx_(new VerilatedContext)
    {
        ctx_->randReset(2);
        ctx_->randSeed(static_cast<int>(seed & 0x7fffffff));
        ctx_->traceEverOn(true);
        top_.reset(new Top(ctx_.get(), "TOP"));
        top_->clk_i = 0;
        top_->eval();
    }

    // The owner reports a failed rename through trace_close() before this; here nobody can.
    ~VModel()
    {
        trace_close();
        top_->final();
    }

    Top *top()
    {
        return top_.get();
    }
    uint64_t cycle() const
    {
        return cycle_;
    }

    // Settle combinational outputs after inputs changed.
    void settle()
    {
        top_->eval();
    }

    // Advance n whole clock cycles (rising edge, then falling edge).
    void step(uint64_t n)
    {
        while (n--) {
            top_->clk_i = 1;
            top_->eval();
            dump(cycle_ * period_ps_ + 0);
            top_->clk_i = 0;
            top_->eval();
            dump(cycle_ * period_ps_ + period_ps_ / 2);
            cycle_++;
        }
    }

    // Account for n cycles in which nothing changes (inputs steady, no
    // state to update), without evaluating them: the idle-skip of the event
    // kernel's clock domains. Waves stay on the true simulated time line.
    void skip(uint64_t n)
    {
        cycle_ += n;
    }

    // Open an FST trace; returns 0 or a negative errno.
    int trace_open(const vtrace_opts *o)
    {
        if (!o || !o->path || !*o->path || fst_)
            return -EINVAL;
        if (o->last_cycle < o->first_cycle)
            return -EINVAL;
        path_ = o->path;
        first_ = o->first_cycle;
        last_ = o->last_cycle;
        period_ps_ = o->period_ps ? o->period_ps : 1000;
        fst_.reset(new VerilatedFstC);
        add_scopes(o->scopes);
        top_->trace(fst_.get(), 99);
        fst_->set_time_unit("1ps");
        fst_->set_time_resolution("1ps");
        std::string tmp = path_ + ".tmp";
        fst_->open(tmp.c_str());
        if (!fst_->isOpen()) {
            fst_.reset();
            return -EIO;
        }
        return 0;
    }

    // Close the trace and move it into place; returns 0 or a negative errno.
    int trace_close()
    {
        if (!fst_)
            return 0;
        fst_->close();
        fst_.reset();
        std::string tmp = path_ + ".tmp";
        if (std::rename(tmp.c_str(), path_.c_str()) == 0)
            return 0;
        int rc = -errno;
        std::remove(tmp.c_str()); // a failed trace leaves nothing behind, as the C writers
        return rc;
    }

  private:
    void dump(uint64_t t)
    {
        if (fst_ && cycle_ >= first_ && cycle_ <= last_)
            fst_->dump(t);
    }

    void add_scopes(const char *scopes)
    {
        if (!scopes || !*scopes)
            return;
        std::string s(scopes);
        size_t pos = 0;
        while (pos <= s.size()) {
            size_t comma = s.find(',', pos);
            if (comma == std::string::npos)
                comma = s.size();
            if (comma > pos)
                fst_->dumpvars(99, s.substr(pos, comma - pos)); // every level below
            pos = comma + 1;
        }
    }

    std::unique_ptr<VerilatedContext> ctx_;
    std::unique_ptr<Top> top_;
    std::unique_ptr<VerilatedFstC> fst_;
    std::string path_;
    uint64_t cycle_ = 0, first_ = 0, last_ = 0, period_ps_ = 1000;
};

// VMODEL_SHIM(block): the functions of block's C interface (csim/shim/<block>.h) that every
// shim has, leaving the shim only its ports and parameters. It defines struct block_rtl, a
// VModel of the verilated top VTOP, and
//   block_rtl_create, _destroy, _step, _cycle, _trace, _trace_close: VModel's;
//   block_rtl_set(p, in):   drive(top, in), with the shim's
//                           static void drive(VTOP *, const struct block_in *);
//   block_rtl_get(p, out):  settle, then sample(top, out), with the shim's
//                           static void sample(const VTOP *, struct block_out *).
// VMODEL_SHIM_PARAMS(block) adds block_rtl_params(p, out): params(out), with the shim's
// static void params(struct block_params *) (the parameters it was verilated with: P_<Name>).
// VMODEL_SHIM_SKIP(block) adds block_rtl_skip(p, cycles): VModel::skip.
#define VMODEL_SHIM(block)                                                                         \
    struct block##_rtl {                                                                           \
        VModel<VTOP> m;                                                                            \
        explicit block##_rtl(uint64_t seed) : m(seed)                                              \
        {                                                                                          \
        }                                                                                          \
    };                                                                                             \
    extern "C" struct block##_rtl *block##_rtl_create(uint64_t seed)                               \
    {                                                                                              \
        return new block##_rtl(seed);                                                              \
    }                                                                                              \
    extern "C" void block##_rtl_destroy(struct block##_rtl *p)                                     \
    {                                                                                              \
        delete p;                                                                                  \
    }                                                                                              \
    extern "C" void block##_rtl_set(struct block##_rtl *p, const struct block##_in *in)            \
    {                                                                                              \
        assert(p);                                                                                 \
        assert(in);                                                                                \
        drive(p->m.top(), in);                                                                     \
    }                                                                                              \
    extern "C" void block##_rtl_get(struct block##_rtl *p, struct block##_out *out)                \
    {                                                                                              \
        assert(p);                                                                                 \
        assert(out);                                                                               \
        p->m.settle();                                                                             \
        sample(p->m.top(), out);                                                                   \
    }                                                                                              \
    extern "C" void block##_rtl_step(struct block##_rtl *p, uint64_t cycles)                       \
    {                                                                                              \
        assert(p);                                                                                 \
        p->m.step(cycles);                                                                         \
    }                                                                                              \
    extern "C" uint64_t block##_rtl_cycle(const struct block##_rtl *p)                             \
    {                                                                                              \
        assert(p);                                                                                 \
        return p->m.cycle();                                                                       \
    }                                                                                              \
    extern "C" int block##_rtl_trace(struct block##_rtl *p, const struct vtrace_opts *opts)        \
    {                                                                                              \
        assert(p);                                                                                 \
        return p->m.trace_open(opts);                                                              \
    }                                                                                              \
    extern "C" int block##_rtl_trace_close(struct block##_rtl *p)                                  \
    {                                                                                              \
        assert(p);                                                                                 \
        return p->m.trace_close();                                                                 \
    }

#define VMODEL_SHIM_PARAMS(block)                                                                  \
    extern "C" void block##_rtl_params(const struct block##_rtl *p, struct block##_params *out)    \
    {                                                                                              \
        assert(p);                                                                                 \
        assert(out);                                                                               \
        params(out);                                                                               \
    }

#define VMODEL_SHIM_SKIP(block)                                                                    \
    extern "C" void block##_rtl_skip(struct block##_rtl *p, uint64_t cycles)                       \
    {                                                                                              \
        assert(p);                                                                                 \
        p->m.skip(cycles);                                                                         \
    }

#endif
