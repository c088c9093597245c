// SPDX-License-Identifier: Apache-2.0
/*
 * Two kernels that move GPU regions at the same time, each through kernel ports of its own: the bridge
 * built with ports=2 gives each direction two descriptor/status channel pairs (port 0: direkt_rd_desc,
 * ...; port 1: direkt_rd_desc_p1, ...). Each kernel gets its statuses on its own ports alone, with its
 * own tags (both use tags 1 and 2 here), and a kernel that is slow to read its statuses holds up no
 * other. The channels and the port functions come from the overlay's header:
 *
 *   echo '{"preset": "regions", "ports": 2}' > ports.json
 *   direkt overlay --bsp <bsp> --config ports.json --out <overlay>
 *   direkt lint-kernel examples/kernels/gpu_region_ports.cl --board <overlay>/board_spec.xml
 *   aoc -board=direkt_ref -I <overlay>/include examples/kernels/gpu_region_ports.cl
 *
 * Built with -DDIREKT_EMULATION it runs on any OpenCL implementation; there every port of a direction
 * is the direction's one pair of emulated channels.
 */
#include "direkt_dma.h"

#if !DIREKT_REGIONS
#error "gpu_region_ports.cl needs a bridge with regions addressing: direkt overlay --preset regions"
#endif

/* Port 0: `bytes` at `offset` of region src into fpga_buf, then back out to region dst; the two
 * statuses into status[0..1]. */
__kernel void copy_through_port0(uint src, uint dst, uint offset, __global uint *restrict fpga_buf, uint bytes,
                                 __global ulong *restrict status DIREKT_KERNEL_ARGS)
{
    DIREKT_BEGIN;
    status[0] = direkt_copy_region(rd, src, offset, fpga_buf, bytes, 1U);
    if (direkt_status_ok(status[0])) {
        status[1] = direkt_copy_region(wr, dst, offset, fpga_buf, bytes, 2U);
    }
}

/* Port 1: `rows` rows of `row_bytes` from region src, one every `stride` bytes from `offset`, packed into
 * fpga_buf (one strided request), then the packed rows out to region dst from offset 0; the two
 * statuses into status[0..1]. */
__kernel void gather_through_port1(uint src, uint dst, uint offset, uint stride, uint row_bytes, uint rows,
                                   __global uint *restrict fpga_buf, __global ulong *restrict status DIREKT_KERNEL_ARGS)
{
    DIREKT_BEGIN;
    direkt_submit_strided(rd_p1, src, offset, stride, fpga_buf, row_bytes, row_bytes, rows, 1U);
    status[0] = direkt_rd_p1_wait();
    if (direkt_status_ok(status[0])) {
        status[1] = direkt_copy_region(wr_p1, dst, 0U, fpga_buf, row_bytes * rows, 2U);
    }
}
