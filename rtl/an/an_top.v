// an_top: the Activation Node datapath: the tensor-buffer DMA (rtl/dma) and the compute core
// (rtl/core) joined at the core's DMA port, as one block. Outside: the DMA's descriptor and
// completion ports, the tensor-buffer memory port (rtl/README.md), and the core's GEMM command
// and completion ports. A layer runs as: DMA in (A, B, or a transposed weight), GEMM, DMA out.
//
// The DMA sees the core's scratchpads through their unified byte map (rtl/core/core_dma.v:
// A-pad at 0, then B-pad, then C-pad); its SramBytes is the end of that map, so a descriptor
// that reaches past the C-pad is rejected before it moves anything. The core answers every DMA
// request 2 cycles after accepting it (SramLat = 2) and holds reads and C-pad writes back while
// a command runs.

`default_nettype none

module an_top #(
    parameter int Rows      = 8,                 // systolic array rows
    parameter int Cols      = 8,                 // systolic array columns
    parameter int AWords    = 512,               // A-pad words (W bf16 each)
    parameter int BWords    = 512,               // B-pad words (W bf16 each)
    parameter int CWords    = 512,               // C-pad words (W fp32 each)
    parameter int TbSizeKiB = 16 * 1024 * 1024,  // tensor buffer size, KiB (16 GiB)
    parameter int MaxRdOut  = 64,                // DMA reads in flight, power of 2
    parameter int DescDepth = 4,                 // DMA descriptor queue, power of 2
    parameter int CplDepth  = 4,                 // DMA completion queue, power of 2
    parameter int PeLoop    = 0                  // the core's grid: 1 one loop (sa_grid.v)
) (
    input  wire        clk_i,
    input  wire        rst_i,
    // DMA descriptors (rtl/dma/README.md)
    input  wire        desc_valid_i,
    output wire        desc_ready_o,
    input  wire        desc_store_i,
    input  wire        desc_xpose_i,
    input  wire [ 7:0] desc_tag_i,
    input  wire [39:0] desc_src_i,
    input  wire [39:0] desc_dst_i,
    input  wire [15:0] desc_rows_i,
    input  wire [23:0] desc_len_i,
    input  wire [39:0] desc_src_stride_i,
    input  wire [39:0] desc_dst_stride_i,
    // DMA completions
    output wire        cpl_valid_o,
    input  wire        cpl_ready_i,
    output wire [ 7:0] cpl_tag_o,
    output wire [ 2:0] cpl_status_o,
    output wire [31:0] cpl_cycles_o,
    // tensor buffer memory port
    output wire        mem_req_valid_o,
    input  wire        mem_req_ready_i,
    output wire        mem_req_write_o,
    output wire [39:0] mem_req_addr_o,
    output wire [63:0] mem_req_wdata_o,
    output wire [ 7:0] mem_req_wstrb_o,
    input  wire        mem_rsp_valid_i,
    output wire        mem_rsp_ready_o,
    input  wire [63:0] mem_rsp_rdata_i,
    input  wire        mem_rsp_err_i,
    // GEMM commands (rtl/core/README.md)
    input  wire        cmd_valid_i,
    output wire        cmd_ready_o,
    input  wire [31:0] cmd_m_i,
    input  wire [31:0] cmd_n_i,
    input  wire [31:0] cmd_k_i,
    input  wire [31:0] cmd_a_addr_i,
    input  wire [31:0] cmd_b_addr_i,
    input  wire [31:0] cmd_c_addr_i,
    input  wire [31:0] cmd_lda_i,
    input  wire [31:0] cmd_ldb_i,
    input  wire [31:0] cmd_ldc_i,
    input  wire        cmd_trans_a_i,
    input  wire        cmd_trans_b_i,
    input  wire        cmd_accumulate_i,
    // GEMM completions
    output wire        done_valid_o,
    input  wire        done_ready_i,
    output wire [ 2:0] done_status_o,
    output wire [31:0] done_cycles_o,
    // status
    output wire        dma_idle_o,  // the DMA has nothing queued, running or unreported
    output wire        busy_o       // the core is executing a command
);

  // The core's SRAM word, W = lcm(Rows, Cols, 4) elements, as core_top computes it; the map
  // end follows (core_dma.v). Assignment to the function name, for Yosys 0.23.
  function automatic int gcd(input int a, input int b);
    int x, y, t;
    x = a;
    y = b;
    for (int i = 0; i < 32; i++) begin
      if (y != 0) begin
        t = x % y;
        x = y;
        y = t;
      end
    end
    gcd = x;
  endfunction

  localparam int Lrc = Rows / gcd(Rows, Cols) * Cols;
  localparam int W = Lrc / gcd(Lrc, 4) * 4;
  localparam int MapBytes = (AWords + BWords) * W * 2 + CWords * W * 4;

  // The DMA-core port is readable from C (public_flat_rd): the lockstep backend compares the
  // DMA's SRAM requests with its twin's every cycle (models/an/an_be_rtl.c).
  wire sram_valid  /*verilator public_flat_rd*/;
  wire sram_ready;
  wire sram_write  /*verilator public_flat_rd*/;
  wire [31:0] sram_addr  /*verilator public_flat_rd*/;
  wire [63:0] sram_wdata  /*verilator public_flat_rd*/;
  wire [ 7:0] sram_wstrb  /*verilator public_flat_rd*/;
  wire        sram_rsp_valid, sram_rsp_err;
  wire [63:0] sram_rsp_rdata;

  dma_top #(
      .SramAddrW(32),
      .SramBytes(MapBytes),
      .TbSizeKiB(TbSizeKiB),
      .SramLat  (2),
      .MaxRdOut (MaxRdOut),
      .DescDepth(DescDepth),
      .CplDepth (CplDepth)
  ) u_dma (
      .clk_i,
      .rst_i,
      .desc_valid_i,
      .desc_ready_o,
      .desc_store_i,
      .desc_xpose_i,
      .desc_tag_i,
      .desc_src_i,
      .desc_dst_i,
      .desc_rows_i,
      .desc_len_i,
      .desc_src_stride_i,
      .desc_dst_stride_i,
      .cpl_valid_o,
      .cpl_ready_i,
      .cpl_tag_o,
      .cpl_status_o,
      .cpl_cycles_o,
      .mem_req_valid_o,
      .mem_req_ready_i,
      .mem_req_write_o,
      .mem_req_addr_o,
      .mem_req_wdata_o,
      .mem_req_wstrb_o,
      .mem_rsp_valid_i,
      .mem_rsp_ready_o,
      .mem_rsp_rdata_i,
      .mem_rsp_err_i,
      .sram_req_valid_o(sram_valid),
      .sram_req_ready_i(sram_ready),
      .sram_req_write_o(sram_write),
      .sram_req_addr_o (sram_addr),
      .sram_req_wdata_o(sram_wdata),
      .sram_req_wstrb_o(sram_wstrb),
      .sram_rsp_valid_i(sram_rsp_valid),
      .sram_rsp_rdata_i(sram_rsp_rdata),
      .sram_rsp_err_i  (sram_rsp_err),
      .idle_o          (dma_idle_o)
  );

  core_top #(
      .Rows  (Rows),
      .Cols  (Cols),
      .AWords(AWords),
      .BWords(BWords),
      .CWords(CWords),
      .PeLoop(PeLoop)
  ) u_core (
      .clk_i,
      .rst_i,
      .cmd_valid_i,
      .cmd_ready_o,
      .cmd_m_i,
      .cmd_n_i,
      .cmd_k_i,
      .cmd_a_addr_i,
      .cmd_b_addr_i,
      .cmd_c_addr_i,
      .cmd_lda_i,
      .cmd_ldb_i,
      .cmd_ldc_i,
      .cmd_trans_a_i,
      .cmd_trans_b_i,
      .cmd_accumulate_i,
      .done_valid_o,
      .done_ready_i,
      .done_status_o,
      .done_cycles_o,
      .dma_req_valid_i (sram_valid),
      .dma_req_ready_o (sram_ready),
      .dma_req_we_i    (sram_write),
      .dma_req_addr_i  (sram_addr),
      .dma_req_wdata_i (sram_wdata),
      .dma_req_wstrb_i (sram_wstrb),
      .dma_resp_valid_o(sram_rsp_valid),
      .dma_resp_rdata_o(sram_rsp_rdata),
      .dma_resp_err_o  (sram_rsp_err),
      .busy_o
  );

endmodule

`default_nettype wire
