// SPDX-License-Identifier: Apache-2.0
// Formal harness for the bridge's kernel status builder direkt_bridge_status_n16 (on its own:
// managed IDs 128..143, tagged statuses {elapsed[27:0], error[3:0], tag[31:0]}, events on).
//
// The IP is instantiated unchanged from ../ip. formal/run.py reads this file with
//   read_verilog -formal -D DUT=<module> -D CHECK_<property>
// Exactly one CHECK_<property> selects the property under proof; the helper invariants are
// asserted in every run (CHECK_helpers proves them alone). host_passthrough, reject_waits and
// events_exact are stated as for the paper preset's builder, in status_props.svh.
//
//@tap f_nowp = dut.now_prev
//@tap f_ent_stamp = dut.stamp_table[f_s]
//@tap f_ent_tag   = dut.tag_table[f_s]
//
// Environment: none beyond E1 (rst high in the first cycle; later free). Every input is free in
// every cycle ($anyseq): the mover's statuses (any ID, any flags, any cycle), the issued slots,
// the rejections, the stamps and the time, but for E2: no stamp lands on the slot of a status the
// stage takes in that cycle (its tag is read a cycle later; the bridge stamps only free slots, and
// a slot stays issued, or held by its rejection, until its status is pushed, so the IDs that
// IdPool hands out never include it; the bridge benches check every status's tag end to end). The properties are stated from the inputs alone: a
// mover status with a kernel ID 128..143 is believed when its slot is issued (waiting, or late:
// handed over last cycle).
`default_nettype none

module fv_status (
  input wire clk
);
  wire        rst          = $anyseq;
  wire        ms_valid     = $anyseq;
  wire [31:0] ms_data      = $anyseq;
  wire [15:0] waiting      = $anyseq;
  wire        late         = $anyseq;
  wire [3:0]  late_slot    = $anyseq;
  wire        reject       = $anyseq;
  wire [3:0]  reject_slot  = $anyseq;
  wire [3:0]  reject_error = $anyseq;
  wire        stamp        = $anyseq;
  wire [3:0]  stamp_slot   = $anyseq;
  wire [31:0] stamp_tag    = $anyseq;
  wire [31:0] now          = $anyseq;
  wire        hs_valid, reject_taken, back, push, ev_completed, ev_aborted, ev_spurious;
  wire [31:0] hs_data;
  wire [3:0]  back_slot, push_slot;
  wire [63:0] push_data;

  `DUT dut (
    .clk(clk), .rst(rst), .ms_valid(ms_valid), .ms_data(ms_data), .hs_valid(hs_valid),
    .hs_data(hs_data), .waiting(waiting), .late(late), .late_slot(late_slot), .reject(reject),
    .reject_slot(reject_slot), .reject_error(reject_error), .reject_taken(reject_taken),
    .stamp(stamp), .stamp_slot(stamp_slot), .stamp_tag(stamp_tag), .now(now), .back(back),
    .back_slot(back_slot), .push(push), .push_slot(push_slot), .push_data(push_data),
    .ev_completed(ev_completed), .ev_aborted(ev_aborted), .ev_spurious(ev_spurious)
  );

  // taps (driven by run.py)
  wire [31:0] f_nowp;
  wire [31:0] f_ent_stamp, f_ent_tag;
  wire [63:0] f_ent = {f_ent_tag, f_ent_stamp};

  reg f_past = 1'b0;
  always @(posedge clk) f_past <= 1'b1;
  always @* if (!f_past) assume (rst);                                      // E1

  // ---------------------------------------------------------------- the specification
  wire [3:0] f_slot     = ms_data[3:0];
  wire       f_kernel   = ms_valid && ms_data[7];
  wire       f_believed = f_kernel && ms_data[6:4] == 3'd0
                          && (waiting[f_slot] || (late && late_slot == f_slot));
  wire       f_take     = reject && !f_kernel;                 // a rejection waits for a quiet cycle
  wire [3:0] f_err      = f_believed ? ((ms_data[11] || ms_data[12]) ? 4'd8 : 4'd0) : reject_error;
  always @* if (f_believed || f_take) assume (!stamp || stamp_slot != (f_believed ? f_slot : reject_slot)); // E2

  // what the next cycle must push (registered here; the harness's own state)
  reg        f_due;
  reg [3:0]  f_due_slot, f_due_err;
  reg        f_due_mover;
  always @(posedge clk) begin
    f_due       <= !rst && (f_believed || f_take);
    f_due_slot  <= f_believed ? f_slot : reject_slot;
    f_due_err   <= f_err;
    f_due_mover <= f_believed;
  end
  wire       f_due_failed = f_due_err != 4'd0;

  // one watched slot f_s: its last stamp (tag, and the time of the cycle before it)
  wire [3:0]  f_s = $anyconst;
  reg  [31:0] f_now_q;
  reg         f_has;
  reg  [31:0] f_tag_s, f_t_s;
  reg         f_exp;
  reg  [31:0] f_exp_tag, f_exp_el;
  always @(posedge clk) begin
    f_now_q <= rst ? 32'hffffffff : now;
    if (rst) f_has <= 1'b0;
    else if (stamp && stamp_slot == f_s) begin
      f_has <= 1'b1; f_tag_s <= stamp_tag; f_t_s <= f_now_q;
    end
    // a status for f_s reads the stamp as it was before this cycle's write
    f_exp     <= !rst && f_has && (f_believed || f_take) && (f_believed ? f_slot : reject_slot) == f_s;
    f_exp_tag <= f_tag_s;
    f_exp_el  <= now - f_t_s;
  end
  wire [27:0] f_exp_sat = |f_exp_el[31:28] ? 28'hfffffff : f_exp_el[27:0];

  // ---------------------------------------------------------------- properties
`include "status_props.svh"
  always @* if (f_past && !rst) begin
`ifdef CHECK_one_status_per_report
    // each believed mover status and each rejection taken is pushed once, the next cycle, with
    // its slot and error; nothing else is pushed (a stray kernel status, a host status)
    one_status_per_report: assert (push == f_due && (!push || (push_slot == f_due_slot
                                   && push_data[35:32] == f_due_err)));
`endif
`ifdef CHECK_stray_dropped
    // a kernel status for a slot that is not issued frees nothing and is counted as spurious
    stray_dropped: assert (back == f_believed && (!back || back_slot == f_slot)
                           && ev_spurious == (f_kernel && !f_believed));
`endif
`ifdef CHECK_stamp_exact
    // the status of a stamped slot carries the tag given at its stamp and the cycles since
    stamp_exact: assert (!(push && f_exp) || (push_data[31:0] == f_exp_tag
                                              && push_data[63:36] == f_exp_sat));
`endif
  end

`ifdef CHECK_reachable
  always @* if (f_past && !rst) begin
    cover (push && f_exp && f_due_mover && f_due_err != 0);        // a stamped, aborted transfer
    cover (push && f_exp && !f_due_mover && f_exp_sat == 28'hfffffff); // a rejection, saturated time
    cover (reject && !reject_taken);                               // a rejection held back
    cover (back && late && !waiting[f_slot]);                      // believed through late alone
  end
`endif

  // ---------------------------------------------------------------- helpers
  always @* if (f_past && !rst) begin
    h_now: assert (f_nowp == f_now_q);
    h_entry: assert (!f_has || f_ent == {f_tag_s, f_t_s});
  end
endmodule

`default_nettype wire
