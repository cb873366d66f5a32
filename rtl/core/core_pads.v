// core_pads: the compute core's three scratchpads and who may use their
// ports.
//
//   A-pad, B-pad: W bf16 per word. Write port: the DMA only (the engine
//     never writes its operands). Read port: the operand loader while a
//     command runs, the DMA otherwise.
//   C-pad: W fp32 per word. Read and write ports: the write-back while a
//     command runs, the DMA otherwise.
// core_dma only issues reads and C-pad writes while no command runs, so the
// two users of a port never meet (assertions below); the DMA wins the mux.
// Each pad is a cmn_ram_1r1w (registered read, byte write enables).

`default_nettype none

module core_pads #(
    parameter int W      = 8,    // elements per word
    parameter int AWords = 512,  // A-pad words
    parameter int BWords = 512,  // B-pad words
    parameter int CWords = 512,  // C-pad words
    localparam int AAw = AWords > 1 ? $clog2(AWords) : 1,
    localparam int BAw = BWords > 1 ? $clog2(BWords) : 1,
    localparam int CAw = CWords > 1 ? $clog2(CWords) : 1
) (
    input  wire            clk_i,
    input  wire            rst_i,
    // A-pad: DMA
    input  wire [ W*2-1:0] dma_a_we_i,
    input  wire [ AAw-1:0] dma_a_waddr_i,
    input  wire [W*16-1:0] dma_a_wdata_i,
    input  wire            dma_a_re_i,
    input  wire [ AAw-1:0] dma_a_raddr_i,
    // A-pad: operand loader
    input  wire            eng_a_re_i,
    input  wire [ AAw-1:0] eng_a_raddr_i,
    output wire [W*16-1:0] a_rdata_o,
    // B-pad: DMA
    input  wire [ W*2-1:0] dma_b_we_i,
    input  wire [ BAw-1:0] dma_b_waddr_i,
    input  wire [W*16-1:0] dma_b_wdata_i,
    input  wire            dma_b_re_i,
    input  wire [ BAw-1:0] dma_b_raddr_i,
    // B-pad: operand loader
    input  wire            eng_b_re_i,
    input  wire [ BAw-1:0] eng_b_raddr_i,
    output wire [W*16-1:0] b_rdata_o,
    // C-pad: DMA
    input  wire [ W*4-1:0] dma_c_we_i,
    input  wire [ CAw-1:0] dma_c_waddr_i,
    input  wire [W*32-1:0] dma_c_wdata_i,
    input  wire            dma_c_re_i,
    input  wire [ CAw-1:0] dma_c_raddr_i,
    // C-pad: write-back
    input  wire [ W*4-1:0] eng_c_we_i,
    input  wire [ CAw-1:0] eng_c_waddr_i,
    input  wire [W*32-1:0] eng_c_wdata_i,
    input  wire            eng_c_re_i,
    input  wire [ CAw-1:0] eng_c_raddr_i,
    output wire [W*32-1:0] c_rdata_o
);

  wire dma_c_wr = dma_c_we_i != '0;

  cmn_ram_1r1w #(
      .Width(W * 16),
      .Depth(AWords),
      .LaneW(8)
  ) u_apad (
      .clk_i  (clk_i),
      .we_i   (dma_a_we_i),
      .waddr_i(dma_a_waddr_i),
      .wdata_i(dma_a_wdata_i),
      .re_i   (eng_a_re_i || dma_a_re_i),
      .raddr_i(dma_a_re_i ? dma_a_raddr_i : eng_a_raddr_i),
      .rdata_o(a_rdata_o)
  );

  cmn_ram_1r1w #(
      .Width(W * 16),
      .Depth(BWords),
      .LaneW(8)
  ) u_bpad (
      .clk_i  (clk_i),
      .we_i   (dma_b_we_i),
      .waddr_i(dma_b_waddr_i),
      .wdata_i(dma_b_wdata_i),
      .re_i   (eng_b_re_i || dma_b_re_i),
      .raddr_i(dma_b_re_i ? dma_b_raddr_i : eng_b_raddr_i),
      .rdata_o(b_rdata_o)
  );

  cmn_ram_1r1w #(
      .Width(W * 32),
      .Depth(CWords),
      .LaneW(8)
  ) u_cpad (
      .clk_i  (clk_i),
      .we_i   (dma_c_wr ? dma_c_we_i : eng_c_we_i),
      .waddr_i(dma_c_wr ? dma_c_waddr_i : eng_c_waddr_i),
      .wdata_i(dma_c_wr ? dma_c_wdata_i : eng_c_wdata_i),
      .re_i   (eng_c_re_i || dma_c_re_i),
      .raddr_i(dma_c_re_i ? dma_c_raddr_i : eng_c_raddr_i),
      .rdata_o(c_rdata_o)
  );

`ifndef SYNTHESIS
  always @(posedge clk_i) begin
    if (!rst_i) begin
      assert (!(dma_a_re_i && eng_a_re_i) && !(dma_b_re_i && eng_b_re_i))
      else $error("core_pads: DMA and loader read an operand pad in one cycle");
      assert (!(dma_c_re_i && eng_c_re_i) && !(dma_c_wr && eng_c_we_i != '0))
      else $error("core_pads: DMA and write-back use a C-pad port in one cycle");
    end
  end
`endif

endmodule

`default_nettype wire
