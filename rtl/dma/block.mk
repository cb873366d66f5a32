# rtl/dma: verilated models of the tensor-buffer DMA, its block test and its benchmark.
# Every configuration gives every dma_top parameter: the shim reports them (P_<Name>) and has
# no defaults of its own.
#
# dma: the defaults of dma_top.v (1 MiB SRAM, latency 2, 64 reads in flight, 16 GiB tensor
# buffer; dma_params_default() in C, which test_dma holds to them), for the benchmark.
# dma_t: a small SRAM map (48 KiB of a 16-bit address space: not a power of two, so the
# range checks see a real edge), SRAM read latency 3, 16 reads in flight: the block test runs
# it in lockstep with the C twin (models/dma/dma_twin.c).
DMA_PARAMS   := SramAddrW=20 SramBytes=1048576 TbSizeKiB=16777216 SramLat=2 MaxRdOut=64 \
                MaxWrOut=128 DescDepth=4 CplDepth=4
DMA_T_PARAMS := $(filter-out SramAddrW=% SramBytes=% SramLat=% MaxRdOut=%,$(DMA_PARAMS)) \
                SramAddrW=16 SramBytes=49152 SramLat=3 MaxRdOut=16

$(eval $(call vmodel,dma_t,dma_top,$(DMA_T_PARAMS),dma,))
$(eval $(call vmodel,dma,dma_top,$(DMA_PARAMS),dma,))

$(eval $(call vtest,test_dma,dma/test_dma_rtl,dma_t))

VBENCH_SRCS += testbench/dma/bench_dma.c
$(eval $(call vbench,bench_dma,dma/bench_dma,dma))

# The waveform path for the DMA's save file.
SUITES += "waves-dma::scripts/check-waves.sh $(BUILD)/san/tests/test_dma waves/dma.gtkw $(BUILD)/waves-check-dma"
