// nfw_split: the command splitter of the NAND write lanes (nfw_lanes).
//
// The C stream FTL lays a stream's pages out as page offset o -> plane o % Planes, program
// unit u = o / Planes -> die u % Dies. Lane l of nfw_lanes owns the dies l, l + Lanes, ...,
// so unit u belongs to lane u % Lanes. The splitter cuts each write command at program-unit
// boundaries and hands each piece to the lane of its unit: it keeps, per stream, the plane
// the next page goes to and the lane of the current unit. A command that ends inside a unit
// leaves the cursor there: the next command of the stream continues the unit on the same
// lane, exactly as nfw_page_pack continues it (a command's pages are padded to whole pages,
// so pieces are whole pages but the command's last).
//
// One command is held at a time; a piece leaves each cycle its lane takes it. The piece's
// payload is computed from registers only (the held command and the cursors).
//
// Handshake contract: rtl/README.md. cmd_ready_o is a register's value.

`default_nettype none

module nfw_split #(
    parameter int PageBytes = 256,  // bytes per page, a power of two
    parameter int Planes    = 2,    // planes per die (pages per program unit), 1..16
    parameter int Lanes     = 2,    // write lanes, a power of two, 1..16
    parameter int Streams   = 2     // streams, 1..16
) (
    input  wire               clk_i,
    input  wire               rst_i,
    // SET_STREAM of stream i: its cursor back to the first plane of lane 0
    input  wire [Streams-1:0] stream_reset_i,
    // write commands
    input  wire               cmd_valid_i,
    output wire               cmd_ready_o,
    input  wire [       39:0] cmd_addr_i,
    input  wire [       31:0] cmd_len_i,
    input  wire [        3:0] cmd_stream_i,
    // pieces, to the lane whose valid is high (payload shared)
    output wire [  Lanes-1:0] out_valid_o,
    input  wire [  Lanes-1:0] out_ready_i,
    output wire [       39:0] out_addr_o,
    output wire [       31:0] out_len_o,
    output wire [        3:0] out_stream_o,
    // no command held
    output wire               idle_o
);

  localparam int PgW = $clog2(PageBytes);
  localparam int LaneW = Lanes > 1 ? $clog2(Lanes) : 1;

  if (Lanes < 1 || Lanes > 16 || (1 << $clog2(Lanes)) != Lanes) begin : g_bad_lanes
    nfw_param_error_Lanes_must_be_a_power_of_two_from_1_to_16 u_err ();
  end
  if (Planes < 1 || Planes > 16) begin : g_bad_planes
    nfw_param_error_Planes_must_be_1_to_16 u_err ();
  end

  reg             have_q;  // a command is held
  reg [     39:0] addr_q;  // its bytes not yet handed out
  reg [     31:0] len_q;
  reg [      3:0] stream_q;
  reg [      4:0] plane_q  [Streams];  // next page's plane
  reg [LaneW-1:0] lane_q   [Streams];  // lane of the current unit

  // The held stream's cursor (a mux: stream_q may exceed Streams - 1 only for a bad command,
  // which nfw_top's assertion reports).
  logic [4:0] plane;
  logic [LaneW-1:0] lane;
  always @* begin
    plane = '0;
    lane  = '0;
    for (int i = 0; i < Streams; i++) begin
      if (stream_q == 4'(i)) begin
        plane = plane_q[i];
        lane  = lane_q[i];
      end
    end
  end

  // The piece: the rest of the unit, or the rest of the command if shorter.
  wire [31:0] room = 32'(Planes - 32'(plane)) << PgW;
  wire [31:0] piece = len_q < room ? len_q : room;
  wire [ 4:0] pages = 5'((piece + 32'(PageBytes - 1)) >> PgW);
  wire [ 4:0] next_plane = plane + pages;
  wire        unit_end = 32'(next_plane) == Planes;
  wire [LaneW-1:0] next_lane = Lanes == 1 ? '0 : lane + 1'b1;

  wire        lane_ready = |(out_ready_i & (Lanes'(1) << lane));
  wire        take = have_q && lane_ready;
  wire        load = cmd_valid_i && !have_q;

  always @(posedge clk_i) begin
    if (rst_i) have_q <= 1'b0;
    else if (load) have_q <= cmd_len_i != 32'd0;  // a zero-length command writes nothing
    else if (take && len_q == piece) have_q <= 1'b0;
  end

  always @(posedge clk_i) begin
    if (load) begin
      addr_q   <= cmd_addr_i;
      len_q    <= cmd_len_i;
      stream_q <= cmd_stream_i;
    end else if (take) begin
      addr_q <= addr_q + 40'(piece);
      len_q  <= len_q - piece;
    end
  end

  always @(posedge clk_i) begin
    for (int i = 0; i < Streams; i++) begin
      if (rst_i || stream_reset_i[i]) begin
        plane_q[i] <= '0;
        lane_q[i]  <= '0;
      end else if (take && stream_q == 4'(i)) begin
        plane_q[i] <= unit_end ? 5'd0 : next_plane;
        if (unit_end) lane_q[i] <= next_lane;
      end
    end
  end

  assign cmd_ready_o = !have_q;
  assign out_valid_o = have_q ? Lanes'(1) << lane : '0;
  assign out_addr_o = addr_q;
  assign out_len_o = piece;
  assign out_stream_o = stream_q;
  assign idle_o = !have_q;

endmodule

`default_nettype wire
