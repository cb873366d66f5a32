// nfw_lanes: the NAND write path at the flash memory system's rate: Lanes NAND write
// pipelines (nfw_top) side by side behind one command port and one completion port.
//
//   cmd --> nfw_split --piece--> lane 0: nfw_top --mem port 0, prog/pdat 0 (channels 0, L, ..)
//                           \--> lane 1: nfw_top --mem port 1, prog/pdat 1 (channels 1, L+1, ..)
//                            ... lane L-1
//   done <-- nfw_merge (round robin, lane numbering -> FMS numbering) <-- the lanes' done
//
// One pipeline moves a 64-bit beat per cycle (6.4 GB/s at 0.8 GHz); the paper's FMS programs
// 41.9 GB/s (rtl/nfw/README.md has the arithmetic), so the write path needs several. The C
// stream FTL sends program unit u of a stream to die u % Dies and die d sits on channel
// d % Channels; lane l takes the units u with u % Lanes == l, that is the dies l, l + Lanes,
// ... and the channels l, l + Lanes, ...: each lane is an nfw_top of Channels / Lanes
// channels, its die d being the FMS's die d x Lanes + l. The splitter (nfw_split) cuts each
// command at program-unit boundaries and hands each piece to its unit's lane; the merger
// (nfw_merge) numbers the lanes' completions back.
//
// Each lane reads the tensor buffer through its own memory port (rtl/README.md) and drives
// its own channels (prog/pdat); lane l's port fields are bits [l*W +: W] of each vector, and
// its program commands carry the FMS's channel and die numbers.
//
// Block allocation: every lane has its own round-robin allocator (nfw_alloc), all configured
// alike (SET_STREAM, FREE_PB and USE_PB go to every lane), and every lane opens the same
// logical blocks in the same order, so they hand out the same physical block for an LB as
// long as a block is freed only while the lanes are idle or after every lane has moved past
// it (the firmware's rule; nfw_time and the block test keep it, and the FTL refuses a
// completion whose block differs from the LB's). A BBT entry goes to its die's lane, with the
// lane's die number.
//
// Configuration port: as nfw_top's (cfg_ready_o always high). Configure a stream only while
// the lanes are idle (idle_o).
//
// Handshake contract: rtl/README.md. Every output is a register or a lane's output.

`default_nettype none

module nfw_lanes #(
    parameter int PageBytes     = 256,  // bytes per flash page, a power of two >= 64
    parameter int Planes        = 2,    // planes per die, 1..16
    parameter int Channels      = 2,    // channels, a power of two, a multiple of Lanes
    parameter int DiesPerChan   = 2,    // dies on each channel
    parameter int PagesPerBlock = 4,    // pages per block
    parameter int Streams       = 2,    // streams, 1..16
    parameter int MaxPbs        = 16,   // physical blocks a stream may own
    parameter int BbtEntries    = 4,    // bad-block replacement entries per lane
    parameter int Slots         = 4,    // page buffers per lane, a power of two >= Planes
    parameter int MaxReads      = 64,   // tensor-buffer reads outstanding per lane
    parameter int Lanes         = 2     // write pipelines side by side, a power of two
) (
    input  wire                clk_i,
    input  wire                rst_i,
    // write commands
    input  wire                cmd_valid_i,
    output wire                cmd_ready_o,
    input  wire [        39:0] cmd_addr_i,
    input  wire [        31:0] cmd_len_i,
    input  wire [         3:0] cmd_stream_i,
    // memory ports (tensor buffer), one per lane, reads only
    output wire [   Lanes-1:0] mem_req_valid_o,
    input  wire [   Lanes-1:0] mem_req_ready_i,
    output wire [   Lanes-1:0] mem_req_write_o,
    output wire [Lanes*40-1:0] mem_req_addr_o,
    output wire [Lanes*64-1:0] mem_req_wdata_o,
    output wire [ Lanes*8-1:0] mem_req_wstrb_o,
    input  wire [   Lanes-1:0] mem_rsp_valid_i,
    output wire [   Lanes-1:0] mem_rsp_ready_o,
    input  wire [Lanes*64-1:0] mem_rsp_rdata_i,
    input  wire [   Lanes-1:0] mem_rsp_err_i,
    // program commands to the channels, one port per lane, one command per page
    output wire [   Lanes-1:0] prog_valid_o,
    input  wire [   Lanes-1:0] prog_ready_i,
    output wire [Lanes*16-1:0] prog_chan_o,
    output wire [Lanes*16-1:0] prog_die_o,
    output wire [ Lanes*4-1:0] prog_plane_o,
    output wire [Lanes*16-1:0] prog_block_o,
    output wire [Lanes*16-1:0] prog_page_o,
    output wire [   Lanes-1:0] prog_first_o,
    output wire [   Lanes-1:0] prog_last_o,
    // page data after each command, one port per lane
    output wire [   Lanes-1:0] pdat_valid_o,
    input  wire [   Lanes-1:0] pdat_ready_i,
    output wire [Lanes*64-1:0] pdat_data_o,
    output wire [   Lanes-1:0] pdat_last_o,
    // completions, one per page
    output wire                done_valid_o,
    input  wire                done_ready_i,
    output wire [         3:0] done_stream_o,
    output wire [        31:0] done_lpn_o,
    output wire [        15:0] done_pbn_o,
    output wire [        15:0] done_die_o,
    output wire [         3:0] done_plane_o,
    output wire [        15:0] done_block_o,
    output wire [        15:0] done_page_o,
    output wire                done_err_o,
    // configuration (nfw_top's)
    input  wire                cfg_valid_i,
    output wire                cfg_ready_o,
    input  wire [         1:0] cfg_op_i,
    input  wire [         3:0] cfg_stream_i,
    input  wire [         7:0] cfg_idx_i,
    input  wire [        31:0] cfg_a_i,
    input  wire [        31:0] cfg_b_i,
    // nothing queued or in flight (two cycles late)
    output wire                idle_o
);

  localparam int LaneChannels = Channels / Lanes;
  localparam logic [1:0] CfgSetStream = 2'd0;  // nfw_top's operations
  localparam logic [1:0] CfgBbt = 2'd3;

  if (Lanes < 1 || Lanes > 16 || (1 << $clog2(Lanes)) != Lanes || Channels % Lanes != 0)
  begin : g_bad_lanes
    nfw_param_error_Lanes_must_be_a_power_of_two_dividing_Channels u_err ();
  end

  // ---------------------------------------------------------------- splitter
  reg [Streams-1:0] stream_reset;
  always @* begin
    for (int i = 0; i < Streams; i++)
      stream_reset[i] = cfg_valid_i && cfg_op_i == CfgSetStream && cfg_stream_i == 4'(i);
  end

  wire [Lanes-1:0] piece_valid, piece_ready;
  wire [39:0] piece_addr;
  wire [31:0] piece_len;
  wire [ 3:0] piece_stream;
  wire        split_idle;

  nfw_split #(
      .PageBytes(PageBytes),
      .Planes   (Planes),
      .Lanes    (Lanes),
      .Streams  (Streams)
  ) u_split (
      .clk_i,
      .rst_i,
      .stream_reset_i(stream_reset),
      .cmd_valid_i,
      .cmd_ready_o,
      .cmd_addr_i,
      .cmd_len_i,
      .cmd_stream_i,
      .out_valid_o   (piece_valid),
      .out_ready_i   (piece_ready),
      .out_addr_o    (piece_addr),
      .out_len_o     (piece_len),
      .out_stream_o  (piece_stream),
      .idle_o        (split_idle)
  );

  // ---------------------------------------------------------------- lanes
  // A BBT entry goes to its die's lane (die % Lanes), with the lane's die (die / Lanes).
  wire [11:0] bbt_die = cfg_a_i[31:20];
  wire [Lanes-1:0] lane_idle, lane_done_valid, lane_done_ready, lane_done_err;
  wire [ Lanes*4-1:0] lane_done_stream, lane_done_plane;
  wire [Lanes*32-1:0] lane_done_lpn;
  wire [Lanes*16-1:0] lane_done_pbn, lane_done_die, lane_done_block, lane_done_page;

  for (genvar l = 0; l < Lanes; l++) begin : g_lane
    wire        is_bbt = cfg_op_i == CfgBbt;
    wire        lane_cfg_valid = cfg_valid_i && (!is_bbt || 32'(bbt_die) % Lanes == l);
    wire [31:0] lane_cfg_a = is_bbt ? {12'(32'(bbt_die) / Lanes), cfg_a_i[19:0]} : cfg_a_i;
    wire [15:0] chan, die;
    /* verilator lint_off PINCONNECTEMPTY */  // every lane's configuration port takes each beat
    nfw_top #(
        .PageBytes    (PageBytes),
        .Planes       (Planes),
        .Channels     (LaneChannels),
        .DiesPerChan  (DiesPerChan),
        .PagesPerBlock(PagesPerBlock),
        .Streams      (Streams),
        .MaxPbs       (MaxPbs),
        .BbtEntries   (BbtEntries),
        .Slots        (Slots),
        .MaxReads     (MaxReads)
    ) u_nfw (
        .clk_i,
        .rst_i,
        .cmd_valid_i    (piece_valid[l]),
        .cmd_ready_o    (piece_ready[l]),
        .cmd_addr_i     (piece_addr),
        .cmd_len_i      (piece_len),
        .cmd_stream_i   (piece_stream),
        .mem_req_valid_o(mem_req_valid_o[l]),
        .mem_req_ready_i(mem_req_ready_i[l]),
        .mem_req_write_o(mem_req_write_o[l]),
        .mem_req_addr_o (mem_req_addr_o[40*l+:40]),
        .mem_req_wdata_o(mem_req_wdata_o[64*l+:64]),
        .mem_req_wstrb_o(mem_req_wstrb_o[8*l+:8]),
        .mem_rsp_valid_i(mem_rsp_valid_i[l]),
        .mem_rsp_ready_o(mem_rsp_ready_o[l]),
        .mem_rsp_rdata_i(mem_rsp_rdata_i[64*l+:64]),
        .mem_rsp_err_i  (mem_rsp_err_i[l]),
        .prog_valid_o   (prog_valid_o[l]),
        .prog_ready_i   (prog_ready_i[l]),
        .prog_chan_o    (chan),
        .prog_die_o     (die),
        .prog_plane_o   (prog_plane_o[4*l+:4]),
        .prog_block_o   (prog_block_o[16*l+:16]),
        .prog_page_o    (prog_page_o[16*l+:16]),
        .prog_first_o   (prog_first_o[l]),
        .prog_last_o    (prog_last_o[l]),
        .pdat_valid_o   (pdat_valid_o[l]),
        .pdat_ready_i   (pdat_ready_i[l]),
        .pdat_data_o    (pdat_data_o[64*l+:64]),
        .pdat_last_o    (pdat_last_o[l]),
        .done_valid_o   (lane_done_valid[l]),
        .done_ready_i   (lane_done_ready[l]),
        .done_stream_o  (lane_done_stream[4*l+:4]),
        .done_lpn_o     (lane_done_lpn[32*l+:32]),
        .done_pbn_o     (lane_done_pbn[16*l+:16]),
        .done_die_o     (lane_done_die[16*l+:16]),
        .done_plane_o   (lane_done_plane[4*l+:4]),
        .done_block_o   (lane_done_block[16*l+:16]),
        .done_page_o    (lane_done_page[16*l+:16]),
        .done_err_o     (lane_done_err[l]),
        .cfg_valid_i    (lane_cfg_valid),
        .cfg_ready_o    (),
        .cfg_op_i,
        .cfg_stream_i,
        .cfg_idx_i,
        .cfg_a_i        (lane_cfg_a),
        .cfg_b_i,
        .idle_o         (lane_idle[l])
    );
    /* verilator lint_on PINCONNECTEMPTY */
    // The lane's channel c and die d are the FMS's c x Lanes + l and d x Lanes + l.
    assign prog_chan_o[16*l+:16] = 16'(32'(chan) * Lanes + l);
    assign prog_die_o[16*l+:16]  = 16'(32'(die) * Lanes + l);
  end

  assign cfg_ready_o = 1'b1;

  // ---------------------------------------------------------------- completions
  nfw_merge #(
      .Planes(Planes),
      .Lanes (Lanes)
  ) u_merge (
      .clk_i,
      .rst_i,
      .in_valid_i  (lane_done_valid),
      .in_ready_o  (lane_done_ready),
      .in_stream_i (lane_done_stream),
      .in_lpn_i    (lane_done_lpn),
      .in_pbn_i    (lane_done_pbn),
      .in_die_i    (lane_done_die),
      .in_plane_i  (lane_done_plane),
      .in_block_i  (lane_done_block),
      .in_page_i   (lane_done_page),
      .in_err_i    (lane_done_err),
      .out_valid_o (done_valid_o),
      .out_ready_i (done_ready_i),
      .out_stream_o(done_stream_o),
      .out_lpn_o   (done_lpn_o),
      .out_pbn_o   (done_pbn_o),
      .out_die_o   (done_die_o),
      .out_plane_o (done_plane_o),
      .out_block_o (done_block_o),
      .out_page_o  (done_page_o),
      .out_err_o   (done_err_o)
  );

  // ---------------------------------------------------------------- status
  reg idle_q;
  always @(posedge clk_i) begin
    if (rst_i) idle_q <= 1'b0;
    else idle_q <= split_idle && &lane_idle && !done_valid_o;
  end
  assign idle_o = idle_q;

endmodule

`default_nettype wire
