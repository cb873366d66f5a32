/*
 * bench_nfw_lanes: bench_nfw.c on the NAND write lanes (rtl/nfw/nfw_lanes.v), RTL against the
 * twin, a memory port and a channel BFM per lane.
 */
#define NFW_LANES 1
#include "testbench/nfw/bench_nfw.c"
