// Formal harness for the bridge's dma_clk issue modules direkt_bridge_issue_{rd,wr}_n16
// (managed IDs 128..143, 16 in flight, status FIFO of 16; the two differ only in which of
// src/dst is the PCIe address).
//
// The IP is instantiated unchanged from ../ip. formal/run.py reads this file with
//   read_verilog -formal -D DUT=<module> -D CHECK_<property>
// Exactly one CHECK_<property> selects the property under proof; the helper invariants are
// asserted in every run (so proven together with it; CHECK_helpers proves them alone).
//
// Internal signals: Yosys 0.23 has no hierarchical references, so the wires below tagged
// `//@tap` are left undriven here and run.py drives each from the flattened internal signal
// (Yosys `connect`, i.e. `assign f_busy = dut.slot_busy;`), then `check -assert` rejects any
// tap left undriven. Taps are read only by assertions, never by assumptions.
//
//@tap f_busy = dut.slot_busy
//@tap f_issd = dut.slot_issued
//@tap f_oq   = dut.outstanding_q
//@tap f_stv  = dut.st_valid
//@tap f_sts  = dut.st_slot
//@tap f_ste  = dut.st_error
//@tap f_chk  = dut.check_error
//
// Environment (everything not listed is free in every cycle, $anyseq: k_valid, k_data, the
// windows win_base/win_last/win_allow, d_ready, ms_valid, ms_data):
//   E1  rst is high in the first cycle; later rst is free (the harness state resets with it:
//       the status FIFO and the mover are reset together with the module).
//   E2  The status FIFO (a direkt_async_fifo_w64_d16_r_f in the bridge) is modelled by three
//       counters modulo 32: f_wcnt (words written: ks_valid while the write side has room),
//       f_rcnt (words read: a free pop in any cycle where the FIFO holds a word) and f_rseen
//       (the reads as the write side sees them through the Gray synchroniser: it never runs
//       ahead of f_rcnt and catches up by any amount, 0..all, in any cycle). The true fill is
//       f_wcnt - f_rcnt; ks_fill = f_wcnt - f_rseen is the write side's fill (the FIFO's
//       wr_fill), so it counts every push at once, sees pops with an arbitrary lag and is
//       never below the true fill; the write side refuses a word (s_ready low) when its fill
//       is 16. This is what formal/async_fifo.sv proves of that FIFO (sync_stage_gray_lags:
//       the synchronised read pointer is a value the pointer really held, lagging it by
//       0..16), reduced to counts.
// In particular the mover status is fully arbitrary in every cycle: ms_valid and ms_data free,
// so host IDs 0..127, IDs 144..255, spurious reports of IDs 128..143 the mover was never given
// (also the ID of the descriptor still in the stage), IDs reported twice, every cycle.
`default_nettype none

module fv_bridge_issue (
  input wire clk
);
  wire          rst       = $anyseq;
  wire [179:0]  k_data    = $anyseq;
  wire          k_valid   = $anyseq;
  wire [511:0]  win_base  = $anyseq;
  wire [511:0]  win_last  = $anyseq;
  wire [7:0]    win_allow = $anyseq;
  wire          d_ready   = $anyseq;
  wire          ms_valid  = $anyseq;
  wire [31:0]   ms_data   = $anyseq;
  wire          k_ready;
  wire [159:0]  d_data;
  wire          d_valid;
  wire          hs_valid;
  wire [31:0]   hs_data;
  wire          ks_valid;
  wire [63:0]   ks_data;
  wire [4:0]    ks_fill;
  wire [4:0]    outstanding;
  wire          ev_rejected, ev_completed, ev_aborted, ev_spurious;
  wire [3:0]    ev_error;

  `DUT dut (
    .clk(clk), .rst(rst),
    .k_data(k_data), .k_valid(k_valid), .k_ready(k_ready),
    .win_base(win_base), .win_last(win_last), .win_allow(win_allow),
    .d_data(d_data), .d_valid(d_valid), .d_ready(d_ready),
    .ms_valid(ms_valid), .ms_data(ms_data),
    .hs_valid(hs_valid), .hs_data(hs_data),
    .ks_valid(ks_valid), .ks_data(ks_data), .ks_fill(ks_fill),
    .outstanding(outstanding),
    .ev_rejected(ev_rejected), .ev_error(ev_error), .ev_completed(ev_completed),
    .ev_aborted(ev_aborted), .ev_spurious(ev_spurious)
  );

  // taps (driven by run.py, see above)
  wire [15:0] f_busy;
  wire [15:0] f_issd;
  wire [4:0]  f_oq;
  wire        f_stv;
  wire [3:0]  f_sts;
  wire [3:0]  f_ste;
  wire [3:0]  f_chk;

  function [4:0] popcount(input [15:0] v);
    integer i;
    begin
      popcount = 0;
      for (i = 0; i < 16; i = i + 1) popcount = popcount + v[i];
    end
  endfunction

  // ---------------------------------------------------------------- environment
  reg f_past = 1'b0;            // 0 only in the first cycle
  always @(posedge clk) f_past <= 1'b1;

  always @* if (!f_past) assume (rst);                                   // E1

  // E2: the status FIFO, as counts
  reg  [4:0] f_wcnt, f_rcnt, f_rseen;
  wire [4:0] f_fill = f_wcnt - f_rcnt;          // true fill
  wire [4:0] f_view = f_wcnt - f_rseen;         // the write side's fill
  assign ks_fill = f_view;
  wire       f_room = f_view != 5'd16;          // the FIFO's s_ready
  wire       f_push = ks_valid && f_room;
  wire       f_pop  = $anyseq;
  wire [4:0] f_adv  = $anyseq;                  // reads the write side catches up on
  wire [4:0] f_rcnt_n  = f_rcnt + (f_pop && f_fill != 0);
  wire [4:0] f_rseen_n = (f_adv <= f_rcnt_n - f_rseen) ? f_rseen + f_adv : f_rseen;
  always @(posedge clk)
    if (rst) begin
      f_wcnt  <= 0;
      f_rcnt  <= 0;
      f_rseen <= 0;
    end else begin
      f_wcnt  <= f_wcnt + f_push;
      f_rcnt  <= f_rcnt_n;
      f_rseen <= f_rseen_n;
    end

  // the mover: IDs handed out by d and not yet reported
  wire [7:0]  f_d_id   = d_data[153:146];
  wire        f_d_fire = d_valid && d_ready;
  wire [7:0]  f_ms_id  = ms_data[7:0];
  wire        f_ms_in  = ms_valid && f_ms_id[7:4] == 4'b1000;     // names an ID of 128..143
  reg  [15:0] f_held;
  wire        f_rep    = f_ms_in && f_held[f_ms_id[3:0]];         // reports an ID it holds
  always @(posedge clk)
    if (rst) f_held <= 0;
    else f_held <= (f_held & ~(f_rep ? 16'd1 << f_ms_id[3:0] : 16'd0))
                   | (f_d_fire ? 16'd1 << f_d_id[3:0] : 16'd0);

  // ---------------------------------------------------------------- port-level model
  wire f_adm = k_valid && k_ready;              // a descriptor admitted
  reg [4:0]   f_nadm, f_npush;                  // admitted / statuses pushed, modulo 32
  reg [145:0] f_last;                           // src, dst, dwords of the last admitted one
  reg [3:0]   f_last_err;                       // the IP's check of it
  reg         f_last_bad;                       // the harness's own checks of it failed
  always @(posedge clk) begin
    if (rst) begin
      f_nadm  <= 0;
      f_npush <= 0;
    end else begin
      f_nadm  <= f_nadm + f_adm;
      f_npush <= f_npush + ks_valid;
    end
    if (f_adm) begin
      f_last     <= k_data[145:0];
      f_last_err <= f_chk;
      // reserved bits, too long, zero length, unaligned addresses: rejected whatever the
      // windows say
      f_last_bad <= k_data[147] || k_data[146] || k_data[145:128] == 0
                    || k_data[1:0] != 0 || k_data[65:64] != 0;
    end
  end

  // ---------------------------------------------------------------- properties
  always @* if (f_past && !rst) begin
`ifdef CHECK_credit_invariant
    // admitted descriptors without a status plus words in the status FIFO (as its write side
    // sees them, so also the true fill) never exceed the FIFO's 16 places
    credit_invariant: assert (f_oq + f_view <= 16 && f_fill <= f_view);
`endif
`ifdef CHECK_no_status_dropped
    // a status is pushed only when the FIFO's write side has room (s_ready), so it is never
    // dropped; the true FIFO is then not full either
    no_status_dropped: assert (!ks_valid || (f_room && f_fill < 16));
`endif
`ifdef CHECK_outstanding_bounded
    outstanding_bounded: assert (outstanding <= 16 && outstanding == f_oq
                                 && f_oq == popcount(f_busy));
`endif
`ifdef CHECK_id_unique
    // an ID handed to the mover is a kernel ID of 128..143 that the mover does not hold
    id_in_range: assert (!f_d_fire || (f_d_id >= 128 && f_d_id <= 143 && d_data[159:154] == 0));
    id_unique: assert (!f_d_fire || !f_held[f_d_id[3:0]]);
    // the ID given at admission (visible at d_data the cycle after) is not outstanding
    // either: it names a slot that was free, so neither the mover nor the stage has it
    id_fresh: assert (!f_stv || (f_d_id == {4'b1000, f_sts} && !f_held[f_sts]));
`endif
`ifdef CHECK_only_admitted_reach_mover
    // d offers only the last admitted descriptor, unchanged, and only if it passed every
    // check; a descriptor failing the reserved/length/alignment checks is never offered
    offered_passed_checks: assert (!d_valid || (f_ste == 0 && f_last_err == 0 && !f_last_bad));
    offered_is_admitted: assert (!d_valid || d_data[145:0] == f_last);
    harness_checks_agree: assert (!(f_stv && f_last_bad) || f_last_err != 0);
`endif
`ifdef CHECK_host_passthrough
    host_passthrough: assert (hs_valid == (ms_valid && !ms_data[7]) && hs_data == ms_data);
`endif
`ifdef CHECK_one_status_per_descriptor
    // every admitted descriptor is in the stage, at the mover, or has pushed exactly one
    // status: admitted - pushed == outstanding == stage + held by the mover
    admitted_minus_pushed: assert (outstanding == f_nadm - f_npush);
    stage_plus_mover: assert (outstanding == popcount(f_held) + f_stv);
    // a report of an ID the mover holds pushes its status at once (0 or aborted, 8) ...
    report_pushes: assert (!f_rep || (ks_valid && ks_data[35:32] == ((ms_data[11] || ms_data[12]) ? 4'd8 : 4'd0)));
    // ... and any other push is the rejection of the descriptor in the stage, with its code
    other_push_is_rejection: assert (!(ks_valid && !f_rep) ||
                                     (f_stv && f_ste != 0 && ks_data[35:32] == f_ste));
`endif
  end

`ifdef CHECK_reachable
  // Non-vacuity: under the same assumptions, the interesting states are reachable from reset
  // (run.py proves these with BMC cover, not induction).
  always @* if (f_past && !rst) begin
    cover (outstanding == 16 && f_held == 16'hffff);    // every ID at the mover
    cover (f_fill == 16 && !f_room);                      // status FIFO full
    cover (f_view == 8 && f_fill == 2 && outstanding == 8 && k_valid && !k_ready && !f_stv);
                                                          // credits exhausted by a lagging ks_fill
    cover (ks_valid && !f_rep && f_npush == 2);           // a rejection pushed (2nd status)
    cover (f_rep && f_d_fire && f_adm);                   // report, hand-over, admission at once
    cover (f_d_fire && f_d_id == 143);                    // the last ID handed out
    cover (ev_spurious && f_ms_in && outstanding != 0);   // an in-range spurious report ignored
  end
`endif

  // ---------------------------------------------------------------- helpers
  wire [15:0] f_st_bit = f_stv ? 16'd1 << f_sts : 16'd0;
  always @* if (f_past) begin
    h_fifo: assert (f_fill <= f_view && f_view <= 16);
    h_credit: assert (f_oq + f_view <= 16);
    h_count: assert (f_oq == popcount(f_busy) && outstanding == f_oq);
    h_issued: assert (f_issd == f_held);
    h_busy: assert (f_busy == (f_held | f_st_bit) && (f_held & f_st_bit) == 0);
    h_stage_id: assert (!f_stv || (f_d_id == {4'b1000, f_sts} && d_data[159:154] == 0));
    h_stage_desc: assert (!f_stv || (d_data[145:0] == f_last && f_ste == f_last_err));
    h_push: assert (f_oq == f_nadm - f_npush);
  end
endmodule

`default_nettype wire
