// SPDX-License-Identifier: Apache-2.0
// The stream ports of a FIFO under proof (included by sync_fifo.sv and, through
// async_fifo_head.svh, by both dual-clock harnesses): the write side's data and valid and the read
// side's ready are free in every cycle ($anyseq); the FIFO drives the rest. The including harness
// has declared W, the data width.

  wire [W-1:0]  s_data  = $anyseq;
  wire          s_valid = $anyseq;
  wire          m_ready = $anyseq;
  wire          s_ready;
  wire [W-1:0]  m_data;
  wire          m_valid;
