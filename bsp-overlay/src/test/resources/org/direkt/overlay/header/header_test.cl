// SPDX-License-Identifier: Apache-2.0
/*
 * Test kernel for direkt_dma.h: calls every helper the header offers, in emulation mode (run under
 * PoCL, results checked against the Java Layout) and in hardware mode (built with direkt_hw_stubs.h).
 *
 * in:  in[0] = number of cases; then per case REC_IN ulongs:
 *        0 GPU address, 1 FPGA address (plain), 2 offset into fpga_mem, 3 bytes, 4 tag, 5 ID,
 *        6..15 one raw value per cldesc field, in Layout order (for the setters)
 * out: per case REC_OUT ulongs: 0 the FPGA address of fpga_mem + offset, 1..10 the getters of the
 *      setter-built descriptor, 11 its source, 12 its destination, 13 its bytes, 14 direkt_len_ok(bytes),
 *      15..18 the rd status decoded, 19..22 the wr status decoded (tagged: tag, error, elapsed, ok;
 *      cycles: cycles, failed, ok), 23 DIREKT_LAYOUT_VERSION, 24 DIREKT_MAX_BYTES, 25 DIREKT_EMU_NO_STATUS,
 *      26 direkt_status_ok(DIREKT_EMU_NO_STATUS).
 * Case i is handled by work-item i % global size, in order; per case each direction gets three
 * descriptors (rd: gpu_to_fpga, gpu_to_fpga_addr, make; wr: fpga_to_gpu, fpga_to_gpu_addr, the
 * descriptor built field by field with the setters) and one status is read from each direction.
 */
#ifdef DIREKT_TEST_HW_STUBS
#include "direkt_hw_stubs.h"
#endif
#include "direkt_dma.h"

#define REC_IN 16
#define REC_OUT 28

#if DIREKT_ID_MODE_PAPER
#define ID_ARG(r) , (uchar)(r)[5]
#else
#define ID_ARG(r)
#endif

static void decode(direkt_status_t s, __global ulong *o)
{
#if DIREKT_STATUS_MODE_TAGGED
    o[0] = direkt_status_tag(s);
    o[1] = direkt_status_error(s);
    o[2] = direkt_status_elapsed(s);
    o[3] = (ulong)direkt_status_ok(s);
#else
    o[0] = direkt_status_cycles(s);
    o[1] = direkt_status_failed(s);
    o[2] = (ulong)direkt_status_ok(s);
#endif
}

__kernel void header_test(__global const ulong *in, __global ulong *out, __global uchar *fpga_mem DIREKT_KERNEL_ARGS)
{
    DIREKT_BEGIN;
    uint n = (uint)in[0];
    uint g = (uint)get_global_size(0);
    for (uint i = (uint)get_global_id(0); i < n; i += g) {
        __global const ulong *r = in + 1 + i * REC_IN;
        __global ulong *o = out + i * REC_OUT;
        ulong gpu = r[0];
        ulong fpga = r[1];
        uint bytes = (uint)r[3];
        uint tag = (uint)r[4];
        __global uchar *p = fpga_mem + r[2];

        direkt_rd_submit(direkt_desc_gpu_to_fpga(gpu, p, bytes, tag ID_ARG(r)));
        direkt_rd_submit(direkt_desc_gpu_to_fpga_addr(gpu, fpga, bytes, tag ID_ARG(r)));
        direkt_rd_submit(direkt_desc_make(gpu, fpga, bytes, (uint)r[5], tag));

        direkt_wr_submit(direkt_desc_fpga_to_gpu(p, gpu, bytes, tag ID_ARG(r)));
        direkt_wr_submit(direkt_desc_fpga_to_gpu_addr(fpga, gpu, bytes, tag ID_ARG(r)));
        cldesc_t s = { 0 };
        s = direkt_cldesc_set_src_lo(s, (uint)r[6]);
        s = direkt_cldesc_set_src_hi(s, (uint)r[7]);
        s = direkt_cldesc_set_dst_lo(s, (uint)r[8]);
        s = direkt_cldesc_set_dst_hi(s, (uint)r[9]);
        s = direkt_cldesc_set_dwords(s, (uint)r[10]);
        s = direkt_cldesc_set_id(s, (uint)r[11]);
        s = direkt_cldesc_set_len_overflow(s, (uint)r[12]);
        s = direkt_cldesc_set_tag(s, (uint)r[13]);
        s = direkt_cldesc_set_flags(s, (uint)r[14]);
        s = direkt_cldesc_set_reserved(s, (uint)r[15]);
        direkt_wr_submit(s);

        o[0] = direkt_fpga_addr(p);
        o[1] = direkt_cldesc_get_src_lo(s);
        o[2] = direkt_cldesc_get_src_hi(s);
        o[3] = direkt_cldesc_get_dst_lo(s);
        o[4] = direkt_cldesc_get_dst_hi(s);
        o[5] = direkt_cldesc_get_dwords(s);
        o[6] = direkt_cldesc_get_id(s);
        o[7] = direkt_cldesc_get_len_overflow(s);
        o[8] = direkt_cldesc_get_tag(s);
        o[9] = direkt_cldesc_get_flags(s);
        o[10] = direkt_cldesc_get_reserved(s);
        o[11] = direkt_cldesc_get_src(s);
        o[12] = direkt_cldesc_get_dst(s);
        o[13] = direkt_cldesc_get_bytes(s);
        o[14] = (ulong)direkt_len_ok(bytes);

        decode(direkt_rd_wait(), o + 15);
        decode(direkt_wr_wait(), o + 19);

        o[23] = DIREKT_LAYOUT_VERSION;
        o[24] = DIREKT_MAX_BYTES;
#ifdef DIREKT_EMULATION
        o[25] = DIREKT_EMU_NO_STATUS;
        o[26] = (ulong)direkt_status_ok(DIREKT_EMU_NO_STATUS);
#endif
    }
}

/*
 * The emulation's slot bound: each work-item waits for and submits DIREKT_EMU_SLOTS + 2 rd entries.
 * rd descriptor k carries the k-th status read as its source and (item << 32 | k) as its
 * destination; past the bound the descriptors are dropped and the waits return
 * DIREKT_EMU_NO_STATUS, which one wr descriptor per work-item counts (its destination). In
 * hardware mode the kernel is empty: it checks that DIREKT_KERNEL_ARGS_ONLY and DIREKT_BEGIN compile.
 */
__kernel void header_test_slots(DIREKT_KERNEL_ARGS_ONLY)
{
    DIREKT_BEGIN;
#ifdef DIREKT_EMULATION
    uint item = (uint)get_global_id(0);
    ulong past = 0;
    for (uint k = 0; k < DIREKT_EMU_SLOTS + 2; k++) {
        direkt_status_t s = direkt_rd_wait();
        if (k >= DIREKT_EMU_SLOTS && s == DIREKT_EMU_NO_STATUS) {
            past++;
        }
        direkt_rd_submit(direkt_desc_make(s, ((ulong)item << 32) | k, 4, 0, 0));
    }
    direkt_wr_submit(direkt_desc_make(item, past, 4, 0, 0));
#endif
}
