// SPDX-License-Identifier: Apache-2.0
/*
 * GPU -> FPGA -> GPU through regions: the host opens a region over each GPU buffer (its pages go into
 * the bridge's table, whatever their bus addresses) and passes the region numbers. The kernel names
 * (region, byte offset, length, FPGA address), never a bus address: each copy is one request and one
 * status, however many pages the buffer spans and however they lie. The channels, the request builder
 * and direkt_copy_region come from the overlay's header:
 *
 *   direkt overlay --bsp <bsp> --preset regions --out <overlay>
 *   direkt lint-kernel examples/kernels/gpu_region_copy.cl --board <overlay>/board_spec.xml
 *   aoc -board=direkt_ref -I <overlay>/include examples/kernels/gpu_region_copy.cl
 *
 * Built with -DDIREKT_EMULATION it runs on any OpenCL implementation, with buffers standing in for
 * the channels (see direkt_dma.h).
 */
#include "direkt_dma.h"

#if !DIREKT_REGIONS
#error "gpu_region_copy.cl needs a bridge with regions addressing: direkt overlay --preset regions"
#endif

/* Reads `bytes` at `offset` of region src_region into fpga_buf, multiplies every word by `factor` on
 * the FPGA and writes the result to region dst_region at the same offset. status[0] and status[1]
 * receive the two statuses (tag, error, elapsed dma_clk cycles); a failed read skips the rest. */
__kernel void region_scale(uint src_region, uint dst_region, uint offset, __global uint *restrict fpga_buf,
                           uint bytes, uint factor, __global ulong *restrict status DIREKT_KERNEL_ARGS)
{
    DIREKT_BEGIN;
    direkt_status_t in = direkt_copy_region(rd, src_region, offset, fpga_buf, bytes, 1U);
    status[0] = in;
    if (!direkt_status_ok(in)) {
        return;
    }

    for (uint i = 0; i < bytes / DIREKT_DWORD_BYTES; i++) {
        fpga_buf[i] = fpga_buf[i] * factor;
    }
    mem_fence(CLK_GLOBAL_MEM_FENCE);

    status[1] = direkt_copy_region(wr, dst_region, offset, fpga_buf, bytes, 2U);
}
