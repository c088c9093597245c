// SPDX-License-Identifier: Apache-2.0
// Formal harness for the GPU region walker direkt_region_walker_rd_e16_r2_p2_q2_s2_id192_mem200000000
// (16-entry page table, 2 regions, 2 pieces and 2 requests in flight): a request's translation never
// reads a page outside its region, and every request owns exactly one status.
//
// The IP is instantiated unchanged from ../ip. formal/run.py reads this file with
//   read_verilog -formal -D DUT=<module> [-D STATUS=1] -D CHECK_<property>
// Exactly one CHECK_<property> selects the property under proof; the helper invariants are
// asserted in every run (CHECK_helpers proves them alone).
//
//@tap f_admit   = dut.admit
//@tap f_walk    = dut.walk_start
//@tap f_reject  = dut.reject if STATUS>=1
//@tap f_q0      = dut.req0_valid if STATUS>=1
//@tap f_q1      = dut.req1_valid if STATUS>=1
//@tap f_rejv    = dut.reject_valid if STATUS>=1
//@tap f_compl   = dut.completed if STATUS>=1
//@tap f_stv     = dut.status_valid if STATUS>=1
//@tap f_c0      = dut.req0_pieces if STATUS>=1
//@tap f_c1      = dut.req1_pieces if STATUS>=1
//@tap f_o0      = dut.req0_open if STATUS>=1
//@tap f_o1      = dut.req1_open if STATUS>=1
//@tap f_close   = dut.close_pending if STATUS>=1
//@tap f_wq      = dut.w_request if STATUS>=1
//@tap f_wfinal  = dut.w_final if STATUS>=1
//@tap f_chopen  = dut.chain_open_now
//@tap f_chskip  = dut.chain_skip_now
//@tap f_kmoved  = dut.k_moved
//@tap f_knopen  = dut.k_next_chain_open
//@tap f_knskip  = dut.k_next_chain_skip
//@tap f_kfollows = dut.k_more
//@tap f_nx0     = dut.req0_next if STATUS>=1
//@tap f_nx1     = dut.req1_next if STATUS>=1
//@tap f_srdy    = dut.request_slot_ready if STATUS>=1
//@tap f_freeq   = dut.free_request if STATUS>=1
//@tap f_cready  = dut.close_ready if STATUS>=1
//@tap f_r0v     = dut.r0_valid if STATUS>=1
//@tap f_r1v     = dut.r1_valid if STATUS>=1
//@tap f_rqv     = dut.rq_valid if STATUS>=1
//@tap f_r0c     = dut.r0_chunk if STATUS>=1
//@tap f_r1c     = dut.r1_chunk if STATUS>=1
//@tap f_rqc     = dut.rq_chunk if STATUS>=1
//@tap f_hdv     = dut.chunk_head_valid if STATUS>=1
//@tap f_hd      = dut.chunk_head if STATUS>=1
//@tap f_cqrd    = dut.chunk_rd if STATUS>=1
//@tap f_cqfill  = dut.chunk_fill if STATUS>=1
//@tap f_cqwr    = dut.chunk_wr if STATUS>=1
//@tap f_inflight = dut.chunks_in_flight if STATUS>=1
//@tap f_cq0     = dut.chunk_queue[f_x0] if STATUS>=1
//@tap f_cq1     = dut.chunk_queue[f_x1] if STATUS>=1
//@tap f_cq2     = dut.chunk_queue[f_x2] if STATUS>=1
//@tap f_cq3     = dut.chunk_queue[f_x3] if STATUS>=1
//@tap f_cq4     = dut.chunk_queue[f_x4] if STATUS>=1
//@tap f_cq5     = dut.chunk_queue[f_x5] if STATUS>=1
//@tap f_cq6     = dut.chunk_queue[f_x6] if STATUS>=1
//@tap f_cq7     = dut.chunk_queue[f_x7] if STATUS>=1
//@tap f_cv      = dut.c_valid if STATUS>=1
//@tap f_cq      = dut.c_request if STATUS>=1
//@tap f_cfinal  = dut.c_final if STATUS>=1
//@tap f_cfirst  = dut.c_first if STATUS>=1
//@tap f_rtake   = dut.r_take if STATUS>=1
//@tap f_cclosed = dut.c_closed if STATUS>=1
//@tap f_cpages  = dut.c_more_pages if STATUS>=1
//@tap f_wfirst  = dut.w_first if STATUS>=1
//@tap f_ov      = dut.o_valid if STATUS>=1
//@tap f_oq      = dut.o_request if STATUS>=1
//@tap f_olast   = dut.o_last if STATUS>=1
//@tap f_pr0     = dut.piece_request[f_s0] if STATUS>=1
//@tap f_pr1     = dut.piece_request[f_s1] if STATUS>=1
//@tap f_tk      = dut.status_taken if STATUS>=1
//@tap f_tkq     = dut.status_request if STATUS>=1
//@tap f_tks     = dut.status_taken_slot if STATUS>=1
//@tap f_fresh   = dut.u_ids.fresh if STATUS>=1
//@tap f_rrd     = dut.u_ids.retired_rd if STATUS>=1
//@tap f_rwr     = dut.u_ids.retired_wr if STATUS>=1
//@tap f_fcnt    = dut.u_ids.free_count if STATUS>=1
//@tap f_anyq    = dut.u_ids.any_free_q if STATUS>=1
//@tap f_issd    = dut.u_ids.slot_issued if STATUS>=1
//@tap f_hq      = dut.u_ids.handed_q if STATUS>=1
//@tap f_hsq     = dut.u_ids.handed_slot_q if STATUS>=1
//@tap f_rm0     = dut.u_ids.retired[f_s0] if STATUS>=1
//@tap f_rm1     = dut.u_ids.retired[f_s1] if STATUS>=1
//@tap f_amove   = dut.a_move
//@tap f_areq    = dut.a_req
//@tap f_bvalid  = dut.b_valid
//@tap f_bmove   = dut.b_move
//@tap f_boff    = dut.b_offset
//@tap f_bend    = dut.b_end
//@tap f_bend0   = dut.b_end_page_aligned
//@tap f_bcheap  = dut.b_request_error
//@tap f_bfirst  = dut.b_region_first
//@tap f_bbytes  = dut.b_region_bytes
//@tap f_busable = dut.b_region_usable
//@tap f_kvalid  = dut.k_valid
//@tap f_kerr    = dut.k_error
//@tap f_kok     = dut.k_ok
//@tap f_kcheck  = dut.k_check
//@tap f_kadm    = dut.k_admits
//@tap f_kaw     = dut.k_admit_walks
//@tap f_krej    = dut.k_rejects
//@tap f_kjoin   = dut.k_joins
//@tap f_kcons   = dut.k_consumed
//@tap f_kfirst  = dut.k_first_page
//@tap f_kend    = dut.k_end_page
//@tap f_kmore   = dut.k_more_pages
//@tap f_busy    = dut.w_busy
//@tap f_page    = dut.w_page
//@tap f_end     = dut.w_end_page
//@tap f_left    = dut.w_pages_left
//@tap f_rload   = dut.r_load
//@tap f_pthwe   = dut.pt_held_we
//@tap f_ptha    = dut.pt_held_addr
//@tap f_pthc    = dut.pt_held_conflict
//@tap f_rt0     = dut.region_table[f_i0]
//@tap f_rt1     = dut.region_table[f_i1]
//
// Environment: every input free in every cycle ($anyseq), the region and page tables written at
// any time, any request, mover statuses with any ID; rst high in the first cycle, free later.
//
// The harness takes the region's entry as the walker read it for the request's checks (the cycle
// the request entered the check stage, the walker's documented rule; b_region_first and
// b_region_bytes hold it) and keeps that region's page range [f_lo, f_hi] for the request admitted:
//   f_lo = first, f_hi = first + (bytes - 1) / 64 KB.
// The region table holds each entry with the "open" mark the walker worked out as it was written
// (bit 64): an open entry's pages lie inside the page table (helper table_open_fits, for both entries).
// page_in_region: every page table read (r_load) is at an index inside [f_lo, f_hi], so every
// bus address the walker puts into a mover descriptor is one of the region's pages. A request of
// several entries walks each entry in turn: [f_lo, f_hi] is the walked entry's region's, as its check read it.
//
// page_write_outside_walk: a page table write lands (the walker holds it for a cycle and writes it
// unless it refused it) never at an entry of the walk under way, w_page .. w_end_page - 1, unless
// that walk started in the cycle the write was offered (then it lands before the walk's first read);
// and no page table read that is used (r_load) is in a cycle a write is held. So every frame a walk
// reads is the one its region had at its admission.
//
// one_status: a request is begun when its first entry is admitted (a slot) or rejected; a status
// is pushed when status_valid is high. Requests begun less statuses pushed (f_owed, the harness's
// own count) always equals the statuses the walker holds pending: request slots in use, the
// waiting rejection, the completion in its stage and the status being pushed. So no status is
// pushed without a request, none is pushed twice, and none is dropped while the walker runs.
// It is proven with -D STATUS (run.py's region_walker_rd_e16_status), whose helpers describe the
// whole walk: the chunks from the walk to O in walk order (an entry's first chunk follows an
// entry's last, any other one of its own request), a request's last chunk with nothing of its
// request behind it, every chunk's request slot in use and open, each slot's piece count equal to
// its pieces the mover holds, the ID pool's IDs each exactly one of unused, retired or in use,
// an open chain or a pending close with no last entry walked, the chunks-in-flight count equal to
// the chunks between R0 and the head, each slot's "next free" flag equal to the free slot's
// index, and a pending close's registered readiness (close_ready) true only with the walk's
// pipeline empty and its slot's piece count 0.
`default_nettype none

module fv_region_walker (
  input wire clk
);
  localparam EW = 4;

  wire          rst        = $anyseq;
  wire          req_valid  = $anyseq;
  wire [177:0]  req_data   = $anyseq;
  wire          st_ready   = $anyseq;
  wire          pt_we      = $anyseq;
  wire [EW-1:0] pt_addr    = $anyseq;
  wire [47:0]   pt_data    = $anyseq;
  wire          rg_we      = $anyseq;
  wire          rg_idx     = $anyseq;
  wire [63:0]   rg_data    = $anyseq;
  wire          rg_read_idx = $anyseq;
  wire          abandon    = $anyseq;
  wire          desc_ready = $anyseq;
  wire          ms_valid   = $anyseq;
  wire [31:0]   ms_data    = $anyseq;

  wire          req_ready, st_valid, pt_refused, desc_valid, walking, can_issue, spurious, rg_read_busy;
  wire [63:0]   st_data, rg_read_data;
  wire [159:0]  desc_data;
  wire [1:0]    outstanding;
  wire [31:0]   last_status;

  `DUT dut (
    .clk(clk), .rst(rst), .req_valid(req_valid), .req_ready(req_ready), .req_data(req_data),
    .st_valid(st_valid), .st_ready(st_ready), .st_data(st_data), .pt_we(pt_we), .pt_addr(pt_addr),
    .pt_data(pt_data), .pt_refused(pt_refused), .rg_we(rg_we), .rg_idx(rg_idx), .rg_data(rg_data),
    .rg_read_idx(rg_read_idx), .rg_read_data(rg_read_data), .dma_desc_valid(desc_valid),
    .dma_desc_ready(desc_ready), .dma_desc_data(desc_data), .dma_status_valid(ms_valid),
    .dma_status_data(ms_data), .outstanding(outstanding), .walking(walking), .can_issue(can_issue),
    .spurious(spurious), .last_mover_status(last_status), .rg_read_busy(rg_read_busy), .abandon(abandon)
  );

  // taps (driven by run.py)
  wire          f_admit, f_amove, f_bvalid, f_bmove, f_kvalid, f_busy, f_rload, f_busable;
  wire          f_walk, f_pthwe, f_pthc, f_kok;
  wire          f_bend0, f_knopen, f_knskip, f_kfollows, f_kmoved, f_chopen, f_chskip, f_kcheck, f_kadm, f_kaw, f_krej, f_kjoin, f_kcons;
  reg           f_walk_q = 1'b0;   // a walk started in the cycle before
  always @(posedge clk) f_walk_q <= f_walk;
  wire [EW-1:0] f_ptha;
`ifdef STATUS
  wire          f_reject, f_q0, f_q1, f_rejv, f_compl, f_stv, f_close, f_wq;
  wire [1:0]    f_c0, f_c1;
  wire          f_cfirst, f_wfirst, f_rtake, f_cclosed;
  wire [3:0]    f_cpages;
  wire          f_nx0, f_nx1, f_srdy, f_freeq, f_cready;
  wire          f_o0, f_o1, f_wfinal, f_r0v, f_rqv, f_r1v, f_hdv, f_cv, f_cq, f_cfinal, f_ov, f_oq, f_olast;
  wire [34:0]   f_r0c, f_rqc, f_r1c;
  wire [84:0]   f_hd, f_cq0, f_cq1, f_cq2, f_cq3, f_cq4, f_cq5, f_cq6, f_cq7;
  // the piece's entry's last chunk is in (the walker keeps only whether the piece is closed)
  reg           f_clast = 1'b0;
  always @(posedge clk) f_clast <= rst ? 1'b0 : f_rtake ? f_hd[2] : f_clast;
  wire [2:0]    f_cqrd, f_cqwr;
  wire [3:0]    f_cqfill, f_inflight;
  wire          f_pr0, f_pr1, f_anyq, f_hq, f_hsq, f_rm0, f_rm1, f_tk, f_tkq, f_tks;
  wire [1:0]    f_fresh, f_rrd, f_rwr, f_fcnt, f_issd;
  wire [2:0]    f_x0 = 3'd0, f_x1 = 3'd1, f_x2 = 3'd2, f_x3 = 3'd3, f_x4 = 3'd4, f_x5 = 3'd5, f_x6 = 3'd6, f_x7 = 3'd7;
  wire          f_s0 = 1'b0, f_s1 = 1'b1;
`endif
  wire [177:0]  f_areq;
  wire [EW+15:0] f_boff;
  wire [31:0]   f_bbytes;
  wire [32:0]   f_bend;
  wire [EW-1:0] f_bfirst;
  wire [3:0]    f_kerr, f_bcheap;
  wire [EW-1:0] f_kfirst, f_page, f_kmore, f_left;
  wire [EW:0]   f_kend, f_end;
  wire [64:0]   f_rt0, f_rt1;
  wire          f_i0 = 1'b0, f_i1 = 1'b1;
  // an entry's pages first .. first + ceil(bytes / 64 KB) - 1 inside the 16-entry table, and a length
  function automatic fits(input [63:0] e);
    fits = e[31:0] != 32'd0 && ({1'b0, e[47:32]} + {1'b0, e[31:16]} + {16'd0, |e[15:0]}) <= 17'd16;
  endfunction

  reg f_past = 1'b0;
  always @(posedge clk) f_past <= 1'b1;
  always @* if (!f_past) assume (rst);
  // The region table starts as configuration leaves it (every entry closed, or written with its
  // mark): from then on only the walker's writes change it, each with the mark of what it writes.
  always @* if (!f_past) assume ((!f_rt0[64] || fits(f_rt0[63:0])) && (!f_rt1[64] || fits(f_rt1[63:0])));

  // the checked request's region pages (f_klo, f_khi), then the admitted one's (f_lo, f_hi)
  wire [15:0] f_first = {{(16-EW){1'b0}}, f_bfirst};
  wire [31:0] f_bytes = f_bbytes;
  wire [31:0] f_bm1   = f_bytes - 32'd1;          // the region's last byte
  reg  [16:0] f_klo = 17'd0, f_khi = 17'd0, f_lo = 17'd0, f_hi = 17'd0;
  always @(posedge clk) begin
    if (f_bmove) begin
      f_klo <= {1'b0, f_first};
      f_khi <= {1'b0, f_first} + {1'b0, f_bm1[31:16]};
    end
    if (f_walk) begin
      f_lo <= f_klo;
      f_hi <= f_khi;
    end
  end
  // the request in stage B as the harness saw it leave stage A: its offset and length
  reg  [31:0] f_roff = 32'd0, f_rbytes = 32'd0;
  always @(posedge clk) if (f_amove) begin
    f_roff   <= f_areq[95:64];
    f_rbytes <= f_areq[127:96];
  end
  wire [32:0] f_sum = {1'b0, f_roff} + {1'b0, f_rbytes};   // one past the last byte

  // ---------------------------------------------------------------- helpers
  always @* if (f_past) begin
    table_open_fits: assert ((!f_rt0[64] || fits(f_rt0[63:0])) && (!f_rt1[64] || fits(f_rt1[63:0])));
    b_usable_fits: assert (!f_bvalid || !f_busable || fits({16'd0, f_first, f_bbytes}));
    b_end_exact: assert (!f_bvalid || (f_bend == f_sum && f_boff == f_roff[EW+15:0] && (f_bcheap != 0 || f_rbytes != 0)));
    b_end_aligned_exact: assert (f_bend0 == (f_bend[15:0] == 16'd0));
    k_ok_exact: assert (f_kok == (f_kerr == 4'd0));
    // the chain's state (f_chopen, f_chskip: as it stands, the move of the cycle before included)
    k_moved_empty: assert (!f_kmoved || !f_kvalid);
    // what K's entry does when it leaves, as worked out when it came in, against the chain now
    k_decision_exact: assert (!f_kvalid || (f_kadm == (!f_chopen && !f_chskip && f_kok)
                                            && f_kaw == (f_kadm && !f_kcheck)
                                            && f_krej == (!f_chopen && !f_chskip && !f_kok)
                                            && f_kjoin == (f_chopen && !f_chskip && f_kok && !f_kcheck)
                                            && f_kcons == ((f_chopen || f_chskip) && (f_chskip || !f_kok || f_kcheck))
                                            && f_knopen == (f_kfollows && (!f_chopen && !f_chskip ? f_kok : f_chopen))
                                            && f_knskip == (f_kfollows && (f_chskip || !f_kok))));
    checked_inside: assert (!f_kvalid || f_kerr != 0
                            || ({13'd0, f_kfirst} >= f_klo && {12'd0, f_kfirst} < {12'd0, f_kend} && {12'd0, f_kend} <= f_khi + 17'd1 && f_khi < 17'd16
                                && {13'd0, f_kfirst} + {13'd0, f_kmore} + 17'd1 == {12'd0, f_kend}));
`ifdef STATUS
    free_slot_idle: assert ((f_q0 || f_c0 == 2'd0) && (f_q1 || f_c1 == 2'd0));
    close_holds_slot: assert (!f_close || (f_wq ? f_q1 && f_o1 : f_q0 && f_o0));
    chain_holds_slot: assert (!f_chopen || (f_wq ? f_q1 && f_o1 : f_q0 && f_o0));
    // an open chain, or a close, has no last entry walked
    no_final_walk: assert (!(f_chopen || f_close) || !(f_busy && f_wfinal));
    close_after_chain: assert (!(f_close && f_chopen));
    chunk_credit: assert ({4'd0, f_r0v} + {4'd0, f_rqv} + {4'd0, f_r1v} + {1'b0, f_cqfill} + {4'd0, f_hdv} <= 5'd8
                          && ((f_cqwr - f_cqrd) & 3'd7) == f_cqfill[2:0]
                          && f_inflight == {3'd0, f_r0v} + {3'd0, f_rqv} + {3'd0, f_r1v} + f_cqfill + {3'd0, f_hdv});
    pipe_slots_open: assert (f_pipe_open);
    pipe_walk_order: assert (f_adj_ok);
    pipe_final_last: assert (f_final_ok);
    slot_next_exact: assert (f_nx0 == (f_srdy && f_freeq == 1'b0) && f_nx1 == (f_srdy && f_freeq == 1'b1));
    close_ready_exact: assert (!(f_close && f_cready) || (!f_busy && !f_r0v && !f_rqv && !f_r1v && f_cqfill == 4'd0 && !f_hdv
                                                          && !f_cv && !f_ov && (f_wq ? f_c1 : f_c0) == 2'd0));
    piece_closed: assert (!f_cv || f_cclosed == (f_clast || f_cpages == 4'd14));
    pieces_counted: assert (f_c0 == f_n0 && f_c1 == f_n1);
    ids_consistent: assert (f_ids_ok);
`endif
    walk_inside: assert (!f_busy || ({13'd0, f_page} >= f_lo && {12'd0, f_page} < {12'd0, f_end} && {12'd0, f_end} <= f_hi + 17'd1 && f_hi < 17'd16
                                     && {13'd0, f_page} + {13'd0, f_left} + 17'd1 == {12'd0, f_end}));
  end

`ifdef STATUS
  // ---- the walk pipeline, downstream first: O, C, the chunk head, the queue (oldest first), R1,
  // RQ, R0, then the walk. Element k: valid f_ev[k], request slot f_eq[k], last chunk of its request f_ef[k].
  localparam NE = 14;
  reg [NE-1:0] f_ev, f_eq, f_ef, f_e1, f_el;   // valid, slot, request's last, entry's first, entry's last
  reg [84:0]   f_w;
  reg          f_pipe_open, f_final_ok, f_adj_ok, f_dv, f_dq, f_dl, f_dc;
  integer i, j;
  always @* begin
    f_ev = 0; f_eq = 0; f_ef = 0;
    f_e1 = 0; f_el = 0;
    f_ev[0] = f_ov;  f_eq[0] = f_oq;      f_ef[0] = f_olast;
    f_ev[1] = f_cv;  f_eq[1] = f_cq;      f_ef[1] = f_cfinal;  f_e1[1] = f_cfirst;  f_el[1] = f_clast;
    f_ev[2] = f_hdv; f_eq[2] = f_hd[0];   f_ef[2] = f_hd[3];   f_e1[2] = f_hd[1];   f_el[2] = f_hd[2];
    for (i = 0; i < 8; i = i + 1) begin
      // queue position i: entry chunk_rd + i
      case ((f_cqrd + i[2:0]) & 3'd7)
        3'd0: f_w = f_cq0; 3'd1: f_w = f_cq1; 3'd2: f_w = f_cq2; 3'd3: f_w = f_cq3;
        3'd4: f_w = f_cq4; 3'd5: f_w = f_cq5; 3'd6: f_w = f_cq6; default: f_w = f_cq7;
      endcase
      f_ev[3 + i] = i < f_cqfill;
      f_eq[3 + i] = f_w[0];
      f_ef[3 + i] = f_w[3];
      f_e1[3 + i] = f_w[1];
      f_el[3 + i] = f_w[2];
    end
    f_ev[11] = f_r1v; f_eq[11] = f_r1c[0]; f_ef[11] = f_r1c[3]; f_e1[11] = f_r1c[1]; f_el[11] = f_r1c[2];
    f_ev[12] = f_rqv; f_eq[12] = f_rqc[0]; f_ef[12] = f_rqc[3]; f_e1[12] = f_rqc[1]; f_el[12] = f_rqc[2];
    f_ev[13] = f_r0v; f_eq[13] = f_r0c[0]; f_ef[13] = f_r0c[3]; f_e1[13] = f_r0c[1]; f_el[13] = f_r0c[2];
    // Chunks in walk order: each element's chunk follows the nearest valid one downstream. An entry's
    // first chunk follows an entry's last; any other follows a chunk of its own entry (its slot).
    // The request's last chunk is its entry's last. (O keeps no entry marks: only the slot is checked.)
    f_adj_ok = 1'b1;
    f_dv = f_ov; f_dq = f_oq; f_dl = 1'b0; f_dc = 1'b0;
    for (i = 1; i < NE; i = i + 1) begin
      if (f_ev[i]) begin
        if (f_ef[i] && !f_el[i])
          f_adj_ok = 1'b0;
        if (f_dv && !f_e1[i] && f_eq[i] != f_dq)
          f_adj_ok = 1'b0;
        if (f_dc && f_e1[i] != f_dl)
          f_adj_ok = 1'b0;
        f_dv = 1'b1; f_dq = f_eq[i]; f_dl = f_el[i]; f_dc = 1'b1;
      end
    end
    // the walk's next chunk follows the most upstream one
    if ((f_busy && f_wfirst || !f_busy) ? f_dc && !f_dl : f_dv && (f_dq != f_wq || f_dc && f_dl))
      f_adj_ok = 1'b0;
    f_pipe_open = !f_busy || (f_wq ? f_q1 && f_o1 : f_q0 && f_o0);
    f_final_ok = 1'b1;
    for (i = 0; i < NE; i = i + 1) begin
      if (f_ev[i] && !(f_eq[i] ? f_q1 && f_o1 : f_q0 && f_o0))
        f_pipe_open = 1'b0;
      if (f_ev[i] && f_ef[i]) begin
        // a request's last chunk: nothing of its request upstream, no walk of it, no chain or close on it
        for (j = i + 1; j < NE; j = j + 1)
          if (f_ev[j] && f_eq[j] == f_eq[i])
            f_final_ok = 1'b0;
        if ((f_busy || f_chopen || f_close) && f_wq == f_eq[i])
          f_final_ok = 1'b0;
      end
    end
  end

  // ---- the mover's side: each piece ID in use (issued, or handed last cycle) counts for its request
  wire [1:0] f_late = f_hq ? (f_hsq ? 2'b10 : 2'b01) : 2'b00;
  // (and the ID whose status was taken last cycle: it goes back to the pool, and its request hears, now)
  wire [1:0] f_taken = f_tk ? (f_tks ? 2'b10 : 2'b01) : 2'b00;
  wire [1:0] f_inuse = f_issd | f_late | f_taken;
  wire [1:0] f_n0 = {1'b0, f_inuse[0] && !f_pr0} + {1'b0, f_inuse[1] && !f_pr1};
  wire [1:0] f_n1 = {1'b0, f_inuse[0] && f_pr0} + {1'b0, f_inuse[1] && f_pr1};
  // the ID pool: every ID exactly one of never used (>= fresh), in the retired queue, in use
  wire [1:0] f_qlen = f_rwr - f_rrd;
  wire f_p0in = ((2'd0 - f_rrd) & 2'd1) < f_qlen;   // retired queue place 0 holds an ID
  wire f_p1in = ((2'd1 - f_rrd) & 2'd1) < f_qlen;
  wire [1:0] f_occ0 = {1'b0, f_p0in && f_rm0 == 1'b0} + {1'b0, f_p1in && f_rm1 == 1'b0};
  wire [1:0] f_occ1 = {1'b0, f_p0in && f_rm0 == 1'b1} + {1'b0, f_p1in && f_rm1 == 1'b1};
  wire [1:0] f_nused = {1'b0, f_inuse[0]} + {1'b0, f_inuse[1]};
  wire f_ids_ok = f_fresh <= 2'd2 && f_qlen <= 2'd2 && f_fcnt == (2'd2 - f_fresh) + f_qlen && f_fcnt == 2'd2 - f_nused
                  && {1'b0, f_fresh <= 2'd0} + f_occ0 + {1'b0, f_inuse[0]} == 2'd1
                  && {1'b0, f_fresh <= 2'd1} + f_occ1 + {1'b0, f_inuse[1]} == 2'd1
                  && f_anyq == (f_fcnt != 2'd0) && (f_issd & f_late) == 2'b00 && ((f_issd | f_late) & f_taken) == 2'b00 && (!f_tk || f_tkq == (f_tks ? f_pr1 : f_pr0));

  // requests begun less statuses pushed
  reg [3:0] f_owed = 4'd0;
  always @(posedge clk) f_owed <= rst ? 4'd0 : f_owed + {3'd0, f_admit | f_reject} - {3'd0, f_stv};
  wire [3:0] f_pending = {3'd0, f_q0} + {3'd0, f_q1} + {3'd0, f_rejv} + {3'd0, f_compl} + {3'd0, f_stv};

`endif

  // ---------------------------------------------------------------- properties
  always @* if (f_past) begin
`ifdef CHECK_one_status
    one_status: assert (f_owed == f_pending);
`endif
`ifdef CHECK_page_in_region
    page_in_region: assert (!f_rload || ({13'd0, f_page} >= f_lo && {13'd0, f_page} <= f_hi));
`endif
`ifdef CHECK_page_write_outside_walk
    page_write_outside_walk: assert (!(f_pthwe && !f_pthc && f_busy && !f_walk_q && f_ptha >= f_page && {1'b0, f_ptha} < f_end));
    no_read_meets_write: assert (!(f_pthwe && f_rload));
`endif
  end

`ifdef CHECK_reachable
  reg f_walked = 1'b0;
  always @(posedge clk) if (f_rload && {1'b0, f_page} + 1'b1 != f_end) f_walked <= 1'b1;
  always @* if (f_past && !rst) begin
    cover (f_admit);                            // a request admitted
    cover (f_rload && {1'b0, f_page} + 1'b1 == f_end);  // its last page read
    cover (f_walked && f_rload && f_lo != 0);   // a walk of two pages or more, in a region not at entry 0
    cover (desc_valid);                         // a piece handed to the mover
    cover (pt_refused);                         // a table write refused while walking
    cover (f_walk && !f_admit);                 // a later entry of a request walked in its slot
  end
`endif
endmodule
