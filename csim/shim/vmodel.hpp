// vmodel: the C++ half every shim shares. It owns a verilated model and its
// context, drives clk_i through whole cycles, and writes an FST trace limited
// to a cycle window and a scope list (see vtrace.h). Only shims include it:
// no C++ type crosses a shim's C header.
#ifndef CSIM_SHIM_VMODEL_HPP
#define CSIM_SHIM_VMODEL_HPP

#include "csim/shim/vtrace.h"

#include <verilated.h>
#include <verilated_fst_c.h>

#include <cerrno>
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
        return std::rename(tmp.c_str(), path_.c_str()) == 0 ? 0 : -errno;
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

#endif
