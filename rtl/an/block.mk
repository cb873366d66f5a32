# rtl/an: the Activation Node datapath (DMA + compute core + scratchpads) as one verilated
# model, and its end-to-end test: tensor buffer -> DMA -> GEMM -> DMA -> tensor buffer, against
# the reference GEMM and against the C-twin form (DMA twin + core twin).
$(eval $(call vmodel,an_8x8,an_top,Rows=8 Cols=8 AWords=512 BWords=512 CWords=512,an))
$(eval $(call vtest,test_an_8x8,test_an,an_8x8))

VBENCH_SRCS += testbench/bench/bench_an.c
$(eval $(call vbench,bench_an_8x8,bench_an,an_8x8))
