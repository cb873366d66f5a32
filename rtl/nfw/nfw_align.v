// nfw_align: turns the tensor-buffer beats of one write command into page beats.
//
// The bytes of a command, [addr, addr + len), start at byte offset addr % 8 of their first
// beat. The aligner shifts them down to offset 0, zeroes every byte past len, and pads the
// command with zero beats up to a whole number of pages, so that each output beat holds bytes
// 8k .. 8k+7 of the command's page stream. Output beat k needs input beat k (held in hold_q)
// and, when the offset is not 0, the first bytes of input beat k+1; it throughput is one beat
// per cycle in both cases.
//
// Each output beat is tagged with the command's stream, the error flag of the responses it
// was made from, the last beat of a page and the last beat of the command.
//
// Handshake contract: rtl/README.md. out_valid_o is a function of registers and of the input
// beat on offer (in_valid_i, in_data_i), never of out_ready_i.

`default_nettype none

module nfw_align #(
    parameter int PageBytes = 256  // bytes per flash page, a power of two >= 64
) (
    input  wire        clk_i,
    input  wire        rst_i,
    // command descriptor
    input  wire        dsc_valid_i,
    output wire        dsc_ready_o,
    input  wire [ 2:0] dsc_off_i,
    input  wire [31:0] dsc_len_i,
    input  wire [ 3:0] dsc_stream_i,
    // tensor-buffer beats, in order
    input  wire        in_valid_i,
    output wire        in_ready_o,
    input  wire [63:0] in_data_i,
    input  wire        in_err_i,
    // page beats
    output wire        out_valid_o,
    input  wire        out_ready_i,
    output reg  [63:0] out_data_o,
    output wire        out_err_o,
    output wire [ 3:0] out_stream_o,
    output wire        out_last_page_o,
    output wire        out_last_cmd_o,
    // no command in progress
    output wire        idle_o
);

  localparam int Bpp = PageBytes / 8;  // beats per page
  localparam int BeatW = $clog2(Bpp);
  localparam int PageSh = $clog2(PageBytes);

  if (PageBytes < 64 || (1 << PageSh) != PageBytes) begin : g_bad_page
    nfw_param_error_PageBytes_must_be_a_power_of_two_at_least_64 u_err ();
  end

  reg              act_q;  // a command is in progress
  reg  [      2:0] off_q;
  reg  [      3:0] stream_q;
  reg  [     29:0] dleft_q;  // data beats still to emit
  reg  [     29:0] pleft_q;  // zero beats after them, up to the page boundary
  reg  [     29:0] nin_q;  // input beats still to take
  reg  [      3:0] lastn_q;  // bytes of the last data beat that belong to the command (1..8)
  reg  [BeatW-1:0] bip_q;  // beat in page
  reg              have_q;  // hold_q holds input beat k
  reg  [     63:0] hold_q;
  reg              hold_err_q;

  // Per command: data beats ceil(len / 8), input beats ceil((off + len) / 8), output beats
  // ceil(len / PageBytes) pages.
  wire [29:0] d_nd = 30'((33'(dsc_len_i) + 33'd7) >> 3);
  wire [29:0] d_nin = 30'((34'(dsc_off_i) + 34'(dsc_len_i) + 34'd7) >> 3);
  wire [29:0] d_nout = 30'((33'(dsc_len_i) + 33'(PageBytes - 1)) >> PageSh) << BeatW;
  wire [ 2:0] d_lastm1 = 3'(dsc_len_i - 32'd1);  // (len - 1) % 8

  wire is_data = dleft_q != 30'd0;
  wire last_data = dleft_q == 30'd1;
  wire need_next = is_data && off_q != 3'd0 && nin_q != 30'd0;
  wire fire = out_valid_o && out_ready_i;
  wire load_hold = act_q && is_data && in_valid_i && nin_q != 30'd0 &&
      (!have_q || (fire && !need_next && !last_data));

  assign dsc_ready_o = !act_q;
  assign out_valid_o = act_q && (is_data ? have_q && (!need_next || in_valid_i) : 1'b1);
  assign in_ready_o = load_hold || (fire && need_next);
  assign out_err_o = is_data && (hold_err_q || (need_next && in_err_i));
  assign out_stream_o = stream_q;
  assign out_last_page_o = bip_q == BeatW'(Bpp - 1);
  assign out_last_cmd_o = is_data ? last_data && pleft_q == 30'd0 : pleft_q == 30'd1;
  assign idle_o = !act_q;

  // Bytes 8k .. 8k+7 of the command: hold_q from byte `off` on, then the next beat's first
  // bytes; bytes past the command's end are zero.
  wire [127:0] pair = {need_next ? in_data_i : 64'd0, hold_q};
  wire [127:0] shifted = pair >> {off_q, 3'b000};
  always @* begin
    out_data_o = 64'd0;
    if (is_data) begin
      for (int j = 0; j < 8; j++) begin
        if (!last_data || 4'(j) < lastn_q) out_data_o[8*j+:8] = shifted[8*j+:8];
      end
    end
  end

  always @(posedge clk_i) begin
    if (rst_i) begin
      act_q  <= 1'b0;
      have_q <= 1'b0;
    end else if (!act_q) begin
      if (dsc_valid_i) begin
        act_q  <= 1'b1;
        have_q <= 1'b0;
      end
    end else begin
      if (fire && out_last_cmd_o) act_q <= 1'b0;
      if (fire && need_next) begin
        have_q <= !last_data;
      end else if (load_hold) begin
        have_q <= 1'b1;
      end else if (fire && is_data) begin
        have_q <= 1'b0;
      end
    end
  end

  always @(posedge clk_i) begin
    if (!act_q) begin
      if (dsc_valid_i) begin
        off_q    <= dsc_off_i;
        stream_q <= dsc_stream_i;
        dleft_q  <= d_nd;
        pleft_q  <= d_nout - d_nd;
        nin_q    <= d_nin;
        lastn_q  <= {1'b0, d_lastm1} + 4'd1;
        bip_q    <= '0;
      end
    end else begin
      if (in_ready_o) nin_q <= nin_q - 30'd1;
      if (fire) begin
        bip_q <= bip_q + 1'b1;
        if (is_data) dleft_q <= dleft_q - 30'd1;
        else pleft_q <= pleft_q - 30'd1;
      end
      if ((fire && need_next) || load_hold) begin
        hold_q     <= in_data_i;
        hold_err_q <= in_err_i;
      end
    end
  end

`ifndef SYNTHESIS
  always @(posedge clk_i) begin
    if (!rst_i && act_q && fire && out_last_cmd_o) begin
      assert (nin_q == 30'(in_ready_o) && bip_q == BeatW'(Bpp - 1))
      else $error("nfw_align: command ends with %0d input beats untaken, beat %0d of a page",
                  nin_q, bip_q);
    end
    if (!rst_i && !act_q && dsc_valid_i) begin
      assert (dsc_len_i != 32'd0)
      else $error("nfw_align: zero-length command");
    end
  end
`endif

endmodule

`default_nettype wire
