// dma_ports: routes the DMA's reads and writes to its two memory ports, each through a skid
// buffer. A load reads the tensor buffer and writes the SRAM; a store reads the SRAM and
// writes the tensor buffer. Read requests carry no data (wdata and wstrb zero).

`default_nettype none

module dma_ports #(
    parameter int SramAddrW = 20  // bits of an SRAM byte address
) (
    input  wire                 clk_i,
    input  wire                 rst_i,
    input  wire                 store_i,      // direction of the running transfer
    // reads
    input  wire                 rd_valid_i,
    output wire                 rd_ready_o,
    input  wire [         39:0] rd_addr_i,
    // writes
    input  wire                 wr_valid_i,
    output wire                 wr_ready_o,
    input  wire [         39:0] wr_addr_i,
    input  wire [         63:0] wr_wdata_i,
    input  wire [          7:0] wr_wstrb_i,
    // tensor buffer requests
    output wire                 mem_valid_o,
    input  wire                 mem_ready_i,
    output wire                 mem_write_o,
    output wire [         39:0] mem_addr_o,
    output wire [         63:0] mem_wdata_o,
    output wire [          7:0] mem_wstrb_o,
    // SRAM requests
    output wire                 sram_valid_o,
    input  wire                 sram_ready_i,
    output wire                 sram_write_o,
    output wire [SramAddrW-1:0] sram_addr_o,
    output wire [         63:0] sram_wdata_o,
    output wire [          7:0] sram_wstrb_o
);

  localparam int MemW = 1 + 40 + 64 + 8;
  localparam int SramW = 1 + SramAddrW + 64 + 8;

  wire mem_in_ready, sram_in_ready;
  wire [MemW-1:0] mem_in = store_i ? {1'b1, wr_addr_i, wr_wdata_i, wr_wstrb_i}
                                   : {1'b0, rd_addr_i, 64'd0, 8'd0};
  wire [SramW-1:0] sram_in = store_i ? {1'b0, rd_addr_i[SramAddrW-1:0], 64'd0, 8'd0}
                                     : {1'b1, wr_addr_i[SramAddrW-1:0], wr_wdata_i, wr_wstrb_i};
  wire [MemW-1:0] mem_out;
  wire [SramW-1:0] sram_out;

  assign rd_ready_o = store_i ? sram_in_ready : mem_in_ready;
  assign wr_ready_o = store_i ? mem_in_ready : sram_in_ready;

  cmn_skid_buf #(
      .Width(MemW)
  ) u_mem_skid (
      .clk_i,
      .rst_i,
      .in_valid_i (store_i ? wr_valid_i : rd_valid_i),
      .in_ready_o (mem_in_ready),
      .in_data_i  (mem_in),
      .out_valid_o(mem_valid_o),
      .out_ready_i(mem_ready_i),
      .out_data_o (mem_out)
  );

  cmn_skid_buf #(
      .Width(SramW)
  ) u_sram_skid (
      .clk_i,
      .rst_i,
      .in_valid_i (store_i ? rd_valid_i : wr_valid_i),
      .in_ready_o (sram_in_ready),
      .in_data_i  (sram_in),
      .out_valid_o(sram_valid_o),
      .out_ready_i(sram_ready_i),
      .out_data_o (sram_out)
  );

  assign {mem_write_o, mem_addr_o, mem_wdata_o, mem_wstrb_o} = mem_out;
  assign {sram_write_o, sram_addr_o, sram_wdata_o, sram_wstrb_o} = sram_out;

endmodule

`default_nettype wire
