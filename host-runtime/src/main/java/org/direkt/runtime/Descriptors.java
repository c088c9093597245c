// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime;

import java.math.BigInteger;
import java.util.LinkedHashMap;
import java.util.Map;

import org.direkt.contract.Layout;

/**
 * Kernel descriptors (cldesc_t) and region requests (cldesc_region) packed with the one Layout:
 * what the kernel builds, for host-side use.
 */
public final class Descriptors {
    private Descriptors() {
    }

    /** A managed-ID, tagged cldesc moving {@code bytes} from {@code src} to {@code dst}. */
    public static BigInteger cldesc(long src, long dst, int bytes, long tag) {
        return cldesc(src, dst, bytes, 0, tag);
    }

    /**
     * A cldesc with ID {@code id} (0 in managed ID mode, 128..255 in paper ID mode) and tag {@code tag}
     * (0 in cycles status mode), packed as the header's {@code direkt_desc_make} packs it.
     */
    public static BigInteger cldesc(long src, long dst, int bytes, int id, long tag) {
        if (bytes <= 0 || (bytes & 3) != 0 || bytes / 4 > Layout.MAX_DWORDS) {
            throw new IllegalArgumentException("descriptor length " + bytes + " bytes: must be a multiple of 4 in 4.."
                    + Layout.MAX_DWORDS * 4);
        }
        Map<String, Number> f = new LinkedHashMap<>();
        f.put("src_lo", src & 0xFFFF_FFFFL);
        f.put("src_hi", src >>> 32);
        f.put("dst_lo", dst & 0xFFFF_FFFFL);
        f.put("dst_hi", dst >>> 32);
        f.put("dwords", bytes >>> 2);
        f.put("id", id);
        f.put("tag", tag & 0xFFFF_FFFFL);
        return Layout.CLDESC.pack(f);
    }

    /**
     * A region request (kind {@link Layout#KIND_REGION}) moving {@code bytes} between byte
     * {@code offset} of region {@code region} and FPGA address {@code fpga}, tagged {@code tag}, as
     * a kernel writes it to a bridge with regions addressing. Which way the bytes go is the channel's
     * (the GPU -> FPGA or the FPGA -> GPU one). Whether the bytes lie inside the region, and the
     * region allows that direction, is the bridge's to check against its table: only the fields' own
     * rules are checked here.
     */
    public static BigInteger cldescRegion(int region, long offset, long bytes, long fpga, long tag) {
        checkRegionRequest(offset, bytes, fpga);
        Map<String, Number> f = new LinkedHashMap<>();
        f.put("fpga_lo", fpga & 0xFFFF_FFFFL);
        f.put("fpga_hi", fpga >>> 32);
        f.put("offset", offset);
        f.put("bytes", bytes);
        f.put("region", region);
        f.put("tag", tag & 0xFFFF_FFFFL);
        f.put("kind", Layout.KIND_REGION);
        return Layout.CLDESC_REGION.pack(f);
    }

    /**
     * The rules of a region request's own fields ({@link #cldescRegion}): a length that is a
     * multiple of 4 in 4 .. 4 GB - 4, an offset that is a multiple of 4 below 2^32, a dword-aligned
     * FPGA address.
     *
     * @throws IllegalArgumentException naming the field and its rule
     */
    public static void checkRegionRequest(long offset, long bytes, long fpga) {
        long maxBytes = (1L << Layout.CLDESC_REGION.field("bytes").width()) - 4;
        if (bytes < 4 || bytes > maxBytes || (bytes & 3) != 0) {
            throw new IllegalArgumentException("region request of " + bytes + " bytes: the length must be a multiple of 4 in 4.."
                    + maxBytes + " (cldesc_region.bytes is " + Layout.CLDESC_REGION.field("bytes").width() + " bits)");
        }
        if (offset < 0 || offset >= 1L << Layout.CLDESC_REGION.field("offset").width() || (offset & 3) != 0) {
            throw new IllegalArgumentException("region request at offset " + offset + ": the offset must be a multiple of 4 below 2^"
                    + Layout.CLDESC_REGION.field("offset").width() + " (cldesc_region.offset)");
        }
        if ((fpga & 3) != 0) {
            throw new IllegalArgumentException("region request to FPGA address 0x" + Long.toHexString(fpga)
                    + ": the address must be a multiple of 4 (the data movers move dwords)");
        }
    }
}
