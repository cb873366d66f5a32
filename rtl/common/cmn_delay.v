// cmn_delay: Width bits delayed by Depth clock cycles (Depth 0: a wire).
//
// A chain of Depth registers, no reset, no enable: what goes in at cycle n
// comes out at cycle n + Depth. Each stage is its own named register (not an
// unpacked array written in a loop), which a verilated model copies once per
// cycle without delayed-assignment shadows. The systolic array skews its
// operand lanes with it (sa_array).

`default_nettype none

module cmn_delay #(
    parameter int Width = 16,  // bits per stage
    parameter int Depth = 2    // cycles of delay, >= 0
) (
    input  wire             clk_i,
    input  wire [Width-1:0] d_i,
    output wire [Width-1:0] q_o
);

  if (Width < 1) begin : g_bad_width
    cmn_param_error_Width_must_be_at_least_1 u_err ();
  end
  if (Depth < 0) begin : g_bad_depth
    cmn_param_error_Depth_must_be_at_least_0 u_err ();
  end

  if (Depth == 0) begin : g_wire
    assign q_o = d_i;
    // Lint waiver (Verilator ignores names starting with unused): no register
    // to clock.
    wire unused_clk = clk_i;
  end else begin : g_chain
    for (genvar s = 0; s < Depth; s++) begin : g_s
      reg  [Width-1:0] q;
      wire [Width-1:0] d;
      if (s == 0) begin : g_first
        assign d = d_i;
      end else begin : g_next
        assign d = g_s[s-1].q;
      end
      always @(posedge clk_i) q <= d;
    end
    assign q_o = g_s[Depth-1].q;
  end

endmodule

`default_nettype wire
