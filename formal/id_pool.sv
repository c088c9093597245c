// SPDX-License-Identifier: Apache-2.0
// Formal harness for the bridge's descriptor ID pool direkt_bridge_id_pool_n<N> (on its own: the
// unit that hands out kernel IDs 128..128+N-1 and says which of them the mover holds); N is 4
// (`make formal`) or 16, the default preset's (`formal/run.py --long`).
//
// The IP is instantiated unchanged from ../ip. formal/run.py reads this file with
//   read_verilog -formal -D DUT=<module> -D N=<slots> -D SW=<slot bits> [-D N16] -D CHECK_<property>
// Exactly one CHECK_<property> selects the property under proof; the helper invariants are
// asserted in every run (CHECK_helpers proves them alone).
//
//@tap f_fresh = dut.fresh
//@tap f_rd    = dut.retired_rd
//@tap f_wr    = dut.retired_wr
//@tap f_cnt   = dut.free_count
//@tap f_issd  = dut.slot_issued
//@tap f_m0  = dut.retired[f_a0]
//@tap f_m1  = dut.retired[f_a1]
//@tap f_m2  = dut.retired[f_a2]
//@tap f_m3  = dut.retired[f_a3]
//@tap f_m4  = dut.retired[f_a4] if N>=16
//@tap f_m5  = dut.retired[f_a5] if N>=16
//@tap f_m6  = dut.retired[f_a6] if N>=16
//@tap f_m7  = dut.retired[f_a7] if N>=16
//@tap f_m8  = dut.retired[f_a8] if N>=16
//@tap f_m9  = dut.retired[f_a9] if N>=16
//@tap f_m10 = dut.retired[f_a10] if N>=16
//@tap f_m11 = dut.retired[f_a11] if N>=16
//@tap f_m12 = dut.retired[f_a12] if N>=16
//@tap f_m13 = dut.retired[f_a13] if N>=16
//@tap f_m14 = dut.retired[f_a14] if N>=16
//@tap f_m15 = dut.retired[f_a15] if N>=16
//
// The harness keeps the life of every slot, as the bridge leads it (f_st, 2 bits per slot):
//   FREE --alloc--> OWNED --handed--> ISSUED --back--> DONE --retire--> FREE
//   OWNED --retire--> FREE                        (a descriptor the checks rejected)
// Environment (everything else free in every cycle, $anyseq):
//   E1  rst is high in the first cycle; later rst is free (the harness state resets with it).
//   E2  alloc only while any_free; the slot taken is free_slot.
//   E3  handed only for an OWNED slot, back only for an ISSUED one, retire only for an OWNED or
//       DONE one; at most one of each per cycle, and never two of them for the same slot.
`default_nettype none

module fv_id_pool (
  input wire clk
);
  localparam N = `N;
  localparam SW = `SW;
  localparam FREE = 2'd0, OWNED = 2'd1, ISSUED = 2'd2, DONE = 2'd3;

  wire          rst         = $anyseq;
  wire          alloc       = $anyseq;
  wire          handed      = $anyseq;
  wire [SW-1:0] handed_slot = $anyseq;
  wire          back        = $anyseq;
  wire [SW-1:0] back_slot   = $anyseq;
  wire          retire      = $anyseq;
  wire [SW-1:0] retire_slot = $anyseq;
  wire [SW-1:0] free_slot;
  wire          any_free;
  wire [N-1:0]  issued;
  wire          late;
  wire [SW-1:0] late_slot;

  `DUT dut (
    .clk(clk), .rst(rst), .alloc(alloc), .free_slot(free_slot), .any_free(any_free),
    .handed(handed), .handed_slot(handed_slot), .back(back), .back_slot(back_slot),
    .retire(retire), .retire_slot(retire_slot), .issued(issued), .late(late), .late_slot(late_slot)
  );

  // taps (driven by run.py)
  wire [SW:0]   f_fresh, f_rd, f_wr, f_cnt;
  wire [N-1:0]  f_issd;
  wire [SW-1:0] f_m0, f_m1, f_m2, f_m3;
  wire [SW-1:0] f_a0 = 0, f_a1 = 1, f_a2 = 2, f_a3 = 3;
`ifdef N16
  wire [SW-1:0] f_m4, f_m5, f_m6, f_m7, f_m8, f_m9, f_m10, f_m11, f_m12, f_m13, f_m14, f_m15;
  wire [SW-1:0] f_a4 = 4, f_a5 = 5, f_a6 = 6, f_a7 = 7, f_a8 = 8, f_a9 = 9, f_a10 = 10,
                f_a11 = 11, f_a12 = 12, f_a13 = 13, f_a14 = 14, f_a15 = 15;
  wire [N*SW-1:0] f_mem = {f_m15, f_m14, f_m13, f_m12, f_m11, f_m10, f_m9, f_m8, f_m7, f_m6,
                           f_m5, f_m4, f_m3, f_m2, f_m1, f_m0};
`else
  wire [N*SW-1:0] f_mem = {f_m3, f_m2, f_m1, f_m0};
`endif

  // ---------------------------------------------------------------- slot lives
  reg  [2*N-1:0] f_st;                           // 2 bits per slot
  function [1:0] st(input [SW-1:0] s);
    st = f_st[2 * s +: 2];
  endfunction

  reg f_past = 1'b0;
  always @(posedge clk) f_past <= 1'b1;
  always @* if (!f_past) assume (rst);                                      // E1
  always @* if (!rst) begin
    assume (!alloc || any_free);                                            // E2
    assume (!handed || st(handed_slot) == OWNED);                           // E3
    assume (!back || st(back_slot) == ISSUED);
    assume (!retire || st(retire_slot) == OWNED || st(retire_slot) == DONE);
    assume (!(handed && retire && handed_slot == retire_slot));
    assume (!(alloc && handed && free_slot == handed_slot));
  end

  integer i;
  reg [2*N-1:0] f_st_n;
  always @* begin
    f_st_n = f_st;
    if (alloc) f_st_n[2 * free_slot +: 2] = OWNED;
    if (handed) f_st_n[2 * handed_slot +: 2] = ISSUED;
    if (back) f_st_n[2 * back_slot +: 2] = DONE;
    if (retire) f_st_n[2 * retire_slot +: 2] = FREE;
  end
  always @(posedge clk) f_st <= rst ? 0 : f_st_n;

  // slots in each state
  reg [N-1:0] f_free, f_iss;
  reg [SW:0]  f_nfree;
  always @* begin
    f_nfree = 0;
    for (i = 0; i < N; i = i + 1) begin
      f_free[i] = f_st[2 * i +: 2] == FREE;
      f_iss[i]  = f_st[2 * i +: 2] == ISSUED;
      f_nfree   = f_nfree + f_free[i];
    end
  end

  // ---------------------------------------------------------------- properties
  wire [N-1:0] late_mark = late ? {{N-1{1'b0}}, 1'b1} << late_slot : {N{1'b0}};
  always @* if (f_past && !rst) begin
`ifdef CHECK_id_unique
    // the slot handed out is free: no ID is given to two descriptors at once
    id_unique: assert (!alloc || st(free_slot) == FREE);
`endif
`ifdef CHECK_any_free_exact
    // a free slot is offered exactly while one exists (admission is never held back for nothing)
    any_free_exact: assert (any_free == (f_nfree != 0));
`endif
`ifdef CHECK_issued_exact
    // the slots whose report is believed: those the mover holds (late names the one handed last cycle)
    issued_exact: assert ((issued | late_mark) == f_iss);
`endif
  end

`ifdef CHECK_reachable
  always @* if (f_past && !rst) begin
    cover (f_nfree == 0);                                       // every ID in use
    cover (alloc && f_fresh == N);                              // a retired slot handed out again
    cover (back && late && back_slot == late_slot);             // a report in the hand-over's cycle
    cover (&f_iss);                                             // the mover holds every slot
  end
`endif

  // ---------------------------------------------------------------- helpers
  // Every slot is exactly one of: never used yet (>= fresh), once in the retired queue, or in use.
  wire [SW:0] f_qlen = f_wr - f_rd;
  reg  [SW:0] f_occ;
  reg         f_one;
  integer p, s;
  always @* begin
    f_one = 1'b1;
    for (s = 0; s < N; s = s + 1) begin
      f_occ = 0;
      for (p = 0; p < N; p = p + 1)
        if (((p[SW:0] - f_rd) & (N - 1)) < f_qlen && f_mem[SW * p +: SW] == s[SW-1:0])
          f_occ = f_occ + 1;
      if ((s >= f_fresh) + f_occ + !f_free[s] != 1)
        f_one = 1'b0;
    end
  end
  always @* if (f_past && !rst) begin
    h_counts: assert (f_fresh <= N && f_qlen <= N && f_cnt == (N - f_fresh) + f_qlen
                      && f_cnt == f_nfree);
    h_slots: assert (f_one);
    h_any: assert (any_free == (f_cnt != 0));
    h_issued: assert ((f_issd & late_mark) == 0 && (f_issd | late_mark) == f_iss);
  end
endmodule

`default_nettype wire
