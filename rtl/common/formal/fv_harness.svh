// The wiring every proof harness (rtl/<block>/formal/fv_<block>.sv) repeats, as macros, so
// that a harness shows only what is specific to its block. A harness names its clock clk_i
// and its reset rst_i, and uses `FV_LIVE before the port checkers (rtl/common/formal/fv_hs.sv):
//
//   `FV_LIVE                               the environment resets the block in the first
//                                          cycle; `live`: a reset has been seen
//   `FV_SINK(name, valid, ready, data)     assume the contract on a port the block receives
//   `FV_SOURCE(name, valid, ready, data)   assert it on a port the block drives (idle after
//                                          reset, a stalled beat held unchanged)
//
// data is the port's payload, a concatenation: its width is taken from it.

`ifndef FV_HARNESS_SVH
`define FV_HARNESS_SVH

`define FV_LIVE \
  wire live; \
  fv_reset_first u_rst (.clk_i, .rst_i, .live_o(live));

`define FV_SINK(name, valid, ready, data) \
  fv_hs_sink #(.Width($bits(data))) name ( \
      .clk_i, .rst_i, .valid_i(valid), .ready_i(ready), .data_i(data) \
  );

`define FV_SOURCE(name, valid, ready, data) \
  fv_hs_source #(.Width($bits(data))) name ( \
      .clk_i, .rst_i, .live_i(live), .valid_i(valid), .ready_i(ready), .data_i(data) \
  );

`endif
