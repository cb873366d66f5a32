# models/sc: the SystemC/TLM-2.0 layer (models/sc/README.md), its tests and examples. Included by
# the Makefile after the blocks (it uses the Verilator rules and the C libraries).
#
# Debian's libsystemc is built as C++17 (an older -std fails at link time). The C++ here is
# compiled and linked with the sanitizers like the unit tests, against the sanitized C library;
# the verilated --sc core is compiled like the --cc models (no sanitizers), with a Verilator
# runtime of its own (VM_SC=1).
SC_CXXFLAGS := -std=gnu++17 -g -Wall -Wextra -Werror -Wno-unused-parameter -I. -MMD -MP $(SAN_OPT)
SC_LIBS     := -lsystemc $(LDLIBS) -lpthread -latomic

# Every SystemC program links sc_san.o, its LeakSanitizer options (models/sc/sc_san.cpp says why).
SC_SAN      := $(BUILD)/sc/sc_san.o

$(BUILD)/sc/%.o: models/sc/%.cpp | $(BUILD)/.deps-ok
	@mkdir -p $(@D)
	$(call msg,CXX-SC,$<)$(CXX) $(SC_CXXFLAGS) -c $< -o $@

# sc_flashgen: the SystemC traffic generator (flashbench's workload through fs_flash).
$(BUILD)/sc/sc_flashgen: $(BUILD)/sc/examples/sc_flashgen.o $(SC_SAN) $(BUILD)/sc/fs_flash.o $(SAN_LIB)
	$(call msg,LD,$@)$(CXX) $(SAN_OPT) $^ $(SC_LIBS) -o $@

# sc_minimal: the smallest platform with a flash memory system (the README's example).
$(BUILD)/sc/sc_minimal: $(BUILD)/sc/examples/sc_minimal.o $(SC_SAN) $(BUILD)/sc/fs_flash.o $(SAN_LIB)
	$(call msg,LD,$@)$(CXX) $(SAN_OPT) $^ $(SC_LIBS) -o $@


# test_sc_bridge: fs_flash against the C models, and fs_run_kernel (TAP).
$(BUILD)/sc/test_sc_bridge: $(BUILD)/sc/tests/test_sc_bridge.o $(SC_SAN) $(BUILD)/sc/fs_flash.o $(SAN_LIB)
	$(call msg,LD,$@)$(CXX) $(SAN_OPT) $^ $(SC_LIBS) -o $@

# The core verilated with --sc (a 4 x 4 array, 512-word pads, the loop form of the grid: quick to
# build) and test_sc_core, which holds its TLM target (fs_core_rtl) to the twin's (fs_core).
# Tracing is off (--sc tracing needs the SystemC trace runtime; the --cc models trace).
SC_VCORE    := sc_core_4x4
SC_VPARAMS  := Rows=4 Cols=4 AWords=512 BWords=512 CWords=512 PeLoop=1
SC_VFLAGS   := $(filter-out --cc --trace-fst --trace-structs,$(VFLAGS)) --sc
SC_VDEFS    := -DVM_COVERAGE=0 -DVM_SC=1 -DVM_TRACE=0
SC_VRT      := $(BUILD)/vlt/rt-sc/libverilated.a

$(BUILD)/vlt/rt-sc/%.o: $(VROOT)/include/%.cpp | $(BUILD)/.deps-ok
	@mkdir -p $(@D)
	$(call msg,CXX,$<)$(CXX) -std=gnu++17 -O2 -g0 $(VINC) $(SC_VDEFS) -c $< -o $@
$(SC_VRT): $(BUILD)/vlt/rt-sc/verilated.o $(BUILD)/vlt/rt-sc/verilated_threads.o
	$(call msg,AR,$@)rm -f $@ && ar rcs $@ $^

$(BUILD)/vlt/$(SC_VCORE)/V$(SC_VCORE).mk: $(RTL_SRCS) | $(BUILD)/.deps-ok
	@mkdir -p $(@D)
	$(call msg,VERILATE,$(SC_VCORE))verilator $(SC_VFLAGS) $(addprefix -y ,$(RTL_DIRS)) --top-module core_top \
	    --prefix V$(SC_VCORE) --Mdir $(@D) $(addprefix -G,$(SC_VPARAMS)) rtl/core/core_top.v
	@touch $@ # Verilator leaves an up-to-date model's files as they were (--skip-identical)
$(BUILD)/vlt/$(SC_VCORE)/V$(SC_VCORE)__ALL.a: $(BUILD)/vlt/$(SC_VCORE)/V$(SC_VCORE).mk
	$(call msg,VCXX,$(SC_VCORE))$(MAKE) --no-print-directory -s -C $(@D) -f V$(SC_VCORE).mk V$(SC_VCORE)__ALL.a \
	    OPT_FAST="$(VOPT_FAST)" OPT_SLOW=-O1 OPT_GLOBAL=-O2 CXX="$(CXX) -std=gnu++17" $(quiet)
	@touch $@

$(BUILD)/sc/fs_core_rtl.o: models/sc/fs_core_rtl.cpp $(BUILD)/vlt/$(SC_VCORE)/V$(SC_VCORE)__ALL.a
	@mkdir -p $(@D)
	$(call msg,CXX-SC,$<)$(CXX) $(SC_CXXFLAGS) $(VINC) $(SC_VDEFS) -I$(BUILD)/vlt/$(SC_VCORE) -DVTOP=V$(SC_VCORE) \
	    '-DVTOP_H="V$(SC_VCORE).h"' $(addprefix -DP_,$(SC_VPARAMS)) -c $< -o $@

$(BUILD)/sc/test_sc_core: $(BUILD)/sc/tests/test_sc_core.o $(SC_SAN) $(BUILD)/sc/fs_core.o \
                          $(BUILD)/sc/fs_core_rtl.o $(BUILD)/vlt/$(SC_VCORE)/V$(SC_VCORE)__ALL.a \
                          $(SC_VRT) $(SAN_LIB)
	$(call msg,LD,$@)$(CXX) $(SAN_OPT) $^ $(SC_LIBS) -o $@

# sc_train: the training machine as a SystemC platform, against the C machine (TAP); its ANs'
# cores may be the --sc core (fs_core_be onto fs_core_rtl).
$(BUILD)/sc/sc_train: $(BUILD)/sc/examples/sc_train.o $(SC_SAN) $(BUILD)/sc/fs_machine.o \
                      $(BUILD)/sc/fs_core_be.o $(BUILD)/sc/fs_core_rtl.o \
                      $(BUILD)/vlt/$(SC_VCORE)/V$(SC_VCORE)__ALL.a $(SC_VRT) $(SAN_LIB)
	$(call msg,LD,$@)$(CXX) $(SAN_OPT) $^ $(SC_LIBS) -o $@

-include $(wildcard $(BUILD)/sc/*.d $(BUILD)/sc/*/*.d)

SC_BINS := $(BUILD)/sc/test_sc_bridge $(BUILD)/sc/test_sc_core $(BUILD)/sc/sc_train \
           $(BUILD)/sc/sc_flashgen $(BUILD)/sc/sc_minimal

.PHONY: sc
sc: $(SC_BINS)  ## the SystemC/TLM-2.0 layer (models/sc): its tests and examples

SUITES += "sc-minimal::$(BUILD)/sc/sc_minimal"
SUITES += "sc-bridge::$(BUILD)/sc/test_sc_bridge"
SUITES += "sc-core::$(BUILD)/sc/test_sc_core $(SEED) 60"
SUITES += "sc-train::$(BUILD)/sc/sc_train --nodes 4 --steps 2"
SUITES += "sc-train-twin4::$(BUILD)/sc/sc_train --nodes 4 --steps 2 --core twin4"
SUITES += "sc-train-rtl::$(BUILD)/sc/sc_train --nodes 4 --steps 1 --core sc"
SUITES += "sc-flashgen::scripts/check-sc.sh $(BUILD)/sc/sc_flashgen $(FLASHSTREAM)"
