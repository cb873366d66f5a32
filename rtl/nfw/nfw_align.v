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
    input  wire        desc_valid_i,
    output wire        desc_ready_o,
    input  wire [ 2:0] desc_off_i,
    input  wire [31:0] desc_len_i,
    input  wire [ 3:0] desc_stream_i,
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

  localparam int BeatsPerPage = PageBytes / 8;
  localparam int PageBeatW = $clog2(BeatsPerPage);  // a beat's index in its page
  localparam int PageBytesLog2 = $clog2(PageBytes);

  if (PageBytes < 64 || (1 << PageBytesLog2) != PageBytes) begin : g_bad_page
    nfw_param_error_PageBytes_must_be_a_power_of_two_at_least_64 u_err ();
  end

  reg                 active_q;  // a command is in progress
  reg [          2:0] byte_off_q;  // the command's first byte in its first input beat
  reg [          3:0] stream_q;
  reg [         29:0] data_left_q;  // data beats still to emit
  reg [         29:0] pad_left_q;  // zero beats after them, up to the page boundary
  reg [         29:0] in_left_q;  // input beats still to take
  reg [          3:0] last_bytes_q;  // bytes of the last data beat that belong to the command
  reg [PageBeatW-1:0] page_beat_q;  // beat in page
  reg                 hold_valid_q;  // hold_q holds input beat k
  reg [         63:0] hold_q;
  reg                 hold_err_q;

  // Per command: data beats ceil(len / 8), input beats ceil((off + len) / 8), output beats
  // ceil(len / PageBytes) pages.
  wire [29:0] desc_data_beats = 30'((33'(desc_len_i) + 33'd7) >> 3);
  wire [29:0] desc_in_beats = 30'((34'(desc_off_i) + 34'(desc_len_i) + 34'd7) >> 3);
  wire [29:0] desc_out_beats = 30'((33'(desc_len_i) + 33'(PageBytes - 1)) >> PageBytesLog2) <<
      PageBeatW;
  wire [ 2:0] desc_last_m1 = 3'(desc_len_i - 32'd1);  // (len - 1) % 8

  wire is_data = data_left_q != 30'd0;
  wire last_data = data_left_q == 30'd1;
  wire need_next = is_data && byte_off_q != 3'd0 && in_left_q != 30'd0;
  wire out_fire = out_valid_o && out_ready_i;
  wire load_hold = active_q && is_data && in_valid_i && in_left_q != 30'd0 &&
      (!hold_valid_q || (out_fire && !need_next && !last_data));

  assign desc_ready_o = !active_q;
  assign out_valid_o = active_q && (is_data ? hold_valid_q && (!need_next || in_valid_i) : 1'b1);
  assign in_ready_o = load_hold || (out_fire && need_next);
  assign out_err_o = is_data && (hold_err_q || (need_next && in_err_i));
  assign out_stream_o = stream_q;
  assign out_last_page_o = page_beat_q == PageBeatW'(BeatsPerPage - 1);
  assign out_last_cmd_o = is_data ? last_data && pad_left_q == 30'd0 : pad_left_q == 30'd1;
  assign idle_o = !active_q;

  // Bytes 8k .. 8k+7 of the command: hold_q from byte `off` on, then the next beat's first
  // bytes; bytes past the command's end are zero.
  wire [127:0] pair = {need_next ? in_data_i : 64'd0, hold_q};
  wire [127:0] shifted = pair >> {byte_off_q, 3'b000};
  always @* begin
    out_data_o = 64'd0;
    if (is_data) begin
      for (int j = 0; j < 8; j++) begin
        if (!last_data || 4'(j) < last_bytes_q) out_data_o[8*j+:8] = shifted[8*j+:8];
      end
    end
  end

  always @(posedge clk_i) begin
    if (rst_i) begin
      active_q     <= 1'b0;
      hold_valid_q <= 1'b0;
    end else if (!active_q) begin
      if (desc_valid_i) begin
        active_q     <= 1'b1;
        hold_valid_q <= 1'b0;
      end
    end else begin
      if (out_fire && out_last_cmd_o) active_q <= 1'b0;
      if (out_fire && need_next) begin
        hold_valid_q <= !last_data;
      end else if (load_hold) begin
        hold_valid_q <= 1'b1;
      end else if (out_fire && is_data) begin
        hold_valid_q <= 1'b0;
      end
    end
  end

  always @(posedge clk_i) begin
    if (!active_q) begin
      if (desc_valid_i) begin
        byte_off_q   <= desc_off_i;
        stream_q     <= desc_stream_i;
        data_left_q  <= desc_data_beats;
        pad_left_q   <= desc_out_beats - desc_data_beats;
        in_left_q    <= desc_in_beats;
        last_bytes_q <= {1'b0, desc_last_m1} + 4'd1;
        page_beat_q  <= '0;
      end
    end else begin
      if (in_ready_o) in_left_q <= in_left_q - 30'd1;
      if (out_fire) begin
        page_beat_q <= page_beat_q + 1'b1;
        if (is_data) data_left_q <= data_left_q - 30'd1;
        else pad_left_q <= pad_left_q - 30'd1;
      end
      if ((out_fire && need_next) || load_hold) begin
        hold_q     <= in_data_i;
        hold_err_q <= in_err_i;
      end
    end
  end

`ifndef SYNTHESIS
  always @(posedge clk_i) begin
    if (!rst_i && active_q && out_fire && out_last_cmd_o) begin
      assert (in_left_q == 30'(in_ready_o) && page_beat_q == PageBeatW'(BeatsPerPage - 1))
      else $error("nfw_align: command ends with %0d input beats untaken, beat %0d of a page",
                  in_left_q, page_beat_q);
    end
    if (!rst_i && !active_q && desc_valid_i) begin
      assert (desc_len_i != 32'd0)
      else $error("nfw_align: zero-length command");
    end
  end
`endif

endmodule

`default_nettype wire
