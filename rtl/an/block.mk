# rtl/an: the Activation Node datapath (DMA + compute core + scratchpads) as one verilated
# model, and its end-to-end test: tensor buffer -> DMA -> GEMM -> DMA -> tensor buffer, against
# the reference GEMM and against the C-twin form (DMA twin + core twin).
# Verilated like rtl/core's 8x8 model (see its block.mk): the core's grid in its loop form,
# 2000-statement functions, the PE registers traced.
VFLAGS_an_8x8 := --output-split-cfuncs 2000 --trace-max-array 64
# Every an_top parameter is given (the shim reports them and has no defaults of its own); the
# DMA's are an_top's defaults.
AN_8X8_PARAMS := Rows=8 Cols=8 AWords=512 BWords=512 CWords=512 PeLoop=1 \
                 TbSizeKiB=16777216 MaxRdOut=64 DescDepth=4 CplDepth=4
# The shim reads the DMA-core port inside an_top (public_flat_rd) from the model's root class.
$(eval $(call vmodel,an_8x8,an_top,$(AN_8X8_PARAMS),an,'-DVROOT_H="Van_8x8___024root.h"'))
$(eval $(call vtest,test_an_8x8,an/test_an_rtl,an_8x8))

# an_8x8_p4k: the Activation Node datapath of the default machine (machine_cfg_default: an 8 x 8
# core with 4096-word pads, a 16 GiB tensor buffer, the DMA's defaults), for the flashstream
# program (FS_MODELS in the Makefile: `flashstream train --fidelity rtl|lockstep`, models/node's
# AN backend an_be_rtl.c). Built only when a target needs it; verilated like an_8x8.
VFLAGS_an_8x8_p4k := $(VFLAGS_an_8x8)
AN_8X8_P4K_PARAMS := Rows=8 Cols=8 AWords=4096 BWords=4096 CWords=4096 PeLoop=1 \
                     TbSizeKiB=16777216 MaxRdOut=64 DescDepth=4 CplDepth=4
$(eval $(call vmodel,an_8x8_p4k,an_top,$(AN_8X8_P4K_PARAMS),an,'-DVROOT_H="Van_8x8_p4k___024root.h"'))

VBENCH_SRCS += testbench/an/bench_an.c
$(eval $(call vbench,bench_an_8x8,an/bench_an,an_8x8))
