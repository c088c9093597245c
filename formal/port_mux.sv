// SPDX-License-Identifier: Apache-2.0
// Formal harness for the kernel ports' unit direkt_port_mux_n3_c2_rr_w40_t4_m39: three ports onto
// one request stream, 2 credits per port, a 40-bit word with the tag at [35:4] and `more` at 39.
//
// The IP is instantiated unchanged from ../ip. formal/run.py reads this file with
//   read_verilog -formal -D DUT=<module> -D CHECK_<property>
// Exactly one CHECK_<property> selects the property under proof; the helper invariants are
// asserted in every run (CHECK_helpers proves them alone).
//
// Tokens are {port (2 bits), slot (1 bit)}: 0..5 name a port's slot, 6 and 7 none.
//
//@tap f_busy0  = dut.p0_slot_busy
//@tap f_busy1  = dut.p1_slot_busy
//@tap f_busy2  = dut.p2_slot_busy
//@tap f_una0   = dut.p0_unanswered
//@tap f_una1   = dut.p1_unanswered
//@tap f_una2   = dut.p2_unanswered
//@tap f_within = dut.within_request
//@tap f_rtok   = dut.request_token
//@tap f_tag0   = dut.p0_slot0_tag
//@tap f_tag1   = dut.p0_slot1_tag
//@tap f_tag2   = dut.p1_slot0_tag
//@tap f_tag3   = dut.p1_slot1_tag
//@tap f_tag4   = dut.p2_slot0_tag
//@tap f_tag5   = dut.p2_slot1_tag
//@tap f_wp0    = dut.u_p0_status.wr_ptr
//@tap f_rp0    = dut.u_p0_status.rd_ptr
//@tap f_wp1    = dut.u_p1_status.wr_ptr
//@tap f_rp1    = dut.u_p1_status.rd_ptr
//@tap f_wp2    = dut.u_p2_status.wr_ptr
//@tap f_rp2    = dut.u_p2_status.rd_ptr
//@tap f_push0  = dut.u_p0_status_s_valid
//@tap f_push1  = dut.u_p1_status_s_valid
//@tap f_push2  = dut.u_p2_status_s_valid
//@tap f_pdata0 = dut.u_p0_status_s_data
//@tap f_pdata1 = dut.u_p1_status_s_data
//@tap f_pdata2 = dut.u_p2_status_s_data
//@tap f_locked = dut.u_arb.locked
//@tap f_held   = dut.u_arb.held_grant
//
// Environment (everything else free in every cycle, $anyseq):
//   E1  rst is high in the first cycle; later rst is free. A reset also empties the bridge behind
//       the unit (in the bridge the kernel reset's handshake drops every status of the old kernel).
//   E2  The bridge returns a status only for a request it holds and has not answered (f_pend,
//       counted from the request's first entry), with the token the unit put in the tag, the
//       tag's bits above it zero; in any order, in any cycle.
//   E3  The ports' words, valids and status readies, and out_ready, are free.
`default_nettype none

module fv_port_mux (
  input wire clk
);
  localparam C = 2;

  wire        rst   = $anyseq;
  wire [39:0] d0    = $anyseq;
  wire [39:0] d1    = $anyseq;
  wire [39:0] d2    = $anyseq;
  wire        v0    = $anyseq;
  wire        v1    = $anyseq;
  wire        v2    = $anyseq;
  wire        sr0   = $anyseq;
  wire        sr1   = $anyseq;
  wire        sr2   = $anyseq;
  wire        out_ready = $anyseq;
  wire        in_valid  = $anyseq;
  wire [2:0]  in_tok    = $anyseq;
  wire [31:0] in_hi     = $anyseq;
  wire        f_pick    = $anyseq;               // watch this request (chosen at its first entry)

  wire        r0, r1, r2, sv0, sv1, sv2, out_valid, in_ready;
  wire [63:0] s0, s1, s2;
  wire [39:0] out_data;

  wire [1:0]  f_busy0, f_busy1, f_busy2, f_una0, f_una1, f_una2;
  wire        f_within, f_locked;
  wire [2:0]  f_rtok, f_held;
  wire [31:0] f_tag0, f_tag1, f_tag2, f_tag3, f_tag4, f_tag5;
  wire [1:0]  f_wp0, f_rp0, f_wp1, f_rp1, f_wp2, f_rp2;
  wire        f_push0, f_push1, f_push2;
  wire [63:0] f_pdata0, f_pdata1, f_pdata2;

  `DUT dut (
    .clk(clk), .rst(rst),
    .p0_desc_data(d0), .p0_desc_valid(v0), .p0_desc_ready(r0),
    .p0_status_data(s0), .p0_status_valid(sv0), .p0_status_ready(sr0),
    .p1_desc_data(d1), .p1_desc_valid(v1), .p1_desc_ready(r1),
    .p1_status_data(s1), .p1_status_valid(sv1), .p1_status_ready(sr1),
    .p2_desc_data(d2), .p2_desc_valid(v2), .p2_desc_ready(r2),
    .p2_status_data(s2), .p2_status_valid(sv2), .p2_status_ready(sr2),
    .out_data(out_data), .out_valid(out_valid), .out_ready(out_ready),
    .in_data({in_hi, 29'd0, in_tok}), .in_valid(in_valid), .in_ready(in_ready)
  );

  // ---------------------------------------------------------------- the bridge behind, as the harness keeps it
  reg f_past = 1'b0;
  reg f_past_rst = 1'b0;
  always @(posedge clk) f_past <= 1'b1;
  always @(posedge clk) f_past_rst <= rst;
  always @* if (!f_past) assume (rst);                                   // E1

  wire       out_fire = out_valid && out_ready;
  wire       in_fire  = in_valid && in_ready;
  wire [2:0] out_tok  = out_data[6:4];
  wire       out_more = out_data[39];
  reg  [7:0] f_pend;                 // tokens the bridge holds, request first entry .. its status
  reg        f_in_req;               // an entry with more was the last one out
  reg  [1:0] f_owner;                // the port of the request under way
  reg  [2:0] f_cur;                  // its token
  wire       f_start = out_fire && !f_in_req;
  wire [1:0] f_from  = r0 ? 2'd0 : r1 ? 2'd1 : 2'd2;     // whose word went out (one ready at most)
  wire [39:0] f_word = r0 ? d0 : r1 ? d1 : d2;
  always @* if (!rst) assume (!in_valid || f_pend[in_tok]);             // E2

  // the watched request: its token, port and kernel tag
  reg        f_wact;
  reg  [2:0] f_wtok;
  reg  [1:0] f_wport;
  reg  [31:0] f_wtag;
  initial begin
    f_pend = 0; f_in_req = 0; f_owner = 0; f_cur = 0; f_wact = 0; f_wtok = 0; f_wport = 0; f_wtag = 0;
  end
  always @(posedge clk) begin
    if (rst) begin
      f_pend <= 0;
      f_in_req <= 0;
      f_wact <= 0;
    end else begin
      f_pend <= (f_pend | (f_start ? 8'd1 << out_tok : 8'd0)) & ~(in_fire ? 8'd1 << in_tok : 8'd0);
      if (out_fire) f_in_req <= out_more;
      if (f_start) begin
        f_owner <= f_from;
        f_cur <= out_tok;
      end
      if (f_start && f_pick && !f_wact) begin
        f_wact <= 1;
        f_wtok <= out_tok;
        f_wport <= f_from;
        f_wtag <= f_word[35:4];
      end else if (in_fire && f_wact && in_tok == f_wtok) begin
        f_wact <= 0;
      end
    end
  end

  // per port: requests unanswered as the kernel sees them (first entry out .. status read)
  reg [2:0] f_u0, f_u1, f_u2;
  initial begin
    f_u0 = 0; f_u1 = 0; f_u2 = 0;
  end
  wire rd0 = sv0 && sr0;
  wire rd1 = sv1 && sr1;
  wire rd2 = sv2 && sr2;
  always @(posedge clk) begin
    f_u0 <= rst ? 3'd0 : f_u0 + (f_start && f_from == 0) - rd0;
    f_u1 <= rst ? 3'd0 : f_u1 + (f_start && f_from == 1) - rd1;
    f_u2 <= rst ? 3'd0 : f_u2 + (f_start && f_from == 2) - rd2;
  end
  wire [1:0] f_fill0 = f_wp0 - f_rp0;
  wire [1:0] f_fill1 = f_wp1 - f_rp1;
  wire [1:0] f_fill2 = f_wp2 - f_rp2;
  wire [31:0] f_wtag_now = f_wtok == 0 ? f_tag0 : f_wtok == 1 ? f_tag1 : f_wtok == 2 ? f_tag2
                         : f_wtok == 3 ? f_tag3 : f_wtok == 4 ? f_tag4 : f_tag5;

  // ---------------------------------------------------------------- properties
  always @* if (f_past && !rst) begin
`ifdef CHECK_status_room
    // a status never waits: its port's FIFO has room
    status_room: assert (!in_valid || in_ready);
`endif
`ifdef CHECK_token_fresh
    // a request's token is one no request in the bridge holds, of the port it came from, the tag's
    // bits above it zero; later entries of a request carry its token
    token_fresh: assert (!f_start || (!f_pend[out_tok] && out_tok[2:1] == f_from && out_data[35:7] == 0));
    token_kept: assert (!(out_fire && f_in_req) || out_tok == f_cur);
`endif
`ifdef CHECK_status_routed
    // the watched request's status goes to its port alone, with the kernel's tag back in place
    status_routed: assert (!(in_fire && f_wact && in_tok == f_wtok)
                           || ((f_wport == 0 ? f_push0 && f_pdata0 == {in_hi, f_wtag} && !f_push1 && !f_push2
                              : f_wport == 1 ? f_push1 && f_pdata1 == {in_hi, f_wtag} && !f_push0 && !f_push2
                              : f_push2 && f_pdata2 == {in_hi, f_wtag} && !f_push0 && !f_push1)));
`endif
`ifdef CHECK_entries_together
    // between a request's first entry and its last, no other port's word goes out
    entries_together: assert (!f_in_req || ((f_owner == 0 || !r0) && (f_owner == 1 || !r1) && (f_owner == 2 || !r2)));
`endif
`ifdef CHECK_port_credits
    // no port has more than its credits unanswered, first entry to status read
    port_credits: assert (f_u0 <= C && f_u1 <= C && f_u2 <= C);
`endif
  end

`ifdef CHECK_reachable
  always @* if (f_past && !rst) begin
    cover (f_u0 == C && f_u1 == C && f_u2 == C);              // every credit taken
    cover (f_fill0 == C && in_fire && in_tok[2:1] == 2'd1);   // port 0 stalled full, port 1 answered
    cover (out_fire && f_in_req && !out_more);                // a request of several entries ends
    cover (f_start && f_past_rst == 0 && f_pend == 8'b0011_1110); // five held, the sixth taken
    cover (f_wact && in_fire && in_tok == f_wtok && f_wport == 2);
  end
`endif

  // ---------------------------------------------------------------- helpers
  always @* if (f_past && !rst) begin
    h_pend: assert (f_pend[7:6] == 2'b00);
    h_busy: assert (f_busy0 == f_pend[1:0] && f_busy1 == f_pend[3:2] && f_busy2 == f_pend[5:4]);
    h_fill: assert (f_fill0 <= C && f_fill1 <= C && f_fill2 <= C);
    h_una: assert (f_una0 == f_u0[1:0] && f_una1 == f_u1[1:0] && f_una2 == f_u2[1:0]
                   && f_u0 <= C && f_u1 <= C && f_u2 <= C);
    h_count: assert (f_u0 == f_busy0[0] + f_busy0[1] + f_fill0 && f_u1 == f_busy1[0] + f_busy1[1] + f_fill1
                     && f_u2 == f_busy2[0] + f_busy2[1] + f_fill2);
    h_within: assert (f_within == f_in_req);
    h_request: assert (!f_in_req || (f_rtok == f_cur && f_cur[2:1] == f_owner
                                     && f_locked && f_held == 3'd1 << f_owner));
    // a grant held outside a request (its first entry not yet out) was given with a credit
    h_locked: assert (!f_locked || f_in_req || (f_held == 3'b001 && f_u0 < C) || (f_held == 3'b010 && f_u1 < C)
                      || (f_held == 3'b100 && f_u2 < C));
    h_watch: assert (!f_wact || (f_pend[f_wtok] && f_wtok[2:1] == f_wport && f_wtag_now == f_wtag));
  end
endmodule

`default_nettype wire
