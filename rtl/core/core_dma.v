// core_dma: the compute core's memory port for a DMA engine: 64-bit reads
// and writes with byte strobes into the three scratchpads, through one
// unified byte address map (little-endian: byte b of the data is the byte
// at address addr + b):
//   A-pad  [0,             ABytes)          ABytes = AWords * W * 2
//   B-pad  [ABytes,        ABytes + BBytes)  BBytes = BWords * W * 2
//   C-pad  [ABytes+BBytes, End)              CBytes = CWords * W * 4
// Element e of the A-pad (bf16) is at byte 2e, element e of the C-pad
// (fp32) at byte C-base + 4e, so a W-element word of a pad is 2W (4W)
// consecutive bytes and a 64-bit beat holds 4 bf16 or 2 fp32 elements.
//
// Request (valid/ready): we, addr (byte, a multiple of 8), wdata, wstrb.
//   Writes to the A- and B-pads are accepted at any time: the engine only
//   reads them (software must not overwrite the operands of the command in
//   flight). Reads of any pad and writes to the C-pad are accepted only
//   while no command executes (busy_i low): ready is low otherwise, so the
//   engine never shares a pad port and its cycle counts never depend on DMA
//   traffic. ready is a function of busy_i (a register) and of the held
//   request's we/addr, never of valid.
// Response: exactly one per accepted request, in order, RespLatency = 2
//   cycles after acceptance (a request accepted in cycle t responds in
//   cycle t+2), for one cycle, no backpressure. rdata is the 64-bit beat
//   for a read, 0 for a write. err is set, and nothing is written, when the
//   address is not a multiple of 8 or the beat is outside the map; such a
//   request is accepted under the same rule as a read.

`default_nettype none

module core_dma #(
    parameter int W      = 8,    // elements per SRAM word, a multiple of 4
    parameter int AWords = 512,  // A-pad words
    parameter int BWords = 512,  // B-pad words
    parameter int CWords = 512,  // C-pad words
    localparam int AAw = AWords > 1 ? $clog2(AWords) : 1,
    localparam int BAw = BWords > 1 ? $clog2(BWords) : 1,
    localparam int CAw = CWords > 1 ? $clog2(CWords) : 1
) (
    input  wire            clk_i,
    input  wire            rst_i,
    input  wire            busy_i,        // a command is executing
    // request
    input  wire            req_valid_i,
    output wire            req_ready_o,
    input  wire            req_we_i,
    input  wire [    31:0] req_addr_i,
    input  wire [    63:0] req_wdata_i,
    input  wire [     7:0] req_wstrb_i,
    // response
    output wire            resp_valid_o,
    output wire [    63:0] resp_rdata_o,
    output wire            resp_err_o,
    // A-pad
    output wire [ W*2-1:0] a_we_o,
    output wire [ AAw-1:0] a_waddr_o,
    output wire [W*16-1:0] a_wdata_o,
    output wire            a_re_o,
    output wire [ AAw-1:0] a_raddr_o,
    input  wire [W*16-1:0] a_rdata_i,
    // B-pad
    output wire [ W*2-1:0] b_we_o,
    output wire [ BAw-1:0] b_waddr_o,
    output wire [W*16-1:0] b_wdata_o,
    output wire            b_re_o,
    output wire [ BAw-1:0] b_raddr_o,
    input  wire [W*16-1:0] b_rdata_i,
    // C-pad
    output wire [ W*4-1:0] c_we_o,
    output wire [ CAw-1:0] c_waddr_o,
    output wire [W*32-1:0] c_wdata_o,
    output wire            c_re_o,
    output wire [ CAw-1:0] c_raddr_o,
    input  wire [W*32-1:0] c_rdata_i
);

  if (W % 4 != 0) begin : g_bad_w
    cmn_param_error_W_must_be_a_multiple_of_4 u_err ();
  end
  if ((64'(AWords) + 64'(BWords)) * 64'(W) * 2 + 64'(CWords) * 64'(W) * 4 > 64'h8000_0000) begin : g_bad_map
    cmn_param_error_the_pads_must_fit_in_2GiB_of_address_space u_err ();
  end

  localparam logic [31:0] ABytes = 32'(AWords * W * 2);
  localparam logic [31:0] BBytes = 32'(BWords * W * 2);
  localparam logic [31:0] CBytes = 32'(CWords * W * 4);
  localparam logic [31:0] BBase = ABytes;
  localparam logic [31:0] CBase = ABytes + BBytes;
  localparam logic [31:0] MapEnd = CBase + CBytes;
  localparam int ABeats = W / 4;  // 64-bit beats per A/B word
  localparam int CBeats = W / 2;  // 64-bit beats per C word

  // ---------------------------------------------------------------- decode
  wire        aligned = req_addr_i[2:0] == 3'd0;
  wire        in_a = req_addr_i < BBase;
  wire        in_b = !in_a && req_addr_i < CBase;
  wire        in_c = !in_a && !in_b && req_addr_i < MapEnd;
  wire        ok = aligned && (in_a || in_b || in_c);
  wire [31:0] off_a = req_addr_i;
  wire [31:0] off_b = req_addr_i - BBase;
  wire [31:0] off_c = req_addr_i - CBase;
  // Only valid for the decoded pad, where the word index fits its width.
  wire [AAw-1:0] word_a = AAw'(off_a / (W * 2));
  wire [BAw-1:0] word_b = BAw'(off_b / (W * 2));
  wire [CAw-1:0] word_c = CAw'(off_c / (W * 4));
  wire [31:0] beat_a = off_a % (W * 2) / 8;
  wire [31:0] beat_b = off_b % (W * 2) / 8;
  wire [31:0] beat_c = off_c % (W * 4) / 8;

  assign req_ready_o = !busy_i || (req_we_i && aligned && (in_a || in_b));
  wire fire = req_valid_i && req_ready_o;

  // ---------------------------------------------------------------- pad ports
  reg [ W*2-1:0] a_we;
  reg [ W*2-1:0] b_we;
  reg [ W*4-1:0] c_we;
  reg [W*16-1:0] ab_wdata;
  reg [W*32-1:0] c_wdata;

  always @* begin
    for (int s = 0; s < ABeats; s++) begin
      a_we[s*8+:8]        = fire && req_we_i && ok && in_a && beat_a == s ? req_wstrb_i : 8'd0;
      b_we[s*8+:8]        = fire && req_we_i && ok && in_b && beat_b == s ? req_wstrb_i : 8'd0;
      ab_wdata[s*64+:64] = req_wdata_i;
    end
    for (int s = 0; s < CBeats; s++) begin
      c_we[s*8+:8]       = fire && req_we_i && ok && in_c && beat_c == s ? req_wstrb_i : 8'd0;
      c_wdata[s*64+:64] = req_wdata_i;
    end
  end

  assign a_we_o    = a_we;
  assign a_waddr_o = word_a;
  assign a_wdata_o = ab_wdata;
  assign a_re_o    = fire && !req_we_i && ok && in_a;
  assign a_raddr_o = word_a;
  assign b_we_o    = b_we;
  assign b_waddr_o = word_b;
  assign b_wdata_o = ab_wdata;
  assign b_re_o    = fire && !req_we_i && ok && in_b;
  assign b_raddr_o = word_b;
  assign c_we_o    = c_we;
  assign c_waddr_o = word_c;
  assign c_wdata_o = c_wdata;
  assign c_re_o    = fire && !req_we_i && ok && in_c;
  assign c_raddr_o = word_c;

  // ---------------------------------------------------------------- response
  // Stage 1 (t+1): the pad's registered read data; stage 2 (t+2): response.
  reg        p1_valid_q;
  reg        p1_read_q;  // a good read
  reg        p1_err_q;
  reg [ 1:0] p1_pad_q;  // 0 A, 1 B, 2 C
  reg [31:0] p1_beat_q;
  reg        r_valid_q;
  reg [63:0] r_data_q;
  reg        r_err_q;

  always @(posedge clk_i) begin
    if (rst_i) begin
      p1_valid_q <= 1'b0;
      r_valid_q  <= 1'b0;
    end else begin
      p1_valid_q <= fire;
      r_valid_q  <= p1_valid_q;
    end
  end

  always @(posedge clk_i) begin
    p1_read_q <= fire && !req_we_i && ok;
    p1_err_q  <= !ok;
    p1_pad_q  <= in_a ? 2'd0 : in_b ? 2'd1 : 2'd2;
    p1_beat_q <= in_a ? beat_a : in_b ? beat_b : beat_c;
  end

  reg [63:0] rd_beat;
  always @* begin
    rd_beat = 64'd0;
    for (int s = 0; s < ABeats; s++) begin
      if (p1_pad_q == 2'd0 && p1_beat_q == s) rd_beat = a_rdata_i[s*64+:64];
      if (p1_pad_q == 2'd1 && p1_beat_q == s) rd_beat = b_rdata_i[s*64+:64];
    end
    for (int s = 0; s < CBeats; s++) begin
      if (p1_pad_q == 2'd2 && p1_beat_q == s) rd_beat = c_rdata_i[s*64+:64];
    end
    if (!p1_read_q) rd_beat = 64'd0;
  end

  always @(posedge clk_i) begin
    if (p1_valid_q) begin
      r_data_q <= rd_beat;
      r_err_q  <= p1_err_q;
    end
  end

  assign resp_valid_o = r_valid_q;
  assign resp_rdata_o = r_data_q;
  assign resp_err_o   = r_err_q;

`ifndef SYNTHESIS
  // A held request keeps its payload (handshake rule 2), so ready, which
  // depends on it, can only rise while the request waits.
  reg        held_q;
  reg [31:0] held_addr_q;
  reg        held_we_q;
  always @(posedge clk_i) begin
    if (rst_i) begin
      held_q <= 1'b0;
    end else begin
      held_q      <= req_valid_i && !req_ready_o;
      held_addr_q <= req_addr_i;
      held_we_q   <= req_we_i;
      if (held_q) begin
        assert (req_valid_i && req_addr_i == held_addr_q && req_we_i == held_we_q)
        else $error("core_dma: request changed while stalled");
      end
    end
  end
`endif

endmodule

`default_nettype wire
