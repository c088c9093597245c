// SPDX-License-Identifier: Apache-2.0
// Formal harness for the dual-clock FIFOs direkt_async_fifo_w<W>_d16_r (Cummings style:
// Gray pointers through 2-flop synchronisers, registered read data).
//
// The IP is instantiated unchanged from ../ip (the top and its submodules u_wr, u_rd,
// u_rd_ptr_sync, u_wr_ptr_sync). formal/run.py reads this file with
//   read_verilog -formal -D DUT=<module> -D WIDTH=<w> -D CHECK_<property>
// and builds the model with `clk2fflogic` (SymbiYosys `multiclock on`): every flip-flop
// becomes a flip-flop of the global formal clock that takes its D input only in a global
// step where its own clock rose. Exactly one CHECK_<property> selects the property under
// proof; the helper invariants are asserted in every run (CHECK_helpers proves them alone;
// the data helpers are asserted only with CHECK_data_in_order). Shared with async_fifo_sr.sv:
// the sizes, ports and pointer arithmetic (async_fifo_head.svh), the synchroniser property and
// the pointer helpers (async_fifo_props.svh); with every FIFO harness: the words counted at the
// ports and two tracked words with the properties stated of them (fifo_words.svh).
//
// Clocks: wr_clk and rd_clk are free in every global step ($anyseq), so their edges are
// arbitrary: any ratio, any phase, drifting, simultaneous edges, long stops.
//
// Internal signals: Yosys 0.23 has no hierarchical references (`dut.u_wr.wr_ptr_bin` here
// would be an implicitly declared, undriven wire). The wires below tagged `//@tap` are left
// undriven here; after `flatten` run.py drives each from the flattened internal signal:
// `//@tap w = dut.x` with Yosys `connect` (exactly `assign w = dut.x;`), `//@tap w =
// dut.mem[a]` by one more asynchronous read port on the memory dut.mem at address a (exactly
// `assign w = dut.mem[a];`). `check -assert` then rejects any tap left undriven. Taps are read
// only by assertions, never by assumptions: a wrong tap can fail a proof, never pass one.
//
//@tap f_wb      = dut.u_wr.wr_ptr_bin
//@tap f_wg      = dut.u_wr.wr_ptr_gray_q
//@tap f_rb      = dut.u_rd.rd_ptr_bin
//@tap f_rg      = dut.u_rd.rd_ptr_gray_q
//@tap f_rv      = dut.u_rd.valid_q
//@tap f_wsync0  = dut.u_wr_ptr_sync.stage0
//@tap f_wsync1  = dut.u_wr_ptr_sync.stage1
//@tap f_rsync0  = dut.u_rd_ptr_sync.stage0
//@tap f_rsync1  = dut.u_rd_ptr_sync.stage1
//@tap f_dq      = dut.rd_data_q
//@tap f_mem_head   = dut.mem[f_addr_head]
//@tap f_mem_first  = dut.mem[f_addr_first]
//@tap f_mem_second = dut.mem[f_addr_second]
//@tap f_binc     = dut.u_rd.rd_ptr_bin_inc   if LA>=1
//@tap f_ginc     = dut.u_rd.rd_ptr_gray_inc  if LA>=1
//@tap f_fullq    = dut.u_wr.full_q           if LA>=1
// (LA=1, the lookahead variant `_la`: the read side keeps the pointer one ahead in registers,
// the write side its full flag a cycle ahead; LA=0: those taps are tied off below.)
//
// Environment assumptions:
//   E1  Both resets are high from the first step until each side has seen at least one
//       rising edge of its clock with its reset high (every register starts arbitrary, and a
//       synchronous reset acts only at a clock edge). This is "asserted together at start",
//       and weaker than the IP's documented rule (both, overlapping, >= 3 slow cycles).
//   E2  After that each reset is released at an arbitrary moment, independently of the
//       other, and is never asserted again (the IP documents that resetting one side alone
//       while words are held loses or replays them; a reset of both mid-stream is not
//       modelled).
// No other assumption: s_valid, s_data and m_ready are free in every step, also while wr_rst
// is high (the IP documents s_valid low during wr_rst; the proofs do not need it: a handshake
// while wr_rst is high is not counted as an accepted word, and the IP does not keep it).
`default_nettype none

module fv_async_fifo;
`include "async_fifo_head.svh"

  `DUT dut (
    .wr_clk(wr_clk), .wr_rst(wr_rst), .rd_clk(rd_clk), .rd_rst(rd_rst),
    .s_data(s_data), .s_valid(s_valid), .s_ready(s_ready),
    .m_data(m_data), .m_valid(m_valid), .m_ready(m_ready)
  );

  // taps (driven by run.py, see above)
  wire [PW-1:0] f_wb, f_wg, f_rb, f_rg;
  wire          f_rv;
  wire [PW-1:0] f_wsync0, f_wsync1;     // write pointer, Gray, in the read domain
  wire [PW-1:0] f_rsync0, f_rsync1;     // read pointer, Gray, in the write domain
  wire [W-1:0]  f_dq;
  wire [W-1:0]  f_mem_head, f_mem_first, f_mem_second;
  wire [PW-1:0] f_binc, f_ginc;         // LA: the read pointer one ahead, binary and Gray
  wire          f_fullq;                // LA: the registered full flag
  generate
    if (`LA == 0) begin : g_no_lookahead
      assign f_binc = {PW{1'b0}};
      assign f_ginc = {PW{1'b0}};
      assign f_fullq = 1'b0;
    end
  endgenerate
  wire [AW-1:0] f_addr_head = f_rb[AW-1:0];   // f_mem_head: the word at the read pointer

  // ---------------------------------------------------------------- environment
  // E1: each side records that it has been reset
  reg f_wr_seen = 1'b0, f_rd_seen = 1'b0;
  always @(posedge wr_clk) if (wr_rst) f_wr_seen <= 1'b1;
  always @(posedge rd_clk) if (rd_rst) f_rd_seen <= 1'b1;
  wire f_ok = f_wr_seen && f_rd_seen;   // both sides have been reset: properties apply

  always @* if (!f_ok) assume (wr_rst && rd_rst);                        // E1

  // E2: once released, a reset stays released
  reg f_wr_rel = 1'b0, f_rd_rel = 1'b0;
  always @($global_clock) begin
    if (f_ok && !wr_rst) f_wr_rel <= 1'b1;
    if (f_ok && !rd_rst) f_rd_rel <= 1'b1;
  end
  always @* if (f_wr_rel) assume (!wr_rst);                              // E2
  always @* if (f_rd_rel) assume (!rd_rst);                              // E2

  // ---------------------------------------------------------------- reference model
  // fifo_words.svh: words accepted (write side) and delivered (read side), counted at the ports,
  // and two consecutive tracked words, each side in its own clock domain and cleared by its own
  // reset; its properties apply once both sides have been reset.
  wire push = s_valid && s_ready;
  wire take = m_valid && m_ready;
`define FV_WR_CLK wr_clk
`define FV_RD_CLK rd_clk
`define FV_WR_CLR wr_rst
`define FV_RD_CLR rd_rst
`define FV_CHECKED f_ok
`include "fifo_words.svh"

  // Ghost copies of the synchroniser stages, in binary: the same clock, reset and sampling
  // instant as the stage, but they sample the binary pointer where the stage samples its
  // Gray code. So f_x0 is "the write pointer value that u_wr_ptr_sync.stage0 sampled".
  reg [PW-1:0] f_x0, f_x1;      // write pointer, as sampled in the read domain
  reg [PW-1:0] f_y0, f_y1;      // read pointer, as sampled in the write domain
  always @(posedge rd_clk)
    if (rd_rst) begin f_x0 <= 0; f_x1 <= 0; end
    else begin f_x0 <= f_wb; f_x1 <= f_x0; end
  always @(posedge wr_clk)
    if (wr_rst) begin f_y0 <= 0; f_y1 <= 0; end
    else begin f_y0 <= f_rb; f_y1 <= f_y0; end

  // the Gray pointers one global step earlier, and whether both sides had been reset then
  reg          f_ok_prev = 1'b0;
  reg [PW-1:0] f_wg_prev, f_rg_prev;
  always @($global_clock) begin
    f_ok_prev <= f_ok;
    f_wg_prev <= f_wg;
    f_rg_prev <= f_rg;
  end

  // ---------------------------------------------------------------- properties
  // (never_exceeds_depth, no_accept_when_full, no_emit_when_empty, data_in_order:
  // fifo_words.svh; sync_stage_gray_lags, with the helpers on the pointers: async_fifo_props.svh)
`include "async_fifo_props.svh"
  always @* if (f_ok) begin
`ifdef CHECK_sync_stage_gray_lags
    // The Gray pointers that cross change in at most one bit per global step, so a
    // synchroniser flop that samples one while it changes (metastability, not modelled
    // here: the flops sample the settled value) can only resolve to the old or the new
    // pointer, which the lag relations (async_fifo_props.svh) already allow.
    wr_gray_one_bit: assert (!f_ok_prev || ((f_wg ^ f_wg_prev) & ((f_wg ^ f_wg_prev) - 1'b1)) == 0);
    rd_gray_one_bit: assert (!f_ok_prev || ((f_rg ^ f_rg_prev) & ((f_rg ^ f_rg_prev) - 1'b1)) == 0);
`endif
  end

`ifdef CHECK_reachable
  // Non-vacuity: under the same assumptions, the interesting states are reachable from reset
  // (run.py proves these with BMC cover, not induction).
  always @* if (f_ok) begin
    cover (f_level == D && !s_ready);                 // the FIFO fills up, and says so
    cover (f_rtrk == 2'd2);                           // both tracked words delivered
  end
`endif

  // ---------------------------------------------------------------- helpers
  // Invariants that make the properties inductive, asserted (so proven) in every run, besides
  // those of async_fifo_props.svh and fifo_words.svh.
  always @* begin
    // reset phase: a side that has been reset holds its reset state until its reset is
    // released (which E1 allows only once both sides have been reset)
    if (f_wr_seen && !f_wr_rel)
      h_wr_reset: assert (f_wb == 0 && f_wg == 0 && f_rsync0 == 0 && f_rsync1 == 0 &&
                          f_y0 == 0 && f_y1 == 0 && f_wcnt == 0 && f_wtrk == 2'd0);
    if (f_rd_seen && !f_rd_rel)
      h_rd_reset: assert (f_rb == 0 && f_rg == 0 && !f_rv && f_wsync0 == 0 && f_wsync1 == 0 &&
                          f_x0 == 0 && f_x1 == 0 && f_rcnt == 0 && f_rtrk == 2'd0 &&
                          (!`LA || (f_binc == 1 && f_ginc == 1)));
    if (f_wr_seen && !f_wr_rel)
      h_wr_reset_la: assert (!`LA || !f_fullq);
    h_rel: assert ((!f_wr_rel && !f_rd_rel) || f_ok);
    if (f_ok) begin
      // y1 <= y0 <= read <= write (read-pointer synchroniser), write - y1 within one lap
      h_rd_chain: assert (dist(f_y0, f_y1) <= dist(f_rb, f_y1) &&
                          dist(f_rb, f_y1) <= dist(f_wb, f_y1) && dist(f_wb, f_y1) <= D);
      // LA: the registered full flag is clear only while the write pointer is less than a lap
      // ahead of the read pointer the write side sees
      h_la_full: assert (!`LA || f_fullq || dist(f_wb, f_y1) < D);
    end
  end
endmodule

`default_nettype wire
