// SPDX-License-Identifier: Apache-2.0
// Formal harness for the bridge's status credits direkt_bridge_credits_n<N>_s16 (on its own:
// the admission rule that keeps every mover status a place in the 16-word status FIFO).
//
// The IP is instantiated unchanged from ../ip. formal/run.py reads this file with
//   read_verilog -formal -D DUT=<module> -D N=<in flight> -D OW=<outstanding width> -D CHECK_<property>
// Exactly one CHECK_<property> selects the property under proof; the helper invariants are
// asserted in every run (CHECK_helpers proves them alone).
//
// No taps: the unit's state is its outstanding count, read at its port.
//
// Environment (everything else free in every cycle, $anyseq):
//   E1  rst is high in the first cycle; later rst is free. It clears the harness's count of
//       descriptors awaiting a status (the bridge forgets them, and the mover's late statuses for
//       them are dropped, never pushed) but not the FIFO: its pointers are never reset.
//   E2  The user admits only while ok is high, and retires (pushes a status) only for a
//       descriptor it admitted and has not retired yet (f_out != 0, counted by the harness).
//   E3  The status FIFO is the harness's, as counts modulo 32: f_w words written (one per
//       retire), f_r words read (a free pop while it holds a word), f_seen the reads as the
//       write side sees them (never ahead of f_r, catching up by any amount in any cycle):
//       wr_ptr is f_w and rd_ptr is f_seen, as the FIFO's wr_ptr and wr_rd_ptr are (what
//       async_fifo_sr.sv proves of them, reduced to counts).
`default_nettype none

module fv_credits (
  input wire clk
);
  localparam N = `N;
  localparam D = 16;

  wire          rst    = $anyseq;
  wire          admit  = $anyseq;
  wire          retire = $anyseq;
  wire          f_pop  = $anyseq;
  wire [4:0]    f_adv  = $anyseq;
  wire          ok;
  wire          drained;
  wire [`OW-1:0] outstanding;
  reg  [4:0]    f_w, f_r, f_seen;
  reg  [5:0]    f_out;                          // admitted, not yet retired

  `DUT dut (
    .clk(clk), .rst(rst), .admit(admit), .retire(retire), .wr_ptr(f_w), .rd_ptr(f_seen),
    .ok(ok), .outstanding(outstanding), .drained(drained)
  );

  // ---------------------------------------------------------------- environment
  reg f_past = 1'b0;
  reg f_past_rst = 1'b0;
  always @(posedge clk) f_past <= 1'b1;
  always @(posedge clk) f_past_rst <= rst;
  always @* if (!f_past) assume (rst);                                   // E1
  always @* if (!rst) begin
    assume (!admit || ok);                                               // E2
    assume (!retire || f_out != 0);                                      // E2
  end

  wire [4:0] f_fill = f_w - f_r;                // words in the FIFO
  wire [4:0] f_view = f_w - f_seen;             // as its write side sees them
  wire [4:0] f_r_n  = f_r + (f_pop && f_fill != 0);
  initial begin
    f_w = 0; f_r = 0; f_seen = 0;
  end
  always @(posedge clk) begin
    f_w    <= f_w + (!rst && retire);
    f_r    <= f_r_n;
    f_seen <= (f_adv <= f_r_n - f_seen) ? f_seen + f_adv : f_seen;     // E3
    f_out  <= rst ? 6'd0 : f_out + admit - retire;
  end
  wire [5:0] f_sum = f_out + {1'b0, f_view};    // promised places: outstanding + seen fill

  // ---------------------------------------------------------------- properties
  always @* if (f_past && !rst) begin
`ifdef CHECK_no_push_when_full
    // a status pushed finds a place the write side can see (so the FIFO takes it)
    no_push_when_full: assert (!retire || f_view < D);
`endif
`ifdef CHECK_outstanding_exact
    outstanding_exact: assert (outstanding == f_out);
`endif
`ifdef CHECK_inflight_bounded
    inflight_bounded: assert (f_out <= N);
`endif
`ifdef CHECK_drained_exact
    // nothing outstanding and the FIFO empty as its write side sees it
    drained_exact: assert (drained == (f_out == 0 && f_view == 0));
`endif
  end

`ifdef CHECK_reachable
  always @* if (f_past && !rst) begin
    cover (f_out == N);                                   // every place in flight used
    cover (f_view == D);                                  // the FIFO full as the write side sees it
    cover (!ok && f_out == 0 && f_view == D);             // admission held back by the FIFO's fill alone
    cover (ok && f_view != f_fill && f_sum == D - 1);     // a lagging view, one place left
    cover (drained && f_w != 0);                          // drained after statuses went through
    cover (f_past_rst && f_view != 0);                    // out of a reset with words in the FIFO
  end
`endif

  // ---------------------------------------------------------------- helpers
  // (the FIFO is never reset: its model holds through the unit's resets too)
  always @* if (f_past) h_fifo: assert (f_fill <= f_view && f_view <= D);
  always @* if (f_past && !rst) begin
    h_outstanding: assert (outstanding == f_out);
    h_sum: assert (f_sum <= D && f_out <= N);
    h_ok: assert (!ok || (f_sum < D && f_out < N));
  end
endmodule

`default_nettype wire
