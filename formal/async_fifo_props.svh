// SPDX-License-Identifier: Apache-2.0
// What both dual-clock FIFO harnesses (async_fifo.sv, async_fifo_sr.sv) prove of the pointers
// and their synchronisers: sync_stage_gray_lags and the helper invariants they share, asserted
// where `FV_CHECKED holds (see fifo_words.svh, included before this).
//
// The including harness has declared, besides what fifo_words.svh reads: the binary pointers
// f_wb, f_rb and their Gray registers f_wg, f_rg; the synchroniser stages f_wsync0/1 (write
// pointer, in the read domain) and f_rsync0/1 (read pointer, in the write domain) with their
// ghost copies in binary f_x0/1 and f_y0/1 (the pointer value each stage sampled); LA and the
// read pointer one ahead f_binc, f_ginc; the registered valid flag f_rv (0 where the read data
// is not registered) and read-data register f_dq; the memory words f_mem_head (at the read
// pointer), f_mem_first and f_mem_second (at the tracked words).

  always @* if (`FV_CHECKED) begin
`ifdef CHECK_sync_stage_gray_lags
    // Each synchroniser stage holds the Gray code of a value the pointer really held, lagging
    // it by 0..16 (within one lap), stage1 not ahead of stage0.
    // Write-pointer synchroniser (read domain), against wr_ptr_bin:
    wr_sync_gray: assert (f_wsync0 == bin2gray(f_x0) && f_wsync1 == bin2gray(f_x1));
    wr_sync_lags: assert (dist(f_wb, f_x0) <= dist(f_wb, f_x1) && dist(f_wb, f_x1) <= D);
    // Read-pointer synchroniser (write domain), likewise against rd_ptr_bin:
    rd_sync_gray: assert (f_rsync0 == bin2gray(f_y0) && f_rsync1 == bin2gray(f_y1));
    rd_sync_lags: assert (dist(f_rb, f_y0) <= dist(f_rb, f_y1) && dist(f_rb, f_y1) <= D);
`endif

    // helpers, asserted (so proven) in every run
    h_ptrs: assert (f_wb == f_wcnt && f_rb == f_rcnt);
    h_gray: assert (f_wg == bin2gray(f_wb) && f_rg == bin2gray(f_rb));
    h_ghost: assert (f_wsync0 == bin2gray(f_x0) && f_wsync1 == bin2gray(f_x1) &&
                     f_rsync0 == bin2gray(f_y0) && f_rsync1 == bin2gray(f_y1));
    h_level: assert (dist(f_wb, f_rb) <= D);
    // read <= x1 <= x0 <= write (write-pointer synchroniser), all within one lap
    h_wr_chain: assert (dist(f_x1, f_rb) <= dist(f_x0, f_rb) &&
                        dist(f_x0, f_rb) <= dist(f_wb, f_rb));
    // LA: the pointer one ahead is one ahead
    h_la_inc: assert (!`LA || (f_binc == f_rb + 1'b1 && f_ginc == bin2gray(f_rb + 1'b1)));
    // a valid output word (registered read data) lies below the synchronised write pointer ...
    h_valid: assert (!f_rv || f_rb != f_x1);
`ifdef DATA_HELPERS
    // ... and is the memory word at the read pointer; a tracked word not yet taken is in the
    // memory
    h_dq: assert (!f_rv || f_dq == f_mem_head);
    h_first_mem: assert (!f_first_held || f_mem_first == f_d1);
    h_second_mem: assert (!f_second_held || f_mem_second == f_d2);
`endif
  end
