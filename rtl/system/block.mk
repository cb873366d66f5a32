# rtl/system: no RTL of its own. The assembled training machine (models/host/runtime) with a
# verilated compute core in the loop: its system test, and the core model the flashstream
# program links for `flashstream train --fidelity rtl|lockstep` on the default machine.
#
# test_system_rtl: rt_cfg_small's machine (8 x 8 core, 512-word pads) = rtl/core's core_8x8.
$(eval $(call vtest,test_system_rtl,test_system_rtl,core_8x8))

# core_8x8_p4k: the core of rt_cfg_default (8 x 8, 4096-word pads: 64 KiB A, 64 KiB B,
# 128 KiB C), for the flashstream program (FS_MODELS). Built only when a target needs it;
# verilated like rtl/core's core_8x8 (see its block.mk).
VFLAGS_core_8x8_p4k := $(VFLAGS_core_8x8)
$(eval $(call vmodel,core_8x8_p4k,core_top,Rows=8 Cols=8 AWords=4096 BWords=4096 CWords=4096 PeLoop=1,core))
