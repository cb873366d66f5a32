// dma_top: the tensor-buffer DMA of an Activation Node. It moves 2-D blocks of bytes between
// the node's tensor buffer (the memory port of rtl/README.md) and the compute core's SRAM
// (the core's DMA port), in either direction, with an optional transpose of 2-byte elements
// on the way into SRAM. The descriptor format and the checks are in rtl/dma/README.md and
// models/dma/dma_desc.h; dma_ctl.v has the checks, dma_agen.v the address walk.
//
// Datapath, one beat (8 bytes) per cycle when nothing stalls:
//
//   desc -> dma_ctl [desc FIFO] -> start
//   rd dma_agen -> read requests -> dma_ports [skid] -> TB or SRAM  (meta FIFO: per-beat sideband)
//   TB or SRAM read data -> [data FIFO] -> dma_rd_pack -> dma_xpose -> dma_wr -> dma_ports [skid]
//   -> SRAM or TB
//   dma_ctl [completion FIFO] -> cpl
//
// A read is issued only while the meta FIFO has room: the meta FIFO holds one entry per read
// from issue to consumption, and the data FIFO is as deep, so every read response has a place
// to land. That is what lets the SRAM answer reads a fixed latency later with no backpressure,
// and lets mem_rsp_ready_o stay high. Both memories answer every write too: a descriptor is
// done when its last write has been acknowledged, and one descriptor runs at a time.

`default_nettype none

module dma_top #(
    parameter int SramAddrW = 20,                // bits of an SRAM byte address
    parameter int SramBytes = 1 << 20,           // size of the SRAM map, <= 2^SramAddrW
    parameter int TbSizeKiB = 16 * 1024 * 1024,  // size of the tensor buffer, KiB (16 GiB)
    parameter int SramLat   = 2,                 // SRAM response latency, cycles (checked)
    parameter int MaxRdOut  = 64,                // reads in flight or buffered, power of 2
    parameter int MaxWrOut  = 128,               // writes awaiting acknowledgement
    parameter int DescDepth = 4,                 // descriptor queue, power of 2
    parameter int CplDepth  = 4,                 // completion queue, power of 2
    // Field widths of the descriptor and completion ports
    localparam int AddrBits   = 40,  // src, dst and the strides; C: DMA_ADDR_BITS
    localparam int RowsBits   = 16,  // C: DMA_ROWS_BITS
    localparam int LenBits    = 24,  // C: DMA_LEN_BITS
    localparam int TagBits    = 8,   // C: DMA_TAG_BITS
    localparam int StatusBits = 3,
    localparam int CyclesBits = 32   // C: DMA_CYCLES_BITS
) (
    input  wire                  clk_i,
    input  wire                  rst_i,
    // descriptors
    input  wire                  desc_valid_i,
    output wire                  desc_ready_o,
    input  wire                  desc_store_i,       // 0: TB -> SRAM, 1: SRAM -> TB
    input  wire                  desc_xpose_i,       // transpose 2-byte elements (loads)
    input  wire [   TagBits-1:0] desc_tag_i,         // echoed in the completion
    input  wire [  AddrBits-1:0] desc_src_i,         // source byte address
    input  wire [  AddrBits-1:0] desc_dst_i,         // destination byte address
    input  wire [  RowsBits-1:0] desc_rows_i,        // source rows
    input  wire [   LenBits-1:0] desc_len_i,         // bytes per source row
    input  wire [  AddrBits-1:0] desc_src_stride_i,  // bytes between source rows
    input  wire [  AddrBits-1:0] desc_dst_stride_i,  // bytes between destination rows
    // completions
    output wire                  cpl_valid_o,
    input  wire                  cpl_ready_i,
    output wire [   TagBits-1:0] cpl_tag_o,
    output wire [StatusBits-1:0] cpl_status_o,       // 0 ok, 1 bad, 2/3 src/dst range, 4 mem
    output wire [CyclesBits-1:0] cpl_cycles_o,       // queue exit to completion, saturating
    // tensor buffer memory port (rtl/README.md)
    output wire                  mem_req_valid_o,
    input  wire                  mem_req_ready_i,
    output wire                  mem_req_write_o,
    output wire [          39:0] mem_req_addr_o,
    output wire [          63:0] mem_req_wdata_o,
    output wire [           7:0] mem_req_wstrb_o,
    input  wire                  mem_rsp_valid_i,
    output wire                  mem_rsp_ready_o,
    input  wire [          63:0] mem_rsp_rdata_i,
    input  wire                  mem_rsp_err_i,
    // core SRAM port (rtl/core/core_dma.v): one response per request, SramLat cycles after
    // acceptance, no backpressure
    output wire                  sram_req_valid_o,
    input  wire                  sram_req_ready_i,
    output wire                  sram_req_write_o,
    output wire [ SramAddrW-1:0] sram_req_addr_o,
    output wire [          63:0] sram_req_wdata_o,
    output wire [           7:0] sram_req_wstrb_o,
    input  wire                  sram_rsp_valid_i,
    input  wire [          63:0] sram_rsp_rdata_i,
    input  wire                  sram_rsp_err_i,
    // status
    output wire                  idle_o              // nothing queued, running or unreported
);

  // A read's sideband (dma_agen's beat_*): first, last, off, end, tlast, wm1.
  localparam int MetaW = 1 + 1 + 3 + 3 + 1 + 2;

  if (SramAddrW < 4 || SramAddrW > 40) begin : g_bad_addrw
    cmn_param_error_SramAddrW_must_be_4_to_40 u_err ();
  end
  if (SramAddrW < 31 && SramBytes > (1 << SramAddrW)) begin : g_bad_sram
    cmn_param_error_SramBytes_exceeds_2_pow_SramAddrW u_err ();
  end
  if (SramLat < 1) begin : g_bad_lat
    cmn_param_error_SramLat_must_be_at_least_1 u_err ();
  end

  // ---------------------------------------------------------------- control
  wire                xfer_store, xfer_xpose, start;
  wire [AddrBits-1:0] xfer_src, xfer_dst, xfer_src_stride, xfer_dst_stride;
  wire [RowsBits-1:0] xfer_rows;
  wire [ LenBits-1:0] xfer_len;
  wire rd_done, wr_done, wr_fire, wr_gate;

  dma_ctl #(
      .SramBytes(SramBytes),
      .TbSizeKiB(TbSizeKiB),
      .MaxWrOut (MaxWrOut),
      .DescDepth(DescDepth),
      .CplDepth (CplDepth)
  ) u_ctl (
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
      .xfer_store_o     (xfer_store),
      .xfer_xpose_o     (xfer_xpose),
      .xfer_src_o       (xfer_src),
      .xfer_dst_o       (xfer_dst),
      .xfer_rows_o      (xfer_rows),
      .xfer_len_o       (xfer_len),
      .xfer_src_stride_o(xfer_src_stride),
      .xfer_dst_stride_o(xfer_dst_stride),
      .start_o          (start),
      .rd_done_i        (rd_done),
      .wr_done_i        (wr_done),
      .wr_fire_i        (wr_fire),
      .wr_ack_i         (xfer_store ? mem_rsp_valid_i : sram_rsp_valid_i),
      .rsp_valid_i      (mem_rsp_valid_i || sram_rsp_valid_i),
      .rsp_err_i        (mem_rsp_valid_i && mem_rsp_err_i || sram_rsp_valid_i && sram_rsp_err_i),
      .wr_gate_o        (wr_gate),
      .cpl_valid_o,
      .cpl_ready_i,
      .cpl_tag_o,
      .cpl_status_o,
      .cpl_cycles_o,
      .idle_o
  );

  // ---------------------------------------------------------------- read side
  wire        rd_beat_valid, rd_beat_first, rd_beat_last, rd_beat_tlast;
  wire [39:0] rd_beat_addr;
  wire [ 2:0] rd_beat_off, rd_beat_end;
  wire [ 1:0] rd_beat_wm1;
  wire meta_in_ready, rd_ready;
  wire rd_issue = rd_beat_valid && meta_in_ready;  // a read with a place for its data
  wire rd_fire = rd_issue && rd_ready;

  dma_agen #(
      .AddrW(40)
  ) u_rd_agen (
      .clk_i,
      .rst_i,
      .start_i     (start),
      .tile_i      (xfer_xpose),
      .colmajor_i  (1'b0),
      .base_i      (xfer_src),
      .stride_i    (xfer_src_stride),
      .rows_i      ({8'd0, xfer_rows}),
      .len_i       (xfer_len),
      .done_o      (rd_done),
      .beat_valid_o(rd_beat_valid),
      .beat_ready_i(rd_fire),
      .beat_addr_o (rd_beat_addr),
      .beat_first_o(rd_beat_first),
      .beat_last_o (rd_beat_last),
      .beat_off_o  (rd_beat_off),
      .beat_end_o  (rd_beat_end),
      .beat_tlast_o(rd_beat_tlast),
      .beat_wm1_o  (rd_beat_wm1)
  );

  // Sideband of every read in flight, from issue until dma_rd_pack consumes its data.
  wire                      meta_valid, pack_take;
  wire [         MetaW-1:0] meta;
  wire [$clog2(MaxRdOut):0] meta_count, data_count;
  wire meta_first, meta_last, meta_tlast;
  wire [2:0] meta_off, meta_end;
  wire [1:0] meta_wm1;

  cmn_fifo #(
      .Width(MetaW),
      .Depth(MaxRdOut)
  ) u_meta_q (
      .clk_i,
      .rst_i,
      .in_valid_i (rd_fire),
      .in_ready_o (meta_in_ready),
      .in_data_i  ({rd_beat_first, rd_beat_last, rd_beat_off, rd_beat_end, rd_beat_tlast,
                    rd_beat_wm1}),
      .out_valid_o(meta_valid),
      .out_ready_i(pack_take),
      .out_data_o (meta),
      .count_o    (meta_count)
  );

  assign {meta_first, meta_last, meta_off, meta_end, meta_tlast, meta_wm1} = meta;

  // Read data from whichever memory is the source.
  wire        data_push = xfer_store ? sram_rsp_valid_i : mem_rsp_valid_i;
  wire        data_valid, data_in_ready;
  wire [63:0] data;

  cmn_fifo #(
      .Width(64),
      .Depth(MaxRdOut)
  ) u_data_q (
      .clk_i,
      .rst_i,
      .in_valid_i (data_push),
      .in_ready_o (data_in_ready),
      .in_data_i  (xfer_store ? sram_rsp_rdata_i : mem_rsp_rdata_i),
      .out_valid_o(data_valid),
      .out_ready_i(pack_take),
      .out_data_o (data),
      .count_o    (data_count)
  );

  wire        packed_valid, packed_ready, packed_slast, packed_tlast;
  wire [63:0] packed_data;
  wire [ 1:0] packed_wm1;

  dma_rd_pack u_pack (
      .clk_i,
      .rst_i,
      .in_valid_i (data_valid),
      .in_ready_o (pack_take),
      .in_data_i  (data),
      .in_first_i (meta_first),
      .in_last_i  (meta_last),
      .in_off_i   (meta_off),
      .in_end_i   (meta_end),
      .in_tlast_i (meta_tlast),
      .in_wm1_i   (meta_wm1),
      .out_valid_o(packed_valid),
      .out_ready_i(packed_ready),
      .out_data_o (packed_data),
      .out_slast_o(packed_slast),
      .out_tlast_o(packed_tlast),
      .out_wm1_o  (packed_wm1)
  );

  wire        xpose_valid, xpose_ready;
  wire [63:0] xpose_data;

  dma_xpose u_xpose (
      .clk_i,
      .rst_i,
      .en_i       (xfer_xpose),
      .in_valid_i (packed_valid),
      .in_ready_o (packed_ready),
      .in_data_i  (packed_data),
      .in_tlast_i (packed_tlast),
      .in_wm1_i   (packed_wm1),
      .out_valid_o(xpose_valid),
      .out_ready_i(xpose_ready),
      .out_data_o (xpose_data)
  );

  // ---------------------------------------------------------------- write side
  wire        wr_beat_valid, wr_beat_ready, wr_beat_first, wr_beat_last;
  wire [39:0] wr_beat_addr;
  wire [ 2:0] wr_beat_off, wr_beat_end;
  wire        wr_valid, wr_ready;
  wire [39:0] wr_addr;
  wire [63:0] wr_wdata;
  wire [ 7:0] wr_wstrb;

  dma_agen #(
      .AddrW(40)
  ) u_wr_agen (
      .clk_i,
      .rst_i,
      .start_i     (start),
      .tile_i      (xfer_xpose),
      .colmajor_i  (1'b1),
      .base_i      (xfer_dst),
      .stride_i    (xfer_dst_stride),
      .rows_i      (xfer_xpose ? {1'b0, xfer_len[23:1]} : {8'd0, xfer_rows}),
      .len_i       (xfer_xpose ? {7'd0, xfer_rows, 1'b0} : xfer_len),
      .done_o      (wr_done),
      .beat_valid_o(wr_beat_valid),
      .beat_ready_i(wr_beat_ready),
      .beat_addr_o (wr_beat_addr),
      .beat_first_o(wr_beat_first),
      .beat_last_o (wr_beat_last),
      .beat_off_o  (wr_beat_off),
      .beat_end_o  (wr_beat_end),
      // The tile sideband is for the transpose buffer, which sits on the read side.
      /* verilator lint_off PINCONNECTEMPTY */
      .beat_tlast_o(),
      .beat_wm1_o  ()
      /* verilator lint_on PINCONNECTEMPTY */
  );

  dma_wr #(
      .AddrW(40)
  ) u_wr (
      .clk_i,
      .rst_i,
      .gate_i      (wr_gate),
      .beat_valid_i(wr_beat_valid),
      .beat_ready_o(wr_beat_ready),
      .beat_addr_i (wr_beat_addr),
      .beat_first_i(wr_beat_first),
      .beat_last_i (wr_beat_last),
      .beat_off_i  (wr_beat_off),
      .beat_end_i  (wr_beat_end),
      .in_valid_i  (xpose_valid),
      .in_ready_o  (xpose_ready),
      .in_data_i   (xpose_data),
      .req_valid_o (wr_valid),
      .req_ready_i (wr_ready),
      .req_addr_o  (wr_addr),
      .req_wdata_o (wr_wdata),
      .req_wstrb_o (wr_wstrb)
  );

  assign wr_fire = wr_valid && wr_ready;

  // ---------------------------------------------------------------- memory ports
  dma_ports #(
      .SramAddrW(SramAddrW)
  ) u_ports (
      .clk_i,
      .rst_i,
      .store_i     (xfer_store),
      .rd_valid_i  (rd_issue),
      .rd_ready_o  (rd_ready),
      .rd_addr_i   (rd_beat_addr),
      .wr_valid_i  (wr_valid),
      .wr_ready_o  (wr_ready),
      .wr_addr_i   (wr_addr),
      .wr_wdata_i  (wr_wdata),
      .wr_wstrb_i  (wr_wstrb),
      .mem_valid_o (mem_req_valid_o),
      .mem_ready_i (mem_req_ready_i),
      .mem_write_o (mem_req_write_o),
      .mem_addr_o  (mem_req_addr_o),
      .mem_wdata_o (mem_req_wdata_o),
      .mem_wstrb_o (mem_req_wstrb_o),
      .sram_valid_o(sram_req_valid_o),
      .sram_ready_i(sram_req_ready_i),
      .sram_write_o(sram_req_write_o),
      .sram_addr_o (sram_req_addr_o),
      .sram_wdata_o(sram_req_wdata_o),
      .sram_wstrb_o(sram_req_wstrb_o)
  );

  // Every read has a place reserved for its data (see above): responses never wait.
  assign mem_rsp_ready_o = 1'b1;

`ifndef SYNTHESIS
  // The SRAM answers every request exactly SramLat cycles after accepting it.
  reg [SramLat-1:0] sram_acc_q;
  always @(posedge clk_i) begin
    if (rst_i) begin
      sram_acc_q <= '0;
    end else begin
      sram_acc_q[0] <= sram_req_valid_o && sram_req_ready_i;
      for (int k = 1; k < SramLat; k++) sram_acc_q[k] <= sram_acc_q[k-1];
    end
  end

  always @(posedge clk_i) begin
    if (!rst_i) begin
      assert (sram_rsp_valid_i == sram_acc_q[SramLat-1])
      else $error("dma_top: SRAM response %s, expected %0d cycles after each request",
                  sram_rsp_valid_i ? "without a request" : "missing", SramLat);
      assert (!(data_push && !data_in_ready))
      else $error("dma_top: read data with no room reserved for it");
      assert (!data_valid || meta_valid)
      else $error("dma_top: read data without its sideband");
      assert (data_count <= meta_count)
      else $error("dma_top: more read data (%0d) than reads (%0d)", data_count, meta_count);
      assert (!(start && (meta_valid || packed_valid || xpose_valid)))
      else $error("dma_top: a transfer starts with data of the last one still inside");
      assert (!(xfer_xpose && packed_valid && !packed_slast))
      else $error("dma_top: a transposed source row longer than one packed beat");
      assert (!(start && !(rd_done && wr_done)))
      else $error("dma_top: started while a transfer is running");
    end
  end
`endif

endmodule

`default_nettype wire
