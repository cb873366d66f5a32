/*
 * Block test of the NAND write lanes (rtl/nfw/nfw_lanes.v) against their twin
 * (models/nfw/nfw_lanes_twin.h): test_nfw_rtl.c's tests on the lanes' ports (see there).
 */
#define NFW_LANES 1
#include "testbench/nfw/test_nfw_rtl.c"
