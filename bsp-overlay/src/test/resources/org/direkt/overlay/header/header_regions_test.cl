// SPDX-License-Identifier: Apache-2.0
/*
 * Test kernel for the region part of direkt_dma.h (a header made for addressing=regions): calls
 * every region helper, in emulation mode (run under PoCL, results checked against the Java Layout)
 * and in hardware mode (built with direkt_hw_stubs.h).
 *
 * in:  in[0] = number of cases; then per case REC_IN ulongs: 0 region, 1 offset, 2 FPGA address,
 *      3 bytes, 4 tag, 5 offset into fpga_mem, 6..6+NF-1 one raw value per cldesc_region field
 *      (NF of them), in Layout order (for the setters)
 * out: per case REC_OUT ulongs: 0..NF-1 the getters of the request direkt_region_request built, NF
 *      its FPGA address (direkt_cldesc_region_get_fpga), NF+1 direkt_region_len_ok(bytes),
 *      NF+2..2NF+1 the getters of the request built with the setters, 2NF+2 the status
 *      direkt_copy_region returned, then DIREKT_REGIONS, DIREKT_REGION_COUNT, DIREKT_REGION_PAGES,
 *      DIREKT_PAGE_BYTES, DIREKT_REGION_MAX_BYTES, DIREKT_KIND_RAW, DIREKT_KIND_REGION.
 * One work-item, cases in order. Per case the rd channel gets: direkt_region_request,
 * direkt_region_to_fpga, the setter-built request, then direkt_copy_region(rd, ...) (one status
 * read); the wr channel gets direkt_region_from_fpga.
 */
#ifdef DIREKT_TEST_HW_STUBS
#include "direkt_hw_stubs.h"
#endif
#include "direkt_dma.h"

#define NF 12
#define REC_IN (6 + NF)
#define REC_OUT (2 * NF + 10)

static void getters(cldesc_t d, __global ulong *o)
{
    o[0] = direkt_cldesc_region_get_fpga_lo(d);
    o[1] = direkt_cldesc_region_get_fpga_hi(d);
    o[2] = direkt_cldesc_region_get_offset(d);
    o[3] = direkt_cldesc_region_get_bytes(d);
    o[4] = direkt_cldesc_region_get_region(d);
    o[5] = direkt_cldesc_region_get_more(d);
    o[6] = direkt_cldesc_region_get_check(d);
    o[7] = direkt_cldesc_region_get_reserved_x4(d);
    o[8] = direkt_cldesc_region_get_tag(d);
    o[9] = direkt_cldesc_region_get_kind(d);
    o[10] = direkt_cldesc_region_get_reserved_x6(d);
    o[11] = direkt_cldesc_region_get_reserved(d);
}

__kernel void header_regions_test(__global const ulong *in, __global ulong *out, __global uchar *fpga_mem DIREKT_KERNEL_ARGS)
{
    DIREKT_BEGIN;
    uint n = (uint)in[0];
    for (uint i = 0; i < n; i++) {
        __global const ulong *r = in + 1 + i * REC_IN;
        __global ulong *o = out + i * REC_OUT;
        uint region = (uint)r[0];
        uint offset = (uint)r[1];
        ulong fpga = r[2];
        uint bytes = (uint)r[3];
        uint tag = (uint)r[4];
        __global uchar *p = fpga_mem + r[5];

        cldesc_t d = direkt_region_request(region, offset, fpga, bytes, tag);
        getters(d, o);
        o[NF] = direkt_cldesc_region_get_fpga(d);
        o[NF + 1] = (ulong)direkt_region_len_ok(bytes);
        direkt_rd_submit(d);
        direkt_rd_submit(direkt_region_to_fpga(region, offset, p, bytes, tag));
        direkt_wr_submit(direkt_region_from_fpga(p, region, offset, bytes, tag));

        cldesc_t s = { 0 };
        s = direkt_cldesc_region_set_fpga_lo(s, (uint)r[6]);
        s = direkt_cldesc_region_set_fpga_hi(s, (uint)r[7]);
        s = direkt_cldesc_region_set_offset(s, (uint)r[8]);
        s = direkt_cldesc_region_set_bytes(s, (uint)r[9]);
        s = direkt_cldesc_region_set_region(s, (uint)r[10]);
        s = direkt_cldesc_region_set_more(s, (uint)r[11]);
        s = direkt_cldesc_region_set_check(s, (uint)r[12]);
        s = direkt_cldesc_region_set_reserved_x4(s, (uint)r[13]);
        s = direkt_cldesc_region_set_tag(s, (uint)r[14]);
        s = direkt_cldesc_region_set_kind(s, (uint)r[15]);
        s = direkt_cldesc_region_set_reserved_x6(s, (uint)r[16]);
        s = direkt_cldesc_region_set_reserved(s, (uint)r[17]);
        getters(s, o + NF + 2);
        direkt_rd_submit(s);

        o[2 * NF + 2] = direkt_copy_region(rd, region, offset, p, bytes, tag);
        o[2 * NF + 3] = DIREKT_REGIONS;
        o[2 * NF + 4] = DIREKT_REGION_COUNT;
        o[2 * NF + 5] = DIREKT_REGION_PAGES;
        o[2 * NF + 6] = DIREKT_PAGE_BYTES;
        o[2 * NF + 7] = DIREKT_REGION_MAX_BYTES;
        o[2 * NF + 8] = DIREKT_KIND_RAW;
        o[2 * NF + 9] = DIREKT_KIND_REGION;
    }
}

/*
 * The builders of requests of several entries: per strided case (in: region, offset, region stride,
 * FPGA offset into fpga_mem, FPGA stride, row bytes, rows, tag) direkt_submit_strided on the rd
 * channel; per vectored case (in: region, n, tag, then n x (offset, FPGA offset into fpga_mem,
 * bytes)) direkt_submit_vectored on the wr channel, its arrays in private memory (at most 8).
 * in[0] strided cases, in[1] vectored cases, then the cases.
 */
__kernel void header_multi_test(__global const ulong *in, __global uchar *fpga_mem DIREKT_KERNEL_ARGS)
{
    DIREKT_BEGIN;
    uint ns = (uint)in[0];
    uint nv = (uint)in[1];
    __global const ulong *r = in + 2;
    for (uint i = 0; i < ns; i++, r += 8) {
        direkt_submit_strided(rd, (uint)r[0], (uint)r[1], (uint)r[2], fpga_mem + r[3], (uint)r[4], (uint)r[5], (uint)r[6], (uint)r[7]);
    }
    for (uint i = 0; i < nv; i++) {
        uint n = (uint)r[1];
        uint off[8];
        ulong fpga[8];
        uint len[8];
        for (uint k = 0; k < n && k < 8U; k++) {
            off[k] = (uint)r[3 + 3 * k];
            fpga[k] = direkt_fpga_addr(fpga_mem + r[4 + 3 * k]);
            len[k] = (uint)r[5 + 3 * k];
        }
        direkt_submit_vectored(wr, (uint)r[0], off, fpga, len, n, (uint)r[2]);
        r += 3 + 3 * n;
    }
}
