// SPDX-License-Identifier: Apache-2.0
// The opening both dual-clock FIFO harnesses share (async_fifo.sv, async_fifo_sr.sv): the sizes,
// the free clocks and resets, the stream ports (fifo_ports.svh), and the pointer arithmetic of
// the proofs.

  localparam W  = `WIDTH;
  localparam D  = 16;
  localparam AW = 4;
  localparam PW = 5;

  wire          wr_clk  = $anyseq;
  wire          rd_clk  = $anyseq;
  wire          wr_rst  = $anyseq;
  wire          rd_rst  = $anyseq;
`include "fifo_ports.svh"

  function [PW-1:0] bin2gray(input [PW-1:0] b);
    bin2gray = b ^ (b >> 1);
  endfunction

  // distance modulo 32 from `behind` up to `ahead`, zero-extended so that comparisons and
  // sums are not evaluated (and wrapped) at a wider or narrower width
  function [6:0] dist(input [PW-1:0] ahead, input [PW-1:0] behind);
    dist = {2'b00, ahead - behind};
  endfunction
