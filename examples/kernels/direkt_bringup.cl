// SPDX-License-Identifier: Apache-2.0
/*
 * The bring-up kernel of `direkt-run bringup`: it issues descriptors the host knows through the
 * bridge, so the host can read back from the bridge's bring-up registers how they arrived, and
 * returns every status as it read it.
 *
 * Per direction (GPU->FPGA, then FPGA->GPU), four descriptors of `bytes` bytes, each written once
 * the previous one's status is back; the raw statuses go to status_out[0..3] (GPU->FPGA) and
 * status_out[4..7] (FPGA->GPU). Slot i moves bytes [i * bytes, (i + 1) * bytes) of the FPGA buffer
 * at fpga_addr from or to the GPU buffer at PCIe address gpu_paddr (GPU->FPGA from its first four
 * slots, FPGA->GPU into the next four):
 *   0  tag tag_base + 16 * direction + 0
 *   1  tag 0, which a bridge of either status mode takes
 *   2  tag tag_base + 16 * direction + 2, its eight words written in reverse order: the bridge reads
 *      it as built only when the channel's word order is the other one than the bridge's (and
 *      rejects it otherwise, RESERVED: its source address lands in x6/x7)
 *   3  tag tag_base + 16 * direction + 3, the direction's last: the LAST_DESC registers show it
 * In paper ID mode descriptor i carries ID DIREKT_KERNEL_ID_FIRST + i; in cycles status mode the
 * header's builders leave the tag out. The host's copy of these rules is
 * org.direkt.runtime.bringup.BringupPlan; BringupKernelTest runs this kernel on PoCL in the
 * header's emulation mode and compares every word it writes with the plan's.
 *
 *   direkt lint-kernel examples/kernels/direkt_bringup.cl --board <overlay>/board_spec.xml
 *   aoc -board=<board> -I <overlay>/include examples/kernels/direkt_bringup.cl
 */
#ifndef DIREKT_EMULATION
#define DIREKT_NO_CHANNELS
#endif
#include "direkt_dma.h"

#ifndef DIREKT_EMULATION
#pragma OPENCL EXTENSION cl_intel_channels : enable

channel cldesc_t direkt_rd_desc __attribute__((depth(0))) __attribute__((io("direkt_rd_desc")));
channel ulong direkt_rd_status __attribute__((depth(0))) __attribute__((io("direkt_rd_status")));
channel cldesc_t direkt_wr_desc __attribute__((depth(0))) __attribute__((io("direkt_wr_desc")));
channel ulong direkt_wr_status __attribute__((depth(0))) __attribute__((io("direkt_wr_status")));
#endif

#define BRINGUP_PER_DIRECTION 4U
#define BRINGUP_TAG_ZERO 1U
#define BRINGUP_REVERSED 2U

/* The descriptor with its words in the other order: x0 where x7 was. */
static cldesc_t bringup_reversed(cldesc_t d)
{
    cldesc_t r;
    r.x0 = d.x7;
    r.x1 = d.x6;
    r.x2 = d.x5;
    r.x3 = d.x4;
    r.x4 = d.x3;
    r.x5 = d.x2;
    r.x6 = d.x1;
    r.x7 = d.x0;
    return r;
}

/* Descriptor `slot` of direction `wr` (0: GPU->FPGA, 1: FPGA->GPU). */
static cldesc_t bringup_desc(uint wr, uint slot, ulong gpu_paddr, ulong fpga_addr, uint bytes, uint tag_base)
{
    ulong off = (ulong)slot * bytes;
    ulong gpu = gpu_paddr + off + (wr ? (ulong)BRINGUP_PER_DIRECTION * bytes : 0UL);
    ulong fpga = fpga_addr + off;
    uint tag = slot == BRINGUP_TAG_ZERO ? 0U : tag_base + 16U * wr + slot;
#if DIREKT_ID_MODE_MANAGED
    cldesc_t d = wr ? direkt_desc_fpga_to_gpu_addr(fpga, gpu, bytes, tag)
                    : direkt_desc_gpu_to_fpga_addr(gpu, fpga, bytes, tag);
#else
    uchar id = (uchar)(DIREKT_KERNEL_ID_FIRST + slot);
    cldesc_t d = wr ? direkt_desc_fpga_to_gpu_addr(fpga, gpu, bytes, tag, id)
                    : direkt_desc_gpu_to_fpga_addr(gpu, fpga, bytes, tag, id);
#endif
    return slot == BRINGUP_REVERSED ? bringup_reversed(d) : d;
}

__kernel void direkt_bringup(ulong gpu_paddr, ulong fpga_addr, uint bytes, uint tag_base,
                             __global ulong *restrict status_out DIREKT_KERNEL_ARGS)
{
    DIREKT_BEGIN;
    for (uint slot = 0U; slot < BRINGUP_PER_DIRECTION; slot++) {
        cldesc_t d = bringup_desc(0U, slot, gpu_paddr, fpga_addr, bytes, tag_base);
#ifdef DIREKT_EMULATION
        direkt_rd_submit(d);
        status_out[slot] = direkt_rd_wait();
#else
        write_channel_intel(direkt_rd_desc, d);
        /* The status read must not be scheduled before the write: channels of their own are not ordered. */
        mem_fence(CLK_CHANNEL_MEM_FENCE);
        status_out[slot] = read_channel_intel(direkt_rd_status);
#endif
    }
    for (uint slot = 0U; slot < BRINGUP_PER_DIRECTION; slot++) {
        cldesc_t d = bringup_desc(1U, slot, gpu_paddr, fpga_addr, bytes, tag_base);
#ifdef DIREKT_EMULATION
        direkt_wr_submit(d);
        status_out[BRINGUP_PER_DIRECTION + slot] = direkt_wr_wait();
#else
        write_channel_intel(direkt_wr_desc, d);
        mem_fence(CLK_CHANNEL_MEM_FENCE);
        status_out[BRINGUP_PER_DIRECTION + slot] = read_channel_intel(direkt_wr_status);
#endif
    }
}
