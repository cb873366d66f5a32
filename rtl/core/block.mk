# rtl/core: the compute core (core_top: systolic array, scratchpads, command,
# completion and DMA ports), verilated in every array shape the core must
# support, each with its block test; the benchmark runs the 8x8 and 16x16.
# Pads: 512 words each (A and B: W bf16 per word, C: W fp32; W = lcm(Rows, Cols, 4)).

# The processing element alone, against the numerics reference: sa_pe_cell,
# the PE datapath (sa_pe) with its own flag registers and the PE's assertions.
$(eval $(call vmodel,sa_pe,sa_pe_cell,AccStages=1,core_sa_pe,))
$(eval $(call vtest,test_sa_pe,core/test_sa_pe_rtl,sa_pe))
# ... and its iCE40 netlist (post-synthesis: the same test, the same C reference).
$(eval $(call vgate,sa_pe_gate,sa_pe_cell,AccStages=1,core_sa_pe,))
$(eval $(call vtest,test_sa_pe_gate,core/test_sa_pe_rtl,sa_pe_gate))
# The PE for FPGA clock rates: its add in four register stages, four sums interleaved; RTL and
# netlist.
$(eval $(call vmodel,sa_pe4,sa_pe_cell,AccStages=4,core_sa_pe,))
$(eval $(call vtest,test_sa_pe4,core/test_sa_pe_rtl,sa_pe4))
$(eval $(call vgate,sa_pe4_gate,sa_pe_cell,AccStages=4,core_sa_pe,))
$(eval $(call vtest,test_sa_pe4_gate,core/test_sa_pe_rtl,sa_pe4_gate))

# The array alone (the PE grid, its skew, flags and row read-out), against the numerics
# reference and the array's timing: the one-stage array in its loop form (the core's tests run
# both forms), and the array of the four-stage PE, four tiles interleaved, in a few shapes.
$(eval $(call vmodel,sa_array_2x3,sa_array,Rows=2 Cols=3 AccStages=1 PeLoop=1,core_sa_array,))
$(eval $(call vmodel,sa_array4_1x1,sa_array,Rows=1 Cols=1 AccStages=4,core_sa_array,))
$(eval $(call vmodel,sa_array4_3x5,sa_array,Rows=3 Cols=5 AccStages=4,core_sa_array,))
$(eval $(call vmodel,sa_array4_8x8,sa_array,Rows=8 Cols=8 AccStages=4,core_sa_array,))
$(eval $(call vtest,test_sa_array_2x3,core/test_sa_array_rtl,sa_array_2x3))
$(eval $(call vtest,test_sa_array4_1x1,core/test_sa_array_rtl,sa_array4_1x1))
$(eval $(call vtest,test_sa_array4_3x5,core/test_sa_array_rtl,sa_array4_3x5))
$(eval $(call vtest,test_sa_array4_8x8,core/test_sa_array_rtl,sa_array4_8x8))
# ... and the iCE40 netlist of the four-stage 2x2 array (the one that fits an HX8K).
$(eval $(call vgate,sa_array4_2x2_gate,sa_array,Rows=2 Cols=2 AccStages=4,core_sa_array,))
$(eval $(call vtest,test_sa_array4_2x2_gate,core/test_sa_array_rtl,sa_array4_2x2_gate))

# The core in every array shape it must support.
# The benchmarked shapes get bigger generated functions than the default 200
# statements (one function call less per few PEs; 2000 measured best for
# 8x8), and every shape traces its PE registers (sa_grid's Rows x Cols
# arrays: Verilator traces arrays of up to 32 elements unless told more; the
# pads, 512 words, stay untraced). The 32x32 keeps the defaults, which bound
# its g++ time and its trace.
VFLAGS_core_8x8   := --output-split-cfuncs 2000 --trace-max-array 64
VFLAGS_core_16x16 := --output-split-cfuncs 2000 --trace-max-array 256

# The array's grid comes in two forms that compute the same (sa_grid.v):
# Rows x Cols sa_pe instances (the default, and what synthesis
# builds) and one loop over the PE registers (PeLoop=1), which verilates into
# far less code and runs about 15% faster at 8x8. Both are tested, every
# result and cycle count against the twin: instances at 1x1 and 4x4, the
# loop at 2x3, 8x8, 16x16 and 32x32 (the benchmarked and traced shapes).
$(eval $(call vmodel,core_1x1,core_top,Rows=1 Cols=1 AWords=512 BWords=512 CWords=512,core))
$(eval $(call vmodel,core_2x3,core_top,Rows=2 Cols=3 AWords=512 BWords=512 CWords=512 PeLoop=1,core))
$(eval $(call vmodel,core_4x4,core_top,Rows=4 Cols=4 AWords=512 BWords=512 CWords=512,core))
$(eval $(call vmodel,core_8x8,core_top,Rows=8 Cols=8 AWords=512 BWords=512 CWords=512 PeLoop=1,core))
$(eval $(call vmodel,core_16x16,core_top,Rows=16 Cols=16 AWords=512 BWords=512 CWords=512 PeLoop=1,core))
$(eval $(call vmodel,core_32x32,core_top,Rows=32 Cols=32 AWords=512 BWords=512 CWords=512 PeLoop=1,core))

# core_8x8_p4k: the core of the default machine (machine_cfg_default: 8 x 8, 4096-word pads,
# 64 KiB A, 64 KiB B, 128 KiB C), for the flashstream program (FS_MODELS in the Makefile:
# `flashstream train --fidelity rtl|lockstep`). Built only when a target needs it; verilated
# like core_8x8.
VFLAGS_core_8x8_p4k := $(VFLAGS_core_8x8)
$(eval $(call vmodel,core_8x8_p4k,core_top,Rows=8 Cols=8 AWords=4096 BWords=4096 CWords=4096 PeLoop=1,core))

# The core of the four-stage PE (AccStages=4: its tile four array tiles interleaved; instances
# only): the smallest, 2x3 (the tile's parts' slices cross words mid-word), an odd shape whose
# word is 60 elements, and the 8x8 (each part in a word of its own).
$(eval $(call vmodel,core4_1x1,core_top,Rows=1 Cols=1 AWords=512 BWords=512 CWords=512 AccStages=4,core))
$(eval $(call vmodel,core4_2x3,core_top,Rows=2 Cols=3 AWords=512 BWords=512 CWords=512 AccStages=4,core))
$(eval $(call vmodel,core4_3x5,core_top,Rows=3 Cols=5 AWords=512 BWords=512 CWords=512 AccStages=4,core))
$(eval $(call vmodel,core4_8x8,core_top,Rows=8 Cols=8 AWords=512 BWords=512 CWords=512 AccStages=4,core))

$(eval $(call vtest,test_core_1x1,core/test_core_rtl,core_1x1))
$(eval $(call vtest,test_core_2x3,core/test_core_rtl,core_2x3))
$(eval $(call vtest,test_core_4x4,core/test_core_rtl,core_4x4))
$(eval $(call vtest,test_core_8x8,core/test_core_rtl,core_8x8))
$(eval $(call vtest,test_core_16x16,core/test_core_rtl,core_16x16))
$(eval $(call vtest,test_core_32x32,core/test_core_rtl,core_32x32))
$(eval $(call vtest,test_core4_1x1,core/test_core_rtl,core4_1x1))
$(eval $(call vtest,test_core4_2x3,core/test_core_rtl,core4_2x3))
$(eval $(call vtest,test_core4_3x5,core/test_core_rtl,core4_3x5))
$(eval $(call vtest,test_core4_8x8,core/test_core_rtl,core4_8x8))

# Post-synthesis: the core that fits an iCE40 HX8K (1 x 1, 256-word pads: scripts/synth/configs.txt),
# its netlist under the core's block test.
$(eval $(call vgate,core_1x1_gate,core_top,Rows=1 Cols=1 AWords=256 BWords=256 CWords=256 PeLoop=0,core))
$(eval $(call vtest,test_core_1x1_gate,core/test_core_rtl,core_1x1_gate))
# ... and the netlist of the four-stage 1 x 1 core (8,364 LCs placed on an HX8K of 7,680: it
# does not fit, but its netlist is the RTL's all the same).
$(eval $(call vgate,core4_1x1_gate,core_top,Rows=1 Cols=1 AWords=256 BWords=256 CWords=256 AccStages=4 PeLoop=0,core))
$(eval $(call vtest,test_core4_1x1_gate,core/test_core_rtl,core4_1x1_gate))

# One benchmark source, one binary per model (the shims of two models would
# clash in one binary); the generic C-bench rule must skip it.
VBENCH_SRCS += testbench/core/bench_core.c
$(eval $(call vbench,bench_core_8x8,core/bench_core,core_8x8))
$(eval $(call vbench,bench_core_16x16,core/bench_core,core_16x16))

# The waveform path for the core's save file.
SUITES += "waves-core::scripts/check-waves.sh $(BUILD)/san/tests/test_core_8x8 waves/core.gtkw $(BUILD)/waves-check-core"

