// SPDX-License-Identifier: Apache-2.0
// Formal harness for the GPU region walker direkt_region_walker_rd_e16_r2_p2_q2_s2_id192_mem200000000
// (16-entry page table, 2 regions, 2 pieces and 2 requests in flight): a request's translation never
// reads a page outside its region.
//
// The IP is instantiated unchanged from ../ip. formal/run.py reads this file with
//   read_verilog -formal -D DUT=<module> -D CHECK_<property>
// Exactly one CHECK_<property> selects the property under proof; the helper invariants are
// asserted in every run (CHECK_helpers proves them alone).
//
//@tap f_admit   = dut.admit
//@tap f_walk    = dut.walk_start
//@tap f_amove   = dut.a_move
//@tap f_areq    = dut.a_req
//@tap f_bvalid  = dut.b_valid
//@tap f_bmove   = dut.b_move
//@tap f_boff    = dut.b_offset
//@tap f_bend    = dut.b_end
//@tap f_bcheap  = dut.b_request_error
//@tap f_bfirst  = dut.b_region_first
//@tap f_bbytes  = dut.b_region_bytes
//@tap f_busable = dut.b_region_usable
//@tap f_kvalid  = dut.k_valid
//@tap f_kerr    = dut.k_error
//@tap f_kfirst  = dut.k_first_page
//@tap f_kend    = dut.k_end_page
//@tap f_kmore   = dut.k_more_pages
//@tap f_busy    = dut.w_busy
//@tap f_page    = dut.w_page
//@tap f_end     = dut.w_end_page
//@tap f_left    = dut.w_pages_left
//@tap f_rload   = dut.r_load
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
  wire          f_walk;
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
    checked_inside: assert (!f_kvalid || f_kerr != 0
                            || ({13'd0, f_kfirst} >= f_klo && {12'd0, f_kfirst} < {12'd0, f_kend} && {12'd0, f_kend} <= f_khi + 17'd1 && f_khi < 17'd16
                                && {13'd0, f_kfirst} + {13'd0, f_kmore} + 17'd1 == {12'd0, f_kend}));
    walk_inside: assert (!f_busy || ({13'd0, f_page} >= f_lo && {12'd0, f_page} < {12'd0, f_end} && {12'd0, f_end} <= f_hi + 17'd1 && f_hi < 17'd16
                                     && {13'd0, f_page} + {13'd0, f_left} + 17'd1 == {12'd0, f_end}));
  end

  // ---------------------------------------------------------------- properties
  always @* if (f_past) begin
`ifdef CHECK_page_in_region
    page_in_region: assert (!f_rload || ({13'd0, f_page} >= f_lo && {13'd0, f_page} <= f_hi));
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
