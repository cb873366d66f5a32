// Formal checkers of the handshake contract (rtl/README.md), shared by every block's proof
// harness (rtl/<block>/formal/fv_<block>.sv; scripts/formal/README.md).
//
//   fv_hs_source  asserts the contract on a port the block drives (valid, payload out):
//                 reset leaves it idle, and a stalled beat holds, payload unchanged.
//   fv_hs_sink    assumes the contract of the environment on a port the block receives:
//                 a stalled beat of the upstream holds, payload unchanged.
//   fv_track      a scoreboard of a port pair that must pass beats through unchanged: it
//                 counts the beats inside and follows one beat, chosen by the environment,
//                 from entry to exit, asserting it leaves with its data and in its place.
//   fv_outstanding  requests accepted and not yet answered: the environment answers only
//                 those (assumed); the count, for the block's bound.
//   fv_reset_first  the environment resets the block in the first cycle; live_o says a reset
//                 has been seen, and every check waits for it (in an induction too).
//
// Properties are immediate assertions on registered copies rather than $past, so that
// every one is also an inductive invariant the induction can use.

`default_nettype none

module fv_reset_first (
    input  wire clk_i,
    input  wire rst_i,
    output wire live_o  // a reset has been seen: before it, the block's state means nothing
);
  reg first_q = 1'b1;
  reg live_q = 1'b0;
  always @(posedge clk_i) begin
    first_q <= 1'b0;
    live_q  <= live_q || rst_i;
  end
  always @* if (first_q) assume (rst_i);
  assign live_o = live_q;
endmodule

module fv_hs_source #(
    parameter int Width = 1  // payload bits
) (
    input wire             clk_i,
    input wire             rst_i,
    input wire             live_i,  // fv_reset_first's live_o
    input wire             valid_i,
    input wire             ready_i,
    input wire [Width-1:0] data_i
);
  reg             rst_q = 1'b0;
  reg             stalled_q = 1'b0;
  reg [Width-1:0] data_q;
  always @(posedge clk_i) begin
    rst_q     <= rst_i;
    stalled_q <= !rst_i && valid_i && !ready_i;
    data_q    <= data_i;
  end
  always @* begin
    // The cycle after a reset cycle the port is idle.
    if (rst_q) assert (!valid_i);
    // A beat that did not move is offered again, unchanged.
    if (live_i && stalled_q) assert (valid_i && data_i == data_q);
  end
endmodule

module fv_hs_sink #(
    parameter int Width = 1  // payload bits
) (
    input wire             clk_i,
    input wire             rst_i,
    input wire             valid_i,
    input wire             ready_i,
    input wire [Width-1:0] data_i
);
  reg             stalled_q = 1'b0;
  reg [Width-1:0] data_q;
  always @(posedge clk_i) begin
    stalled_q <= !rst_i && valid_i && !ready_i;
    data_q    <= data_i;
  end
  always @* if (stalled_q) assume (valid_i && data_i == data_q);
endmodule

// A memory that answers only requests it has accepted: count_o counts those not yet
// answered (8 bits: more than any bound reaches, so it cannot wrap), and no response is
// offered while it is zero.
module fv_outstanding (
    input  wire       clk_i,
    input  wire       rst_i,
    input  wire       live_i,       // fv_reset_first's live_o
    input  wire       req_fire_i,   // a request accepted
    input  wire       rsp_valid_i,
    input  wire       rsp_ready_i,
    output wire [7:0] count_o
);
  reg [7:0] count_q;
  always @(posedge clk_i) begin
    if (rst_i) count_q <= '0;
    else count_q <= count_q + 8'(req_fire_i) - 8'(rsp_valid_i && rsp_ready_i);
  end
  always @* if (live_i && count_q == '0) assume (!rsp_valid_i);
  assign count_o = count_q;
endmodule

// Beats enter on in_fire_i and leave on out_fire_i. held_o counts those inside (at most Cap);
// a beat that enters with pick_i while none is tracked becomes the tracked beat: its data
// (data_o) and the number of beats ahead of it (ahead_o) are recorded, and when it leaves it
// must be the beat with no one ahead, carrying its data. A lost beat makes a later one leave
// in its place, a duplicated one makes it leave too late, a reordered one out of place: each
// shows as the wrong data for some choice of the tracked beat, and a beat from nowhere as a
// beat leaving an empty block.
module fv_track #(
    parameter int  Width = 1,  // payload bits
    parameter int  Cap   = 2,  // beats the block can hold
    localparam int CntW  = $clog2(Cap + 1) + 1
) (
    input  wire             clk_i,
    input  wire             rst_i,
    input  wire             live_i,  // fv_reset_first's live_o
    input  wire             in_fire_i,
    input  wire [Width-1:0] in_data_i,
    input  wire             out_fire_i,
    input  wire [Width-1:0] out_data_i,
    input  wire             pick_i,
    output wire [ CntW-1:0] held_o,
    output wire             armed_o,
    output wire [ CntW-1:0] ahead_o,
    output wire [Width-1:0] data_o
);
  reg [ CntW-1:0] held_q;
  reg             armed_q;
  reg [ CntW-1:0] ahead_q;
  reg [Width-1:0] data_q;
  wire leaving = armed_q && out_fire_i && ahead_q == '0;

  always @(posedge clk_i) begin
    if (rst_i) begin
      held_q  <= '0;
      armed_q <= 1'b0;
    end else begin
      held_q <= held_q + CntW'(in_fire_i) - CntW'(out_fire_i);
      if (armed_q && out_fire_i) ahead_q <= ahead_q - 1'b1;
      if (leaving) armed_q <= 1'b0;
      if (!armed_q && in_fire_i && pick_i) begin
        armed_q <= 1'b1;
        ahead_q <= held_q - CntW'(out_fire_i);
        data_q  <= in_data_i;
      end
    end
  end

  always @* begin
    if (live_i && !rst_i) begin
      assert (!out_fire_i || held_q != '0);
      if (leaving) assert (out_data_i == data_q);
    end
    if (live_i) begin
      assert (held_q <= CntW'(Cap));
      if (armed_q) assert (ahead_q < held_q);
    end
  end

  assign held_o  = held_q;
  assign armed_o = armed_q;
  assign ahead_o = ahead_q;
  assign data_o  = data_q;
endmodule

`default_nettype wire
