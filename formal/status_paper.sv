// SPDX-License-Identifier: Apache-2.0
// Formal harness for the paper preset's kernel status builder direkt_bridge_status_n16_pid_cyc (on
// its own: the kernel's own IDs 128..255, 16 in flight, cycle-count statuses {failed x 32, cycles}).
//
// The IP is instantiated unchanged from ../ip. formal/run.py reads this file with
//   read_verilog -formal -D DUT=<module> -D CHECK_<property>
// Exactly one CHECK_<property> selects the property under proof; the helper invariants are
// asserted in every run (CHECK_helpers proves them alone). host_passthrough, reject_waits and
// events_exact are stated as for the managed-ID builder, in status_props.svh.
//
//@tap f_ent = dut.stamp_table[f_s]
//@tap f_eq  = dut.entry_q
//@tap f_rs  = dut.reject_stamp
//@tap f_m1r = dut.m1_reject
//@tap f_m1v = dut.m1_valid
//@tap f_m1m = dut.m1_mover
//@tap f_m1e = dut.m1_error
//
// Environment: none beyond E1 (rst high in the first cycle; later free). Every input is free in
// every cycle ($anyseq): the mover's statuses, the outstanding count, the rejections, the stamps
// and the time. In paper mode the bridge cannot tell one kernel ID from another, so a mover status
// with a kernel ID is believed while the descriptors outstanding (`waiting`) outnumber the
// statuses already in the stage: never more statuses than descriptors.
`default_nettype none

module fv_status_paper (
  input wire clk
);
  wire        rst          = $anyseq;
  wire        ms_valid     = $anyseq;
  wire [31:0] ms_data      = $anyseq;
  wire [4:0]  waiting      = $anyseq;
  wire        reject       = $anyseq;
  wire        reject_load  = $anyseq;
  wire [3:0]  reject_error = $anyseq;
  wire        stamp        = $anyseq;
  wire [6:0]  stamp_slot   = $anyseq;
  wire [31:0] now          = $anyseq;
  wire        hs_valid, reject_taken, push, ev_completed, ev_aborted, ev_spurious;
  wire [31:0] hs_data;
  wire [63:0] push_data;

  `DUT dut (
    .clk(clk), .rst(rst), .ms_valid(ms_valid), .ms_data(ms_data), .hs_valid(hs_valid),
    .hs_data(hs_data), .waiting(waiting), .reject(reject), .reject_load(reject_load),
    .reject_error(reject_error), .reject_taken(reject_taken), .stamp(stamp),
    .stamp_slot(stamp_slot), .now(now), .push(push), .push_data(push_data),
    .ev_completed(ev_completed), .ev_aborted(ev_aborted), .ev_spurious(ev_spurious)
  );

  // taps (driven by run.py)
  wire [31:0] f_ent, f_eq, f_rs;
  wire        f_m1r, f_m1v, f_m1m;
  wire [3:0]  f_m1e;

  reg f_past = 1'b0;
  always @(posedge clk) f_past <= 1'b1;
  always @* if (!f_past) assume (rst);                                      // E1

  // ---------------------------------------------------------------- the specification
  reg        f_due;                                      // a status in the stage: pushed now
  wire [6:0] f_slot     = ms_data[6:0];
  wire       f_kernel   = ms_valid && ms_data[7];
  wire       f_believed = f_kernel && waiting != {4'd0, f_due};
  wire       f_take     = reject && !f_kernel;
  wire       f_failed   = f_believed ? (ms_data[11] || ms_data[12]) : reject_error != 4'd0;

  reg        f_due_failed, f_due_mover;
  always @(posedge clk) begin
    f_due        <= !rst && (f_believed || f_take);
    f_due_failed <= f_failed;
    f_due_mover  <= f_believed;
  end

  // one watched kernel ID f_s: the time of its last stamp; the time of the last rejection loaded
  wire [6:0]  f_s = $anyconst;
  reg         f_has;
  reg  [31:0] f_t_s, f_rl;
  reg         f_exp_mover;                               // the status in the stage is f_s's
  reg  [31:0] f_exp_t;
  always @(posedge clk) begin
    if (rst) f_has <= 1'b0;
    else if (stamp && stamp_slot == f_s) begin
      f_has <= 1'b1; f_t_s <= now;
    end
    if (rst) f_rl <= 0;
    else if (reject_load) f_rl <= now;
    // a status reads the stamp as it was before this cycle's write
    f_exp_mover <= !rst && f_has && f_believed && f_slot == f_s;
    f_exp_t     <= f_t_s;
  end

  // ---------------------------------------------------------------- properties
`include "status_props.svh"
  always @* if (f_past && !rst) begin
`ifdef CHECK_one_status_per_report
    // each believed mover status and each rejection taken is pushed once, the next cycle, with
    // the failed word all ones exactly on an error; nothing else is pushed
    one_status_per_report: assert (push == f_due && (!push
                                   || push_data[63:32] == {32{f_due_failed}}));
`endif
`ifdef CHECK_stray_dropped
    // a kernel status while no descriptor is left to report (outstanding minus the staged status)
    // is dropped and counted as spurious
    stray_dropped: assert (ev_spurious == (f_kernel && !f_believed));
`endif
`ifdef CHECK_cycles_exact
    // a mover status of a stamped ID counts the cycles since its stamp; a rejection, since it was loaded
    cycles_exact: assert (!(push && f_exp_mover) || push_data[31:0] == now - f_exp_t);
    cycles_reject: assert (!(push && !f_due_mover) || push_data[31:0] == now - f_rl);
`endif
  end

`ifdef CHECK_reachable
  always @* if (f_past && !rst) begin
    cover (push && f_exp_mover && f_due_failed);                   // a stamped, aborted transfer
    cover (push && !f_due_mover && push_data[31:0] != 0);          // a rejection, some cycles later
    cover (f_kernel && waiting == 5'd1 && f_due && ev_spurious);   // one outstanding, its status staged
    cover (reject && !reject_taken);                               // a rejection held back
  end
`endif

  // ---------------------------------------------------------------- helpers
  always @* if (f_past && !rst) begin
    h_stage: assert (f_m1v == f_due && (!f_due || (f_m1m == f_due_mover
                                                   && (f_m1e != 0) == f_due_failed)));
    h_entry: assert (!f_has || f_ent == f_t_s);
    h_staged: assert (!f_exp_mover || f_eq == f_exp_t);
    h_reject: assert (f_rs == f_rl && f_m1r == (f_due && !f_due_mover));
  end
endmodule

`default_nettype wire
