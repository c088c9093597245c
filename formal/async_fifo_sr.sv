// SPDX-License-Identifier: Apache-2.0
// Formal harness for the dual-clock FIFOs that tolerate one side's reset,
// direkt_async_fifo_w<W>_d16_..._sr (AsyncFifo with sideReset): no reset moves a pointer, the
// write side takes nothing while wr_rst is high, and the read side drops the words it holds,
// one a cycle, while rd_rst or the synchronised wr_rst (rd_wr_rst) is high.
//
// The IP is instantiated unchanged (the top and its submodules u_wr, u_rd, u_rd_ptr_sync,
// u_wr_ptr_sync, u_wr_rst_sync). formal/run.py reads this file with
//   read_verilog -formal -D DUT=<module> -D WIDTH=<w> -D REGOUT=<0|1> -D LA=<0|1> -D RF=<0|1>
//                -D RP=<0|1> -D CHECK_<property>
// and builds the model with `clk2fflogic`, exactly as for async_fifo.sv (see there for the
// model of the two clocks, for taps and for the files both include): REGOUT=1 registered read data (`_r`), LA=1 the read
// side keeps the pointer one ahead in registers (`_r_la`, or `_ra` without REGOUT), RF=1 the write side's full flag
// comes from a flip-flop (`_la`), RP=1 the write side outputs the read pointer it sees
// (`wr_rd_ptr`, and its own pointer `wr_ptr`, `_p`), WE=1 the write side says when it sees the
// FIFO empty (`wr_empty`, `_we`).
//
// No assumption at all (the cover run `reachable` alone fixes the data, see there). Clocks,
// wr_rst, rd_rst, s_valid, s_data and m_ready are free in every global step from the first one
// on: any clock ratio and phase, either reset asserted at any moment for any length, alone or
// with the other, also never. The proofs start where the FPGA starts: every register of the IP
// that has a power-up value (the declaration initialiser, the init attribute in Yosys) holds it
// in the first step of the base case; the read-data register and the memory start arbitrary.
// The induction step starts anywhere the helper invariants allow.
//
// Taps (driven by run.py after `flatten`) are read only by assertions and by ghost state that
// only assertions and covers read. f_ipop (the read side's pop, a word taken: delivered or
// dropped) counts the words that leave; h_ptrs ties that count to the read pointer, so a wrong
// tap fails a proof rather than passing one:
//@tap f_wlo     = dut.u_wr.wr_ptr_bin_lo
//@tap f_wg      = dut.u_wr.wr_ptr_gray_q
//@tap f_rlo     = dut.u_rd.rd_ptr_bin_lo
//@tap f_rg      = dut.u_rd.rd_ptr_gray_q
//@tap f_ipop    = dut.u_rd.pop
//@tap f_wsync0  = dut.u_wr_ptr_sync.stage0
//@tap f_wsync1  = dut.u_wr_ptr_sync.stage1
//@tap f_rsync0  = dut.u_rd_ptr_sync.stage0
//@tap f_rsync1  = dut.u_rd_ptr_sync.stage1
//@tap f_mem_head   = dut.mem[f_addr_head]
//@tap f_mem_first  = dut.mem[f_addr_first]
//@tap f_mem_second = dut.mem[f_addr_second]
//@tap f_rv       = dut.u_rd.valid_q             if REGOUT>=1
//@tap f_dq       = dut.rd_data_q                if REGOUT>=1
//@tap f_binclo   = dut.u_rd.rd_ptr_bin_inc_lo   if LA>=1
//@tap f_ginc     = dut.u_rd.rd_ptr_gray_inc     if LA>=1
//@tap f_fullq    = dut.u_wr.full_q              if RF>=1
//@tap f_wr_rd_ptr = dut.wr_rd_ptr               if RP>=1
//@tap f_wr_ptr    = dut.wr_ptr                  if RP>=1
//@tap f_wr_empty  = dut.wr_empty                if WE>=1
// (the taps a configuration lacks are tied off below)
//
// The binary pointers keep their top bit in the Gray register (Gray code keeps the top bit):
// the write pointer is {wr_ptr_gray_q[4], wr_ptr_bin_lo}, likewise the read pointer.
`default_nettype none

module fv_async_fifo_sr;
`include "async_fifo_head.svh"

  wire          rd_wr_rst;              // the write side's reset, synchronised to the read side

  // (RP: the output wr_rd_ptr is read through the tap f_wr_rd_ptr, so one instantiation fits
  // every configuration)
  `DUT dut (
    .wr_clk(wr_clk), .wr_rst(wr_rst), .rd_clk(rd_clk), .rd_rst(rd_rst),
    .s_data(s_data), .s_valid(s_valid), .s_ready(s_ready),
    .m_data(m_data), .m_valid(m_valid), .m_ready(m_ready),
    .rd_wr_rst(rd_wr_rst)
  );

  // taps (driven by run.py, see above)
  wire [AW-1:0] f_wlo, f_rlo;
  wire [PW-1:0] f_wg, f_rg;
  wire          f_ipop;                 // the read side takes the word it shows (delivered or dropped)
  wire [PW-1:0] f_wsync0, f_wsync1;     // write pointer, Gray, in the read domain
  wire [PW-1:0] f_rsync0, f_rsync1;     // read pointer, Gray, in the write domain
  wire [W-1:0]  f_mem_head, f_mem_first, f_mem_second;
  wire          f_rv;                   // REGOUT: the registered valid flag
  wire [W-1:0]  f_dq;                   // REGOUT: the read-data register
  wire [AW-1:0] f_binclo;               // LA: the read pointer one ahead, low bits ...
  wire [PW-1:0] f_ginc;                 // ... and in Gray
  wire          f_fullq;                // RF: the registered full flag
  wire [PW-1:0] f_wr_rd_ptr;            // RP: the output wr_rd_ptr
  wire [PW-1:0] f_wr_ptr;               // RP: the output wr_ptr
  wire          f_wr_empty;             // WE: the output wr_empty
  generate
    if (`REGOUT == 0) begin : g_no_regout
      assign f_rv = 1'b0;
      assign f_dq = {W{1'b0}};
    end
    if (`LA == 0) begin : g_no_lookahead
      assign f_binclo = {AW{1'b0}};
      assign f_ginc = {PW{1'b0}};
    end
    if (`RF == 0) begin : g_no_rf
      assign f_fullq = 1'b0;
    end
    if (`RP == 0) begin : g_no_rp
      assign f_wr_rd_ptr = {PW{1'b0}};
      assign f_wr_ptr = {PW{1'b0}};
    end
    if (`WE == 0) begin : g_no_we
      assign f_wr_empty = 1'b0;
    end
  endgenerate

  wire [PW-1:0] f_wb   = {f_wg[AW], f_wlo};
  wire [PW-1:0] f_rb   = {f_rg[AW], f_rlo};
  wire [PW-1:0] f_binc = {f_ginc[AW], f_binclo};
  wire [AW-1:0] f_addr_head = f_rlo;   // f_mem_head: the word at the read pointer

  // ---------------------------------------------------------------- reference model
  // fifo_words.svh: words accepted (write side, at the port) and words taken from the FIFO (read
  // side: each one delivered at the port or dropped by a flush), and two consecutive tracked
  // words; a tracked word leaves the FIFO delivered or dropped. Nothing is ever reset: the counts
  // start at 0 with the IP's pointers and run for ever.
  wire push    = s_valid && s_ready;
  wire deliver = m_valid && m_ready;
  wire take    = f_ipop || deliver;     // a delivery the IP did not count as taken fails h_ptrs
  wire drop    = take && !deliver;      // a word leaves without being delivered
  wire flush   = rd_rst || rd_wr_rst;
`define FV_WR_CLK wr_clk
`define FV_RD_CLK rd_clk
`define FV_WR_CLR 1'b0
`define FV_RD_CLR 1'b0
`define FV_CHECKED 1'b1
`include "fifo_words.svh"

  // Ghost copies of the synchroniser stages, in binary: the same clock and sampling instant as
  // the stage (and, like it, no reset), but they sample the binary pointer where the stage
  // samples its Gray code. f_y2 is the value before f_y1, what rd_ptr_seen_q decoded (RP).
  reg [PW-1:0] f_x0 = 0, f_x1 = 0;           // write pointer, as sampled in the read domain
  reg [PW-1:0] f_y0 = 0, f_y1 = 0, f_y2 = 0; // read pointer, as sampled in the write domain
  always @(posedge rd_clk) begin f_x0 <= f_wb; f_x1 <= f_x0; end
  always @(posedge wr_clk) begin f_y0 <= f_rb; f_y1 <= f_y0; f_y2 <= f_y1; end

  // the read side holds a word it can show: the word at the read pointer is below the
  // synchronised write pointer (registered read data: and has been read into the register)
  wire f_present = `REGOUT ? f_rv : f_rb != f_x1;

  // the crossing Gray pointers one global step earlier (from the second step on)
  reg          f_past = 1'b0;
  reg [PW-1:0] f_wg_prev, f_rg_prev;
  always @($global_clock) begin
    f_past    <= 1'b1;
    f_wg_prev <= f_wg;
    f_rg_prev <= f_rg;
  end

  // ---------------------------------------------------------------- properties
  // (never_exceeds_depth, no_accept_when_full, no_emit_when_empty, data_in_order:
  // fifo_words.svh; sync_stage_gray_lags, with the helpers on the pointers: async_fifo_props.svh;
  // a word not delivered was dropped, drop_only_when_flushing)
`include "async_fifo_props.svh"
  always @* begin
`ifdef CHECK_gray_one_bit
    // The point of the design: no reset moves a pointer, so each crossing Gray pointer changes
    // in at most one bit per global step, from the first step on, whatever the resets do. A
    // synchroniser flop that samples it while it changes can only resolve to the old or the
    // new pointer.
    wr_gray_one_bit: assert (!f_past || ((f_wg ^ f_wg_prev) & ((f_wg ^ f_wg_prev) - 1'b1)) == 0);
    rd_gray_one_bit: assert (!f_past || ((f_rg ^ f_rg_prev) & ((f_rg ^ f_rg_prev) - 1'b1)) == 0);
`endif
`ifdef CHECK_reset_blocks
    // nothing accepted while the write side is in reset, nothing shown while the read side
    // flushes (its own reset or the write side's, synchronised)
    no_accept_in_reset: assert (!(wr_rst && s_ready));
    no_emit_in_flush: assert (!(flush && m_valid));
`endif
`ifdef CHECK_drop_only_when_flushing
    // a word leaves without being delivered only in a read cycle with rd_rst or rd_wr_rst high
    drop_only_when_flushing: assert (!drop || flush);
`endif
`ifdef CHECK_flush_drains
    // and while it flushes, the read side takes a word in every rd_clk cycle that it holds one
    // (the word at the read pointer, announced by the synchronised write pointer; with
    // registered read data, once read into the output register), whatever m_ready does
    flush_drains: assert (!(flush && f_present) || take);
`endif
`ifdef CHECK_read_pointer_lags
    // RP: wr_rd_ptr is a value the read pointer really held, never ahead of it, so the write
    // pointer less it never understates the words held (what a credit scheme relies on)
    read_pointer_lags: assert (!`RP || (dist(f_rb, f_wr_rd_ptr) <= dist(f_wb, f_wr_rd_ptr) &&
                                        dist(f_wb, f_wr_rd_ptr) <= D));
    // and wr_ptr is the write pointer itself
    write_pointer_exact: assert (!`RP || f_wr_ptr == f_wb);
`endif
`ifdef CHECK_write_empty_sound
    // WE: wr_empty is never high while the FIFO holds a word (every word written has left:
    // delivered or dropped), whatever the clocks and resets do
    write_empty_sound: assert (!`WE || !f_wr_empty || f_wb == f_rb);
`endif
  end

`ifdef CHECK_reachable
  // Non-vacuity and the two reset scenarios, as BMC covers from power-up (run.py proves these
  // with cover, not induction). Each scenario: the FIFO fills, one side alone is reset (the
  // other's reset never rises) and the FIFO empties with m_ready low all the while, so every
  // held word was dropped by the flush; then a word accepted after that reset comes out, the
  // only word ever delivered.
  reg f_wr_rst_ever = 1'b0, f_rd_rst_ever = 1'b0;
  reg [1:0] f_ndel = 2'd0;
  always @($global_clock) begin
    if (wr_rst) f_wr_rst_ever <= 1'b1;
    if (rd_rst) f_rd_rst_ever <= 1'b1;
  end
  always @(posedge rd_clk) if (deliver && f_ndel != 2'd3) f_ndel <= f_ndel + 1'b1;
  // the data play no part in these scenarios: one value keeps the 70-step search small (an
  // assumption only narrows what a cover may use, so what it reaches stays reachable without it)
  always @* assume (s_data == {W{1'b0}});

  reg f_full_seen = 1'b0, f_emptied = 1'b0, f_ready_early = 1'b0;
  always @($global_clock) begin
    if (f_level == D) f_full_seen <= 1'b1;
    if (f_full_seen && f_level == 0) f_emptied <= 1'b1;
    if (m_ready && !f_emptied) f_ready_early <= 1'b1;
  end
  reg          f_late = 1'b0, f_late_out = 1'b0;   // the word accepted after the reset
  reg [PW-1:0] f_late_idx;
  always @(posedge wr_clk)
    if (push && f_emptied && !f_late && !rd_rst) begin
      f_late <= 1'b1;
      f_late_idx <= f_wcnt;
    end
  always @(posedge rd_clk)
    if (deliver && f_late && f_rcnt == f_late_idx) f_late_out <= 1'b1;

  always @* begin
    cover (f_level == D && !s_ready);                                        // fills, and says so
    cover (f_rtrk == 2'd2);                                                  // both tracked words taken
    cover (f_late_out && f_ndel == 2'd1 && !f_ready_early &&
           f_wr_rst_ever && !f_rd_rst_ever);                                 // write-side reset alone
    cover (f_late_out && f_ndel == 2'd1 && !f_ready_early &&
           f_rd_rst_ever && !f_wr_rst_ever);                                 // read-side reset alone
  end
`endif

  // ---------------------------------------------------------------- helpers
  // Invariants that make the properties inductive, asserted (so proven) in every run, besides
  // those of async_fifo_props.svh and fifo_words.svh.
  always @* begin
    // y2 <= y1 <= y0 <= read <= write (read-pointer synchroniser), write - y2 within one lap
    h_rd_chain: assert (dist(f_y1, f_y2) <= dist(f_y0, f_y2) && dist(f_y0, f_y2) <= dist(f_rb, f_y2) &&
                        dist(f_rb, f_y2) <= dist(f_wb, f_y2) && dist(f_wb, f_y2) <= D);
    // RP: the read pointer the write side outputs is the one before the synchroniser's last
    h_seen: assert (!`RP || f_wr_rd_ptr == f_y2);
    // RF: the registered full flag is clear only while the write pointer is less than a lap
    // ahead of the read pointer the write side sees
    h_rf_full: assert (!`RF || f_fullq || dist(f_wb, f_y1) < D);
  end
endmodule

`default_nettype wire
