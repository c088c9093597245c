// SPDX-License-Identifier: Apache-2.0
// Formal harness for the descriptor controller's front direkt_host_desc_front_e4 (HostDescController's
// host protocol with 4-entry tables: IDs 0..3, TABLE_SIZE 3; table fetches with IDs 254 (rd) and 255
// (wr) on the Read Data Mover): its bookkeeping of table fetches, hand-overs and completion flags,
// and the routing of mover statuses by ID range.
//
// The IP is instantiated unchanged from ../ip (the front and its two sides u_rd, u_wr, each with its
// RAM of a batch's entries). formal/run.py reads this file with
//   read_verilog -formal -D DUT=<module> -D CHECK_<property>
// Exactly one CHECK_<property> selects the property under proof; the helper invariants are asserted
// in every run (CHECK_helpers proves them alone). The per-side bookkeeping is fv_host_desc_side,
// below, once per side.
//
// Taps (run.py drives each `//@tap` wire from the flattened internal signal; read only by
// assertions and by the environment's model of the host, never to constrain the DUT):
//@tap f_rd_busy     = dut.u_rd.busy
//@tap f_rd_first    = dut.u_rd.first_id
//@tap f_rd_count    = dut.u_rd.count
//@tap f_rd_arrived  = dut.u_rd.arrived
//@tap f_rd_issued   = dut.u_rd.issued
//@tap f_rd_req      = dut.u_rd.requested
//@tap f_rd_last     = dut.u_rd.last_ptr
//@tap f_rd_prev     = dut.u_rd.prev_id
//@tap f_rd_ends     = dut.u_rd.ends_table
//@tap f_rd_tsize    = dut.u_rd.table_size
//@tap f_rd_wptr     = dut.u_rd.handed_ptr
//@tap f_rd_cptr     = dut.u_rd.completed_ptr
//@tap f_rd_fptr     = dut.u_rd.flagged_ptr
//@tap f_rd_chead    = dut.u_rd.completed_head
//@tap f_rd_room     = dut.u_rd.ring_room
//@tap f_rd_ring0    = dut.u_rd.handed_ids[f_k0]
//@tap f_rd_ring1    = dut.u_rd.handed_ids[f_k1]
//@tap f_rd_ring2    = dut.u_rd.handed_ids[f_k2]
//@tap f_rd_ring3    = dut.u_rd.handed_ids[f_k3]
//@tap f_rd_rc_lo    = dut.u_rd.rc_base_lo
//@tap f_rd_rc_hi    = dut.u_rd.rc_base_hi
//@tap f_rd_fpend    = dut.u_rd.fetch_pending
//@tap f_rd_fdesc    = dut.u_rd_fetch_data
//@tap f_rd_reported = dut.u_rd.fetch_reported
//@tap f_rd_failed   = dut.u_rd.fetch_failed_q
//@tap f_rd_ridx     = dut.u_rd.read_index
//@tap f_rd_rvalid   = dut.u_rd.read_valid
//@tap f_rd_hvalid   = dut.u_rd.head_valid
//@tap f_rd_expect   = dut.u_rd.expecting
//@tap f_rd_cless1   = dut.u_rd.count_less1
//@tap f_rd_alliss   = dut.u_rd.all_issued
//@tap f_rd_arriss   = dut.u_rd.arrived_issued
//@tap f_rd_flag_v   = dut.u_rd_flag_valid
//@tap f_rd_flag_q   = dut.u_rd.flag_q_valid
//@tap f_rd_flag_lo  = dut.u_rd.flag_q_low
//@tap f_rd_flag_c   = dut.u_rd.flag_q_carry
//@tap f_rd_hcarry  = dut.u_rd.rc_high_carry
//@tap f_rd_owed    = dut.u_rd.flag_owed
//@tap f_rd_lastid   = dut.u_rd.last_id
//@tap f_rd_held     = dut.u_rd.handed_held
//@tap f_rd_flag_r   = dut.u_rd_flag_ready
//@tap f_rd_flag_d   = dut.u_rd_flag_data
//@tap f_rd_entry_v  = dut.u_rd_entry_valid
//@tap f_rd_entry_r  = dut.u_rd_entry_ready
//@tap f_rd_entry_d  = dut.u_rd_entry_data
//@tap f_rd_done     = dut.u_rd_fetch_done
//@tap f_wr_busy     = dut.u_wr.busy
//@tap f_wr_first    = dut.u_wr.first_id
//@tap f_wr_count    = dut.u_wr.count
//@tap f_wr_arrived  = dut.u_wr.arrived
//@tap f_wr_issued   = dut.u_wr.issued
//@tap f_wr_req      = dut.u_wr.requested
//@tap f_wr_last     = dut.u_wr.last_ptr
//@tap f_wr_prev     = dut.u_wr.prev_id
//@tap f_wr_ends     = dut.u_wr.ends_table
//@tap f_wr_tsize    = dut.u_wr.table_size
//@tap f_wr_wptr     = dut.u_wr.handed_ptr
//@tap f_wr_cptr     = dut.u_wr.completed_ptr
//@tap f_wr_fptr     = dut.u_wr.flagged_ptr
//@tap f_wr_chead    = dut.u_wr.completed_head
//@tap f_wr_room     = dut.u_wr.ring_room
//@tap f_wr_ring0    = dut.u_wr.handed_ids[f_k0]
//@tap f_wr_ring1    = dut.u_wr.handed_ids[f_k1]
//@tap f_wr_ring2    = dut.u_wr.handed_ids[f_k2]
//@tap f_wr_ring3    = dut.u_wr.handed_ids[f_k3]
//@tap f_wr_rc_lo    = dut.u_wr.rc_base_lo
//@tap f_wr_rc_hi    = dut.u_wr.rc_base_hi
//@tap f_wr_fpend    = dut.u_wr.fetch_pending
//@tap f_wr_fdesc    = dut.u_wr_fetch_data
//@tap f_wr_reported = dut.u_wr.fetch_reported
//@tap f_wr_failed   = dut.u_wr.fetch_failed_q
//@tap f_wr_ridx     = dut.u_wr.read_index
//@tap f_wr_rvalid   = dut.u_wr.read_valid
//@tap f_wr_hvalid   = dut.u_wr.head_valid
//@tap f_wr_expect   = dut.u_wr.expecting
//@tap f_wr_cless1   = dut.u_wr.count_less1
//@tap f_wr_alliss   = dut.u_wr.all_issued
//@tap f_wr_arriss   = dut.u_wr.arrived_issued
//@tap f_wr_flag_v   = dut.u_wr_flag_valid
//@tap f_wr_flag_q   = dut.u_wr.flag_q_valid
//@tap f_wr_flag_lo  = dut.u_wr.flag_q_low
//@tap f_wr_flag_c   = dut.u_wr.flag_q_carry
//@tap f_wr_hcarry  = dut.u_wr.rc_high_carry
//@tap f_wr_owed    = dut.u_wr.flag_owed
//@tap f_wr_lastid   = dut.u_wr.last_id
//@tap f_wr_held     = dut.u_wr.handed_held
//@tap f_wr_flag_r   = dut.u_wr_flag_ready
//@tap f_wr_flag_d   = dut.u_wr_flag_data
//@tap f_wr_entry_v  = dut.u_wr_entry_valid
//@tap f_wr_entry_d  = dut.u_wr_entry_data
//@tap f_wr_done     = dut.u_wr_fetch_done
//@tap f_dcm_q       = dut.dcm_write_q
//@tap f_dcm_wr      = dut.dcm_last_wr
//
// Environment (everything not listed is free in every cycle, $anyseq: the register agent, the DTS
// beats of both sides (write, address, burstcount), the movers' statuses, the bridge's host statuses (any ID, any time: host IDs
// never handed over, kernel IDs, table-fetch IDs), the descriptor sinks' ready, the flag host's
// waitrequest):
//   E1  rst is high in the first cycle; later it is free (the harness's counts reset with it).
//   E2  Host software as the a10_ref drivers: TABLE_SIZE is written with the table's size (3); a
//       side's LAST_PTR and RC base are written only while every ID that side asked for has its
//       flag written (the driver waits for the last ID's flag before the next batch).
//   E3  A table fetch is never aborted or flushed (a mover status with ID 254 or 255 has aborted
//       and flushed 0): the bookkeeping below counts every requested ID; an aborted fetch gives up
//       entries (DIAG.fetch_failed), which the simulation covers.
//   E4  The DTS beats' data is 0: no property reads an entry's addresses or length (the controller
//       gives each entry its ID), so the solver need not carry 256 free bits a beat.
`default_nettype none

module fv_host_desc (
  input wire clk
);
  wire          rst                = $anyseq;
  wire [6:0]    regs_address       = $anyseq;
  wire          regs_read          = $anyseq;
  wire          regs_write         = $anyseq;
  wire [31:0]   regs_writedata     = $anyseq;
  wire          dcm_waitrequest    = $anyseq;
  wire          rd_ms_valid        = $anyseq;
  wire [31:0]   rd_ms_data         = $anyseq;
  wire          wr_ms_valid        = $anyseq;
  wire [31:0]   wr_ms_data         = $anyseq;
  wire          rd_hs_valid        = $anyseq;
  wire [31:0]   rd_hs_data         = $anyseq;
  wire          wr_hs_valid        = $anyseq;
  wire [31:0]   wr_hs_data         = $anyseq;
  wire          rd_host_desc_ready = $anyseq;
  wire          wr_host_desc_ready = $anyseq;
  wire          rd_dts_write       = $anyseq;
  wire [7:0]    rd_dts_address     = $anyseq;
  wire [4:0]    rd_dts_burstcount  = $anyseq;
  wire [255:0]  rd_dts_writedata   = 256'd0;                  // E4
  wire          wr_dts_write       = $anyseq;
  wire [7:0]    wr_dts_address     = $anyseq;
  wire [4:0]    wr_dts_burstcount  = $anyseq;
  wire [255:0]  wr_dts_writedata   = 256'd0;                  // E4
  wire [31:0]   regs_readdata;
  wire [63:0]   dcm_address;
  wire          dcm_write;
  wire [31:0]   dcm_writedata;
  wire          rd_bs_valid, wr_bs_valid;
  wire [31:0]   rd_bs_data, wr_bs_data;
  wire [159:0]  rd_host_desc_data, wr_host_desc_data;
  wire          rd_host_desc_valid, wr_host_desc_valid;

  `DUT dut (
    .clk(clk), .rst(rst),
    .regs_address(regs_address), .regs_read(regs_read), .regs_write(regs_write), .regs_writedata(regs_writedata),
    .regs_readdata(regs_readdata),
    .dcm_address(dcm_address), .dcm_write(dcm_write), .dcm_writedata(dcm_writedata), .dcm_waitrequest(dcm_waitrequest),
    .rd_ms_valid(rd_ms_valid), .rd_ms_data(rd_ms_data), .rd_bs_valid(rd_bs_valid), .rd_bs_data(rd_bs_data),
    .rd_hs_valid(rd_hs_valid), .rd_hs_data(rd_hs_data),
    .rd_host_desc_data(rd_host_desc_data), .rd_host_desc_valid(rd_host_desc_valid), .rd_host_desc_ready(rd_host_desc_ready),
    .rd_dts_write(rd_dts_write), .rd_dts_address(rd_dts_address), .rd_dts_burstcount(rd_dts_burstcount),
    .rd_dts_writedata(rd_dts_writedata),
    .wr_ms_valid(wr_ms_valid), .wr_ms_data(wr_ms_data), .wr_bs_valid(wr_bs_valid), .wr_bs_data(wr_bs_data),
    .wr_hs_valid(wr_hs_valid), .wr_hs_data(wr_hs_data),
    .wr_host_desc_data(wr_host_desc_data), .wr_host_desc_valid(wr_host_desc_valid), .wr_host_desc_ready(wr_host_desc_ready),
    .wr_dts_write(wr_dts_write), .wr_dts_address(wr_dts_address), .wr_dts_burstcount(wr_dts_burstcount),
    .wr_dts_writedata(wr_dts_writedata)
  );

  // ---------------------------------------------------------------- taps
  wire [1:0] f_k0 = 2'd0, f_k1 = 2'd1, f_k2 = 2'd2, f_k3 = 2'd3;
  wire         f_rd_room, f_rd_busy, f_rd_req, f_rd_ends, f_rd_fpend, f_rd_reported, f_rd_failed;
  wire         f_rd_rvalid, f_rd_hvalid, f_rd_expect, f_rd_alliss, f_rd_arriss;
  wire [1:0]   f_rd_chead, f_rd_first, f_rd_tsize, f_rd_ring0, f_rd_ring1, f_rd_ring2, f_rd_ring3;
  wire [2:0]   f_rd_cless1, f_rd_count, f_rd_arrived, f_rd_issued, f_rd_wptr, f_rd_cptr, f_rd_fptr, f_rd_ridx;
  wire [7:0]   f_rd_last, f_rd_prev;
  wire [31:0]  f_rd_rc_lo, f_rd_rc_hi;
  wire [159:0] f_rd_fdesc, f_rd_entry_d;
  wire         f_rd_flag_q, f_wr_flag_q, f_rd_flag_c, f_wr_flag_c, f_rd_hcarry, f_wr_hcarry, f_rd_owed, f_wr_owed;
  wire [12:0]  f_rd_flag_lo, f_wr_flag_lo;
  wire [1:0]   f_rd_lastid, f_wr_lastid;
  wire [2:0]   f_rd_held, f_wr_held;
  wire         f_rd_flag_v, f_rd_flag_r, f_rd_entry_v, f_rd_entry_r, f_rd_done;
  wire [63:0]  f_rd_flag_d;
  wire         f_wr_room, f_wr_busy, f_wr_req, f_wr_ends, f_wr_fpend, f_wr_reported, f_wr_failed;
  wire         f_wr_rvalid, f_wr_hvalid, f_wr_expect, f_wr_alliss, f_wr_arriss;
  wire [1:0]   f_wr_chead, f_wr_first, f_wr_tsize, f_wr_ring0, f_wr_ring1, f_wr_ring2, f_wr_ring3;
  wire [2:0]   f_wr_cless1, f_wr_count, f_wr_arrived, f_wr_issued, f_wr_wptr, f_wr_cptr, f_wr_fptr, f_wr_ridx;
  wire [7:0]   f_wr_last, f_wr_prev;
  wire [31:0]  f_wr_rc_lo, f_wr_rc_hi;
  wire [159:0] f_wr_fdesc, f_wr_entry_d;
  wire         f_wr_flag_v, f_wr_flag_r, f_wr_entry_v, f_wr_done;
  wire         f_wr_entry_r = wr_host_desc_ready;            // (the wr side's entries are the front's wr_host_desc)
  wire [63:0]  f_wr_flag_d;
  wire         f_dcm_q, f_dcm_wr;

  // ---------------------------------------------------------------- environment
  reg f_past = 1'b0;
  always @(posedge clk) f_past <= 1'b1;
  always @* if (!f_past) assume (rst);                                                   // E1

  wire [5:0] f_word = regs_address[5:0];
  wire       f_wr_side = regs_address[6];
  wire       f_idle_rd, f_idle_wr, f_rd_moving, f_wr_moving;
  wire [2:0] f_rd_flags, f_wr_flags, f_rd_unwritten, f_wr_unwritten;
  always @* if (!rst && regs_write) begin
    if (f_word == 6'd5) assume (regs_writedata[1:0] == 2'd3);                              // E2
    if (f_word == 6'd4 || f_word == 6'd0 || f_word == 6'd1)
      assume (f_wr_side ? f_idle_wr : f_idle_rd);                                          // E2
  end
  always @* if (rd_ms_valid && rd_ms_data[7:0] >= 8'd254) assume (!rd_ms_data[11] && !rd_ms_data[12]);   // E3

  // the flag host takes a write
  wire f_dcm_take = dcm_write && !dcm_waitrequest;
  wire f_ptr_write_rd = regs_write && !f_wr_side && f_word == 6'd4;
  wire f_ptr_write_wr = regs_write && f_wr_side && f_word == 6'd4;

  fv_host_desc_side #(.SIDE(0), .FETCH_ID(254)) rd (
    .clk(clk), .rst(rst), .f_past(f_past), .ptr_write(f_ptr_write_rd), .ptr_value(regs_writedata[7:0]),
    .hs_valid(rd_hs_valid), .hs_id(rd_hs_data[7:0]), .dcm_take(f_dcm_take && !f_dcm_wr), .dcm_address(dcm_address),
    .dcm_writedata(dcm_writedata), .dcm_pending(f_dcm_q && !f_dcm_wr),
    .busy(f_rd_busy), .first(f_rd_first), .count(f_rd_count), .arrived(f_rd_arrived), .issued(f_rd_issued),
    .requested(f_rd_req), .last_ptr(f_rd_last), .prev(f_rd_prev), .ends(f_rd_ends), .tsize(f_rd_tsize),
    .wptr(f_rd_wptr), .cptr(f_rd_cptr), .fptr(f_rd_fptr), .chead(f_rd_chead), .room(f_rd_room),
    .ring0(f_rd_ring0), .ring1(f_rd_ring1), .ring2(f_rd_ring2), .ring3(f_rd_ring3),
    .rc({f_rd_rc_hi, f_rd_rc_lo}), .fpend(f_rd_fpend), .fdesc(f_rd_fdesc), .reported(f_rd_reported), .failed(f_rd_failed),
    .ridx(f_rd_ridx), .rvalid(f_rd_rvalid), .hvalid(f_rd_hvalid), .expecting(f_rd_expect), .cless1(f_rd_cless1), .all_iss(f_rd_alliss), .arr_iss(f_rd_arriss),
    .flag_v(f_rd_flag_v), .flag_q(f_rd_flag_q), .flag_lo(f_rd_flag_lo), .flag_c(f_rd_flag_c), .hcarry(f_rd_hcarry), .fowed(f_rd_owed), .lastid(f_rd_lastid), .held_ids(f_rd_held), .flag_r(f_rd_flag_r), .flag_d(f_rd_flag_d),
    .entry_v(f_rd_entry_v), .entry_r(f_rd_entry_r), .entry_d(f_rd_entry_d), .idle(f_idle_rd),
    .flags(f_rd_flags), .unwritten(f_rd_unwritten), .moving(f_rd_moving)
  );

  fv_host_desc_side #(.SIDE(1), .FETCH_ID(255)) wr (
    .clk(clk), .rst(rst), .f_past(f_past), .ptr_write(f_ptr_write_wr), .ptr_value(regs_writedata[7:0]),
    .hs_valid(wr_hs_valid), .hs_id(wr_hs_data[7:0]), .dcm_take(f_dcm_take && f_dcm_wr), .dcm_address(dcm_address),
    .dcm_writedata(dcm_writedata), .dcm_pending(f_dcm_q && f_dcm_wr),
    .busy(f_wr_busy), .first(f_wr_first), .count(f_wr_count), .arrived(f_wr_arrived), .issued(f_wr_issued),
    .requested(f_wr_req), .last_ptr(f_wr_last), .prev(f_wr_prev), .ends(f_wr_ends), .tsize(f_wr_tsize),
    .wptr(f_wr_wptr), .cptr(f_wr_cptr), .fptr(f_wr_fptr), .chead(f_wr_chead), .room(f_wr_room),
    .ring0(f_wr_ring0), .ring1(f_wr_ring1), .ring2(f_wr_ring2), .ring3(f_wr_ring3),
    .rc({f_wr_rc_hi, f_wr_rc_lo}), .fpend(f_wr_fpend), .fdesc(f_wr_fdesc), .reported(f_wr_reported), .failed(f_wr_failed),
    .ridx(f_wr_ridx), .rvalid(f_wr_rvalid), .hvalid(f_wr_hvalid), .expecting(f_wr_expect), .cless1(f_wr_cless1), .all_iss(f_wr_alliss), .arr_iss(f_wr_arriss),
    .flag_v(f_wr_flag_v), .flag_q(f_wr_flag_q), .flag_lo(f_wr_flag_lo), .flag_c(f_wr_flag_c), .hcarry(f_wr_hcarry), .fowed(f_wr_owed), .lastid(f_wr_lastid), .held_ids(f_wr_held), .flag_r(f_wr_flag_r), .flag_d(f_wr_flag_d),
    .entry_v(f_wr_entry_v), .entry_r(f_wr_entry_r), .entry_d(f_wr_entry_d), .idle(f_idle_wr),
    .flags(f_wr_flags), .unwritten(f_wr_unwritten), .moving(f_wr_moving)
  );

  // ---------------------------------------------------------------- properties of the front
  always @* if (f_past && !rst) begin
`ifdef CHECK_status_routing
    // every status goes to the bridge unchanged, in the same cycle (the bridge, built with the
    // table-fetch IDs, ignores theirs); a table fetch's is reported to its own side only (a status
    // in the range on the Write Data Mover to none)
    status_routing_rd: assert (rd_bs_valid == rd_ms_valid && rd_bs_data == rd_ms_data);
    status_routing_wr: assert (wr_bs_valid == wr_ms_valid && wr_bs_data == wr_ms_data);
    status_routing_fetch: assert (f_rd_done == (rd_ms_valid && rd_ms_data[7:0] == 8'd254)
                                  && f_wr_done == (rd_ms_valid && rd_ms_data[7:0] == 8'd255));
`endif
`ifdef CHECK_fetch_ids
    // the Read Data Mover gets host IDs (0..3) and the two table-fetch IDs, the Write Data Mover host IDs only
    fetch_ids_rd: assert (!rd_host_desc_valid || rd_host_desc_data[153:146] < 8'd4 || rd_host_desc_data[153:146] >= 8'd254);
    fetch_ids_wr: assert (!wr_host_desc_valid || wr_host_desc_data[153:146] < 8'd4);
`endif
  end

`ifdef CHECK_reachable
  always @* if (f_past && !rst) begin
    cover (f_rd_flags == 3'd4);                                    // a whole table's flags, rd side
    cover (f_wr_flags == 3'd2 && f_rd_flags == 3'd1);              // both sides' flags through one host
    cover (f_rd_busy && f_wr_busy && rd_host_desc_valid && rd_host_desc_data[153:146] == 8'd255);  // wr's fetch on the rd mover
    cover (f_dcm_take && !f_dcm_wr && f_rd_moving);                // a flag written while later IDs are still moving
  end
`endif

  // ---------------------------------------------------------------- helpers of the front
  // the one flag in the host's register is the side's whose turn it was, and only one
  always @* if (f_past && !rst) begin
    h_dcm_one: assert (f_rd_unwritten + f_wr_unwritten == {2'b0, f_dcm_q});
    h_dcm_data: assert (!f_dcm_q || dcm_writedata == 32'd1);
  end
endmodule

// One side's bookkeeping: what host software asked for (LAST_PTR writes), what went to the mover,
// what completed and which flags were written, as counts modulo 8 (a side has at most 4 IDs between
// asked and flagged, by E2); the IDs are the counts modulo 4.
module fv_host_desc_side #(
  parameter SIDE = 0,
  parameter FETCH_ID = 254
) (
  input wire          clk, rst, f_past,
  input wire          ptr_write,
  input wire [7:0]    ptr_value,
  input wire          hs_valid,
  input wire [7:0]    hs_id,
  input wire          dcm_take,
  input wire [63:0]   dcm_address,
  input wire [31:0]   dcm_writedata,
  input wire          dcm_pending,
  input wire          busy, requested, ends, fpend, reported, failed, room, rvalid, hvalid, expecting,
  input wire          all_iss, arr_iss,
  input wire [2:0]    cless1,
  input wire [1:0]    first, tsize, ring0, ring1, ring2, ring3, chead,
  input wire [2:0]    count, arrived, issued, wptr, cptr, fptr, ridx,
  input wire [7:0]    last_ptr, prev,
  input wire [63:0]   rc,
  input wire [159:0]  fdesc, entry_d,
  input wire          flag_v, flag_q, flag_r, entry_v, entry_r, flag_c, hcarry, fowed,
  input wire [12:0]   flag_lo,
  input wire [1:0]    lastid,
  input wire [2:0]    held_ids,
  input wire [63:0]   flag_d,
  output wire         idle,        // every ID asked for has its flag written
  output wire [2:0]   flags,       // flags written
  output wire [2:0]   unwritten,   // flags fired into the host's register, not yet written
  output wire         moving       // IDs handed to the mover and not yet completed
);
  // IDs asked for from a (0xFF: none yet, or the table's end: from 0) up to v, TABLE_SIZE 3
  function [2:0] dist(input [7:0] a, input [7:0] v);
    if (a == 8'hFF || a == 8'd3) dist = v[2:0] + 3'd1;
    else if (v == a) dist = 3'd0;
    else if (v > a) dist = v[2:0] - a[2:0];
    else dist = v[2:0] + 3'd4 - a[2:0];
  endfunction

  reg [2:0] f_req, f_iss, f_comp, f_fire, f_flag;
  reg [7:0] f_last;
  wire asked    = ptr_write && ptr_value <= 8'd3;
  wire handed   = entry_v && entry_r;
  wire complete = hs_valid && f_iss != f_comp && hs_id == {6'd0, f_comp[1:0]};
  wire fired    = flag_v && flag_r;
  assign idle = f_req == f_flag;
  assign flags = f_flag;
  assign unwritten = f_fire - f_flag;
  assign moving = f_iss != f_comp;
  initial begin
    f_req = 0; f_iss = 0; f_comp = 0; f_fire = 0; f_flag = 0; f_last = 8'hFF;
  end
  always @(posedge clk) begin
    if (rst) begin
      f_req <= 0; f_iss <= 0; f_comp <= 0; f_fire <= 0; f_flag <= 0; f_last <= 8'hFF;
    end else begin
      if (asked) begin
        f_req <= f_req + dist(f_last, ptr_value);
        f_last <= ptr_value;
      end
      f_iss <= f_iss + handed;
      f_comp <= f_comp + complete;
      f_fire <= f_fire + fired;
      f_flag <= f_flag + dcm_take;
    end
  end

  // ---------------------------------------------------------------- properties
  always @* if (f_past && !rst) begin
`ifdef CHECK_issued_in_order
    // each ID asked for goes to the mover once, in LAST_PTR order (0, 1, 2, 3, 0, ...), and nothing
    // that was not asked for
    issued_in_order: assert (!handed || (entry_d[153:146] == {6'd0, f_iss[1:0]} && f_iss != f_req));
`endif
`ifdef CHECK_flag_once_in_order
    // each completed ID's status word is written once, in the order the IDs completed, with 1; no
    // status that names no ID awaiting completion (a kernel's, a table fetch's, a stray) writes one
    flag_once_in_order: assert (!dcm_take || (f_flag != f_comp && dcm_address == rc + {60'd0, f_flag[1:0], 2'b00}
                                               && dcm_writedata == 32'd1));
`endif
  end

  // ---------------------------------------------------------------- helpers
  // entries taken and not yet handed over: in the RAM below read_index, then the read register, then the head
  wire [2:0] held = {2'b0, rvalid} + {2'b0, hvalid};
  wire [1:0] next_id = prev == 8'hFF ? 2'd0 : prev[1:0] + 2'd1;
  wire [2:0] end_id = {1'b0, first} + count - 3'd1;
  wire [2:0] rest = requested ? dist(ends ? 8'hFF : {5'd0, end_id}, last_ptr) : 3'd0;
  wire [3:0] owed = busy ? {1'b0, count - issued} + {1'b0, rest}
                         : {1'b0, requested && last_ptr != prev ? dist(prev, last_ptr) : 3'd0};
  wire [2:0] live = wptr - fptr;
  wire live0 = {1'b0, 2'd0 - fptr[1:0]} < live, live1 = {1'b0, 2'd1 - fptr[1:0]} < live;
  wire live2 = {1'b0, 2'd2 - fptr[1:0]} < live, live3 = {1'b0, 2'd3 - fptr[1:0]} < live;
  always @* if (f_past && !rst) begin
    h_store: assert (ridx <= arrived && ridx - issued == held);
    h_expecting: assert (expecting == (busy && arrived != count));
    // the registers a beat and a batch's end read instead of sums and compares
    h_count_less1: assert (!busy || cless1 + 3'd1 == count);
    h_all_issued: assert (!(all_iss && reported) || issued == count);
    h_arrived_issued: assert (!(arr_iss && reported) || issued == arrived);
    h_table: assert (tsize == 2'd3 && f_last == last_ptr && (last_ptr <= 8'd3 || (last_ptr == 8'hFF && !requested)));
    h_prev: assert (prev <= 8'd2 || prev == 8'hFF);
    // at rest, every ID asked for was fetched: prev is LAST_PTR (0xFF for the table's end)
    h_rest: assert (busy || requested || prev == (last_ptr == 8'd3 ? 8'hFF : last_ptr));
    // a batch not followed by another request ends at LAST_PTR
    h_batch_end: assert (!busy || requested || {5'd0, end_id} == last_ptr);
    // flagged_ptr counts the IDs taken into the flag register: those fired and the one waiting there
    h_ptrs: assert (f_iss == wptr && f_comp == cptr && f_fire + {2'b0, flag_q} == fptr && (!flag_v || flag_q));
    h_room: assert (!room || live <= 3'd3);
    // the IDs between hand-over and flag, counted beside the pointers; room while fewer than 3
    h_held: assert (held_ids == live && live <= 3'd3 && room == (live <= 3'd2));
    h_chead: assert (cptr == wptr || chead == cptr[1:0]);
    h_flag_reg: assert (!flag_v || flag_d == rc + {60'd0, f_fire[1:0], 2'b00});
    // a flag is offered only with no fetch waiting and its own carry into the RC base's high bits
    h_flag_shown: assert (!flag_v || (flag_q && !fpend && hcarry == flag_c));
    // a flag owed (from the pointers of the cycle before) is owed still, or was taken into the register
    h_flag_owed: assert (!fowed || flag_q || fptr != cptr);
    // the held flag's address: its low bits, and its carry into the RC base's bits above
    h_flag_q: assert (!flag_q || {rc[63:13] + {50'd0, flag_c}, flag_lo} == rc + {60'd0, f_fire[1:0], 2'b00});
    // the batch's last ID, kept from its start
    h_last: assert (!busy || lastid == end_id[1:0]);
    h_order: assert (cptr - fptr <= live && live <= 3'd4 && {1'b0, f_req - f_iss} + {1'b0, live} <= 4'd4
                     && f_req - f_flag <= 3'd4);
    h_flags: assert (f_fire - f_flag <= 3'd1 && (f_fire != f_flag) == dcm_pending);
    h_pending_flag: assert (!dcm_pending || dcm_address == rc + {60'd0, f_flag[1:0], 2'b00});
    h_ring: assert ((!live0 || ring0 == 2'd0) && (!live1 || ring1 == 2'd1) && (!live2 || ring2 == 2'd2)
                    && (!live3 || ring3 == 2'd3));
    h_owed: assert (owed <= 4'd4 && {1'b0, f_req - f_iss} == owed);
    h_fetch: assert (!fpend || (busy && !reported && fdesc[153:146] == FETCH_ID)) ;
    h_failed: assert (!failed);
    h_idle: assert (busy || (ridx == arrived && held == 3'd0 && wptr[1:0] == next_id && !fpend));
    h_batch: assert (!busy || (count != 3'd0 && {2'b0, first} + {1'b0, count} <= 4'd4 && issued <= arrived && arrived <= count
                               && ends == (end_id == 3'd3)
                               && first == next_id && wptr[1:0] == first + issued[1:0]));
  end
endmodule

`default_nettype wire
