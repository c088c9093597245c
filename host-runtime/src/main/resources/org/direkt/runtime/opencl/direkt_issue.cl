// SPDX-License-Identifier: Apache-2.0
/*
 * The host runtime's issuing kernels: the host sets the request's fields with clSetKernelArg and
 * launches one work-item, which builds the descriptor (raw addressing: direkt_issue) or the region
 * request (regions addressing: direkt_issue_region) with the overlay's header and submits it, then
 * waits for its status and hands the status back in status_out[0]. Built against the overlay's
 * include/direkt_dma.h; a bitstream for direkt's runtime holds it beside the user's kernels
 * (org.direkt.runtime.device.KernelCall.Issue and IssueRegion are the host's side).
 */
#include "direkt_dma.h"

#if DIREKT_REGIONS
__kernel void direkt_issue_region(uint region, uint offset, ulong fpga_addr, uint bytes, uint tag, uint to_fpga,
                                  __global ulong *restrict status_out DIREKT_KERNEL_ARGS)
{
    DIREKT_BEGIN;
    if (to_fpga) {
        direkt_rd_submit(direkt_region_request(region, offset, fpga_addr, bytes, tag));
        status_out[0] = direkt_rd_wait();
    } else {
        direkt_wr_submit(direkt_region_request(region, offset, fpga_addr, bytes, tag));
        status_out[0] = direkt_wr_wait();
    }
}
#else
__kernel void direkt_issue(ulong gpu_paddr, ulong fpga_addr, uint bytes, uint tag, uint id, uint to_fpga,
                           __global ulong *restrict status_out DIREKT_KERNEL_ARGS)
{
    DIREKT_BEGIN;
#if DIREKT_ID_MODE_MANAGED
    (void)id;
    if (to_fpga) {
        direkt_rd_submit(direkt_desc_gpu_to_fpga_addr(gpu_paddr, fpga_addr, bytes, tag));
        status_out[0] = direkt_rd_wait();
    } else {
        direkt_wr_submit(direkt_desc_fpga_to_gpu_addr(fpga_addr, gpu_paddr, bytes, tag));
        status_out[0] = direkt_wr_wait();
    }
#else
    if (to_fpga) {
        direkt_rd_submit(direkt_desc_gpu_to_fpga_addr(gpu_paddr, fpga_addr, bytes, tag, (uchar)id));
        status_out[0] = direkt_rd_wait();
    } else {
        direkt_wr_submit(direkt_desc_fpga_to_gpu_addr(fpga_addr, gpu_paddr, bytes, tag, (uchar)id));
        status_out[0] = direkt_wr_wait();
    }
#endif
}
#endif
