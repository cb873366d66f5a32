// dma_ctl: queues descriptors, takes them one at a time, checks them, starts the address
// generators, waits for the transfer to land and queues a completion.
//
// States: IDLE (take the descriptor queue's head into the descriptor registers), CHECK (decide the
// status from the registers: a bad descriptor goes straight to CPL and moves nothing), RUN
// (both address generators walking; done when both have finished, every read has been
// consumed and every write has been acknowledged by the destination memory), CPL (push tag,
// status and cycle count into the completion queue).
//
// The checks (first match wins; see models/dma/dma_desc.h for the same in C):
//   BAD_DESC   rows == 0, len == 0, transpose on a store or with an odd len, or destination
//              rows that overlap (more than one row and dst_stride < destination row length);
//   SRC_RANGE  src + (rows - 1) * src_stride + len > size of the source memory;
//   DST_RANGE  the same for the destination, with its rows and row length (transposed: len/2
//              rows of 2 * rows bytes).
// MEM_ERR is set when either memory answers any request of the transfer with an error.

`default_nettype none

module dma_ctl #(
    parameter int SramBytes = 1 << 20,           // size of the SRAM map
    parameter int TbSizeKiB = 16 * 1024 * 1024,  // size of the tensor buffer, KiB
    parameter int MaxWrOut  = 128,               // writes issued, not yet acknowledged
    parameter int DescDepth = 4,                 // descriptor queue entries, power of 2
    parameter int CplDepth  = 4                  // completion queue entries, power of 2
) (
    input  wire        clk_i,
    input  wire        rst_i,
    // descriptors (dma_top's port)
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
    // the transfer being run: its descriptor, held from CHECK to CPL
    output reg         xfer_store_o,
    output reg         xfer_xpose_o,
    output reg  [39:0] xfer_src_o,
    output reg  [39:0] xfer_dst_o,
    output reg  [15:0] xfer_rows_o,
    output reg  [23:0] xfer_len_o,
    output reg  [39:0] xfer_src_stride_o,
    output reg  [39:0] xfer_dst_stride_o,
    output wire        start_o,      // one-cycle pulse: start both address generators
    // progress
    input  wire        rd_done_i,    // read address generator finished
    input  wire        wr_done_i,    // write address generator finished
    input  wire        wr_fire_i,    // a write to the destination memory left this cycle
    input  wire        wr_ack_i,     // the destination memory acknowledged a write
    input  wire        rsp_valid_i,  // either memory answered this cycle
    input  wire        rsp_err_i,    // ... with an error
    output wire        wr_gate_o,    // a write may leave
    // completions (dma_top's port)
    output wire        cpl_valid_o,
    input  wire        cpl_ready_i,
    output wire [ 7:0] cpl_tag_o,
    output wire [ 2:0] cpl_status_o,
    output wire [31:0] cpl_cycles_o,
    output wire        idle_o        // nothing queued, running or unreported
);

  localparam logic [1:0] StateIdle = 2'd0;
  localparam logic [1:0] StateCheck = 2'd1;
  localparam logic [1:0] StateRun = 2'd2;
  localparam logic [1:0] StateCpl = 2'd3;

  // Completion status codes (the checks above); C: enum dma_status.
  localparam logic [2:0] StatusOk = 3'd0;  // C: DMA_ST_OK
  localparam logic [2:0] StatusBadDesc = 3'd1;  // C: DMA_ST_BAD_DESC
  localparam logic [2:0] StatusSrcRange = 3'd2;  // C: DMA_ST_SRC_RANGE
  localparam logic [2:0] StatusDstRange = 3'd3;  // C: DMA_ST_DST_RANGE
  localparam logic [2:0] StatusMemErr = 3'd4;  // C: DMA_ST_MEM_ERR

  localparam logic [63:0] SramSize = {32'd0, SramBytes[31:0]};
  localparam logic [63:0] TbSize = TbSizeKiB * 64'd1024;
  localparam int WrPendingW = $clog2(MaxWrOut + 1);
  localparam logic [63:0] MemMax = SramSize > TbSize ? SramSize : TbSize;
  localparam int Pb = $clog2(MemMax);  // >= 3: SramBytes >= 8
  localparam logic [63:0] Far = 64'd1 << Pb;
  // A queued descriptor: store, xpose, tag, src, dst, rows, len, src_stride, dst_stride.
  localparam int DescW = 1 + 1 + 8 + 40 + 40 + 16 + 24 + 40 + 40;
  // A completion: tag, status, cycles.
  localparam int CplW = 8 + 3 + 32;

  if (SramBytes < 8) begin : g_bad_sram
    cmn_param_error_SramBytes_must_be_at_least_8 u_err ();
  end
  if (TbSizeKiB < 1) begin : g_bad_tb
    cmn_param_error_TbSizeKiB_must_be_at_least_1 u_err ();
  end
  if (TbSizeKiB > 1 << 30) begin : g_bad_tb_size
    cmn_param_error_TbSizeKiB_must_be_at_most_2_to_the_30 u_err ();
  end
  if (MaxWrOut < 1) begin : g_bad_wr
    cmn_param_error_MaxWrOut_must_be_at_least_1 u_err ();
  end

  reg [           1:0] state_q;
  reg [           7:0] tag_q;
  reg [           2:0] status_q;
  reg [          31:0] cycles_q;  // since the descriptor was taken, saturating
  reg                  mem_err_q;  // a memory answered a request of this transfer with an error
  reg [WrPendingW-1:0] wr_pending_q;  // writes awaiting their acknowledgement

  // ---------------------------------------------------------------- descriptor queue
  wire                       desc_q_valid;
  wire                       desc_q_ready = state_q == StateIdle;
  wire [          DescW-1:0] desc_q_data;
  wire [$clog2(DescDepth):0] desc_q_count;
  wire                       desc_take = desc_q_ready && desc_q_valid;

  cmn_fifo #(
      .Width(DescW),
      .Depth(DescDepth)
  ) u_desc_q (
      .clk_i,
      .rst_i,
      .in_valid_i (desc_valid_i),
      .in_ready_o (desc_ready_o),
      .in_data_i  ({desc_store_i, desc_xpose_i, desc_tag_i, desc_src_i, desc_dst_i, desc_rows_i,
                    desc_len_i, desc_src_stride_i, desc_dst_stride_i}),
      .out_valid_o(desc_q_valid),
      .out_ready_i(desc_q_ready),
      .out_data_o (desc_q_data),
      .count_o    (desc_q_count)
  );

  // ---------------------------------------------------------------- checks (from xfer_*)
  wire [23:0] dst_rows = xfer_xpose_o ? {1'b0, xfer_len_o[23:1]} : {8'd0, xfer_rows_o};
  wire [23:0] dst_len = xfer_xpose_o ? {7'd0, xfer_rows_o, 1'b0} : xfer_len_o;
  wire desc_bad = xfer_rows_o == 16'd0 || xfer_len_o == 24'd0 ||
      (xfer_xpose_o && (xfer_store_o || xfer_len_o[0])) ||
      (dst_rows > 24'd1 && xfer_dst_stride_o < {16'd0, dst_len});
  // The range checks: does a side's end, addr + (rows-1) * stride + len, pass its memory's
  // size? Decided on Pb = clog2(the larger memory) bits rather than in 64-bit arithmetic: an
  // addr, a stride with rows > 1, a rows - 1 with a stride, or a len past 2^Pb puts the end
  // past both memories; otherwise every term is below 2^Pb (len at most 2^Pb) and the sum is
  // exact in 2 Pb + 2 bits. The answer is used only for a descriptor that is not bad, so len
  // >= 1. The multipliers are rows (16 or 24 bits) x min(Pb, 40) bits: on the FPGA's small
  // memories, a fraction of the 16 x 40 and 24 x 40 the wide sums need.
  wire [15:0] src_rows_m1 = xfer_rows_o - 16'd1;
  wire [23:0] dst_rows_m1 = dst_rows - 24'd1;
  wire [63:0] src_size = xfer_store_o ? SramSize : TbSize;
  wire [63:0] dst_size = xfer_store_o ? TbSize : SramSize;
  wire src_past = past_end(xfer_src_o, 24'(src_rows_m1), xfer_src_stride_o, xfer_len_o,
                           (2 * Pb + 2)'(src_size));
  wire dst_past = past_end(xfer_dst_o, dst_rows_m1, xfer_dst_stride_o, dst_len,
                           (2 * Pb + 2)'(dst_size));

  function automatic logic past_end(input logic [39:0] addr, input logic [23:0] rows_m1,
                                    input logic [39:0] stride, input logic [23:0] len,
                                    input logic [2*Pb+1:0] size);
    logic [    63:0] a, r, st, l;  // wide enough to slice at any Pb <= 40
    logic [2*Pb+1:0] e;
    logic            far;
    a = 64'(addr);
    r = 64'(rows_m1);
    st = 64'(stride);
    l = 64'(len);
    far = a >= Far || (r != 64'd0 && st >= Far) || (st != 64'd0 && r >= Far) || l > Far;
    e = (2 * Pb + 2)'(a[Pb-1:0]) + (2 * Pb + 2)'(r[Pb-1:0]) * (2 * Pb + 2)'(st[Pb-1:0]) +
        (2 * Pb + 2)'(l[Pb:0]);
    past_end = far || e > size;
  endfunction
  wire [ 2:0] check_status = desc_bad ? StatusBadDesc :
      src_past ? StatusSrcRange : dst_past ? StatusDstRange : StatusOk;

  // ---------------------------------------------------------------- control
  wire cpl_q_ready;
  wire xfer_done = rd_done_i && wr_done_i && wr_pending_q == '0;

  assign start_o   = state_q == StateCheck && check_status == StatusOk;
  assign wr_gate_o = wr_pending_q != MaxWrOut[WrPendingW-1:0];
  assign idle_o    = state_q == StateIdle && !desc_q_valid && !cpl_valid_o;

  always @(posedge clk_i) begin
    if (rst_i) begin
      state_q <= StateIdle;
    end else begin
      case (state_q)
        StateIdle:  if (desc_q_valid) state_q <= StateCheck;
        StateCheck: state_q <= check_status == StatusOk ? StateRun : StateCpl;
        StateRun:   if (xfer_done) state_q <= StateCpl;
        default:    if (cpl_q_ready) state_q <= StateIdle;
      endcase
    end
  end

  // Descriptor registers: loaded in IDLE, held to the end.
  always @(posedge clk_i) begin
    if (desc_take) begin
      {xfer_store_o, xfer_xpose_o, tag_q, xfer_src_o, xfer_dst_o, xfer_rows_o, xfer_len_o,
       xfer_src_stride_o, xfer_dst_stride_o} <= desc_q_data;
    end
    if (state_q == StateCheck) status_q <= check_status;
    else if (state_q == StateRun && xfer_done) status_q <= mem_err_q ? StatusMemErr : StatusOk;
  end

  // Cycles from taking the descriptor (1 in CHECK) to the cycle of the completion push.
  always @(posedge clk_i) begin
    if (rst_i || desc_take) begin
      cycles_q <= 32'd1;
    end else if (state_q != StateIdle && cycles_q != 32'hffff_ffff) begin
      cycles_q <= cycles_q + 32'd1;
    end
  end

  // Error responses, and writes awaiting their acknowledgement.
  always @(posedge clk_i) begin
    if (rst_i || start_o) begin
      mem_err_q <= 1'b0;
    end else if (rsp_err_i) begin
      mem_err_q <= 1'b1;
    end
  end

  always @(posedge clk_i) begin
    if (rst_i) begin
      wr_pending_q <= '0;
    end else begin
      case ({wr_fire_i, wr_ack_i})
        2'b10:   wr_pending_q <= wr_pending_q + 1'b1;
        2'b01:   wr_pending_q <= wr_pending_q - 1'b1;
        default: ;
      endcase
    end
  end

  // ---------------------------------------------------------------- completion queue
  wire [           CplW-1:0] cpl_data;
  wire [$clog2(CplDepth):0] cpl_count;

  cmn_fifo #(
      .Width(CplW),
      .Depth(CplDepth)
  ) u_cpl_q (
      .clk_i,
      .rst_i,
      .in_valid_i (state_q == StateCpl),
      .in_ready_o (cpl_q_ready),
      .in_data_i  ({tag_q, status_q, cycles_q}),
      .out_valid_o(cpl_valid_o),
      .out_ready_i(cpl_ready_i),
      .out_data_o (cpl_data),
      .count_o    (cpl_count)
  );

  assign {cpl_tag_o, cpl_status_o, cpl_cycles_o} = cpl_data;

`ifndef SYNTHESIS
  always @(posedge clk_i) begin
    if (!rst_i) begin
      assert (desc_q_count <= DescDepth[$clog2(DescDepth):0] &&
              cpl_count <= CplDepth[$clog2(CplDepth):0])
      else $error("dma_ctl: queue occupancy out of range");
      assert (!(wr_fire_i && !wr_gate_o))
      else $error("dma_ctl: a write left without credit");
      assert (!(wr_ack_i && wr_pending_q == '0))
      else $error("dma_ctl: a write acknowledgement with no write outstanding");
      assert (!(rsp_valid_i && state_q != StateRun))
      else $error("dma_ctl: a memory response outside a transfer");
      // The narrow range checks against the 64-bit sums they stand for, whenever they decide.
      assert (state_q != StateCheck || desc_bad || (src_past == (64'(xfer_src_o) +
          64'(src_rows_m1) * 64'(xfer_src_stride_o) + 64'(xfer_len_o) > src_size) &&
          dst_past == (64'(xfer_dst_o) + 64'(dst_rows_m1) * 64'(xfer_dst_stride_o) +
          64'(dst_len) > dst_size)))
      else $error("dma_ctl: a range check differs from its 64-bit form");
    end
  end
`endif

endmodule

`default_nettype wire
