// SPDX-License-Identifier: Apache-2.0
// Formal harness for the arbiters direkt_arbiter_{fixed,rr}_n{2,3}, direkt_arbiter_wrr_*, and
// their `_o` variants (with -D OFFERS: `offer` in place of the one-hot `grant`, which the harness
// then rebuilds from grant_id and grant_valid).
//
// The IP is instantiated unchanged from ../ip. formal/run.py reads this file with
//   read_verilog -formal -D DUT=<module> -D N=<requesters> -D POLICY=<0 fixed, 1 round robin,
//                2 weighted> -D W0= -D W1= -D W2=<weights, 1 where unused> -D CHECK_<property>
// Exactly one CHECK_<property> selects the property under proof; the helper invariants are
// asserted in every run (so proven together with it; CHECK_helpers proves them alone; the
// bounded-wait helper only with CHECK_bounded_wait / CHECK_reachable, which need E2).
//
// Protocol of the IP, as the harness reads it: in a cycle where no transfer is in progress
// (after reset, or after a cycle whose grant ended with done high) the arbiter is free and
// grants combinationally to one requester; a transfer ends in the first cycle (this one or a
// later one) with done high while grant_valid; until then the grant is locked, whatever req
// does. The harness tracks "a transfer is in progress" from the ports alone (f_open).
//
// Internal signals: Yosys 0.23 has no hierarchical references, so the wires below tagged
// `//@tap` are left undriven here and run.py drives each from the flattened internal signal
// (Yosys `connect`, i.e. `assign f_locked = dut.locked;`), then `check -assert` rejects any
// tap left undriven. A tap line ending in `if <MACRO><op><int>` applies only to the configs
// where that holds. Taps are read only by assertions (helpers), never by assumptions.
//
//@tap f_locked = dut.locked
//@tap f_held   = dut.held_grant
//@tap f_ptr    = dut.priority_ptr  if POLICY>=1
//@tap f_used   = dut.used          if POLICY==2
//
// Environment assumptions:
//   E1  rst is high in the first cycle; later rst is free (the harness state resets with it).
//   E2  (only in the runs bounded_wait and reachable) fairness: a requester that is waiting
//       in a cycle (req high, grant low, no reset) keeps req high in the next cycle. Bounded
//       wait counts transfers, not cycles, so it needs no assumption that `done` ever comes.
// No other assumption. In particular `done` is free in every cycle, also while no grant is
// valid: the IP ignores it then (finished = grant_valid && done), so the protocol does not need
// "done only while a grant is valid", and the proofs show that ignoring it is safe.
`default_nettype none

module fv_arbiter (
  input wire clk
);
  localparam N      = `N;
  localparam IW     = (N > 2) ? 2 : 1;
  localparam POLICY = `POLICY;
  localparam [7:0] W0 = `W0, W1 = `W1, W2 = `W2;
  // the bounded wait of requester i, in transfers of other requesters:
  //   round robin n-1, weighted the sum of the other weights
  localparam [7:0] WSUM = W0 + W1 + (N > 2 ? W2 : 8'd0);

  wire          rst  = $anyseq;
  wire [N-1:0]  req  = $anyseq;
  wire          done = $anyseq;
  wire [N-1:0]  grant;
  wire [IW-1:0] grant_id;
  wire          grant_valid;
  wire [N-1:0]  offer;

`ifdef OFFERS
  `DUT dut (
    .clk(clk), .rst(rst), .req(req), .done(done),
    .grant_id(grant_id), .grant_valid(grant_valid), .offer(offer)
  );
  assign grant = grant_valid ? ({{(N-1){1'b0}}, 1'b1} << grant_id) : {N{1'b0}};
`else
  `DUT dut (
    .clk(clk), .rst(rst), .req(req), .done(done),
    .grant(grant), .grant_id(grant_id), .grant_valid(grant_valid)
  );
  assign offer = grant;
`endif

  // taps (driven by run.py, see above)
  wire          f_locked;
  wire [N-1:0]  f_held;
  wire [IW-1:0] f_ptr;
  wire [7:0]    f_used;

  // ---------------------------------------------------------------- environment
  reg f_past = 1'b0;            // 0 only in the first cycle
  always @(posedge clk) f_past <= 1'b1;

  always @* if (!f_past) assume (rst);                                   // E1

  // ---------------------------------------------------------------- port-level model
  reg          f_open;          // a transfer granted in an earlier cycle is still running
  reg [N-1:0]  f_pgrant;        // the grant of the previous cycle
  always @(posedge clk) begin
    f_open   <= !rst && grant_valid && !done;
    f_pgrant <= grant;
  end
  wire f_free = !f_open;        // a fresh grant may be made in this cycle

  function [7:0] weight(input [1:0] g);
    weight = (g == 0) ? W0 : (g == 1) ? W1 : W2;
  endfunction

  // ---------------------------------------------------------------- properties
  always @* if (f_past) begin
`ifdef CHECK_grant_onehot
    // at most one grant; grant_valid and grant_id agree with it
    grant_onehot0: assert ((grant & (grant - 1'b1)) == 0);
    grant_valid_ok: assert (grant_valid == (grant != 0));
    grant_id_ok: assert (!grant_valid || grant == ({{(N-1){1'b0}}, 1'b1} << grant_id));
`endif
`ifdef CHECK_offer_matches_grant
    // a requester's offer is its grant in every cycle it requests (so offer & mover ready is a
    // ready that gives exactly the transfers grant & mover ready would)
    offer_matches_grant: assert ((offer & req) == (grant & req));
`endif
`ifdef CHECK_fresh_grant_only_to_requester
    // a grant made while the arbiter is free goes to a requester
    fresh_grant_only_to_requester: assert (!f_free || (grant & ~req) == 0);
`endif
`ifdef CHECK_free_arbiter_grants
    // a free arbiter with a request grants in the same cycle (work conserving)
    free_arbiter_grants: assert (!(f_free && req != 0) || grant_valid);
`endif
`ifdef CHECK_grant_held_until_done
    // while a transfer runs (granted earlier, done not yet seen) the grant does not change
    grant_held_until_done: assert (!f_open || grant == f_pgrant);
`endif
`ifdef CHECK_fixed_priority_order
    // fixed priority: a fresh grant goes to the lowest-numbered requester
    fixed_priority_order: assert (!f_free || grant == (req & (~req + 1'b1)));
`endif
  end

`ifdef CHECK_bounded_wait
 `define WAIT_MODEL
`endif
`ifdef CHECK_reachable
 `define WAIT_MODEL
  // Non-vacuity: under the same assumptions (E2 included), the interesting cases are
  // reachable from reset (run.py proves these with BMC cover, not induction): a grant held
  // while req changes under it, a fresh grant while another requester waits, and every
  // bounded wait reaching its bound exactly (so the bounds are tight).
  always @* if (f_past && !rst) begin
    cover (f_open && grant == f_pgrant && req != f_pgrant);
    cover (f_free && grant_valid && (req & ~grant) != 0);
  end
`endif
`ifdef WAIT_MODEL
  // E2: a waiting requester keeps requesting
  reg [N-1:0] f_waiting;        // requesters waiting in the previous cycle
  always @(posedge clk) f_waiting <= rst ? {N{1'b0}} : (req & ~grant);
  always @* if (f_past) assume ((req & f_waiting) == f_waiting);

  // weight used by the bound and the helper (round robin: every requester weighs 1)
  function [7:0] wt(input [1:0] g);
    wt = (POLICY == 2) ? weight(g) : 8'd1;
  endfunction

  // sum of the weights of the requesters strictly after a and before i, cyclically
  function [7:0] between(input [1:0] a, input [1:0] i);
    integer k;
    reg [2:0] g;
    reg stop;
    begin
      between = 0;
      stop = 0;
      for (k = 1; k < N; k = k + 1) begin
        g = a + k;
        if (g >= N) g = g - N;
        if (g == i) stop = 1;
        if (!stop) between = between + wt(g[1:0]);
      end
    end
  endfunction

  function [1:0] onehot_id(input [N-1:0] v);
    integer g;
    begin
      onehot_id = 0;
      for (g = 0; g < N; g = g + 1) if (v[g]) onehot_id = g;
    end
  endfunction

  wire [1:0] f_held_id = onehot_id(f_held);

  genvar gi;
  generate for (gi = 0; gi < N; gi = gi + 1) begin : g_wait
    // transfers of other requesters completed while requester gi has been waiting
    reg [3:0] cnt;
    always @(posedge clk)
      if (rst || !req[gi] || grant[gi]) cnt <= 0;
      else if (grant_valid && done && cnt != 4'hf) cnt <= cnt + 1'b1;

    if (POLICY == 0 && gi == 0) begin : g_fixed
      // fixed priority: only requester 0 has a bound; it waits at most for the transfer
      // already running
`ifdef CHECK_bounded_wait
      always @* if (f_past) assert (cnt <= 1);   // bounded_wait
`endif
`ifdef CHECK_reachable
      always @* if (f_past) cover (cnt == 1);
`endif
      // helper
      always @* if (f_past) assert (cnt + (f_locked && f_held_id != 0) <= 1);
    end
    if (POLICY != 0) begin : g_rr
      // round robin: n-1; weighted: the sum of the other weights
      localparam [7:0] BOUND = (POLICY == 1) ? N - 1 :
                               WSUM - ((gi == 0) ? W0 : (gi == 1) ? W1 : W2);
`ifdef CHECK_bounded_wait
      always @* if (f_past) assert (cnt <= BOUND);   // bounded_wait
`endif
`ifdef CHECK_reachable
      always @* if (f_past) cover (cnt == BOUND);
`endif

      // helper: transfers of others that can still come before gi's, from the state
      //   locked to h != gi: h's remaining run, then everyone strictly between h and gi
      //   free with priority at p != gi: p's remaining run, then everyone between p and gi
      wire [7:0] used = (POLICY == 2) ? f_used : 8'd0;
      wire [7:0] held_run = wt(f_held_id) - ((f_held_id == f_ptr) ? used : 8'd0);
      wire [7:0] ptr_run  = wt(f_ptr) - used;
      wire [7:0] pot = f_locked ? ((f_held_id == gi) ? 8'd0 : held_run + between(f_held_id, gi))
                                : ((f_ptr == gi) ? 8'd0 : ptr_run + between(f_ptr, gi));
      always @* if (f_past) assert (cnt + pot <= BOUND);
    end
  end endgenerate
`endif

  // ---------------------------------------------------------------- helpers
  always @* if (f_past) begin
    h_locked: assert (f_locked == f_open);
    h_held: assert (!f_locked || (f_held == f_pgrant && f_held != 0 &&
                                  (f_held & (f_held - 1'b1)) == 0));
  end
  generate
    if (POLICY >= 1) begin : g_h_ptr
      always @* if (f_past) h_ptr: assert (f_ptr < N);
    end
    if (POLICY == 2) begin : g_h_used
      always @* if (f_past) h_used: assert (f_used < weight(f_ptr));
    end
  endgenerate
endmodule

`default_nettype wire
