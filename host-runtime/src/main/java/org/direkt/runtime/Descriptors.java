// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime;

import java.math.BigInteger;
import java.util.LinkedHashMap;
import java.util.Map;

import org.direkt.generators.bridge.Layout;

/** Kernel descriptors (cldesc_t) packed with the one Layout: what the kernel builds, for host-side use. */
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
}
