// cmn_skid_buf: a two-entry skid buffer that cuts every combinational path
// between its upstream and downstream valid/ready interfaces.
//
// in_ready_o is a register (it does not depend on out_ready_i in the same
// cycle), and out_valid_o/out_data_o are registers, so the buffer can be
// placed on any interface to break timing paths. Throughput is one beat per
// cycle when the downstream side keeps up; when the downstream stalls, the
// beat that was already in flight is caught in the skid register.
//
// Handshake contract: see rtl/README.md.

`default_nettype none

module cmn_skid_buf #(
    parameter int Width = 32  // payload bits
) (
    input  wire             clk_i,
    input  wire             rst_i,
    // upstream
    input  wire             in_valid_i,
    output wire             in_ready_o,
    input  wire [Width-1:0] in_data_i,
    // downstream
    output wire             out_valid_o,
    input  wire             out_ready_i,
    output wire [Width-1:0] out_data_o
);

  if (Width < 1) begin : g_bad_width
    cmn_param_error_Width_must_be_at_least_1 u_err ();
  end

  reg             out_valid_q;
  reg [Width-1:0] out_data_q;
  reg             skid_valid_q;
  reg [Width-1:0] skid_data_q;

  wire in_fire = in_valid_i && in_ready_o;
  wire out_fire = out_valid_q && out_ready_i;

  // Ready while the skid register is free: a beat accepted now can always be
  // stored, in the output register or, if that one is stalled, in the skid.
  assign in_ready_o  = !skid_valid_q;
  assign out_valid_o = out_valid_q;
  assign out_data_o  = out_data_q;

  always @(posedge clk_i) begin
    if (rst_i) begin
      out_valid_q  <= 1'b0;
      skid_valid_q <= 1'b0;
    end else begin
      if (!out_valid_q || out_fire) begin
        // Output register is free next cycle: refill from the skid first
        // (it holds the older beat), then from the input.
        out_valid_q  <= skid_valid_q || in_fire;
        skid_valid_q <= 1'b0;
      end else if (in_fire) begin
        skid_valid_q <= 1'b1;
      end
    end
  end

  always @(posedge clk_i) begin
    if (!out_valid_q || out_fire) begin
      out_data_q <= skid_valid_q ? skid_data_q : in_data_i;
    end
    if (in_fire && out_valid_q && !out_fire) begin
      skid_data_q <= in_data_i;
    end
  end

`ifndef SYNTHESIS
  // A stalled output must hold its beat (AXI-Stream rule).
  reg             was_stalled_q;
  reg [Width-1:0] stalled_data_q;
  always @(posedge clk_i) begin
    if (rst_i) begin
      was_stalled_q <= 1'b0;
    end else begin
      was_stalled_q  <= out_valid_q && !out_ready_i;
      stalled_data_q <= out_data_q;
      if (was_stalled_q) begin
        assert (out_valid_q && out_data_q == stalled_data_q)
        else $error("cmn_skid_buf: output changed while stalled");
      end
      assert (!(skid_valid_q && !out_valid_q))
      else $error("cmn_skid_buf: skid holds a beat while the output is empty");
    end
  end
`endif

endmodule

`default_nettype wire
