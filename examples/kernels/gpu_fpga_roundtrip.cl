// SPDX-License-Identifier: Apache-2.0
/*
 * GPU -> FPGA -> GPU round trip, issued by the kernel itself, in the style of the published
 * design: the kernel declares the bridge's I/O channels, writes one DMA descriptor (cldesc_t) per
 * transfer and reads its status back. The types and descriptor builders come from the overlay's
 * header; the channels are declared here, as the published kernel did, so `direkt lint-kernel`
 * can check them against the board:
 *
 *   direkt lint-kernel examples/kernels/gpu_fpga_roundtrip.cl --board <overlay>/board_spec.xml
 *   aoc -board=direkt_ref -I <overlay>/include examples/kernels/gpu_fpga_roundtrip.cl
 */
#define DIREKT_NO_CHANNELS
#include "direkt_dma.h"

#pragma OPENCL EXTENSION cl_intel_channels : enable

channel cldesc_t direkt_rd_desc __attribute__((depth(0))) __attribute__((io("direkt_rd_desc")));
channel ulong direkt_rd_status __attribute__((depth(0))) __attribute__((io("direkt_rd_status")));
channel cldesc_t direkt_wr_desc __attribute__((depth(0))) __attribute__((io("direkt_wr_desc")));
channel ulong direkt_wr_status __attribute__((depth(0))) __attribute__((io("direkt_wr_status")));

/* Copies `bytes` from GPU memory at PCIe address gpu_src into fpga_buf, then doubles every word
 * on the FPGA and sends the result back to GPU memory at gpu_dst. The two statuses (tag, error,
 * elapsed dma_clk cycles) are returned in status[0] and status[1]. */
__kernel void roundtrip(ulong gpu_src, ulong gpu_dst, __global uint *restrict fpga_buf, uint bytes,
                        __global ulong *restrict status)
{
    /* GPU -> FPGA: one descriptor, then wait for its status (the published kernel's way). */
    write_channel_intel(direkt_rd_desc, direkt_desc_gpu_to_fpga(gpu_src, fpga_buf, bytes, 1U));
    ulong s_in = read_channel_intel(direkt_rd_status);
    status[0] = s_in;
    if (!direkt_status_ok(s_in)) {
        return;
    }

    for (uint i = 0; i < bytes / 4U; i++) {
        fpga_buf[i] = fpga_buf[i] * 2U;
    }
    mem_fence(CLK_GLOBAL_MEM_FENCE);

    /* FPGA -> GPU */
    write_channel_intel(direkt_wr_desc, direkt_desc_fpga_to_gpu(fpga_buf, gpu_dst, bytes, 2U));
    status[1] = read_channel_intel(direkt_wr_status);
}
