// SPDX-License-Identifier: Apache-2.0
// Formal harness for the bridge's dma_clk admission modules
// direkt_bridge_issue_{rd,wr}_e4_mem200000000_n16_s16 (managed IDs 128..143, 16 in flight,
// status FIFO of 16, a mover queue of 3 descriptors; rd and wr are the same logic: the address
// checks are upstream, in the checked word q_data).
//
// The IP is instantiated unchanged from ../ip (the top and its sub-units u_credits, u_ids,
// u_status). formal/run.py reads this file with
//   read_verilog -formal -D DUT=<module> -D CHECK_<property>
// Exactly one CHECK_<property> selects the property under proof; the helper invariants are
// asserted in every run (so proven together with it; CHECK_helpers proves them alone).
//
// Internal signals: Yosys 0.23 has no hierarchical references, so the wires below tagged
// `//@tap` are left undriven here and run.py drives each from the flattened internal signal
// (`//@tap w = dut.x`: Yosys `connect`, i.e. `assign w = dut.x;`; `//@tap w = dut.m[a]`: one
// more asynchronous read port on memory dut.m, i.e. `assign w = dut.m[a];`), then
// `check -assert` rejects any tap left undriven. Taps are read only by assertions (the helper
// invariants and the mover queue's IDs), never by assumptions.
//
//@tap f_ok     = dut.u_credits.ok_q
//@tap f_qrd    = dut.mover_queue_rd
//@tap f_qwr    = dut.mover_queue_wr
//@tap f_qcnt   = dut.mover_queue_count
//@tap f_q0     = dut.mover_queue[f_k0]
//@tap f_q1     = dut.mover_queue[f_k1]
//@tap f_q2     = dut.mover_queue[f_k2]
//@tap f_q3     = dut.mover_queue[f_k3]
//@tap f_qt     = dut.mover_queue[f_qat]
//@tap f_rejv   = dut.reject_valid
//@tap f_rejs   = dut.reject_slot
//@tap f_reje   = dut.reject_error
//@tap f_m1v    = dut.u_status.m1_valid
//@tap f_m1s    = dut.u_status.m1_slot
//@tap f_m1e    = dut.u_status.m1_error
//@tap f_m1m    = dut.u_status.m1_mover
//@tap f_issd   = dut.u_ids.slot_issued
//@tap f_hq     = dut.u_ids.handed_q
//@tap f_hs     = dut.u_ids.handed_slot_q
//@tap f_fcnt   = dut.u_ids.free_count
//@tap f_anyq   = dut.u_ids.any_free_q
//@tap f_prom   = dut.u_credits.promised_q
//@tap f_fresh  = dut.u_ids.fresh
//@tap f_rrd    = dut.u_ids.retired_rd
//@tap f_rwr    = dut.u_ids.retired_wr
//@tap f_ret0  = dut.u_ids.retired[f_c0]
//@tap f_ret1  = dut.u_ids.retired[f_c1]
//@tap f_ret2  = dut.u_ids.retired[f_c2]
//@tap f_ret3  = dut.u_ids.retired[f_c3]
//@tap f_ret4  = dut.u_ids.retired[f_c4]
//@tap f_ret5  = dut.u_ids.retired[f_c5]
//@tap f_ret6  = dut.u_ids.retired[f_c6]
//@tap f_ret7  = dut.u_ids.retired[f_c7]
//@tap f_ret8  = dut.u_ids.retired[f_c8]
//@tap f_ret9  = dut.u_ids.retired[f_c9]
//@tap f_ret10 = dut.u_ids.retired[f_c10]
//@tap f_ret11 = dut.u_ids.retired[f_c11]
//@tap f_ret12 = dut.u_ids.retired[f_c12]
//@tap f_ret13 = dut.u_ids.retired[f_c13]
//@tap f_ret14 = dut.u_ids.retired[f_c14]
//@tap f_ret15 = dut.u_ids.retired[f_c15]
//
// Environment (everything not listed is free in every cycle, $anyseq: q_valid, q_data, d_ready,
// ms_valid, ms_data, now):
//   E1  rst is high in the first cycle; later rst is free (the harness state resets with it:
//       the status FIFO and the mover are reset together with the module).
//   E2  The status FIFO (a direkt_async_fifo_w64_d16_p_la in the bridge) is the harness's,
//       modelled by three counters modulo 32: f_wcnt (words written: ks_valid while the write
//       side has room), f_rcnt (words read: a free pop in any cycle where the FIFO holds a
//       word) and f_rseen (the reads as the write side sees them through the Gray
//       synchroniser: it never runs ahead of f_rcnt and catches up by any amount, 0..all, in
//       any cycle). The true fill is f_wcnt - f_rcnt; ks_rd_ptr = f_rseen (the FIFO's wr_rd_ptr)
//       and the write side's fill f_wcnt - f_rseen counts every push at once, sees pops with an
//       arbitrary lag and is never below the true fill; the write side refuses a word
//       (s_ready low) exactly when its fill is 16 (the Gray write pointer one lap ahead of the
//       synchronised read pointer). This is what formal/async_fifo.sv proves of that FIFO
//       (sync_stage_gray_lags: the synchronised read pointer is a value the pointer really
//       held, lagging it by 0..16), reduced to counts.
//   E3  q_data's pass bit [187] says whether the final error code (below) is 0, as the check
//       pipeline computes it (direkt_bridge_check_pipe_*: pass = cheap_error == 0 && a window
//       hits && fpga_ok); the rest of q_data is free.
// In particular the mover is fully arbitrary: ms_valid and ms_data free in every cycle, so
// host IDs 0..127, IDs 144..255, reports of IDs 128..143 the mover was never given (also
// IDs still in the mover queue), IDs reported twice, every cycle; q_valid and d_ready are
// free.
`default_nettype none

module fv_bridge_issue (
  input wire clk
);
  // the checked word (WindowCheck.checkedWord, 4 windows)
  localparam QW = 188;
  localparam Q_CHEAP = 178;     // cheap_error [181:178]
  localparam Q_HITS  = 182;     // hits        [185:182]
  localparam Q_FPGA  = 186;     // fpga_ok     [186]
  localparam Q_PASS  = 187;     // pass        [187]
  // error codes (Layout.Error)
  localparam [3:0] E_WINDOW = 4'd6, E_FPGA_RANGE = 4'd7, E_ABORTED = 4'd8;

  wire          rst       = $anyseq;
  wire [QW-1:0] q_data    = $anyseq;
  wire          q_valid   = $anyseq;
  wire          d_ready   = $anyseq;
  wire          ms_valid  = $anyseq;
  wire [31:0]   ms_data   = $anyseq;
  wire [31:0]   now       = $anyseq;
  wire          q_ready;
  wire [159:0]  d_data;
  wire          d_valid;
  wire          hs_valid;
  wire [31:0]   hs_data;
  wire          ks_valid;
  wire [63:0]   ks_data;
  wire [4:0]    ks_rd_ptr;
  wire [4:0]    outstanding;
  wire          ev_rejected, ev_completed, ev_aborted, ev_spurious;
  wire [3:0]    ev_error;

  `DUT dut (
    .clk(clk), .rst(rst),
    .q_data(q_data), .q_valid(q_valid), .q_ready(q_ready),
    .d_data(d_data), .d_valid(d_valid), .d_ready(d_ready),
    .ms_valid(ms_valid), .ms_data(ms_data),
    .hs_valid(hs_valid), .hs_data(hs_data),
    .ks_valid(ks_valid), .ks_data(ks_data), .ks_rd_ptr(ks_rd_ptr),
    .now(now), .outstanding(outstanding),
    .ev_rejected(ev_rejected), .ev_error(ev_error), .ev_completed(ev_completed),
    .ev_aborted(ev_aborted), .ev_spurious(ev_spurious)
  );

  // taps (driven by run.py, see above)
  wire         f_ok;
  wire [2:0]   f_qrd, f_qwr, f_qcnt;
  wire [159:0] f_q0, f_q1, f_q2, f_q3, f_qt;
  wire         f_rejv;
  wire [3:0]   f_rejs, f_reje;
  wire         f_m1v, f_m1m;
  wire [3:0]   f_m1s, f_m1e;
  wire [15:0]  f_issd;
  wire         f_hq, f_anyq;
  wire [3:0]   f_hs;
  wire [4:0]   f_fcnt, f_prom;
  wire [4:0]   f_fresh, f_rrd, f_rwr;
  wire [3:0]   f_ret0, f_ret1, f_ret2, f_ret3, f_ret4, f_ret5, f_ret6, f_ret7,
               f_ret8, f_ret9, f_ret10, f_ret11, f_ret12, f_ret13, f_ret14, f_ret15;
  // tap addresses: every place of the mover queue and of the retired-slot queue (constant
  // addresses: which places hold a waiting entry is computed from the pointers below), and the
  // tracked descriptor's place
  wire [3:0] f_c0 = 4'd0, f_c1 = 4'd1, f_c2 = 4'd2, f_c3 = 4'd3, f_c4 = 4'd4, f_c5 = 4'd5,
             f_c6 = 4'd6, f_c7 = 4'd7, f_c8 = 4'd8, f_c9 = 4'd9, f_c10 = 4'd10, f_c11 = 4'd11,
             f_c12 = 4'd12, f_c13 = 4'd13, f_c14 = 4'd14, f_c15 = 4'd15;
  wire [1:0] f_k0 = 2'd0, f_k1 = 2'd1, f_k2 = 2'd2, f_k3 = 2'd3;
  wire [1:0] f_qat;

  function bit16(input [15:0] v, input [3:0] i);     // v[i], without an x out of range
    bit16 = |(v & (16'd1 << i));
  endfunction

  function [4:0] popcount(input [15:0] v);
    integer i;
    begin
      popcount = 0;
      for (i = 0; i < 16; i = i + 1) popcount = popcount + v[i];
    end
  endfunction

  // the final error code of a checked word: the cheap checks' code, else WINDOW if no window
  // hits, else FPGA_RANGE if the FPGA range is out of the memory, else 0
  function [3:0] final_code(input [QW-1:0] w);
    final_code = (w[Q_CHEAP +: 4] != 0) ? w[Q_CHEAP +: 4]
               : (w[Q_HITS +: 4] == 0) ? E_WINDOW
               : !w[Q_FPGA] ? E_FPGA_RANGE : 4'd0;
  endfunction

  // ---------------------------------------------------------------- environment
  reg f_past = 1'b0;            // 0 only in the first cycle
  always @(posedge clk) f_past <= 1'b1;

  always @* if (!f_past) assume (rst);                                   // E1

  always @* assume (q_data[Q_PASS] == (final_code(q_data) == 0));       // E3

  // E2: the status FIFO, as counts
  reg  [4:0] f_wcnt, f_rcnt, f_rseen;
  wire [4:0] f_fill = f_wcnt - f_rcnt;          // true fill
  wire [4:0] f_view = f_wcnt - f_rseen;         // the write side's fill
  assign ks_rd_ptr = f_rseen;
  // the FIFO's s_ready: its registered full flag sees the read pointer exactly as late as wr_rd_ptr
  wire       f_ready = f_view != 5'd16;
  wire       f_push  = ks_valid && f_ready;
  wire       f_pop   = $anyseq;
  wire [4:0] f_adv   = $anyseq;                 // reads the write side catches up on
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

  // ---------------------------------------------------------------- port-level model
  wire        f_adm    = q_valid && q_ready;                  // a descriptor admitted
  wire [3:0]  f_code   = final_code(q_data);
  wire        f_pass   = f_adm && f_code == 0;
  wire        f_fail   = f_adm && f_code != 0;
  wire [7:0]  f_d_id   = d_data[153:146];
  wire        f_d_fire = d_valid && d_ready;
  wire [7:0]  f_ms_id  = ms_data[7:0];
  wire        f_ms_krn = ms_valid && ms_data[7];              // a kernel-range ID, 128..255
  wire        f_ms_in  = ms_valid && f_ms_id[7:4] == 4'b1000; // names an ID of 128..143
  wire [3:0]  f_ms_code = (ms_data[11] || ms_data[12]) ? E_ABORTED : 4'd0;

  // the mover: IDs handed out on d and not yet reported
  reg  [15:0] f_held;
  wire        f_rep = f_ms_in && bit16(f_held, f_ms_id[3:0]);        // reports an ID it holds
  always @(posedge clk)
    if (rst) f_held <= 0;
    else f_held <= (f_held & ~(f_rep ? 16'd1 << f_ms_id[3:0] : 16'd0))
                   | (f_d_fire ? 16'd1 << f_d_id[3:0] : 16'd0);

  // The passing descriptors, counted at admission (f_npass) and at hand-over (f_nfire),
  // modulo 8. One of them is tracked (as the FIFO harnesses track words): at an arbitrary
  // point (f_arm, free) the next passing descriptor is tracked if its src/dst/dwords equal
  // the arbitrary constant f_d1 (else tracking stops for good); f_idx is its number. Since the
  // point and the data are arbitrary, this covers every passing descriptor of every trace.
  //   f_trk: 0 idle, 1 admitted and not yet handed over, 2 handed over, 3 not tracking
  reg [2:0]   f_npass, f_nfire;
  wire [2:0]  f_nq = f_npass - f_nfire;         // passing descriptors not yet handed over
  wire        f_arm = $anyseq;
  wire [145:0] f_d1 = $anyconst;
  reg  [1:0]  f_trk;
  reg  [2:0]  f_idx;
  wire [2:0]  f_tpos = f_idx - f_nfire;         // its place in the queue while f_trk == 1
  assign f_qat = f_qrd[1:0] + f_tpos[1:0];
  always @(posedge clk)
    if (rst) begin
      f_npass <= 0;
      f_nfire <= 0;
      f_trk   <= 0;
    end else begin
      f_npass <= f_npass + f_pass;
      f_nfire <= f_nfire + f_d_fire;
      if (f_trk == 2'd0 && f_pass && f_arm) begin
        f_idx <= f_npass;
        f_trk <= (q_data[145:0] == f_d1) ? 2'd1 : 2'd3;
      end else if (f_trk == 2'd1 && f_d_fire && f_nfire == f_idx)
        f_trk <= 2'd2;
    end

  // a rejected descriptor waiting for its status (one at most: see h_reject), and the pushes
  // due in the next cycle: the status of a reported ID, or the rejection taken now (taken in
  // the first cycle without a kernel-range mover status)
  reg        f_rejp;
  reg [3:0]  f_rejc;
  wire       f_take = f_rejp && !f_ms_krn;
  reg        f_rep_q, f_take_q;
  reg [3:0]  f_rep_c, f_take_c;
  reg [4:0]  f_nadm, f_npush;                   // admitted / statuses pushed, modulo 32
  always @(posedge clk) begin
    if (rst) begin
      f_rejp   <= 0;
      f_rep_q  <= 0;
      f_take_q <= 0;
      f_nadm   <= 0;
      f_npush  <= 0;
    end else begin
      f_rejp   <= f_fail || (f_rejp && !f_take);
      f_rep_q  <= f_rep;
      f_take_q <= f_take;
      f_nadm   <= f_nadm + f_adm;
      f_npush  <= f_npush + ks_valid;
    end
    if (f_fail) f_rejc <= f_code;
    f_rep_c  <= f_ms_code;
    f_take_c <= f_rejc;
  end

  wire [3:0] f_ks_code = ks_data[35:32];

  // ---------------------------------------------------------------- properties
  always @* if (f_past && !rst) begin
`ifdef CHECK_credit_invariant
    // admitted descriptors without a status plus words in the status FIFO (as its write side
    // sees them, so also the true fill) never exceed the FIFO's 16 places
    credit_invariant: assert ({1'b0, outstanding} + {1'b0, f_view} <= 6'd16 && f_fill <= f_view);
`endif
`ifdef CHECK_no_status_dropped
    // a status is pushed only when the status FIFO takes it (s_ready) and is not full
    no_status_dropped: assert (!ks_valid || (f_ready && f_fill < 16));
`endif
`ifdef CHECK_outstanding_bounded
    // at most 16 outstanding, and each is in exactly one place: the mover queue, the mover,
    // the reject register, or the status register (pushing now)
    outstanding_bounded: assert (outstanding <= 16 &&
                                 outstanding == f_nq + popcount(f_held) + f_rejp + ks_valid);
`endif
`ifdef CHECK_id_unique
    // an ID handed to the mover is a kernel ID of 128..143 that the mover does not hold
    id_in_range: assert (!f_d_fire || (f_d_id >= 128 && f_d_id <= 143 && d_data[159:154] == 0));
    id_unique: assert (!f_d_fire || !bit16(f_held, f_d_id[3:0]));
    // the IDs in the mover queue are kernel IDs of 128..143, distinct, not held by the mover
    queue_ids_in_range: assert (f_q_ids_ok && f_qcnt <= 3);
    queue_ids_distinct: assert (f_q_distinct);
    queue_ids_not_held: assert ((f_qmask & f_held) == 0);
`endif
`ifdef CHECK_only_admitted_reach_mover
    // d offers only descriptors admitted with final code 0 (passing), src/dst/dwords
    // unchanged, in admission order: the n-th descriptor offered is the n-th passing one
    offered_only_passing: assert (!d_valid || f_nq != 0);
    offered_in_order_intact: assert (!(d_valid && f_trk == 2'd1 && f_nfire == f_idx) ||
                                     d_data[145:0] == f_d1);
    // and none is lost: at most 3 wait (the queue's size)
    none_lost: assert (f_nq <= 3);
`endif
`ifdef CHECK_host_passthrough
    host_passthrough: assert (hs_valid == (ms_valid && !ms_data[7]) && hs_data == ms_data);
`endif
`ifdef CHECK_one_status_per_descriptor
    // every admitted descriptor is in the IP or has pushed exactly one status
    admitted_minus_pushed: assert (outstanding == f_nadm - f_npush);
    // a report of an ID the mover holds pushes its status one cycle later, code 0 or 8 ...
    report_pushes: assert (!f_rep_q || (ks_valid && f_ks_code == f_rep_c));
    // ... a rejection pushes its status, with its code, one cycle after the first cycle
    // without a kernel-range mover status ...
    rejection_pushes: assert (!f_take_q || (ks_valid && f_ks_code == f_take_c && f_take_c != 0));
    // ... and nothing else pushes
    no_other_push: assert (!ks_valid || f_rep_q || f_take_q);
`endif
  end

`ifdef CHECK_reachable
  // Non-vacuity: under the same assumptions, the interesting states are reachable from reset
  // (run.py proves these with BMC cover, not induction).
  always @* if (f_past && !rst) begin
    cover (outstanding == 16 && f_held == 16'hffff);    // every ID at the mover
    cover (f_nq == 3 && f_trk == 2'd2);                   // queue full after a tracked hand-over
    cover (f_fill == 16 && !f_ready);                     // status FIFO full
    cover (f_view == 8 && f_fill == 2 && outstanding == 8 && q_valid && !q_ready &&
           !f_rejp && f_nq < 3);                          // credits exhausted by a lagging ks_rd_ptr
    cover (ks_valid && f_take_q && f_npush == 2);         // a rejection pushed (2nd status)
    cover (f_rejp && f_ms_krn && f_rep);                  // a rejection waits for a report
    cover (f_rep && f_d_fire && f_adm);                   // report, hand-over, admission at once
    cover (f_d_fire && f_d_id == 143);                    // the last ID handed out
    cover (ev_spurious && f_ms_in && outstanding != 0);   // an in-range spurious report ignored
  end
`endif

  // ---------------------------------------------------------------- helpers
  // Where the 16 slots are: never used (f_fmask: slots >= fresh), retired (the ID pool's queue
  // of free slots, f_nret entries from its head), in the mover queue, at the mover (f_held),
  // in the reject register, in the status register. The helpers keep these places pairwise
  // disjoint and the entries of each queue distinct, and count them with the counters only
  // (never used + retired + outstanding == 16), so no proof needs a counting argument over
  // the slots.
  wire [4:0]  f_nret = f_rwr - f_rrd;
  wire [15:0] f_fmask = f_fresh >= 16 ? 16'd0 : 16'hffff << f_fresh[3:0];
  // the retired queue's places and the mover queue's slots, packed (place p at [4p+3:4p])
  wire [63:0] f_retv = {f_ret15, f_ret14, f_ret13, f_ret12, f_ret11, f_ret10, f_ret9, f_ret8,
                        f_ret7, f_ret6, f_ret5, f_ret4, f_ret3, f_ret2, f_ret1, f_ret0};
  wire [15:0] f_qs = {f_q3[149:146], f_q2[149:146], f_q1[149:146], f_q0[149:146]};
  wire [3:0]  f_qok = {f_q3[159:150] == 10'b0000001000, f_q2[159:150] == 10'b0000001000,
                       f_q1[159:150] == 10'b0000001000, f_q0[159:150] == 10'b0000001000};
  // place p of a queue holds a waiting entry when it is less than the count past the head.
  // Every slot in a place other than "never used" is below fresh; the entries of the retired
  // and mover queues are distinct and differ from each other, from the slots at the mover and
  // from the reject and status registers' slots (compared one by one: no counting).
  wire [15:0] f_rlive, f_rbad;                  // per place of the retired queue
  wire [3:0]  f_qlive, f_qbad, f_qdup, f_qids;  // per place of the mover queue
  wire [15:0] f_qmask =
      (f_qlive[0] ? 16'd1 << f_qs[3:0]   : 16'd0) | (f_qlive[1] ? 16'd1 << f_qs[7:4]   : 16'd0) |
      (f_qlive[2] ? 16'd1 << f_qs[11:8]  : 16'd0) | (f_qlive[3] ? 16'd1 << f_qs[15:12] : 16'd0);
  genvar gi, gj;
  generate
    for (gi = 0; gi < 4; gi = gi + 1) begin : g_q
      wire [3:0] v = f_qs[4*gi +: 4];
      wire [1:0] off = gi - f_qrd[1:0];
      assign f_qlive[gi] = {1'b0, off} < f_qcnt;
      assign f_qids[gi] = !f_qlive[gi] || f_qok[gi];
      assign f_qbad[gi] = f_qlive[gi] && (!({1'b0, v} < f_fresh) || bit16(f_held, v) ||
                                          (f_rejv && v == f_rejs) || (f_m1v && v == f_m1s));
      wire [3:0] dup;
      for (gj = 0; gj < 4; gj = gj + 1) begin : g_d
        if (gj > gi) assign dup[gj] = f_qlive[gj] && v == f_qs[4*gj +: 4];
        else assign dup[gj] = 1'b0;
      end
      assign f_qdup[gi] = f_qlive[gi] && |dup;
    end
    for (gi = 0; gi < 16; gi = gi + 1) begin : g_r
      wire [3:0] v = f_retv[4*gi +: 4];
      wire [3:0] off = gi - f_rrd[3:0];
      assign f_rlive[gi] = {1'b0, off} < f_nret;
      wire [15:0] dup;
      for (gj = 0; gj < 16; gj = gj + 1) begin : g_d
        if (gj > gi) assign dup[gj] = f_rlive[gj] && v == f_retv[4*gj +: 4];
        else assign dup[gj] = 1'b0;
      end
      wire [3:0] inq;
      for (gj = 0; gj < 4; gj = gj + 1) begin : g_q
        assign inq[gj] = f_qlive[gj] && v == f_qs[4*gj +: 4];
      end
      assign f_rbad[gi] = f_rlive[gi] && (!({1'b0, v} < f_fresh) || bit16(f_held, v) ||
                                          (f_rejv && v == f_rejs) || (f_m1v && v == f_m1s) ||
                                          |dup || |inq);
    end
  endgenerate
  wire f_ret_ok     = f_rbad == 0;
  wire f_q_ok       = f_qbad == 0;
  wire f_q_distinct = f_qdup == 0;
  wire f_q_ids_ok   = &f_qids;

  always @* if (f_past) begin
    // the status FIFO: the write side sees at most 16 and never less than the true fill
    h_fifo: assert (f_fill <= f_view && f_view <= 16);
    // credits
    h_credit: assert ({1'b0, outstanding} + {1'b0, f_view} <= 6'd16);
    h_ok: assert (!f_ok || {1'b0, outstanding} + {1'b0, f_view} < 6'd16);
    h_push: assert (outstanding == f_nadm - f_npush);
    h_count: assert (outstanding == f_nq + popcount(f_held) + f_rejp + ks_valid);
    // the mover queue: its count (at most 3, so the place written in every cycle is never a
    // waiting one), valid flag, the tracked descriptor, the IDs
    h_queue: assert (f_qcnt == f_nq && f_qcnt <= 3 && f_qwr - f_qrd == f_qcnt &&
                     d_valid == (f_qcnt != 0));
    h_track: assert (f_trk != 2'd1 || (f_tpos < f_nq && f_qt[145:0] == f_d1));
    h_queue_ids: assert (f_q_ids_ok && f_q_distinct);
    // the mover's slots as the IP sees them: marked, or handed over last cycle (the mark lands
    // a cycle after the hand-over; the pending slot is not marked yet)
    h_issued: assert (f_held == (f_issd | (f_hq ? 16'd1 << f_hs : 16'd0)) && (!f_hq || !bit16(f_issd, f_hs)));
    // credits: the promised pointer counts admissions, the FIFO's write side every push
    h_promised: assert (f_prom == f_nadm && f_wcnt == f_npush);
    // the ID pool's free count and its registered any-free flag
    h_free: assert (f_fcnt == 5'd16 - outstanding && f_anyq == (f_fcnt != 0));
    // the reject register and the status register
    h_reject: assert (f_rejv == f_rejp && (!f_rejp || (f_reje == f_rejc && f_rejc != 0)));
    h_m1: assert (f_m1v == ks_valid && ks_valid == (f_rep_q || f_take_q) && !(f_rep_q && f_take_q)
                  && (!f_rep_q || (f_m1m && f_m1e == f_rep_c))
                  && (!f_take_q || (!f_m1m && f_m1e == f_take_c && f_take_c != 0)));
    // the ID pool: never used + retired + outstanding == 16; the places of the slots are
    // disjoint
    h_pool: assert (f_fresh <= 16 && outstanding <= f_fresh && f_nret == f_fresh - outstanding);
    h_ret: assert (f_ret_ok);
    h_places: assert (f_q_ok && (f_held & f_fmask) == 0 &&
                      (!f_rejv || ({1'b0, f_rejs} < f_fresh && !bit16(f_held, f_rejs) &&
                                   !(f_m1v && f_m1s == f_rejs))) &&
                      (!f_m1v || ({1'b0, f_m1s} < f_fresh && !bit16(f_held, f_m1s))));
  end
endmodule

`default_nettype wire
