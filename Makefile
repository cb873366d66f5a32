# flashstream: build, test and run the co-simulator.
#
# `make` alone prints the targets. Every target that needs tools first runs
# scripts/setup-deps.sh, which installs what is missing from Debian's packages
# and returns at once when everything is there.
#
# Layout of the build tree ($(BUILD)):
#   rel/    C libraries and programs, -O2          (sim, bench)
#   san/    C libraries and unit tests, sanitizers (test)
#           libflashstream.a: csim/ and models/; libtbenv.a: the test environments
#   vlt/rt  the Verilator runtime, compiled once and shared by every model
#   vlt/<model>/  one verilated RTL top with its C shim
#   logs/   one log per test suite

.DEFAULT_GOAL := help
SHELL := /bin/bash
.DELETE_ON_ERROR:
.SECONDARY:
.SUFFIXES:

BUILD ?= build
SEED  ?= 1

# One short line per step (CC models/dma/dma_twin.c, VERILATE an_8x8); V=1 prints the commands.
V ?= 0
ifeq ($(V),1)
msg :=
quiet :=
else
msg = @printf '  %-9s %s\n' '$(1)' '$(2)';
quiet := >/dev/null
endif

CC  := gcc
CXX := g++

# ---------------------------------------------------------------- C flags
CPPFLAGS  := -I. -D_POSIX_C_SOURCE=200809L -MMD -MP
CWARN     := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Werror
# No FMA contraction, no fast-math: bit-exact floating point is the contract.
CFP       := -ffp-contract=off
CFLAGS    := -std=c11 -g $(CWARN) $(CFP)
REL_OPT   := -O2
SAN_OPT   := -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
LDLIBS    := -lcmocka -lcjson -linih -lz -lm

# ---------------------------------------------------------------- Verilator
VROOT     := /usr/share/verilator
VINC      := -I$(VROOT)/include -I$(VROOT)/include/vltstd
VDEFS     := -DVM_COVERAGE=0 -DVM_SC=0 -DVM_TRACE=1 -DVM_TRACE_FST=1 -DVM_TRACE_VCD=0
VCXXFLAGS := -std=gnu++17 -O2 -g0 -faligned-new -Wno-unused-parameter $(VINC) $(VDEFS)
VLIBS     := -lstdc++ -lpthread -latomic -lz -lm
# The models' evaluation code (OPT_FAST): a big array's is tens of kilobytes of
# straight-line code run once per cycle, more than the L1 instruction cache,
# so its speed follows its size: no padding for jump targets, simple block
# ordering (the speeds: rtl/core/README.md, Performance).
VOPT_FAST := -O2 -fno-align-jumps -fno-align-labels -fno-align-loops -falign-functions=16 \
             -freorder-blocks-algorithm=simple
VFLAGS    += --cc                    # C++ model; C reaches it through a shim
VFLAGS    += -Wall                   # every lint warning is an error
VFLAGS    += --assert                # immediate assertions run in every build
VFLAGS    += --trace-fst             # FST tracing, switched on from C per run
VFLAGS    += --trace-structs         # structs readable in GTKWave
VFLAGS    += --x-assign unique       # X assignments become random values ...
VFLAGS    += --x-initial unique      # ... and so do initial values (seeded)
VFLAGS    += --output-split-cfuncs 200   # bounded function size: g++ time
VFLAGS    += --output-split-ctrace 200   # stays linear for big arrays
VFLAGS    += -O3                     # Verilator's own optimizations

RTL_DIRS  := $(sort $(dir $(wildcard rtl/*/*.v)))
RTL_SRCS  := $(wildcard rtl/*/*.v)

# ---------------------------------------------------------------- sources
LIB_SRCS  := $(wildcard csim/*.c models/*/*.c)
REL_OBJS  := $(LIB_SRCS:%.c=$(BUILD)/rel/%.o)
SAN_OBJS  := $(LIB_SRCS:%.c=$(BUILD)/san/%.o)
REL_LIB   := $(BUILD)/rel/libflashstream.a
SAN_LIB   := $(BUILD)/san/libflashstream.a

# The tests, benchmarks and test environments of a block live in testbench/<block>/, the kind
# in the file name: test_<unit>.c (cmocka, sanitized), test_<name>_rtl.c (with verilated
# models, registered by the block's block.mk), bench_<name>.c, and the rest test environments:
# bus-functional models and scenario generators that surround a block under test, shared by
# its tests and benchmarks, built as a small library of their own (sanitized for the tests,
# -O2 for the benchmarks) linked before the model library, so that no model can come to
# depend on one. testbench/flashstream/ is the program; testbench/fuzz/ the fuzz harnesses;
# testbench/*.[ch] the helpers every test shares.
TB_DIRS   := $(filter-out testbench/fuzz/,$(sort $(dir $(wildcard testbench/*/*.c))))
TB_KINDED := $(wildcard $(addsuffix test_*.c,$(TB_DIRS)) $(addsuffix bench_*.c,$(TB_DIRS)))
ENV_SRCS  := testbench/rand_data.c \
             $(filter-out $(TB_KINDED) testbench/flashstream/%,$(wildcard $(addsuffix *.c,$(TB_DIRS))))
REL_ENV   := $(BUILD)/rel/libtbenv.a
SAN_ENV   := $(BUILD)/san/libtbenv.a

UNIT_SRCS := $(filter-out %_rtl.c,$(wildcard $(addsuffix test_*.c,$(TB_DIRS))))
UNIT_BINS := $(foreach s,$(UNIT_SRCS),$(BUILD)/san/tests/$(basename $(notdir $(s))))
# Benchmarks of C models only; those that need a verilated model are
# registered with vbench by their block and listed in VBENCH_SRCS there.
BENCH_SRCS = $(filter-out $(VBENCH_SRCS),$(wildcard $(addsuffix bench_*.c,$(TB_DIRS))))
TB_OBJS   := $(BUILD)/san/testbench/tb_util.o

VRT_SRCS  := verilated.cpp verilated_threads.cpp verilated_fst_c.cpp
VRT_LIB   := $(BUILD)/vlt/rt/libverilated.a

# Filled in by the block fragments below.
RTL_TESTS :=
BENCH_BINS:=
SUITES    :=

# ---------------------------------------------------------------- help
.PHONY: help
help:  ## this list
	@echo "flashstream: co-simulator of a flash-centric, weight-streaming DNN training accelerator"
	@echo
	@echo "usage: make <target> [SEED=n] [BUILD=dir] [EPOCHS=n] [RUN=name]"
	@echo
	@grep -hE '^[a-z][a-z-]*:.*## ' $(MAKEFILE_LIST) | \
	    awk -F':.*## ' '{ printf "  %-10s %s\n", $$1, $$2 }'

.PHONY: deps
deps:  ## install missing Debian packages (idempotent, needs root)
	@scripts/setup-deps.sh

# Compiling needs the tools: the first build runs the setup once.
$(BUILD)/.deps-ok: scripts/setup-deps.sh
	@scripts/setup-deps.sh
	@mkdir -p $(@D) && touch $@

# ---------------------------------------------------------------- C library
$(BUILD)/rel/%.o: %.c | $(BUILD)/.deps-ok
	@mkdir -p $(@D)
	$(call msg,CC,$<)$(CC) $(CPPFLAGS) $(CFLAGS) $(REL_OPT) -c $< -o $@

$(BUILD)/san/%.o: %.c | $(BUILD)/.deps-ok
	@mkdir -p $(@D)
	$(call msg,CC-SAN,$<)$(CC) $(CPPFLAGS) $(CFLAGS) $(SAN_OPT) -c $< -o $@

$(REL_LIB): $(REL_OBJS)
	@mkdir -p $(@D)
	$(call msg,AR,$@)rm -f $@ && ar rcs $@ $^

$(SAN_LIB): $(SAN_OBJS)
	@mkdir -p $(@D)
	$(call msg,AR,$@)rm -f $@ && ar rcs $@ $^

$(REL_ENV): $(ENV_SRCS:%.c=$(BUILD)/rel/%.o)
	@mkdir -p $(@D)
	$(call msg,AR,$@)rm -f $@ && ar rcs $@ $^

$(SAN_ENV): $(ENV_SRCS:%.c=$(BUILD)/san/%.o)
	@mkdir -p $(@D)
	$(call msg,AR,$@)rm -f $@ && ar rcs $@ $^

# cmocka unit tests: one binary per testbench/<block>/test_<unit>.c, sanitized.
define unit_test
$(BUILD)/san/tests/$(basename $(notdir $(1))): $(BUILD)/san/$(1:.c=.o) $(SAN_ENV) $(SAN_LIB)
	@mkdir -p $$(@D)
	$(call msg,LD,$$@)$(CC) $(SAN_OPT) $$^ $(LDLIBS) -o $$@
endef
$(foreach s,$(UNIT_SRCS),$(eval $(call unit_test,$(s))))

# test_cli tests the option tables of the flashstream program: cli.c is the program's, not the
# library's, so it is linked by name here (the pattern rule above gives the recipe).
$(BUILD)/san/tests/test_cli: $(BUILD)/san/testbench/flashstream/cli.o

# Benchmarks of C models only (those with verilated models are registered with vbench).
define bench
$(BUILD)/rel/bench/$(basename $(notdir $(1))): $(BUILD)/rel/$(1:.c=.o) $(REL_ENV) $(REL_LIB)
	@mkdir -p $$(@D)
	$(call msg,LD,$$@)$(CC) $$^ $(LDLIBS) -o $$@
endef

# ---------------------------------------------------------------- Verilator
$(BUILD)/vlt/rt/%.o: $(VROOT)/include/%.cpp | $(BUILD)/.deps-ok
	@mkdir -p $(@D)
	$(call msg,CXX,$<)$(CXX) $(VCXXFLAGS) -c $< -o $@

$(VRT_LIB): $(VRT_SRCS:%.cpp=$(BUILD)/vlt/rt/%.o)
	$(call msg,AR,$@)rm -f $@ && ar rcs $@ $^

# $(call vmodel,MODEL,TOP,PARAMS,SHIM,SHIM_DEFS)
#   Verilate RTL module TOP with parameters PARAMS ("Name=value ...") into
#   C++ class V<MODEL>, and compile csim/shim/<SHIM>.cpp against it. The shim
#   sees VTOP, VTOP_H and P_<Name> for each parameter, plus SHIM_DEFS.
#   Result: $(BUILD)/vlt/MODEL/{shim.o,V<MODEL>__ALL.a}, linked with $(VRT_LIB).
#   VFLAGS_<MODEL>, if a block.mk sets it, is added after VFLAGS (the later
#   of two values of an option wins), e.g. a model-specific function split.
define vmodel
$(BUILD)/vlt/$(1)/V$(1).mk: $(RTL_SRCS) | $(BUILD)/.deps-ok
	@mkdir -p $$(@D)
	$(call msg,VERILATE,$(1))verilator $(VFLAGS) $(VFLAGS_$(1)) $(addprefix -y ,$(RTL_DIRS)) --top-module $(2) \
	    --prefix V$(1) --Mdir $$(@D) $(addprefix -G,$(3)) \
	    $$(firstword $$(wildcard $$(addsuffix $(2).v,$(RTL_DIRS))))
	@touch $$@ # Verilator leaves an up-to-date model's files as they were (--skip-identical)

$(call vmodel_objs,$(1),$(4),$(3),$(5))
endef

# $(call vmodel_objs,MODEL,SHIM,PARAMS,SHIM_DEFS): the verilated model's archive and its shim.
define vmodel_objs
$(BUILD)/vlt/$(1)/V$(1)__ALL.a: $(BUILD)/vlt/$(1)/V$(1).mk
	$(call msg,VCXX,$(1))$$(MAKE) --no-print-directory -s -C $$(@D) -f V$(1).mk V$(1)__ALL.a \
	    OPT_FAST="$(VOPT_FAST)" OPT_SLOW=-O1 OPT_GLOBAL=-O2 CXX="$(CXX)" $(quiet)
	@touch $$@

$(BUILD)/vlt/$(1)/shim.o: csim/shim/$(2).cpp $(BUILD)/vlt/$(1)/V$(1)__ALL.a
	$(call msg,CXX,csim/shim/$(2).cpp ($(1)))$(CXX) $(VCXXFLAGS) -I. -I$$(@D) -MMD -MP -DVTOP=V$(1) '-DVTOP_H="V$(1).h"' \
	    $(addprefix -DP_,$(3)) $(4) -c $$< -o $$@

-include $(wildcard $(BUILD)/vlt/$(1)/shim.d)
endef

# $(call vgate,MODEL,TOP,PARAMS,SHIM,SHIM_DEFS)
#   The post-synthesis model of TOP with PARAMS: the netlist Yosys writes for the iCE40
#   (scripts/synth/gate_ice40.sh: synth_ice40, LUT4s, carries, flip-flops, block RAMs)
#   verilated with Yosys' own models of those cells into V<MODEL>, behind the same shim as
#   the RTL's, at the same paths as vmodel's, so that vtest links the same block test to it.
#   The netlist has no assertions (they are the RTL's); its flip-flops start at 0, as the
#   iCE40's do, where the RTL's start at random values.
VGFLAGS := --cc --trace-fst -O3 --x-assign unique --x-initial unique \
           --output-split-cfuncs 200 --output-split-ctrace 200 \
           -Wall -Wno-lint -Wno-style -Wno-UNOPTFLAT -Wno-TIMESCALEMOD \
           +define+NO_ICE40_DEFAULT_ASSIGNMENTS
ICE40_CELLS := /usr/share/yosys/ice40/cells_sim.v
define vgate
$(BUILD)/vlt/$(1)/netlist.v: $(RTL_SRCS) scripts/synth/gate_ice40.sh | $(BUILD)/.deps-ok
	@mkdir -p $$(@D)
	$(call msg,SYNTH,$(1))scripts/synth/gate_ice40.sh $(2) '$(3)' $$@

$(BUILD)/vlt/$(1)/V$(1).mk: $(BUILD)/vlt/$(1)/netlist.v
	$(call msg,VERILATE,$(1))verilator $(VGFLAGS) --top-module $(2) --prefix V$(1) --Mdir $$(@D) \
	    $$< $(ICE40_CELLS)
	@touch $$@

$(call vmodel_objs,$(1),$(4),$(3),$(5))
endef

# $(call vtest,NAME,SOURCE,MODELS)
#   Block test testbench/SOURCE.c (<block>/test_<name>_rtl) linked with the verilated MODELS,
#   built as $(BUILD)/san/tests/NAME. The test's C code runs under the sanitizers.
define vtest
$(BUILD)/san/tests/$(1): $(BUILD)/san/testbench/$(2).o $(TB_OBJS) \
                         $(foreach m,$(3),$(BUILD)/vlt/$(m)/shim.o $(BUILD)/vlt/$(m)/V$(m)__ALL.a) \
                         $(VRT_LIB) $(SAN_ENV) $(SAN_LIB)
	@mkdir -p $$(@D)
	$(call msg,LD,$(BUILD)/san/tests/$(1))$(CXX) $(SAN_OPT) $$^ $(LDLIBS) $(VLIBS) -o $$@
RTL_TESTS += $(BUILD)/san/tests/$(1)
endef

# $(call vbench,NAME,SOURCE,MODELS)
#   Benchmark testbench/SOURCE.c (<block>/bench_<name>) linked with the verilated MODELS
#   (space-separated), optimized, built as $(BUILD)/rel/bench/NAME.
define vbench
$(BUILD)/rel/bench/$(1): $(BUILD)/rel/testbench/$(2).o \
        $(foreach m,$(3),$(BUILD)/vlt/$(m)/shim.o $(BUILD)/vlt/$(m)/V$(m)__ALL.a) \
        $(VRT_LIB) $(REL_ENV) $(REL_LIB)
	@mkdir -p $$(@D)
	$(call msg,LD,$(BUILD)/rel/bench/$(1))$(CXX) $$^ $(LDLIBS) $(VLIBS) -o $$@
BENCH_BINS += $(BUILD)/rel/bench/$(1)
endef

# Each RTL block registers its models, tests and benchmarks in its block.mk.
include $(sort $(wildcard rtl/*/block.mk))

# ---------------------------------------------------------------- system
# What is assembled from the blocks rather than one block: the training machine
# (models/machine/machine) and the programs that run it. Registered here, after every
# block.mk, because they use the blocks' models (rtl/ holds only RTL blocks, each with its
# block.mk).
#
# test_system_rtl: the machine of machine_cfg_small (an 8 x 8 core with 512-word pads:
# rtl/core's core_8x8) with the verilated core and write lanes (nfw_lanes_small) in the loop, and
# with the whole Activation Node datapath (rtl/an's an_8x8: DMA and core) in the loop.
$(eval $(call vtest,test_system_rtl,machine/test_system_rtl,core_8x8 an_8x8 nfw_lanes_small))

# The flashstream program: its commands and the verilated models they run.
FS_SRCS   := $(filter-out $(TB_KINDED),$(wildcard testbench/flashstream/*.c))
FS_MODELS := cmn_fifo_w32_d8 an_8x8_p4k nfw_lanes_paper
FLASHSTREAM := $(BUILD)/rel/flashstream
$(FLASHSTREAM): $(FS_SRCS:%.c=$(BUILD)/rel/%.o) \
                $(foreach m,$(FS_MODELS),$(BUILD)/vlt/$(m)/shim.o $(BUILD)/vlt/$(m)/V$(m)__ALL.a) \
                $(VRT_LIB) $(REL_LIB)
	$(call msg,LD,$@)$(CXX) $^ $(LDLIBS) $(VLIBS) -o $@

# libFuzzer harnesses (testbench/fuzz/fuzz_<target>.c): clang, with the library and cli.c
# compiled again, sanitized and instrumented, into an object tree of their own.
FUZZ_SRCS := $(wildcard testbench/fuzz/fuzz_*.c)
FUZZ_BINS := $(FUZZ_SRCS:testbench/fuzz/%.c=$(BUILD)/fuzz/%)
FUZZ_OBJS := $(LIB_SRCS:%.c=$(BUILD)/fuzz/obj/%.o)
FUZZ_OPT  := -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
$(BUILD)/fuzz/obj/%.o: %.c | $(BUILD)/.deps-ok
	@mkdir -p $(@D)
	$(call msg,CC-FUZZ,$<)clang $(CPPFLAGS) $(CFLAGS) $(FUZZ_OPT) -fsanitize=fuzzer-no-link -c $< -o $@
$(BUILD)/fuzz/libflashstream.a: $(FUZZ_OBJS)
	$(call msg,AR,$@)rm -f $@ && ar rcs $@ $^
$(BUILD)/fuzz/fuzz_%: $(BUILD)/fuzz/obj/testbench/fuzz/fuzz_%.o $(BUILD)/fuzz/obj/testbench/fuzz/scratch.o \
                      $(BUILD)/fuzz/obj/testbench/flashstream/cli.o $(BUILD)/fuzz/libflashstream.a
	$(call msg,LD,$@)clang $(FUZZ_OPT) -fsanitize=fuzzer $^ $(LDLIBS) -o $@

# The SystemC/TLM-2.0 layer: its rules, binaries (SC_BINS) and suites.
include models/sc/sc.mk

ALL_TESTS := $(UNIT_BINS) $(RTL_TESTS)
$(foreach s,$(BENCH_SRCS),$(eval $(call bench,$(s))))
BENCH_BINS += $(foreach s,$(BENCH_SRCS),$(BUILD)/rel/bench/$(basename $(notdir $(s))))

.PHONY: sim
sim: deps  ## fc-mnist on Fashion-MNIST, 4 ANs: first step rtl with waves, rest of one epoch tlm
	@$(MAKE) --no-print-directory $(FLASHSTREAM)
	$(FLASHSTREAM) train --config configs/fc-mnist.ini --run sim --epochs 1 --nodes 4 --rtl-steps 1 \
	    --wave-cycles 20000 --seed $(SEED)
	@scripts/plots/plot.sh out/sim

EPOCHS ?= 10
.PHONY: train
train: deps  ## fc-mnist to full accuracy: 4 ANs, EPOCHS (10) epochs in tlm; out/train
	@$(MAKE) --no-print-directory $(FLASHSTREAM)
	$(FLASHSTREAM) train --config configs/fc-mnist.ini --run train --epochs $(EPOCHS) --nodes 4 \
	    --no-waves --seed $(SEED)
	@scripts/plots/plot.sh out/train

RUN ?= sim
.PHONY: plots
plots:  ## loss, accuracy and timeline PNGs of out/RUN (RUN=sim by default)
	@scripts/plots/plot.sh out/$(RUN)

.PHONY: build
build: $(ALL_TESTS) $(BENCH_BINS) $(FLASHSTREAM) $(FUZZ_BINS) $(SC_BINS) ## compile every library, model, test and program

# ---------------------------------------------------------------- test
# Every suite counts: the unit and block tests (cmocka TAP lines), lint, and
# the waveform check. The last line reads "N passed, M failed". The suites run
# one per core after the build, the longest (formal, a third of the time) first.
SUITES := "formal::scripts/formal/run.sh --quick $(BUILD)/formal-check" $(SUITES)
SUITES += "setup-deps::scripts/check-setup-deps.sh $(BUILD)/setup-deps-check"
SUITES += $(ALL_TESTS)
SUITES += "train::scripts/check-train.sh $(FLASHSTREAM) $(BUILD)/train-check"
SUITES += "perf::scripts/check-perf.sh $(FLASHSTREAM) $(BUILD)/perf-check"
SUITES += "sweep::scripts/check-sweep.sh $(FLASHSTREAM) $(BUILD)/sweep-check"
SUITES += "study::scripts/check-study.sh $(BUILD)/study-check"
SUITES += "lifetime::scripts/check-lifetime.sh $(FLASHSTREAM) $(BUILD)/lifetime-check"
SUITES += "write-pipe::scripts/check-write-pipe.sh $(FLASHSTREAM) $(BUILD)/write-pipe-check"
SUITES += "synth-quick::scripts/synth/run.sh quick"
SUITES += "lint-verilator::scripts/lint.sh verilator"
SUITES += "lint-iverilog::scripts/lint.sh iverilog"
SUITES += "lint-yosys::scripts/lint.sh yosys"
SUITES += "lint-format::scripts/lint.sh format"
SUITES += "lint-consts::scripts/lint.sh consts"
SUITES += "lint-blocks::scripts/lint.sh blocks"
SUITES += "waves::scripts/check-waves.sh $(BUILD)/san/tests/test_cmn_fifo_w32_d8 waves/common.gtkw $(BUILD)/waves-check"
SUITES += "fuzz::scripts/fuzz.sh 3 $(BUILD)/fuzz"

.PHONY: test
test: deps  ## build and run every test (unit, RTL blocks, lint, waves, formal); ends "N passed, M failed"
	@scripts/run-tests.sh -j $$(nproc) $(BUILD)/logs \
	  "build::$(MAKE) --no-print-directory -k -j$$(nproc) build" -- $(SUITES)

FUZZ_SECONDS ?= 60
.PHONY: fuzz
fuzz: $(FUZZ_BINS)  ## each libFuzzer harness for FUZZ_SECONDS (60) s: executions and coverage
	@scripts/fuzz.sh $(FUZZ_SECONDS) $(BUILD)/fuzz

.PHONY: lint
lint: deps  ## verilator -Wall, iverilog, yosys (no latches) on all RTL; clang-format on C; RTL/C constants; block homes
	@scripts/lint.sh all

.PHONY: waves
waves: $(BUILD)/san/tests/test_cmn_fifo_w32_d8  ## write waves/cmn_fifo.fst (open: gtkwave waves/common.gtkw)
	$< --seed $(SEED) --waves waves/cmn_fifo.fst >/dev/null
	@echo "wrote waves/cmn_fifo.fst; open it with: gtkwave waves/common.gtkw"

.PHONY: formal
formal: deps  ## formal proofs of the handshake contract (yosys-smtbmc, z3): BMC, induction, mutants
	@scripts/formal/run.sh $(BUILD)/formal

.PHONY: synth
synth: deps  ## FPGA synthesis of every block: iCE40 place and route, Xilinx 7 estimates; out/synth/report.md
	@scripts/synth/run.sh full --doc scripts/synth/README.md

.PHONY: paper
paper: $(FLASHSTREAM)  ## the paper's evaluation in perf mode: out/paper/report.md, a CSV and plot per figure
	@scripts/paper/run.sh out/paper $(FLASHSTREAM)

.PHONY: lifetime
lifetime: $(FLASHSTREAM)  ## the flash over a simulated lifetime with faults (RBER, retries, spares): out/lifetime
	@scripts/lifetime/run.sh out/lifetime $(FLASHSTREAM)

.PHONY: study
study: $(FLASHSTREAM)  ## throughput against flash, ANs per WN, SRAM, multicast, buffer and fabric bandwidth: out/study
	@scripts/study/run.sh out/study $(FLASHSTREAM)

.PHONY: bench
bench: $(BENCH_BINS) $(FLASHSTREAM)  ## performance figures (medians of several runs), also into docs/performance.md
	@mkdir -p out/bench
	@set -o pipefail; for b in $(BENCH_BINS); do echo "== $$b"; \
	    $$b || { rc=$$?; echo "make bench: $$b failed (exit status $$rc)" >&2; exit 1; }; \
	    done | tee out/bench/bench.log
	@scripts/bench-table.sh out/bench/bench.log docs/performance.md

.PHONY: format
format:  ## rewrite C sources with clang-format
	clang-format -i $$(scripts/lint.sh c-sources)

.PHONY: clean
clean:  ## remove the build tree and outputs
	rm -rf $(BUILD) out waves/*.fst

-include $(wildcard $(REL_OBJS:.o=.d) $(SAN_OBJS:.o=.d) $(BUILD)/*/testbench/*/*.d)
-include $(wildcard $(FUZZ_OBJS:.o=.d) $(BUILD)/fuzz/obj/testbench/*/*.d)

# Anything else is a mistake: say what would be accepted.
.DEFAULT:
	@echo "make: '$@' is not a target or a file of this project; 'make help' lists the targets." >&2
	@exit 2
