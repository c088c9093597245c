// SPDX-License-Identifier: Apache-2.0
// Formal harness for the single-clock show-ahead FIFOs direkt_sync_fifo_w<W>_d<D>* (REGOUT=0:
// m_data read straight from the memory; REGOUT=1, `_r`: a registered output word in front of
// the memory, latency 2; REGFLAGS=1, `_rg`: s_ready, almost_full, fill and the unregistered
// m_valid from a count register).
//
// The IP is instantiated unchanged from ../ip. formal/run.py reads this file with
//   read_verilog -formal -D DUT=<module> -D WIDTH=<w> -D DEPTH=<d> -D AFULL=<n> -D REGOUT=<0|1>
//                -D REGFLAGS=<0|1> -D CHECK_<property>
// Exactly one CHECK_<property> macro selects the property under proof; the helper
// invariants (section "helpers") are asserted in every run, so each run proves its
// property together with them (CHECK_helpers proves them alone; the data helpers are
// asserted only with CHECK_data_in_order). The words counted at the ports, the two tracked
// words and the properties every FIFO harness states of them are in fifo_words.svh.
//
// Internal signals. Yosys 0.23 (without Verific) has no hierarchical references: `dut.wr_ptr`
// in this file would be an implicitly declared, undriven wire (YosysHQ/yosys#647, sby#202).
// Instead the wires tagged `@tap` below are declared here without a driver, and run.py,
// after `flatten` (which keeps the names dut.<reg>), drives each one from the flattened
// internal signal: `//@tap w = dut.x` with Yosys `connect -set w dut.x`, i.e. exactly
// `assign w = dut.x;`, and `//@tap w = dut.mem[a]` (a memory) by adding one more
// asynchronous read port to the memory dut.mem, address a (a wire of this harness), data w,
// i.e. exactly `assign w = dut.mem[a];`. Then `check -assert` stops the run if a tap is
// left undriven (a misspelt name). Taps are read only by assertions, never by assumptions,
// so a wrong tap can make a proof fail but never make one pass.
//
//@tap f_wr_ptr     = dut.wr_ptr
//@tap f_rd_ptr     = dut.rd_ptr
//@tap f_mem_first  = dut.mem[f_addr_first]
//@tap f_mem_second = dut.mem[f_addr_second]
//@tap f_ov         = dut.out_valid  if REGOUT>=1
//@tap f_od         = dut.out_data   if REGOUT>=1
// (REGOUT=0: f_ov and f_od are tied to 0 below, there is no output register)
//
// Environment assumptions (every other input is free in every cycle, $anyseq):
//   E1  rst is high in the first cycle (the registers start with arbitrary values).
//       rst may be asserted again in any later cycle.
// No other assumption: s_valid, s_data and m_ready are unconstrained (a source may even
// drop s_valid or change s_data while stalled; the properties below are per handshake).
`default_nettype none

module fv_sync_fifo (
  input wire clk
);
  localparam W  = `WIDTH;
  localparam D  = `DEPTH;
  localparam AW = $clog2(D);
  localparam PW = AW + 1;
  localparam REGOUT = `REGOUT;

  wire          rst     = $anyseq;
`include "fifo_ports.svh"
  wire [PW-1:0] fill;
  wire          almost_full;

  `DUT dut (
    .clk(clk), .rst(rst),
    .s_data(s_data), .s_valid(s_valid), .s_ready(s_ready),
    .m_data(m_data), .m_valid(m_valid), .m_ready(m_ready),
    .fill(fill), .almost_full(almost_full)
  );

  // taps (driven by run.py, see above)
  wire [PW-1:0] f_wr_ptr;
  wire [PW-1:0] f_rd_ptr;
  wire [W-1:0]  f_mem_first;    // dut.mem[f_addr_first]
  wire [W-1:0]  f_mem_second;   // dut.mem[f_addr_second]
  wire          f_ov;           // the output register holds a word (REGOUT)
  wire [W-1:0]  f_od;           // the output register (REGOUT)
  generate
    if (REGOUT == 0) begin : g_no_out_reg
      assign f_ov = 1'b0;
      assign f_od = {W{1'b0}};
    end
  endgenerate

  // ---------------------------------------------------------------- environment
  reg f_past = 1'b0;            // 0 only in the first cycle
  always @(posedge clk) f_past <= 1'b1;

  always @* if (!f_past) assume (rst);                                   // E1

  // ---------------------------------------------------------------- reference model
  // A word moves when valid && ready. fifo_words.svh counts the words from the ports only and
  // tracks two of them, on the one clock, cleared by rst; its properties apply from the second
  // cycle on.
  wire push = s_valid && s_ready;
  wire take = m_valid && m_ready;
`define FV_WR_CLK clk
`define FV_RD_CLK clk
`define FV_WR_CLR rst
`define FV_RD_CLR rst
`define FV_CHECKED f_past
`include "fifo_words.svh"

  // REGOUT: the word offered in a cycle is the one offered and not taken in the cycle before,
  // or else one that was held (not only just accepted) in the cycle before
  reg f_mv_due;
  always @(posedge clk)
    if (rst) f_mv_due <= 1'b0;
    else f_mv_due <= (m_valid && !m_ready) || (f_level - m_valid) != 0;

  // ---------------------------------------------------------------- properties
  // (never_exceeds_depth, no_accept_when_full, no_emit_when_empty, data_in_order: fifo_words.svh)
  always @* if (f_past) begin
`ifdef CHECK_never_exceeds_depth
    // the words held never exceed the depth (fifo_words.svh), and neither does the fill output
    fill_within_depth: assert (fill <= D);
`endif
`ifdef CHECK_exact_flags
    // fill counts the words held; the flags are exact (not only safe): a FIFO with
    // room accepts, a FIFO holding a word offers it (REGOUT: a word is offered from the
    // cycle after it was accepted, latency 2; m_valid is high exactly when a word offered
    // and not taken in the cycle before stays, or a word was held in the cycle before
    // besides the one taken then).
    exact_fill: assert (fill == f_level);
    exact_s_ready: assert (s_ready == (f_level != D));
    exact_m_valid: assert (m_valid == (REGOUT ? f_mv_due : f_level != 0));
    exact_almost_full: assert (almost_full == (f_level >= `AFULL));
`endif
  end

`ifdef CHECK_reachable
  // Non-vacuity: under the same assumptions, the interesting states are reachable from reset
  // (run.py proves these with BMC cover, not induction).
  always @* if (f_past && !rst) begin
    cover (f_level == D && !s_ready);                 // the FIFO fills up
    cover (f_rtrk == 2'd2);                           // both tracked words delivered
    cover (f_rtrk == 2'd1 && f_level == D);           // tracked word read, then full again
  end
`endif

  // ---------------------------------------------------------------- helpers
  // Invariants that make the properties inductive, asserted (so proven) in every run. The
  // data ones (which need the memory and the tracked words) only where the data property is
  // proven; the run `helpers` proves the others alone.
  always @* if (f_past) begin
    // the read pointer counts the words taken out of the memory: delivered, or in the
    // output register (REGOUT)
    h_ptrs: assert (f_wr_ptr == f_wcnt && f_rd_ptr == f_rcnt + f_ov);
    h_level: assert (f_level <= D && f_level >= f_ov);
    h_valid: assert (m_valid == (REGOUT ? f_ov : f_level != 0));
    // REGFLAGS: the count register and the flags computed from it follow the words held
    h_registered_flags: assert (!`REGFLAGS || (fill == f_level && s_ready == (f_level != D)
                                                && almost_full == (f_level >= `AFULL)));
`ifdef DATA_HELPERS
    // (the tracked words' order and place among the words held: fifo_words.svh) a tracked word
    // is in the output register when it is the next delivery and the register holds a word,
    // else in the memory
    h_first_out: assert (!(f_first_held && f_ov && f_rcnt == f_idx) || f_od == f_d1);
    h_first_mem: assert (!(f_first_held && !(f_ov && f_rcnt == f_idx)) || f_mem_first == f_d1);
    h_second_out: assert (!(f_second_held && f_ov && f_rcnt == f_idx2) || f_od == f_d2);
    h_second_mem: assert (!(f_second_held && !(f_ov && f_rcnt == f_idx2)) || f_mem_second == f_d2);
`endif
  end
endmodule

`default_nettype wire
