// nfw_alloc: the stream FTL's round-robin physical block allocator, in hardware.
//
// Each stream owns n_blocks physical blocks (PBNs 0 .. n_blocks-1, relative to its first
// block) and a busy bit per block: set when the block is handed out (it holds the live data
// of a logical block) or retired, cleared by the firmware when the data are consumed and the
// block is erased. A request gets the next PBN in rotation, from the stream's cursor on, whose
// busy bit is clear; the cursor then moves past it. This is the C FTL's own rule
// (models/flash/ftl_stream.c, alloc_pb): with 4 blocks and 3 logical blocks per iteration,
// iteration 1 maps LB 0-2 to PB 0, 1, 2 and iteration 2 to PB 3, 0, 1 (paper's example).
//
// The search looks at one candidate per cycle (a request costs 1 + skipped blocks cycles, once
// per logical block of megabytes to gigabytes); when every block is busy it keeps looking
// until the firmware frees one.
//
// Configuration (one operation per cycle): set a stream's block count (its bits cleared,
// cursor 0); free a block; mark a block busy (retired: never handed out).

`default_nettype none

module nfw_alloc #(
    parameter int Streams = 2,  // streams, 1..16
    parameter int MaxPbs  = 16  // physical blocks a stream may own, 2..65536
) (
    input  wire        clk_i,
    input  wire        rst_i,
    // configuration
    input  wire        set_i,   // stream cfg_stream_i owns cfg_n_i blocks, all free
    input  wire        free_i,  // block cfg_pbn_i of stream cfg_stream_i is erased and free
    input  wire        use_i,   // block cfg_pbn_i of stream cfg_stream_i is busy (retired)
    input  wire [ 3:0] cfg_stream_i,
    input  wire [15:0] cfg_pbn_i,
    input  wire [15:0] cfg_n_i,
    // request / grant (the request holds until the grant)
    input  wire        req_i,
    input  wire [ 3:0] req_stream_i,
    output wire        gnt_o,
    output wire [15:0] gnt_pbn_o
);

  localparam int PbnW = MaxPbs > 1 ? $clog2(MaxPbs) : 1;
  localparam int StreamW = Streams > 1 ? $clog2(Streams) : 1;

  if (MaxPbs < 2 || MaxPbs > 65536 || Streams < 1 || Streams > 16) begin : g_bad_params
    nfw_param_error_MaxPbs_2_to_65536_and_Streams_1_to_16 u_err ();
  end

  reg  [ MaxPbs-1:0] busy_q    [Streams];
  reg  [   PbnW-1:0] cursor_q  [Streams];
  reg  [   PbnW-1:0] last_pbn_q[Streams];  // n_blocks - 1
  reg                scan_q;  // searching for a free block of scan_stream_q
  reg  [StreamW-1:0] scan_stream_q;
  reg  [   PbnW-1:0] candidate_q;  // the block looked at this cycle

  wire [ MaxPbs-1:0] scan_busy = busy_q[scan_stream_q];
  wire               candidate_free = !scan_busy[candidate_q];
  wire [   PbnW-1:0] candidate_next =
      candidate_q == last_pbn_q[scan_stream_q] ? '0 : candidate_q + 1'b1;

  assign gnt_o = scan_q && candidate_free;
  assign gnt_pbn_o = 16'(candidate_q);

  always @(posedge clk_i) begin
    if (rst_i) begin
      scan_q <= 1'b0;
    end else if (!scan_q) begin
      scan_q <= req_i;
    end else if (candidate_free) begin
      scan_q <= 1'b0;
    end
  end

  always @(posedge clk_i) begin
    if (!scan_q) begin
      scan_stream_q <= StreamW'(req_stream_i);
      candidate_q   <= cursor_q[StreamW'(req_stream_i)];
    end else if (!candidate_free) begin
      candidate_q <= candidate_next;
    end
  end

  // Busy bits and cursors: the grant first, the firmware's operation last (it wins).
  always @(posedge clk_i) begin
    for (int i = 0; i < Streams; i++) begin
      if (rst_i) begin
        busy_q[i]     <= '0;
        cursor_q[i]   <= '0;
        last_pbn_q[i] <= '0;
      end else begin
        if (gnt_o && scan_stream_q == StreamW'(i)) begin
          busy_q[i][candidate_q] <= 1'b1;
          cursor_q[i]            <= candidate_next;
        end
        if (cfg_stream_i == 4'(i)) begin
          if (set_i) begin
            busy_q[i]     <= '0;
            cursor_q[i]   <= '0;
            last_pbn_q[i] <= PbnW'(cfg_n_i - 16'd1);
          end
          if (free_i) busy_q[i][PbnW'(cfg_pbn_i)] <= 1'b0;
          if (use_i) busy_q[i][PbnW'(cfg_pbn_i)] <= 1'b1;
        end
      end
    end
  end

`ifndef SYNTHESIS
  always @(posedge clk_i) begin
    if (!rst_i) begin
      assert (!set_i || (cfg_n_i != 16'd0 && 32'(cfg_n_i) <= MaxPbs))
      else $error("nfw_alloc: stream %0d set to %0d blocks; accepted 1..%0d", cfg_stream_i,
                  cfg_n_i, MaxPbs);
      assert (!(free_i || use_i) || 32'(cfg_pbn_i) < MaxPbs)
      else $error("nfw_alloc: block %0d out of range; accepted 0..%0d", cfg_pbn_i, MaxPbs - 1);
      assert (!(scan_q && !req_i) && (!req_i || 32'(req_stream_i) < Streams))
      else $error("nfw_alloc: request withdrawn before its grant");
      assert (!(scan_q && req_stream_i != 4'(scan_stream_q)))
      else $error("nfw_alloc: request changed stream while waiting");
      assert (!((set_i || free_i || use_i) && 32'(cfg_stream_i) >= Streams))
      else $error("nfw_alloc: stream %0d; accepted 0..%0d", cfg_stream_i, Streams - 1);
    end
  end
`endif

endmodule

`default_nettype wire
