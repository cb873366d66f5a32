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
    output wire        desc_valid_o,
    input  wire        desc_ready_i,
    output wire [ 2:0] desc_off_o,
    output wire [31:0] desc_len_o,
    output wire [ 3:0] desc_stream_o,
    // no command queued or being read, every read answered and popped
    output wire        idle_o
);

  localparam int CreditW = $clog2(MaxReads) + 1;
  localparam int CmdW = 4 + 32 + 40;  // a queued command: stream, length, address
  localparam int DescW = 4 + 32 + 3;  // a descriptor: stream, length, offset in the first beat
  localparam int CmdDepth = 2;  // command FIFO; C: CMD_DEPTH
  localparam int DescDepth = 2;  // descriptor FIFO; C: DESC_DEPTH

  if (MaxReads < 2 || (1 << $clog2(MaxReads)) != MaxReads) begin : g_bad_reads
    nfw_param_error_MaxReads_must_be_a_power_of_two_at_least_2 u_err ();
  end

  // ---------------------------------------------------------------- command FIFO
  wire            cmd_q_valid;
  wire [CmdW-1:0] cmd_q_data;
  wire            cmd_q_pop;

  cmn_fifo #(
      .Width(CmdW),
      .Depth(CmdDepth)
  ) u_cmd_q (
      .clk_i,
      .rst_i,
      .in_valid_i (cmd_valid_i),
      .in_ready_o (cmd_ready_o),
      .in_data_i  ({cmd_stream_i, cmd_len_i, cmd_addr_i}),
      .out_valid_o(cmd_q_valid),
      .out_ready_i(cmd_q_pop),
      .out_data_o (cmd_q_data),
      /* verilator lint_off PINCONNECTEMPTY */  // occupancy not needed
      .count_o    ()
      /* verilator lint_on PINCONNECTEMPTY */
  );

  wire [39:0] cmd_q_addr = cmd_q_data[39:0];
  wire [31:0] cmd_q_len = cmd_q_data[71:40];
  wire [ 3:0] cmd_q_stream = cmd_q_data[75:72];

  // ---------------------------------------------------------------- descriptor FIFO
  wire desc_q_ready;
  wire desc_q_push;

  cmn_fifo #(
      .Width(DescW),
      .Depth(DescDepth)
  ) u_desc_q (
      .clk_i,
      .rst_i,
      .in_valid_i (desc_q_push),
      .in_ready_o (desc_q_ready),
      .in_data_i  ({cmd_q_stream, cmd_q_len, cmd_q_addr[2:0]}),
      .out_valid_o(desc_valid_o),
      .out_ready_i(desc_ready_i),
      .out_data_o ({desc_stream_o, desc_len_o, desc_off_o}),
      /* verilator lint_off PINCONNECTEMPTY */  // occupancy not needed
      .count_o    ()
      /* verilator lint_on PINCONNECTEMPTY */
  );

  // ---------------------------------------------------------------- reader
  reg               active_q;  // beats of the current command left to request
  reg [       36:0] next_beat_q;  // next beat address / 8
  reg [       29:0] beats_left_q;  // beats still to request
  reg [CreditW-1:0] credit_q;
  reg               req_valid_q;
  reg [       39:0] req_addr_q;

  // Beats that hold a byte of [addr, addr + len): ceil((addr % 8 + len) / 8).
  wire [29:0] cmd_q_beats = 30'((34'(cmd_q_addr[2:0]) + 34'(cmd_q_len) + 34'd7) >> 3);

  // Take the next command when idle and the aligner's descriptor queue has room.
  assign cmd_q_pop   = !active_q && cmd_q_valid && desc_q_ready;
  assign desc_q_push = cmd_q_pop && cmd_q_len != 32'd0;

  wire req_free = !req_valid_q || mem_req_ready_i;
  wire issue = active_q && credit_q != '0 && req_free;

  always @(posedge clk_i) begin
    if (rst_i) begin
      active_q    <= 1'b0;
      credit_q    <= CreditW'(MaxReads);
      req_valid_q <= 1'b0;
    end else begin
      if (cmd_q_pop) begin
        active_q <= cmd_q_len != 32'd0;
      end else if (issue) begin
        active_q <= beats_left_q != 30'd1;
      end
      if (issue) begin
        req_valid_q <= 1'b1;
      end else if (mem_req_ready_i) begin
        req_valid_q <= 1'b0;
      end
      credit_q <= credit_q - CreditW'(issue) + CreditW'(rsp_pop_i);
    end
  end

  always @(posedge clk_i) begin
    if (cmd_q_pop) begin
      next_beat_q  <= cmd_q_addr[39:3];
      beats_left_q <= cmd_q_beats;
    end else if (issue) begin
      next_beat_q  <= next_beat_q + 37'd1;
      beats_left_q <= beats_left_q - 30'd1;
    end
    if (issue) req_addr_q <= {next_beat_q, 3'b000};
  end

  assign mem_req_valid_o = req_valid_q;
  assign mem_req_addr_o = req_addr_q;
  assign idle_o = !cmd_q_valid && !active_q && !req_valid_q && credit_q == CreditW'(MaxReads) &&
      !desc_valid_o;

`ifndef SYNTHESIS
  always @(posedge clk_i) begin
    if (!rst_i) begin
      assert (credit_q <= CreditW'(MaxReads))
      else $error("nfw_rd: %0d credits, more than the %0d response entries", credit_q, MaxReads);
      assert (!(rsp_pop_i && credit_q == CreditW'(MaxReads)))
      else $error("nfw_rd: a response popped with no read outstanding");
      assert (!(cmd_valid_i && cmd_ready_o) || 32'(cmd_stream_i) < Streams)
      else $error("nfw_rd: command for stream %0d; accepted 0..%0d", cmd_stream_i, Streams - 1);
    end
  end
`endif

endmodule

`default_nettype wire
