# rtl/nfw: the NAND write pipelines (write-command and NAND-program), their shim and block
# tests. Two configurations: the default (power-of-two geometry, two streams) and an odd one
# (one channel of three dies, four planes, three pages per block, 64-byte pages, one stream,
# two reads outstanding) that exercises the counters' wraps and the narrowest FIFOs.

NFW_P_DEF := PageBytes=256 Planes=2 Channels=2 DiesPerChan=2 PagesPerBlock=4 Streams=2 \
             MaxPbs=16 BbtEntries=4 Slots=4 MaxReads=64
NFW_P_ODD := PageBytes=64 Planes=4 Channels=1 DiesPerChan=3 PagesPerBlock=3 Streams=1 \
             MaxPbs=5 BbtEntries=2 Slots=8 MaxReads=2

$(eval $(call vmodel,nfw_top,nfw_top,$(NFW_P_DEF),nfw))
$(eval $(call vmodel,nfw_top_odd,nfw_top,$(NFW_P_ODD),nfw))

# The write path in the training machine's loop (models/nfw/nfw_time.h, nfw_time_params: the
# node's flash geometry, 8 streams, 4 blocks, 1 BBT entry, a unit and more of page buffers, 64
# reads per lane, and the lanes the FMS's program bound needs, nfw_time_lanes):
# nfw_lanes_paper for machine_cfg_default's FMS (8 lanes: 41.9 GB/s of programs against
# 6.4 GB/s a lane; the flashstream program: FS_MODELS), nfw_lanes_small for machine_cfg_small's
# (1 lane; test_system_rtl). Built only when a target needs them.
NFW_P_PAPER := PageBytes=4096 Planes=8 Channels=64 DiesPerChan=2 PagesPerBlock=768 Streams=8 \
               MaxPbs=4 BbtEntries=1 Slots=16 MaxReads=64 Lanes=8
NFW_P_SMALL := PageBytes=4096 Planes=2 Channels=2 DiesPerChan=1 PagesPerBlock=16 Streams=8 \
               MaxPbs=4 BbtEntries=1 Slots=4 MaxReads=64 Lanes=1
$(eval $(call vmodel,nfw_lanes_paper,nfw_lanes,$(NFW_P_PAPER),nfw_lanes))
$(eval $(call vmodel,nfw_lanes_small,nfw_lanes,$(NFW_P_SMALL),nfw_lanes))

$(eval $(call vtest,test_nfw_top,nfw/test_nfw_rtl,nfw_top))
$(eval $(call vtest,test_nfw_top_odd,nfw/test_nfw_rtl,nfw_top_odd))
# Post-synthesis: the odd configuration's iCE40 netlist under the same block test.
$(eval $(call vgate,nfw_top_odd_gate,nfw_top,$(NFW_P_ODD),nfw))
$(eval $(call vtest,test_nfw_top_odd_gate,nfw/test_nfw_rtl,nfw_top_odd_gate))

# The waveform path of the write pipelines: the block test writes an FST, the save file's
# signals must all be in it.
SUITES += "waves-nfw::scripts/check-waves.sh $(BUILD)/san/tests/test_nfw_top waves/nfw.gtkw $(BUILD)/waves-nfw"

# RTL against the twin: the same workload, cycles and wall-clock speed.
VBENCH_SRCS += testbench/nfw/bench_nfw.c
$(eval $(call vbench,bench_nfw,nfw/bench_nfw,nfw_top))
# The same on the paper's 8 lanes (the loop's build): 8 x the rate.
VBENCH_SRCS += testbench/nfw/bench_nfw_lanes.c
$(eval $(call vbench,bench_nfw_lanes,nfw/bench_nfw_lanes,nfw_lanes_paper))

# The write lanes (nfw_lanes: nfw_top side by side behind a command splitter and a completion
# merger): the default geometry in two lanes of one channel each, and four lanes of one
# channel of two dies each, of odd geometry (4 planes, 3 pages per block, 64-byte pages, 2
# reads outstanding; an LB of 96 pages holds the block test's longest command, 65 pages).
NFW_P_LANES := $(NFW_P_DEF) Lanes=2
NFW_P_LANES4 := PageBytes=64 Planes=4 Channels=4 DiesPerChan=2 PagesPerBlock=3 Streams=2 \
                MaxPbs=5 BbtEntries=2 Slots=8 MaxReads=2 Lanes=4
$(eval $(call vmodel,nfw_lanes,nfw_lanes,$(NFW_P_LANES),nfw_lanes))
$(eval $(call vmodel,nfw_lanes4,nfw_lanes,$(NFW_P_LANES4),nfw_lanes))
$(eval $(call vtest,test_nfw_lanes,nfw/test_nfw_lanes_rtl,nfw_lanes))
$(eval $(call vtest,test_nfw_lanes4,nfw/test_nfw_lanes_rtl,nfw_lanes4))
SUITES += "waves-nfw-lanes::scripts/check-waves.sh $(BUILD)/san/tests/test_nfw_lanes waves/nfw_lanes.gtkw $(BUILD)/waves-nfw-lanes"

# The write lanes in the loop (models/nfw/nfw_time.h) on the loop's two builds: the RTL brought
# to the twin's state by a copy, then lockstep with it.
$(eval $(call vtest,test_nfw_time_paper,nfw/test_nfw_time_rtl,nfw_lanes_paper))
$(eval $(call vtest,test_nfw_time_small,nfw/test_nfw_time_rtl,nfw_lanes_small))
