// fv_nfw_split: the proof harness of nfw_split, the write lanes' command splitter
// (scripts/formal/README.md).
//
// Environment (assumed): the command port keeps the handshake contract; a command names a
// configured stream; a stream's cursor is reset (SET_STREAM) only while no command is held
// (nfw_lanes: configure a stream only while the lanes are idle).
//
// Block (asserted): every lane's piece port keeps the contract and is idle after reset, and
// the pieces are the command cut at program-unit boundaries, in order: a reference model
// keeps the bytes of the held command not yet handed out and, per stream, the plane the next
// page goes to and the lane of the current unit (rtl/nfw/nfw_split.v's layout: unit u goes
// to lane u % Lanes). While bytes remain exactly one piece is offered, to the lane of the
// current unit, starting where the last one ended, of the held stream; it is the rest of the
// command if that fits in the unit, else the rest of the unit in whole pages. A command is
// taken only once every byte of the last one has left. A lost piece leaves bytes the block
// no longer offers, a duplicated one starts at the wrong address, a piece across a unit
// boundary has too many pages, and one on the wrong lane shows on that lane's valid.

`default_nettype none
`include "fv_harness.svh"

module fv_nfw_split #(
    parameter  int PageBytes = 64,
    parameter  int Planes    = 2,
    parameter  int Lanes     = 2,
    parameter  int Streams   = 2,
    localparam int PgW       = $clog2(PageBytes),
    localparam int LaneW     = Lanes > 1 ? $clog2(Lanes) : 1
) (
    input wire               clk_i,
    input wire               rst_i,
    input wire [Streams-1:0] stream_reset_i,
    input wire               cmd_valid_i,
    input wire [       39:0] cmd_addr_i,
    input wire [       31:0] cmd_len_i,
    input wire [        3:0] cmd_stream_i,
    input wire [  Lanes-1:0] out_ready_i
);
  wire             cmd_ready_o;
  wire [Lanes-1:0] out_valid_o;
  wire [     39:0] out_addr_o;
  wire [     31:0] out_len_o;
  wire [      3:0] out_stream_o;
  wire             idle_o;
  nfw_split #(
      .PageBytes(PageBytes),
      .Planes   (Planes),
      .Lanes    (Lanes),
      .Streams  (Streams)
  ) dut (
      .*
  );

  `FV_LIVE

  // ---------------------------------------------------------------- environment
  `FV_SINK(u_cmd, cmd_valid_i, cmd_ready_o, {cmd_addr_i, cmd_len_i, cmd_stream_i})
  always @* begin
    if (cmd_valid_i) assume (32'(cmd_stream_i) < Streams);
    if (stream_reset_i != '0) assume (cmd_ready_o);
  end

  // ---------------------------------------------------------------- block
  for (genvar l = 0; l < Lanes; l++) begin : g_lane
    `FV_SOURCE(u_out, out_valid_o[l], out_ready_i[l], {out_addr_o, out_len_o, out_stream_o})
  end

  // The reference: the held command's bytes not yet handed out, and each stream's cursor.
  reg [        39:0] addr_q;
  reg [        31:0] rem_q;
  reg [         3:0] stream_q;
  reg [Streams*5-1:0] plane_q;
  reg [Streams*LaneW-1:0] lane_q;
  wire [4:0] plane = plane_q[5*stream_q+:5];
  wire [LaneW-1:0] lane = lane_q[LaneW*stream_q+:LaneW];

  wire cmd_fire = cmd_valid_i && cmd_ready_o;
  wire piece_fire = |(out_valid_o & out_ready_i);
  wire last = out_len_o == rem_q;  // the command's last piece
  wire [32:0] pages = (33'(out_len_o) + 33'(PageBytes - 1)) >> PgW;
  wire [32:0] next_plane = 33'(plane) + pages;

  always @(posedge clk_i) begin
    if (rst_i) begin
      rem_q   <= '0;
      plane_q <= '0;
      lane_q  <= '0;
    end else begin
      if (cmd_fire) begin
        addr_q   <= cmd_addr_i;
        rem_q    <= cmd_len_i;
        stream_q <= cmd_stream_i;
      end else if (piece_fire) begin
        addr_q <= addr_q + 40'(out_len_o);
        rem_q  <= rem_q - out_len_o;
        if (next_plane == 33'(Planes)) begin
          plane_q[5*stream_q+:5] <= '0;
          lane_q[LaneW*stream_q+:LaneW] <= lane + 1'b1;
        end else begin
          plane_q[5*stream_q+:5] <= 5'(next_plane);
        end
      end
      for (int s = 0; s < Streams; s++) begin
        if (stream_reset_i[s]) begin
          plane_q[5*s+:5] <= '0;
          lane_q[LaneW*s+:LaneW] <= '0;
        end
      end
    end
  end

  // The splitter's registers (peek lines of rtl/nfw/formal/proofs), for the induction: they
  // are the reference's state.
  (* keep *) wire have_peek;
  (* keep *) wire [39:0] addr_peek;
  (* keep *) wire [31:0] len_peek;
  (* keep *) wire [3:0] stream_peek;
  (* keep *) wire [Streams*5-1:0] plane_peek;
  (* keep *) wire [Streams*LaneW-1:0] lane_peek;

  always @* begin
    if (live) begin
      assert (have_peek == (rem_q != '0));
      if (rem_q != '0) begin
        assert (addr_peek == addr_q && len_peek == rem_q && stream_peek == stream_q);
        assert (32'(stream_q) < Streams);
      end
      assert (plane_peek == plane_q && lane_peek == lane_q);
      for (int s = 0; s < Streams; s++) assert (32'(plane_q[5*s+:5]) < Planes);
      assert (cmd_ready_o == (rem_q == '0));
      assert (idle_o == (rem_q == '0));
      assert (out_valid_o == (rem_q == '0 ? '0 : Lanes'(1) << lane));
      if (rem_q != '0) begin
        assert (out_addr_o == addr_q && out_stream_o == stream_q);
        assert (out_len_o != '0 && out_len_o <= rem_q);
        assert (next_plane <= 33'(Planes));  // within the unit
        // not the last: the rest of the unit, in whole pages
        if (!last) assert (out_len_o[PgW-1:0] == '0 && next_plane == 33'(Planes));
      end
    end
  end
endmodule

`default_nettype wire
