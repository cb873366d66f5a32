// nfw_rd: write-command intake and tensor-buffer reader of the NAND write pipeline.
//
// A write command (tensor-buffer byte address, length in bytes, stream id) enters a two-entry
// FIFO. The reader takes one command at a time: it hands a descriptor (byte offset inside the
// first 8-byte beat, length, stream) to the aligner, then reads every beat that holds a byte of
// [addr, addr + len) through the memory port (rtl/README.md), one request per cycle while it
// has credit. Credits count free entries of the response FIFO downstream (MaxReads of them):
// a request takes one, a beat the aligner pops gives it back, so a response always has room
// and mem_rsp_ready can stay high. Several reads are outstanding; responses come back in
// order (the port's rule), so no tags are needed.
//
// A zero-length command is taken and dropped: it writes no page.
//
// Handshake contract: rtl/README.md. The request leaves through a register (valid held,
// payload unchanged while stalled).

`default_nettype none

module nfw_rd #(
    parameter int Streams  = 2,  // stream ids accepted: 0 .. Streams-1
    parameter int MaxReads = 8   // credits: entries of the response FIFO, a power of two
) (
    input  wire        clk_i,
    input  wire        rst_i,
    // write commands
    input  wire        cmd_valid_i,
    output wire        cmd_ready_o,
    input  wire [39:0] cmd_addr_i,
    input  wire [31:0] cmd_len_i,
    input  wire [ 3:0] cmd_stream_i,
    // memory requests (reads only)
    output wire        mem_req_valid_o,
    input  wire        mem_req_ready_i,
    output wire [39:0] mem_req_addr_o,
    // a response beat left the response FIFO: one credit back
    input  wire        rsp_pop_i,
    // descriptor of the command being read, for the aligner
    output wire        dsc_valid_o,
    input  wire        dsc_ready_i,
    output wire [ 2:0] dsc_off_o,
    output wire [31:0] dsc_len_o,
    output wire [ 3:0] dsc_stream_o,
    // no command queued or being read, every read answered and popped
    output wire        idle_o
);

  localparam int CredW = $clog2(MaxReads) + 1;

  if (MaxReads < 2 || (1 << $clog2(MaxReads)) != MaxReads) begin : g_bad_reads
    nfw_param_error_MaxReads_must_be_a_power_of_two_at_least_2 u_err ();
  end

  // ---------------------------------------------------------------- command FIFO
  wire        q_valid;
  wire [75:0] q_data;
  wire        q_pop;

  cmn_fifo #(
      .Width(76),
      .Depth(2)
  ) u_cmd_q (
      .clk_i,
      .rst_i,
      .in_valid_i (cmd_valid_i),
      .in_ready_o (cmd_ready_o),
      .in_data_i  ({cmd_stream_i, cmd_len_i, cmd_addr_i}),
      .out_valid_o(q_valid),
      .out_ready_i(q_pop),
      .out_data_o (q_data),
      /* verilator lint_off PINCONNECTEMPTY */  // occupancy not needed
      .count_o    ()
      /* verilator lint_on PINCONNECTEMPTY */
  );

  wire [39:0] q_addr = q_data[39:0];
  wire [31:0] q_len = q_data[71:40];
  wire [ 3:0] q_stream = q_data[75:72];

  // ---------------------------------------------------------------- descriptor FIFO
  wire dq_ready;
  wire dq_push;

  cmn_fifo #(
      .Width(39),
      .Depth(2)
  ) u_dsc_q (
      .clk_i,
      .rst_i,
      .in_valid_i (dq_push),
      .in_ready_o (dq_ready),
      .in_data_i  ({q_stream, q_len, q_addr[2:0]}),
      .out_valid_o(dsc_valid_o),
      .out_ready_i(dsc_ready_i),
      .out_data_o ({dsc_stream_o, dsc_len_o, dsc_off_o}),
      /* verilator lint_off PINCONNECTEMPTY */  // occupancy not needed
      .count_o    ()
      /* verilator lint_on PINCONNECTEMPTY */
  );

  // ---------------------------------------------------------------- reader
  reg              active_q;  // beats of the current command left to request
  reg [      36:0] beat_q;  // next beat address / 8
  reg [      29:0] left_q;  // beats still to request
  reg [CredW-1:0] credit_q;
  reg              req_valid_q;
  reg [      39:0] req_addr_q;

  // Beats that hold a byte of [addr, addr + len): ceil((addr % 8 + len) / 8).
  wire [29:0] q_beats = 30'((34'(q_addr[2:0]) + 34'(q_len) + 34'd7) >> 3);

  // Take the next command when idle and the aligner's descriptor queue has room.
  assign q_pop   = !active_q && q_valid && dq_ready;
  assign dq_push = q_pop && q_len != 32'd0;

  wire req_free = !req_valid_q || mem_req_ready_i;
  wire issue = active_q && credit_q != '0 && req_free;

  always @(posedge clk_i) begin
    if (rst_i) begin
      active_q    <= 1'b0;
      credit_q    <= CredW'(MaxReads);
      req_valid_q <= 1'b0;
    end else begin
      if (q_pop) begin
        active_q <= q_len != 32'd0;
      end else if (issue) begin
        active_q <= left_q != 30'd1;
      end
      if (issue) begin
        req_valid_q <= 1'b1;
      end else if (mem_req_ready_i) begin
        req_valid_q <= 1'b0;
      end
      credit_q <= credit_q - CredW'(issue) + CredW'(rsp_pop_i);
    end
  end

  always @(posedge clk_i) begin
    if (q_pop) begin
      beat_q <= q_addr[39:3];
      left_q <= q_beats;
    end else if (issue) begin
      beat_q <= beat_q + 37'd1;
      left_q <= left_q - 30'd1;
    end
    if (issue) req_addr_q <= {beat_q, 3'b000};
  end

  assign mem_req_valid_o = req_valid_q;
  assign mem_req_addr_o = req_addr_q;
  assign idle_o = !q_valid && !active_q && !req_valid_q && credit_q == CredW'(MaxReads) &&
      !dsc_valid_o;

`ifndef SYNTHESIS
  always @(posedge clk_i) begin
    if (!rst_i) begin
      assert (credit_q <= CredW'(MaxReads))
      else $error("nfw_rd: %0d credits, more than the %0d response entries", credit_q, MaxReads);
      assert (!(rsp_pop_i && credit_q == CredW'(MaxReads)))
      else $error("nfw_rd: a response popped with no read outstanding");
      assert (!(cmd_valid_i && cmd_ready_o) || 32'(cmd_stream_i) < Streams)
      else $error("nfw_rd: command for stream %0d; accepted 0..%0d", cmd_stream_i, Streams - 1);
    end
  end
`endif

endmodule

`default_nettype wire
