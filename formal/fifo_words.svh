// SPDX-License-Identifier: Apache-2.0
// The words of a FIFO as every FIFO harness sees them (included by sync_fifo.sv, async_fifo.sv
// and async_fifo_sr.sv): the words accepted and taken, counted at the ports, two consecutive
// tracked words, and what is proven of them: never_exceeds_depth, no_accept_when_full,
// no_emit_when_empty, data_in_order, with the tracked words' helper invariants.
//
// The including harness has declared W, D (the depth), AW (its address width), PW = AW + 1,
// s_data, s_ready, m_data, m_valid, push (a word accepted) and take (a word leaves the FIFO:
// delivered at the output; in async_fifo_sr.sv also dropped by a flush), and defined
//   `FV_WR_CLK, `FV_RD_CLK   the clock of the write side and of the read side
//   `FV_WR_CLR, `FV_RD_CLR   what clears each side's count and tracking (its reset; 1'b0: never)
//   `FV_CHECKED              where the properties and helpers apply (e.g. both sides reset)
// The harness adds where a tracked word is stored (memory, output register) to the data helpers;
// f_addr_first and f_addr_second, declared here, address its taps of the tracked memory words.

// the helper invariants of the data (which need the memory and the tracked words) only where the
// data property is proven; the harnesses' own data helpers test DATA_HELPERS too
`ifdef CHECK_data_in_order
 `define DATA_HELPERS
`endif

  // ---------------------------------------------------------------- the words
  // Words accepted and words taken, modulo 2*D like the IP's pointers. The power-up values
  // (here and of the tracking below) matter only where nothing clears them (async_fifo_sr.sv:
  // the counts start with the IP's pointers and run for ever); elsewhere a reset clears them
  // before anything reads them.
  reg [PW-1:0] f_wcnt = 0, f_rcnt = 0;
  always @(posedge `FV_WR_CLK)
    if (`FV_WR_CLR) f_wcnt <= 0;
    else if (push) f_wcnt <= f_wcnt + 1'b1;
  always @(posedge `FV_RD_CLK)
    if (`FV_RD_CLR) f_rcnt <= 0;
    else if (take) f_rcnt <= f_rcnt + 1'b1;
  wire [PW-1:0] f_level = f_wcnt - f_rcnt;    // words held

  // Two consecutive tracked words. At an arbitrary point (f_arm, free in every step) the next
  // accepted word becomes the first tracked word, the one after it the second. Their data are
  // arbitrary constants f_d1, f_d2: a word is tracked only if it carries them (otherwise
  // tracking stops for good, f_wtrk = 3). Since the point and the data are arbitrary, this
  // covers every pair of consecutive words of every trace. f_wtrk lives on the write side,
  // f_rtrk on the read side.
  //   f_wtrk: 0 idle, 1 first accepted, 2 both accepted, 3 not tracking
  //   f_rtrk: 0 none taken, 1 first taken, 2 both taken
  wire         f_arm = $anyseq;
  wire [W-1:0] f_d1  = $anyconst;
  wire [W-1:0] f_d2  = $anyconst;
  reg  [1:0]   f_wtrk = 2'd0, f_rtrk = 2'd0;
  reg [PW-1:0] f_idx;           // write count of the first tracked word
  always @(posedge `FV_WR_CLK)
    if (`FV_WR_CLR) f_wtrk <= 2'd0;
    else case (f_wtrk)
      2'd0: if (push && f_arm) begin
              f_idx  <= f_wcnt;
              f_wtrk <= (s_data == f_d1) ? 2'd1 : 2'd3;
            end
      2'd1: if (push) f_wtrk <= (s_data == f_d2) ? 2'd2 : 2'd3;
      default: ;
    endcase
  always @(posedge `FV_RD_CLK)
    if (`FV_RD_CLR) f_rtrk <= 2'd0;
    else if (take) begin
      if (f_rtrk == 2'd0 && (f_wtrk == 2'd1 || f_wtrk == 2'd2) && f_rcnt == f_idx) f_rtrk <= 2'd1;
      else if (f_rtrk == 2'd1 && f_wtrk == 2'd2) f_rtrk <= 2'd2;
    end

  wire [PW-1:0] f_idx2 = f_idx + 1'b1;
  wire [AW-1:0] f_addr_first  = f_idx[AW-1:0];
  wire [AW-1:0] f_addr_second = f_idx2[AW-1:0];
  wire          f_first_held  = (f_wtrk == 2'd1 || f_wtrk == 2'd2) && f_rtrk == 2'd0;
  wire          f_second_held = f_wtrk == 2'd2 && f_rtrk != 2'd2;

  // ---------------------------------------------------------------- properties
  always @* if (`FV_CHECKED) begin
`ifdef CHECK_never_exceeds_depth
    never_exceeds_depth: assert (f_level <= D);
`endif
`ifdef CHECK_no_accept_when_full
    no_accept_when_full: assert (!(f_level == D && s_ready));
`endif
`ifdef CHECK_no_emit_when_empty
    // never a word that was not accepted (or was already taken)
    no_emit_when_empty: assert (!(f_level == 0 && m_valid));
`endif
`ifdef CHECK_data_in_order
    // Words come out intact and in the order accepted, each at most once: take number f_idx
    // carries the first tracked word, take f_idx+1 the second.
    first_word_intact: assert (!(m_valid && f_first_held && f_rcnt == f_idx) || m_data == f_d1);
    second_word_intact: assert (!(m_valid && f_wtrk == 2'd2 && f_rtrk == 2'd1) || m_data == f_d2);
    // After the first word the FIFO offers nothing until the second has been accepted.
    second_not_before_written: assert (!(m_valid && f_wtrk == 2'd1 && f_rtrk == 2'd1));
`endif
  end

  // ---------------------------------------------------------------- helpers
  // Invariants that make data_in_order inductive, asserted (so proven) with it
`ifdef DATA_HELPERS
  always @* if (`FV_CHECKED) begin
    h_states: assert (f_rtrk != 2'd3 && (f_wtrk != 2'd0 || f_rtrk == 2'd0) &&
                      (f_rtrk != 2'd2 || f_wtrk == 2'd2));
    // a tracked word not yet taken is among the words held; the second follows the first
    // (the next word accepted after the first, the next word taken after it)
    h_first_pos: assert (!f_first_held || (f_idx - f_rcnt) < f_level);
    h_ws1: assert (f_wtrk != 2'd1 || f_wcnt == f_idx2);
    h_second_pos: assert (!f_second_held || (f_idx2 - f_rcnt) < f_level);
    h_rs1: assert (!(f_rtrk == 2'd1 && f_wtrk != 2'd3) || f_rcnt == f_idx2);
  end
`endif
