// sa_pe: output-stationary processing element of the systolic array.
//
// Each valid step brings one k of a dot product: a (bf16, from the left) and b
// (bf16, from the top). The PE multiplies them (sa_bf16_mul: exact product,
// flush to zero) and adds the product into its fp32 accumulator
// (sa_fp32_add: round to nearest even, flush to zero), exactly as fp32_mac()
// in models/ref/bf16.c, so a finished tile equals ref_gemm() bit for bit.
//
// Flags travel with the operands and qualify one step each:
//   clear_i  first k of a tile: the product *replaces* the accumulator
//            (fp32_mac_clear(): not 0 + p, which would turn a -0 product into
//            +0). A tile's first step must carry it.
//   last_i   last k of a tile: the sum after this step is copied into the
//            output register (sum_o), so the accumulator can start the next
//            tile on the very next step. last_i does not end accumulation by
//            itself: a later step without clear_i keeps adding, which lets a
//            test read every partial sum.
// Both flags are ignored (and must be low, see the assertions) on a step
// without valid_i.
//
// Pipeline and latency (cycle n is the cycle the step is on the inputs):
//   n     a_i, b_i, valid_i, flags on the ports; the product is formed.
//   n+1   a_o, b_o, valid_o, flags on the outputs for the right/bottom
//         neighbours (one register stage); the registered product is added
//         into the accumulator.
//   n+2   for a step with last_i: sum_o holds the finished sum and
//         sum_valid_o is high for this one cycle.
// So the forwarding latency is 1 and a tile's sum appears 2 cycles after its
// last step. The accumulator loop is one cycle long (register -> sa_fp32_add
// -> register), so the PE takes one step per cycle with no gaps required;
// gaps (valid_i low) are allowed anywhere.
//
// sum_o holds its value until the next step with last_i reaches the second
// stage, i.e. for at least as many cycles as the next tile has steps: the
// array's drain chain copies it out in that time. valid_o, clear_o and last_o
// are one register set; the grid may route them to the right neighbour, to
// the bottom one, or to both, since every PE of an anti-diagonal sees the same
// step at the same time.
//
// There is no preload of the accumulator from outside: a tile always starts
// with clear_i, and accumulation across tiles (C += A*B) is done outside the
// array.

`default_nettype none

module sa_pe (
    input  wire        clk_i,
    input  wire        rst_i,
    // One step in, from the left/top neighbour or the array edge.
    input  wire        valid_i,      // a_i and b_i are the operands of one step
    input  wire        clear_i,      // first step of a tile (valid steps only)
    input  wire        last_i,       // last step of a tile (valid steps only)
    input  wire [15:0] a_i,          // bf16, from the left
    input  wire [15:0] b_i,          // bf16, from the top
    // The same step out, one cycle later, to the right/bottom neighbours.
    output wire        valid_o,
    output wire        clear_o,      // low on steps without valid_o
    output wire        last_o,       // low on steps without valid_o
    output wire [15:0] a_o,          // to the right
    output wire [15:0] b_o,          // to the bottom
    // A finished tile.
    output wire        sum_valid_o,  // one-cycle pulse: sum_o was just loaded
    output wire [31:0] sum_o         // fp32 dot product; held until the next last
);

  // ---------------------------------------------------------------- stage 1
  // Forwarding registers double as the first pipeline stage: the product of
  // the step sits beside its own flags.
  reg        valid_q;
  reg        clear_q;
  reg        last_q;
  reg [15:0] a_q;
  reg [15:0] b_q;
  reg [31:0] prod_q;

  wire [31:0] prod_d;

  sa_bf16_mul u_mul (
      .a_i(a_i),
      .b_i(b_i),
      .p_o(prod_d)
  );

  // Flags are control state: reset, and gated by valid so that downstream PEs
  // never see a flag on an empty step.
  always @(posedge clk_i) begin
    if (rst_i) begin
      valid_q <= 1'b0;
      clear_q <= 1'b0;
      last_q  <= 1'b0;
    end else begin
      valid_q <= valid_i;
      clear_q <= valid_i && clear_i;
      last_q  <= valid_i && last_i;
    end
  end

  // Datapath: loaded every cycle, meaningful only beside valid_q.
  always @(posedge clk_i) begin
    a_q    <= a_i;
    b_q    <= b_i;
    prod_q <= prod_d;
  end

  // ---------------------------------------------------------------- stage 2
  reg  [31:0] acc_q;
  reg  [31:0] sum_q;
  reg         sum_valid_q;

  wire [31:0] add_d;
  wire [31:0] acc_d = clear_q ? prod_q : add_d;

  sa_fp32_add u_add (
      .x_i  (acc_q),
      .y_i  (prod_q),
      .sum_o(add_d)
  );

  always @(posedge clk_i) begin
    if (valid_q) acc_q <= acc_d;
    if (valid_q && last_q) sum_q <= acc_d;
  end

  always @(posedge clk_i) begin
    if (rst_i) sum_valid_q <= 1'b0;
    else sum_valid_q <= valid_q && last_q;
  end

  assign valid_o     = valid_q;
  assign clear_o     = clear_q;
  assign last_o      = last_q;
  assign a_o         = a_q;
  assign b_o         = b_q;
  assign sum_valid_o = sum_valid_q;
  assign sum_o       = sum_q;

`ifndef SYNTHESIS
  // The accumulator holds a defined value only once a step with clear has
  // gone through it; adding into it before that is a missing clear upstream.
  reg acc_live_q;
  always @(posedge clk_i) begin
    if (rst_i) acc_live_q <= 1'b0;
    else if (valid_q && clear_q) acc_live_q <= 1'b1;
  end

  always @(posedge clk_i) begin
    if (!rst_i) begin
      assert (valid_i || (!clear_i && !last_i))
      else $error("sa_pe: clear_i/last_i high on a step without valid_i");
      assert (!valid_q || clear_q || acc_live_q)
      else $error("sa_pe: step without clear_i into an accumulator never cleared since reset");
      // The multiplier and the adder never emit subnormals or non-canonical
      // NaNs; the C oracle compares bits, so either would be a real bug.
      assert (!valid_q || prod_q[30:23] != 8'd0 || prod_q[22:0] == 23'd0)
      else $error("sa_pe: subnormal product %h", prod_q);
      assert (!valid_q || prod_q[30:23] != 8'hFF || prod_q[22:0] == 23'd0 ||
              prod_q == 32'h7FC0_0000)
      else $error("sa_pe: non-canonical NaN product %h", prod_q);
      assert (!valid_q || acc_d[30:23] != 8'd0 || acc_d[22:0] == 23'd0)
      else $error("sa_pe: subnormal sum %h", acc_d);
    end
  end
`endif

endmodule

`default_nettype wire
